"""The secrets table (issue 13, Measure): lines that hold a secret, lines that must not be reported,
and the scripts every case is tried next to.  Shared by tests/core/test_secret_table.py and
benchmarks/bench_secrets.py.

Every value is invented here, from a seeded generator (no real key, and no key-shaped literal in
this file); the documented example keys among the negatives are the vendors' published examples.
A case is `(kind, line)`: `kind` is what `find_secrets` must report for the line (None: nothing).
`variants(line)` is the line as is, then with each script touching both ends of it.
"""

from __future__ import annotations

import random
import string

_RNG = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def fake(n: int, alphabet: str = ALNUM) -> str:
    """n random chars of `alphabet`, starting with a letter then a digit (as real keys mostly hold both)."""
    letters = [c for c in alphabet if c.isalpha()]
    digits = [c for c in alphabet if c.isdigit()]
    return _RNG.choice(letters) + _RNG.choice(digits) + "".join(_RNG.choice(alphabet) for _ in range(n - 2))


def digits(n: int) -> str:
    return str(_RNG.randrange(1, 10)) + "".join(_RNG.choice(string.digits) for _ in range(n - 1))


def password() -> str:
    return fake(10) + _RNG.choice("!#%&*+?") + fake(3)


def letters(n: int) -> str:
    """n random ASCII letters, upper and lower case (a key with no digit)."""
    return "Q" + "z" + "".join(_RNG.choice(string.ascii_letters) for _ in range(n - 2))


def b64(n_bytes: int) -> str:
    """Base64 of n random bytes (an Azure account key is 64 bytes: 88 chars)."""
    import base64

    return base64.b64encode(bytes(_RNG.randrange(256) for _ in range(n_bytes))).decode()


def basic(user: str, secret: str) -> str:
    """`user:secret` as HTTP Basic credentials (RFC 7617: base64 of the pair)."""
    import base64

    return base64.b64encode(f"{user}:{secret}".encode()).decode()


def sas_signature() -> str:
    """A shared access signature as it sits in a URL: base64 of 32 bytes, URL-encoded."""
    return b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


# A word of each script people write memory in, with no space: it touches the value directly.
SCRIPTS: dict[str, str] = {
    "chinese": "密钥",
    "japanese kana": "キーです",
    "korean hangul": "키값은",
    "cyrillic": "ключ",
    "arabic": "مفتاح",
    "thai": "กุญแจ",
    "greek": "κλειδί",
    "hebrew": "מפתח",
    "devanagari": "कुंजी",
    "full-width": "（注）",
}

_PEM_BODY = "\n".join(fake(64, ALNUM + "+/") for _ in range(4))

POSITIVES: list[tuple[str, str]] = [
    # vendor formats
    ("openai key", "sk-proj-" + fake(48, ALNUM + "_-")),
    ("openai key", "sk-" + fake(48)),
    ("openai key", "sk-svcacct-" + fake(40)),
    ("anthropic key", "sk-ant-api03-" + fake(40, ALNUM + "_-")),
    ("github token", "ghp_" + fake(36)),
    ("github token", "gho_" + fake(36)),
    ("github token", "github_pat_" + fake(22) + "_" + fake(59)),
    ("gitlab token", "glpat-" + fake(20, ALNUM + "_-")),
    ("aws access key", "AKIA" + fake(16, UPPER)),
    ("aws access key", "ASIA" + fake(16, UPPER)),
    ("slack token", f"xoxb-{digits(11)}-{digits(12)}-" + fake(24)),
    ("slack token", f"xoxp-{digits(11)}-{digits(12)}-{digits(12)}-" + fake(32)),
    ("slack webhook", f"https://hooks.slack.com/services/T{fake(10, UPPER)}/B{fake(10, UPPER)}/{fake(24)}"),
    ("discord webhook", f"https://discord.com/api/webhooks/{digits(18)}/{fake(68, ALNUM + '_-')}"),
    ("stripe key", "sk_live_" + fake(24)),
    ("stripe key", "rk_live_" + fake(24)),
    ("google api key", "AIza" + fake(35, ALNUM + "_-")),
    ("hugging face token", "hf_" + fake(34)),
    ("npm token", "npm_" + fake(36)),
    ("sendgrid key", f"SG.{fake(22)}.{fake(43)}"),
    ("telegram bot token", f"{digits(10)}:AA" + fake(33, ALNUM + "_-")),
    ("jwt", f"eyJ{fake(20)}.eyJ{fake(30)}.{fake(27, ALNUM + '_-')}"),
    ("private key", f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----"),
    ("private key", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"),
    ("bearer token", "Authorization: Bearer " + fake(40, ALNUM + "._-")),
    # passwords in URLs, an empty user included
    ("password in url", f"postgres://app:{fake(14)}@db.internal:5432/app"),
    ("password in url", f"redis://:{fake(14)}@cache.internal:6379"),
    ("password in url", f"mongodb+srv://svc:{password()}@cluster0.internal/db"),
    ("password in url", f"amqp://:{digits(10)}@queue.internal"),
    # secret names: English, glued, `_pass`, `pass:`, `pw:`, all digits
    ("secret assignment", "password: " + password()),
    ("secret assignment", "Password = " + password()),
    ("secret assignment", "**Password:** " + password()),
    ("secret assignment", "PGPASSWORD=" + fake(16)),
    ("secret assignment", "MYSQL_PWD=" + fake(16)),
    ("secret assignment", "MYSQLPWD=" + fake(16)),
    ("secret assignment", "DB_PASS=" + fake(16)),
    ("secret assignment", "DB_PASS=" + digits(8)),
    ("secret assignment", "smtp_pass = " + fake(16)),
    ("secret assignment", "pass: " + password()),
    ("secret assignment", "pw: " + password()),
    ("secret assignment", "password: " + digits(8)),
    ("secret assignment", "wifi password: " + digits(10)),
    ("secret assignment", "passcode: " + digits(6)),
    ("secret assignment", "passphrase: " + password()),
    ("secret assignment", "DATABASE_PASSWORD: '" + password() + "'"),
    ("secret assignment", "OPENAI_API_KEY=" + fake(40)),
    ("secret assignment", "aws_secret_access_key = " + fake(40, ALNUM + "/+")),
    ("secret assignment", "client_secret: " + fake(32)),
    ("secret assignment", 'api_key: "' + fake(32) + '"'),
    ("secret assignment", "X-Api-Key: " + fake(32)),
    ("secret assignment", "access_token=" + fake(40)),
    ("secret assignment", "csrftoken=" + fake(32)),
    # labels in other languages, full-width colon and equals sign
    ("secret assignment", "密码：" + password()),
    ("secret assignment", "密碼: " + password()),
    ("secret assignment", "数据库密码＝" + password()),
    ("secret assignment", "パスワード: " + password()),
    ("secret assignment", "비밀번호: " + password()),
    ("secret assignment", "пароль: " + password()),
    ("secret assignment", "Пароль: " + digits(8)),
    ("secret assignment", "κωδικός: " + password()),
    ("secret assignment", "كلمة المرور: " + password()),
    ("secret assignment", "รหัสผ่าน: " + password()),
    ("secret assignment", "पासवर्ड: " + password()),
    ("secret assignment", "Passwort: " + password()),
    ("secret assignment", "contraseña: " + password()),
    ("secret assignment", "mot de passe : " + password()),
    ("secret assignment", "senha: " + password()),
    ("secret assignment", "密钥：" + fake(32)),
    ("secret assignment", "令牌: " + fake(32)),
    ("secret assignment", "トークン: " + fake(32)),
    ("secret assignment", "토큰: " + fake(32)),
    ("secret assignment", "токен: " + fake(32)),
    # issue 25: letters-only keys by their documented length and alphabet
    ("openai key", "sk-proj-" + letters(48)),
    ("openai key", "sk-proj-" + letters(156)),
    ("anthropic key", "sk-ant-" + letters(95)),
    # Azure storage connection strings and shared access signatures
    ("azure storage key", f"DefaultEndpointsProtocol=https;AccountName=notes2;AccountKey={b64(64)};"
                          "EndpointSuffix=core.windows.net"),
    ("azure storage key", f"AccountKey = {b64(64)}"),
    ("azure sas signature", "https://notes2.blob.core.windows.net/c/a.txt?sv=2022-11-02&sr=b&sp=r"
                            f"&se=2026-12-31T00%3A00%3A00Z&sig={sas_signature()}"),
    ("azure sas signature", f"SharedAccessSignature=sv=2022-11-02&ss=b&sp=rl&sig={sas_signature()}"),
    # HTTP authorization headers: Basic (base64 of user:password) and a letters-only Bearer token
    ("basic auth", "Authorization: Basic " + basic("svc-notes", password())),
    ("basic auth", "curl -H 'Authorization: basic " + basic("admin", password()) + "'"),
    ("bearer token", "Authorization: Bearer " + letters(40)),
    # passwords labelled in more scripts, and values written in a script with spaces
    ("secret assignment", "лозинка: " + password()),
    ("secret assignment", "رمز عبور: " + password()),
    ("secret assignment", "პაროლი: " + password()),
    ("secret assignment", "գաղտնաբառ: " + password()),
    ("secret assignment", "পাসওয়ার্ড: " + password()),
    ("secret assignment", "கடவுச்சொல்: " + password()),
    ("secret assignment", "合言葉：" + password()),
    ("secret assignment", "нууц үг: " + password()),
    ("secret assignment", "apiキー: " + fake(32)),
    ("secret assignment", "пароль: Медведь" + digits(4)),
    ("secret assignment", "κωδικός: Καλημέρα" + digits(4) + "!"),
    ("secret assignment", "كلمة المرور: سلام" + digits(4)),
    ("secret assignment", "סיסמה: שלום" + digits(5)),
]

NEGATIVES: list[str] = [
    # pointers to a secret store
    '- Telegram bot token: 1Password item "Telegram bot"',
    "password: 1Password/Private/db-prod-2",
    "DB password: in the vault",
    "api_key: op://Private/OpenAI2/credential",
    "OPENAI_API_KEY=${OPENAI_API_KEY}",
    "token: $TELEGRAM_TOKEN_2",
    "password: vault:secret/data/db2#password",
    "api_key: DB_API_KEY_2",
    "password: keychain:smtp-2024",
    "token: bitwarden-item-42",
    "password: ${{ secrets.DB_PASSWORD }}",
    "密码：见1Password",
    "パスワード: 1Passwordに保存",
    "SMTP_PASS=env:SMTP_PASS_2",
    # placeholders
    "password: <your-password>",
    "api_key: xxxxxxxxxxxx",
    "password: ********",
    "password: changeme123",
    "secret: REDACTED-2024",
    "api_key: YOUR_API_KEY_1",
    "password: 000000",
    "password: sample-pass-2024",
    # vendors' documented examples
    "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIy"
    "fQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    # words, counts, ids and look-alikes
    "No API key in the build.",
    "The password reset flow is broken; the token bucket limits retries.",
    "bypass: gate7B9xQ",
    "max_tokens: 4096",
    "token_count: 150000",
    "Commit 3f2a9c1e7b6d5a4f3e2d1c0b9a8f7e6d5c4b3a29 fixed it",
    "tenant 123e4567-e89b-12d3-a456-426614174000",
    "Connection string format: postgres://user:password@localhost/db",
    "Boarding pass: 2026-05-01",
    "Season pass: 2025",
    "Boarding pass: 482913",
    "password: hunter",
    "password: 12345",
    "api key: per-user",
    "token: read-only",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk7hR2mYp0qX9vLw3sT5uB8nC1dE4fG6hJ2kL7mN9pQ agent@laptop",
    "Use sk-learn, the skeleton-key trick and the task-force-alpha-bravo-charlie-delta-echo plan.",
    "Image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 is pinned.",
    # issue 25: Azure, authorization headers, letters-only look-alikes, other scripts
    "AccountKey=<your-account-key>",
    "AccountKey=${AZURE_STORAGE_KEY}",
    "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSR"
    "Z6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
    "https://notes2.blob.core.windows.net/c/a.txt?sv=2022-11-02&sig=<signature>",
    "https://notes2.blob.core.windows.net/c/a.txt?sv=2022-11-02&sig=${SAS_SIGNATURE}",
    "?sv=2022-11-02&sig=XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "Authorization: Basic <base64 of user:password>",
    "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "Authorization: Basic ${BASIC_AUTH}",
    "Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=",
    "Basic usage: run the tool twice, then basic authentication works",
    "Authorization: Bearer <token>",
    "Authorization: Bearer ${API_TOKEN}",
    "Authorization: Bearer op://Private/api/token",
    "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
    "sk-proj-roadmap-for-the-next-quarter-and-the-planning-of-it-all",
    "OPENAI_API_KEY=sk-proj-...",
    "ANTHROPIC_API_KEY=sk-ant-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "пароль: хранится в Vault",
    "пароль: в 1Password",
    "пароль: <ваш-пароль>",
    "密码：见文档第3页",
    "κωδικός: ${DB_PASSWORD}",
    "лозинка: op://Private/db/password",
    # allowed inline
    f"password: {password()} <!-- bonsai:allow-secret -->",
    f"ghp_{fake(36)} <!-- bonsai:allow-secret -->",
]


MARKER = " <!-- bonsai:allow-secret -->"


def variants(line: str) -> list[tuple[str, str]]:
    """(label, text): the line alone, then with each script's word touching both ends of it (of its
    value, before an allow marker, which must end the line)."""
    body, marker = (line[: -len(MARKER)], MARKER) if line.endswith(MARKER) else (line, "")
    return [("plain", line)] + [(script, f"{word}{body}{word}{marker}") for script, word in SCRIPTS.items()]
