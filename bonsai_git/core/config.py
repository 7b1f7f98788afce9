"""Configuration: the optional `.bonsai.toml` at the workspace root, and every default.

Every key has a default, so the file is never required.  Shape (DESIGN.md §2):

    min_tokens = 1000            # refuse smaller files unless --force
    preamble_tokens = 150        # a larger preamble becomes the leaf general/preamble.md
    pinned = ["Core Rules"]      # extra pin rules: whole words/phrases or exact headings
    absorb = true                # the hook moves `##` sections after the end marker into leaves
    branch_tokens = 1800         # no index file grows past this: bigger ones split into sub-branches
    [tokens]
    estimator = "script-aware"   # or "chars4"
    [domains]                    # listed domains come first, in this order; a default domain
    marketing = ["campaign"]     # listed here gets these keywords instead of its defaults
    [domains.research]           # the table shape also takes a one-line scope
    keywords = ["paper", "~study"]
    scope = "papers, studies and reading notes"
    [domains.personal]           # `extend` adds words to a domain's lexicon words
    extend = ["apiary", "~allotment"]
    [commit]
    subject = "bonsai: migrate MEMORY.md into {domains} domains ({before} -> {after} boot tokens)"
    [secrets]
    allow = ["sha256:0123456789abcdef"]  # values that are not secrets, by the fingerprint a warning prints

The subject's placeholders are {domains} {before} {after} {sections}; any other field, a
positional `{0}`/`{}`, an unbalanced brace or a format spec that does not render is refused
when the file is parsed (BadInput, exit 3), never at commit time.

Parsing is pure (`parse_config(text)`); `workspace.load_config(path)` only reads the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .errors import BadInput
from .tokens import ESTIMATORS

CONFIG_FILE = ".bonsai.toml"
FALLBACK_DOMAIN = "general"
DEFAULT_SUBJECT = "bonsai: migrate MEMORY.md into {domains} domains ({before} -> {after} boot tokens)"
# The commit subject's placeholders, with a sample of the type each gets (transaction.commit_message).
SUBJECT_FIELDS: dict[str, object] = {"domains": 7, "before": "6,340", "after": "256", "sections": 23}
MAX_DOMAIN_NAME = 60
# The bound on every index file (issue 24): an index stays one file while a reader takes it in at
# a glance, about 40 entries.  Measured on the shared corpus (`python benchmarks/bench_lookup.py`:
# every file planned with the default config, each of its 406 folder leaves' index entries
# estimated): an entry is 38 tokens at the median, 43 at p90, so 40 entries at p90 plus the title
# lines is ~1,742 tokens, rounded up.  (Issue 11's 260 split a domain of 8 leaves into 4 files.)
# Below MIN_BRANCH_TOKENS an index holds too few entries.
DEFAULT_BRANCH_TOKENS = 1800
MIN_BRANCH_TOKENS = 150
# The preamble (the memory's title and the agent's standing framing) stays in the trunk up to
# this many tokens (issue 24: it tells the agent who it is; 40 moved most of them out of boot).
DEFAULT_PREAMBLE_TOKENS = 150

# The default domains, in table order (ties between equal scores break by this order).  Their words
# are the lexicon's (bonsai_git/data/lexicon/<lang>.toml, lexicon.py; issue 23), so a default domain's
# entry here holds no keywords: an empty tuple means "the lexicon's words".  `.bonsai.toml` may
# replace them (`name = [...]`, `keywords = [...]`) or add to them (`extend = [...]`); the added
# words are kept in this tuple.  Keyword syntax (classify.py): a word matches whole words in every
# form its stemmer joins; several words match as a phrase; CJK keywords match as substrings; a
# leading `~` makes a keyword weak, `^` counts it in headings only, `=` matches that form only.
DEFAULT_DOMAIN_NAMES: tuple[str, ...] = (
    "identity", "people", "business", "projects", "infrastructure", "agents", "community", "legal",
    "personal", "log", "dates", "general",
)
DEFAULT_DOMAINS: tuple[tuple[str, tuple[str, ...]], ...] = tuple((name, ()) for name in DEFAULT_DOMAIN_NAMES)
# One line per domain saying what it holds (issue 10; ../shared/corpus/LABELS.md draws the borders).
# The trunk shows these, `explain` and the README list them; `.bonsai.toml` may set a domain's scope.
DOMAIN_SCOPES: dict[str, str] = {  # short: the trunk loads one line per domain at every boot
    "identity": "the owner: who they are, family, preferences",
    "people": "other people, teams, contacts (Person: X)",
    "business": "the owner's work: company, clients, products, sales",
    "projects": "projects with goals and status (Project: X)",
    "infrastructure": "hosts, services, tools, config, incidents",
    "agents": "the agent, other agents, its rules and routines",
    "community": "communities, meetups and groups",
    "legal": "contracts, compliance, privacy, legal matters",
    "personal": "health, fitness, money, home, travel, hobbies",
    "log": "dated entries, reviews, changelogs",
    "dates": "birthdays, anniversaries, renewals, deadlines",
    "general": "whatever fits nowhere else",
}


def domain_scope(name: str, scopes: Mapping[str, str] | None = None) -> str:
    """The one-line scope (str) of domain `name`: `scopes` (from `.bonsai.toml`, `Config.scopes`)
    first, then DOMAIN_SCOPES; "" for a configured domain that was given none."""
    if scopes and name in scopes:
        return scopes[name]
    return DOMAIN_SCOPES.get(name, "")


# Domains stored as one file (sections appended in document order), not a folder of leaves.
SINGLE_FILE_DOMAINS = {"dates": "memory/dates.md"}
DEFAULT_PIN_RULES = ("📌", "pinned", "always loaded")


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting, resolved: domain table (ordered), pin rules, budgets in tokens.

    `scopes` holds the scope lines `.bonsai.toml` gave ({domain: line}; read them with
    `domain_scope(name, config.scopes)`); `configured` names the domains whose keywords came from
    `.bonsai.toml` (a placement they decide says decided_by "config").
    """

    domains: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_DOMAINS
    scopes: Mapping[str, str] = field(default_factory=dict, hash=False)
    configured: tuple[str, ...] = ()
    pinned: tuple[str, ...] = DEFAULT_PIN_RULES
    min_tokens: int = 1000
    preamble_tokens: int = DEFAULT_PREAMBLE_TOKENS
    branch_tokens: int = DEFAULT_BRANCH_TOKENS
    estimator: str = "script-aware"
    absorb: bool = True
    subject: str = DEFAULT_SUBJECT
    secret_allow: frozenset[str] = frozenset()
    source: str = field(default="defaults", compare=False)


def parse_config(text: str, source: str = CONFIG_FILE) -> Config:
    """Parse `.bonsai.toml` text (str) into a Config; unknown keys are refused.

    Raises BadInput naming `source` and the key when the TOML or a value is invalid.
    """
    import tomllib  # not at import time: most workspaces have no .bonsai.toml (the hook's path)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{source}: not valid TOML ({exc}); fix it or delete it") from None
    known = {"min_tokens", "preamble_tokens", "branch_tokens", "pinned", "absorb", "tokens", "domains", "commit",
             "secrets"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise BadInput(f"{source}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(known))}")
    cfg = Config(source=source)
    cfg = replace(cfg, min_tokens=_int(data, "min_tokens", cfg.min_tokens, source))
    cfg = replace(cfg, preamble_tokens=_int(data, "preamble_tokens", cfg.preamble_tokens, source))
    branch_tokens = _int(data, "branch_tokens", cfg.branch_tokens, source)
    if branch_tokens < MIN_BRANCH_TOKENS:
        raise BadInput(f"{source}: branch_tokens must be at least {MIN_BRANCH_TOKENS}")
    cfg = replace(cfg, branch_tokens=branch_tokens)
    cfg = replace(cfg, pinned=DEFAULT_PIN_RULES + _strings(data.get("pinned", []), "pinned", source))
    absorb = data.get("absorb", True)
    if not isinstance(absorb, bool):
        raise BadInput(f"{source}: absorb must be true or false")
    estimator = _table(data, "tokens", ("estimator",), source).get("estimator", cfg.estimator)
    if estimator not in ESTIMATORS:
        raise BadInput(f"{source}: tokens.estimator must be one of {', '.join(ESTIMATORS)}")
    subject = _table(data, "commit", ("subject",), source).get("subject", cfg.subject)
    if not isinstance(subject, str) or not subject.strip() or not is_one_line(subject):
        raise BadInput(f"{source}: commit.subject must be a one-line string (no line break: CR, LF, U+2028...)")
    _check_subject(subject, source)
    domains, scopes, configured = _domains(data.get("domains", {}), source)
    allow = _secret_allow(_table(data, "secrets", ("allow",), source).get("allow", []), source)
    return replace(cfg, absorb=absorb, estimator=estimator, subject=subject, domains=domains,
                   scopes=scopes, configured=configured, secret_allow=allow)


def _table(data: dict[str, object], key: str, allowed_keys: tuple[str, ...], source: str) -> dict[str, object]:
    """The table `[key]` of `data` ({} when absent); BadInput naming `source` and the key when it is
    not a table or holds a key outside `allowed_keys`."""
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise BadInput(f"{source}: {key} must be a table ([{key}] with {', '.join(allowed_keys)})")
    unknown = sorted(set(table) - set(allowed_keys))
    if unknown:
        raise BadInput(f"{source}: unknown key {key + '.' + unknown[0]!r}; known keys in [{key}]: "
                       f"{', '.join(allowed_keys)}")
    return table


def _int(data: dict[str, object], key: str, default: int, source: str) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadInput(f"{source}: {key} must be a whole number >= 0")
    return value


def _strings(value: object, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise BadInput(f"{source}: {key} must be a list of non-empty strings")
    if not all(is_one_line(v) for v in value):
        raise BadInput(f"{source}: {key} must be a list of one-line strings (no line break: CR, LF, U+2028...)")
    return tuple(value)


def _secret_allow(value: object, source: str) -> frozenset[str]:
    """`[secrets] allow`: fingerprints (`sha256:` and 16 hex digits, secretscan.fingerprint) of values
    that are not secrets.  Anything else is refused without echoing it: it may be the value itself."""
    from .secretscan import FINGERPRINT  # the one definition of the shape

    if not isinstance(value, list):
        raise BadInput(f"{source}: secrets.allow must be a list of fingerprints (\"sha256:…\" as warnings print "
                       "them)")
    for number, entry in enumerate(value, 1):
        if not isinstance(entry, str) or not FINGERPRINT.fullmatch(entry):
            raise BadInput(f"{source}: secrets.allow entry {number} is not a fingerprint (\"sha256:\" and 16 hex "
                           "digits, as a warning prints it); never write the value itself there")
    return frozenset(value)


def _domains(
    table: object, source: str,
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], dict[str, str], tuple[str, ...]]:
    """([domains] table) -> (domain table, scopes, names whose keywords were configured).

    Two shapes, mixable: `name = ["kw", ...]` (the original shape: keywords only) and
    `[domains.name]` with `keywords = [...]` and/or `scope = "one line"`.  A default domain given
    only a scope keeps its default keywords.  Listed domains come first, in file order.
    """
    if not isinstance(table, dict):
        raise BadInput(f"{source}: [domains] must be a table of name = [keywords]")
    defaults = dict(DEFAULT_DOMAINS)
    listed: list[tuple[str, tuple[str, ...]]] = []
    scopes: dict[str, str] = {}
    configured: list[str] = []
    for name, value in table.items():
        if not is_domain_name(name) or name in (FALLBACK_DOMAIN, "pinned"):  # a plan's "pinned" means the trunk
            raise BadInput(f"{source}: domain name {name!r} must be lowercase letters, digits or '-' "
                           f"(at most {MAX_DOMAIN_NAME}, not {FALLBACK_DOMAIN!r} or 'pinned')")
        where = f"domains.{name}"
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"keywords", "extend", "scope"})
            if unknown:
                raise BadInput(f"{source}: unknown key {where + '.' + unknown[0]!r}; known keys in "
                               f"[{where}]: keywords, extend, scope")
            if "keywords" in value and "extend" in value:
                raise BadInput(f"{source}: [{where}] takes keywords (replace the words) or extend (add to "
                               "them), not both")
            scope = value.get("scope")
            if scope is not None:
                if not isinstance(scope, str) or not scope.strip() or not is_one_line(scope):
                    raise BadInput(f"{source}: {where}.scope must be a one-line string (no line break: CR, LF, "
                                   "U+2028...)")
                scopes[name] = scope.strip()
            if "keywords" in value:
                keywords = _strings(value["keywords"], f"{where}.keywords", source)
                configured.append(name)
            elif "extend" in value:  # the lexicon's words (a default domain) and these
                keywords = _strings(value["extend"], f"{where}.extend", source)
            else:
                keywords = defaults.get(name, ())
        else:
            keywords = _strings(value, where, source)
            configured.append(name)
        listed.append((name, keywords))
    names = {n for n, _ in listed}
    domains = tuple(listed) + tuple(d for d in DEFAULT_DOMAINS if d[0] not in names)
    return domains, scopes, tuple(configured)


def is_one_line(text: str) -> bool:
    """True when `text` holds no line break of any kind: LF, CR, VT, FF, FS/GS/RS, NEL, U+2028, U+2029
    (str.splitlines' set).  Scopes and the commit subject are rendered into the trunk's block and the
    commit; a bare CR there reads as a new line to CommonMark and to a reader, so a scope could
    inject what looks like a second end marker and a `## heading` (issue 21 §7)."""
    return "".join(text.splitlines()) == text


def is_domain_name(name: str) -> bool:
    """True for a usable domain folder name: lowercase letters (any script), digits and `-`, not
    starting with `-` (so never `_`/`.`-prefixed), at most MAX_DOMAIN_NAME chars, and written in its
    NFKC form: a fullwidth `ｐeople` or a ligature would be a folder that only looks like `people`."""
    import unicodedata

    return 0 < len(name) <= MAX_DOMAIN_NAME and name == name.lower() and all(
        ch.isalnum() or ch == "-" for ch in name
    ) and not name.startswith("-") and unicodedata.normalize("NFKC", name) == name


def _check_subject(subject: str, source: str) -> None:
    """Refuse a commit.subject that `str.format` with SUBJECT_FIELDS would not render (BadInput)."""
    import string

    allowed = " ".join(f"{{{name}}}" for name in SUBJECT_FIELDS)
    where = f"{source}: commit.subject {subject!r}"
    try:
        fields = [f for _lit, f, _spec, _conv in string.Formatter().parse(subject) if f is not None]
    except ValueError as exc:
        raise BadInput(f"{where}: {exc} (write {{{{ and }}}} for a literal brace); "
                       f"allowed placeholders: {allowed}") from None
    for name in fields:
        if name not in SUBJECT_FIELDS:
            raise BadInput(f"{where}: unknown placeholder {{{name}}}; allowed placeholders: {allowed}")
    try:
        subject.format(**SUBJECT_FIELDS)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise BadInput(f"{where}: cannot be rendered ({type(exc).__name__}: {exc}); "
                       f"allowed placeholders: {allowed}, without a format spec") from None
