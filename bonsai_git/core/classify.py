"""Classify a section into a domain by scored, deterministic keyword rules (DESIGN.md §2, issue 10).

Signals, strongest first; the first that scores decides:

1. **heading** words.  A keyword (config.DEFAULT_DOMAINS or `.bonsai.toml`) matches whole words,
   case-insensitively, singular and plural both ways (`service`/`services`, `policy`/`policies`,
   `class`/`classes`), a possessive `'s`, and the `-ing`/`-ed` forms of words of six letters or
   more (`monitor` → "Monitoring"; `group` never matches "Grouping": too short to be a stem).  A
   keyword of several words matches as a phrase, and the words it covers do not count again
   (`professional network` is one identity match, not also the weak `network`).  CJK keywords
   (Han, kana, Hangul) match as substrings: those scripts have no spaces between words.  Each
   match scores 1; a weak keyword (`~word`: `network`, `voice`, `issues`, ...) scores ½.
   A leading `Kind:` word (`Person:`, `Project:`, `Tool:`, a heading starting with `Incident`)
   counts double for its domain, and a heading that starts with a date (`2026-05-14 …`,
   `Mar 3, 2026`, `2026/02/27`, `2026年3月1日`) is a log entry whatever follows (decided_by
   "prefix"); a date later in the heading adds one point to log (`Monthly Report — Feb 2026`).
   A heading decides when its best domain has a full (non-weak) match; a heading of more than
   LONG_HEADING words or LONG_HEADING_CHARS characters is a sentence, so it decides only with
   BODY_MIN points, like a body.
2. **body**: the section's first ~800 characters after the heading line, scored the same way and
   added to any weak heading matches; decides when the best total reaches BODY_MIN.
3. a weak heading match alone (decided_by "heading").
4. **group**: the `#` heading the section sits under, scored like a heading.
5. **document**: the domain that at least half (and at least DOCUMENT_MIN) of the document's
   confidently placed sections (decided by their heading, prefix or config) got.
6. **fallback**: `general`.

Scores per domain are summed; the highest wins; ties break by table order (config.domains).
decided_by is "config" when the winner's keywords came from `.bonsai.toml` (Config.configured).
Traps stay right: `Seoul trip` is not SEO, `Capital planning` is not API, `Agenda` is not agent,
`Grouping rules` is not community.  Pure: same inputs, same answer; no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .config import FALLBACK_DOMAIN, Config
from .tokens import has_cjk

BODY_CHARS = 800  # the body signal reads this many characters after the heading line
BODY_MIN = 2.0  # a body decides when its best domain scores at least this
LONG_HEADING = 12  # a heading of more words (or LONG_HEADING_CHARS chars) is prose: it decides as a body would
LONG_HEADING_CHARS = 80
DOCUMENT_MIN = 3  # the document's dominant domain needs at least this many confident sections
PREFIX_WEIGHT = 2.0
WEAK_WEIGHT = 0.5
DATE_WEIGHT = 1.0
LOG_DOMAIN = "log"
CONFIDENT = frozenset({"heading", "prefix", "config"})

# `Kind:` prefixes (issue 10): the first word of a heading followed by a colon.  `incident` and
# `postmortem` count without a colon (`Incident 2025-08-12: a flaky test`).
KIND_PREFIXES: dict[str, str] = {
    "person": "people", "contact": "people", "project": "projects", "initiative": "projects",
    "tool": "infrastructure", "service": "infrastructure", "host": "infrastructure",
    "server": "infrastructure", "incident": "infrastructure", "postmortem": "infrastructure",
    "client": "business", "customer": "business", "agent": "agents", "trip": "personal",
}
_NO_COLON_KINDS = frozenset({"incident", "postmortem"})

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DATE = (rf"(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{4}}|"
         rf"{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}\s+{_MONTHS},?\s+\d{{4}}|"
         rf"\d{{4}}\s*年\s*\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*日)?|\d{{4}}\s*년\s*\d{{1,2}}\s*월(?:\s*\d{{1,2}}\s*일)?)")
# A leading date, after any emoji or punctuation: `2026-03-14`, `Mar 3, 2026`, `2026/02/27`.
_LEADING_DATE = re.compile(rf"^[^\w]*{_DATE}(?!\d)", re.IGNORECASE)
# A date anywhere: the above, plus month-year (`February 2026`, `2025-01`) and ISO weeks (`2025-W44`).
_ANY_DATE = re.compile(rf"(?<!\w)(?:{_DATE}|{_MONTHS}\s+\d{{4}}|\d{{4}}-(?:0?[1-9]|1[0-2])|\d{{4}}-W\d{{1,2}})(?!\w)",
                       re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Classification:
    """Where a section goes and why.

    domain: the chosen domain; decided_by: heading|prefix|body|group|document|config|fallback;
    score: the winner's points (float); words: the words that scored for it (document order);
    runner_up / runner_up_score: the next best domain and its points (None / 0.0 when none scored).
    """

    domain: str
    decided_by: str = "fallback"
    score: float = 0.0
    words: tuple[str, ...] = ()
    runner_up: str | None = None
    runner_up_score: float = 0.0

    @property
    def keyword(self) -> str | None:
        """The first word that scored for the winner, or None (the fallback, group or document)."""
        return self.words[0] if self.words and self.decided_by not in ("group", "document") else None


@dataclass(frozen=True, slots=True)
class SectionInput:
    """What the classifier reads of one section: heading, body text (after the heading line), and the
    `#` group heading it sits under ("" when none)."""

    heading: str
    body: str = ""
    group: str = ""


@dataclass(frozen=True, slots=True)
class _Index:
    """A domain table compiled for lookup: stem -> matches, phrases by first stem, CJK alternation."""

    order: dict[str, int]
    words: dict[str, tuple[tuple[str, str, float], ...]]
    phrases: dict[str, tuple[tuple[tuple[str, ...], tuple[tuple[str, str, float], ...]], ...]]
    cjk: str | None  # the substring keywords (CJK, or without letters) as one alternation (pattern source)
    cjk_only: bool  # every substring keyword holds CJK: a text without CJK cannot match
    cjk_keywords: dict[str, tuple[tuple[str, str, float], ...]]
    configured: frozenset[str]
    surface: frozenset[str]
    heading_only: frozenset[str]


@functools.lru_cache(maxsize=65536)  # memory text repeats its words: a lookup beats the rules
def stem(word: str) -> str:
    """The form two words share when they differ only by plural, possessive or -ing/-ed (lowercase str).

    ies -> y, -sses/-shes/-ches/-xes/-zes lose -es, a final -s goes (not -ss/-us), and
    -ing/-ed go when six letters or more remain (so "grouping" stays "grouping").
    """
    w = word.casefold()
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us")):
        w = w[:-1]
    if len(w) >= 9 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) >= 8 and w.endswith("ed"):
        w = w[:-2]
    return w


@functools.lru_cache(maxsize=64)
def _index(domains: tuple[tuple[str, tuple[str, ...]], ...], configured: tuple[str, ...]) -> _Index:
    words: dict[str, list[tuple[str, str, float]]] = {}
    phrases: dict[tuple[str, ...], list[tuple[str, str, float]]] = {}
    cjk: dict[str, list[tuple[str, str, float]]] = {}
    heading_only: set[str] = set()
    for domain, keywords in domains:
        for raw in keywords:
            marks = raw[: len(raw) - len(raw.lstrip("~^"))]
            weight = WEAK_WEIGHT if "~" in marks else 1.0
            keyword = raw[len(marks) :].strip()
            if "^" in marks:
                heading_only.add(keyword)
            if not keyword:
                continue
            if has_cjk(keyword) or not _WORD.search(keyword):  # substrings: CJK, or no letters (`🚀`)
                if all(d != domain for d, _k, _w in cjk.get(keyword, ())):
                    cjk.setdefault(keyword, []).append((domain, keyword, weight))
                continue
            stems = tuple(stem(w) for w in _WORD.findall(keyword))
            table = words.setdefault(stems[0], []) if len(stems) == 1 else phrases.setdefault(stems, [])
            if stems and all(d != domain for d, _k, _w in table):  # `~test` and `~tests` count once
                table.append((domain, keyword, weight))
    by_first: dict[str, list[tuple[tuple[str, ...], tuple[tuple[str, str, float], ...]]]] = {}
    for stems, hits in sorted(phrases.items(), key=lambda kv: (-len(kv[0]), kv[0])):  # longest first
        by_first.setdefault(stems[0], []).append((stems, tuple(hits)))
    cjk_re = None
    if cjk:  # compiled (~2.5 ms) only when a text can match it: most memories hold no CJK (_substring_matcher)
        cjk_re = "|".join(re.escape(k) for k in sorted(cjk, key=lambda k: (-len(k), k)))
    return _Index(
        order={d: i for i, (d, _) in enumerate(domains)},
        words={k: tuple(v) for k, v in words.items()},
        phrases={k: tuple(v) for k, v in by_first.items()},
        cjk=cjk_re,
        cjk_only=all(has_cjk(k) for k in cjk),
        cjk_keywords={k: tuple(v) for k, v in cjk.items()},
        configured=frozenset(configured),
        surface=_surface_forms([*words, *(p[0] for p in phrases)]),
        heading_only=frozenset(heading_only),
    )


def _score_text(text: str, index: _Index, scores: dict[str, float], found: dict[str, list[str]],
                body: bool = False) -> None:
    """Add every keyword match in `text` to `scores` ({domain: points}) and `found` ({domain: words});
    in a `body`, heading-only keywords (`^word`) do not count.

    Only words whose lowercase form can stem to a keyword (`_Index.surface`) are stemmed: most words
    of a body are not, and a set lookup is what keeps 1,000 sections within milliseconds.
    """
    lowered = text.casefold()
    words = _WORD.findall(lowered)
    surface = index.surface
    candidates = [i for i, w in enumerate(words) if w in surface]
    if candidates:
        # casefold can change a length (ß -> ss); then show the lowered words instead of the original
        spans = [m.span() for m in _WORD.finditer(lowered)] if len(lowered) == len(text) else None
        n, done = len(words), -1
        for i in candidates:
            if i <= done:  # inside a phrase already counted
                continue
            s = stem(words[i])
            span = 1
            hits = index.words.get(s, ())
            for phrase, phrase_hits in index.phrases.get(s, ()):
                size = len(phrase)
                if i + size <= n and all(stem(words[i + j]) == phrase[j] for j in range(1, size)):
                    hits, span = phrase_hits, size
                    break
            done = i + span - 1
            shown = text[spans[i][0] : spans[done][1]] if spans is not None else " ".join(words[i : done + 1])
            for domain, keyword, weight in hits:
                if body and keyword in index.heading_only:
                    continue
                scores[domain] = scores.get(domain, 0.0) + weight
                found.setdefault(domain, []).append(shown)
    if index.cjk is not None and (not index.cjk_only or has_cjk(text)):
        for m in _substring_matcher(index.cjk).finditer(text):
            for domain, keyword, weight in index.cjk_keywords[m.group()]:
                if body and keyword in index.heading_only:
                    continue
                scores[domain] = scores.get(domain, 0.0) + weight
                found.setdefault(domain, []).append(m.group())


@functools.lru_cache(maxsize=64)
def _substring_matcher(source: str) -> re.Pattern[str]:
    """_Index.cjk compiled, once per process."""
    return re.compile(source)


def _surface_forms(stems: Iterable[str]) -> frozenset[str]:
    """Every lowercase word that `stem` can map to one of `stems` (a superset is safe: it only filters)."""
    out: list[str] = []  # one frozenset at the end: a set per stem was ~3 ms of every migration's first plan
    for k in stems:
        for base in (k, k + "ing", k + "ed"):
            s, es = base + "s", base + "es"
            out += (base, s, es, base + "'s", s + "'s", es + "'s")
            if base.endswith("y"):
                ies = base[:-1] + "ies"
                out += (ies, ies + "'s")
    return frozenset(out)


def _prefix(heading: str) -> tuple[str, str] | None:
    """(domain, the prefix text) for a `Kind:` heading or a leading date, else None."""
    m = _LEADING_DATE.match(heading)
    if m:
        return LOG_DOMAIN, m.group().strip(" \t*_#>-—–:")
    found = _WORD.search(heading, 0, 40)  # the first word of heading[:40]
    if found is None:
        return None
    words = [found.group()]
    first = words[0].casefold()
    kind = KIND_PREFIXES.get(first) or KIND_PREFIXES.get(stem(first))
    if kind is None:
        return None
    after = heading[heading.casefold().index(first) + len(first) :].lstrip()
    if after.startswith((":", "：")) or first in _NO_COLON_KINDS:
        return kind, words[0]
    return None


def _rank(scores: dict[str, float], index: _Index) -> list[tuple[str, float]]:
    """Domains by score, best first; ties by table order (unknown domains last, by name)."""
    if len(scores) < 2:  # most headings score one domain: nothing to order
        return list(scores.items())
    big = len(index.order)
    return sorted(scores.items(), key=lambda kv: (-kv[1], index.order.get(kv[0], big), kv[0]))


def _decision(scores: dict[str, float], found: dict[str, list[str]], by: str, index: _Index,
              ranked: list[tuple[str, float]] | None = None) -> Classification:
    """The Classification of `scores`; `ranked` is `_rank(scores, index)` when the caller has it already."""
    ranked = ranked if ranked is not None else _rank(scores, index)
    domain, score = ranked[0]
    runner, runner_score = ranked[1] if len(ranked) > 1 else (None, 0.0)
    if by in ("heading", "body") and domain in index.configured:
        by = "config"
    return Classification(domain, by, score, tuple(found.get(domain, ())), runner, runner_score)


def _heading_scores(
    heading: str, index: _Index,
) -> tuple[dict[str, float], dict[str, list[str]], str | None]:
    """Score a heading: (scores, words, the domain its prefix named or None).

    A leading date decides log outright (LABELS.md: "a heading that starts with a date -> log").
    """
    scores: dict[str, float] = {}
    found: dict[str, list[str]] = {}
    prefix = _prefix(heading)
    prefixed = None
    if prefix is not None and prefix[0] in index.order:
        domain, text = prefix
        if domain == LOG_DOMAIN and _LEADING_DATE.match(heading):
            return {LOG_DOMAIN: PREFIX_WEIGHT}, {LOG_DOMAIN: [text]}, LOG_DOMAIN
        scores[domain] = PREFIX_WEIGHT
        found[domain] = [text + ":"]
        prefixed = domain
        heading = heading[heading.casefold().index(text.casefold()) + len(text) :]
    _score_text(heading, index, scores, found)
    if LOG_DOMAIN in index.order:
        m = _ANY_DATE.search(heading)
        if m:
            scores[LOG_DOMAIN] = scores.get(LOG_DOMAIN, 0.0) + DATE_WEIGHT
            found.setdefault(LOG_DOMAIN, []).append(m.group())
    return scores, found, prefixed


def classify_section(section: SectionInput, config: Config, document: str | None = None) -> Classification:
    """Classify one section (heading, body, `#` group) with `config.domains`; total: never raises.

    `document` is the document's dominant domain (`dominant_domain`), or None.  The steps and
    weights are in this module's docstring.
    """
    return _classify(section, _index(config.domains, config.configured), document)


def _classify(section: SectionInput, index: _Index, document: str | None) -> Classification:
    scores, found, prefixed = _heading_scores(section.heading, index)
    # LONG_HEADING + 1 words need that many chars and one between each: a shorter heading skips the count
    long = len(section.heading) > LONG_HEADING_CHARS or (
        len(section.heading) > 2 * LONG_HEADING and len(_WORD.findall(section.heading)) > LONG_HEADING)
    needed = BODY_MIN if long else 1.0
    if max(scores.values(), default=0.0) >= needed:
        ranked = _rank(scores, index)
        return _decision(scores, found, "prefix" if ranked[0][0] == prefixed else "heading", index, ranked)
    if section.body:
        body_scores = dict(scores)
        body_found = {d: list(w) for d, w in found.items()}
        _score_text(section.body[:BODY_CHARS], index, body_scores, body_found, body=True)
        if max(body_scores.values(), default=0.0) >= BODY_MIN:
            return _decision(body_scores, body_found, "body", index)
    if scores:
        return _decision(scores, found, "heading", index)
    if section.group:
        group_scores, group_found, _ = _heading_scores(section.group, index)
        if max(group_scores.values(), default=0.0) >= WEAK_WEIGHT:
            return _decision(group_scores, group_found, "group", index)
    if document is not None:
        return Classification(document, "document", 0.0, (), None, 0.0)
    return Classification(FALLBACK_DOMAIN)


def dominant_domain(decisions: Iterable[Classification]) -> str | None:
    """The domain at least half, and at least DOCUMENT_MIN, of the confident decisions got, or None.

    Confident: decided by the heading, a prefix or a configured keyword.
    """
    counts: dict[str, int] = {}
    total = 0
    for d in decisions:
        if d.decided_by in CONFIDENT:
            counts[d.domain] = counts.get(d.domain, 0) + 1
            total += 1
    if not counts:
        return None
    domain, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return domain if count >= DOCUMENT_MIN and 2 * count >= total else None


def classify_document(sections: Sequence[SectionInput], config: Config) -> tuple[Classification, ...]:
    """Classify every section of one document, in order: each on its own, then the sections nothing
    placed get the document's dominant domain (`dominant_domain`) when there is one."""
    index = _index(config.domains, config.configured)  # hashing the table once, not per section
    first = [_classify(s, index, None) for s in sections]
    document = dominant_domain(first)
    if document is None:
        return tuple(first)
    # a fallback means no other signal scored, so the document's domain is all that is left
    return tuple(Classification(document, "document") if c.decided_by == "fallback" else c for c in first)


def classify_heading(heading: str, config: Config) -> Classification:
    """Classify a heading alone (no body, group or document); total: never raises."""
    return classify_section(SectionInput(heading), config)


def body_of(section_text: str) -> str:
    """The text after a section's heading line (setext underline included; it has no words)."""
    cut = section_text.find("\n")
    return "" if cut < 0 else section_text[cut + 1 :]


# --- pin rules: whole words/phrases or exact headings (unchanged since the seed) ---------------


@functools.lru_cache(maxsize=4096)
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    if has_cjk(keyword) or not any(ch.isalnum() for ch in keyword):
        return re.compile(re.escape(keyword), re.IGNORECASE)
    words = r"\s+".join(re.escape(w) for w in keyword.split())
    return re.compile(rf"(?<!\w){words}(?:e?s)?(?!\w)", re.IGNORECASE)


def matches_keyword(heading: str, keyword: str) -> bool:
    """True when `keyword` matches `heading` as a whole word or phrase (plural -s/-es allowed);
    a CJK keyword or one without letters matches as a substring.  Used for pin rules."""
    return _keyword_pattern(keyword).search(heading) is not None


def is_pinned(heading: str, config: Config) -> bool:
    """True when a section with this heading stays verbatim in the trunk (`config.pinned` rules).

    A rule matches as a whole word/phrase (like a keyword) or as the exact heading.
    """
    exact, pattern = _pin_matcher(tuple(config.pinned))
    return heading.strip().casefold() in exact or (pattern is not None and pattern.search(heading) is not None)


@functools.lru_cache(maxsize=64)
def _pin_matcher(rules: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None]:
    """The pin rules as (exact headings, casefolded; one regex of every rule's `_keyword_pattern`):
    a heading matches the alternation where it matches one of its parts, with two lookups a
    heading instead of two per rule (tests/core/test_classify_fast.py checks them equal)."""
    exact = frozenset(rule.strip().casefold() for rule in rules)
    parts = [f"(?:{_keyword_pattern(rule).pattern})" for rule in rules]
    return exact, re.compile("|".join(parts), re.IGNORECASE) if parts else None
