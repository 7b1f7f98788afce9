"""Classify a section into a domain by scored, deterministic keyword rules (DESIGN.md §2, issues 10, 23).

The words come from the lexicon (`bonsai_git/data/lexicon/<lang>.toml`, lexicon.py), one file per
language; `.bonsai.toml` replaces or extends a domain's words (config.py).  Matching:

- A Western keyword (en, de, es, fr, pt) matches whole words in every form its language's snowball
  stemmer gives the same stem (`service`/`Services`, `monitor`/"Monitoring", `consulta`/"Consultas").
  A language's stems are only read on a section when its language is seen in the document or the
  section (its `stopwords`); English always is.  `=word` matches that form and its plural only
  (`=group` is not "Grouping").  A German compound also matches by its last part
  ("Laufgruppe" by `gruppe`).  A phrase matches its words in order; the words it covers do not
  count again (`professional network` is one identity match, not also the weak `network`).
- A CJK keyword (Han, kana, Hangul) matches as a substring; one of a single character only where no
  Han or Hangul character touches it (`팀` in "팀 소개", not in "팀장").
- Each match scores 1; a weak keyword (`~word`) scores ½; a heading-only one (`^word`) does not
  count in a body; a heading-start one (`<about`) counts only as a heading's first word.

A heading is read without its number (`3. Suppliers`), a quoted phrase (`When I say "ship it"`: the
owner's words, not the topic) and a question's frame (`who is Ravi?`, `what about the contract …?`).

Signals, strongest first; the first that decides wins:

1. **prefix**: a heading that starts with a date (`2026-05-14 …`, `Mar 3, 2026`, `2026年3月1日`, `wk 6`)
   or is an OpenClaw dreaming block (`Promoted From Short-Term Memory (DATE)`) is a log entry; a leading
   `Kind:` word (`Person:`, `Project:`, `Tool:`, `Obra:`, `Campaign:`, a heading starting with `Incident`)
   counts double for its domain.  A heading of three or more words that is a rule sentence (the
   lexicons' `rules`: `Never book me before 9`, `Don't accept …`) is the agent's (agents).
2. **heading** words, plus the names the document gives (`document_context`): the owner's name
   scores NAME_WEIGHT for identity (a little under a keyword, so "Anja's health" is personal), the
   agent's PREFIX_WEIGHT for agents (the agent's routines and rules are the agent's: "Ada's Routines").  A date later in the heading adds one point to log.  The heading decides when its
   best domain reaches NAME_WEIGHT; a heading of more than LONG_HEADING words or LONG_HEADING_CHARS
   characters is a sentence, so it decides only with BODY_MIN points, like a body.
3. **name**: a heading that is another person's name (`_person_heading`: two or three capitalised
   words, an honorific such as `Dr.`, `Sra.`, `Tía`, `さん`, `老师`, `선생님`, a CJK personal name or
   nickname such as `阿凯`, two names joined by `&`/`e`/`y`, initials the body spells out (`JR` over
   "Jamal Reyes"), a lowercase word (or two joined by `and`) the body opens on as a full name or with a
   kin or role word, a given name the document writes in full after a family name: `子轩`, `도현이`)
   whose body describes a person (the lexicon's `person` words: one for a name of several words or
   a CJK name, two for a single word, a body that opens with one counting it twice, a body that
   opens on the name with a surname counting twice) goes to people.  So does a name that is followed
   by a description whose words scored (`A Sofia (assistente de atelier)`, `Toby (9) - soccer`:
   `_described_person`) when the body opens on the full name ("Sofia Rebelo, part-time") or the name
   is followed by an age; a titled name after a role (`Sellers — Mrs. Okafor`); a given name after
   its article (`O Rui`); an English family (`The Ferreiras` over "Tiago and Lena Ferreira"); a CJK
   given name whose body opens on the full name (`재훈` over "한재훈, 베이스").  Before the heading decides,
   an organisation's proper name (`_organisation`: `Harbourfront Keys Realty`, `Grupo Larrañaga`,
   `Colegio de Notarios`, `Bayside Physio Network`) is business (a company) or community (a group), and
   no company's name is a person's; a role, a separator and a full name (`Éditrice : Hélène Vasseur`:
   `_role_and_name`) is that person, and so is a handle (`@zmrk`) over a body that opens on a full
   name.  When the body opens on the
   owner's (the agent's) own name instead (`## Vale` over "Valeria "Vale" Sosa, 44"), it goes to
   identity (agents).  Before the name step, a lessons heading (`Lessons`, `Coisas que aprendi`, `教训`)
   over items more than half of which name the owner or an agent's job is the agent's
   (`_agent_lessons`, LABELS.md: lessons about how the agent behaves).
4. **body**: the section's first BODY_CHARS characters, in its own language, added to any weak
   heading matches; decides when the best total reaches BODY_MIN, or (when the heading says nothing)
   CLEAR_MIN with twice the runner-up's points (a body clearly about one thing).  Under a heading
   that says its content is mixed (`Misc`, `Divers`, `メモ`) it needs BODY_MIN and MIXED_RATIO times
   the runner-up's points, and most of its items about that domain (`_items_agree`).
5. a weak heading match alone (decided_by "heading").
6. **group**: the `#` heading the section sits under, scored like a heading, unless its best domain
   is `general` (`# Misc`, `# Other` do not decide).
7. **document**: the domain at least half (and at least DOCUMENT_MIN) of the document's confident
   sections got, given to a section with no signal of its own, or whose body's few words point
   there too.  When the body's words point elsewhere, the section goes to `general`
   (decided_by "fallback", Classification.document names the domain not used).  With no dominant
   domain, the document's leaning (`_leaning`: its most common domain when that is business, a
   working memory, or personal, a household's) is used the same way, its words saying which
   (WORKING_MEMORY, HOUSEHOLD_MEMORY).
8. **fallback**: `general`.

After every section is placed, a heading of only tax, insurance or booking words (the lexicons'
`working`: `Taxes`, `Impuestos`, `bookings`) that went to personal goes to business in a working memory
(more business sections than personal: `_the_business_in_a_working_memory`), unless it calls them
private (`déclaration perso`); so does, there and in a memory whose opening names a workplace (the
lexicons' `workplaces`: a clinic, a `Praxis`, a `酒造`: `_runs_a_workplace`; such a memory also leans
to business, never to a household's life), a section its body put in personal when the body's
business words score at least half as much (a dental practice's `Key Facts` about its dentists and
appointments: the trade's health words are the work); a to-do list's heading (the lexicons' `todo`)
that went to agents takes the document's main domain (`_todo_of_the_document`).

In a novelist's memory (the lexicon's `fiction` words in the preamble or headings) the keywords
that name a character (`characters`: `人物`, `Character`) score for projects, not people: a
novel's characters and settings are working material for the book.

Scores per domain are summed; the highest wins; ties break by table order (config.domains).
decided_by is "config" when the winner's keywords came from `.bonsai.toml` (Config.configured).
Traps stay right: `Seoul trip` is not SEO, `Capital planning` is not API, `Agenda` is not agent,
`Grouping rules` is not community, `Tasker` is not task, `Apiary` is not API, `Personalised` is
not personal, `Brandywine` is not brand.  Pure: same inputs, same answer; no I/O (the lexicon
files are package data, read once: lexicon.bundled).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .config import FALLBACK_DOMAIN, Config
from .lexicon import STEMMERS, Language, bundled
from .mdtext import TABLE_RULE
from .tokens import has_cjk

BODY_CHARS = 800  # the body signal reads this many characters after the heading line
BODY_MIN = 2.0  # a body decides when its best domain scores at least this
CLEAR_MIN = 1.5  # ... or, when the heading says nothing, at least this ...
CLEAR_RATIO = 2.0  # ... and this many times the runner-up's points
MIXED_RATIO = 3.0  # under a heading that says its content is mixed (`Misc`), the body's best needs 3x the runner-up
LONG_HEADING = 12  # a heading of more words (or LONG_HEADING_CHARS chars) is prose: it decides as a body would
LONG_HEADING_CHARS = 80
DOCUMENT_MIN = 3  # the document's dominant domain needs at least this many confident sections
DOCUMENT_SHARE = 1 / 3  # ... and this share of all its sections: a few placed sections do not speak for the rest
PREFIX_WEIGHT = 2.0
NAME_WEIGHT = 0.9  # the owner's or agent's name in a heading: decides alone, loses to a topic word
WEAK_WEIGHT = 0.5
LOG_DOMAIN = "log"
ALL_LANGUAGES = frozenset(STEMMERS)  # a section nothing matched in the document's languages is read in all
MIN_STEM = 4  # a shorter stem outside English says too little: the keyword matches its own forms only
PEOPLE_DOMAIN = "people"
PROJECTS_DOMAIN = "projects"
CONFIDENT = frozenset({"heading", "prefix", "config", "name"})
LANGUAGE_SAMPLE = 160  # characters of each body read to tell the document's languages
LANGUAGE_MIN = 4  # stopword hits a Western language needs in a document ...
LANGUAGE_SHARE = 0.15  # ... and this share of all stopword hits
SECTION_LANGUAGE_MIN = 3  # ... or in one section's own text
OPENING_CHARS = 80  # a body "opens on" a name within its first 80 characters ...
OPENING_WORDS = 3  # ... and first three words
FOREIGN_WORD_MIN = 6  # a heading word this long that only another lexicon writes shows that language (_looks_foreign)

# `Kind:` prefixes (issue 10): the first word of a heading followed by a colon.  `incident` and
# `postmortem` count without a colon (`Incident 2025-08-12: a flaky test`).
KIND_PREFIXES: dict[str, str] = {
    "person": "people", "contact": "people", "project": "projects", "initiative": "projects",
    "tool": "infrastructure", "service": "infrastructure", "host": "infrastructure",
    "server": "infrastructure", "incident": "infrastructure", "postmortem": "infrastructure", "inc": "infrastructure",
    "client": "business", "customer": "business", "agent": "agents", "trip": "personal",
    "persona": "people", "pessoa": "people", "personne": "people", "kontakt": "people",
    "proyecto": "projects", "projeto": "projects", "projecto": "projects", "projekt": "projects",
    "projet": "projects", "cliente": "business", "kunde": "business", "herramienta": "infrastructure",
    "ferramenta": "infrastructure", "werkzeug": "infrastructure", "outil": "infrastructure",
    "viaje": "personal", "viagem": "personal", "reise": "personal", "voyage": "personal",
    "obra": "projects", "campaign": "projects", "campaña": "projects", "campanha": "projects",
    "campagne": "projects", "kampagne": "projects", "캠페인": "projects", "キャンペーン": "projects",
    "项目": "projects", "項目": "projects", "プロジェクト": "projects", "프로젝트": "projects",
    "工具": "infrastructure", "ツール": "infrastructure", "客户": "business", "顧客": "business",
    "patient": "people", "paciente": "people", "patiente": "people", "patientin": "people",
}
_NO_COLON_KINDS = frozenset({"incident", "postmortem", "inc"})  # `Inc 07.04. — Suche leer`: an incident

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Month names and their usual abbreviations in English, French, German, Spanish and Portuguese:
# "a heading that starts with a date, in any format" (LABELS.md) is written in the memory's language.
_MONTHS = (r"(?:jan(?:uary|vier|uar|eiro)?|jän(?:ner)?|janv|feb(?:ruary|ruar|rero)?|févr?(?:ier)?|fevr?(?:ier|ereiro)?|"
           r"mar(?:ch|s|zo|ço|co)?|märz?|maerz|apr(?:il)?|avr(?:il)?|abr(?:il)?|may(?:o)?|mai(?:o)?|"
           r"june?|juni?o?|juin|junho|july?|juli|juil(?:let)?|julio|julho|aug(?:ust)?|août|aout|ago(?:sto)?|"
           r"sep(?:t(?:ember|embre|iembre)?)?|setiembre|set(?:embro)?|oct(?:ober|obre|ubre)?|okt(?:ober)?|out(?:ubro)?|"
           r"nov(?:ember|embre|iembre|embro)?|dec(?:ember)?|déc(?:embre)?|dez(?:ember|embro)?|dic(?:iembre)?|ene(?:ro)?)\.?")
_DATE = (rf"(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{4}}|"
         rf"\d{{1,2}}[-/.]{_MONTHS}[-/.]\d{{2,4}}|{_MONTHS}[-/]\d{{4}}|"  # `12/ene/2026`, `dez/2025`
         rf"{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}(?:\.|er|º)?\s+(?:de\s+)?{_MONTHS},?\s+(?:de\s+)?\d{{4}}|"
         rf"\d{{4}}\s*年\s*\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*日)?|\d{{4}}\s*년\s*\d{{1,2}}\s*월(?:\s*\d{{1,2}}\s*일)?)")
# A journal writes its entries' dates without the year: `Mar 3`, `3 mars`, `9 de marzo`, `15. März`, `2/14`,
# `14.3.`, `3月28日`, `3월 28일`, and Taiwan's dates by the ROC year (`113/10/05` is 2024-10-05) (only at the
# start of a heading: "a heading that starts with a date").
_SHORT_DATE = (rf"(?:{_MONTHS}(?![^\W\d_])\s+\d{{1,2}}(?:st|nd|rd|th)?(?![\d:/.]\d)|"
               rf"\d{{1,2}}(?:\.|er|º|st|nd|rd|th)?\s+(?:de\s+)?{_MONTHS}(?![^\W\d_])|"
               rf"(?!24/7)\d{{1,2}}/\d{{1,2}}(?![\d/])|1[0-2]\d[/.]\d{{1,2}}[/.]\d{{1,2}}(?![\d/.])|\d{{1,2}}\.\d{{1,2}}\.(?!\d)|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2}}(?![\d/.])|"
               rf"\d{{1,2}}\s*月\s*\d{{1,2}}\s*[日号]|\d{{1,2}}\s*월\s*\d{{1,2}}\s*일|"
               rf"(?:wk|week|kw|semana|semaine|woche)\.?\s*\d{{1,2}}(?![\d.,:/])|\d{{4}}-?w\d{{2}})")  # `wk 6`, `KW 12`, `2026-W07`
_WEEKDAYS = (r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?|tuesday|wednesday|thursday|saturday|"
             r"lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo|lundi|mardi|mercredi|jeudi|"
             r"vendredi|samedi|dimanche|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|"
             r"segunda|terça|terca|quarta|quinta|sexta|(?:segunda|terça|terca|quarta|quinta|sexta)-feira|"
             # their short forms, counted only before a date: `Do, 06.02.`, `jeu. 3 mars`, `qua 12/03`
             r"mo|di|mi|do|fr|sa|so|lun|mar|mer|mié|mie|jeu|jue|ven|vie|sam|sáb|dim|dom|seg|ter|qua|qui|sex")
# A leading date, after any emoji or punctuation and a weekday: `2026-03-14`, `Mar 3, 2026`, `Lunes 9 de marzo`.
_LEADING_DATE = re.compile(rf"^[^\w]*(?:(?:{_WEEKDAYS})\.?,?\s+)?(?:{_DATE}|{_SHORT_DATE})(?!\d)", re.IGNORECASE)
# A question heading's frame (`who is Ravi?`, `what about the contract with Loomcraft?`): the rest is its topic.
_QUESTION = re.compile(r"(?i)^\W*(?:what['’]?s\s+(?:the\s+deal|up|going\s+on)\s+with|(?:who|what|how|where|which)(?:(?:'s|’s)|(?:\s+else)?\s+(?:is|are|was|were|about))|"
                       r"(?:and|y|et|e|und)(?=\s+\S)|"  # `¿Y don Hernán?`, `Et Paul ?`, `And Mike?`; `what's the deal with Tomasz?`
                       r"(?:wer|was|wie|wo|welche[rsnm]?)\s+(?:ist|sind|war|waren)(?:\s+(?:mit|los\s+mit))?|wie\s+geht(?:'s|’s|\s+es)|"
                       r"was\s+mach(?:t|en)|que\s+fait|qu['’]est-ce\s+que\s+fait|qu[eé]\s+hace|o\s+que\s+faz|"  # `Was macht Kevin?`
                       r"qui\s+(?:est|sont)|c['’]est\s+qui|où\s+(?:est|sont|en\s+est)|comment\s+(?:va|vont)|quoi\s+de\s+neuf\s+(?:avec|pour)|"
                       r"qu['’]en\s+est-il\s+(?:de\s+la|de|du|des)|"
                       r"qui[eé]n(?:es)?\s+(?:es|son)|qu[eé]\s+(?:pasa|hay)\s+(?:con|de)|c[oó]mo\s+(?:est[aá]n?|va|van|sigue|siguen|anda|andan)|"
                       r"d[oó]nde\s+est[aá]n?|"
                       r"quem\s+(?:é|são)|o\s+que\s+há\s+(?:com|de)|como\s+(?:est[aá]|estão|vai|vão|anda|andam)|onde\s+(?:est[aá]|estão|fica))"
                       r"(?![\w'’])\s*")  # not `who am I working for?`: that one asks about the owner; `Wer ist Thomas?`,
# `Qui est Maud ?`, `¿Quién es Lupe?`, `Quem é o Rui?`: the frame in each Western language
# A transcribed voice note's fillers (`ok so dana`, `the guys uh jamal and cody`, `my knee ugh`): no topic, no name.
_FILLER = re.compile(r"(?i)(?<![\w'’])(?:um+|uh+|ugh+|erm+|hmm+|lol)(?![\w'’])[ \t,]*|^(?:ok(?:ay)?|so)[ \t,]+")
_LEADING_FILLER = re.compile(r"(?i)^(?:(?:ok(?:ay)?|so|well|like)[ \t,]+)+(?=\S)")
_ASKED_LAST = re.compile(r"(?i)[ \t]+(?:qu[eé]|quoi|what)$")  # `¿Y Yeison qué?`, `Et Paul, quoi ?`
_NAME_PAIR = re.compile(r"[ \t]+(?:&|\+|and|n|e|y|et|und|pis)[ \t]+|[ \t]*[・·][ \t]*")  # `正男さん・和子さん` too
_ACRONYM = re.compile(r"\W*[A-Z]{2,3}\b")  # `NIE y residencia`: an acronym, not German "nie" (never)
_INITIALS = re.compile(r"[A-Z](?:\.?[A-Z]){0,2}\.?")  # `JR`, `M.`, `J.R.`: a person's initials
_CJK_WEEKDAYS = r"(?:周|週|星期|礼拜|禮拜)[一二三四五六日天末]|[月火水木金土日]曜日?|[월화수목금토일]요일"  # 周五 is no Mr Zhou
_CALENDAR_WORD = re.compile(rf"(?:{_WEEKDAYS}|{_MONTHS}|{_CJK_WEEKDAYS})", re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')  # a quoted phrase in a heading
_WIKILINK = re.compile(r"\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
# A numbered heading (`1. Suppliers`, `10) Money`): the number says nothing about the topic.
# An item's number: `12. …`, `3) …`, `12 – Thierry`, `01 - …`, also before a full date (`21. 12/03/2025 — …`)
_NUMBERED = re.compile(rf"^\s*\d{{1,3}}(?:[.)]|[ \t]+[–—-])\s+(?=\D|{_DATE})")
# A date anywhere: the above, plus month-year (`February 2026`, `2025-01`) and ISO weeks (`2025-W44`).
_ANY_DATE = re.compile(rf"(?<!\w)(?:{_DATE}|{_MONTHS}\s+(?:de\s+)?\d{{4}}|\d{{4}}-(?:0?[1-9]|1[0-2])|\d{{4}}-W\d{{1,2}})(?!\w)",
                       re.IGNORECASE)
# OpenClaw's dreaming block: the entries it promoted from short-term memory on a day (issue 23).
_DREAMING = re.compile(r"^\W*promoted\s+from\s+short[-\s]term\s+memory\b", re.IGNORECASE)
# Every date form of `_ANY_DATE` holds a four-digit year (`\d{4}`): it runs only where a run of four
# digits is (`Section 12`, `3 hosts` skip it).  A leading date may drop its year (`Mar 3`), so
# `_LEADING_DATE` runs where any digit is.
_YEAR_DIGITS = re.compile(r"\d{4}")
_DIGIT = re.compile(r"\d")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_KATAKANA_WORD = re.compile(r"[\u30a0-\u30ff\u31f0-\u31ff]+")  # katakana, the long-vowel mark ー included
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")  # Han and Hangul (not kana)
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")  # a Han character (Chinese, kanji)


@dataclass(frozen=True, slots=True)
class Classification:
    """Where a section goes and why.

    domain: the chosen domain; decided_by: heading|prefix|name|body|group|document|config|fallback;
    score: the winner's points (float); words: the words that scored for it (document order);
    runner_up / runner_up_score: the next best domain and its points (None / 0.0 when none scored);
    document: for "document", the document's dominant domain; for a "fallback", the dominant
    domain that was not used because the section's own words point elsewhere (else None).
    """

    domain: str
    decided_by: str = "fallback"
    score: float = 0.0
    words: tuple[str, ...] = ()
    runner_up: str | None = None
    runner_up_score: float = 0.0
    document: str | None = None

    @property
    def keyword(self) -> str | None:
        """The first word that scored for the winner, or None (the fallback, group or document)."""
        return self.words[0] if self.words and self.decided_by not in ("group", "document") else None


_SHOWN: dict[str, str] = {}  # the words matched so far: each kept once for every section's record


def _one_string(word: str) -> str:
    """`word` as the one string already kept for it: 100,000 sections' records held a copy of each
    matched word apiece, ~0.15x the input (issue 15).  Bounded: cleared past 65,536 words."""
    if len(_SHOWN) >= 1 << 16:
        _SHOWN.clear()
    return _SHOWN.setdefault(word, word)


@dataclass(frozen=True, slots=True)
class SectionInput:
    """What the classifier reads of one section: heading, body text (after the heading line), and the
    `#` group heading it sits under ("" when none)."""

    heading: str
    body: str = ""
    group: str = ""


@dataclass(frozen=True, slots=True)
class Context:
    """What the document says about itself (`document_context`): the owner's and the agent's names
    (casefolded words, or CJK strings), the Western languages seen (`en` always), whether it is a
    novelist's memory, and its dominant domain (None until known)."""

    owner: frozenset[str] = frozenset()
    agent: frozenset[str] = frozenset()
    languages: frozenset[str] = frozenset({"en"})
    fiction: bool = False
    document: str | None = None
    vocabulary: frozenset[str] = frozenset()  # words the document writes in lowercase: never names
    agent_voice: bool = False  # the agent speaks as "I" ("I am Tern", "Ich bin Fidi"): "Who I am" is the agent
    novelist: bool = False  # the preamble itself says the owner writes fiction: a bare name is a character
    given_names: frozenset[str] = frozenset()  # `子轩` headings whose full name (王子轩) the document writes
    aged_names: frozenset[str] = frozenset()  # `Éloïse` headings the document writes with an age: "Éloïse (9 ans"
    capitals: bool = False  # most headings are in capitals (`## POOJA`, `## GST`): a heading in capitals may be a name
    runs_business: bool = False  # the opening says the owner runs a business (`_trade`): a working memory
    trade: frozenset[str] = frozenset()  # the words of its name the personal domain holds (`plumbing`, `Kita`; `~`: weak)


NO_CONTEXT = Context()

_Hit = tuple[str, str, float, int]  # (domain, keyword, weight, where: ANYWHERE, HEADING or HEADING_START)
ANYWHERE, HEADING, HEADING_START = 0, 1, 2  # `word`, `^word`, `<word` (the heading's first word only)
# The phrases one stem begins: second stem -> ((the stems after the second, matches), ...), longest first.
_Phrases = dict[str, tuple[tuple[tuple[str, ...], tuple[_Hit, ...]], ...]]


@dataclass(frozen=True, slots=True)
class _Index:
    """A domain table compiled for lookup: (language, stem) -> matches, exact forms, phrases by
    (language, first stem), German compound heads, the CJK alternation, and the special lists."""

    key: tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...], bool]  # `_index`'s arguments but languages
    languages: tuple[str, ...]  # the stemmed languages whose words it holds, English first
    memo: dict[str, "_WordEntry"]  # what each word read so far matches (`_word_entry`); bounded at 65,536
    order: dict[str, int]
    stems: dict[str, dict[str, tuple[_Hit, ...]]]  # language -> stem -> matches
    exact: dict[str, tuple[_Hit, ...]]
    phrases: dict[str, dict[str, _Phrases]]  # language -> first stem -> second stem -> (the rest, matches)
    compounds: dict[str, tuple[_Hit, ...]]
    prefixes: frozenset[str]  # the first four letters of every word a keyword can match: the rest are not stemmed
    cjk: dict[str, tuple[str, ...]]  # the substring keywords by first character, longest first: made when first read (`_by_char`)
    wide_only: bool  # every substring keyword holds CJK or a pictograph: a text with neither cannot match
    cjk_keywords: dict[str, tuple[_Hit, ...]]
    configured: frozenset[str]
    lists: "_Lists"  # the lexicon's non-domain lists and the rules' cue lists (`_lists`)
    written: frozenset[str]  # every Western keyword as written (casefolded, marks stripped)


@functools.cache
def _stemmer(language: str) -> Callable[[str], str]:
    # loaded when a section is classified; snowballstemmer runs PyStemmer's C code when it is installed
    # (a dependency on CPython: 20-30x faster, the same stems) and pure Python otherwise
    import snowballstemmer  # type: ignore[import-untyped]

    found: Callable[[str], str] = snowballstemmer.stemmer(STEMMERS[language]).stemWord
    return found


@functools.lru_cache(maxsize=1 << 17)  # memory text repeats its words: a lookup beats the stemmer
def stem(word: str, language: str = "en") -> str:
    """The snowball stem (str) of `word` in `language` (a lexicon.STEMMERS code; default English):
    the form two words share when they differ only by plural, possessive or suffix
    ("services" -> "servic", "Monitoring" -> "monitor", "Kwame's" -> "kwame")."""
    w = word.casefold()
    if language == "en" and w.endswith("'s"):
        w = w[:-2]
    return _stemmer(language)(w)


def _forms(word: str) -> tuple[str, ...]:
    """The forms an `=word` keyword matches: itself, its plurals and possessive (lowercase)."""
    w = word.casefold()
    out = [w, w + "s", w + "es", w + "'s"]
    if w.endswith("y"):
        out.append(w[:-1] + "ies")
    return tuple(out)


def _parse_keyword(raw: str) -> tuple[str, float, int, bool]:
    """(keyword, weight, where it counts, exact form) of a keyword with its marks: `~` weak, `^` in
    headings only, `<` as a heading's first word only (`<about`: "About Priya", not "Notes about
    servers"), `=` this form only."""
    marks = raw[: len(raw) - len(raw.lstrip("~^=<"))]
    where = HEADING_START if "<" in marks else HEADING if "^" in marks else ANYWHERE
    return raw[len(marks):].strip(), WEAK_WEIGHT if "~" in marks else 1.0, where, "=" in marks


def _entries(domains: tuple[tuple[str, tuple[str, ...]], ...], configured: tuple[str, ...],
             fiction: bool, source: str) -> list[tuple[str, str, str]]:
    """(domain, language, raw keyword) for every keyword one source gives the index, in table order.

    A source is a lexicon's language code (`en`, ..., `ko`), `characters:<code>` (in a novelist's
    memory, that lexicon's `characters` keywords, which then belong to projects, not their own
    domain) or `config` (the words `.bonsai.toml` gives, read as English).  A configured domain
    has only its `.bonsai.toml` words; any other gets the lexicon's words plus the words
    `.bonsai.toml` added (`extend`).
    """
    if source == "config":
        return [(domain, "en", raw) for domain, keywords in domains for raw in keywords]
    code = source.removeprefix("characters:")
    lang = next(lang for lang in bundled() if lang.code == code)
    if source != code:  # characters:<code>
        return [(PROJECTS_DOMAIN, code, raw) for domain, _ in domains if domain == PROJECTS_DOMAIN
                and domain not in configured for raw in sorted(set(lang.characters))]
    characters = set(lang.characters) if fiction else set()
    words = dict(lang.domains)
    return [(domain, code, raw) for domain, _ in domains if domain not in configured
            for raw in words.get(domain, ()) if raw not in characters]


def _sources(fiction: bool, languages: frozenset[str]) -> list[str]:
    """The sources (`_entries`) of an index for `languages`, in the order their keywords come in a
    domain: the lexicons in `languages` and the substring languages (LANGUAGES order), in a
    novelist's memory their `characters` (by language code), then `.bonsai.toml`'s words."""
    codes = [lang.code for lang in bundled() if lang.code in languages or lang.code not in STEMMERS]
    return codes + ([f"characters:{code}" for code in sorted(codes)] if fiction else []) + ["config"]


_K = TypeVar("_K")


@dataclass(frozen=True, slots=True)
class _Compiled:
    """One source's keywords compiled for lookup (`_compile`): each table's key -> its matches, at
    most one per domain (the first keyword of that domain in the source), in table order."""

    stems: dict[tuple[str, str], tuple[_Hit, ...]]  # (language, stem) -> matches
    exact: dict[str, tuple[_Hit, ...]]
    phrases: dict[tuple[str, ...], tuple[_Hit, ...]]  # (language, stem, stem, ...) -> matches
    compounds: dict[str, tuple[_Hit, ...]]
    cjk: dict[str, tuple[_Hit, ...]]
    wide_only: bool  # every substring keyword holds CJK or a pictograph (`_PICTOGRAPH`: an emoji)
    prefixes: frozenset[str]
    written: frozenset[str]  # every Western keyword as written (casefolded, marks stripped)


@functools.lru_cache(maxsize=256)
def _compile(domains: tuple[tuple[str, tuple[str, ...]], ...], configured: tuple[str, ...], fiction: bool,
             source: str) -> _Compiled:
    """One source's keywords (`_entries`) compiled (`_file`).  Each source is compiled once, however
    many language sets (`_index`) it is part of."""
    return _file(_entries(domains, configured, fiction, source))


def _file(entries: Iterable[tuple[str, str, str]]) -> _Compiled:
    """`entries` ((domain, language, raw keyword), in table order) parsed, stemmed and filed by table;
    for each key, the first keyword of each domain counts."""
    stems: dict[tuple[str, str], list[_Hit]] = {}
    exact: dict[str, list[_Hit]] = {}
    phrases: dict[tuple[str, ...], list[_Hit]] = {}
    compounds: dict[str, list[_Hit]] = {}
    cjk: dict[str, list[_Hit]] = {}

    def add(table: list[_Hit], hit: _Hit) -> None:
        if all(d != hit[0] for d, _k, _w, _h in table):  # `~test` and `~tests` count once
            table.append(hit)

    prefixes: set[str] = set()
    written: set[str] = set()
    wide_only = True  # every substring keyword holds CJK or a pictograph (told as each is filed)
    for domain, code, raw in entries:
        keyword, weight, where, is_exact = _parse_keyword(raw)
        if not keyword:
            continue
        hit = (domain, keyword, weight, where)
        parts = _WORD.findall(keyword)
        held = has_cjk(keyword)
        if not parts or held:  # substrings: CJK, or no letters (`🚀`)
            add(cjk.setdefault(keyword, []), hit)
            wide_only = wide_only and (held or _PICTOGRAPH.search(keyword) is not None)
            continue
        written.add(keyword.casefold())
        language = code if code in STEMMERS else "en"
        first = parts[0].casefold()
        for key in {first, stem(first, language)}:
            prefixes.add(key[:4])
            if len(key) < 4:  # `api` also starts "apis", "api's"
                prefixes.update(key + end for end in "s'eiy")
        if is_exact and len(parts) == 1:
            for form in _forms(keyword):
                add(exact.setdefault(form, []), hit)
            continue
        key = tuple(stem(w, language) for w in parts)
        if len(key) == 1 and language != "en" and len(key[0]) < MIN_STEM:  # `comidas` -> `com` is `cómo`'s
            add(exact.setdefault(keyword.casefold(), []), hit)  # the word itself: French `moi` is not `mois`
            continue
        if len(key) == 1:
            add(stems.setdefault((language, key[0]), []), hit)
            if language == "de" and len(parts[0]) >= 4:
                add(compounds.setdefault(parts[0].casefold(), []), hit)
        else:
            add(phrases.setdefault((language, *key), []), hit)

    def frozen(table: dict[_K, list[_Hit]]) -> dict[_K, tuple[_Hit, ...]]:
        return {k: tuple(v) for k, v in table.items()}

    return _Compiled(frozen(stems), frozen(exact), frozen(phrases), frozen(compounds), frozen(cjk),
                     wide_only, frozenset(prefixes), frozenset(written))


def _join(tables: Iterable[dict[_K, tuple[_Hit, ...]]], order: dict[str, int]) -> dict[_K, tuple[_Hit, ...]]:
    """The sources' tables as one, as if their keywords had been filed together in source order: a
    key's matches are the first source's match for each domain, in table order (`order`)."""
    out: dict[_K, tuple[_Hit, ...]] = {}
    for table in tables:
        for key, hits in table.items():
            have = out.get(key)
            if have is None:
                out[key] = hits
                continue
            new = tuple(h for h in hits if all(d != h[0] for d, _k, _w, _h in have))
            if new:
                out[key] = tuple(sorted(have + new, key=lambda h: order[h[0]]))
    return out


def _cues(words: Iterable[str], whole: bool = False) -> re.Pattern[str]:
    """One pattern for a lexicon cue list: a Western cue matches at a word start (`remind` in
    "reminders"), or as a whole word when `whole` (`no` is not in "notes"); a CJK one anywhere;
    casefolded, longest first.  Each alternation is led by a class of its cues' first characters
    (`(?=[crjw…])`): the same matches, but at a place no cue starts at, the engine leaves after one
    test instead of trying every cue (half the time of a search over a heading or a body)."""
    parts = sorted({w.casefold() for w in words}, key=lambda w: (-len(w), w))
    western = [w for w in parts if not has_cjk(w)]
    cjk = [w for w in parts if has_cjk(w)]

    def alternation(cues: list[str]) -> str:
        firsts = "".join(sorted({re.escape(w[0]) for w in cues}))
        return f"(?=[{firsts}])(?:{'|'.join(map(re.escape, cues))})"

    end = r"(?![^\W\d_])" if whole else ""
    alternatives = ([rf"(?<![^\W\d_]){alternation(western)}{end}"] if western else []) + (
        [alternation(cjk)] if cjk else [])
    return re.compile("|".join(alternatives) or r"(?!)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Lists:
    """The lexicon's non-domain lists, every language's (the same for every index): `person` and
    `fiction` words (single words, and the phrases and CJK ones matched as substrings), the
    stopwords (word -> its languages) and the CJK `surnames`."""

    person_words: frozenset[str]
    person_substrings: tuple[str, ...]
    stopwords: dict[str, tuple[str, ...]]
    stopword_set: frozenset[str]
    fiction_words: frozenset[str]
    fiction_substrings: tuple[str, ...]
    surnames: frozenset[str]
    kin: frozenset[str]  # the cue lists of the rules (lexicon.Language): one relative
    cjk_kin: tuple[str, ...]  # the CJK ones, sorted: a word after a name (`梅姐老公`: her husband)
    pets: frozenset[str]  # a pet (LABELS.md: pets are the owner's private life, personal)
    pet_substrings: tuple[str, ...]  # the CJK ones among them (matched as substrings), longest first, then by code point
    working: frozenset[str]  # the words of a heading a working memory keeps as its business's (casefolded)
    todo: frozenset[str]  # the words of a to-do list's heading (casefolded)
    notes: frozenset[str]  # the words of a heading that only says it holds notes (casefolded): no name
    honorifics: frozenset[str]  # a title before a name (casefolded, not CJK): `dr`, `sra`, `tía`
    cjk_honorifics: tuple[str, ...]  # ... and the CJK honorifics after a name: `さん`, `老师`, `님`
    workplaces: frozenset[str]  # a name opening with one is a business's (casefolded)
    working_opening: re.Pattern[str]  # an opening naming a workplace (whole word) or self-employment
    # (`freiberuflich…`, at a word's start) is a working memory's
    runs: re.Pattern[str]  # the owner runs the business named next (`owns`, `leitet`, `经营`: whole words) ...
    runs_before: re.Pattern[str]  # ... or just before (ja, ko: `を経営`, `를 운영`)
    runs_weak: re.Pattern[str]  # ... or, a workplace or a company named, after a weaker one (`tiene`, `has`)
    trades: tuple[frozenset[str], ...]  # the words of each trade family (`care`, `lodging`: casefolded, with their
    # English stems; CJK as written)
    households: frozenset[str]  # a title naming one is a household's (casefolded)
    private: re.Pattern[str]  # a heading calling its matter the owner's own
    company_last: frozenset[str]  # a company's name ends in one (casefolded) ...
    company_first: frozenset[str]  # ... or opens with one before a name
    group_last: frozenset[str]  # a group's name ends in one ...
    group_first: frozenset[str]  # ... or opens with one
    organisation: frozenset[str]  # every Western word of companies, groups and workplaces: no person's name has one
    cjk_companies: frozenset[str]  # a CJK company's whole name (`株式会社`): no person ...
    cjk_org_ends: frozenset[str]  # ... and the last character of a CJK organisation's name (`會`, `社`)
    written: frozenset[str]  # every Western domain keyword of every language, as written (casefolded, marks stripped)
    rules: re.Pattern[str]  # what a rule for the agent opens with
    travel: re.Pattern[str]  # a trip ...
    work_trip: re.Pattern[str]  # ... that is work
    holiday: re.Pattern[str]  # ... unless it is a holiday
    schedule: re.Pattern[str]  # recurring work in a heading ...
    agent_jobs: re.Pattern[str]  # ... done by the agent
    system_jobs: re.Pattern[str]  # ... or by a host
    name_columns: frozenset[str]  # a table's first column of people (casefolded) ...
    role_columns: frozenset[str]  # ... beside what each one does: a roster (`_roster`)


@functools.cache
def _lists() -> _Lists:
    """The bundled lexicons' non-domain lists (`_Lists`), made once per process."""
    lexicons = bundled()
    person = [w.casefold() for lang in lexicons for w in lang.person]
    fiction_words = [w.casefold() for lang in lexicons for w in lang.fiction]
    pets = frozenset(w.casefold() for lang in lexicons for w in lang.pets)
    stop: dict[str, list[str]] = {}
    for lang in lexicons:
        for w in lang.stopwords:
            stop.setdefault(w.casefold(), []).append(lang.code)
    workplaces = frozenset(w.casefold() for lang in lexicons for w in lang.workplaces)
    companies = [w for lang in lexicons for w in lang.companies]
    groups = [w for lang in lexicons for w in lang.groups]

    def marked(words: list[str], mark: str) -> frozenset[str]:
        """The Western words of `words` with exactly `mark` (`<`, or none), casefolded: `~` ones decide nothing."""
        return frozenset(w.removeprefix(mark).casefold() for w in words
                         if not has_cjk(w) and w[:1] not in "~<".replace(mark, "") and (not mark or w.startswith(mark)))

    return _Lists(
        person_words=frozenset(w for w in person if " " not in w and not has_cjk(w)),
        person_substrings=tuple(w for w in person if " " in w or has_cjk(w)),
        stopwords={k: tuple(v) for k, v in stop.items()},
        stopword_set=frozenset(stop),
        fiction_words=frozenset(w for w in fiction_words if " " not in w and not has_cjk(w)),
        fiction_substrings=tuple(w for w in fiction_words if " " in w or has_cjk(w)),
        surnames=frozenset(s for lang in lexicons for s in lang.surnames),
        kin=frozenset(w.casefold() for lang in lexicons for w in lang.kin),
        cjk_kin=tuple(sorted({w for lang in lexicons for w in lang.kin if has_cjk(w)})),
        pets=pets,
        pet_substrings=tuple(sorted((w for w in pets if has_cjk(w)), key=lambda w: (-len(w), w))),
        working=frozenset(w.casefold() for lang in lexicons for w in lang.working),
        todo=frozenset(w.casefold() for lang in lexicons for w in lang.todo),
        notes=frozenset(w.casefold() for lang in lexicons for w in lang.notes),
        honorifics=frozenset(w.casefold() for lang in lexicons for w in lang.honorifics if not has_cjk(w)),
        cjk_honorifics=tuple(sorted({w for lang in lexicons for w in lang.honorifics if has_cjk(w)})),
        workplaces=workplaces,
        working_opening=re.compile(f"{_cues(workplaces, whole=True).pattern}|"
                                   f"{_cues(w for lang in lexicons for w in lang.self_employed).pattern}", re.IGNORECASE),
        runs=_cues((w for lang in lexicons if lang.code not in ("ja", "ko") for w in lang.runs if w[0] != "~"), whole=True),
        runs_weak=_cues((w[1:] for lang in lexicons for w in lang.runs if w[0] == "~"), whole=True),
        runs_before=_cues(w for lang in lexicons if lang.code in ("ja", "ko") for w in lang.runs),
        trades=tuple(frozenset(w.casefold() for lang in lexicons for w in getattr(lang, family))
                     | frozenset(stem(w.casefold()) for lang in lexicons for w in getattr(lang, family) if not has_cjk(w))
                     for family in ("care", "lodging")),
        households=frozenset(w.casefold() for lang in lexicons for w in lang.households),
        private=_cues((w for lang in lexicons for w in lang.private), whole=True),
        company_last=marked(companies, ""),
        company_first=marked(companies, "<"),
        group_last=marked(groups, ""),
        group_first=marked(groups, "<"),
        organisation=workplaces | frozenset(w.lstrip("~<").casefold() for w in companies + groups if not has_cjk(w)),
        cjk_companies=frozenset(w for w in companies if has_cjk(w) and len(w) > 1),
        cjk_org_ends=frozenset(w for w in companies if has_cjk(w) and len(w) == 1),
        written=frozenset(w.lstrip("~^=<").strip().casefold() for lang in lexicons if lang.code in STEMMERS
                          for _d, words in lang.domains for w in words),
        rules=_cues((w for lang in lexicons for w in lang.rules), whole=True),
        travel=_cues(w for lang in lexicons for w in lang.travel),
        work_trip=_cues(w for lang in lexicons for w in lang.work_trip),
        holiday=_cues(w for lang in lexicons for w in lang.holiday),
        schedule=_cues(w for lang in lexicons for w in lang.schedule),
        agent_jobs=_cues(w for lang in lexicons for w in lang.agent_jobs),
        system_jobs=_cues(w for lang in lexicons for w in lang.system_jobs),
        name_columns=frozenset(w.casefold() for lang in lexicons for w in lang.name_columns),
        role_columns=frozenset(w.casefold() for lang in lexicons for w in lang.role_columns),
    )


@functools.lru_cache(maxsize=64)
def _index(domains: tuple[tuple[str, tuple[str, ...]], ...], configured: tuple[str, ...],
           fiction: bool = False, languages: frozenset[str] = frozenset({"en"})) -> _Index:
    """The table compiled for lookup with the lexicon's words in `languages` (lexicon.STEMMERS codes;
    the CJK files always): each source's compiled tables (`_compile`), joined in source order."""
    order = {d: i for i, (d, _) in enumerate(domains)}
    parts = [_compile(domains, configured, fiction, source) for source in _sources(fiction, languages)]
    stems = _join((p.stems for p in parts), order)
    phrases = _join((p.phrases for p in parts), order)
    cjk = _join((p.cjk for p in parts), order)
    by_first: dict[str, dict[str, dict[str, list[tuple[tuple[str, ...], tuple[_Hit, ...]]]]]] = {}
    for key, hits in sorted(phrases.items(), key=lambda kv: (-len(kv[0]), kv[0])):  # longest first
        by_first.setdefault(key[0], {}).setdefault(key[1], {}).setdefault(key[2], []).append((key[3:], hits))
    by_language: dict[str, dict[str, tuple[_Hit, ...]]] = {}
    for (language, s), hits in stems.items():
        by_language.setdefault(language, {})[s] = hits
    lists = _lists()
    return _Index(
        key=(domains, configured, fiction),
        languages=tuple(sorted(languages & STEMMERS.keys(), key=lambda c: (c != "en", c))),
        memo={},
        order=order,
        stems=by_language,
        exact=_join((p.exact for p in parts), order),
        phrases={lang: {first: {second: tuple(v) for second, v in seconds.items()} for first, seconds in table.items()}
                 for lang, table in by_first.items()},
        compounds=_join((p.compounds for p in parts), order),
        prefixes=frozenset().union(*(p.prefixes for p in parts)),
        cjk={},
        wide_only=all(p.wide_only for p in parts),
        cjk_keywords=cjk,
        configured=frozenset(configured),
        lists=lists,
        written=frozenset().union(*(p.written for p in parts)),
    )


def _add(scores: dict[str, float], found: dict[str, list[str]], hits: Iterable[_Hit], shown: str,
         body: bool, first: bool = False) -> None:
    """Count `hits` (one match, shown as `shown`) once per domain; heading-only ones not in a body,
    heading-start ones only where the match is a heading's `first` word."""
    seen: dict[str, float] = {}
    for domain, _keyword, weight, where in hits:
        if where and (body or (where == HEADING_START and not first)):
            continue
        seen[domain] = max(seen.get(domain, 0.0), weight)
    for domain, weight in seen.items():
        scores[domain] = scores.get(domain, 0.0) + weight
        found.setdefault(domain, []).append(shown)


def _score_text(text: str, index: _Index, scores: dict[str, float], found: dict[str, list[str]],
                body: bool = False, words: list[str] | None = None, trade: frozenset[str] = frozenset()) -> None:
    """Add every keyword match in `text` to `scores` ({domain: points}) and `found` ({domain: words});
    in a `body`, heading-only keywords (`^word`) do not count.  Western words are stemmed in each
    of the index's languages (`_index`); `words` is `_WORD.findall(text.casefold())` when the
    caller has it already.  A match written as one of `trade` (casefolded: the owner's trade,
    `Context.trade`) counts for business where the lexicon says personal."""
    lowered = text.casefold()
    if words is None:
        words = _WORD.findall(lowered)
    if words:
        shown_from = 0 if len(lowered) == len(text) else -1  # ß -> ss: show the lowered words instead
        stopwords, memo = index.lists.stopword_set, index.memo
        n, done = len(words), -1
        for i, w in enumerate(words):
            if i <= done or (body and w in stopwords):  # inside a phrase already counted; a body's "for", "to"
                continue
            entry = memo.get(w)
            if entry is None:
                entry = _word_entry(w, index)
                if len(memo) >= 1 << 16:
                    memo.clear()
                memo[w] = entry
            hits, starts = entry
            span = 1
            if i + 1 < n:
                for language, phrases in starts:  # the phrases this word's stem begins, by their second stem
                    for rest, phrase_hits in phrases.get(stem(words[i + 1], language), ()):
                        size = len(rest) + 2
                        if i + size <= n and all(stem(words[i + j], language) == rest[j - 2] for j in range(2, size)):
                            hits, span = phrase_hits, size
                            break
                    if span > 1:
                        break
            if not hits:
                continue
            done = i + span - 1
            if shown_from < 0:
                shown = " ".join(words[i : done + 1])
            else:
                first, shown_from = _locate(lowered, w, shown_from)
                for j in range(i + 1, done + 1):
                    _start, shown_from = _locate(lowered, words[j], shown_from)
                shown = text[first:shown_from]
            shown = _one_string(shown)
            weight = _trade_weight(shown.casefold(), trade) if trade else None
            if weight is not None:
                hits, shown = _as_trade(hits, index, weight), f"{shown} {TRADE}"
            _add(scores, found, hits, shown, body, i == 0)
    if index.cjk_keywords and (not index.wide_only or _wide(text)):
        lead = next((m.start() for m in _WORD.finditer(text)), 0)  # where the text's first word starts
        for start, keyword in _substrings(text, _by_char(index)):
            if len(keyword) == 1 and _touches(_CJK_CHAR, text, start, start + 1):
                continue
            if _KATAKANA_WORD.fullmatch(keyword) and _touches(_KATAKANA_WORD, text, start, start + len(keyword)):
                continue  # a katakana word is one word: ローン (loan) is not in ローンチ (launch)
            if keyword[0] in "不没沒" and start > 0 and text[start - 1] == keyword[1:2]:
                continue  # 要不要做 (whether to do it), 是不是: a Chinese A-not-A question negates nothing
            hits = index.cjk_keywords[keyword]
            weight = _trade_weight(keyword, trade) if trade else None
            if weight is not None:
                _add(scores, found, _as_trade(hits, index, weight), f"{keyword} {TRADE}", body, start <= lead)
            else:
                _add(scores, found, hits, keyword, body, start <= lead)


TRADE = "(the owner's trade)"  # the mark on a personal word the owner's business is named by (`_trade`)


def _trade_weight(word: str, trade: frozenset[str]) -> float | None:
    """The most a match `word` (casefolded) of the owner's trade (`Context.trade`: words as the lexicon
    writes them, `~` weak) counts for business: 1.0, WEAK_WEIGHT for a weak one, None when it is none
    (also by its English stem: `Vets` of a `vet`)."""
    stemmed = None if has_cjk(word) else stem(word)
    if word in trade or stemmed in trade:
        return 1.0
    if f"~{word}" in trade or f"~{stemmed}" in trade:
        return WEAK_WEIGHT
    return None


def _as_trade(hits: tuple[_Hit, ...], index: _Index, most: float = 1.0) -> tuple[_Hit, ...]:
    """`hits` with personal made business at most `most` points (when business is configured): a word
    of the owner's trade is the work's."""
    if "business" not in index.order:
        return hits
    return tuple(("business", k, min(w, most), where) if d == "personal" else (d, k, w, where) for d, k, w, where in hits)


_WordEntry = tuple[tuple[_Hit, ...], tuple[tuple[str, _Phrases], ...]]


def _word_entry(word: str, index: _Index) -> _WordEntry:
    """What one lowercase word matches in `index`: (its single-word matches in every language of the
    index, the phrases its stem begins per language).  A word whose first four letters start no
    keyword is not stemmed; a long German word with no match of its own tries its compound head."""
    hits: tuple[_Hit, ...] = ()
    starts: list[tuple[str, _Phrases]] = []
    if word[:4] in index.prefixes:
        hits = index.exact.get(word, ())
        for language in index.languages:
            s = stem(word, language)
            found = index.stems.get(language, {}).get(s)
            if found:
                hits = hits + found if hits else found
            phrases = index.phrases.get(language, {}).get(s)
            if phrases:
                starts.append((language, phrases))
    if not hits and "de" in index.languages and len(word) >= 8:
        hits = _compound_head(word, index)
    return hits, tuple(starts)


def _locate(lowered: str, word: str, start: int) -> tuple[int, int]:
    """(start, end) of the next whole-word `word` in `lowered` at or after `start` (a word of
    `_WORD.findall(lowered)`, so it is there)."""
    at = lowered.find(word, start)
    while at > 0 and (lowered[at - 1].isalnum() or (at + len(word) < len(lowered) and lowered[at + len(word)].isalnum())):
        nxt = lowered.find(word, at + 1)
        if nxt < 0:
            break
        at = nxt
    return (at, at + len(word)) if at >= 0 else (start, start)


def _compound_head(word: str, index: _Index) -> tuple[_Hit, ...]:
    """The matches of a German compound's last part (`laufgruppe` -> `gruppe`, `kirchenchor` -> `chor`),
    longest part first, the part tried as written and without a plural or linking ending (-en, -n,
    -e, -s); when its last part matches nothing, its first part before a linking `s`
    (`heizungstausch` -> `heizung`): German puts the head last, but `-ungs`, `-heits` mark a modifier."""
    for form in (word, *(word[: -len(end)] for end in ("en", "n", "e", "s") if word.endswith(end))):
        for k in range(3, len(form) - 3):
            hits = index.compounds.get(form[k:])
            if hits:
                return hits
    for link in _LINKING_S.finditer(word):
        hits = index.compounds.get(word[: link.end() - 1])
        if hits and len(word) - link.end() >= 4:
            return hits
    return ()


_LINKING_S = re.compile(r"(?:ung|heit|keit|schaft|ion|tät|ling)s")  # `Heizungs|tausch`, `Gesundheits|check`


def _touches(chars: re.Pattern[str], text: str, start: int, end: int) -> bool:
    """True when a character of `chars` stands right before `start` or at `end` in `text`: a
    one-character CJK keyword next to Han or Hangul (`_CJK_CHAR`) is part of a word, and a katakana
    keyword next to katakana (`_KATAKANA_WORD`: ローン is not in ローンチ) is part of a longer one."""
    return (start > 0 and chars.match(text[start - 1]) is not None) or (
        end < len(text) and chars.match(text[end]) is not None)


def _by_char(index: _Index) -> dict[str, tuple[str, ...]]:
    """`index.cjk`: the substring keywords by first character, longest first (then in code point
    order), made the first time a text that can hold one is read: a memory in a Western script
    never needs the 4,000 CJK keywords sorted."""
    if not index.cjk:
        by_char: dict[str, list[str]] = {}
        for k in sorted(index.cjk_keywords, key=lambda k: (-len(k), k)):
            by_char.setdefault(k[0], []).append(k)
        index.cjk.update({ch: tuple(ks) for ch, ks in by_char.items()})  # whole, in one step
    return index.cjk


# What a zero-width joiner adds to an emoji (`🧑‍🔧`: a person, then the wrench of their trade): not a keyword of its own.
_ZWJ_TAIL = re.compile("\u200d[^\\s\u200d]+")
# The emoji and pictographs a substring keyword may be (`^~🎂`): with CJK, what a text must hold to match one.
_FLAG = re.compile("[\U0001F1E6-\U0001F1FF]{2}")  # a country's flag: two regional indicator letters
_PICTOGRAPH = re.compile("[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001F000-\U0001FAFF]")


def _wide(text: str) -> bool:
    """Whether `text` holds a CJK character or a pictograph: only then can a substring keyword match
    (a Western text is not scanned character by character for the CJK lexicons and the emoji)."""
    return not text.isascii() and (has_cjk(text) or _PICTOGRAPH.search(text) is not None)


def _substrings(text: str, by_char: dict[str, tuple[str, ...]]) -> Iterator[tuple[int, str]]:
    """(start, keyword) for each substring keyword in `text`, left to right, the longest at a place
    first, and none inside another: one scan of the text, trying only the keywords that start with
    each character (`_Index.cjk`); a regex alternation of 4,000 keywords tried every branch."""
    i, n = 0, len(text)
    while i < n:
        for keyword in by_char.get(text[i], ()):
            if text.startswith(keyword, i):
                yield i, keyword
                i += len(keyword)
                break
        else:
            i += 1


def _prefix(heading: str) -> tuple[str, str] | None:
    """(domain, the prefix text) for a `Kind:` heading, a leading date or a dreaming block, else None."""
    m = (_DIGIT.search(heading) and _LEADING_DATE.match(heading)) or _DREAMING.match(heading)
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


# A Romance preposition or elision between words: the heading's first noun is its head
# (`Association des parents d'élèves`, `Contrato de arrendamento`, `Reserva del microscopio`).
_HEAD_LINK = re.compile(r"(?<!\w)(?:de|des|du|da|do|das|dos|del|pour|para|avec|com|con|sur|à|au|aux|with|mit)(?!\w)|(?<!\w)[dl]['’]\w")
# (lowercase, as a preposition is written: `DO NOT BREAK` is English)


_TOPIC_SEPARATOR = re.compile(r"\s[—–-]\s|\S:\s")  # `RGPD — données clients`, `Bank: Kontoauszüge`: the topic comes first


# In a CJK heading a compound's head comes last (`사용자 모임`: a users' meetup, `客户微信群`: the clients' WeChat
# group, `出版社 계약`: the publisher's contract): a tie goes to the domain of the last word (`_head_first`).
_CJK_ABOUT_HEAD = re.compile(r"\W*(?:关于|關於)")
_BRACKETED = re.compile(r"[(（][^)）]*[)）]")
_CJK_AND = re.compile(r"[与與和及및、・/／&+]|(?<=[\uac00-\ud7af])[와과](?=[ \t])")


def _head_first(ranked: list[tuple[str, float]], found: dict[str, list[str]], heading: str) -> list[tuple[str, float]]:
    """`ranked` with a tie for first place settled by the heading's head noun when the heading is built
    with a Romance preposition that follows the head (_HEAD_LINK: `de`, `pour`), `with` or `mit` (`Skifahren
    mit den Kids` is skiing; not `for`: `money stuff for the business` is the business's) or a topic separator
    (`RGPD — données clients`): the domain whose word comes first wins.  In a CJK heading the domain
    whose word comes last wins (the compound's head), unless that is agents (`报价规则`),
    the heading is `关于 …`, or it joins two topics (`身份与角色`).  Otherwise (English and German
    compounds put the head last too, but a tie there keeps table order) `ranked` unchanged."""
    if len(ranked) < 2 or ranked[0][1] != ranked[1][1]:
        return ranked
    last = _HEAD_LINK.search(heading) is None and _TOPIC_SEPARATOR.search(heading) is None
    if last and (not has_cjk(heading) or _CJK_ABOUT_HEAD.match(heading) or _CJK_AND.search(heading)):
        return ranked  # `关于林医生` is about someone; `身份与角色` and `在做的项目 / deadlines` join two topics
    lowered = (_BRACKETED.sub(lambda m: " " * len(m.group()), heading) if last else heading).casefold()
    # (a bracket qualifies the compound, it is not its head: `台湾旅行（2026年5月）` is a trip)

    def at(domain: str) -> int:
        words = found.get(domain)
        place = lowered.find(words[0].split(" (")[0].casefold()) if words else -1
        return place if place >= 0 else len(lowered)

    tied = [d for d, score in ranked if score == ranked[0][1]]
    if last:
        head = max(tied, key=lambda d: (at(d) if at(d) < len(lowered) else -1, -tied.index(d)))
        if head == "agents":
            return ranked  # `报价规则` (pricing rules) is the business's: a rules word heads no compound
    else:
        head = min(tied, key=lambda d: (at(d), tied.index(d)))
    return [r for r in ranked if r[0] == head] + [r for r in ranked if r[0] != head]


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
    heading: str, index: _Index, context: Context = NO_CONTEXT,
) -> tuple[dict[str, float], dict[str, list[str]], str | None]:
    """Score a heading: (scores, words, the domain its prefix named or None).

    A leading date or a dreaming block decides log outright (LABELS.md: "a heading that starts with
    a date -> log").  The owner's and the agent's names score NAME_WEIGHT for identity / agents.
    """
    scores: dict[str, float] = {}
    found: dict[str, list[str]] = {}
    prefix = _prefix(heading)
    prefixed = None
    if prefix is not None and prefix[0] in index.order:
        domain, text = prefix
        if domain == LOG_DOMAIN and (_LEADING_DATE.match(heading) or _DREAMING.match(heading)):
            return {LOG_DOMAIN: PREFIX_WEIGHT}, {LOG_DOMAIN: [text]}, LOG_DOMAIN
        scores[domain] = PREFIX_WEIGHT
        found[domain] = [text + ":"]
        prefixed = domain
        heading = heading[heading.casefold().index(text.casefold()) + len(text) :]
    _score_text(_ZWJ_TAIL.sub("", heading) if "\u200d" in heading else heading, index, scores, found,
                trade=context.trade)
    flag = _FLAG.search(heading) if "personal" in index.order else None
    if flag is not None:  # `🇦🇷 Buenos Aires`: a country's flag is a place, a trip's (weak: the body speaks first), no name
        scores["personal"] = scores.get("personal", 0.0) + WEAK_WEIGHT
        found.setdefault("personal", []).append(f"{flag.group()} (a country's flag)")
    if scores and not _WORD.search(heading):  # `🤖`, `🎂`: a heading of only emoji says what it holds, fully
        for domain in scores:
            scores[domain] *= 2  # (its emoji keywords are weak: half a point each)
    if context.owner or context.agent:
        for domain, names, role, weight in (("identity", context.owner, "owner", NAME_WEIGHT),
                                            ("agents", context.agent, "agent", PREFIX_WEIGHT)):
            name = _named(heading, names)
            if name is not None and domain in index.order:
                scores[domain] = scores.get(domain, 0.0) + weight
                found.setdefault(domain, []).append(f"{name} ({role})")
    if "identity" in scores and "agents" in index.order and all(w.casefold() in _FIRST_PERSON_WORDS for w in found["identity"]) and (
            context.agent_voice or scores.get("agents", 0.0) >= scores["identity"]
            or not _SECOND_PERSON_WORDS.isdisjoint(_WORD.findall(heading.casefold()))):
        # `Lembretes que eu mando` where the agent speaks as I: "eu" is the agent; `what you do for me every
        # week`, `When to ask me first`: the owner speaks to the agent, so the section is the agent's
        scores["agents"] = scores.get("agents", 0.0) + scores.pop("identity")
        found.setdefault("agents", []).extend(f"{w} (agent)" for w in found.pop("identity"))
    intro = _SELF_INTRO.match(heading.lstrip(" \t*_>")) if context.owner or context.agent else None
    if intro is not None:  # `Ich bin Lukas, 41, seit 2016 selbständig, …`: a sentence introducing the owner (the agent)
        first = _WORD.search(heading.lstrip(" \t*_>"), intro.end())
        for domain, names, role in (("identity", context.owner, "owner"), ("agents", context.agent, "agent")):
            if first is not None and first.group().casefold() in names and domain in index.order:
                scores[domain] = scores.get(domain, 0.0) + PREFIX_WEIGHT
                found.setdefault(domain, []).insert(0, f"{intro.group().strip()} {first.group()} ({role})")
                break
    if "identity" in scores and len(heading.split()) >= 4 and all(w.casefold() in _FIRST_PERSON_WORDS for w in found["identity"]):
        del scores["identity"], found["identity"]  # `my back is killing me again`: in a sentence "me" is grammar, not the topic
    if "identity" in index.order and len(heading) <= 24 and _WE.match(heading):
        scores["identity"] = scores.get("identity", 0.0) + PREFIX_WEIGHT
        found.setdefault("identity", []).append(f"{heading.strip()} (the owners)")
    me = _ME_MARK.search(heading) if "(" in heading or "（" in heading else None
    self_heading = context.agent_voice and _SELF.match(heading) is not None
    if me is not None or self_heading:
        # "(me)", "Who I am": the owner, or the agent when it speaks as "I" or the heading names it
        mine = "agents" if context.agent_voice or "agents" in found and any(
            w.endswith("(agent)") for w in found["agents"]) else "identity"
        if mine in index.order:
            scores[mine] = scores.get(mine, 0.0) + PREFIX_WEIGHT
            found.setdefault(mine, []).append(me.group() if me is not None else "I (agent)")
    if LOG_DOMAIN in index.order:
        m = _ANY_DATE.search(heading) if _YEAR_DIGITS.search(heading) else None  # every date has a year
        if m:
            scores[LOG_DOMAIN] = scores.get(LOG_DOMAIN, 0.0) + WEAK_WEIGHT
            found.setdefault(LOG_DOMAIN, []).append(m.group())
    return scores, found, prefixed


# A question's first word, capitalised as a sentence starts (`Comment Nathalie veut-elle …?`, `Wie Anna …`): no given name.
_ASKING = frozenset("how what when where who why which comment quand où pourquoi qui quoi wie wann wo warum wer was welche "
                    "cómo cuándo dónde quién qué como quando onde quem porque and und et y e".split())


def _named(heading: str, names: frozenset[str]) -> str | None:
    """The first of `names` in `heading`: a Western name as a whole word (also `Ada's`, German
    `Anjas`), a CJK name as a substring; None when none is."""
    lowered = heading.casefold()  # each way below finds a name written in the heading: most headings hold none
    if not any(name in lowered or name in heading for name in names):
        return None
    before, before_end = "", 0
    for m in _WORD.finditer(heading):
        w = m.group().casefold()
        if w in names or (w.endswith("'s") and w[:-2] in names) or (w.endswith("s") and w[:-1] in names):
            if not (before[:1].isupper() and not before.isupper() and before.casefold() not in names and before.casefold().rstrip(".")
                    not in _lists().honorifics and before.casefold() not in _ASKING and heading[before_end : m.start()] == " "):
                return m.group()  # not `Antoine Moreau`: another given name before the surname is a relative
                # (in `HOW SCOUT SHOULD TALK` every word is capitalised: none is a given name)
        before, before_end = m.group(), m.end()
    if heading.isascii():  # a CJK name is in no ASCII heading: the names are not sorted for it
        return None
    for name in sorted(names, key=lambda n: (-len(n), n)):
        if has_cjk(name) and name in heading:
            return name
    return None


# --- what the document says about itself: names, languages, fiction (issue 23) ----------------

_UPPER = "A-ZÀ-ÖØ-ÞĀ-ŽА-Я"
_LOWER = "a-zß-öø-ÿā-žа-я"
_CAP = rf"[{_UPPER}][{_LOWER}'’]+(?:-[{_UPPER}]?[{_LOWER}'’]+)*-?"  # `Jean-Pierre`, `Marie-José`
_NICKNAME = rf"\(?[\"“‘']{_CAP}[\"”’']\)?"  # Rosalind ("Roz") Achterberg, Robert "Bob" Lee
_NAME_RE = rf"({_CAP}(?:[ \t]+(?:{_NICKNAME}|{_CAP})){{0,2}})"
_HONORIFIC_WORDS = r"(?:(?:Prof|Dr|Dra|Drª|Sr|Sra|Mr|Mrs|Ms|Mx|Herr|Frau|Mme|M|Lic|Licd[ao]|Lcd[ao]|Mtr[ao]|Ing|Arq|C\.P|[Dd]o[ñn]a|[Dd]on|Seu|Ma[iî]tre|Me)\.?[ \t]+)*"
# The words for the agent as an assistant, in the eight languages (`die Assistenz`: German's neutral one).
_ASSISTANT_WORDS = r"assistant|assistante|assistente|asistente|assistent(?:in)?|assistenz"
# The agent's name: "You are Ada, ...", "Eres Brisa", "Du bist Kobold", "Tu es Lune", "Você é a Cotovia", "Moi c'est Brume".
_AGENT_PATTERNS = (
    re.compile(rf"(?i:\byou are|\byou're|\byour name is|\beres|\bte llamas|\bvocê é|\btu és|\bés|\bdu bist|"
               rf"\bdein name ist|\btu es|\btu t'appelles|\bi am|\bi'm|\bmy name is|\bich bin|\bich heiße|\bje suis|"
               rf"\bje m'appelle|\bmoi,? c'est|\bsoy|\bsos|\bme llamo|\beu sou|\bsou|\bchamo-me|\bme chamo)[ \t]+"
               rf"(?:(?:the|a|an|o|a|el|la|der|die|das|le|la)[ \t]+)?[\"“„«']?[ \t]?{_NAME_RE}[ \t]?[\"”“»']?"
               rf"(?=[ \t]*[,.;:(—–\-!]|[ \t]+(?:the|a|an|o|el|la|der|die|das|le|un|une|ein|eine)\b)"),  # `Soy "Chencha",`
    re.compile(r"(?i:you are|you're|your name is)[ \t]+[\"“'「]?([\uac00-\ud7af\u3040-\u30ff\u3400-\u9fff]{2,6})[\"”'」]?(?=[ \t]*[,，.。(（])"),
    re.compile(r"(?:你是|您是|我是|你叫)[「“\"]?([\u3400-\u9fff]{2,4})[」”\"]?(?=[，,。、（(]|$)"),  # `我是「小辣椒」，` (not 我是X的助理)
    re.compile(r"(?:あなたは|私は|わたしは|僕は|ぼくは)[「『]?([\u3040-\u30ff\u3400-\u9fff]{2,8}?)[」』]?(?:です|だ|。|、)"),
    re.compile(r"(?:너는|당신은|나는|저는)[ \t]*[\"“']?([\uac00-\ud7af]{2,5}?)[\"”']?(?:[ \t]*(?:\([^)]{0,30}\)|（[^）]{0,30}）))?"
               r"(?:이다|입니다|야|예요|이에요|,|\.)"),  # `너는 모모(Momo)야`
    re.compile(rf"(?:너는|당신은|나는|저는)[ \t]*[\"“']?({_CAP})[\"”']?(?=[ \t]*(?:[,.(—–-]|이다|입니다|야|예요|이에요))"),  # `나는 **Dori** — …`
    # a naming verb, then "and": "Ich heiße Hummel und führe hier die Notizen", "me llamo Brisa y", "call me Ada and"
    re.compile(rf"(?i:\bich heiße|\bmy name is|\bcall me|\bme llamo|\bje m'appelle|\bme chamo|\bchamo-me)[ \t]+"
               rf"[\"“„«']?{_NAME_RE}[\"”“»']?(?=[ \t]+(?i:und|and|y|e|et)\b)"),
    # The writer in apposition: "Notes kept by me, Wren, for Sam", "I, Wren, keep this file", "La escribo yo, Nora,"
    re.compile(rf"(?:(?i:\b(?:by|from|of)[ \t]+me|\byo|\bmoi|\bich|\beu)|\bI),[ \t]+{_NAME_RE}[ \t]*(?=[,(—–.])"),
    # whose memory, then the role: "Memoria de Nora, la asistente de Begoña", "notes by Wren, the family's assistant"
    re.compile(rf"(?i:\b(?:de|of|do|da|du|von|by|from)[ \t]+){_NAME_RE},[ \t]+(?i:(?:the|la|el|o|a|le|der|die|das|sein|seine|ihr|ihre|su|sua|seu|son|sa)[ \t]+)?"
               rf"(?:[^\W\d_][\w'’-]*[ \t]+){{0,2}}?(?i:{_ASSISTANT_WORDS}|agent|agente|bot)"
               rf"(?=[ \t]+(?i:of|for|de|da|do|der|des|von|für|pour|para|to|que|qui|that|who|die|der)\b|[ \t]*[,.;:(])"),
    # The name, "is", then the role: "Rivet is the agent that helps …", "Brisa es la asistente de …"
    re.compile(rf"(?:^|(?<=[.!?:;]\s)|(?<=\n)){_NAME_RE}[ \t]+(?i:is|es|é|est|ist)[ \t]+(?i:the|an?|el|la|o|a|le|der|die|das|ein|eine|une?)[ \t]+"
               rf"(?:(?:AI|IA|KI)[ \t-]+)?(?i:{_ASSISTANT_WORDS}|agent|agente|bot|helper)"
               rf"(?![\w-])", re.MULTILINE),
    # A name and its role in brackets: "a memória do Rabelo (assistente IA)", "Wren (the AI assistant)"
    re.compile(rf"{_NAME_RE}[ \t]*[(（][ \t]*(?i:l['’]|(?:the|an?|o|a|el|la|le|der|die|das|ein|eine|um|uma|un|une)[ \t]+)?"
               rf"(?:(?:AI|IA|KI)[ \t-]+)?(?i:{_ASSISTANT_WORDS}|agent|agente|bot|helper)"
               rf"(?:[ \t]+(?:IA|AI|KI|(?i:virtual|virtuel|virtuelle)))?[ \t]*[,;)）]"),
    # the same in CJK: `我（小燈，AI 助理）`, `小燈（AI助理）`, `私（ハル、アシスタント）`
    re.compile(r"(?:我|私|나|저)[（(]([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,6}?)[，,、][^）)\n]{0,12}"
               r"(?:助理|助手|秘书|秘書|アシスタント|エージェント|비서|어시스턴트|에이전트|AI|agent)"),
    # the Korean assistant, then its name and a particle: `윤하은(Ha-eun Yoon)의 AI 비서 다온(Daon)이 …`
    re.compile(r"(?:비서|어시스턴트|에이전트)[ \t]+(?!이름)([\uac00-\ud7af]{2,4}?)(?:[ \t]*\([^)\n]{0,30}\))?(?:이|가|는|은)(?=[ \t])"),
    # the name, then "her (his) assistant": `记录人：小满，她的 AI 助手`, `小燈，你的助理`
    re.compile(r"(?<![\u3400-\u9fff])([\u3400-\u9fff]{2,4})[ \t]*[，,][ \t]*(?:她|他|我|你|您|他们|她们)的[ \t]*(?:AI|ＡＩ)?[ \t]*"
               r"(?:助手|助理|秘书|秘書)"),
    # the Korean assistant's name ending the sentence: `정리·알림 담당은 가족 비서 다람이.`
    re.compile(r"(?:비서|어시스턴트|에이전트)[ \t]+([\uac00-\ud7af]{2,4})(?:[ \t]*\([^)\n]{0,30}\))?(?=[ \t]*(?:[.。]|$))", re.MULTILINE),
    # "I (the name)" doing it for someone: `这是我（小瓷）替周蔓记的长期笔记`
    re.compile(r"(?:我|私)[（(]([\u3040-\u30ff\u3400-\u9fff]{2,6}?)[）)][^。\n]{0,4}?(?:替|为|為|给|給|帮|幫|のために)"),
    re.compile(r"([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,6}?)[（(][ \t]*(?:AI|ＡＩ)?[ \t]*"
               r"(?:助理|助手|秘书|秘書|アシスタント|エージェント|비서|어시스턴트|에이전트)[ \t]*[）)]"),
)
# The owner names their agent: "My agent is called Kestrel", "my assistant, Pip,", "mi asistente se llama Brisa",
# "mein Assistent heißt Fidi", "mon assistante s'appelle Lune", "o meu assistente chama-se Rabelo".
_MY_AGENT = re.compile(rf"(?i:\bmy|\bmi|\bmein|\bmeine|\bmon|\bma|\bo meu|\ba minha|\bmeu|\bminha)[ \t]+(?:(?:AI|IA|KI)[ \t-]+)?"
                       rf"(?i:agent|assistant|assistante|asistente|assistente|assistent(?:in)?|assistenz|agente|helper|bot)[ \t]*,?[ \t]*"
                       rf"(?i:is[ \t]+called[ \t]+|is[ \t]+named[ \t]+|is[ \t]+|called[ \t]+|named[ \t]+|se[ \t]+llama[ \t]+|heißt[ \t]+|"
                       rf"s['’]appelle[ \t]+|chama-se[ \t]+|se[ \t]+chama[ \t]+)?[\"“„«']?{_NAME_RE}(?=[\"”“»']?[ \t]*(?:[,.;:(—–!]|$|[ \t]+(?i:and|und|y|e|et)\b))")
# A CJK title line names the owner: `# 메모리 — 박정호 선생`, `# 长期记忆 · 林素秋`, `# MEMORY — 한도윤`
# (kept when its first character is a family name of the lexicons' `surnames`: not `# MEMORY — 新项目`).
_TITLE_OWNER_CJK = re.compile(r"^#[ \t]+(?:(?i:memory(?:\.md)?)|장기[ \t]*메모리|메모리|기억|长期记忆|長期記憶|记忆|記憶|"
                              r"長期メモ|メモリ)[ \t]*[—–\-·・:|][ \t]*([\u3400-\u9fff]{2,4}|[\uac00-\ud7af]{2,4})"
                              r"(?=[ \t]*(?:$|\n|[(（]|선생|작가|님|老师|老師|先生|さん))")
# A name joined by a hyphen to the word for an agent names a product, not the agent: `der Claude-Code-Agent`
_PRODUCT_AGENT = re.compile(r"-?-(?i:agent|agente|assistent|assistenz|assistant|assistente|bot|ki|ia|ai)\b")
# A quoted name right after the word for the agent: `補助エージェント「ヨル」`, `手机助手"小竹"`, `비서 "다람"`.
_AGENT_QUOTED = re.compile(r"(?:エージェント|アシスタント|秘書|助手|助理|秘书|비서|어시스턴트|에이전트|(?i:agent|AI|bot)|AIの|"
                           r"이름은)[ \t]*[「『“\"'‘]"
                           r"([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{1,6})[」』”\"'’]")  # `보조 에이전트 '잉크'(나)`
# A field line of front matter or a blockquote names the agent, maybe in lowercase: `agent: hachi`, `> Agent: 토리`.
_AGENT_FIELD = re.compile(r"(?i)(?<!\w)(?:agent|assistant|assistente|asistente|assistent|assistenz|agente|bot)[ \t]*[:=][ \t]*[\"“']?"
                          r"([^\W\d_][\w'’-]*|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{1,6})")
# The title line names the agent: `# MEMORY — Tern (platform agent)`, `# MEMORY.md — Jabuti 🐢`.
_TITLE_AGENT = re.compile(rf"(?m)^#[ \t]+(?i:memory(?:\.md)?|memória|mémoire|memoria)[ \t]+[—–-][ \t]+{_NAME_RE}"
                          r"(?=[ \t]*(?:[(,—–-]|$|[^\w\s]))")
# The agent speaks as "I" when the preamble has it introduce itself ("I am Tern", "Soy Muela", "我是小跨")
# and never addresses it as "you".  An "I" alone may be the owner's ("anything I say goes in here").
_SELF_INTRO = re.compile(r"(?i)(?:i am|i'm|my name is|ich bin|ich heiße|je suis|je m'appelle|moi,? c'est|soy|me llamo|eu sou|sou|"
                         r"chamo-me|me chamo)\s|我是|私は|わたしは|僕は|ぼくは|나는|저는")
# The agent introduces itself as the assistant, unnamed: "Soy el asistente de Lucía", "我是陈晓峰的销售助理".
_SELF_ASSISTANT = re.compile(r"(?i)(?<!\w)(?:i am|i'm|soy|sou|ich bin|je suis)[ \t]+(?:(?:the|an?|el|la|o|a|der|die|l['’])[ \t]*)?"
                             r"(?:[^\W\d_][\w'’-]*[ \t]+){0,3}?(?:assistant|assistante|asistente|assistente|assistent|assistenz|agent|agente|bot)"
                             r"|我是.{0,15}?(?:助理|助手|秘书|秘書)|私は.{0,15}?(?:アシスタント|秘書)|(?:나는|저는).{0,15}?(?:비서|어시스턴트|에이전트)")
_SECOND_PERSON = re.compile(r"(?i)(?<!\w)(?:you are|you're|your name|du bist|tu es|tu és|eres|sos|você é|vous êtes)(?!\w)"
                            r"|你是|您是|あなたは|너는|당신은")
# The owner's name: "Owner: Helena Silva", "assistant of/for/de/der Lola Ferrer", "周雨桐的写作助手".
# A second owner after a conjunction: "Owner: Priyanka & Tom Ellery", "assistant of Chidi Okonkwo and Hannah Bell".
_AND = r"(?:&|\band\b|\be\b|\by\b|\bet\b|\bund\b|\bpis\b)"  # `pis`: Québec French "and"
_AND_NAME = (rf"(?:(?:[ \t]*[(（][^)）\n]{{0,80}}[)）])?[ \t]*{_AND}[ \t]+"
             rf"(?:(?:the|o|a|el|la|le|der|die|de|do|da|du)[ \t]+|d['’])?{_HONORIFIC_WORDS}{_NAME_RE})?")  # `Joana (mãe) e o Miguel`
_AND_NAMES = (rf"(?:[ \t]*(?:\([\"“'][^\"”'\n]{{1,20}}[\"”']\))?[ \t]*(?:,|{_AND})[ \t]+{_HONORIFIC_WORDS}{_NAME_RE}"
              rf"(?=[ \t]*(?:\n|$|[,;(\]])))?")  # a field line's list, `owners: Sam Whitfield, Priya Raman`,
# `donos: Joaquim Batalha ("Quim") e Fátima Lourenço`; not `Maren Østby, Head of Platform.`
_BOSS_PATTERN = re.compile(r"(?:老板|老闆|老師|老师)([\u3400-\u9fff]{2,3})(?=[（(，,。的]|$)")  # `老板王建国（…）`
# A memory written in lowercase: `im Volt, dave's openclaw`: a lowercase name after a comma or a dash
# (`document_context` keeps it when it is no stopword or lexicon word).
_LOWER_POSSESSIVE = re.compile(r"(?:(?<=[,;:—–])|(?<=[,;:—–][ \t]))([a-z][a-z-]{1,20})['’]s[ \t]+(?:[a-z][\w-]*[ \t]+)?"
                               r"(?:assistant|agent|helper|secretary|openclaw|claude|bot)\b")
# A line of the opening that starts on a full name and an adult's age: `Margaret Oduya, 71, retired …`
_OWNER_AGED = re.compile(rf"(?m)^[ \t>*_-]*{_HONORIFIC_WORDS}({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[*_]*[ \t]*[,(][ \t]*"
                         r"(?:1[89]|[2-9]\d|1[01]\d)(?!\d)")
# The opening's first line (after a `#` title) is a full name, a dash, then a description: `Tess Aldridge — freelance …`
_OWNER_LINE = re.compile(rf"(?:[ \t]*#[^\n]*\n)?\s*{_HONORIFIC_WORDS}({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[*_]*"
                         r"[ \t]*(?:[—–]|[ \t]-)[ \t]+[^\W\d_]")
# A body that opens on someone's full name and age ("Georg Feldmeier, 61. Seit 1988 im Betrieb"): a person's card.
# A body that opens on a full name, after a nickname and a dash: "Rafa — Rafaela Moura, minha namorada …".
_NAMED_OPENING = re.compile(rf"[ \t\n>*_-]*(?:{_CAP}[ \t]+[—–-][ \t]+)?({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[ \t]*[,(—–:]")


def _told_person(body: str, index: _Index) -> re.Match[str] | None:
    """The opening's full name (`_NAMED_OPENING`) when a kin or person word follows it within
    OPENING_WORDS + 2 words ("Rafaela Moura, minha namorada desde 2021"), else None."""
    m = _NAMED_OPENING.match(body)
    if m is None or any(w.casefold() in index.lists.organisation for w in m.group(1).split()):
        return None
    after = _WORD.findall(body[m.end() : m.end() + OPENING_CHARS].casefold())[: OPENING_WORDS + 2]
    return m if any(w in index.lists.kin or w in index.lists.person_words for w in after) else None


# A name and an age opening a body ("- Lena, 14, HLW Krems"): under a heading of a person's emoji (`👧👦`), who it is.
_AGED_NAME = re.compile(rf"[ \t\n>*_-]*({_CAP}(?:[ \t]+{_AND}[ \t]+{_CAP})?)[ \t]*[,(][ \t]*[1-9]\d?(?!\d|[/.:]\d)")
# A body that opens by speaking to the agent by name: "- sos Luna, me ayudás …", "You are Ada; you …".
_MARKS = " \t\n>*_-"  # a list item's marks before its text
_ADDRESSED = re.compile(r"[ \t\n>*_-]*(?i:you are|you're|du bist|tu es|tu és|eres|sos|você é|vous êtes)[ \t]+"
                        r"(?:(?i:the|a|o|la|el|der|die)[ \t]+)?([^\W\d_]+)")
_CARD_OPENING = re.compile(rf"[ \t\n>*_-]*{_HONORIFIC_WORDS}({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[*_]*[ \t]*[,(][ \t]*"
                           r"[1-9]\d?(?!\d|[/.:]\d)"  # not a date: "São Miguel, 12 a 19 de maio", "Porto, 3 de junho"
                           r"(?![ \t]*(?:[-–—]|a|à|al|to|until|bis|au|até)[ \t]*\d|[ \t]+(?:de|of|d')[ \t]*[^\W\d_])")
# The one who set the agent up for a relative: "Leanne set up on her dad's laptop", "Tom set up for his mum".
_SET_UP_FOR_KIN = re.compile(rf"{_NAME_RE}[ \t]+(?i:set[ \t]+up|sets[ \t]+up|installed|configured|made)[ \t]+"
                             rf"(?:[^\W\d_]+[ \t]+){{0,3}}?(?i:on|for)[ \t]+(?i:her|his|their)[ \t]+"
                             rf"(?i:dad|mum|mom|father|mother|parents|grand\w*|gran|nan|husband|wife|partner|son|daughter)\b")
_OWNER_PATTERNS = (
    re.compile(rf"(?:\bowners?|\bhumans?|\busers?|\bdon[oa]s?|\bpropietari[oa]s?|\bpropriétaires?|\bbesitzer(?:in)?|"
               rf"\binhaber(?:in)?|\bdueñ[oa]s?|\butilizador[a]?|\busuario|\bpour|\bpara|\bfür)[ \t]*[:=][ \t]*\[?"
               rf"{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAMES}", re.IGNORECASE),
    re.compile(rf"(?i:{_ASSISTANT_WORDS}|helper|agent|secretary|"
               rf"secretária|secretaria|sekretär(?:in)?)(?:[ \t]*\([^)\n]{{0,30}}\))?(?:[ \t]+[^\W\d_][\w/-]*){{0,4}}?[ \t]+(?:(?i:of|for|to|de|da|do|der|des|von|für|pour|para)"
               rf"[ \t]+|(?i:d)['’])(?i:the[ \t]+|la[ \t]+|el[ \t]+|o[ \t]+|a[ \t]+)?(?i:(?:casal|couple|família|familia|famille|family)[ \t]+)?"
               rf"{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}"),  # `assistente digital do casal Lúcia … e Evandro …`
    # `Hannah's assistant`, `Priya's agent`
    re.compile(rf"(?:^|(?<=[,;:—–\n])[ \t]*|(?i:\bi'm|\bi am|\bas)[ \t]+){_NAME_RE}['’]s[ \t]+"
               rf"(?:[^\W\d_][\w-]*[ \t]+)?(?i:assistant|agent|helper|secretary|openclaw|claude|bot)\b", re.MULTILINE),  # not `Unlike Apple's assistant`
    _LOWER_POSSESSIVE,
    # the one who set the agent up: "the assistant Aniket Joshi set up", "la asistente que Luz Adriana Gómez armó"
    re.compile(rf"(?i:{_ASSISTANT_WORDS}|agent|agente|helper|bot)[ \t]+"
               rf"(?:(?i:that|who|que|qui)[ \t]+)?(?:(?i:o|a|el|la)[ \t]+)?{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}[ \t]+"
               rf"(?i:set[ \t]+up|sets[ \t]+up|made|built|created|configured|installed|trained|hired|"
               rf"armó|creó|configuró|montó|instaló|contrató|criou|configurou|montou|instalou|contratou|"
               rf"a[ \t]+(?:créé|configuré|installé|monté))(?!\w)"),
    # whom the agent helps: "Rivet is the agent that helps Marcus Lindqvist", "el asistente que ayuda a Nora Gil"
    re.compile(rf"(?i:{_ASSISTANT_WORDS}|agent|agente|helper|bot)[ \t]+"
               rf"(?i:that|who|que|qui|der|die)[ \t]+(?i:helps|serves|works[ \t]+for|assists|supports|looks[ \t]+after|"
               rf"ayuda[ \t]+a|sirve[ \t]+a|trabaja[ \t]+para|ajuda[ \t]+(?:a|o)?|serve[ \t]+(?:a|o)?|trabalha[ \t]+para|"
               rf"aide|sert|travaille[ \t]+pour|hilft|unterstützt|arbeitet[ \t]+für)[ \t]+"
               rf"(?:(?i:the|la|el|o|a)[ \t]+)?{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}"),
    # whom the agent looks after, said by the agent: "The bloke I look after is Colin Fairweather", "I look after Dana"
    re.compile(rf"(?i:\bi[ \t]+(?:look[ \t]+after|work[ \t]+for|help|assist)(?:[ \t]+is)?)[ \t]+"
               rf"(?:(?i:is|the|la|el|o|a)[ \t]+)?{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}"),
    # whose notebook the title says: "# MEMORY — Col's notebook", "# Dana's memory"
    re.compile(rf"(?m)^#[ \t]+[^\n]*?{_NAME_RE}['’]s[ \t]+(?i:notebook|notes|memory|memories|file|journal|diary)\b"),
    # whose notes the agent keeps: "Notes Claude keeps for Theo Brandt", "a memory maintained for Dana Levy"
    re.compile(rf"(?i:\bkeeps|\bkeep|\bkept|\bmaintains|\bmaintained|\bwrites|\bwritten)[ \t]+"
               rf"(?:(?i:this|it|this file|this memory|these notes)[ \t]+)?(?i:for)[ \t]+"  # `Wren keeps this for Niamh …`
               rf"{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}"),
    # "I serve …": `Sirvo a Joana Ferreira e o Miguel Antunes`, `I work for Dana`, `Ich arbeite für Thomas`.
    re.compile(rf"(?i:\bi serve|\bi work for|\byou work for|\byou serve|\bsirvo(?:[ \t]+(?:sobre[ \t]+todo|sobretudo|principalmente))?(?:[ \t]+(?:a|al|à|o))?|\btrabajo para|\btrabajas para|"
               rf"\btrabalho pa?ra|\btrabalhas pa?ra|\btrabalha pa?ra|\bje travaille pour|\btu travailles pour|\bvous travaillez pour|"
               rf"\bich arbeite für|\bdu arbeitest für)[ \t]+(?i:the[ \t]+|la[ \t]+|el[ \t]+|o[ \t]+|a[ \t]+)?{_HONORIFIC_WORDS}{_NAME_RE}{_AND_NAME}"),
    # `주인은 대표 겸 PD 정다은님`: the owner, after up to three words of title
    re.compile(r"(?:주인|오너|사용자)[은는이가:][ \t]*(?:\S+[ \t]+){0,3}?([\uac00-\ud7af]{2,4})[ \t]*(?:님|씨)"),
    # The owner's spouse, named so in the opening, is one of the humans served (LABELS.md: the couple -> identity):
    # "Her husband is Luc Moreau", "avec son mari Julien".
    re.compile(rf"(?i:her|his|their|sua|seu|su|son|sa|ihr|ihre|sein|seine)[ \t]+(?i:husband|wife|spouse|marido|esposa|esposo|"
               rf"mulher|mari|femme|épouse|ehemann|ehefrau|mann|frau)[ \t]*,?[ \t]+(?i:is[ \t]+|é[ \t]+|es[ \t]+|est[ \t]+|ist[ \t]+)?"
               rf"{_NAME_RE}"),
    # `周雨桐的写作助手`, `王淑芬老师的手机助手`: the name, maybe with a title
    re.compile(r"(?:(?<![\u3400-\u9fff])|(?<=[是为為给給帮幫替]))([\u3400-\u9fff]{2,4}?)(?:老师|老師|先生|女士)?"
               r"(?:（[^）]{0,20}）|\([^)]{0,20}\))?的[\u3400-\u9fff]{0,4}(?:助手|助理|秘书|秘書)"),
    # the owner after the agent's bracketed role: "Loupiote (l'agent IA, c'est moi) pour Théo Marchand"
    re.compile(rf"[(（][^)）\n]{{0,40}}(?i:assistant|assistante|assistente|asistente|assistent|assistenz|agent|agente|bot)[^)）\n]{{0,30}}[)）]"
               rf"[ \t]+(?i:pour|for|para|für)[ \t]+(?i:(?:the|la|el|o|a|le)[ \t]+)?{_HONORIFIC_WORDS}{_NAME_RE}"),
    _BOSS_PATTERN,
    # the writer and their pen name: `知夏（笔名「南枝」）`, "Claire Morvan (pen name C. M. Lune)": the owner
    re.compile(r"(?<![\u3400-\u9fff])([\u3400-\u9fff]{2,4})[ \t]*[（(][ \t]*(?:笔名|筆名|ペンネーム|필명)"),
    re.compile(rf"{_NAME_RE}[ \t]*\([ \t]*(?i:pen[ \t]+name|pseudonym|nom[ \t]+de[ \t]+plume|seudónimo|pseudónimo|pseudônimo)"),
    re.compile(r"(?:服务于?|服務於?|为|為|服务对象是|服務對象是)(?:老板|老闆)?([\u3400-\u9fff]{2,3})(?=[，,。、（(]|$|服务|服務)"),  # `服务老板陈志远`
    re.compile(r"(?:替|帮|幫)([\u3400-\u9fff]{2,3}?)(?=记|記|整理|写|寫|打理|处理|處理|管理)"),  # `我（小瓷）替周蔓记的长期笔记`
    re.compile(r"([\u3040-\u30ff\u3400-\u9fff]{2,6})(?:さん|様)?の(?:アシスタント|秘書|助手)"),
    # `森下ハルカ（個人サークル「つきみ堂」、札幌）のゲーム開発を手伝っている`: whose work the agent helps with
    re.compile(r"(?<![\u3040-\u30ff\u3400-\u9fff])([\u30a0-\u30ff\u3400-\u9fff]{2,8}?)(?:さん|様)?(?:（[^）]{0,40}）|\([^)]{0,40}\))?"
               r"の[^。\n]{0,20}?を手伝"),
    # `依頼主は 森本拓也（父・42）と 森本由紀（母・39）`, `主に佐藤美穂さん（母）から依頼を受け`
    # (`オーナーは 佐伯 拓海 (さえき たくみ)`: a family name, a space, a given name)
    re.compile(r"(?:依頼主|利用者|ユーザー|オーナー)[ \t]*(?:は|:|：)[ \t]*([\u3400-\u9fff]{2,6}?(?:[ \t\u3000][\u3400-\u9fff]{1,3})?)"
               r"(?:さん|様)?(?:（[^）]{0,20}）)?"
               r"(?:[ \t]*(?:と|、)[ \t]*([\u3400-\u9fff]{2,6}?)(?:さん|様)?(?:（[^）]{0,20}）)?)?(?=[ \t。、，,（]|$)"),
    re.compile(r"([\u3400-\u9fff]{2,6}?)(?:さん|様)(?:（[^）]{0,20}）)?から(?:の)?依頼"),
    # `遥さん（個人ゲーム開発者）の専属アシスタント`: a one-character given name is kept with its honorific
    re.compile(r"([\u3400-\u9fff]{1,4}(?:さん|様))(?:（[^）]{0,60}）|\([^)]{0,60}\))?の(?:専属の?)?"
               r"(?:アシスタント|秘書|助手)"),
    re.compile(r"([\uac00-\ud7af]{2,4})(?:\([^)]{0,40}\))?[ \t]*(?:님|씨)의"),
    re.compile(r"(?<![\uac00-\ud7af])([\uac00-\ud7af]{2,4})(?:\([^)]{0,40}\))?의[ \t]*(?:AI[ \t]*)?(?:비서|어시스턴트|에이전트)"),
    re.compile(r"(?<![\uac00-\ud7af])([\uac00-\ud7af]{2,4})[ \t]*(?:님|씨)(?:을|를)[ \t]*(?:돕|도와|위해)"),  # `한지원 님을 돕는`
    # the agent's name, a comma, then whose assistant: `나는 Bori, Sue 비서`, `저는 다람, 수진 님의 AI 비서입니다`
    re.compile(rf"(?:나는|저는)[ \t]*[^,\s]+[ \t]*,[ \t]*({_CAP}|[\uac00-\ud7af]{{2,4}}?)[ \t]*(?:님|씨)?(?:의)?[ \t]*"
               r"(?:AI[ \t]*|개인[ \t]*)?(?:비서|어시스턴트|에이전트)"),
    # `佐伯 美咲（Misaki Saeki）さんのために`, `森下ゆかり（ペンネーム「もりゆ」）の長期メモリ`
    re.compile(r"(?<![\u3040-\u30ff\u3400-\u9fff])([\u3400-\u9fff]{1,3}[ \t\u3000]?[\u3040-\u309f\u3400-\u9fff]{1,4}?)(?:（[^）]{0,30}）|\([^)]{0,30}\))?"
               r"(?:さん|様)?(?:のために|の長期メモ|の長期記憶|のメモリ)"),
    # a couple: `박정훈(아빠, 44)·김소연(엄마, 41) 부부의 가족 비서`, `王磊和刘芳夫妇的助手`
    re.compile(r"(?<![\uac00-\ud7af])([\uac00-\ud7af]{2,4}?)(?:[ \t]*\([^)]{0,40}\))?[ \t]*(?:님|씨)?(?:·|,|、|와|과|및)[ \t]*"
               r"([\uac00-\ud7af]{2,4}?)(?:[ \t]*\([^)]{0,40}\))?[ \t]*(?:님|씨)?[ \t]*(?:부부|내외)"),  # `고영수 님과 부순자 님 내외분`
    re.compile(r"(?<![\u3400-\u9fff])([\u3400-\u9fff]{2,4}?)(?:（[^）]{0,20}）|\([^)]{0,20}\))?[和与與、·]"
               r"([\u3400-\u9fff]{2,4}?)(?:（[^）]{0,20}）|\([^)]{0,20}\))?夫[妇婦妻]"),  # `정하윤 님의`, `한서윤(Seoyun Han)님의`
    # `서하린 작가(필명 하린)의 작업 비서`: the owner by name and title; the title with 님 names the owner too
    re.compile(r"([\uac00-\ud7af]{2,4})[ \t]+((?:작가|대표|교수|선생|원장|사장|팀장))[ \t]*(?:님)?(?:\([^)]{0,40}\))?의[ \t]*"
               r"(?:\S+[ \t]+){0,2}?(?:비서|어시스턴트|보조|에이전트|기억|메모)"),  # `한도윤 작가의 기억 파일`: whose memory
    re.compile(r"(?i)(?<!\w)(?:owner|user|human)[ \t]*[:=][ \t]*([\u3400-\u9fff\uac00-\ud7af]{1,4}(?:[ \t][\u3400-\u9fff\uac00-\ud7af]{1,3})?)"
               rf"(?:[ \t]*[(（]{_NAME_RE}[)）])?"),  # `owner: 森下 遥 (Haruka Morishita)`
)
_ME_MARK = re.compile(r"[(（][ \t]*(?:me|eu|yo|ich|moi|我|私|나|저)[ \t]*[)）]", re.IGNORECASE)
# A heading about the one who says "I": `Who I am`, `Wer ich bin`, `Qui je suis`, `关于我`, `私について`, `나에 대해`.
_SELF = re.compile(r"^\W*(?:(?:who i am|about me|about myself|how i work|wer ich bin|über mich|wie ich arbeite|"
                   r"qui je suis|à propos de moi|comment je travaille|quién soy|sobre mí|cómo trabajo|quem sou|"
                   r"sobre mim|como trabalho|what i (?:don't |do not )?do|lo que (?:no )?hago|o que (?:não )?faço|"
                   r"ce que je (?:ne )?fais|was ich (?:nicht )?(?:mache|tue))(?![^\W\d_])|关于我|我是谁|自我介绍|私について|私のこと|自己紹介|나에 대해|"
                   r"나에 대하여|나는 누구|자기소개)", re.IGNORECASE)
# A heading that is only "we" or "about us": the household or the couple the agent serves (LABELS.md: the owners
# -> identity): `Wir`, `Nós`, `Nosotros`, `Über uns`, `Quem somos`, `我们`, `私たち`, `우리`.
_WE = re.compile(r"^\W*(?:(?:we|us|about us|who we are|wir|über uns|wer wir sind|nous|à propos de nous|qui sommes-nous|"
                 r"nosotros|nosotras|sobre nosotros|quiénes somos|nós|sobre nós|quem somos)(?![^\W\d_])|我们|我們|关于我们|"
                 r"關於我們|私たち|私たちについて|우리|우리에 대해)\W*$", re.IGNORECASE)
_EMPHASIS = re.compile(r"\*\*|__|[*`]")  # `**Rafael Nogueira**`: the name without its Markdown
_ABOUT = re.compile(r"^\W*(?:about|sobre|über|à propos de|a propos de|关于|關於)[ \t]+(?:(?:a|o|la|el)[ \t]+)?"
                    r"(\S+(?:[ \t]+\S+)?)\W*$", re.IGNORECASE)
_ME = re.compile(rf"{_NAME_RE}[ \t]*\((?:me|eu|yo|ich|moi|我|私)\)", re.IGNORECASE)
_PUNCTUATION = ".,;:!?()[]{}<>\"'`*_~#|/\\«»“”‘’…—–-"
_KO_TITLES = frozenset({"작가", "대표", "교수", "선생", "원장", "사장", "팀장"})
_NAME_LINKS = frozenset({"de", "del", "do", "da", "dos", "das", "des", "du", "of", "the", "&", "+", "und", "e", "y",
                         "et", "von", "van", "la", "le"})
_NOT_NAMES = frozenset({
    "ag", "the", "team", "lab", "family", "família", "familia", "familie", "famille", "household", "company",
    "me", "mim", "mí", "mich", "moi", "us", "my", "user", "owner", "human", "assistant", "assistente", "asistente",
    "assistante", "assistent", "dona", "don", "doña", "seu", "senhor", "senhora", "señor", "señora",
})


def document_context(preamble: str, sections: Sequence[SectionInput], config: Config) -> Context:
    """What the document says about itself (Context): the owner's and the agent's names from the
    preamble ("You are Ada, …", "Owner: …", "the assistant of …"), a `… (me)` heading and an
    `About <name>` heading; the Western languages its text shows (its stopwords); whether it is a
    novelist's memory (the lexicon's `fiction` words in the preamble or headings).  Pure."""
    lists = _lists()  # the stopwords and fiction words: no keyword index needed
    owner: set[str] = set()
    agent: set[str] = set()
    opening = _EMPHASIS.sub("", preamble[:4000])
    lowercase = opening == opening.lower() and opening != opening.upper()
    if lowercase:
        opening = opening.title()  # `you are robin, assistant for frank delaney`: a lowercase memory's names
    agent_voice = False

    def named(name: str) -> set[str]:
        words = _name_words(name)  # in a lowercase memory every word was capitalised: no stopword or
        if lowercase and any(w in lists.stopword_set or w in lists.written for w in words):  # lexicon word
            return set()  # is a name (`i'm here to help`, `i work for acme corp and …`)
        return words

    introduced: set[str] = set()  # the names an "I am …" gives
    for pattern in _AGENT_PATTERNS:
        for m in pattern.finditer(opening):
            intro = _SELF_INTRO.match(m.group()) is not None
            if _PRODUCT_AGENT.match(opening, m.end(1)) is None:  # not `Ich bin der Claude-Code-Agent`: a product
                names = named(m.group(1))
                agent |= names
                if intro:
                    introduced |= names
            agent_voice = agent_voice or intro
    mine = set().union(*(named(m.group(1)) for m in _MY_AGENT.finditer(opening)))
    if mine and introduced - mine:  # "I am Lena Hoffmann … My agent is called Kestrel": the owner says I
        agent = (agent - introduced) | mine
        owner |= introduced - mine
        agent_voice = False
    for m in _AGENT_QUOTED.finditer(opening):
        agent |= named(m.group(1))
    for m in _AGENT_FIELD.finditer(opening):
        agent |= _name_words(m.group(1), field=True) if not lowercase else named(m.group(1))
    titled = set().union(*(_name_words(m.group(1)) for m in _TITLE_AGENT.finditer(opening[:400])
                           if m.group(1).split()[0].casefold() not in lists.households | lists.workplaces))  # `# MEMÓRIA — Casa Ferreira`
    agent_voice = (agent_voice or _SELF_ASSISTANT.search(opening) is not None) and not _SECOND_PERSON.search(opening)
    for pattern in _OWNER_PATTERNS:
        for m in pattern.finditer(opening):
            for name in m.groups():
                if name in _KO_TITLES:  # `서하린 작가(…)의 비서`: the owner is also `작가님` to the agent
                    owner.add(name + "님")
                elif name:  # `서하린 작가`: the name, not the title any writer has
                    if pattern is _BOSS_PATTERN and name[0] not in lists.surnames:
                        continue  # `给老板打电话`: a verb after 老板, not a name
                    if name.split()[0].casefold() in lists.workplaces:
                        continue  # `a assistente da Clínica Sorriso Vivo`: the business, not its owner
                    if pattern is _LOWER_POSSESSIVE:
                        if name not in lists.stopword_set and name not in lists.written:
                            owner |= _name_words(name, field=True)
                        continue
                    owner |= named(name)
    for m in _SET_UP_FOR_KIN.finditer(opening):  # "the assistant Leanne set up on her dad's laptop": the setter is
        owner -= named(m.group(1))  # a relative of the owner, who is named elsewhere ("The bloke I look after is …")
    title_owner = _TITLE_OWNER_CJK.match(opening)
    if title_owner is not None and title_owner.group(1)[0] in lists.surnames:
        owner.add(title_owner.group(1))
    stated = frozenset(owner)  # the owner as the opening states it
    headings: list[str] = []
    samples: list[str] = [preamble[:2000]]
    about: list[str] = []
    for s in sections:  # one read of each: a section's body may be made as it is asked for (plan.py)
        heading = s.heading
        headings.append(heading)
        samples.append(s.body[:LANGUAGE_SAMPLE])
        me = _ME.search(heading) if "(" in heading else None
        if me:
            owner |= _name_words(me.group(1))
        found = _ABOUT.match(heading) if not about else None
        if found:
            about.append(found.group(1))
    if about and not owner:  # the first `About X` names the owner when nothing else did
        owner |= _name_words(about[0])
    if not owner:  # nor that: a line of the opening that starts on an adult's full name and age
        adult = _OWNER_AGED.search(opening)  # ("Margaret Oduya, 71, retired teacher") is about the owner
        if adult is not None:
            owner |= named(adult.group(1))
    if not owner:  # nor that: the opening's first line is a full name, a dash, then who they are
        line = _OWNER_LINE.match(opening)  # ("tess aldridge — freelance translator, berlin")
        if line is not None and not any(w.casefold() in lists.written or w.casefold() in lists.organisation
                                        for w in line.group(1).split()):
            owner |= named(line.group(1))
    if not agent:  # `# Mémoire — Julien` names the agent only when no field or sentence names it,
        agent = titled - stated  # and never the owner (`Owner: Julien Marchetti` ... `Agent: "Hugo"`)
    owner -= agent
    # whitespace-split tokens, stripped of punctuation: a regex over every body cost more than the rest
    tokens = Counter("\n".join(samples + headings).split())
    vocabulary: set[str] = set()
    counts: dict[str, int] = {}
    stopwords = lists.stopwords
    for token, n in tokens.items():
        if not token[0].islower():  # a capitalised word is neither a stopword we count nor lowercase vocabulary
            continue
        w = token.rstrip(_PUNCTUATION)
        if w:
            vocabulary.add(w)
            for code in stopwords.get(w, ()):
                counts[code] = counts.get(code, 0) + n
    total = sum(counts.values())
    languages = {"en"} | {c for c, n in counts.items() if n >= LANGUAGE_MIN and n >= LANGUAGE_SHARE * total}
    given_names, aged = _names_written_elsewhere({h.strip() for h in headings}, samples, lists)
    return Context(frozenset(owner), frozenset(agent), frozenset(languages),
                   _is_fiction("\n".join([preamble[:4000], *headings]), lists),
                   None, frozenset(vocabulary), agent_voice,
                   _is_fiction(preamble[:4000], lists) and _WRITER.search(preamble[:4000]) is not None,
                   given_names, aged, len(headings) >= 3 and 2 * sum(h.isupper() for h in headings) > len(headings))


_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]{3,}")
# What follows a name with an age: " (9", ", 6", " (초2".  Found by its punctuation, the blanks before it then
# stepped over (`_words_before_ages`): led by `[ \t]*`, the pattern was tried at every character (~10x the time).
_AGE_MARK = re.compile(r"[(（,][ \t]*(?:[초중고小中]|[0-9])")
_LAST_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]++$")  # from a word start: one try per word
_SURNAME_AFTER = re.compile(rf"[ \t]+([{_UPPER}][{_LOWER}]+)")  # "Jana| Petersen"


@functools.cache
def _kin_before_name() -> re.Pattern[str]:
    """The CJK kin words of every lexicon (`딸`, `孙子`), longest first: what may stand before a name."""
    words = sorted({w for w in _lists().kin if has_cjk(w)}, key=lambda w: (-len(w), w))
    return re.compile("|".join(map(re.escape, words)) or r"(?!)")


def _names_written_elsewhere(headings: set[str], samples: list[str], lists: _Lists,
                             ) -> tuple[frozenset[str], frozenset[str]]:
    """(given names, names with an age): the headings the document's text (`samples`: the opening and
    each body's start) shows to be a person's name, each found in one pass over the text.

    Given names: a heading of two Han or Hangul characters (a Korean child's with 이: `도현이`) the text
    writes after a family name (`## 子轩` and "孙子王子轩，12岁", `박도현(초4)`: a Korean name starts a word),
    a CJK heading of one to three characters it writes after a kin word (`## 하린` and "딸 하린(6살)"), a
    one-word name heading it writes with a surname (`## Jana` and "Jana Petersen (Team Lead)").
    Names with an age: a one-word heading it writes before an age ("Éloïse (9 ans", "Tomás, 6 anos",
    "지우 (초2")."""
    forms = {h: _given_form(h) for h in headings}
    cjk_given = {h: g for h, g in forms.items() if g is not None}
    singles = {h for h in headings if _is_single_name(h)}
    if not cjk_given and not singles:
        return frozenset(), frozenset()
    text = "\n".join(samples)
    after_surname: set[str] = set()  # what follows a family name: `王子轩` -> 子轩, 子轩x
    for run in _CJK_RUN.finditer(text) if cjk_given else ():  # (read only for a heading that may be a given name)
        word, hangul = run.group(), _HANGUL.match(run.group()) is not None
        for i in range(0, 1 if hangul else len(word) - 2):
            if word[i] in lists.surnames:
                after_surname.add(word[i + 1 : i + 3])
    given = {h for h, g in cjk_given.items() if g in after_surname}
    aged: set[str] = set()
    if singles - given:  # the word before each age mark (one scan for the rare mark, not a regex per word)
        aged = (singles - given) & _words_before_ages(text)
    rest = headings - given - aged
    if any(1 <= len(h) <= 3 and all(_CJK_CHAR.match(ch) for ch in h) for h in rest):
        following = [text[m.end():m.end() + 4].lstrip() for m in _kin_before_name().finditer(text)]
        given |= {h for h in rest if 1 <= len(h) <= 3 and all(_CJK_CHAR.match(ch) for ch in h)
                  and any(f.startswith(h) for f in following)}
    latin = {h for h in rest if len(h) >= 3 and h.isalpha() and h[0].isupper() and h[1:].islower()
             and h.casefold() not in lists.written}
    for h in sorted(latin):
        if _with_surname(text, h, lists):
            given.add(h)
    return frozenset(given), frozenset(aged)


def _words_before_ages(text: str) -> set[str]:
    """The word right before each age mark (`_AGE_MARK`) of `text`, blanks between them allowed:
    `Éloïse` of "Éloïse (9 ans", `Tomás` of "Tomás, 6 anos"; a word within the 40 characters before
    the blanks."""
    words: set[str] = set()
    for m in _AGE_MARK.finditer(text):
        end = m.start()
        while end > 0 and text[end - 1] in " \t":  # the blanks before the mark are not the word
            end -= 1
        word = _LAST_WORD.search(text, max(0, end - 40), end)
        if word is not None:
            words.add(word.group())
    return words


def _with_surname(text: str, name: str, lists: _Lists) -> bool:
    """Whether `text` writes the word `name` followed by a capitalised word that is no stopword or
    lexicon word (a surname: "Jana Petersen", not "Jana Team")."""
    at = text.find(name)
    while at >= 0:
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
            after = _SURNAME_AFTER.match(text, at + len(name))
            if after is not None:
                word = after.group(1).casefold()
                if word not in lists.stopword_set and word not in lists.written:
                    return True
        at = text.find(name, at + 1)
    return False


def _is_single_name(heading: str) -> bool:
    """Whether `heading` is one capitalised word (`Éloïse`) or one to three CJK characters (`지우`)."""
    if 1 <= len(heading) <= 3 and all(_CJK_CHAR.match(ch) for ch in heading):
        return True
    return len(heading) >= 2 and heading.isalpha() and heading[0].isupper() and heading[1:].islower()


def _given_form(heading: str) -> str | None:
    """The given name a heading may be: two Han characters (`子轩`), or two Hangul syllables, maybe
    with the suffix 이 (`도현`, `도현이`); None for any other heading, and for two Han characters that end
    as an organisation's name does (the CJK lexicons' `companies` characters: 農會 after 鄉 in "鹿谷鄉農會" is
    no given name)."""
    if len(heading) == 2 and all(_HAN.match(ch) for ch in heading):
        return None if heading[1] in _lists().cjk_org_ends else heading
    if 2 <= len(heading) <= 3 and all(_HANGUL.match(ch) for ch in heading) and (len(heading) == 2 or heading[2] == "이"):
        return heading[:2]
    return None


_KANJI_THEN_KATAKANA = re.compile(r"[\u3400-\u9fff]{1,3}([\u30a0-\u30ff]{2,})")


def _name_words(name: str, field: bool = False) -> set[str]:
    """The words of a personal name that identify it in a heading (casefolded; CJK kept whole, and a
    Chinese or Korean name of three characters also by its given name: 周雨桐 -> 雨桐, 김서연 -> 서연;
    `森下 遥` by both parts joined).  A `field` value (`agent: hachi`) may be written in lowercase."""
    name = name.strip()
    if name in _lists().cjk_companies:  # `owner: 株式会社ソラノート SRE チーム`: a company, not a person
        return set()
    if has_cjk(name):
        compact = "".join(name.split())
        out = {compact}
        if len(compact) == 4 and " " not in name and not _HANGUL.search(compact) and compact[:2] in _lists().surnames:
            out.add(compact[2:])  # 森本拓也 is 拓也 (さん) to the family
        if len(compact) == 3 and " " not in name and all(_CJK_CHAR.match(ch) for ch in compact):
            out.add(compact[1:])
            if not _HANGUL.search(compact) and compact[0] in _lists().surnames:  # 陈志远 is 陈总, 陈老板, 老陈
                out.update((compact[0] + "总", compact[0] + "老板", compact[0] + "董", "老" + compact[0],
                            compact[0] + "老师", compact[0] + "老師", "阿" + compact[2]))  # 王淑芬 is 王老师 too;
                # 林振雄 is 阿雄 (Taiwan's 阿 and the last character of the given name)
        parts = name.split()
        if len(parts) == 2 and len(parts[1]) >= 2:
            out.add(parts[1])
        katakana = _KANJI_THEN_KATAKANA.fullmatch(compact)
        if katakana:  # 森下ハルカ is ハルカ (さん) too: a family name in kanji, a given name in katakana
            out.add(katakana.group(1))
        return out
    return {w.casefold() for w in _WORD.findall(name) if len(w) > 1 and w.casefold() not in _NOT_NAMES
            and w.casefold() not in _PARTICLES and (field or w[0].isupper())}  # (`Claire Le Goff`: not `Le cabinet`)


def _count_words(words: Iterable[str], index: _Index, counts: dict[str, int]) -> None:
    """Add the distinct stopwords among `words` (casefolded) per language to `counts`."""
    for w in index.lists.stopword_set.intersection(words):
        for code in index.lists.stopwords[w]:
            counts[code] = counts.get(code, 0) + 1


def _is_fiction(text: str, lists: _Lists) -> bool:
    lowered = text.casefold()
    return not lists.fiction_words.isdisjoint(_WORD.findall(lowered)) or any(
        s in lowered for s in lists.fiction_substrings)


def _section_languages(words: list[str], index: _Index, context: Context) -> frozenset[str]:
    """The document's languages plus any a section's own words (casefolded) show (SECTION_LANGUAGE_MIN
    distinct stopwords)."""
    counts: dict[str, int] = {}
    _count_words(words, index, counts)
    extra = {c for c, n in counts.items() if n >= SECTION_LANGUAGE_MIN and c not in context.languages}
    return context.languages | extra if extra else context.languages


# A handle (`@zmrk`, `hollyhock-dev`, `tgwynn`): an @-name, or one lowercase token; and a body that opens on a full
# name, then a break ("Priti Sharma. Co-maintainer since 2022"): the handle's owner, a person's card
_HANDLE = re.compile(r"@[\w.-]{2,39}|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")
_FULL_NAME_OPENING = re.compile(rf"[ \t*_-]*({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[ \t]*(?:[.,;—–(:]|[ \t]-[ \t])")
_INITIALS_SPELLED = re.compile(rf"[ \t*_-]*({_CAP}(?:[ \t]+{_CAP}){{0,2}})[ \t]*[,—–(:]")  # the initials' name, spelled out
_TITLED_NAME = re.compile(rf"(?<!\w)(?:Prof|Dr|Dra|Sr|Sra|Srta|Mr|Mrs|Ms|Mx|Herr|Frau|Mme|Mlle)\.?[ \t]+"
                          rf"(?:{_CAP}(?:[ \t]+{_CAP})?|[{_UPPER}]\.?(?![^\W\d_]))")  # `Dr. P` too
# The article Portuguese, Spanish, Catalan and French speech puts before a given name (`A Sofia (assistente de
# atelier)`, `O Rui`, `La Marta`): capitalised as a heading's first word, it is not part of the name.
_NAME_ARTICLES = frozenset({"A", "O", "La", "El", "Lo", "Le", "a", "o", "la", "el", "lo", "le"})  # (`Inês e o Tomás`)
_PARTICLES = frozenset({"de", "da", "do", "dos", "das", "van", "von", "der", "den", "la", "le", "di", "del", "du",
                        "e", "y", "bin", "ibn", "al"})
_DESCRIPTION = re.compile(r"\s*(?:\(|（|—|–|\s-\s|:|：|,|，|/)")


# Word endings of the lexicon languages, never a given name's: English `-ing`, `-ness`; Portuguese `-ções`,
# Spanish `-ción`, German `-ung`, `-heit`, French `-ité`.
_WORD_ENDINGS = ("ing", "ed", "tion", "sion", "ness", "ment", "ies", "ity", "ship", "ções", "ção", "ões", "ción",
                 "ciones", "dade", "idad", "ung", "ungen", "heit", "keit", "schaft", "ité")


_CJK_ABOUT = ("のメモ", "メモ", "について", "のこと", "에 대한 메모", "메모", "的笔记", "的筆記", "笔记", "筆記")


def _person_heading(heading: str, index: _Index, vocabulary: frozenset[str] = frozenset()) -> tuple[str, bool] | None:
    """(the name, whether an honorific marks it) when `heading` is a person's name, else None.

    A name: one to three capitalised words (particles such as `de`, `van` between them), after an
    optional honorific (`Dr.`, `Sra.`, `Tía`); or a CJK name: an honorific suffix (`さん`, `老师`,
    `선생님`) after one to five CJK characters, or two to four Han/Hangul characters that start with
    a family name of the lexicon's `surnames`.  A description after it (`Sr. Amadeu (canalizador)`,
    `Tomás — explicações`) is allowed.  A word the document also writes in lowercase
    (`vocabulary`: "Open Loops", "Lessons Learned") or with an English word ending is not a name.
    """
    core = _heading_core(heading)
    if not core or len(core) > 60:
        return None
    pair = _NAME_PAIR.split(core)
    if len(pair) == 2 and pair[0].strip() != pair[1].strip() and all(_person_heading(part, index, vocabulary) for part in pair):
        return core, False  # `Pedro & Sofia`, `Leonor e Tomás`: two people
    whole = heading.strip(" \t*_#>")  # `Sellers — Mrs. Okafor`: a role, a separator, then a titled name
    titled = _TITLED_NAME.search(core) or _TITLED_NAME.search(whole)  # `지도교수 Dr. Martínez`, `Notar Dr. Weber`
    if titled is not None and len(whole.split()) <= 5:
        return titled.group(), True
    if has_cjk(core):
        titled_ko = _KO_TITLED_NAME.match(core)  # `최지현 PD님`, `박 과장님`: a family name, a title, 님
        if titled_ko is not None and titled_ko.group(1)[0] in index.lists.surnames:
            return core, True
        compact = core.replace(" ", "").replace("\u3000", "")
        for about in _CJK_ABOUT:  # `佐々木さんメモ`, `王老师的笔记`: notes about the person
            if compact.endswith(about) and len(compact) > len(about) + 1:
                compact = core = compact[: -len(about)]
                break
        for suffix in index.lists.cjk_honorifics:
            if compact.endswith(suffix) and 1 <= len(compact) - len(suffix) <= 5 and all(
                    has_cjk(ch) for ch in compact[: -len(suffix)]):
                return core, True
            if core.endswith(suffix) and _LATIN_NAME.fullmatch(core[: -len(suffix)].strip()):
                return core, True  # `Priya さん`, `Tom 씨`: a Western name with a CJK honorific
        hangul_phrase = " " in core and _HANGUL.search(core) is not None  # `배운 것` is words; `박지훈` a name
        hangul = _HANGUL.search(compact) is not None  # a Korean full name has three syllables (`조교` is a TA)
        if (3 if hangul else 2) <= len(compact) <= 4 and all(_CJK_CHAR.match(ch) for ch in compact) and not hangul_phrase \
                and compact[-1] not in index.lists.cjk_org_ends:
            if compact[:2] in index.lists.surnames or compact[:1] in index.lists.surnames:
                return core, False
        if 2 <= len(compact) <= 3 and compact[0] == "阿" and all(_CJK_CHAR.match(ch) for ch in compact):
            return core, False  # 阿凯, 阿芳: a Chinese nickname
        if len(compact) == 2 and compact[0] == compact[1] and _CJK_CHAR.match(compact[0]) and not _HANGUL.match(compact):
            return core, False  # 朵朵, 远远: a child's doubled name
        if len(compact) == 2 and compact[0] in "老小" and compact[1] in index.lists.surnames:
            return core, False  # 老王, 小李: a surname with 老/小
        return None
    words = core.split()
    honorific = False
    if len(words) > 1 and words[0] in _NAME_ARTICLES:  # `A Sofia`, `O Rui`, `La Marta`: the article, then the name
        words = words[1:]
        core = " ".join(words)
    if len(words) > 1 and words[0].rstrip(".").casefold() in index.lists.honorifics:
        honorific = True
        words = words[1:]
    elif len(words) > 1 and words[-1].islower() and words[-1] in index.lists.honorifics:
        honorific = True  # `Meenakshi aunty`, `Sharma ji`: an honorific written after the name, in lowercase
        words = words[:-1]
    if not 1 <= len(words) <= 3 or words[0].casefold() in _PARTICLES or words[-1].casefold() in _PARTICLES:
        return None
    if len(words) == 1 and words[0].casefold() in index.lists.notes:
        return None  # `Notas`, `Notes`: the heading says it holds notes (the lexicons' `notes`), it names no one
    if any(w.rstrip(".,").casefold() in index.lists.organisation for w in words):
        return None  # `Harbourfront Keys Realty`, `Delgado & Pike LLP`: a company, not a person
    family = len(words) == 2 and words[0] == "The" and words[1].endswith("s")  # `The Ferreiras`: a family
    for w in words[1:] if family else words:
        if w.casefold() in _PARTICLES:
            continue
        if set(index.lists.stopwords.get(w.casefold(), ("en",))) - {"en"}:  # `Jeden Morgen`: German capitalises
            return None  # nouns too; (an English stopword may be a name: `Will`)
        letters = w.replace("-", "").replace("'", "").replace("’", "")
        if w.endswith(".") and not honorific:
            return None  # `Lic.`, `Ing.`: an abbreviated title, not a name
        if not (letters.isalpha() and w[0].isupper() and len(letters) > 1 and not letters.isupper()):
            return None
        low = w.lower()
        if not honorific and (low.endswith(_WORD_ENDINGS) or low in vocabulary
                              or (low.endswith("s") and (low[:-1] in vocabulary or low[:-2] in vocabulary))):
            return None
        if any(len(part) > 1 and part.isupper() for part in w.split("-")):
            return None  # `NF-e`, `CT-e`, `e-CAC`: an acronym with a hyphen, not `Jean-Pierre`
        if any(ch.isupper() for ch in letters[1:]) and "-" not in w:  # `McDonald` passes, `PhD` does not
            if not letters.startswith(("Mc", "Mac", "O")):
                return None
    return core, honorific


_LATIN_NAME = re.compile(rf"{_CAP}(?:[ \t]+{_CAP})?")
_KO_TITLED_NAME = re.compile(r"([\uac00-\ud7af]{1,4})[ \t]*(?:[A-Z]{1,4}|[\uac00-\ud7af]{1,3})[ \t]*님$")
_POSSESSIVE = frozenset({"my", "our", "mi", "mis", "nuestra", "nuestro", "mon", "ma", "notre", "mein", "meine",
                         "unser", "unsere", "meu", "minha", "nosso", "nossa", "o", "a", "la", "el", "le", "die", "der",
                         "the", "her", "his", "their", "os", "as", "los", "las", "les"})


_LEADING_MARKS = re.compile(r"^[^\w(（\[]+")
# An emoji of a person before a name (`👧 Amara`, `👵 Oma`), and a body that opens on an age ("- 11, Year 6"):
# cues that a name heading is a person
_PERSON_EMOJI = re.compile("[\U0001F466-\U0001F469\U0001F474-\U0001F476\U0001F9D1-\U0001F9D3\U0001F471\U0001F472\U0001F473"
                           "\U0001F478\U0001F934\U0001F470\U0001F930\U0001F931]")
_AGE_OPENING = re.compile(r"[ \t]*(?:[-*+][ \t]+)?(?:[1-9]|[1-9]\d)(?:[ \t]*(?:y/?o|yrs?|years? old|ans|años|anos|jahre|歳|岁|살))?[ \t]*[,;(—–]")


def _heading_core(heading: str) -> str:
    """A name heading without its description and marks: `Sr. Amadeu (canalizador)` -> `Sr. Amadeu`,
    `Mãe — Rosa` -> `Mãe`."""
    core = _DESCRIPTION.split(heading.strip(" \t*_#>"), maxsplit=1)[0].strip(" \t*_#>.")
    return _LEADING_MARKS.sub("", core)  # `💍 Emma & James Whitfield`: an emoji before the name is a mark


def _relative_heading(heading: str, index: _Index) -> str | None:
    """The kin word when `heading` is one relative (`Papa`, `My mom`, `Oma Helga`, `Mãe (Rosa)`, `老公`,
    `女儿远远`, `엄마`): the lexicons' `kin` word first (after a possessive or article), then at most
    two capitalised name words or a description; else None."""
    bracket = _BRACKETED.search(heading)
    if bracket is not None and bracket.group()[1:-1].strip().casefold() in index.lists.kin and _heading_core(heading):
        return bracket.group()[1:-1].strip()  # `由美子（妻）`, `Rosa (mãe)`: a name, and in brackets whose relative
    core = _heading_core(heading)
    marked = _CJK_KIN_MARK.match(core)
    if marked is not None and marked.group(1) in index.lists.kin:  # `娘・ひなた`, `妻：美香`: a kin word, a mark, a name
        return marked.group(1)
    pair = [p.strip().casefold() for p in _NAME_PAIR.split(core)]
    if len(pair) == 2 and all(p in index.lists.kin for p in pair):  # `Mamá y papá`, `Mum and Dad`, `Oma und Opa`
        return core.split()[0]
    core = "".join(ch for ch in core if ch.isalnum() or ch in " -'’").strip()
    if not core:
        return None
    if has_cjk(core):
        compact = core.replace(" ", "")
        compact = _CJK_MY.sub("", compact, count=1) or compact  # `우리 애들`, `我女儿`: whose relatives
        for n in range(min(len(compact), 5), 0, -1):
            if compact[:n] in index.lists.kin and len(compact) - n <= 3 and (n > 1 or len(compact) == 1):
                return compact[:n]
        for n in range(min(len(compact) - 1, 6), 1, -1):  # `節子ばあば`, `和子おばあちゃん`: a name, then the kin word
            if compact[-n:] in index.lists.kin and 1 <= len(compact) - n <= 3 and all(
                    _HAN.match(ch) for ch in compact[:-n]):
                return compact[-n:]
        return None
    words = core.split()
    if len(words) > 1 and words[0].casefold() in _POSSESSIVE:
        words = words[1:]
    for n in (2, 1):  # `grand-mère` is one word, `petit fils` two
        kin = " ".join(words[:n]).casefold()
        if len(words) >= n and kin in index.lists.kin:
            rest = words[n:]
            if len(rest) <= 2 and all(w[:1].isupper() for w in rest):
                return " ".join(words[:n])
    return None


_CJK_MY = re.compile(r"^(?:我的|我們的|我们的|我們|我们|我|私の|うちの|僕の|우리|내|제)?"  # `我太太…`: whose relative, and
                     r"(?:[一二兩两三四五六七八九十\d]+[個个位名人])?")  # how many (`兩個小孩一個大學一個高中`)
_CJK_PREDICATE = re.compile(r"[是要在會会去管很都不每已有住喜愛爱說说做帶带]|[はがも](?![\u30a0-\u30ff])|[는은이가도](?=[ \t])")  # a sentence's verb or subject mark
# A CJK sentence whose subject is a person by name: a Chinese nickname (阿明, 小黃; not a title: 老闆, 老師) before a
# verb, a Japanese name with an honorific and a particle (田中さんは), a Korean given name's 이 before a particle (혜진이는).
_CJK_NAMED_SUBJECT = re.compile(r"((?:[阿小][\u4e00-\u9fff]|老(?![闆板師师公婆])[\u4e00-\u9fff])"
                                r"(?:[跟和與与、][阿小老]?[\u4e00-\u9fff]{1,2})?)(?=[是要在會会都每已有住管負负])|"
                                r"([\u3040-\u30ff\u4e00-\u9fff]{1,4}(?:さん|ちゃん|くん|様))(?=[はがもに])|"
                                r"([\uac00-\ud7af]{2}이)(?=(?:는|가|도|한테)[ \t])")  # (not `원단이랑`: 이랑 is "and")
CJK_SENTENCE = 6  # CJK characters in a heading that is a sentence (`阿嬤每週三要去洗腎`), not a label (`阿嬤`)
_CJK_YOU = re.compile(r"^(?:你|您|あなたは|あなた|너는|너|당신은)")  # `你不可以自己回…`: the owner speaks to the agent
_CJK_KIN_MARK = re.compile(r"([\u3400-\u9fff\uac00-\ud7af]{1,3})[ \t]*[・·：:／/][ \t]*\S")
_NAME_POSSESSIVE = re.compile(rf"{_CAP}['’]s")  # `Maya's mom pays …`: whose relative


def _named_subject(section: SectionInput, index: _Index, context: Context) -> tuple[str, ...] | None:
    """(The name, the body's cues) when `section`'s heading is a Western sentence (five words or more) whose
    subject is a person's given name (`Nadja arbeitet 60 Prozent im Spital …`, `Theo is prepping for the SAT
    in March`: a capitalised word that is no lexicon word, stopword, organisation, kin word, day or month,
    before a lowercase word) and the body shows that person (it opens on the name, or names them again and
    describes a person); not the owner's or the agent's name.  None otherwise."""
    words = section.heading.split()
    if len(words) < 5 or PEOPLE_DOMAIN not in index.order or not words[1][:1].islower() \
            or words[1].casefold() in index.written or _TOPIC_SEPARATOR.search(section.heading):
        return None  # (`Bali trip — Sep hols`: a topic, a separator; "trip" is a noun the lexicon writes, no verb)
    first = words[0].strip(",:;")
    lowered = first.casefold()
    if not re.fullmatch(_CAP, first) or first.endswith("-") or lowered in index.lists.written or lowered in index.lists.stopword_set \
            or lowered in index.lists.organisation or lowered in index.lists.kin or lowered in _ASKING \
            or lowered in context.owner or lowered in context.agent or _CALENDAR_WORD.fullmatch(first):
        return None
    body = section.body[:BODY_CHARS]
    echo = _name_echo(first, body)
    if echo:
        return (first, *echo[:2])
    if re.search(rf"(?<!\w){re.escape(first)}(?!\w)", body):
        cues = _person_cues(body, index)
        return (first, *cues[:2]) if cues else None
    return None


def _relative_subject(heading: str, index: _Index) -> str | None:
    """The kin word a sentence heading (four words or more) opens on as its subject (`Mami braucht …`, `My mum
    needs a lift on Fridays`, `Maya's mom pays on the first`: a possessive allowed, then the kin word, then a lowercase word), else None; not a
    relative's thing (`Mum's hip operation …`: a possessive 's, the topic is the operation)."""
    if has_cjk(heading) and PEOPLE_DOMAIN in index.order:  # `我太太美玲管帳跟網購`, `阿嬤每週三要去洗腎`, `母は…`
        text = _CJK_MY.sub("", heading.strip())
        if len(text) >= CJK_SENTENCE:
            kin = next((text[:n] for n in range(min(len(text) - 2, 6), 0, -1) if text[:n] in index.lists.kin), None)
            if kin is not None and (len(kin) > 1 or not _HAN.match(text[1:2])) and _CJK_PREDICATE.search(
                    text, len(kin), len(kin) + 9):  # (`남편 최동수 씨는 …`, `妻の美代子さんが…`: a name between)
                return kin  # (not `父親節`: a compound; not `外婆房子出租合約`: no verb after the kin word, a label)
            named = _CJK_NAMED_SUBJECT.match(text)  # `阿明跟小黃是固定的工人`, `田中さんは火曜休み`, `혜진이는 화요일엔 안 나온다`
            if named is not None and kin is None:
                return next(g for g in named.groups() if g)
        return None
    words = heading.split()
    if len(words) > 2 and (words[0].casefold() in _POSSESSIVE or _NAME_POSSESSIVE.fullmatch(words[0])):
        words = words[1:]  # (`My mum needs …`, `Maya's mom pays …`)
    if len(words) < 4 or PEOPLE_DOMAIN not in index.order or not words[1][:1].islower():
        return None
    first = words[0].strip(",:;")
    return first if first.casefold() in index.lists.kin and "'" not in first and "’" not in first else None


# The owner's trade is writing: with a fiction word in the preamble, the memory is a novelist's (Context.novelist).
_WRITER = re.compile(r"(?i)(?<!\w)(?:novelist|writer|author|authoress|romanci(?:er|ère)|écrivaine?|autrice|auteure?|"
                     r"escritora?|novelista|autora?|romancista|schriftsteller(?:in)?|autor(?:in)?|romanautor(?:in)?)(?!\w)"
                     r"|(?<!\w)pen name(?!\w)|作家|作者|小说家|小說家|小説家|笔名|筆名|작가|소설가|필명|ペンネーム")
_CJK_POSSESSIVE = frozenset("的の의")
_DESCRIBED = re.compile(rf"[\"“'‘]?{_NAME_RE}[\"”'’]?(?:[ \t]+{_NICKNAME})?(?:[ \t]+{_CAP}){{0,2}}[ \t]*[,(—–:]")
_SECOND_PERSON_WORDS = frozenset({"you", "your", "du", "dein", "deine", "tu", "tú", "vous", "você", "usted", "vos", "te", "ti"})
# The words by which the one who says "I" names itself in a heading (the lexicons' identity words `^me`, `^eu` …)
_FIRST_PERSON_WORDS = frozenset({"i", "me", "my", "mine", "myself", "eu", "mim", "meu", "minha", "yo", "mí", "mi", "mis",
                                 "je", "moi", "mon", "ma", "mes", "ich", "mich", "mein", "meine", "我", "我的", "私", "私の",
                                 "나", "내", "저", "제"})


def _whose_name(body: str, context: Context, index: _Index) -> Classification | None:
    """identity (agents) when `body` opens on the owner's (the agent's) name: `## Vale` over "Valeria
    "Vale" Sosa, 44, odontóloga" is the owner under a nickname (issue 23: a heading naming the owner
    is identity, one naming the agent is agents).  Its first word, after an honorific, must be the
    name itself, not a possessive ("Claire's brother" is about someone else)."""
    opening = body.lstrip(" \t\n*_-#>")[:OPENING_CHARS]
    words = _WORD.findall(opening)[:2]
    if words and words[0].rstrip(".").casefold() in index.lists.honorifics:
        words = words[1:]
    for domain, names, role in (("identity", context.owner, "owner"), ("agents", context.agent, "agent")):
        if not names or domain not in index.order:
            continue
        if has_cjk(opening[:1]):
            name = next((n for n in sorted(names, key=lambda n: (-len(n), n)) if opening.startswith(n)
                         and opening[len(n) : len(n) + 1] not in _CJK_POSSESSIVE  # not 雨桐的编辑
                         and not any(opening.startswith(k, len(n)) for k in index.lists.cjk_kin)), None)  # nor 梅姐老公
        else:  # the name as a description's subject: "Sam, 38, …", "Valeria "Vale" Sosa, 44": not "Priya and Tom met …"
            name = words[0] if words and words[0].casefold() in names and _DESCRIBED.match(opening) and not re.match(
                rf"[\"“'‘]?{re.escape(words[0])}['’](?:s\b)?", opening) else None  # "Jens’ Frau, …": his wife
        if name is not None:
            return Classification(domain, "name", PREFIX_WEIGHT, (f"{name} ({role})",))
    return None


_PET_ROLES = frozenset({"walker", "sitter", "groomer", "instructor", "person", "roommate", "paseador", "paseadora",
                        "cuidadora", "cuidador", "promeneur", "gardien", "gardienne", "sitterin"})


def _pet(body: str, index: _Index) -> Classification | None:
    """personal when a name heading's body opens on a pet word (`## Fern` over "our 9-year-old
    collie", `## もち` over "猫、メス"): the owner's pet is private life, not a contact.  The opening
    is the first OPENING_CHARS characters; CJK pet words are found as substrings there."""
    if "personal" not in index.order or not index.lists.pets:
        return None
    opening = body[:OPENING_CHARS].casefold()
    wider = _WORD.findall(opening)[: 2 * OPENING_WORDS]
    words = wider[:OPENING_WORDS]
    if any(w in index.lists.person_words or w in index.lists.kin or w in _PET_ROLES for w in wider):
        return None  # `Dog walker, Tuesdays`, `Cat person, college roommate`: a person
    found = [w for w in words if w in index.lists.pets] or [w for w in index.lists.pet_substrings if w in opening]
    return Classification("personal", "name", PREFIX_WEIGHT, (found[0],)) if found else None


def _name_echo(name: str, body: str) -> list[str]:
    """The body's opening words when it opens on the heading's name (`## Tom` over "Tom Vance —
    associate"; `## Martín` over "Martín alquila el sillón 2"): one cue that the body describes
    that person, two when a surname follows the name.  [] otherwise."""
    first = name.split()[-1] if name.split() else ""
    words = _WORD.findall(body[:OPENING_CHARS])
    if not first or not words or has_cjk(first):
        return []
    if words[0].casefold() != first.casefold():  # `## Caro` over "Carolina Duarte, 27": a short form
        short = len(first) >= 3 and words[0].casefold().startswith(first.casefold()) and words[0][:1].isupper()
        if short and len(words) > 1 and words[1][:1].isupper() and not words[1].isupper():
            return [f"{words[0]} {words[1]}", words[0]]
        return []
    if len(words) > 1 and words[1][:1].isupper() and not words[1].isupper():
        return [f"{words[0]} {words[1]}", words[0]]
    return [words[0]]


def _family_name(name: str, body: str) -> str | None:
    """The family name when `name` is an English family by its plural (`The Ferreiras`, `the Okafors`,
    `The Joneses`) and `body` writes that name capitalised in its opening (BODY_CHARS); else None."""
    words = name.split()
    if len(words) != 2 or words[0].casefold() != "the" or not words[1].endswith("s"):
        return None
    found = set(_WORD.findall(body[:BODY_CHARS]))
    for family in (words[1][:-1], words[1][:-2] if words[1].endswith("es") else ""):
        if len(family) >= 3 and family in found:
            return family
    return None


def _cjk_full_name(given: str, body: str, lists: _Lists) -> str | None:
    """The full name `body` opens on when it is a family name of the lexicons' `surnames` and then
    `given`, a heading of one to three Han or Hangul characters (`## 재훈` over "한재훈, 베이스",
    `## 子轩` over "王子轩，8岁"), then a break; or, for a Chinese nickname of 小 or 阿 and one character of
    the given name (`## 小安` over "陳安琪，女朋友"), a full name of two or three characters whose given
    name holds it; else None."""
    if not 1 <= len(given) <= 3 or not all(_CJK_CHAR.match(ch) for ch in given):
        return None
    opening = body.lstrip(" \t\n*_-#>")[:12]
    for size in (1, 2):
        family, rest = opening[:size], opening[size:]
        if family in lists.surnames and rest.startswith(given) and not _CJK_CHAR.match(rest[len(given):len(given) + 1]):
            return opening[: size + len(given)]
    if len(given) == 2 and given[0] in "小阿" and opening[:1] in lists.surnames:
        for size in (2, 3):  # 陳安, 陳安琪: the surname, a given name of one or two characters, then a break
            name = opening[:size]
            if given[1] in name[1:] and not _CJK_CHAR.match(opening[size:size + 1]) and all(_CJK_CHAR.match(ch) for ch in name):
                return name
    return None


def _pair_echo(name: str, body_words: list[str]) -> list[str]:
    """The two given names of a pair heading (`Emma & James Whitfield`, `amrit and jas`) when the body
    (`body_words`: its casefolded words) writes both of them: two cues that it describes those two
    people.  [] otherwise, and for a heading that is not a pair."""
    parts = _NAME_PAIR.split(name.strip())
    if len(parts) != 2:
        return []
    given = [part.split()[0] for part in parts if part.split()]
    words = set(body_words)
    return given if len(given) == 2 and all(g.casefold() in words for g in given) else []


def _person_cues(body: str, index: _Index) -> list[str]:
    """The words of `body` that show it describes a person (the lexicon's `person` words), in order."""
    text = body[:BODY_CHARS].casefold()
    cues = [w for w in _WORD.findall(text) if w in index.lists.person_words]
    cues += [s for s in index.lists.person_substrings if s in text]
    return cues


def classify_section(section: SectionInput, config: Config, document: str | None = None,
                     context: Context | None = None) -> Classification:
    """Classify one section (heading, body, `#` group) with `config.domains`; total: never raises.

    `document` is the document's dominant domain (`dominant_domain`), or None; `context` what the
    document says about itself (`document_context`), or None for nothing.  The steps and weights
    are in this module's docstring.
    """
    ctx = context or NO_CONTEXT
    if document is not None:
        ctx = dataclasses.replace(ctx, document=document)
    return _classify(section, _index(config.domains, config.configured, ctx.fiction, ctx.languages), ctx)


_NAME_AGE = re.compile(r"[ \t]*[(（][ \t]*([1-9]\d?)(?![\d/.:])")  # `Toby (9)`, `Léa (12 ans)`: not `(2025)`, `(9/12)`


def _names_owner_or_agent(found: dict[str, list[str]]) -> bool:
    """Whether the heading's words (`found`, `_heading_scores`) hold the owner's or the agent's name."""
    return any(w.endswith(("(owner)", "(agent)")) for words in found.values() for w in words)


def _organisation(heading: str, index: _Index, found: dict[str, list[str]]) -> Classification | None:
    """business (community) when `heading`, before any description, is an organisation's proper name: two
    to five capitalised words (`de`, `&` between them) whose last word names a company (the lexicons'
    `companies`: `Harbourfront Keys Realty`, `Canary Ventures`) or a group (`groups`: `Bayside Physio
    Network`), or whose first word does before a name (a `<` one: `Grupo Larrañaga`, `Maison Vautrin`;
    a group's also before a link word: `Colegio de Notarios`, `Grupo de WhatsApp …`; `Meetup Porto.js`).
    LABELS.md: a client, supplier or company is the business's; a community the owner runs or attends
    is community.  None otherwise, when the domain is not in the table, and when the word is part of a
    phrase the heading matched (`found`: `Professional Network` is the identity phrase, no group's name)."""
    core = _heading_core(heading)
    words = core.split()
    if not 2 <= len(words) <= 5 or not all(w[:1].isupper() or w.casefold() in _NAME_LINKS for w in words):
        return None
    first, last = words[0].casefold(), words[-1].rstrip(".,").casefold()
    linked = len(words) > 2 and words[1] in _NAME_LINKS  # `Colegio de Notarios`, `Grupo de WhatsApp …`: a group
    lists = index.lists
    for domain, ends, starts in (("business", lists.company_last, lists.company_first),
                                 ("community", lists.group_last, lists.group_first)):
        named = first in starts and not linked and words[1][:1].isupper() or (
            domain == "community" and first in starts and linked)
        if domain in index.order and (last in ends or named):
            word = words[-1] if last in ends else words[0]
            if any(" " in w and word.casefold() in w.casefold() for ws in found.values() for w in ws):
                return None
            return Classification(domain, "name", PREFIX_WEIGHT, (core, f"{word} {ORGANISATION}"))
    return None


# A CJK role, a bar or colon, then a CJK person: `買方｜陳冠宇 先生`, `編集：森さん`
_CJK_ROLE_NAME = re.compile(r"^[ \t*_]*([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{1,5})[ \t]*[｜|:：][ \t]*"
                            r"([\u3400-\u9fff\uac00-\ud7af][\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af \t]{0,8}?)[ \t]*(?:[（(][^）)]*[）)])?[ \t*_]*$")
# A role, a separator, then a full name: `Éditrice : Hélène Vasseur`, `Agent littéraire : Bruno Delcourt`, `Accountant — Mark Hill`
_ROLE_NAME = re.compile(rf"^[ \t*_]*((?:[^\W\d_][\w'’.-]*[ \t]+){{0,2}}[^\W\d_][\w'’.-]*)[ \t]*(?::|：|—|–|[ \t]-[ \t]|[|｜])[ \t]*"
                        rf"({_CAP}[ \t]+{_CAP}(?:[ \t]+{_CAP})?)[ \t*_]*$")


def _role_and_name(section: SectionInput, found: dict[str, list[str]], prefixed: str | None, index: _Index,
                   context: Context) -> Classification | None:
    """people when `section`'s heading is a role, a separator and a full name (`_ROLE_NAME`: `Éditrice :
    Hélène Vasseur`, `Accountant — Mark Hill`) and the body names that person again or describes a person
    (the lexicon's `person` words): a card about one other person (LABELS.md), the role's domain the
    runner-up.  None for a `Kind:` prefix, a name of the owner's or the agent's, a name made of lexicon,
    stop- or organisation words (`Trip — Costa Brava` needs a person in the body too), a trip, and in a
    novelist's memory a character (`Personnage : Odile Ferrand` scores for projects)."""
    if prefixed is not None or PEOPLE_DOMAIN not in index.order or _names_owner_or_agent(found):
        return None
    cjk = _CJK_ROLE_NAME.match(section.heading)  # `買方｜陳冠宇 先生`, `編集：森さん`: the name is a CJK person's
    if cjk is not None and _person_heading(cjk.group(2), index) is not None and not any(
            n in cjk.group(2) for n in context.owner | context.agent) and not (
            context.fiction and any(w in cjk.group(1) for w in found.get("projects", ()))):  # `人物：陆青禾`: a character
        return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (cjk.group(2).strip(), f"{cjk.group(1)} (a role)"))
    m = _ROLE_NAME.match(section.heading)
    if m is None:
        return None
    role, name = m.group(1), m.group(2)
    words = [w.casefold() for w in name.split()]
    lists = index.lists
    if any(w in index.written or w in lists.stopword_set or w in lists.organisation or w in context.owner
           or w in context.agent for w in words) or lists.travel.search(section.heading.casefold()):
        return None
    if context.fiction and any(w.casefold() in role.casefold() for w in found.get("projects", ())):
        return None  # a novel's character, working material for the book
    body = section.body[:BODY_CHARS]
    told = [w for w in name.split() if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", body)] or _person_cues(body, index)
    if not told:
        return None
    ranked = _rank({d: sum(1.0 for w in ws if w.casefold() in role.casefold()) for d, ws in found.items()}, index)
    runner = ranked[0] if ranked and ranked[0][1] > 0 else (None, 0.0)
    return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (name, f"{role} (a role)", told[0]), runner[0], runner[1])


def _described_person(section: SectionInput, scores: dict[str, float], found: dict[str, list[str]],
                      prefixed: str | None, index: _Index, context: Context) -> Classification | None:
    """people when `section`'s heading is a name and then a description whose words scored (`A Sofia
    (assistente de atelier)`, `Ross — accountant`) and the body opens on that name with a surname
    ("Sofia Rebelo, part-time"), or an age follows the name (`Toby (9) - soccer`): the section describes
    that person, and the description is their role, not the topic (issue 23: a heading that is another
    person's name whose body describes a person goes to people).  The runner-up is the description's
    best domain.  None otherwise: no description, a `Kind:` prefix, the owner's or the agent's name
    (they are scored as such), a description of likes (identity: the owner's), the scoring word inside
    the "name" (`Incidents (2025)`), or a body that does not open on the full name (a title before the
    name needs none: `Ing. Roberto Garza (Grupo Acerero)`)."""
    if prefixed is not None or PEOPLE_DOMAIN not in index.order or not _DESCRIPTION.search(section.heading):
        return None
    if index.lists.travel.search(section.heading.casefold()):
        return None  # `Bali trip — Sep hols`: a trip, whoever goes
    if _names_owner_or_agent(found) or _ME_MARK.search(section.heading):
        return None  # the owner's or the agent's own name, or "(me)": the name steps decide those
    person = _person_heading(section.heading, index, context.vocabulary)
    if person is None or has_cjk(person[0]):
        return None
    echo = _name_echo(person[0], section.body)
    rest = section.heading[section.heading.find(person[0]) + len(person[0]):] if person[0] in section.heading else ""
    aged = _NAME_AGE.match(rest)  # `Toby (9) - soccer`: the name and an age
    if (len(echo) != 2 and aged is None and not person[1]) or _whose_name(section.body, context, index) is not None:
        return None  # (a title marks a person by itself: `Ing. Roberto Garza (Grupo Acerero)`, `Dr. Weber (Zahnarzt)`)
    if not echo and aged is None:
        echo = [f"{person[0]} (a title)"]
    if aged is not None:
        echo = [f"{person[0]} ({aged.group(1)}: an age)"]
    ranked = _rank(scores, index)
    if any(w.casefold() in person[0].casefold() for w in found.get(ranked[0][0], ())):
        return None  # `Incidents (2025)`: the words that scored are the "name"
    if ranked[0][0] == "identity":
        return None  # `Marc-André (what he likes)`: a description of likes and ways is the owner's
    return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (person[0], echo[0]), ranked[0][0], ranked[0][1])


def _classify(section: SectionInput, index: _Index, context: Context) -> Classification:
    """Classify one section with `context`: its own signals, then the document's (`_from_document`)."""
    own, body_scores, body_found = _own(section, index, context)
    return own if own is not None else _from_document(body_scores, body_found, index, context.document)


def _opens_on_owner(body: str, context: Context) -> str | None:
    """The owner's name (`context.owner`) when `body`'s first word is it (`- tess aldridge, 38`: not
    "- I draft, Roz sends"), or a line of its opening starts on the owner's full name and age (a
    note, then "- Luana Becker, 34, …"), else None."""
    first = _WORD.search(body, 0, OPENING_CHARS)
    if first is not None and first.group().casefold() in context.owner:
        return first.group()
    card = _OWNER_AGED.search(body, 0, 2 * OPENING_CHARS)  # "(escrito pela Lu)\n- Luana Becker, 34, …": a line opens on
    return card.group(1) if card is not None and card.group(1).split()[0].casefold() in context.owner else None  # the owner's card


def _heading_decision(section: SectionInput, scores: dict[str, float], found: dict[str, list[str]],
                      prefixed: str | None, index: _Index,
                      ranked: list[tuple[str, float]] | None = None) -> Classification:
    """The decision of a heading that scored enough (`_own`, in each language it is read in): its
    best domain (ties to its head, `_head_first`), by prefix or heading, or a work trip's business
    (`_work_trip`) where the heading's best is a trip's personal.  `ranked` when the caller has it."""
    ranked = ranked if ranked is not None else _head_first(_rank(scores, index), found, section.heading)
    trip = _work_trip(section, index) if ranked[0][0] == "personal" else None
    if trip is not None:
        return trip
    return _decision(scores, found, "prefix" if ranked[0][0] == prefixed else "heading", index, ranked)


def _own(section: SectionInput, index: _Index, context: Context,
         ) -> tuple[Classification | None, dict[str, float], dict[str, list[str]]]:
    """(the decision the section's own signals make, or None; the body's scores and words, for the
    document step)."""
    if _FILLER.search(section.heading):  # `ok so dana`, `the guys uh jamal and cody`: a voice note's fillers say nothing
        spoken = _LEADING_FILLER.sub("", _FILLER.sub("", section.heading)).strip(" ,")
        section = SectionInput(spoken, section.body, section.group) if spoken else section
    numbered = _NUMBERED.match(section.heading)
    if numbered and not _LEADING_DATE.match(section.heading):
        section = SectionInput(section.heading[numbered.end():], section.body, section.group)
    if "[[" in section.heading:  # `[[Ravi Shah|Ravi]]`, `[[Visa]] #admin`: a wikilink reads as its text
        section = SectionInput(_WIKILINK.sub(lambda m: m.group(2) or m.group(1), section.heading), section.body, section.group)
    quoted = _QUOTED.sub(" ", section.heading) if '"' in section.heading or "“" in section.heading else ""
    if len(quoted.split()) >= 2:  # `When I say "ship it"`: the quoted words are the owner's, not the topic
        section = SectionInput(quoted.strip(), section.body, section.group)  # (not `"Project Phoenix" status`)
    question = _QUESTION.match(section.heading) if section.heading.rstrip().endswith("?") else None
    asked = _ASKED_LAST.sub("", section.heading[question.end():].strip(" ?¿")) if question else ""
    if asked:  # `¿Y Yeison qué?`: the name, without the question word after it
        section = SectionInput(asked, section.body, section.group)
    if index.lists.schedule.search(section.heading) and not _LEADING_DATE.match(section.heading):
        jobs = _whose_jobs(section, index)
        if jobs is not None:
            return jobs, {}, {}
    scores, found, prefixed = _heading_scores(section.heading, index, context)
    owner = _opens_on_owner(section.body, context) if context.agent_voice and "agents" in found else None
    if owner is not None and all(w.endswith(" (agent)") and w[:-8].casefold() in _FIRST_PERSON_WORDS for w in found["agents"]):
        # `## me` over "- tess aldridge, 38": the agent wrote the opening, the owner this section
        scores["identity"] = scores.get("identity", 0.0) + scores.pop("agents")
        found.setdefault("identity", []).extend(f"{w[:-8]} (the owner: {owner})" for w in found.pop("agents"))
    # LONG_HEADING + 1 words need that many chars and one between each: a shorter heading skips the count
    long = len(section.heading) > LONG_HEADING_CHARS or (
        len(section.heading) > 2 * LONG_HEADING and len(_WORD.findall(section.heading)) > LONG_HEADING)
    needed = BODY_MIN if long else NAME_WEIGHT
    opener = _rule_heading(section.heading, index)
    named = section.heading.split(None, 1) if opener is None and context.agent else []
    if len(named) == 2 and named[0].casefold() in context.agent and index.lists.rules.match(named[1].casefold()):
        opener = _rule_heading(named[1], index)  # `Pip never contacts a student directly`: the agent's own rule
        opener = f"{named[0]} {opener}" if opener else None
    if opener is not None:  # `Never book me before 9 on Mondays`: the heading is a rule for the agent
        scores["agents"] = scores.get("agents", 0.0) + PREFIX_WEIGHT
        found.setdefault("agents", []).insert(0, opener)
    subject = _relative_subject(section.heading, index) if prefixed is None else None
    if subject is not None and (subject.casefold() in context.owner or _named(subject, context.owner)):
        subject = None  # `ハルカさんについて`: the owner by name
    if subject is not None:  # `Mami braucht seit ihrem Sturz mehr Hilfe …`: a sentence about one relative
        ranked = _rank(scores, index)
        return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (subject, RELATIVE),
                              *(ranked[0] if ranked else (None, 0.0))), {}, {}
    bracket = _BRACKETED.search(section.heading) if prefixed is None and PEOPLE_DOMAIN in index.order else None
    if bracket is not None and bracket.group()[1:-1].strip().casefold() in index.lists.kin and _heading_core(section.heading):
        # `SEU ANTÔNIO (PAI)`: the owner's father, though he shares the owner's middle name
        return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (bracket.group()[1:-1].strip(), RELATIVE)), {}, {}
    named = _named_subject(section, index, context) if prefixed is None else None
    if named is not None:  # `Nadja arbeitet 60 Prozent im Spital …` over "- Nadja Keller, 34, Pflegefachfrau": about her
        ranked = _rank(scores, index)
        return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, named, *(ranked[0] if ranked else (None, 0.0))), {}, {}
    if prefixed is None and not _names_owner_or_agent(found):
        organisation = _organisation(section.heading, index, found)
        if organisation is not None:
            return organisation, {}, {}
        role = _role_and_name(section, found, prefixed, index, context)
        if role is not None:
            return role, {}, {}
    if prefixed is None and PEOPLE_DOMAIN in index.order and "|" in section.body and max(scores.values(), default=0.0) < 2 \
            and not _names_owner_or_agent(found) and not (context.fiction and "projects" in scores):
        roster = _roster(section.body, index)  # `Les boulangers` over "| Nom | Poste | …": the staff, not the trade
        if roster is not None:
            return roster, {}, {}
    title = section.heading.strip(" \t*_#>")
    if prefixed is None and max(scores.values(), default=0.0) <= WEAK_WEIGHT * 2 and set(scores) <= {PEOPLE_DOMAIN, "business"} \
            and (len(title) <= 4 if has_cjk(title) else len(title.split()) == 1) and not _names_owner_or_agent(found) \
            and _relative_heading(section.heading, index) is None:
        card = _opening_card(section, index, context, owner=not scores)  # `## 大将`, `## 店長`: a title over whom it is about
        if card is not None:
            return card, {}, {}
    if max(scores.values(), default=0.0) >= needed:
        described = _described_person(section, scores, found, prefixed, index, context)
        return described or _heading_decision(section, scores, found, prefixed, index), {}, {}
    body = section.body[:BODY_CHARS]
    body_words = _WORD.findall(body.casefold()) if body else []
    languages = _section_languages(body_words, index, context) if body_words else context.languages
    if languages is not context.languages:  # the section's own language: read its heading in it too
        context = dataclasses.replace(context, languages=languages)
        index = _index(*index.key, languages)
        scores, found, prefixed = _heading_scores(section.heading, index, context)
        if max(scores.values(), default=0.0) >= needed:
            described = _described_person(section, scores, found, prefixed, index, context)
            return described or _heading_decision(section, scores, found, prefixed, index), {}, {}
    # before the name step: `Santé` in an English memory is French for health, not a person
    if not scores and context.languages != ALL_LANGUAGES and _looks_foreign(section.heading, index, context):
        wide = _index(*index.key, ALL_LANGUAGES)  # (`Revendeurs en France` in a Spanish memory) is read in all;
        scores, found, prefixed = _heading_scores(section.heading, wide, context)  # not the body: its English
        ranked = _head_first(_rank(scores, wide), found, section.heading) if scores else []
        trusted = bool(ranked) and all(w.casefold() in wide.written or _GERMAN_NOUN.fullmatch(w)
                                       for w in found[ranked[0][0]])
        # "these" would read as French thèse; only a word written as the lexicon writes it counts
        # (`Revendeurs`, `Fechas clave`), not an English word a foreign stemmer folds (`Progress`: progrès);
        # a German-shaped noun counts in any form (`Versicherungen` by `~versicherung`)
        if trusted and ranked[0][1] >= needed:
            return _heading_decision(section, scores, found, prefixed, wide, ranked), {}, {}
        if not trusted:
            scores, found, prefixed = {}, {}, None  # (a weak trusted word stays: the body speaks first)
        else:
            scores = {ranked[0][0]: ranked[0][1]}
            found = {ranked[0][0]: found[ranked[0][0]]}
    if body and "agents" in index.order and _LESSONS.search(section.heading):
        mine = _agent_lessons(body, index, context)
        if mine is not None:
            return mine, {}, {}
    marked = bool(scores) and not _WORD.search(" ".join(w for ws in found.values() for w in ws))
    titled = _person_heading(section.heading, index, context.vocabulary) if marked else None
    if titled is not None and titled[1]:
        scores, found = {}, {}  # `📦 古丽姐`, `🔧 Sr. Abílio`: the emoji marks a titled name's heading; the name decides
    if set(scores) <= {FALLBACK_DOMAIN} and PEOPLE_DOMAIN in index.order:  # no word, or only `メモ`, `notes`
        vocabulary = context.vocabulary or frozenset(w for w in _WORD.findall(body) if w[0].islower())
        relative = _relative_heading(section.heading, index)
        if relative is not None:
            return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (relative, RELATIVE)), {}, {}
        person = _person_heading(section.heading, index, vocabulary)
        capital_core = _heading_core(section.heading) if context.capitals and section.heading.isupper() else ""
        if person is None and capital_core and len(capital_core.split()) <= 3 \
                and not _INITIALS.fullmatch(section.heading.strip()) and not any(  # (`JR`: initials, read below)
                    w in index.lists.written or w in index.lists.organisation or w in index.lists.stopword_set
                    for w in _WORD.findall(capital_core.casefold())):  # (`HONORARIOS Y COBRANZAS`, `CONSEJO PROFESIONAL`;
            # `ZÉ CARLOS – CAPATAZ`: the name before its description)
            person = _person_heading(section.heading.title(), index, vocabulary)  # `POOJA` in a memory in capitals
        if person is not None and any(w.casefold() in person[0].casefold() for w in found.get(FALLBACK_DOMAIN, ())):
            person = None  # `Misc`, `Divers`: the vague word is the "name"
        if person is not None and _CALENDAR_WORD.fullmatch(person[0]) and len(_name_echo(person[0], body)) < 2:
            person = None  # `Thursday`, `Juni`: a day or a month, unless the body opens on it as a full name
            # ("April Jones"; not "Tuesday is shipping day")
        if person is None and has_cjk(section.heading) and section.heading.strip() in context.given_names | context.aged_names:
            person = (section.heading.strip(), False)
        opened_on = None
        if person is None and has_cjk(section.heading):
            opened_on = _cjk_full_name(_heading_core(section.heading), body, index.lists)
            if opened_on is not None:  # `재훈 (bass)` over "한재훈, 베이스": the body opens on the full name
                person = (_heading_core(section.heading), False)
        if person is None and _INITIALS.fullmatch(section.heading.strip()):
            # `## JR` over "Jamal Reyes, charge nurse", `## M.` over "Marguerite, Dee's mum": the initials of
            # the name the body opens on
            letters = section.heading.replace(".", "").replace(" ", "").strip()
            spelled = _INITIALS_SPELLED.match(body[:OPENING_CHARS])  # "Jamal Reyes, charge nurse": not "United Kingdom tax"
            names = spelled.group(1).split() if spelled else []
            if len(names) == len(letters) and all(n[0] == c and n[1:].islower() for n, c in zip(names, letters)):
                person = (" ".join(names), False)
        if person is None and _HANDLE.fullmatch(section.heading.strip()) and FALLBACK_DOMAIN not in scores:
            spelled = _FULL_NAME_OPENING.match(body[:OPENING_CHARS])  # `## @zmrk` over "Zoran Marković. Second lead"
            if spelled is not None and not any(w.casefold() in index.written or w.casefold() in index.lists.stopword_set
                                               or w.casefold() in index.lists.organisation for w in spelled.group(1).split()):
                person = (spelled.group(1), False)  # the body's opening is the name the cues echo
                opened_on = spelled.group(1)
        low_words = section.heading.split()
        if person is None and 2 <= len(low_words) <= 3 and section.heading.islower() and low_words[0].rstrip(".") in \
                index.lists.honorifics and all(w.isalpha() and w not in index.written for w in low_words[1:]):
            person = (section.heading.strip(), True)  # `mrs pappas`, `dr okafor`: a title, in a lowercase memory
        lowered_names = _NAME_PAIR.split(section.heading.strip())
        if person is None and len(lowered_names) <= 2 and all(p.isalpha() and p.islower() for p in lowered_names) \
                and FALLBACK_DOMAIN not in scores:  # (`misc` is no name)
            # `## jo` over "Jo Marsh, my partner", `## jess` over "dana's sister. lives in york", `## amrit and
            # jas` over "the kids.": a lowercase heading (one name or two) the body opens on as a full name,
            # or whose body opens on who the person is
            full = _name_echo(section.heading.strip().capitalize(), body) if len(lowered_names) == 1 else []
            first_words = _WORD.findall(body[:OPENING_CHARS].casefold())[:OPENING_WORDS]
            told = any(w in index.lists.person_words or w in index.lists.kin for w in first_words)
            pair = (len(lowered_names) == 2 and len(_pair_echo(section.heading, body_words)) == 2
                    and not any(w in index.written or w in index.lists.stopword_set for w in lowered_names)
                    and bool(_person_cues(body, index)))  # not `fuel and tolls`: two names, and a person
            person = (section.heading.strip(), False) if len(full) == 2 or told or pair else None
        if person is not None:
            name, honorific = person
            kin_only = all(p.casefold() in index.lists.kin for p in _NAME_PAIR.split(name.strip()) if p)
            whose = _whose_name(body, context, index) if not kin_only else None  # `Mum and Dad` over "Mr and Mrs
            # Lim": the owner's parents share her surname
            if whose is not None:
                return whose, {}, {}
            pet = _pet(body, index) if not honorific else None
            if pet is not None:
                return pet, {}, {}
            cues = _person_cues(body, index)
            incidental = len(cues)  # person words anywhere in the body: the rest below say who it is about
            opening = _WORD.search(body.casefold())  # "Neto. ...", "Filha, 34 anos": the body opens on who they are
            if opening is not None and opening.group() in index.lists.person_words:  # so that word counts twice
                cues.insert(0, opening.group())
            cues[:0] = _name_echo(name, body) + _pair_echo(name, body_words)
            mark = _PERSON_EMOJI.match(section.heading.lstrip(" \t*_#>"))
            if mark is not None:  # `👧 Amara`: the heading's mark is a person
                cues.insert(0, f"{mark.group()} (a person)")
            if _AGE_OPENING.match(body):  # "- 11, Year 6 at St Catherine's": the body opens on an age
                cues.insert(0, "(an age)")
            card = _CARD_OPENING.match(body)
            if card is not None:  # `## Schorsch` over "Georg Feldmeier, 61.": a full name and an age count twice
                cues[:0] = [f"{card.group(1)} (a full name and an age)", card.group(1)]
            if name in context.aged_names:  # "Éloïse (9 ans, 4e année)" elsewhere: the memory gives an age
                cues[:0] = [f"{name} (an age in the memory)", name]
            if opened_on is not None:
                cues.insert(0, f"{opened_on} (the full name)")
            family = _family_name(name, body)
            if family is not None:  # `The Ferreiras (buyers)` over "Tiago and Lena Ferreira, pre-approved …"
                cues.insert(0, f"{family} (a family)")
            if name in context.given_names:  # `Jana` of "Jana Petersen" in the preamble, `하린` of "딸 하린"
                cues.insert(0, f"{name} (the memory names them elsewhere)")
            single = not honorific and " " not in name.strip()  # (`Açores`, `강원도`: one word)
            if single and len(cues) == incidental and _a_trip(body, body_words, index):
                cues = []  # `Açores` over "voos SATA …, ela e o Zé": a trip, whoever goes; a single word the body
                # never echoes nor opens on who it is, over a trip's flights and hotels, is a place
            if len(cues) >= (0 if honorific else 1 if " " in name.strip() or has_cjk(name) else 2):
                if context.novelist and not honorific and "projects" in index.order and not any(
                        w in index.lists.kin for w in _WORD.findall(body[:OPENING_CHARS].casefold())[:OPENING_WORDS]):
                    # a novelist's memory: a bare name over a person is one of the novel's characters, working
                    # material for the book (issue 23); an editor or a relative carries a title (林老师, Papa)
                    return Classification("projects", "name", PREFIX_WEIGHT, (name, "(fiction)", *cues[:2]),
                                          PEOPLE_DOMAIN, PREFIX_WEIGHT), {}, {}
                return Classification(PEOPLE_DOMAIN, "name", PREFIX_WEIGHT, (name, *cues[:3])), {}, {}
    addressed = _ADDRESSED.match(body) if body and context.agent else None
    if addressed is not None and addressed.group(1).casefold() in context.agent and "agents" in index.order:
        # `🤖 lo que hacés vos` over "- sos Luna, me ayudás con el estudio": the body speaks to the agent by name
        return Classification("agents", "body", PREFIX_WEIGHT, (addressed.group().strip(_MARKS) + " (agent)",)), {}, {}
    wordless = bool(body) and not _WORD.search(section.heading) and set(scores) <= {FALLBACK_DOMAIN}
    card = (_CARD_OPENING.match(body) or _told_person(body, index)
            or (_AGED_NAME.match(body) if _PERSON_EMOJI.search(section.heading) else None)) if wordless else None
    if card is not None:  # `## 🙋‍♀️` over "- Valentina Ríos, 36, profe de yoga": a heading of no words over whom it is about
        mine = card.group(1).split()[0].casefold() in context.owner
        domain = "identity" if mine else PEOPLE_DOMAIN
        if domain in index.order:
            return Classification(domain, "body", PREFIX_WEIGHT,
                                  (f"{card.group(1)} ({'the owner: ' if mine else ''}a full name and who they are)",)), {}, {}
    body_scores, body_found = scores, found
    vague = set(scores) <= {FALLBACK_DOMAIN}  # no word, or only `Misc`, `Divers`, `Stuff`: the body speaks
    if vague and body and "agents" in index.order and not _LESSONS.search(section.heading):
        rules = _rule_sentences(section.heading, body, index)
        if rules:
            return Classification("agents", "body", float(len(rules)), tuple(rules[:3])), {}, {}
    if body:
        body_scores = dict(scores)
        body_found = {d: list(w) for d, w in found.items()}
        _score_text(body, index, body_scores, body_found, body=True, words=body_words, trade=context.trade)
        if body_scores:
            ranked = _rank(body_scores, index)
            best, runner = ranked[0][1], ranked[1][1] if len(ranked) > 1 else 0.0
            if FALLBACK_DOMAIN in scores and vague:  # `Misc`, `Divers`, `メモ`: the writer says it is mixed, so
                decides = best >= BODY_MIN and best >= MIXED_RATIO * runner  # its body must be clearly one thing
                decides = decides and _items_agree(body, ranked[0][0], index, context.trade)  # (and most of its items too)
            else:
                decides = best >= BODY_MIN or (vague and best >= CLEAR_MIN and best >= CLEAR_RATIO * runner)
            if decides:
                return _decision(body_scores, body_found, "body", index, ranked), {}, {}
    if scores:
        return _decision(scores, found, "heading", index), {}, {}
    if section.group:
        group_scores, group_found, _ = _heading_scores(section.group, index, context)
        if max(group_scores.values(), default=0.0) >= WEAK_WEIGHT:
            group = _decision(group_scores, group_found, "group", index)
            if group.domain == "identity" and "personal" in index.order and all(
                    index.lists.private.fullmatch(w.casefold()) for w in group.words):
                # `# PRIVAT`, `# lo personal`: a group of the owner's private life holds its hobbies, health
                # and home (personal), not who the owner is; a section that names a person decided above
                group = dataclasses.replace(group, domain="personal", words=(*group.words, "(the owner's private life)"))
            if group.domain != FALLBACK_DOMAIN:  # `# Misc`, `# Other`: the group says nothing
                return group, {}, {}
    return None, body_scores, body_found


def _a_trip(body: str, words: list[str], index: _Index) -> bool:
    """Whether `body` (its first BODY_CHARS; `words` its casefolded words) tells a trip: a whole `travel`
    word ("voos SATA Porto–Ponta Delgada", not "Volksschullehrer") and a personal score of BODY_MIN."""
    text = body[:BODY_CHARS].casefold()
    if not any(not text[m.end() : m.end() + 1].isalpha() for m in index.lists.travel.finditer(text)):
        return False
    scores: dict[str, float] = {}
    _score_text(body[:BODY_CHARS], index, scores, {}, body=True, words=words)
    return scores.get("personal", 0.0) >= BODY_MIN


def _items_agree(body: str, domain: str, index: _Index, trade: frozenset[str] = frozenset()) -> bool:
    """Whether most of the items of `body` (its first BODY_CHARS, one per line or sentence: `_SENTENCE`)
    that name any domain name `domain` (each item scored alone, its best domain counted): under a heading
    that says its content is mixed (`Misc`, `Notes`, `その他`), a body whose items go each their own
    way is mixed indeed (LABELS.md: mixed "Notes" -> general), whatever one item's many words add up to."""
    counts: Counter[str] = Counter()
    for item in _SENTENCE.split(body[:BODY_CHARS]):
        scores: dict[str, float] = {}
        _score_text(item, index, scores, {}, body=True, trade=trade)
        if scores:
            counts[_rank(scores, index)[0][0]] += 1
    return 2 * counts[domain] > sum(counts.values())


# LABELS.md files lessons learned under the domain most lessons are about, though they read as rules.
_LESSONS = re.compile(r"(?i)lesson|leçon|lecci[oó]n|liç[õo]|lektion|gelernt|erkenntnis|aprendid|aprendi|got wrong|mistake|"
                      r"教训|经验|教訓|学び|배운|교훈")
_SENTENCE = re.compile(r"\n+|(?<=[.!?。！？])\s+")
_SENTENCE_START = re.compile(r"^[\s\-*+>#|]*(?:\d{1,3}[.)]\s*)?[*_\"“'‘(]*")


_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)


def _roster(body: str, index: _Index) -> Classification | None:
    """people when `body` opens its first table on a roster: a header whose first column names each
    row's person (the lexicons' `name_columns`: `Nom`, `名前`) and another says what each does
    (`role_columns`: `Poste`, `Turno`, `担当`), over at least two rows of different people, at least
    half of them a person's name (`_person_heading`; a CJK cell of two to six characters).  LABELS.md:
    a team or a contact list is people, whatever trade its heading names (`Les boulangers`,
    `👨‍🍳 Padeiros`, `OS PEÕES`).  A `Wer`/`Who` column is no roster: it says whose dose or
    appointment a row is.  None otherwise."""
    rows = [m.group(1) for m in _TABLE_ROW.finditer(body[:BODY_CHARS])]
    if len(rows) < 3:
        return None
    header = [c.strip(" *_`").casefold() for c in rows[0].split("|")]
    lists = index.lists
    if header[0] not in lists.name_columns or not any(c in lists.role_columns for c in header[1:]):
        return None
    people = [r.split("|")[0].strip(" *_`") for r in rows[1:] if not TABLE_RULE.match(r)]
    if len(people) < 2 or len(set(people)) < len(people):
        return None
    named = [p for p in people if not any(ch.isdigit() for ch in p) and (
        _person_heading(p, index) is not None or (has_cjk(p) and 2 <= len(p.replace(" ", "")) <= 6))]
    if 2 * len(named) < len(people):
        return None
    role = next(c for c in header[1:] if c in lists.role_columns)
    return Classification(PEOPLE_DOMAIN, "body", PREFIX_WEIGHT, (f"{header[0]} | {role} (a table of people)", *named[:3]))


# A CJK body opening on a full name and an age, maybe after a role and a mark: "古賀 雄大（29）",
# "中島剛志、52歳", "本店店長・原田 誠（38）", "박지훈 (41)", "王建国，48岁".
_CJK_CARD = re.compile(r"[ \t\n>*_-]*(?:[^\W\d_]{1,8}[・：:｜|][ \t]*)?"
                       r"([\u3400-\u9fff\uac00-\ud7af]{1,3}[ \t\u3000]?[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{1,3})"
                       r"[ \t]*(?:[（(][ \t]*\d{1,2}[ \t]*(?:歳|岁|세|才)?[ \t]*[）)]|[、，,][ \t]*\d{1,2}[ \t]*(?:歳|岁|세|才|살))")


def _opening_card(section: SectionInput, index: _Index, context: Context, owner: bool) -> Classification | None:
    """Whom a one-word title heading is about when its body opens on a card, a full name and an
    age (`_CARD_OPENING`, `_CJK_CARD`): the owner's (`## 大将` over "中島剛志、52歳": identity) or another
    person's (`## 店長` over "本店店長・原田 誠（38）", `## 古賀` over "古賀 雄大（29）": people).  LABELS.md:
    a section about one other person goes to people, the owner's facts to identity.  `owner`: whether
    the owner's card may decide (a heading of no keyword).  None otherwise."""
    body = section.body.lstrip("\n")
    card = _CARD_OPENING.match(body) or _CJK_CARD.match(body)
    if card is None:
        return None
    name = card.group(1)
    lists = index.lists
    if any(w in lists.written or w in lists.organisation or w in lists.stopword_set for w in _WORD.findall(name.casefold())):
        return None  # "French-German Stammtisch, 1er mercredi": a group's name and a date, no one's card
    compact = name.replace(" ", "").replace("\u3000", "")
    mine = name.split()[0].casefold() in context.owner or compact in context.owner
    domain = "identity" if mine else PEOPLE_DOMAIN
    if domain not in index.order or (mine and not owner):
        return None
    return Classification(domain, "body", PREFIX_WEIGHT, (f"{name} ({'the owner: ' if mine else ''}a full name and an age)",))


def _agent_lessons(body: str, index: _Index, context: Context) -> Classification | None:
    """Lessons about how the agent behaves go to agents (LABELS.md: lessons about communication,
    approvals, scheduling), when more than half of the body's items (non-empty lines, at least two)
    name the owner (`context.owner`: "Joana não lê mensagens longas"), one of the agent's jobs (the
    lexicons' `agent_jobs`: remind, draft, send, 提醒) or open on a rule (`rules`: "Ne jamais mettre
    « urgent » …", "Never …").  None otherwise: the lessons' topic decides."""
    items = [line.casefold() for line in body[:BODY_CHARS].splitlines() if line.strip()]
    if len(items) < 2:
        return None
    owner = [w for w in context.owner if not has_cjk(w)]
    owner_cjk = sorted((w for w in context.owner if has_cjk(w)), key=lambda w: (-len(w), w))  # sorted: same input, same words
    named = re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, sorted(owner)))})(?!\w)") if owner else None
    cues: list[str] = []
    for item in items:
        job = index.lists.agent_jobs.search(item) or index.lists.rules.match(_SENTENCE_START.sub("", item))
        name = named.search(item) if named is not None else None
        cjk = min((w for w in owner_cjk if w in item), key=item.find, default=None)  # the first written
        if job or name or cjk:
            cues.append(job.group().strip() if job else name.group() if name else str(cjk))
    if 2 * len(cues) <= len(items):
        return None
    return Classification("agents", "body", float(len(cues)), tuple(cues[:4]))


def _rule_heading(heading: str, index: _Index) -> str | None:
    """The rule opener (`Never`, `Don't`, `Nunca`) of a heading that is a rule sentence for the agent
    (`Never book me before 9 on Mondays`), else None.  A sentence has three words or more and is not
    in Title Case (`Never Split the Difference`, `Only Murders in the Building` are titles); the opener
    is not an acronym (`NIE`), a label (`Avoid: peanuts`) or a compound (`Always-on VPN`)."""
    if has_cjk(heading) and "agents" in index.order and len(heading.strip()) >= CJK_SENTENCE:
        text = _CJK_YOU.sub("", heading.strip())  # `不要在群組裡貼地址`, `你不可以自己回盤商的訊息`: a rule sentence
        told = index.lists.rules.match(text)
        return told.group() if told is not None and has_cjk(told.group()) else None
    words = heading.split()
    if "agents" not in index.order or len(words) < 3 or _ACRONYM.match(heading):
        return None
    opener = index.lists.rules.match(heading.casefold())
    if opener is None and len(words) >= 4 and words[0].strip(",").casefold() in _SECOND_PERSON_WORDS:
        told = index.lists.rules.search(heading.casefold())  # `Du schickst nichts an Kunden raus, bevor ich …`,
        return f"{words[0]} … {told.group().strip()}" if told else None  # `You never book me before 9`
    if opener is None or heading[opener.end() : opener.end() + 1] in ("-", ":", "‑") or ":" in " ".join(words[:3]):
        return None  # (`Never again: the 2024 outage` is a label)
    capitalised = sum(1 for w in words if w[:1].isupper())
    if 2 * capitalised > len(words) or opener.group().strip() not in _STRONG_RULES:
        return None  # (`Avoid list for restaurants`, `Ask me anything session`: a weak opener is no rule)
    return opener.group().strip()


_STRONG_RULES = frozenset({"never", "always", "don't", "don’t", "do not", "dont", "must not", "mustn't", "nunca", "jamás",
                           "jamais", "niemals", "nie", "não", "no hagas", "ne jamais", "不要", "别", "絶対", "절대"})


def _rule_sentences(heading: str, body: str, index: _Index) -> list[str]:
    """The openers of the sentences of `body` that state a rule (the lexicons' `rules`: "Never …",
    "Nunca …", "不要…") when at least a third of its sentences do, or the heading when it says
    "never" (`Ce que je ne dois jamais faire`); else [].  LABELS.md: a vague heading
    (`!!!`, `IMPORTANT`) over rules for the agent is the agent's operating rules."""
    lowered = heading.casefold()
    words = heading.split()
    title_case = len(words) >= 3 and 2 * sum(1 for w in words if w[:1].isupper()) > len(words)  # a book's title
    if not title_case and any(f" {w} " in f" {lowered} " for w in ("never", "jamais", "nunca", "niemals", "jamás")):
        return [heading.strip()]
    sentences = [_SENTENCE_START.sub("", s.casefold()) for s in _SENTENCE.split(body[:BODY_CHARS])]
    sentences = [s for s in sentences if _WORD.search(s)]
    openers = [m.group().strip() for s in sentences if (m := index.lists.rules.match(s))]
    return openers if openers and 3 * len(openers) >= len(sentences) else []


def _work_trip(section: SectionInput, index: _Index) -> Classification | None:
    """A trip (a `travel` word in the heading) whose body names work (a conference, a talk, a client:
    the lexicons' `work_trip` words) is a work trip: business, with personal the runner-up (LABELS.md:
    "work trips (trade shows, conference talks, client visits) -> business").  None otherwise, and for a
    trip that calls itself a holiday (`holiday`: férias, Urlaub, 放假): the clients it names are told of it."""
    if "business" not in index.order or not index.lists.travel.search(section.heading.casefold()):
        return None
    text = f"{section.heading}\n{section.body[:BODY_CHARS]}".casefold()
    if index.lists.holiday.search(text):
        return None  # "Férias em família …; o Rui avisa os clientes": a holiday the clients are told of
    cues = [m.group().strip() for m in index.lists.work_trip.finditer(text)
            if not _NEGATED.search(text, max(0, m.start() - 16), m.start())]  # "no client calls that week": a holiday
    if not cues:
        return None
    return Classification("business", "body", float(len(cues)), tuple(cues[:3]), "personal", 1.0)


_NEGATED = re.compile(r"(?<![^\W\d_])(?:no|not|without|never|sin|sem|nada de|pas de|aucun|aucune|kein|keine|keinen|ohne)"
                      r"[ \t]+(?:[^\W\d_]+[ \t]+)?$")  # a cue one or two words after a negation (Western word order)
_GERMAN_NOUN = re.compile(r"(?<![^\W\d_])[A-Z][a-z]{3,}(?:ung|ungen|heit|keit|schaft|schaften)(?![^\W\d_])")


def _looks_foreign(heading: str, index: _Index, context: Context) -> bool:
    """True when `heading` shows a language the document is not written in: a stopword of another
    language (`Revendeurs en France`, `Licencias y permisos`) or a Latin letter outside ASCII
    (`Gestoría`), a German-shaped noun (`Anmeldung`), or a long word only another lexicon writes and not
    shaped like English (`Impuestos`).  An English heading (`Glaze tests`, `Cookies`, `Direction`) is not
    read in German or French, whose lexicons also write those words."""
    if any(not ch.isascii() and ch.isalpha() and not has_cjk(ch) for ch in heading):
        return True
    if _GERMAN_NOUN.search(heading):  # `Anmeldung & Ummeldung`, `Versicherungen`: ASCII, but German
        return True
    words = _WORD.findall(heading.casefold())
    # `Impuestos`, `Revendeurs` in an English memory: a long word only another lexicon writes, not shaped like an
    # English word (`Cookies`, `Direction`, `Placements`, `Romance` are English words French writes too)
    return any(len(w) >= FOREIGN_WORD_MIN and w in index.lists.written and w not in index.written
               and not w.endswith(_ENGLISH_ENDINGS) for w in words) or any(
        set(index.lists.stopwords.get(w, ())) - context.languages for w in words)


_ENGLISH_ENDINGS = ("tion", "tions", "sion", "sions", "ment", "ments", "ies", "les", "ance", "ence", "ing", "ity", "ness",
                    "ship", "able", "ible", "ive", "ous", "al", "ure", "ures", "age", "ages")  # ... unless shaped like English


def _whose_jobs(section: SectionInput, index: _Index) -> Classification | None:
    """A section whose heading names recurring work (the lexicons' `schedule` words: `Cron jobs`,
    `Recurring`, `Tareas semanales`, `定时任务`): LABELS.md files the agent's own recurring work
    (reminders, drafts, digests: `agent_jobs`) under agents and a host's jobs (backups, pruning:
    `system_jobs`) under infrastructure, and a mixed list under agents when at least half the jobs
    are the agent's.  None when the body names neither kind, or a domain is not configured."""
    if "agents" not in index.order or "infrastructure" not in index.order:
        return None
    body = section.body[:BODY_CHARS].casefold()
    mine = [m.group().strip() for m in index.lists.agent_jobs.finditer(body)]
    hosts = [m.group().strip() for m in index.lists.system_jobs.finditer(body)]
    if not mine and not hosts:
        return None
    domain, words, runner, other = ("agents", mine, "infrastructure", hosts) if len(mine) >= len(hosts) else (
        "infrastructure", hosts, "agents", mine)
    return Classification(domain, "body", float(len(words)), tuple(words[:4]), runner if other else None,
                          float(len(other)))


def _from_document(body_scores: dict[str, float], body_found: dict[str, list[str]], index: _Index,
                   document: str | None, leaning: bool = False) -> Classification:
    """A section no signal of its own placed: the document's dominant domain (or, with `leaning`, the
    domain it leans to: `_leaning`, named in the words) when nothing in its body contradicts it (no
    other domain with CLEAR_MIN points), else `general` naming the domain not used."""
    if document is None:
        return Classification(FALLBACK_DOMAIN)
    best = max(body_scores.values(), default=0.0)
    if best < CLEAR_MIN or body_scores.get(document, 0.0) >= best:
        why = ((WORKING_MEMORY if document == "business" else HOUSEHOLD_MEMORY),) if leaning else ()
        return Classification(document, "document", 0.0, (*body_found.get(document, ()), *why), None, 0.0, document)
    ranked = _rank(body_scores, index)
    return Classification(FALLBACK_DOMAIN, "fallback", 0.0, (), ranked[0][0], ranked[0][1], document)


_FORM_DOMAINS = frozenset({LOG_DOMAIN, "dates"})  # told by a heading's form (a date), never by the document


def dominant_domain(decisions: Sequence[Classification]) -> str | None:
    """The domain at least half, and at least DOCUMENT_MIN, of the confident decisions got, and at least
    DOCUMENT_SHARE of all the sections, or None.  Log and dates never: a dated entry is told by its
    heading's form, so they are not a document's topic (their sections do not count).

    Confident: decided by the heading, a prefix, a name or a configured keyword with at least one
    full point (a weak word alone is not), or by a body with BODY_MIN points.
    """
    counts: dict[str, int] = {}
    total = 0
    for d in decisions:
        if d.domain in _FORM_DOMAINS:
            continue  # a form, not a topic: a journal's undated `the basics` is no dated entry
        if (d.decided_by in CONFIDENT and d.score >= 1.0) or (d.decided_by == "body" and d.score >= BODY_MIN):
            counts[d.domain] = counts.get(d.domain, 0) + 1
            total += 1
    if not counts:
        return None
    domain, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return domain if count >= DOCUMENT_MIN and 2 * count >= total and count >= DOCUMENT_SHARE * len(decisions) else None


def classify_document(sections: Sequence[SectionInput], config: Config, preamble: str = "") -> tuple[Classification, ...]:
    """Classify every section of one document, in order, with what the document says about itself
    (`document_context` of `preamble`, the text before the first `##`, and the sections): each
    section on its own, then the sections nothing placed get the document's dominant domain
    (`dominant_domain`) when there is one and nothing in them points elsewhere."""
    context = document_context(preamble, sections, config)
    index = _index(config.domains, config.configured, context.fiction, context.languages)  # once, not per section
    runs, trade = _trade(preamble, index)
    if runs:
        context = dataclasses.replace(context, runs_business=True, trade=trade)
    first = [_own(s, index, context) for s in sections]
    document = dominant_domain([c if c is not None else Classification(FALLBACK_DOMAIN) for c, _s, _f in first])
    topics = Counter(c.domain for c, _s, _f in first if c is not None)
    counted = topics["business"] > topics["personal"]  # more of the work than of private life
    named = "business" in index.order and (runs or _runs_a_workplace(preamble, index))  # the opening names the work
    working = named or ("business" in index.order and counted)
    leaning = None if document is not None else _leaning(topics, index)
    if working and leaning == "personal":  # a workplace's memory whose trade is the personal domain's (a brewery):
        leaning = "business"  # what says nothing of itself is the work's
    elif named and document is None and leaning is None and topics["business"] >= DOCUMENT_MIN:
        leaning = "business"  # and so when the work ties with private life or with the people (a realtor's office, her
        # family; a winery's pickers, buyers and children): the opening named the workplace
    main = document or _most_common(topics, skip=frozenset({"agents"}))  # the agent's sections are in every memory
    placed = []
    for section, (c, s, f) in zip(sections, first):
        if c is None:
            placed.append(_from_document(s, f, index, document or leaning, leaning is not None))
            continue
        if main:  # a to-do list holds the document's main work
            c = _todo_of_the_document(c, main, index)
        placed.append(_the_business_in_a_working_memory(c, section, index, counted) if working else c)
    return tuple(placed)


def _runs_a_workplace(preamble: str, index: _Index) -> bool:
    """Whether the opening (`preamble`'s first OPENING_WORKPLACE chars) names a workplace of the
    lexicons' `workplaces` (`clinic`, `Praxis`, `诊所`, `酒造`) or says the owner works for themselves
    (their `self_employed`: `freelance`, `autónomo`, `フリーランス`): the memory is a working one, even when
    its trade's words are the personal domain's (a doctor's patients, a brewery's sake, a guide's
    mountains) or its private life has as many sections as the work (a freelancer's taxes and flat)."""
    return index.lists.working_opening.search(preamble[:OPENING_WORKPLACE]) is not None


OPENING_WORKPLACE = 600  # chars of the preamble read for a workplace: the owner's description, not the whole file

# Where a business's name after `owns`, `leitet`, `dona da` ends: a clause mark, or the place it is in.
_NAME_END = re.compile(r"[.,;:()（）\[\]\n—–|]|[ \t](?:in|out of|near|at|since|with|and|seit|mit|und|im|bei|en|em|à|au|aux|dans|"
                       r"na|no|desde|depuis|con|com|avec|et|y|e|que|qui|who|which|where)(?![^\W\d_])")
# An indefinite article after the name's comma opens its description (", a one-woman mobile dog grooming van").
_DESCRIBED_AS = re.compile(r"[ \t]*,[ \t]+(?:an?|une?|una?|uma?|ein|eine|einen)[ \t]+([^.,;:()\n]{3,80})", re.IGNORECASE)
_SINCE = re.compile(r"[ \t]+(?:seit|since|desde|depuis|dès|há|hace|em|in)[ \t]+\d{4}")
_BRACKETED_NAME = re.compile(r"[ \t]*\(([^()\n,;]{3,60})")  # ... or a bracket after it names the company
_CJK_CLAUSE_END = re.compile(r"[、。，,.；;：:（）()\n]|[でにはがと](?=[\u3040-\u30ff\u3400-\u9fff])")  # (a name's 「」 kept)
_CJK_NAME_END = re.compile(r"[、。，,.；;：:（）()「」『』\n]|[でにはがと](?=[\u3040-\u30ff\u3400-\u9fff])")
_SUBJECT_I = re.compile(r"(?i)(?:^|[^\w'])(?:je|j|i|ich|eu|yo)['’]?[ \t]*$")  # `Je gère le calendrier`: the agent speaks


def _trade(preamble: str, index: _Index) -> tuple[bool, frozenset[str]]:
    """(Whether the opening, `preamble`'s first OPENING_WORKPLACE chars, says the owner runs a business,
    the words of its name and description the personal domain holds).

    A business is named after one of the lexicons' `runs` cues (`Rick owns Kowalczyk Plumbing & Drain LLC`,
    `Regula leitet seit 2017 die Kita Sonnenhügel`, `dona da Onda Norte Surf School`, `经营一家茶厂`), or in
    Japanese and Korean just before one (`翻訳事務所を経営`, `카페를 운영`); a Western name holds a
    capitalised word, a workplace (`studio`) or a company's ending (`LLC`), which "runs marathons"
    does not (after a weak cue, `~tiene`, `~has`, a workplace or a company's ending: `Vale tiene Prana
    Güemes, un estudio de yoga`, not "tiene dos hijas, Sofía y Lucía"), and "I"/"je" before the cue is the agent speaking (`Je gère le calendrier`).  The words
    of such a name (and of a description after its comma: ", a mobile dog grooming van") that the
    personal domain holds, and of the clause before the cue ("a small-animal vet and co-owner of"), are
    the owner's trade (issue 23: a plumber's `plumbing`, a Kita director's
    `Kita`, a yoga teacher's `yoga` are the work in that memory, not private life); where the name holds a
    health trade's word (the lexicons' `care`: `Clinic`, `Farmacia`, `诊所`) or a lodging trade's (`lodging`:
    `Pousada`, `Guesthouse`, `民宿`), every word of that family is the trade's too, weakly (`~`: a clinic's patients, prescriptions and consultations, but also the owner's own physio).  The
    words are as the lexicon writes them (`_trade_weight`).  Pure."""
    opening = _EMPHASIS.sub("", preamble[:OPENING_WORKPLACE])
    lists = index.lists
    names: list[str] = []
    cues = sorted([(m, False) for m in lists.runs.finditer(opening)] + [(m, True) for m in lists.runs_weak.finditer(opening)],
                  key=lambda mw: mw[0].start())
    for m, weak in cues:
        if _SUBJECT_I.search(opening, max(0, m.start() - 6), m.start()):
            continue
        if has_cjk(m.group()):  # `经营一家茶厂`: the name follows, up to a clause mark
            end = _CJK_NAME_END.search(opening, m.end())
            name = opening[m.end() : end.start() if end else m.end() + 16][:16]
            names += [name] if name.strip() else []
            continue
        since = _SINCE.match(opening, m.end())  # `leitet seit 2017 die Kita …`
        begin = since.end() if since else m.end()
        end = _NAME_END.search(opening, begin)
        name = opening[begin : end.start() if end else len(opening)][:80]
        words = [w.strip("'’\"“”&+") for w in name.split()]
        described = (_DESCRIBED_AS.match(opening, end.start()) or _BRACKETED_NAME.match(opening, end.start())) if end else None
        words += described.group(1).split() if described else []  # (`runs one truck (Ruckert Freight LLC, …)`)
        if not any((w[:1].isupper() and not weak) or w.casefold() in lists.workplaces or w.casefold() in lists.company_last
                   for w in words if w):
            continue  # "runs marathons", "manages her diabetes", "tiene dos hijos": no business
        clause = opening.rfind("\n", 0, m.start()) + 1  # the clause the cue is in: who the owner is at work
        clause = max([clause] + [opening.rfind(c, 0, m.start()) + 1 for c in ".,;:!?()"])  # ("a small-animal vet and co-owner of")
        names.append(f"{opening[clause:m.start()]} {name}" + (f" {described.group(1)}" if described else ""))
    for m in lists.runs_before.finditer(opening):
        start = m.start()
        cut = max((c.end() for c in _CJK_CLAUSE_END.finditer(opening, max(0, start - 24), start)), default=max(0, start - 24))
        name = opening[cut:start]
        if _HANGUL.search(m.group()):  # `부산에서 작은 카페를 운영`: the last two words before the cue
            name = " ".join(name.split()[-2:])
        names += [name] if name.strip() else []
    if not names:
        return False, frozenset()
    scores: dict[str, float] = {}
    found: dict[str, list[str]] = {}
    trade: set[str] = set()
    for name in names:
        scores: dict[str, float] = {}
        found: dict[str, list[str]] = {}
        _score_text(name, index, scores, found)
        words = [w.casefold() for w in found.get("personal", ())]
        head = [w for w in _WORD.findall(name.casefold()) if w not in lists.company_last][-1:]
        if len(words) > 1 and words[-1] in head:  # `Onda Norte Surf School`: the trade is surf, not the school
            words.pop()
        trade.update(words)
    text = "\n".join(names)
    words = _WORD.findall(text.casefold())
    family: set[str] = set()
    for kind in lists.trades:  # `Larkspur Veterinary Clinic`, `中医诊所`: a health trade; `Pousada Maré Mansa`: a lodging one
        if any(w in kind or stem(w) in kind for w in words) or any(has_cjk(w) and w in text for w in kind):
            family |= {f"~{w}" for w in kind if w not in trade}  # whose patients and prescriptions, guests and bookings are
            # its work: weakly, as the owner's own life shares the words (a physio's `Her back`, a hotelier's own trip)
    return True, frozenset(trade) | frozenset(stem(w) for w in trade if not has_cjk(w)) | frozenset(family)


def _most_common(topics: Counter[str], skip: frozenset[str] = frozenset()) -> str | None:
    """The domain most sections were placed in (`topics`: {domain: sections}), when no other has as
    many (a tie leans nowhere) and it has at least DOCUMENT_MIN (as for the dominant domain: a few
    sections do not speak for the rest); never log or dates (a form, not a topic) nor a domain of
    `skip`; None otherwise."""
    counts = sorted(((n, d) for d, n in topics.items() if d not in _FORM_DOMAINS and d not in skip),
                    key=lambda nd: (-nd[0], nd[1]))
    if not counts or counts[0][0] < DOCUMENT_MIN or (len(counts) > 1 and counts[1][0] == counts[0][0]):
        return None
    return counts[0][1]


def _todo_of_the_document(decision: Classification, main: str, index: _Index) -> Classification:
    """A heading of only to-do words (the lexicons' `todo`: `To-do`, `Pendientes`, `À faire`, `待办`,
    `Offene Punkte`) that its words alone placed (in agents, or in projects by a word both share) holds
    the document's work: it takes the document's main domain (`main`: its dominant
    domain, else its most common one), with agents the alternate (the labelled sets: a shop's `À faire`
    is business, a household's `pendientes` personal, a devops memory's `やること` infrastructure).
    Any other decision is returned as it is."""
    if decision.decided_by != "heading" or not decision.words or main not in index.order:
        return decision
    if not all(w.casefold() in index.lists.todo for w in decision.words):
        return decision
    return Classification(main, "heading", decision.score, (*decision.words, f"(a to-do list of a memory about {main})"),
                          "agents", decision.score)


ORGANISATION = "(an organisation)"  # the mark on the word an organisation's name was told by (explain.py)
RELATIVE = "(a kin word)"  # the words of a decision the kin rule made (explain.py: not "an honorific")
WORKING_MEMORY = "(a working memory)"  # the words of a decision the document's leaning made (explain.py)
HOUSEHOLD_MEMORY = "(a household's memory)"


def _leaning(topics: Counter[str], index: _Index) -> str | None:
    """What a document with no dominant domain leans to: its most common domain (`topics`: {domain:
    sections placed}, log and dates not counted: a form, not a topic; nor agents: the agent's sections
    are in every memory) when that is business (a working memory: a freelancer's, a shop's, a
    clinic's) or personal (a household's), with at least
    DOCUMENT_MIN sections, and no other domain has as many (`_most_common`); else None.  A careful
    human files what says nothing of itself in a working memory under the work, and in a household's
    under its life (the labelled sets: most sections we left in `general` were so)."""
    top = _most_common(topics, skip=frozenset({"agents"}))  # the agent's sections are in every memory
    return top if top in ("business", "personal") and top in index.order else None




def _the_business_in_a_working_memory(decision: Classification, section: SectionInput, index: _Index,
                                      counted: bool = True) -> Classification:
    """In a working memory (more sections of business than of personal: a freelancer's, a shop's, a
    driver's), a heading of only the lexicons' `working` words (taxes, insurance, bookings: `Taxes`,
    `Impuestos`, `確定申告`, `bookings`) is the business's, with personal the alternate; so is a
    section its body put in personal when business is the runner-up with at least half the score
    (and at least 1): where the trade is health, fuel or farming (a dentist's `Turnos`, a trucker's
    `IFTA`), the body's personal words are the work's.  `counted`: the memory has more business
    sections than personal ones; without it (only the opening names a workplace) the heading rule
    does not apply, the body rule does.  In a household's memory, or when the heading calls them
    private (the lexicons' `private`: `Impôts — déclaration perso`), it stays personal; so does a trip
    the body told (a `travel` word among its personal words: `Oaxaca (puente de mayo)` over "vuelo, hotel")
    when the body names no work (the lexicons' `work_trip`: a client, a conference).
    Any other decision is returned as it is."""
    heading = section.heading
    if decision.domain == "personal" and decision.decided_by == "body" and decision.runner_up == "business" \
            and decision.runner_up_score >= max(1.0, decision.score / 2) and not index.lists.private.search(heading) \
            and not _private_trip(decision, section, index):
        return Classification("business", "body", decision.runner_up_score, (*decision.words, WORKING_MEMORY),
                              "personal", decision.score)
    if decision.domain != "personal" or decision.decided_by != "heading" or not decision.words or not counted:
        return decision  # (a workplace named in the opening alone does not make a shop's `Impôts` the shop's)
    if not all(w.casefold() in index.lists.working for w in decision.words) or index.lists.private.search(heading):
        return decision
    return Classification("business", "heading", decision.score, (*decision.words, WORKING_MEMORY),
                          "personal", decision.score)


def _private_trip(decision: Classification, section: SectionInput, index: _Index) -> bool:
    """Whether `decision`'s words (a body's personal words) hold a trip (the lexicons' `travel`) and the
    body (its first BODY_CHARS) names no work (`work_trip`) or calls it a holiday (`holiday`): the owner's
    own trip, not the trade's."""
    if not any(index.lists.travel.search(w.casefold()) for w in decision.words):
        return False
    body = section.body[:BODY_CHARS].casefold()
    return index.lists.holiday.search(body) is not None or index.lists.work_trip.search(body) is None


def is_stopword(word: str) -> bool:
    """Whether `word` (any case) is a frequent word of any lexicon language (its `stopwords`: "die",
    "und", "the"): it names no topic, so it is never a keyword to teach (teach.py)."""
    return word.casefold() in _lists().stopword_set


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
