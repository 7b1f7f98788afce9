"""Token estimates for memory text, in tokens, without a tokenizer.

The seed's estimate is ceil(chars / 4).  It holds on ASCII text (within ~10% of cl100k on
English) but under-counts Chinese and Korean by ~70%, so the default estimator is
script-aware: ceil(ascii_chars/4 + cjk_chars*1.5 + other_non_ascii_chars*1.0)
(measured against cl100k on the shared corpus; `expected.json` holds the real counts).
On pure ASCII both estimators agree.  Characters are Unicode code points of the text read
with LF line endings: a BOM counts as one character, and a CRLF counts as one LF, so a leaf
checked out with CRLF (core.autocrlf=true) costs what its LF checkout costs and the indexes
two checkouts write agree (a CRLF and an LF checkout rewrote each other's figures forever).
"""

from __future__ import annotations

import bisect
import functools
import math
import re

ESTIMATORS = ("script-aware", "chars4")

# Han (incl. extensions and compatibility), kana, Hangul, CJK punctuation, full-width forms: the
# code point ranges (inclusive) and the same class as a regex.
CJK_RANGES = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3130, 0x318F),
              (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
              (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
CJK_PATTERN = "[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in CJK_RANGES) + "]"
_STARTS = [a for a, _ in CJK_RANGES]
_NON_ASCII = re.compile("[^\x00-\x7f]")
# Up to this many non-ASCII chars, each is looked up in CJK_RANGES; beyond it CJK_PATTERN is
# compiled and scanned.  Compiling that class costs ~2.5 ms (re builds a 64K-entry map in Python),
# more than a memory in Latin script ever spends on the lookups, and every process paid it at import.
_LOOKUPS = 2000


@functools.cache
def cjk_char() -> re.Pattern[str]:
    """CJK_PATTERN compiled (once per process, when a text needs it)."""
    return re.compile(CJK_PATTERN)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    i = bisect.bisect_right(_STARTS, code) - 1
    return i >= 0 and code <= CJK_RANGES[i][1]


def cjk_count(text: str) -> int:
    """How many chars of `text` are CJK (CJK_RANGES)."""
    if text.isascii():
        return 0
    others = _NON_ASCII.findall(text)
    if len(others) > _LOOKUPS:
        return len(cjk_char().findall(text))
    return sum(1 for char in others if _is_cjk(char))


def has_cjk(text: str) -> bool:
    """True when `text` holds a CJK char (CJK_RANGES)."""
    if text.isascii():
        return False
    others = _NON_ASCII.findall(text)
    if len(others) > _LOOKUPS:
        return cjk_char().search(text) is not None
    return any(_is_cjk(char) for char in others)


def estimate_tokens(text: str, estimator: str = "script-aware") -> int:
    """Estimate the tokens (int, >= 0) that `text` (str) costs in a model's context.

    `estimator` is "script-aware" (default: CJK chars 1.5 tokens, other non-ASCII chars 1.0,
    ASCII chars 0.25) or "chars4" (the seed's plain ceil(chars/4)), counted on the text with each
    CRLF read as LF.  Raises ValueError on an unknown estimator name.
    """
    if estimator == "script-aware":
        return -(-estimate_quarters(text) // 4)
    if estimator != "chars4":
        raise ValueError(f"unknown token estimator {estimator!r}; use one of {', '.join(ESTIMATORS)}")
    # estimates do not depend on the checkout's line endings (issue 12 §4)
    return math.ceil(len(text.replace("\r\n", "\n") if "\r\n" in text else text) / 4)


def estimate_quarters(text: str) -> int:
    """The script-aware estimate of `text` (str) in quarter-tokens (int): ASCII chars 1, CJK chars 6,
    other non-ASCII chars 4, each CRLF read as LF; `estimate_tokens` is its ceiling over 4.

    Additive, unlike the ceiling: the quarters of `a + b` are those of `a` plus those of `b` unless
    `a` ends with CR and `b` starts with LF (one CRLF).  Renderers that price text made of parts
    (branches.py's index entries) add the parts' quarters instead of measuring the joined text.
    """
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if text.isascii():
        return len(text)
    non_ascii = len(text) - len(text.encode("ascii", "ignore"))
    # The generated indexes' own punctuation (`…` of a cut summary, `–` of a name range, `›` of a
    # title) is not CJK: when it is all the non-ASCII text holds, the CJK scan is skipped.
    cjk = 0 if non_ascii == text.count("…") + text.count("–") + text.count("›") else cjk_count(text)
    return len(text) - non_ascii + cjk * 6 + (non_ascii - cjk) * 4


def format_tokens(tokens: int) -> str:
    """Render a token count for an index line: thousands separated by commas, e.g. "~6,400"."""
    return f"~{tokens:,}"
