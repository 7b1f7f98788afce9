"""Secret-looking values in memory text: find them, report them, and keep them out of generated text.

Generated text (the trunk's block, every `_index.md`, leaf names) is loaded or shown far more
often than a leaf, so it must never copy a credential; leaves keep the user's bytes verbatim.

Rules are anchored on real key formats, each with the prefix a mask may keep:
OpenAI/Anthropic `sk-`, GitHub `ghp_`/`github_pat_`, GitLab `glpat-`, AWS `AKIA`/`ASIA`, Slack
`xox?-` and webhooks, Discord webhooks, Stripe `sk_live_`/`rk_live_`, Google `AIza`, Hugging Face
`hf_`, npm `npm_`, SendGrid `SG.`, Telegram bot tokens, JWTs, PEM private keys, passwords in
URLs (`postgres://user:pw@host`), `Bearer` tokens, and assignments of a concrete value to a
secret-named key (`password: …`, `OPENAI_API_KEY=…`, `aws_secret_access_key = …`).

Why not a detector library: detect-secrets 1.5 (the best-kept one on PyPI) was measured on this
project's fixtures: it missed `sk-proj-`/`sk-ant-` keys, flagged AWS's documented example key,
reports no character spans (a mask needs them), and took 99 s on a 5 MB MEMORY.md.

What is never a finding: a bare word ("No API key in the build", "password reset flow"), a
placeholder (`<token>`, `${DB_PASSWORD}`, `YOUR_API_KEY`, `xxxx`, `…[masked]`, anything saying
"example"), a value with no digit (`token: read-only`), AWS's documented example keys
(`AKIAIOSFODNN7EXAMPLE`), git object ids and UUIDs.

Generated text goes one step further (`mask_secrets`, `remove_secrets`): a random-looking
token (24+ characters switching often between upper case, lower case and digits) and any value
in a vendor's key format (even `sk-test-XXXX…` or AWS's example) are masked too, since no index
line needs one; reports (`find_secrets`, `secret_warnings`) leave those out to stay quiet.
Pure: text in, text out.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

MASK = "…[masked]"
RANDOM_KIND = "random-looking token"

_NAMES = (r"(?:password|passwd|passphrase|pwd|secret|client[_ -]?secret|secret[_ -]?key|api[_ -]?key|apikey|"
          r"access[_ -]?key|access[_ -]?token|auth[_ -]?token|bot[_ -]?token|token|private[_ -]?key|credentials?)")
_PLACEHOLDER = re.compile(
    r"(?i)^[<\[({$%*…#./~]|x{4,}|\*{3,}|\.{3}|example|your[_-]|placeholder|redacted|masked|changeme|dummy|"
    r"^(?:none|null|true|false|required|optional|secret|password|pass|pwd|token)$"
)
_SYMBOLS = frozenset("!@#$%^&*+=?~/")


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _concrete(value: str) -> bool:
    """An assigned value that looks real: 6+ chars, not a placeholder, a digit and a letter or symbol.

    `token: read-only`, `password: see vault`, `api_key: <yours>` and dates are not secrets.
    """
    value = value.rstrip(".,;:!?*_)")
    if len(value) < 6 or _PLACEHOLDER.search(value) or not any(c.isdigit() for c in value):
        return False
    return any(c.isalpha() or c in _SYMBOLS for c in value)


@dataclass(frozen=True, slots=True)
class _Rule:
    """kind; pattern (group 1, if any, is the secret value); chars of the value a mask may keep; a
    check on the value; `lowered`: match against the ASCII-lowercased text (names in any case);
    `word_start`: the match must not continue a word (`task-…` is not `sk-…`); `vendor`: a key
    format with a vendor prefix, so generated text masks it even when the check fails
    (`sk-test-XXXXXXXXXXXXXXXXXXXX` has no digit, but no index line needs it either).

    Patterns start with a literal where they can: Python's re then skips ahead in C, which
    keeps a scan of a 5 MB file well under a second.
    """

    kind: str
    pattern: re.Pattern[str]
    keep: int
    check: Callable[[str], bool] = _has_digit_and_letter
    lowered: bool = False
    word_start: bool = True
    vendor: bool = True


def _always(_value: str) -> bool:
    return True


_RULES: tuple[_Rule, ...] = (
    _Rule("private key", re.compile(
        r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY"
        r"(?: BLOCK)?-----)?"), 0, _always),
    _Rule("anthropic key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"), 7),
    _Rule("stripe key", re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), 8),
    _Rule("openai key", re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), 3),
    _Rule("github token", re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 4),
    _Rule("gitlab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), 6),
    _Rule("aws access key", re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), 4,
          lambda v: not v.endswith("EXAMPLE")),
    _Rule("slack token", re.compile(r"xox[abeoprs]-[A-Za-z0-9-]{10,}"), 5),
    _Rule("slack webhook", re.compile(r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/"
                                      r"[A-Za-z0-9_]{16,}"), 33, _always),
    _Rule("discord webhook", re.compile(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/"
                                        r"[A-Za-z0-9_-]{40,}"), 0, _always),
    _Rule("google api key", re.compile(r"AIza[0-9A-Za-z_-]{35}"), 4),
    _Rule("hugging face token", re.compile(r"hf_[A-Za-z0-9]{30,}"), 3),
    _Rule("npm token", re.compile(r"npm_[A-Za-z0-9]{36}\b"), 4),
    _Rule("sendgrid key", re.compile(r"SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}"), 3),
    # Real tokens are `<bot id>:AA<33 chars>`; the loose shape (`0000000000:XXXX…`, corpus file 11)
    # is still masked in generated text, but only the real format is reported.
    _Rule("telegram bot token", re.compile(r"(?<=[0-9]{8}):([A-Za-z0-9_-]{30,})"), 0,
          lambda v: v.startswith("AA") and len(v) == 35 and _has_digit_and_letter(v), word_start=False),
    _Rule("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 3),
    _Rule("password in url", re.compile(r"://[^\s:/@\"'<>]{1,64}:([^\s/@\"'<>]{3,128})@"), 0,
          lambda v: not _PLACEHOLDER.search(v), word_start=False, vendor=False),
    _Rule("bearer token", re.compile(r"bearer\s+([a-z0-9._~+/=-]{20,})"), 0, lowered=True, vendor=False),
    _Rule("secret assignment", re.compile(
        _NAMES + r"(?:[_.-][a-z0-9]+)?\b[*_\"'`]*[ \t]*[:=][ \t]*[*_]*[ \t]*[\"'`]?([^\s\"'`,;|<>()\[\]{}]{6,200})"),
        0, _concrete, lowered=True, vendor=False),
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """A secret-looking value: its kind, 1-based line, and char span [start, end) in the scanned text."""

    kind: str
    line: int
    start: int
    end: int


def find_secrets(text: str, *, aggressive: bool = False) -> tuple[SecretFinding, ...]:
    """Find secret-looking values in `text` (str); spans are char offsets, lines 1-based.

    `aggressive` (for generated text, where a false positive only costs a masked word) adds
    random-looking tokens and vendor-format values that fail the realism check.  Reports
    (warnings, status, the hook) use the default.  Overlapping findings keep the earliest
    (then longest) one.  Never raises.
    """
    hits: list[tuple[int, int, str]] = []
    lowered = text.translate(_ASCII_LOWER)  # same length: offsets stay valid
    for rule in _RULES:
        for m in rule.pattern.finditer(lowered if rule.lowered else text):
            group = 1 if m.re.groups else 0
            start, end = m.start(group), m.end(group)
            if rule.word_start and m.start() > 0 and text[m.start() - 1].isalnum():
                continue
            if rule.check(text[start:end]) or (aggressive and rule.vendor):
                hits.append((start, end, rule.kind))
    if aggressive:
        hits += [(m.start(), m.end(), RANDOM_KIND) for m in _TOKEN.finditer(text) if _looks_random(m.group(0))]
    if not hits:
        return ()
    hits.sort(key=lambda h: (h[0], -h[1]))
    newlines = [i for i, c in enumerate(text) if c == "\n"] if len(hits) > 1 else None
    kept: list[SecretFinding] = []
    for start, end, kind in hits:
        if kept and start < kept[-1].end:
            continue
        line = (bisect.bisect_left(newlines, start) if newlines is not None else text.count("\n", 0, start)) + 1
        kept.append(SecretFinding(kind, line, start, end))
    return tuple(kept)


def has_secret(text: str) -> bool:
    """True when `text` holds at least one secret-looking value (report rules, not random tokens)."""
    return bool(find_secrets(text))


def secret_warnings(path_label: str, text: str) -> list[str]:
    """One `path_label:line: kind` string per secret-looking value in `text`, in document order.

    Never contains the value itself, so it is safe to print, log or commit.  `path_label` is how
    the caller names the file (e.g. `memory/domains/infrastructure/api-keys.md`).
    """
    return [f"{path_label}:{f.line}: {f.kind}" for f in find_secrets(text)]


def new_secret_findings(old: str, new: str) -> tuple[SecretFinding, ...]:
    """The findings in `new` whose (kind, value) `old` does not already hold as often.

    For the `bonsai-secrets` hook: a secret already committed is not reported again when the
    file is edited elsewhere; a second copy of it, or any new one, is.
    """
    seen = Counter((f.kind, old[f.start : f.end]) for f in find_secrets(old))
    fresh = []
    for f in find_secrets(new):
        key = (f.kind, new[f.start : f.end])
        if seen[key] > 0:
            seen[key] -= 1
        else:
            fresh.append(f)
    return tuple(fresh)


def mask_secrets(text: str) -> str:
    """Return `text` with every secret-looking value (random-looking tokens included) masked.

    A value keeps only the public prefix that names its vendor (`sk-…[masked]`, `ghp_…[masked]`);
    an assignment keeps its name (`password: …[masked]`).  Text without findings is returned as is.
    """
    out: list[str] = []
    pos = 0
    for f in find_secrets(text, aggressive=True):
        out.append(text[pos : f.start])
        out.append(text[f.start : f.start + _keep(f.kind)] + MASK)
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def remove_secrets(text: str) -> str:
    """Return `text` with every secret-looking value (random-looking tokens included) cut out, for leaf names."""
    out: list[str] = []
    pos = 0
    for f in find_secrets(text, aggressive=True):
        out.append(text[pos : f.start])
        pos = f.end
    out.append(text[pos:])
    return " ".join("".join(out).split())


def _keep(kind: str) -> int:
    return next((rule.keep for rule in _RULES if rule.kind == kind), 0)


def _looks_random(token: str) -> bool:
    """A token of 24+ chars that mixes upper case, lower case and digits and switches class often.

    Random base62/base64 switches class at ~60% of positions; identifiers and words at ~20%.
    Git object ids and UUIDs (no upper case) never qualify.
    """
    core = token.strip("=_-")
    if len(core) < 24 or not (any(c.isupper() for c in core) and any(c.islower() for c in core)
                              and any(c.isdigit() for c in core)):
        return False
    classes = ["u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else "s" for c in core]
    switches = sum(1 for a, b in zip(classes, classes[1:]) if a != b)
    return switches >= 0.4 * (len(core) - 1)
