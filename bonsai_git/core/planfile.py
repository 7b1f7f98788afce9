"""The editable migration plan (`migrate --dry-run --plan-out plan.toml`, `migrate --plan plan.toml`).

One `[[section]]` entry per `##` section of MEMORY.md, in document order: `heading` and `line`
(which section: both must still match MEMORY.md), `domain` (where it goes: a domain of the table,
`pinned` to keep it verbatim in the trunk, or a new domain defined under `[domains]` in the plan
or in `.bonsai.toml`), `leaf` (the file name without `.md`, after its sub-folder in the domain
if it has one: `seo/keyword-research`, see plan.py), and, for the reader, `decided_by` and
`score` (ignored when read back).  `[domains]` in the plan defines new domains: `name = "scope"`.
A heading holding a secret-looking value is written masked (`secretscan.mask_output`, the rule
for everything bonsai-git writes outside a leaf) and matches its section masked when read back.

Written by hand, deterministically (same plan, same bytes; TOML basic strings escaped per the
TOML 1.0 spec), read back with tomllib.  `read_plan` refuses (BadInput, exit 3), naming the first
bad entry: a plan that no longer matches MEMORY.md's sections, an unknown domain, an unsafe or
duplicate leaf name, an unknown key.  Pure: text in, data out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .config import (FALLBACK_DOMAIN, MAX_DOMAIN_NAME, SINGLE_FILE_DOMAINS, Config, domain_scope, is_domain_name,
                     is_one_line)
from .errors import BadInput
from .plan import PINNED, MigrationPlan, SectionChoice
from .sections import Section
from .secretscan import mask_output
from .slugs import is_leaf_path_name, leaf_name, name_key

PLAN_VERSION = 1
_ENTRY_KEYS = frozenset({"heading", "line", "domain", "leaf", "decided_by", "score"})
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """An edited plan, checked: one SectionChoice per section, and the config extended with the
    domains the plan defined (no keywords; their scope lines in `config.scopes`)."""

    choices: tuple[SectionChoice, ...]
    config: Config


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: backslash, quote and control characters escaped."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def render_plan(plan: MigrationPlan, config: Config, source: str = "MEMORY.md") -> str:
    """The plan file's text for `plan` (str): a commented header, the domains, one entry per section."""
    names = [name for name, _ in config.domains]
    if FALLBACK_DOMAIN not in names:
        names.append(FALLBACK_DOMAIN)
    lines = [
        f"# bonsai-git migration plan for {source}: one [[section]] per `##` section, in order.",
        "# Edit `domain` (or `pinned` to keep a section in the trunk) and `leaf` (file name without .md,",
        "# after its sub-folder in the domain if any: `seo/keyword-research`),",
        "# then run: bonsai-git migrate --plan <this file>.  Keep `heading` and `line` as they are: they",
        "# say which section an entry is, and a plan that no longer matches MEMORY.md is refused.",
        "# Review first: entries in general, and those with a low score (1.0 or less) or decided_by",
        "# body/group/document.  A new domain needs a line under [domains]: name = \"one-line scope\".",
        "# Domains:",
        *(f"#   {n:<15} {domain_scope(n, config.scopes)}" for n in names),
        "",
        f"version = {PLAN_VERSION}",
        f"source = {toml_string(source)}",
        "",
        "[domains]",
        "",
    ]
    for p in plan.placed:
        lines += [
            "[[section]]",
            f"heading = {toml_string(mask_output(p.heading))}",
            f"line = {p.line}",
            f"domain = {toml_string(p.domain)}",
            f"leaf = {toml_string(p.leaf)}",
            f"decided_by = {toml_string(p.decided_by)}",
            f"score = {p.score:.1f}",
            "",
        ]
    return mask_output("\n".join(lines))  # users save plans in the workspace and commit them (issue 25)


def read_plan(text: str, sections: Sequence[Section], config: Config, source: str = "plan.toml") -> ReadPlan:
    """Check an edited plan (`text`) against MEMORY.md's `sections` (split_sections order).

    Returns the choices and the config extended with the plan's new domains.  Raises BadInput
    naming `source` and the first bad entry (1-based) when the plan is not valid TOML, lists other
    sections than MEMORY.md has, names an unknown domain, or gives an unsafe or duplicate leaf name.
    """
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{source}: not valid TOML ({exc}); fix it or write a new one with "
                       "bonsai-git migrate --dry-run --plan-out") from None
    unknown = sorted(set(data) - {"version", "source", "domains", "section"})
    if unknown:
        raise BadInput(f"{source}: unknown key {unknown[0]!r}; known keys: version, source, [domains], [[section]]")
    if data.get("version") != PLAN_VERSION:
        raise BadInput(f"{source}: version must be {PLAN_VERSION}; write a new plan with migrate --dry-run --plan-out")
    config = _with_plan_domains(data.get("domains", {}), config, source)
    entries = data.get("section", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise BadInput(f"{source}: [[section]] entries expected")
    known = {name for name, _ in config.domains} | {FALLBACK_DOMAIN, PINNED}
    choices = []
    used: dict[tuple[str, str], int] = {}
    for n, (entry, section) in enumerate(zip(entries, sections), start=1):
        choices.append(_choice(entry, section, n, known, used, source))
    if len(entries) != len(sections):
        n = min(len(entries), len(sections)) + 1
        raise BadInput(f"{source}: entry {n}: the plan lists {len(entries)} sections, MEMORY.md has "
                       f"{len(sections)}; write a fresh plan with bonsai-git migrate --dry-run --plan-out")
    return ReadPlan(tuple(choices), config)


def _choice(entry: dict[str, object], section: Section, n: int, known: set[str],
            used: dict[tuple[str, str], int], source: str) -> SectionChoice:
    where = f"{source}: entry {n} ({entry.get('heading')!r})"
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise BadInput(f"{where}: unknown key {unknown[0]!r}; keys: {', '.join(sorted(_ENTRY_KEYS))}")
    if entry.get("heading") not in (section.heading, mask_output(section.heading)) or entry.get("line") != section.line:
        raise BadInput(f"{where}: no longer matches MEMORY.md (line {section.line} is {section.heading!r}); "
                       "write a fresh plan with bonsai-git migrate --dry-run --plan-out")
    domain = entry.get("domain")
    if not isinstance(domain, str) or domain not in known:
        raise BadInput(f"{where}: unknown domain {domain!r}; use one of the table, {PINNED!r}, or define it "
                       f"under [domains] in the plan (name = \"scope\") or in .bonsai.toml")
    if domain == PINNED or domain in SINGLE_FILE_DOMAINS:
        return SectionChoice(domain, "")
    leaf = entry.get("leaf")
    if not isinstance(leaf, str) or not is_leaf_path_name(leaf):
        # (`preamble` is a name like any other: a section headed `## Preamble` gets it when the preamble stays in
        # the trunk; when the preamble moves to that domain's `preamble.md`, the plan refuses it as used twice)
        suggestion = leaf_name(leaf if isinstance(leaf, str) and leaf else section.heading)
        raise BadInput(f"{where}: unsafe leaf name {leaf!r}; use lowercase letters, digits and '-', a "
                       f"sub-folder before a '/' (e.g. {suggestion!r})")
    key = (domain, name_key(leaf))
    if key in used:
        raise BadInput(f"{where}: leaf {leaf!r} is already used in {domain} by entry {used[key]}")
    # The same file name in two folders of one domain (`a/x`, `b/x`): move, archive and purge take a
    # leaf by its name, and would refuse both as ambiguous ever after (issue 21 §4).
    base_key = (domain, "/" + name_key(leaf.rpartition("/")[2]))
    if base_key in used:
        raise BadInput(f"{where}: leaf name {leaf.rpartition('/')[2]!r} is already used in {domain} by entry "
                       f"{used[base_key]} (in another folder), so the name would be ambiguous; give it another "
                       "name")
    used[key] = used[base_key] = n
    return SectionChoice(domain, leaf)


def _with_plan_domains(table: object, config: Config, source: str) -> Config:
    """`config` plus the domains the plan's [domains] table defines (name = "scope"), after the others."""
    if not isinstance(table, dict):
        raise BadInput(f"{source}: [domains] must be a table of name = \"scope\"")
    existing = {name for name, _ in config.domains}
    added: list[tuple[str, tuple[str, ...]]] = []
    scopes = dict(config.scopes)
    for name, scope in table.items():
        if not is_domain_name(name) or name in (FALLBACK_DOMAIN, PINNED):
            raise BadInput(f"{source}: domain name {name!r} must be lowercase letters, digits or '-' "
                           f"(at most {MAX_DOMAIN_NAME}, not {FALLBACK_DOMAIN!r} or {PINNED!r})")
        if not isinstance(scope, str) or not is_one_line(scope):
            raise BadInput(f"{source}: domains.{name} must be a one-line scope string (no line break: CR, LF, "
                           "U+2028...)")
        if scope.strip():
            scopes[name] = scope.strip()
        if name not in existing:
            added.append((name, ()))
    if not added and scopes == dict(config.scopes):
        return config
    return replace(config, domains=config.domains + tuple(added), scopes=scopes)
