"""Secret-looking values in memory text: find them, report them, and keep them out of generated text.

Generated text (the trunk's block, every `_index.md`, leaf names) is loaded or shown far more
often than a leaf, so it must never copy a credential; leaves keep the user's bytes verbatim.

Rules are anchored on real key formats, each with the prefix a mask may keep:
OpenAI/Anthropic `sk-`, GitHub `ghp_`/`github_pat_`, GitLab `glpat-`, AWS `AKIA`/`ASIA`, Slack
`xox?-` and webhooks, Discord webhooks, Stripe `sk_live_`/`rk_live_`, Google `AIza`, Hugging Face
`hf_`, npm `npm_`, SendGrid `SG.`, Telegram bot tokens, JWTs, PEM private keys, passwords in
URLs (`postgres://user:pw@host`, `redis://:pw@host`), `Bearer` tokens, and assignments of a
concrete value to a secret-named key: `password: …`, `OPENAI_API_KEY=…`, names glued to a prefix
(`PGPASSWORD=…`, `MYSQL_PWD=…`), `_pass` endings (`DB_PASS=…`), `pass:`, `pw:`, and labels in
other languages (`密码：…`, `密碼:`, `パスワード:`, `비밀번호:`, `пароль:`, `كلمة المرور:`, …; a
full-width colon or equals sign counts).  A password-named key counts with an all-digit value too.

Boundaries (issue 13, kind 1): a key is found whatever script touches it.  Only an ASCII letter
or digit right before a key continues a word (`task-…` is not `sk-…`); CJK, kana, Hangul,
Cyrillic, Arabic, Thai, Greek… never do, so `密钥AKIA…` and `…AKIA…의` are keys.  Patterns
never use `\\b`, which treats CJK as letters.

What is never reported (`find_secrets`, `secret_warnings`, the hook, status): a bare word ("No
API key in the build", "password reset flow"); a value with no digit (`token: read-only`); a
placeholder (`<token>`, `${DB_PASSWORD}`, `YOUR_API_KEY`, `xxxx`, `***`, `changeme`, `REDACTED`,
`…[masked]`, anything saying "example"); a pointer to a secret store (`1Password`, Bitwarden,
Vault, keychain, `op://…`, `$ENV_VAR`, an env var name such as `DB_PASSWORD_2`); documented
example keys (AWS's `AKIAIOSFODNN7EXAMPLE`, jwt.io's token, Stripe's docs key); git object ids
and UUIDs; a value the user allowed, by fingerprint (`fingerprint`, `[secrets] allow` in
`.bonsai.toml`) or by ending its line with ALLOW_MARKER.

Generated text goes further (`mask_secrets`, `remove_secrets`, `mask_name`): everything the
rules match is masked, pointers and allowed values included (masking a pointer costs a word,
missing a key costs the key), plus random-looking tokens (24+ characters switching often between
upper case, lower case and digits) and any value in a vendor's key format (even `sk-test-XXXX…`).
`mask_name` also matches key formats in any case, since slugs are lowercased.
Pure: text in, text out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from functools import cache


class _LazyPattern:
    """A regex compiled at its first use, not at import.

    The rules' helpers below (placeholders, pointers, password names) matter only once a rule has
    matched, which most runs never see: the hook's run after a leaf edit imports this module to
    mask one summary, and compiling them up front was ~2-4 ms of that run (issue 15).
    """

    __slots__ = ("_source", "_compiled")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    def _pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        """`re.Pattern.search` of the compiled pattern."""
        return self._pattern().search(text)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """`re.Pattern.fullmatch` of the compiled pattern (`endpos` None: the end of `text`)."""
        return self._pattern().fullmatch(text, pos, len(text) if endpos is None else endpos)


MASK = "…[masked]"
RANDOM_KIND = "random-looking token"
# Ends a line whose secret-looking value is not a secret (an HTML comment: invisible when rendered).
ALLOW_MARKER = "<!-- bonsai:allow-secret -->"
FINGERPRINT = _LazyPattern(r"sha256:[0-9a-f]{16}")  # what `fingerprint` returns; `[secrets] allow` takes only this

# Secret names, matched against the lowercased text (`_lower`).  Password names accept all-digit values.
_PASSWORD_NAMES = (
    r"pass(?:word|wd|phrase|code|wort)?", "pwd", "pw", "kennwort", "wachtwoord", "senha", r"contrase(?:ñ|n)a",
    r"mot[ _-]de[ _-]passe", r"has(?:ł|l)o", r"l(?:ö|o)senord", "şifre", "sifre", "parola", r"kata[ _]sandi",
    r"mật[ _]khẩu", r"mat[ _]khau",
    "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호", "패스워드", "암호", "пароль", "Пароль", "ПАРОЛЬ",
    "парола", "Парола", "κωδικός", "Κωδικός", "ΚΩΔΙΚΟΣ", "κωδικος", "συνθηματικό", "Συνθηματικό",
    "كلمة المرور", "كلمة السر", "סיסמה", "סיסמא", "รหัสผ่าน", "पासवर्ड",
    # more translations (issue 25): Serbian/Macedonian, Ukrainian, Kazakh, Mongolian, Persian, Urdu,
    # Arabic, Hindi, Bengali, Tamil, Telugu, Georgian, Armenian, Amharic, Lao, Khmer, Burmese, Japanese
    "лозинка", "Лозинка", "құпия сөз", "құпиясөз", "нууц үг", "رمز عبور", "گذرواژه", "پاس ورڈ", "رمز المرور",
    "कूटशब्द", "পাসওয়ার্ড", "கடவுச்சொல்", "పాస్‌వర్డ్", "პაროლი", "գաղտնաբառ", "የይለፍ ቃል", "ລະຫັດຜ່ານ",
    "ពាក្យសម្ងាត់", "စကားဝှက်", "合言葉", "暗码", "密碼", "口令",
)
_KEY_NAMES = (
    r"client[_ -]?secret", r"secret[_ -]?key", "secret", r"api[_ -]?key", "apikey", r"access[_ -]?key",
    r"access[_ -]?token", r"auth[_ -]?token", r"bot[_ -]?token", "token", r"private[_ -]?key", "credentials?",
    "密钥", "密鑰", "秘钥", "秘鑰", "令牌", "トークン", "シークレット", "토큰", "токен", "Токен",
    "apiキー", "api 키", "api키", "api-ключ", "ключ api", "秘密鍵", "访问令牌", "アクセストークン",
)
_PASSWORD_NAME = _LazyPattern("|".join(_PASSWORD_NAMES))


def _split_by_script(names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(n for n in names if n[0].isascii()), tuple(n for n in names if not n[0].isascii())


def _by_first_char(alternatives: tuple[str, ...]) -> str:
    """One regex alternation, grouped by first character (`p(?:ass…|wd|w)|s(?:ecret|enha)|…`).

    Each alternative starts with a literal character and no group sits at the start, so re skips
    in C over positions no name can start at and tries one branch where one can; a flat list of
    60 names (or one `[пП]`, or a capturing group around them) made a 5 MB scan 3-8x slower.
    """
    groups: dict[str, list[str]] = {}
    for alternative in alternatives:
        groups.setdefault(alternative[0], []).append(alternative[1:])
    out = []
    for first, rests in groups.items():
        rests.sort(key=lambda rest: rest == "")  # an empty rest (the name ends here) is tried last
        out.append(re.escape(first) + (f"(?:{'|'.join(rests)})" if rests != [""] else ""))
    return "|".join(out)


# Long English names also count glued to a prefix (`PGPASSWORD`, `MYSQLPWD`, `CSRFTOKEN`), as do
# names in a script without spaces (`数据库密码`); short ones end real words (`bypass`, `compass`,
# Portuguese `resenha`) so they count only at a word's start or after a separator (`DB_PASS`).
_GLUABLE = _LazyPattern(r"pass(?:word|wd|phrase|code|wort)|pwd|[^a-z].*")
# A value is printable ASCII but blanks and quotes "'` (and accented Latin letters), all of it:
# `Winter2024)))` is not `Winter2024` (issue 25: a fingerprint names one value, so the value found
# is the whole run, trailing punctuation included).  A value that starts in ASCII ends where
# another script starts, since CJK or Thai prose touches a value with no space (`密码：Tr0ub4dor是…`,
# `token_count: 150000个` is a count).  A value that starts in a script written with spaces
# (Cyrillic, Greek, Armenian, Georgian, Hebrew, Arabic, the Indic scripts: `пароль: Медведь2024`)
# runs on through that script's letters; a value in CJK, kana, Hangul or Thai is not found (their
# prose touches the label with no space: `密码：见文档第3页` is a sentence, not a password).
_VALUE = r"[!#-&(-_a-~\u00c0-\u024f]"
_SPACED_SCRIPTS = "\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u0dff\u10a0-\u10ff\u1f00-\u1fff"
_OTHER_VALUE = rf"[{_SPACED_SCRIPTS}][!#-&(-_a-~\u00c0-\u024f{_SPACED_SCRIPTS}]{{3,}}"
# Group 1 (empty) marks where the name ends.
_ASSIGNMENT = (
    r"(?:{names})()(?P<suffix>[_.-][a-z0-9]+)?(?![a-z0-9])"
    rf"[*_\"'`]*[ \t]*[:=：＝][ \t]*[*_]*[ \t]*[\"'`]?(?P<value>{_VALUE}{{6,}}|{_OTHER_VALUE})"
)
# What masking treats as a placeholder (unchanged since the first release: generated text stays
# at least as masked as before); reports add pointers and more placeholders (`_exempt`).
_PLACEHOLDER = _LazyPattern(
    r"(?i)^[<\[({$%*…#./~]|x{4,}|\*{3,}|\.{3}|example|your[_-]|placeholder|redacted|masked|changeme|dummy|"
    r"^(?:none|null|true|false|required|optional|secret|password|pass|pwd|token)$"
)
_REPORT_PLACEHOLDER = _LazyPattern(
    r"(?i)x{3,}|\*{3,}|\.{3}|…|example|sample|your[_-]?(?:own|key|token|secret|pass|api)|placeholder|redacted|"
    r"masked|change[_-]?me|replace[_-]?me|dummy|^(?:todo|tbd|fixme|n/?a)$|^(.)\1+$"
)
# Pointers to a secret store: the value says where the secret lives, not what it is.
_POINTER = _LazyPattern(
    r"(?i)1password|bitwarden|lastpass|keepass|dashlane|vault|keychain|keyring|doppler|infisical|"
    r"secrets?[_ -]?manager|parameter[_ -]?store|^(?:op|bws?|sops|ssm|env|pass|gopass|arn):|^secrets\.|"
    r"^(?:process\.env|os\.environ|env)[.\[]"
)
_ENV_NAME = _LazyPattern(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_ENV_WORD = _LazyPattern(r"KEY|TOKEN|SECRET|PASS|PWD|API|AUTH|CRED|DSN|URL")
# Published in vendors' documentation as examples: they grant nothing.
DOCUMENTED_EXAMPLES = frozenset({
    "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # AWS
    "AKIAI44QH8DHBEXAMPLE", "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",  # AWS
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "pk_test_TYooMQauvdEDq54NiTphI7jx",  # Stripe's docs
    # Azurite's well-known development account key (devstoreaccount1), published by Microsoft
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",  # RFC 7617's Basic example, Aladdin:open sesame
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIy"
    "fQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",  # jwt.io
})
_SYMBOLS = frozenset("!@#$%^&*+=?~/")


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _concrete(value: str, digits_only_ok: bool = False) -> bool:
    """An assigned value that looks real: 6+ chars, not a placeholder, a digit and a letter or symbol
    (or, for a password, only digits).  `token: read-only`, `password: see vault`, `api_key: <yours>`
    and dates are not secrets.
    """
    value = value.rstrip(".,;:!?*_)")
    if len(value) < 6 or _PLACEHOLDER.search(value) or not any(c.isdigit() for c in value):
        return False
    if value.isdigit():
        return digits_only_ok
    return any(c.isalpha() or c in _SYMBOLS for c in value)


def _assigned(value: str, m: re.Match[str]) -> bool:
    """A concrete value; digits only count for a password name without a suffix, and for a bare
    `pass` only in a compound (`DB_PASS=482913`, not `Boarding pass: 482913`, a booking number)."""
    text, start = m.string, m.start()
    digits_ok = m.group("suffix") is None and _PASSWORD_NAME.fullmatch(text, start, m.start(1)) is not None
    if text[start : m.start(1)] == "pass" and (start == 0 or text[start - 1] not in "_.-"):
        digits_ok = False
    return _concrete(value, digits_only_ok=digits_ok)


def _is_example(value: str) -> bool:
    return value in DOCUMENTED_EXAMPLES or "example" in value.lower()


def _exempt(value: str) -> bool:
    """A placeholder, a pointer to a secret store or an example, not a secret (reports only)."""
    value = value.rstrip(".,;:!?*_)")
    if _is_example(value) or _REPORT_PLACEHOLDER.search(value) or _POINTER.search(value):
        return True
    return bool(_ENV_NAME.fullmatch(value) and _ENV_WORD.search(value))


def _ascii_alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _word_start(text: str, m: re.Match[str]) -> bool:
    """The match does not continue an ASCII word (`task-…` is not `sk-…`; `密钥sk-…` is)."""
    return m.start() == 0 or not _ascii_alnum(text[m.start() - 1])


def _name_start(text: str, m: re.Match[str]) -> bool:
    """A secret name at a word start, or glued to a prefix when it is long enough (`PGPASSWORD`)."""
    name = m.string[m.start() : m.start(1)]
    if _GLUABLE.fullmatch(name) or not _PASSWORD_NAME.fullmatch(name):
        return True
    return _word_start(text, m)


# Where a key may begin when masking (names and generated text): key prefixes short enough to end
# an ordinary word (`task-…`, `shelf_…`) count glued to a word only when what follows looks
# random; every longer prefix (`glpat-`, `ghp_`, `xoxb-`, `akia`) is a key wherever it stands,
# since slugs and run-on text glue words to it (`notes2024glpat-…`).  Reports keep _word_start.
_WORDLIKE_PREFIXES = ("sk-", "hf_")


def _name_key_start(text: str, m: re.Match[str]) -> bool:
    """Where a key format may begin in masked text or a file name (see _WORDLIKE_PREFIXES)."""
    value = text[m.start() : m.end()]  # as written: `m` may have matched the lowercased text
    if not value[:3].lower().startswith(_WORDLIKE_PREFIXES) or _word_start(text, m):
        return True
    core = value[3:27]  # the key's own first 24 chars: a word glued after it must not dilute them
    if _looks_random(core) or any(_looks_random_caseless(run) for run in _CASELESS_RUN.findall(core)):
        return True
    # a letters-only key of its documented length (issue 25), whose whole body looks random
    key = _LETTERS_KEY.match(value)
    return key is not None and _looks_random_letters(key.group(1) or key.group(2))


def _query_start(text: str, m: re.Match[str]) -> bool:
    """A query parameter: right after `?`, `&` or `;` (`…&sig=…`, not `config_sig=…`)."""
    return m.start() > 0 and text[m.start() - 1] in "?&;"


def _anywhere(_text: str, _m: re.Match[str]) -> bool:
    return True


def _always(_value: str, _m: re.Match[str]) -> bool:
    return True


def _key_shaped(value: str, _m: re.Match[str]) -> bool:
    return _has_digit_and_letter(value)


# Documented lengths of the letters-only bodies (issue 25): a key made of letters alone has no
# digit for `_key_shaped` to see, so it counts by its vendor's length and alphabet instead.
# Anthropic: `sk-ant-api03-` + 93 chars of [A-Za-z0-9_-] + `AA` (95 after the type); OpenAI
# project keys: `sk-proj-` + 48 or more of [A-Za-z0-9_-] (the classic `sk-` key's 48).
_LETTERS_KEY = re.compile(r"sk-ant-(?:[a-z]+[0-9]*-)?([A-Za-z0-9_-]{95,})|sk-proj-([A-Za-z0-9_-]{48,})")


def _vendor_key(value: str, _m: re.Match[str]) -> bool:
    """A key with a digit and a letter, or a letters-only `sk-ant-`/`sk-proj-` key of its documented
    length that mixes cases the way random text does (never a hyphenated word run)."""
    if _has_digit_and_letter(value):
        return True
    key = _LETTERS_KEY.fullmatch(value)
    return key is not None and _looks_random_letters(key.group(1) or key.group(2))


def _looks_random_letters(body: str, share: float = 0.3) -> bool:
    """Upper and lower case, switching between them at `share` (30%) or more of positions (random
    letters switch at ~50%; `Project-Roadmap-For-Q-Three` words far less)."""
    letters = body.replace("-", "").replace("_", "")
    return (any(c.isupper() for c in letters) and any(c.islower() for c in letters)
            and _switches(letters) >= share * (len(letters) - 1))


def _basic_credentials(value: str, _m: re.Match[str]) -> bool:
    """`Basic` credentials: base64 of `user:password` (RFC 7617), the password concrete enough
    (6+ chars, not a placeholder); any other word after `basic` is prose."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    return (bool(colon) and decoded.isprintable() and len(password) >= 4
            and not _PLACEHOLDER.search(password) and not _PLACEHOLDER.search(user or "x"))


# `Authorization:` (any quotes, `=` too) right before a `bearer` match, in the lowercased text.
_AUTH_HEADER = _LazyPattern(r"authorization[\"'`]?[ \t]*[:=][ \t]*[\"'`]?[ \t]*$")


def _bearer(value: str, m: re.Match[str]) -> bool:
    """A bearer token with a digit and a letter, or in an `Authorization:` header, one of 16+ chars
    mixing cases (letters-only tokens are real there)."""
    if len(value) >= 20 and _has_digit_and_letter(value):
        return True
    header = _AUTH_HEADER.search(m.string[max(0, m.start() - 24) : m.start()]) is not None
    return header and len(value) >= 16 and not _PLACEHOLDER.search(value) and (
        _has_digit_and_letter(value) or _looks_random_letters(value))


def _azure(value: str, _m: re.Match[str]) -> bool:
    """An Azure account key or SAS signature: base64 (or its URL-encoded form) of 20+ chars with a
    digit and a letter (a real account key is 88 chars, a signature 43-46)."""
    return len(value) >= 20 and _has_digit_and_letter(value)


def _telegram(value: str, _m: re.Match[str]) -> bool:
    return value.startswith("AA") and len(value) == 35 and _has_digit_and_letter(value)


@dataclass(frozen=True, slots=True)
class _Rule:
    """kind; pattern; `group`: the group holding the secret value (0: the whole match); chars of the
    value a mask may keep; `check`: does the value look real; `exempt`: not a secret after all
    (reports only: placeholders, pointers, examples); `lowered`: match against the
    lowercased text (names in any case); `start`: where a match may begin; `vendor`: a key
    format with a vendor prefix, so generated text masks it even when the check fails
    (`sk-test-XXXXXXXXXXXXXXXXXXXX` has no digit, but no index line needs it either).

    Patterns start with a literal where they can: Python's re then skips ahead in C, which
    keeps a scan of a 5 MB file well under a second.
    """

    kind: str
    pattern: re.Pattern[str]
    keep: int
    check: Callable[[str, re.Match[str]], bool] = _key_shaped
    exempt: Callable[[str], bool] = _is_example
    group: int | str = 0
    lowered: bool = False
    start: Callable[[str, re.Match[str]], bool] = _word_start
    vendor: bool = True


# After a key, only an ASCII letter or digit continues it (never `\b`: it treats CJK as letters).
_END = r"(?![0-9A-Za-z])"


@cache
def _rules() -> tuple[_Rule, ...]:
    """The rules, compiled on first use: the hook's no-op run imports this module but never scans."""
    return (
        _Rule("private key", re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}"
            r"PRIVATE KEY(?: BLOCK)?-----)?"), 0, _always, start=_anywhere),
        _Rule("anthropic key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"), 7, _vendor_key),
        _Rule("stripe key", re.compile(r"sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_(?:live|test)_[A-Za-z0-9]{16,}"), 8),
        _Rule("openai key", re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), 3, _vendor_key),
        _Rule("github token", re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 4),
        _Rule("gitlab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), 6),
        _Rule("aws access key", re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}" + _END), 4),
        _Rule("slack token", re.compile(r"xox[abeoprs]-[A-Za-z0-9-]{10,}"), 5),
        _Rule("slack webhook", re.compile(r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/"
                                          r"[A-Za-z0-9_]{16,}"), 33, _always),
        _Rule("discord webhook", re.compile(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/"
                                            r"[A-Za-z0-9_-]{40,}"), 0, _always),
        _Rule("google api key", re.compile(r"AIza[0-9A-Za-z_-]{35}"), 4),
        _Rule("hugging face token", re.compile(r"hf_[A-Za-z0-9]{30,}"), 3),
        _Rule("npm token", re.compile(r"npm_[A-Za-z0-9]{36}" + _END), 4),
        _Rule("sendgrid key", re.compile(r"SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}"), 3),
        # Real tokens are `<bot id>:AA<33 chars>`; the loose shape (`0000000000:XXXX…`, corpus file 11)
        # is still masked in generated text, but only the real format is reported.
        _Rule("telegram bot token", re.compile(r":(?<=[0-9]{8}:)([A-Za-z0-9_-]{30,})"), 0, _telegram, group=1,
              start=_anywhere),
        _Rule("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 3),
        # The user part may be empty (`redis://:pw@host`).
        _Rule("password in url", re.compile(r"://[^\s:/@\"'<>]{0,64}:([^\s/@\"'<>]{3,128})@"), 0,
              lambda v, _m: not _PLACEHOLDER.search(v), _exempt, group=1, start=_anywhere, vendor=False),
        # HTTP authorization headers (issue 25): `Authorization: Bearer …`, and `Basic` + base64 of user:password.
        _Rule("bearer token", re.compile(r"bearer\s+([a-z0-9._~+/=-]{16,})"), 0, _bearer, group=1, lowered=True,
              vendor=False),
        _Rule("basic auth", re.compile(r"basic[ \t]+([a-z0-9+/]{6,}={0,2})(?![a-z0-9+/=])"), 0, _basic_credentials,
              group=1, lowered=True, vendor=False),
        # Azure storage connection strings (`AccountKey=…`) and shared access signatures (`…&sig=…`).
        _Rule("azure storage key", re.compile(r"accountkey[ \t]*=[ \t]*([a-z0-9+/]{20,}={0,2})"), 0, _azure,
              group=1, lowered=True, start=_anywhere, vendor=False),
        _Rule("azure sas signature", re.compile(r"sig=((?:[a-z0-9+/]|%2b|%2f){20,}(?:%3d|=){0,2})"), 0,
              _azure, _exempt, group=1, lowered=True, start=_query_start, vendor=False),
        *(_Rule("secret assignment", re.compile(_ASSIGNMENT.replace("{names}", _by_first_char(names))), 0, _assigned,
                _exempt, group="value", lowered=True, start=_name_start, vendor=False)
          # Names starting in ASCII, then in other scripts: two patterns scan 5 MB 2x faster than one.
          for names in _split_by_script(_PASSWORD_NAMES + _KEY_NAMES)),
    )


@cache
def _name_rules() -> tuple[_Rule, ...]:
    """The rules for file names: vendor formats in any case (slugs are lowercased: `akia…`)."""
    # In a name a fixed-length key may be glued to more text on both sides (`0000akia…0000`): a
    # slug has no other separator to show where it ends.
    # A slug has lost the case Basic credentials need to be decoded: there any long value with a
    # digit and a letter after `basic ` counts.
    return tuple(replace(r, pattern=re.compile(r.pattern.pattern.replace(_END, ""),
                                               r.pattern.flags | re.IGNORECASE)) if r.vendor
                 else replace(r, check=_basic_in_name) if r.kind == "basic auth"
                 else replace(r, check=_bearer_in_name) if r.kind == "bearer token"
                 else r for r in _rules())


def _basic_in_name(value: str, _m: re.Match[str]) -> bool:
    return len(value) >= 12 and _has_digit_and_letter(value)


def _bearer_in_name(value: str, m: re.Match[str]) -> bool:
    """`_bearer`, or (case lost) any 16+ char value after an `Authorization:` header's `bearer`."""
    header = _AUTH_HEADER.search(m.string[max(0, m.start() - 24) : m.start()]) is not None
    return _bearer(value, m) or (header and len(value) >= 16 and not _PLACEHOLDER.search(value))


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_CASELESS_RUN = re.compile(r"[A-Za-z0-9]{20,}")
# A name that may hold a secret: a long run, an assignment or URL sign, a token prefix without
# digits nearby, or a run of 8+ mixing letters and digits.  Anything else is a plain name, and
# the hook's no-op run never compiles the rules for it.
_NAME_SUSPECT = re.compile(
    r"[A-Za-z0-9]{16}|[:=@：＝]|(?i:xox|eyj|bearer|begin)|"
    r"(?<![A-Za-z0-9])(?=[A-Za-z0-9]{8})(?:[A-Za-z]+[0-9]|[0-9]+[A-Za-z])"
)

_Hit = tuple[int, int, str]

# The prefilter (issue 15: the 20 rule passes cost ~20-45 µs a leaf, most of a 60,000-leaf status).
# An ASCII text can match a rule only if `_RAW_GATE` finds, in the text as is, a literal every
# match of a vendor rule holds (those rules are case-sensitive; `://` stands for the URL rules,
# webhooks included; Telegram's is 8 digits and a colon), or the lowercased text holds one of
# `_LOWER_NEEDLES`: a literal every ASCII spelling of a secret name holds (`pass` covers
# `password` and `mot de passe`, `token` covers `auth_token`, `api` covers `apikey`) or `bearer`.
# Non-ASCII text is always scanned whole.  tests/core/test_secret_scan_gate.py proves the findings equal.
_RAW_GATE = re.compile(
    r"://|sk-|k_(?:live|test)_|gh[pousr]_|github_pat_|glpat-|A(?:KIA|SIA|BIA|CCA|Iza)|xox|hf_|npm_|SG\.|eyJ|"
    r"-----BEGIN |:(?<=[0-9]{8}:)"
)
_LOWER_NEEDLES = (
    "pass", "pw", "token", "secret", "api", "access", "private", "credential", "bearer", "basic", "accountkey",
    "sig=", "kennwort", "wachtwoord",
    "senha", "contrase", "haslo", "losenord", "sifre", "parola", "sandi", "khau",
)


def _may_match(text: str, lowered: str) -> bool:
    """False only when no rule of `_rules()` can match `text` (ASCII; `lowered` its lowercase)."""
    for needle in _LOWER_NEEDLES:  # plain loop: cheaper than any() over a generator
        if needle in lowered:
            return True
    return _RAW_GATE.search(text) is not None


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """A secret-looking value: its kind, 1-based line, and char span [start, end) in the scanned text."""

    kind: str
    line: int
    start: int
    end: int


def find_secrets(text: str, *, aggressive: bool = False, allow: Collection[str] = ()) -> tuple[SecretFinding, ...]:
    """Find secret-looking values in `text` (str); spans are char offsets, lines 1-based.

    `aggressive` (for generated text, where a false positive only costs a masked word) adds
    random-looking tokens, vendor-format values that fail the realism check, placeholders and
    pointers the reports leave out, and ignores `allow` and ALLOW_MARKER.  Reports (warnings,
    status, the hooks) use the default, which drops a value whose `fingerprint` is in `allow`
    (`[secrets] allow` of `.bonsai.toml`) or whose line (its first or last) ends with
    ALLOW_MARKER.  Overlapping findings keep the earliest (then longest) one; `aggressive`
    (masking) joins them.  Never raises.
    """
    hits = _scan(text, _rules(), aggressive, gate=True)
    if aggressive:
        hits += [(m.start(), m.end(), RANDOM_KIND) for m in _TOKEN.finditer(text) if _looks_random(m.group(0))]
    if not hits:
        return ()
    kept = _resolve(hits, join=aggressive)
    if not aggressive:
        kept = [h for h in kept if not _allowed(text, h, allow)]
    found = []
    line, pos = 1, 0
    for start, end, kind in kept:  # in order: count each stretch's newlines once, in C
        line += text.count("\n", pos, start)
        pos = start
        found.append(SecretFinding(kind, line, start, end))
    return tuple(found)


def _scan(text: str, rules: tuple[_Rule, ...], aggressive: bool, gate: bool = False) -> list[_Hit]:
    """(start, end, kind) of every value a rule matches and keeps (see find_secrets), unsorted.

    `gate` (for `_rules()` only: their patterns are what the needles cover) first asks
    `_may_match`, so most leaves cost a few substring checks instead of 20 regex passes.
    """
    hits: list[_Hit] = []
    lowered: str | None = None
    if gate and text.isascii():
        lowered = text.lower()  # ASCII: the same as _lower
        if not _may_match(text, lowered):
            return hits
    for rule in rules:
        if rule.lowered and lowered is None:
            lowered = _lower(text)
        # Masking (aggressive) takes a key glued to more text as a key (see _name_key_start).
        start_ok = _name_key_start if aggressive and rule.start is _word_start else rule.start
        for m in rule.pattern.finditer(lowered if rule.lowered and lowered is not None else text):
            if not start_ok(text, m):
                continue
            start, end = m.span(rule.group)
            value = text[start:end]
            if rule.check(value, m):
                if aggressive or not rule.exempt(value):
                    hits.append((start, end, rule.kind))
            elif aggressive and rule.vendor:
                hits.append((start, end, rule.kind))
    return hits


def _lower(text: str) -> str:
    """`text` lowercased char for char, so offsets stay valid: `str.lower` (4x faster than a
    translate table on non-ASCII text) unless a char grows (`İ` -> `i̇`), then ASCII only."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _resolve(hits: list[_Hit], *, join: bool = False) -> list[_Hit]:
    """The hits without overlaps: the earliest, then the longest, wins.  `join` (for masking):
    an overlapping hit that ends later extends the one kept, so every char any hit covers is
    masked (a random-looking run that starts before a key must not leave the key's tail)."""
    hits.sort(key=lambda h: (h[0], -h[1]))
    kept: list[_Hit] = []
    for hit in hits:
        if not kept or hit[0] >= kept[-1][1]:
            kept.append(hit)
        elif join and hit[1] > kept[-1][1]:
            kept[-1] = (kept[-1][0], hit[1], kept[-1][2])
    return kept


def _allowed(text: str, hit: _Hit, allow: Collection[str]) -> bool:
    """The user allowed this value: its line (first or last) ends with ALLOW_MARKER, or its
    fingerprint is in `allow`."""
    start, end, _kind = hit
    for pos in (start, max(start, end - 1)):
        line_end = text.find("\n", pos)
        line = text[text.rfind("\n", 0, pos) + 1 : len(text) if line_end < 0 else line_end]
        if line.rstrip().endswith(ALLOW_MARKER):
            return True
    return bool(allow) and fingerprint(text[start:end]) in allow


def fingerprint(value: str) -> str:
    """`sha256:` and the first 16 hex digits of the SHA-256 of a value (str) as found: its exact
    chars, UTF-8 encoded, with no normalisation at all.

    What `[secrets] allow` in `.bonsai.toml` holds, so the file never holds the value.  One
    fingerprint names one value (issue 25): up to then surrounding blanks and trailing punctuation
    were stripped (and the text NFC-normalised) first, so allowing `Winter2024` also allowed
    `Winter2024!` and `Winter2024)))`.  An old fingerprint still matches exactly the value it
    was made from when stripping changed nothing (the same bytes hash the same), and no other.
    Meant for values that are not secrets (a false alarm): 64 bits identify a value, and a hash
    of a short real password could be guessed, so never allow a real secret: move it instead.
    """
    import hashlib

    return "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def finding_fingerprint(text: str, finding: SecretFinding) -> str:
    """The `fingerprint` of a finding's value in the `text` it was found in."""
    return fingerprint(text[finding.start : finding.end])


def has_secret(text: str, allow: Collection[str] = ()) -> bool:
    """True when `text` holds at least one reported secret-looking value (see find_secrets)."""
    return bool(find_secrets(text, allow=allow))


def secret_warnings(path_label: str, text: str, allow: Collection[str] = ()) -> list[str]:
    """One `path_label:line: kind (sha256:…)` string per reported secret-looking value in `text`.

    Never contains the value itself (only its fingerprint, to copy into `[secrets] allow` when
    it is a false alarm), so it is safe to print, log or commit.  `path_label` is how the
    caller names the file (e.g. `memory/domains/infrastructure/api-keys.md`); it is shown
    through `mask_name`.
    """
    label = mask_name(path_label)
    return [f"{label}:{f.line}: {f.kind} ({finding_fingerprint(text, f)})" for f in find_secrets(text, allow=allow)]


def new_secret_findings(old: str, new: str, allow: Collection[str] = ()) -> tuple[SecretFinding, ...]:
    """The findings in `new` whose (kind, value) `old` does not already hold as often.

    For the `bonsai-secrets` hook: a secret already committed is not reported again when the
    file is edited elsewhere; a second copy of it, or any new one, is.  `allow`: as find_secrets.
    """
    seen = Counter((f.kind, old[f.start : f.end]) for f in find_secrets(old, allow=allow))
    fresh = []
    for f in find_secrets(new, allow=allow):
        key = (f.kind, new[f.start : f.end])
        if seen[key] > 0:
            seen[key] -= 1
        else:
            fresh.append(f)
    return tuple(fresh)


# What every aggressive finding needs somewhere in the lowercased text (`_lower`): each rule's
# match holds `-----begin` (private key), `eyj` (JWT), `://` (URL password, webhooks), `bearer`,
# a run of 15+ `[a-z0-9+/_-]` chars (every vendor key: the shortest, a Slack token, is `xoxb-`
# and 10 more; a Telegram token's part after `:` is 30+; random-looking tokens are 24+), or a
# secret name before a sign `[:=：＝]` (assignments run on the lowercased text).  Lowercasing
# maps A-Z to a-z and keeps every other char of those runs.  tests/core/test_secret_prefilter.py
# checks with hypothesis that a text `could_hold_secret` rejects has no finding.
# The run test in C: UTF-8 keeps ASCII chars as single bytes and puts every other char in bytes
# >= 0x80, so the class's chars map to `a`, all else to a space, and a run is 15 `a`s (6x faster
# than the regex `[a-z0-9+/_-]{15}` on a summary line).
_RUN_CLASS = bytes(ord("a") if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789+/_-" else ord(" ") for b in range(256))
_RUN = b"a" * 15


def _name_literal(alternative: str) -> str:
    """The longest piece of a secret-name regex (`pass(?:word|wd)?`, `l(?:ö|o)senord`) that every
    name it matches contains: groups, classes and optional chars cut it (`pass`, `senord`)."""
    return max(re.split(r"\(\?:[^()]*\)\??|\[[^\]]*\]\??|.\?", alternative), key=len)


@cache
def _name_literals() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the ASCII literals, all literals) of the secret names; a literal holding another is dropped."""
    found = {_name_literal(a) for a in _PASSWORD_NAMES + _KEY_NAMES}
    kept = tuple(sorted(w for w in found if not any(o != w and o in w for o in found)))
    return tuple(w for w in kept if w.isascii()), kept


def could_hold_secret(text: str) -> bool:
    """False only when `find_secrets(text, aggressive=True)` is surely empty: a cheap pre-check
    (a few substring tests instead of every rule) for summaries and headings, mostly plain words."""
    lowered = _lower(text)
    if "-----begin" in lowered or "eyj" in lowered or "://" in lowered or "bearer" in lowered:
        return True
    if "basic" in lowered or "sig=" in lowered:  # a short Basic value, a signature cut by %2B escapes
        return True
    if _RUN in lowered.encode("utf-8", "surrogatepass").translate(_RUN_CLASS):
        return True
    # a secret name ends before some sign
    last_sign = max(lowered.rfind(":"), lowered.rfind("="), lowered.rfind("："), lowered.rfind("＝"))
    if last_sign < 0:
        return False
    before = lowered[:last_sign]
    ascii_names, names = _name_literal_patterns()
    return (ascii_names if before.isascii() else names).search(before) is not None


@cache
def _name_literal_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """`_name_literals` as two alternations of literals: one search finds whether any literal occurs
    (one C scan per text, not one substring test per name; a summary is checked per leaf)."""
    ascii_names, names = _name_literals()
    return (re.compile("|".join(map(re.escape, ascii_names)) or "(?!)"),
            re.compile("|".join(map(re.escape, names)) or "(?!)"))


def mask_secrets(text: str) -> str:
    """Return `text` with every secret-looking value (random-looking tokens included) masked.

    A value keeps only the public prefix that names its vendor (`sk-…[masked]`, `ghp_…[masked]`);
    an assignment keeps its name (`password: …[masked]`).  Text without findings is returned as is.
    """
    if not could_hold_secret(text):
        return text
    return _mask_hits(text, [(f.start, f.end, f.kind) for f in find_secrets(text, aggressive=True)])


def remove_secrets(text: str) -> str:
    """Return `text` with every secret-looking value (random-looking tokens included) cut out, for leaf names."""
    if not could_hold_secret(text):
        return " ".join(text.split())
    out: list[str] = []
    pos = 0
    for f in find_secrets(text, aggressive=True):
        out.append(text[pos : f.start])
        pos = f.end
    out.append(text[pos:])
    return " ".join("".join(out).split())


def mask_name(name: str) -> str:
    """Return a file name or relative path (str, `/`-separated) with secret-looking runs masked.

    For every place generated text shows a name (branch indexes, the root index, the trunk
    block, warnings), whoever made the file: an agent may create `notes-akia….md`.  Stricter
    than `mask_secrets`: key formats match in any case (slugs are lowercased) and a 20+ char
    run mixing letters and digits often counts as random.  `x.md` stays `x.md`.
    """
    if not _NAME_SUSPECT.search(name):
        return name
    return "/".join(_mask_hits(part, _name_hits(part)) for part in name.split("/"))


_CONTROL = re.compile(r"[\x00-\x1f\x7f\\]")
_CONTROL_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}


def shown_path(path: str) -> str:
    """A path (str, `/`-separated) as one printable line: `mask_name`, then control characters
    and backslashes escaped the way git quotes a name (`memory/a\\nb.md` for a newline).

    A name may hold any byte but `/` and NUL (an agent that kept a generated name's line break);
    printed raw it would split a `path:line: kind` report in two.
    """
    masked = mask_name(path)
    if not _CONTROL.search(masked):
        return masked
    return _CONTROL.sub(lambda m: _CONTROL_ESCAPES.get(m.group(0), f"\\x{ord(m.group(0)):02x}"), masked)


# Git object ids (40 or 64 lowercase hex digits, a whole run): commit and blob ids in output and
# trailers (`Bonsai-Source: MEMORY.md <blob>`) stay readable; a random caseless run that is all
# lowercase hex has a 1 in ~10^7 chance of being a lowercased key of that exact length.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def mask_output(text: str) -> str:
    """Return `text` (anything bonsai-git prints or writes outside a leaf) with every secret-looking
    value masked: the one rule for headings, paths, folder names, JSON, plan files, warnings,
    errors, commit messages and trailers (issue 25).

    What `mask_secrets` masks (the indexes' rule), and what `mask_name` adds for names wherever they
    stand in the text: vendor key formats in any case (slugs are lowercased: `akia…`, `ghp_…`)
    and random-looking caseless runs, but never a git object id.  A masked span never starts
    inside or ends on a backslash escape, so JSON and TOML strings stay valid.  Idempotent; text
    without findings is returned as is.  Leaves are never passed through it: they stay byte-exact.
    """
    hits: list[_Hit] = []
    if could_hold_secret(text):
        hits += [(f.start, f.end, f.kind) for f in find_secrets(text, aggressive=True)]
    lowered = _lower(text)
    if _VENDOR_PREFIX.search(lowered):
        hits += _scan(text, _name_vendor_rules(), aggressive=True)
    if _CASELESS_RUN_BYTES in lowered.encode("utf-8", "surrogatepass").translate(_ALNUM_CLASS):
        hits += [(m.start(), m.end(), RANDOM_KIND) for m in _CASELESS_RUN.finditer(text)
                 if _looks_random_caseless(m.group(0)) and not _OBJECT_ID.fullmatch(m.group(0))]
    if not hits:
        return text
    return _mask_hits(text, _escape_safe(text, _resolve(hits, join=True)))


# What mask_output adds costs one C pass each unless the text holds what it needs: a vendor
# prefix in any case (every vendor rule's match starts with one of these, lowercased), or a run
# of 20 ASCII letters and digits (a caseless random run; UTF-8 bytes >= 0x80 map to a space).
_VENDOR_PREFIX = re.compile(r"-----begin|sk-|sk_|rk_|gh[pousr]_|github_pat_|glpat-|a(?:kia|sia|bia|cca|iza)|xox|"
                            r"hooks\.slack|discord|hf_|npm_|sg\.|eyj|:(?<=[0-9]{8}:)")
_ALNUM_CLASS = bytes(ord("a") if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789" else ord(" ") for b in range(256))
_CASELESS_RUN_BYTES = b"a" * 20


@cache
def _name_vendor_rules() -> tuple[_Rule, ...]:
    """The vendor formats of `_name_rules` (any case, glued on both sides), as lowercase patterns run
    on the lowercased text: the same matches as IGNORECASE (tests/core/test_secret_output.py), 3-5x
    faster (IGNORECASE loses re's literal-prefix skip).  The other rules ran in find_secrets."""
    return tuple(replace(r, pattern=re.compile(_lowercase_pattern(r.pattern.pattern.replace(_END, ""))),
                         lowered=True) for r in _rules() if r.vendor)


def _lowercase_pattern(source: str) -> str:
    """A regex source with every char lowercased but an escape's letter (`\\S` stays, `AKIA` is `akia`)."""
    out, escaped = [], False
    for ch in source:
        out.append(ch if escaped else ch.lower())
        escaped = not escaped and ch == "\\"
    return "".join(out)


def _escape_safe(text: str, hits: list[_Hit]) -> list[_Hit]:
    """`hits` moved off backslash escapes: a span ending on a backslash drops the trailing ones; a
    span starting on an escaped char (an odd run of backslashes before it) starts after the
    escape (`\\n`, `\\uXXXX`) and keeps no prefix.  Empty spans are dropped."""
    out: list[_Hit] = []
    for start, end, kind in hits:
        while end > start and text[end - 1] == "\\":
            end -= 1
        run = 0
        while start - run > 0 and text[start - run - 1] == "\\":
            run += 1
        if run % 2:
            start += 5 if text[start] == "u" else 1
            kind = RANDOM_KIND  # keeps nothing: the prefix would be cut wrong
        if start < end:
            out.append((start, end, kind))
    return out


def name_secret_kinds(name: str) -> tuple[str, ...]:
    """The kinds of the secret-looking runs `mask_name` masks in `name`, in order (may repeat)."""
    if not _NAME_SUSPECT.search(name):
        return ()
    return tuple(kind for part in name.split("/") for _s, _e, kind in _name_hits(part))


def _name_hits(part: str) -> list[_Hit]:
    """The non-overlapping hits of one path component (see mask_name)."""
    hits = _scan(part, _name_rules(), aggressive=True)
    hits += [(m.start(), m.end(), RANDOM_KIND) for m in _TOKEN.finditer(part) if _looks_random(m.group(0))]
    hits += [(m.start(), m.end(), RANDOM_KIND) for m in _CASELESS_RUN.finditer(part)
             if _looks_random_caseless(m.group(0))]
    return _resolve(hits, join=True) if hits else []


def _mask_hits(text: str, hits: list[_Hit]) -> str:
    out: list[str] = []
    pos = 0
    for start, end, kind in hits:
        out.append(text[pos:start])
        out.append(text[start : start + _keep(kind)] + MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _keep(kind: str) -> int:
    return next((rule.keep for rule in _rules() if rule.kind == kind), 0)


def _looks_random(token: str) -> bool:
    """A token of 24+ chars that mixes upper case, lower case and digits and switches class often.

    Random base62/base64 switches class at ~60% of positions; identifiers and words at ~20%.
    Git object ids and UUIDs (no upper case) never qualify.
    """
    core = token.strip("=_-")
    if core.islower() or core.isupper():  # one case only (in C: paths and words are most matches)
        return False
    if len(core) < 24 or not (any(c.isupper() for c in core) and any(c.islower() for c in core)
                              and any(c.isdigit() for c in core)):
        return False
    return _switches(core) >= 0.4 * (len(core) - 1)


def _looks_random_caseless(run: str) -> bool:
    """A 20+ char run of one case's letters and digits, 3+ of each, switching class at 30%+ of
    positions: random base36 (a lowercased key) switches at ~40%, `internationalization2024` once."""
    digits = sum(c.isdigit() for c in run)
    return digits >= 3 and len(run) - digits >= 3 and _switches(run.lower()) >= 0.3 * (len(run) - 1)


def _switches(core: str) -> int:
    classes = ["u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "s" for c in core]
    return sum(1 for a, b in zip(classes, classes[1:]) if a != b)
