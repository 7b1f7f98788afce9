"""Classify a section heading into a domain by deterministic keyword rules.

Rules (DESIGN.md §2): case-insensitive; a keyword matches a whole word or that word with a
plural `-s`/`-es` (`service` matches "Services", `api` matches "APIs" but not "capital", `seo`
not "Seoul", `agent` not "Agenda", `group` not "Grouping"); multi-word keywords match as
phrases; keywords in CJK scripts match as substrings (no word boundaries there).  The first
domain in table order with a match wins; no match gives `general`.  Pin rules use the same
matcher.  Pure: same heading and table, same answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .config import FALLBACK_DOMAIN, Config
from .tokens import CJK_CHAR


@dataclass(frozen=True, slots=True)
class Classification:
    """Where a heading goes: its domain and the keyword that decided it (None for the fallback)."""

    domain: str
    keyword: str | None


@functools.lru_cache(maxsize=4096)
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    if CJK_CHAR.search(keyword) or not any(ch.isalnum() for ch in keyword):
        return re.compile(re.escape(keyword), re.IGNORECASE)
    words = r"\s+".join(re.escape(w) for w in keyword.split())
    return re.compile(rf"(?<!\w){words}(?:e?s)?(?!\w)", re.IGNORECASE)


def matches_keyword(heading: str, keyword: str) -> bool:
    """True when `keyword` matches `heading` under the rules in this module's docstring."""
    return _keyword_pattern(keyword).search(heading) is not None


def first_match(heading: str, keywords: Iterable[str]) -> str | None:
    """The first keyword of `keywords` that matches `heading`, or None."""
    keywords = tuple(keywords)
    if _any_pattern(keywords).search(heading) is None:  # one search rules out the whole list
        return None
    return next((k for k in keywords if matches_keyword(heading, k)), None)


@functools.lru_cache(maxsize=256)
def _any_pattern(keywords: tuple[str, ...]) -> re.Pattern[str]:
    if not keywords:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{_keyword_pattern(k).pattern})" for k in keywords), re.IGNORECASE)


def classify_heading(heading: str, config: Config) -> Classification:
    """Classify one heading (str, inline text) with `config.domains`; total: never raises."""
    for domain, keywords in config.domains:
        keyword = first_match(heading, keywords)
        if keyword is not None:
            return Classification(domain, keyword)
    return Classification(FALLBACK_DOMAIN, None)


def is_pinned(heading: str, config: Config) -> bool:
    """True when a section with this heading stays verbatim in the trunk (`config.pinned` rules).

    A rule matches as a whole word/phrase (like a keyword) or as the exact heading.
    """
    folded = heading.strip().casefold()
    return any(folded == rule.strip().casefold() or matches_keyword(heading, rule) for rule in config.pinned)
