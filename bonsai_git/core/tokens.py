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
_NON_ASCII = re.compile("[^\x00-\x7f]")


def estimate_tokens(text: str, estimator: str = "script-aware") -> int:
    """Estimate the tokens (int, >= 0) that `text` (str) costs in a model's context.

    `estimator` is "script-aware" (default: CJK chars 1.5 tokens, other non-ASCII chars 1.0,
    ASCII chars 0.25) or "chars4" (the seed's plain ceil(chars/4)), counted on the text with each
    CRLF read as LF.  Raises ValueError on an unknown estimator name.
    """
    if "\r\n" in text:  # estimates do not depend on the checkout's line endings (issue 12 §4)
        text = text.replace("\r\n", "\n")
    if estimator == "chars4" or (estimator == "script-aware" and text.isascii()):
        return math.ceil(len(text) / 4)
    if estimator != "script-aware":
        raise ValueError(f"unknown token estimator {estimator!r}; use one of {', '.join(ESTIMATORS)}")
    non_ascii = len(_NON_ASCII.findall(text))
    cjk = len(CJK_CHAR.findall(text))
    ascii_chars = len(text) - non_ascii
    # Work in quarter-tokens so the sum is exact integer arithmetic before the ceiling.
    quarters = ascii_chars + cjk * 6 + (non_ascii - cjk) * 4
    return -(-quarters // 4)


def format_tokens(tokens: int) -> str:
    """Render a token count for an index line: thousands separated by commas, e.g. "~6,400"."""
    return f"~{tokens:,}"
