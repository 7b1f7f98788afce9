from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.tokens import CJK_PATTERN, cjk_count, estimate_quarters, estimate_tokens, format_tokens, has_cjk
from support import CORPUS_FILES, EXPECTED, corpus_bytes


@pytest.mark.parametrize(
    ("text", "estimator", "tokens"),
    [
        ("", "script-aware", 0),
        ("abcd", "script-aware", 1),
        ("abcde", "script-aware", 2),
        ("中文", "script-aware", 3),  # 2 * 1.5
        ("中文", "chars4", 1),
        ("한국어", "script-aware", 5),  # ceil(3 * 1.5)
        ("ñ", "script-aware", 1),
        ("\ufeffab", "script-aware", 2),  # BOM counts as one non-ASCII char: 1 + 0.5
        ("a\r\n", "script-aware", 1),  # every \r counts
        ("，。", "script-aware", 3),  # CJK punctuation / full-width forms
    ],
)
def test_estimate_tokens_table(text: str, estimator: str, tokens: int) -> None:
    assert estimate_tokens(text, estimator) == tokens


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_estimate_tokens_within_15_percent_of_cl100k(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    real = EXPECTED[name]["cl100k_tokens"]
    assert abs(estimate_tokens(text) - real) <= 0.15 * real


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_estimate_tokens_chars4_is_the_seed_rule(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    lf = text.replace("\r\n", "\n")  # a CRLF counts as one LF: estimates do not depend on the checkout
    assert estimate_tokens(text, "chars4") == math.ceil(len(lf) / 4)
    if lf == text:
        assert estimate_tokens(text, "chars4") == EXPECTED[name]["est_tokens_ceil_chars_div_4"]


@pytest.mark.parametrize("estimator", ["script-aware", "chars4"])
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_estimate_tokens_is_the_same_for_crlf_and_lf_checkouts(name: str, estimator: str) -> None:
    lf = corpus_bytes(name).decode("utf-8").replace("\r\n", "\n")
    assert estimate_tokens(lf.replace("\n", "\r\n"), estimator) == estimate_tokens(lf, estimator)


def test_estimate_tokens_refuses_unknown_estimator() -> None:
    with pytest.raises(ValueError, match="unknown token estimator"):
        estimate_tokens("é", "words")


def test_format_tokens_uses_thousands_separators() -> None:
    assert format_tokens(6400) == "~6,400"


def _reference_quarters(text: str) -> int:
    """The script-aware rule spelled out with regexes over every char (the estimator before its fast path)."""
    text = text.replace("\r\n", "\n")
    non_ascii = len(re.findall("[^\x00-\x7f]", text))
    cjk = len(re.findall(CJK_PATTERN, text))
    return len(text) - non_ascii + cjk * 6 + (non_ascii - cjk) * 4


_MIXED = st.text(st.sampled_from("ab \r\n…–›·—→中한，ñ\ufeff\U00020001\ud800é"), max_size=40) | st.text(max_size=40)


@given(_MIXED)
def test_estimate_quarters_equals_the_regex_rule(text: str) -> None:
    assert estimate_quarters(text) == _reference_quarters(text)
    assert estimate_tokens(text) == -(-_reference_quarters(text) // 4)


@given(_MIXED, _MIXED)
def test_estimate_quarters_add_up_except_across_one_crlf(a: str, b: str) -> None:
    joined = estimate_quarters(a + b)
    across = a.endswith("\r") and b.startswith("\n")
    assert joined == estimate_quarters(a) + estimate_quarters(b) - (1 if across else 0)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_estimate_quarters_equals_the_regex_rule_on_the_corpus(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    assert estimate_quarters(text) == _reference_quarters(text)


_CJK_TEXT = st.text(st.sampled_from("a\u10ff\u1100\u11ff\u1200\u2e7f\u2e80\u2fdf\u2fe0\u3000\u30ff\u3100\u3130\u318f"
                                    "\u3190\u31f0\u31ff\u3200\u33ff\u3400\u4dbf\u4dc0\u4e00\u9fff\ua000\uabff\uac00"
                                    "\ud7af\ud7b0\uf8ff\uf900\ufaff\ufb00\ufeff\uff00\uffef\ufff0\U0001ffff\U00020000"
                                    "\U0003ffff\U00040000é—"), max_size=60) | st.text(max_size=60)


@given(_CJK_TEXT, st.integers(min_value=0, max_value=3))
def test_the_cjk_lookups_count_what_the_regex_finds(text: str, repeat: int) -> None:
    """cjk_count/has_cjk look chars up in CJK_RANGES up to _LOOKUPS non-ASCII chars and scan with the
    compiled CJK_PATTERN beyond: both ways agree with the regex at every range's edges."""
    text = text * (1 + 40 * repeat * repeat)  # up to ~21,600 chars: past _LOOKUPS, so the regex route runs too
    assert cjk_count(text) == len(re.findall(CJK_PATTERN, text))
    assert has_cjk(text) == (re.search(CJK_PATTERN, text) is not None)
