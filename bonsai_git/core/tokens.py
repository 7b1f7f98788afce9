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

import math
import re

ESTIMATORS = ("script-aware", "chars4")

# Han (incl. extensions and compatibility), kana, Hangul, CJK punctuation, full-width forms.
CJK_CHAR = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff]"
)


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
    cjk = 0 if non_ascii == text.count("…") + text.count("–") + text.count("›") else len(CJK_CHAR.findall(text))
    return len(text) - non_ascii + cjk * 6 + (non_ascii - cjk) * 4


def format_tokens(tokens: int) -> str:
    """Render a token count for an index line: thousands separated by commas, e.g. "~6,400"."""
    return f"~{tokens:,}"
