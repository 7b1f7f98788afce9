"""Secret-looking values in memory text: find them, and mask them in generated text.

Generated text (the trunk's block, every `_index.md`, leaf names) is loaded or shown far more
often than a leaf, so it must never copy a credential.  Leaves keep the user's bytes verbatim.
Rules are anchored on real key formats (OpenAI/Anthropic `sk-`, GitHub `ghp_`/`github_pat_`,
AWS `AKIA`, Slack `xox?-`, Stripe, Google `AIza`, Telegram bot tokens, JWTs, PEM private keys)
plus `password:`/`api_key=`-style assignments with a concrete value.  A bare word such as
"password" is never a finding ("No API key in the build" is not a secret), and AWS's
documented example key `AKIAIOSFODNN7EXAMPLE` is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ASSIGN_WORDS = r"(?:password|passwd|passphrase|pwd|secret|client[_ -]?secret|api[_ -]?key|access[_ -]?key|auth[_ -]?token|token)"

# (kind, pattern, how many leading chars of the match a mask may keep)
_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), 0),
    ("anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), 7),
    ("stripe key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), 8),
    ("openai key", re.compile(r"\bsk-(?:proj-|test-|live-|svcacct-)?[A-Za-z0-9_-]{16,}"), 3),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 4),
    ("aws access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 4),
    ("slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), 5),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 4),
    ("telegram bot token", re.compile(r"\b\d{8,10}:[A-Za-z0-9_-]{30,}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 3),
    (
        "password assignment",
        re.compile(
            rf"(?i)\b{_ASSIGN_WORDS}\b[\"'`*]*\s*[:=]\s*[\"'`]?(?![<\[({{$*…])(?=[^\s\"'`]*[0-9!@#%^&+/=_-])[^\s\"'`]{{8,}}"
        ),
        -1,
    ),
)

_ANY_SECRET = re.compile("|".join(f"(?:{p.pattern.removeprefix('(?i)')})" for _k, p, _n in _RULES), re.IGNORECASE)
_DOCUMENTED_EXAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE"})
MASK = "…[masked]"


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """A secret-looking value: its kind, 1-based line, and char span in the scanned text."""

    kind: str
    line: int
    start: int
    end: int


def find_secrets(text: str) -> tuple[SecretFinding, ...]:
    """Find secret-looking values in `text` (str); spans are char offsets, lines 1-based.

    Overlapping findings keep the earliest (then longest) one.  Never raises.
    """
    if _ANY_SECRET.search(text) is None:  # one pass rules out the common case: no finding
        return ()
    hits: list[SecretFinding] = []
    for kind, pattern, _keep in _RULES:
        for m in pattern.finditer(text):
            if m.group(0) in _DOCUMENTED_EXAMPLES:
                continue
            hits.append(SecretFinding(kind, text.count("\n", 0, m.start()) + 1, m.start(), m.end()))
    hits.sort(key=lambda f: (f.start, -f.end))
    kept: list[SecretFinding] = []
    for f in hits:
        if not kept or f.start >= kept[-1].end:
            kept.append(f)
    return tuple(kept)


def has_secret(text: str) -> bool:
    """True when `text` holds at least one secret-looking value."""
    return bool(find_secrets(text))


def mask_secrets(text: str) -> str:
    """Return `text` with every secret-looking value replaced by its public prefix + "…[masked]".

    The prefix is the part of a key format that identifies the vendor (e.g. `sk-…[masked]`);
    an assignment keeps its name (`password: …[masked]`).  Text without findings is returned as is.
    """
    out: list[str] = []
    pos = 0
    for f in find_secrets(text):
        value = text[f.start : f.end]
        out.append(text[pos : f.start])
        out.append(_masked(f.kind, value))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def remove_secrets(text: str) -> str:
    """Return `text` with every secret-looking value cut out entirely (for leaf names)."""
    out: list[str] = []
    pos = 0
    for f in find_secrets(text):
        out.append(text[pos : f.start])
        pos = f.end
    out.append(text[pos:])
    return " ".join("".join(out).split())


def _masked(kind: str, value: str) -> str:
    keep = next(k for name, _p, k in _RULES if name == kind)
    if keep < 0:  # an assignment: keep "password: " and mask the value
        m = re.match(r"(?i)[^:=]*[:=]\s*[\"'`]?", value)
        return (m.group(0) if m else "") + MASK
    return value[:keep] + MASK
