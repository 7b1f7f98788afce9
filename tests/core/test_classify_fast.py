"""The classifier's shortcuts (issue 15) decide as the plain rules do, on generated headings."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core.classify import (
    _ANY_DATE, _LAST_WORD, _LEADING_DATE, _WORD, _YEAR_DIGITS, LONG_HEADING, _compile, _entries, _file, _join, _sources,
    _words_before_ages, is_pinned, matches_keyword,
)
from bonsai_git.core.config import Config, parse_config

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


CUSTOM = parse_config("""
[domains]
marketing = ["campaign", "~newsletter", "=post", "social media", "宣传", "🚀", "~test"]
[domains.personal]
extend = ["apiary", "~allotment", "^hike", "meal planning", "=will", "Anfrage", "~test", "test", "人物"]
[domains.projects]
extend = ["=Character", "Figur"]
[domains.business]
extend = ["grant", "Förderantrag", "facturación", "Laufgruppe", "about", "clients"]
""")


@pytest.mark.parametrize("config", [Config(), CUSTOM], ids=["default", "custom"])
@pytest.mark.parametrize("fiction", [False, True], ids=["plain", "fiction"])
def test_an_index_joined_from_each_source_equals_filing_every_keyword_together(config: Config, fiction: bool) -> None:
    """Each source (a lexicon, its characters, .bonsai.toml's words) is compiled on its own and
    `_index` joins them; filing every keyword of the index in one table, in table order (each
    domain's keywords together, the sources in order), gives the same tables."""
    order = {d: i for i, (d, _) in enumerate(config.domains)}
    for n in range(5):
        for extra in itertools.combinations(("de", "es", "fr", "pt"), n):
            sources = _sources(fiction, frozenset({"en", *extra}))
            parts = [_compile(config.domains, config.configured, fiction, s) for s in sources]
            entries = [e for s in sources for e in _entries(config.domains, config.configured, fiction, s)]
            together = _file(sorted(entries, key=lambda e: order[e[0]]))  # domain by domain, sources in order
            for table in ("stems", "exact", "phrases", "compounds", "cjk"):
                assert _join([getattr(p, table) for p in parts], order) == getattr(together, table), (extra, table)
            assert frozenset().union(*(p.prefixes for p in parts)) == together.prefixes
            assert all(p.wide_only for p in parts) == together.wide_only


DATE_PIECES = st.sampled_from(["2026", "26", "3", "12", "1", "-", "/", ".", " ", "Mar", "march", "de", "mai", "1er",
                               "º", "st", ",", "年", "月", "日", "년", "월", "W", "W44", "２０２６", "١٢٣٤", "x", "é"])


@given(st.lists(DATE_PIECES, max_size=8).map("".join))
@example("2025-01")
@example("Mar 3, 2026")
@example("2026年3月1日")
@settings(max_examples=1000)
def test_every_date_the_patterns_find_holds_a_four_digit_run(heading: str) -> None:
    if _ANY_DATE.search(heading) or _LEADING_DATE.match(heading):
        assert _YEAR_DIGITS.search(heading)


AGE_PIECES = st.sampled_from(["Éloïse", "Tomás", "x", " ", "  ", "\t", "(", "（", ",", "9", "초", "小", "ans", "\n", "-",
                              "a" * 45])


@given(st.lists(AGE_PIECES, max_size=12).map("".join))
@example("Éloïse (9 ans, Tomás, 6 anos")
@example("x  ,  (9")
@settings(max_examples=1000)
def test_the_words_before_ages_are_those_a_mark_led_by_its_blanks_finds(text: str) -> None:
    led = re.compile(r"[ \t]*[(（,][ \t]*(?:[초중고小中]|[0-9])")  # the mark as first written: tried at every character
    before = (_LAST_WORD.search(text, max(0, m.start() - 40), m.start()) for m in led.finditer(text))
    assert _words_before_ages(text) == {w.group() for w in before if w is not None}


@pytest.mark.parametrize(("text", "wide"), [("plain text", False), ("café, crème", False), ("🎂 birthdays", True),
                                             ("漢字", True), ("✈️ Lisboa", True), ("Notas — março", False)])
def test_only_a_text_with_cjk_or_a_pictograph_is_scanned_for_substring_keywords(text: str, wide: bool) -> None:
    """The emoji keywords (`^~🎂`) are substrings like the CJK ones: a Western text holds none of their
    characters, so it is not scanned character by character (the bench: 65 -> 52 ms per 1,000 sections)."""
    from bonsai_git.core.classify import _wide
    assert _wide(text) is wide
