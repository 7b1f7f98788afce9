"""The lexicon: per language, the words and phrases a careful person associates with each domain.

The words are data, not code: `bonsai_git/data/lexicon/<lang>.toml`, one file per language
(`en`, `de`, `es`, `fr`, `pt`: matched by word stems; `zh`, `ja`, `ko`: matched as substrings).
Each file holds one list per domain (`identity = [...]`, ..., `general = [...]`) and these
non-domain lists:

- `person`: words that show a body describes a person (a heading that is a name goes to people);
- `stopwords`: frequent words that tell the language of a text (a Western language's stemmer runs
  on a section only when its language is seen, so a Portuguese stem never reads an English word);
- `fiction`: words that mark a novelist's memory (its characters and settings are projects);
- `characters`: the keywords that in such a memory name a character or a setting (people -> projects);
- `surnames` (CJK files): family names that start a personal name (`陆青禾`, `田中 健`);
- `todo`: the words of a to-do list's heading (`To-do`, `Pendientes`, `À faire`, `待办`): it holds the
  document's main work, so it takes the document's main domain (classify.py: `_todo_of_the_document`);
- `notes` (Western files): the words of a heading that only says it holds notes (`Notes`, `Notas`,
  `Notizen`): capitalised, it is no person's name, so the body and the document decide;
- `working`: the words of a heading that is the business's in a working memory and personal in a
  household's (taxes, insurance, bookings: `Taxes`, `Impuestos`, `確定申告`, `Versicherungen`;
  classify.py: `classify_document`).

Keyword marks (classify.py reads them): `~` weak, `^` headings only, `<` a heading's first word only, `=` this form only.
The package files are read once per process, the first time a section is classified (never on
the hook's no-op path); `parse_lexicon` is pure.  `.bonsai.toml` extends or replaces a domain's
words (config.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .config import DEFAULT_DOMAIN_NAMES
from .errors import BadInput

LANGUAGES = ("en", "de", "es", "fr", "pt", "zh", "ja", "ko")
# The Western languages and their snowball stemmer; the others match as substrings.
STEMMERS = {"en": "english", "de": "german", "es": "spanish", "fr": "french", "pt": "portuguese"}
SPECIAL_KEYS = ("person", "stopwords", "fiction", "characters", "surnames", "schedule", "agent_jobs", "system_jobs", "kin", "rules", "travel", "work_trip", "holiday", "pets", "working", "todo", "notes",
                "honorifics", "workplaces", "self_employed", "runs", "care", "lodging", "households", "private", "companies", "groups",
                "name_columns", "role_columns")


@dataclass(frozen=True, slots=True)
class Language:
    """One language's lexicon: domain -> keywords (marks kept), and the special lists."""

    code: str
    domains: tuple[tuple[str, tuple[str, ...]], ...]
    person: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    fiction: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()
    surnames: tuple[str, ...] = ()
    schedule: tuple[str, ...] = ()  # heading words for recurring work: whose jobs decides (agents/infrastructure)
    agent_jobs: tuple[str, ...] = ()  # what the agent does in a job: remind, draft, digest (word starts)
    system_jobs: tuple[str, ...] = ()  # what a host does: backup, prune, rotate (word starts)
    kin: tuple[str, ...] = ()  # one relative: a heading that is this word goes to people
    pets: tuple[str, ...] = ()  # a name heading over a body that opens on one of these is a pet: personal
    rules: tuple[str, ...] = ()  # what a rule for the agent opens with: never, always, don't
    travel: tuple[str, ...] = ()  # a trip in a heading ...
    work_trip: tuple[str, ...] = ()  # ... is a work trip (business) when its body names one of these
    holiday: tuple[str, ...] = ()  # ... unless it calls itself a holiday: then it is private, whatever work it mentions
    working: tuple[str, ...] = ()  # a heading of only these is business in a working memory, else personal
    todo: tuple[str, ...] = ()  # a heading of only these is a to-do list: the document's main domain's
    notes: tuple[str, ...] = ()  # a heading of only these says it holds notes: never a person's name (`Notas`)
    honorifics: tuple[str, ...] = ()  # a title before a name (`Dr.`, `Tía`); in CJK, after it (`さん`, `老师`)
    workplaces: tuple[str, ...] = ()  # a name opening with one names a business, not the owner or the agent
    self_employed: tuple[str, ...] = ()  # the owner works for themselves: an opening naming it is a working memory
    runs: tuple[str, ...] = ()  # the owner runs a business (`owns`, `leitet`, `dona da`; ja/ko: `を経営`): its name follows
    care: tuple[str, ...] = ()  # a health trade's words (`clinic`, `patients`, `prescriptions`): a clinic's are its work
    lodging: tuple[str, ...] = ()  # a lodging trade's words (`guesthouse`, `guests`, `bookings`): an inn's are its work
    households: tuple[str, ...] = ()  # a memory's title naming one names no agent (`# Memória — Casa Ferreira`)
    private: tuple[str, ...] = ()  # a heading that calls its matter the owner's own (`perso`, `私人`)
    companies: tuple[str, ...] = ()  # a company's name ends in one (`<`: opens with one; `~`: only no person's)
    groups: tuple[str, ...] = ()  # a group's name ends in one (`<`: opens with one): community
    name_columns: tuple[str, ...] = ()  # a table's first column naming each row's person (`Name`, `Nome`, `名前`) ...
    role_columns: tuple[str, ...] = ()  # ... beside a column saying what each does (`Role`, `Poste`, `担当`): staff


def parse_lexicon(text: str, code: str, domains: tuple[str, ...], source: str) -> Language:
    """Parse one lexicon file (TOML text) for language `code`.

    Every key must be a domain of `domains` or one of SPECIAL_KEYS, and every value a list of
    non-empty strings; raises BadInput naming `source` and the key otherwise.
    """
    import tomllib  # not at import time: the hook's no-op path never reads the lexicon

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{source}: not valid TOML ({exc})") from None
    out: dict[str, tuple[str, ...]] = {}
    for key, value in data.items():
        if key not in domains and key not in SPECIAL_KEYS:
            raise BadInput(f"{source}: unknown key {key!r}; a domain or one of {', '.join(SPECIAL_KEYS)}")
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise BadInput(f"{source}: {key} must be a list of non-empty strings")
        out[key] = tuple(v.strip() for v in value)
    return Language(
        code,
        tuple((d, out[d]) for d in domains if d in out),
        **{key: out.get(key, ()) for key in SPECIAL_KEYS},
    )


@functools.cache
def bundled() -> tuple[Language, ...]:
    """Every bundled language's lexicon (LANGUAGES order), read from the package once per process;
    its domains are config.DEFAULT_DOMAIN_NAMES."""
    from importlib import resources

    domains = DEFAULT_DOMAIN_NAMES
    folder = resources.files("bonsai_git") / "data" / "lexicon"
    return tuple(parse_lexicon((folder / f"{code}.toml").read_text(encoding="utf-8"), code, domains,
                               f"bonsai_git/data/lexicon/{code}.toml") for code in LANGUAGES)
