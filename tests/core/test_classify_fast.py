"""The classifier's shortcuts (issue 15) decide as the plain rules do, on generated headings."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core.classify import LONG_HEADING, _WORD, is_pinned, matches_keyword
from bonsai_git.core.config import Config

PIECES = st.sampled_from(["📌", "Pinned", "pinned", "pins", "always loaded", "Always  Loaded", "Core Rules",
                          "core rules", "rule", "a", "é", "'s", " ", "  ", "-", "_", "x1", "C++", "[", "(", "\\",
                          "ß", "SS", "İ", "\t", "Notes"])
TEXT = st.lists(PIECES, max_size=8).map("".join)


@given(TEXT, st.lists(TEXT, max_size=4))
@example("Core Rules", ["core rules "])
@example("anything", [""])
@example("C++ notes", ["C++"])
@settings(max_examples=300)
def test_pin_rules_as_one_regex_equal_each_rule_in_turn(heading: str, extra: list[str]) -> None:
    config = replace(Config(), pinned=Config().pinned + tuple(extra))
    folded = heading.strip().casefold()
    expected = any(folded == rule.strip().casefold() or matches_keyword(heading, rule) for rule in config.pinned)
    assert is_pinned(heading, config) == expected


@given(st.text(alphabet=st.sampled_from("ab'_ -é1"), max_size=30))
@example("a b c d e f g h i j k l m")  # 13 words in 25 chars: the shortest long heading
def test_a_heading_of_24_chars_or_fewer_never_has_more_than_12_words(heading: str) -> None:
    if len(heading) <= 2 * LONG_HEADING:
        assert len(_WORD.findall(heading)) <= LONG_HEADING
