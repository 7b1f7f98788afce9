"""Plan a migration: MEMORY.md text + Config -> every file of the new tree, and a report.

Pure: no disk, no git.  The plan places every piece of the original (the preamble and each
`##` section) in exactly one file at a recorded offset, so `verify_placements` can prove,
before and after writing, that concatenating the pieces in document order gives the original
back byte for byte.

Placement rules:
- a section whose heading matches a pin rule stays verbatim in the trunk, after the preamble;
- the preamble stays in the trunk when it is small (<= `preamble_tokens`, default 150: the
  memory's title and the agent's standing framing, which tell it who it is at every boot; the
  corpus's mean boot reduction stays >= 85%, issue 24) or carries a BOM or YAML front matter (they belong at the top of the file);
  otherwise it becomes the leaf `memory/domains/general/preamble.md`, whole (one piece, like
  every section: the title line does not stay behind on its own);
- every other section becomes one leaf in the domain the scored classifier gives it
  (`classify.classify_document`: heading, body, `#` group, then the document's dominant domain),
  named by `slugs.unique_leaf_names`; sections of a single-file domain (`dates`) are appended, in
  document order, to that one file (`memory/dates.md`);
- in a domain whose leaves, listed flat, would not fit one branch index (`branch_tokens`), the
  leaves of a shared `#` group heading (2 or more) go to a sub-folder named after the group
  (`memory/domains/business/seo/keyword-research.md`, as the seed nests them): the group becomes
  a sub-branch an agent recognises.  A domain that fits stays flat.  Leaf names stay unique in
  the domain whatever their folder;
- an edited plan (`choices`, one SectionChoice per `##` section: see planfile.py) replaces the
  classifier: each section goes where its entry says (`pinned` keeps it in the trunk), under the
  leaf name the entry gives.  Names must be safe and unique per domain (BadInput otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import overload

from .branches import group_folder_room, heading_text
from .classify import Classification, SectionInput, body_of, classify_document, is_pinned
from .config import FALLBACK_DOMAIN, SINGLE_FILE_DOMAINS, Config
from .errors import BadInput, Failed
from .indexes import (
    DomainStats, FactsOf, LeafFacts, RootEntry, assemble_root_index, config_scopes, domain_fits_one_index, domain_stats,
    render_block, render_index_files, root_domain_entry,
)
from .layout import DOMAINS_DIR, ROOT_INDEX, TRUNK, Leaf, parse_trunk
from .sections import BOM, Section, SplitDocument, split_sections
from .slugs import is_leaf_path_name, leaf_name, name_key, unique_leaf_names
from .summary import summarize
from .tokens import estimate_tokens

PREAMBLE_LEAF = "preamble"
PINNED = "pinned"  # the plan's domain for a section kept verbatim in the trunk
# YAML front matter as mdit-py-plugins reads it: a first line `---`, closed by a later `---` line.
_FRONT_MATTER = re.compile(r"---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|$)", re.S)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one original piece lives: file path, char offset in that file, the piece's heading."""

    path: str
    offset: int
    length: int
    heading: str
    keyword: str | None = None
    decided_by: str = ""


@dataclass(frozen=True, slots=True)
class SectionChoice:
    """An edited plan's entry for one `##` section: its domain (`pinned`: stays in the trunk) and
    leaf name (without `.md`, after its sub-folder if any: `seo/audit`; ignored for pinned
    sections and single-file domains)."""

    domain: str
    leaf: str = ""


@dataclass(frozen=True, slots=True)
class PlannedSection:
    """Where one `##` section goes and why: heading, 1-based line, domain (`pinned` for the trunk),
    file path, leaf name (no `.md`, after its sub-folder in the domain if any; "" in the trunk),
    decided_by (classify's steps, `pin` for a pin rule, `plan` for an edited plan's entry) and the
    classifier's record (None when pinned or planned)."""

    heading: str
    line: int
    domain: str
    path: str
    decided_by: str
    classification: Classification | None

    @property
    def leaf(self) -> str:
        """The leaf name: `path` in its domain's folder without `.md` ("" in the trunk and for a
        single-file domain).  Derived, not stored: a string per section was ~0.1x the input (issue 15)."""
        if self.domain == PINNED or self.domain in SINGLE_FILE_DOMAINS:
            return ""
        return self.path[len(DOMAINS_DIR) + len(self.domain) + 2 : -len(".md")]

    @property
    def score(self) -> float:
        """The winner's points (0.0 when pinned or planned)."""
        return self.classification.score if self.classification is not None else 0.0


@dataclass(frozen=True, slots=True)
class _Part:
    """One piece headed for a leaf: domain, heading, text, why, a fixed leaf name (or None), its `#` group."""

    domain: str
    heading: str
    text: str
    classification: Classification | None
    name: str | None = None
    group: str = ""


@dataclass(frozen=True, slots=True)
class MigrationPlan:
    """Every file the migration writes ({path: text}, sorted) and how the original maps onto them."""

    files: tuple[tuple[str, str], ...]
    placements: tuple[Placement, ...]
    leaves: tuple[Leaf, ...]
    domains: tuple[DomainStats, ...]
    sections: int
    pinned_sections: int
    boot_tokens_before: int
    boot_tokens_after: int
    placed: tuple[PlannedSection, ...] = ()
    preamble_moved_tokens: int | None = None  # the whole preamble's tokens when it went to a leaf

    def file_map(self) -> dict[str, str]:
        """The planned files as a dict {workspace-relative path: text}."""
        return dict(self.files)


class SourceText:
    """MEMORY.md's text handed over to `plan_migration`, which lets go of it once it is cut into
    sections: the sections' texts are a copy of it, and holding both was 1x the input on top of
    planning's peak memory (issue 15).  The caller keeps no other reference to the text."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text: str | None = text

    def take(self) -> str:
        """The text, once (ValueError after that)."""
        text, self._text = self._text, None
        if text is None:
            raise ValueError("SourceText.take: the text was already taken")
        return text


def plan_migration(original: str | SourceText, config: Config,
                   choices: Sequence[SectionChoice] | None = None) -> MigrationPlan:
    """Build the migration plan for MEMORY.md's text (str, decoded strictly from its bytes).

    `original` as a SourceText: the text is dropped once cut into sections, and the plan is
    verified against those pieces in order (split_sections' pieces join to the text exactly)
    plus its length, instead of the text itself; the same plan results.
    `choices`: an edited plan, one SectionChoice per `##` section in document order (the caller
    has checked it matches the sections; planfile.py), or None to classify.  Raises BadInput when a
    choice's leaf name is unsafe or taken twice in a domain, Failed if the plan does not reproduce
    the original (a bug guard, never expected).
    """
    handed = isinstance(original, SourceText)
    text = original.take() if isinstance(original, SourceText) else original
    del original
    doc = split_sections(text)
    newline = "\r\n" if 2 * text.count("\r\n") > text.count("\n") else "\n"
    boot_tokens_before = estimate_tokens(text, config.estimator)
    length = len(text)
    pieces = doc.pieces() if handed else ()
    source: str | None = None if handed else text
    del text
    if choices is not None and len(choices) != len(doc.sections):
        raise BadInput(f"{TRUNK}: the plan lists {len(choices)} sections, MEMORY.md has {len(doc.sections)}")
    pinned_parts: list[tuple[str, str]] = []  # (heading, text) kept in the trunk, in order
    leaf_parts: list[_Part] = []
    order: list[tuple[str, int]] = []  # ("pin"|"leaf", index) in document order
    preamble_leaf: int | None = None  # index in leaf_parts of the preamble, when it became a leaf
    moved_tokens: int | None = None  # the preamble's tokens, when it became a leaf
    if doc.preamble:
        if _keeps_preamble(doc.preamble, config):
            order.append(("pin", len(pinned_parts)))
            pinned_parts.append(("", doc.preamble))
        else:
            preamble_leaf = len(leaf_parts)
            order.append(("leaf", preamble_leaf))
            leaf_parts.append(_Part(FALLBACK_DOMAIN, "", doc.preamble, None))
            moved_tokens = estimate_tokens(doc.preamble, config.estimator)
    decisions = _decide(doc.sections, config, choices, doc.preamble)
    section_slots: list[tuple[str, int]] = []
    for section, (domain, decision, name) in zip(doc.sections, decisions):
        if domain == PINNED:
            section_slots.append(("pin", len(pinned_parts)))
            pinned_parts.append((section.heading, section.text))
        else:
            section_slots.append(("leaf", len(leaf_parts)))
            leaf_parts.append(_Part(domain, section.heading, section.text, decision, name, section.group))
        order.append(section_slots[-1])
    leaves, leaf_slots = _make_leaves(leaf_parts, preamble_leaf)
    stats = domain_stats(leaves, config.estimator)
    facts = _index_facts(stats)  # nesting's fit check and the branch indexes read the same summaries
    if choices is None:  # an edited plan's leaf names already say their folders
        leaves, leaf_slots, stats = _nest_groups(leaves, leaf_slots, leaf_parts, stats, config, facts)
    pinned_text = "".join(text for _, text in pinned_parts)
    roots = [root_domain_entry(s) for s in stats]  # their topics are the trunk's: computed once
    head = pinned_text + _separator(pinned_text, newline)
    trunk = head + render_block((s.name for s in stats), newline, config_scopes(config),
                                {s.name: entry[3] for s, entry in zip(stats, roots)})
    _refuse_marker_lookalikes(trunk, head)
    # The placements first, then let go of the per-section records before the indexes are rendered:
    # planning's peak memory is at its end, with everything it made still held (issue 15).
    placements = _placements(order, pinned_parts, leaf_parts, leaf_slots)
    placed = _placed(doc.sections, decisions, section_slots, leaf_slots, choices is not None)
    section_count, pinned_sections = len(doc.sections), sum(1 for h, _ in pinned_parts if h)
    paths = {path: path for path, _off in leaf_slots}  # one string per leaf path, shared with the placements
    del doc, decisions, leaf_parts, pinned_parts, order, section_slots, leaf_slots
    files = _files(leaves, stats, roots, trunk, config, paths, facts)
    del paths, facts
    if source is not None:
        verify_placements(source, files, placements)
    else:
        _verify_pieces(pieces, length, files, placements)
    del pieces
    plan = MigrationPlan(
        files=tuple(sorted(files.items())),
        placements=placements,
        leaves=leaves,
        domains=stats,
        sections=section_count,
        pinned_sections=pinned_sections,
        boot_tokens_before=boot_tokens_before,
        boot_tokens_after=estimate_tokens(trunk, config.estimator),
        placed=placed,
        preamble_moved_tokens=moved_tokens,
    )
    return plan


def rule_domains(doc: SplitDocument, config: Config) -> list[str]:
    """The domain the rules give each `##` section of `doc` (MEMORY.md's split_sections), in order:
    PINNED for a section a pin rule keeps in the trunk, else the classifier's.  What plan_migration
    without an edited plan places there (its `placed[i].domain`), without naming, rendering or
    verifying a tree."""
    return [domain for domain, _decision, _name in _decide(doc.sections, config, None, doc.preamble)]


def _decide(
    sections: Sequence[Section], config: Config, choices: Sequence[SectionChoice] | None, preamble: str = "",
) -> list[tuple[str, Classification | None, str | None]]:
    """Per section: (domain or PINNED, the classifier's record or None, fixed leaf name or None);
    `preamble` (the text before the first `##`) names the owner and the agent (classify_document)."""
    if choices is not None:
        return [(c.domain, None, c.leaf if c.domain != PINNED else None) for c in choices]
    kept = [i for i, s in enumerate(sections) if not is_pinned(s.heading, config)]
    found = classify_document(_ClassifierInputs(sections, kept), config, preamble)
    out: list[tuple[str, Classification | None, str | None]] = [(PINNED, None, None)] * len(sections)
    for i, decision in zip(kept, found):
        out[i] = (decision.domain, decision, None)
    return out


class _ClassifierInputs(Sequence[SectionInput]):
    """The classifier's inputs for `sections[i]`, i in `kept`, made as they are read: each body is a
    copy of its section's text, and holding them all at once cost a copy of the whole memory."""

    def __init__(self, sections: Sequence[Section], kept: list[int]) -> None:
        self._sections, self._kept = sections, kept

    def __len__(self) -> int:
        return len(self._kept)

    @overload
    def __getitem__(self, i: int) -> SectionInput: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[SectionInput]: ...

    def __getitem__(self, i: int | slice) -> SectionInput | Sequence[SectionInput]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        s = self._sections[self._kept[i]]
        return SectionInput(s.heading, body_of(s.text), s.group)


def _placed(
    sections: Sequence[Section],
    decisions: list[tuple[str, Classification | None, str | None]],
    slots: list[tuple[str, int]],
    leaf_slots: list[tuple[str, int]],
    planned: bool,
) -> tuple[PlannedSection, ...]:
    out = []
    for section, (domain, decision, _name), (kind, i) in zip(sections, decisions, slots):
        if kind == "pin":
            out.append(PlannedSection(section.heading, section.line, PINNED, TRUNK, "plan" if planned else "pin", None))
            continue
        by = "plan" if planned else (decision.decided_by if decision is not None else "")
        out.append(PlannedSection(section.heading, section.line, domain, leaf_slots[i][0], by, decision))
    return tuple(out)


def verify_placements(original: str, files: Mapping[str, str], placements: tuple[Placement, ...]) -> None:
    """Prove the tree holds the original: each piece at its offset, and the pieces join to it.

    `files` maps workspace-relative paths to their text (planned, or read back from disk).
    Raises Failed naming the first piece that is missing or differs.
    """
    # Piece by piece, without copying the pieces or joining them: a copy of the whole memory here
    # was the top of planning's peak memory (issue 15).  Same verdicts, same order, as joining.
    for p in placements:
        text = files.get(p.path)
        if text is None or not (0 <= p.offset and 0 <= p.length and p.offset + p.length <= len(text)) and (
                piece_at(files, p.path, p.offset, p.length) is None):
            raise Failed(f"{p.path}: lost the section {p.heading or '(preamble)'!r}; nothing was committed")
    pos = 0
    for p in placements:
        text = files[p.path]
        if p.offset >= 0 and p.length >= 0:
            same = pos + p.length <= len(original) and text.startswith(original[pos : pos + p.length], p.offset)
        else:  # (a hand-made negative offset: slice semantics, as piece_at reads it)
            same = original.startswith(piece_at(files, p.path, p.offset, p.length) or "", pos)
        if not same:
            break
        pos += p.length
    else:
        if pos == len(original):
            return
    raise Failed(f"{TRUNK}: the planned tree does not reproduce the original bytes; nothing was committed")


def _verify_pieces(pieces: Sequence[str], length: int, files: Mapping[str, str],
                   placements: tuple[Placement, ...]) -> None:
    """verify_placements against the original's pieces (preamble, then each section's text: they
    join to it exactly, split_sections' invariant) and its length (chars), not the text itself."""
    for p in placements:
        text = files.get(p.path)
        if text is None or not (0 <= p.offset and 0 <= p.length and p.offset + p.length <= len(text)):
            raise Failed(f"{p.path}: lost the section {p.heading or '(preamble)'!r}; nothing was committed")
    kept = pieces[1:] if pieces and not pieces[0] else pieces  # an empty preamble has no placement
    same = len(kept) == len(placements) and sum(map(len, kept)) == length and all(
        p.length == len(piece) and files[p.path].startswith(piece, p.offset) for p, piece in zip(placements, kept))
    if not same:
        raise Failed(f"{TRUNK}: the planned tree does not reproduce the original bytes; nothing was committed")


def _refuse_marker_lookalikes(trunk: str, head: str) -> None:
    """BadInput when the kept trunk text holds marker-like lines that would make reindex misread the block.

    parse_trunk pairs the last begin line with the first end line after it, which survives a
    quoted begin line; a quoted begin *and* end pair in the pinned text cannot be told apart
    from the real block, so the migration refuses rather than hand reindex a trap.
    """
    parts = parse_trunk(trunk)
    if parts is None or parts.pinned != head:
        where = head.count("\n", 0, len(parts.pinned) if parts is not None else 0) + 1
        raise BadInput(f"{TRUNK}:{where}: the text that stays in the trunk holds lines like bonsai's markers "
                       f"(`<!-- bonsai:begin`, `<!-- bonsai:end -->`); indent or reword them, then migrate again")


def moved_preamble(plan: MigrationPlan) -> tuple[str, int] | None:
    """(the leaf path, its estimated tokens) when `plan` moves the preamble, the text before the first
    `##`, out of the trunk (over `preamble_tokens`: `_keeps_preamble`), else None."""
    first = plan.placements[0] if plan.placements else None
    if first is None or first.heading or first.path == "MEMORY.md" or plan.preamble_moved_tokens is None:
        return None
    return first.path, plan.preamble_moved_tokens


def piece_at(files: Mapping[str, str], path: str, offset: int, length: int) -> str | None:
    """The `length` chars at char `offset` of `files[path]`, or None when the file is absent or too short."""
    text = files.get(path)
    piece = None if text is None else text[offset : offset + length]
    return piece if piece is not None and len(piece) == length else None


def _keeps_preamble(preamble: str, config: Config) -> bool:
    body = preamble[len(BOM) :] if preamble.startswith(BOM) else preamble
    has_front_matter = _FRONT_MATTER.match(body) is not None
    return (
        not body.strip()
        or preamble.startswith(BOM)
        or has_front_matter
        or estimate_tokens(preamble, config.estimator) <= config.preamble_tokens
    )


def _make_leaves(
    parts: list[_Part], preamble: int | None = None,
) -> tuple[tuple[Leaf, ...], list[tuple[str, int]]]:
    """Name the leaves per domain; return them and, per part, (path, offset in that file).

    `preamble` is the index in `parts` of the preamble (named PREAMBLE_LEAF), or None when the
    preamble stayed in the trunk: a section with an empty heading (`##` alone) is a section.
    Parts with a fixed name (an edited plan) keep it; BadInput when it is unsafe or taken.
    """
    by_domain: dict[str, list[int]] = {}
    for i, part in enumerate(parts):
        by_domain.setdefault(part.domain, []).append(i)
    slots: list[tuple[str, int]] = [("", 0)] * len(parts)
    leaves: list[Leaf] = []
    for domain, indices in sorted(by_domain.items()):
        single = SINGLE_FILE_DOMAINS.get(domain)
        if single is not None:
            offset = 0
            for i in indices:
                slots[i] = (single, offset)
                offset += len(parts[i].text)
            leaves.append(Leaf(domain, single.rsplit("/", 1)[-1], "".join(parts[i].text for i in indices)))
            continue
        has_preamble = preamble is not None and preamble in indices
        named = [i for i in indices if i != preamble]
        fixed = [i for i in named if parts[i].name is not None]
        taken = _fixed_names(domain, [(parts[i].heading, parts[i].name or "") for i in fixed], has_preamble)
        free = [i for i in named if parts[i].name is None]
        reserved = [PREAMBLE_LEAF] if has_preamble else []
        names = unique_leaf_names((parts[i].heading for i in free), taken=reserved + taken)
        pairs = ([(preamble, PREAMBLE_LEAF)] if has_preamble and preamble is not None else [])
        pairs += [(i, parts[i].name or "") for i in fixed] + list(zip(free, names))
        for i, name in pairs:
            leaf = Leaf(domain, f"{name}.md", parts[i].text)
            leaves.append(leaf)
            slots[i] = (leaf.path, 0)
    return tuple(sorted(leaves, key=lambda leaf: leaf.path)), slots


def _index_facts(stats: tuple[DomainStats, ...]) -> FactsOf:
    """The LeafFacts of each leaf of a folder domain in `stats` (its tokens taken from them), each leaf
    summarised once: nesting's fit check (`_nest_groups`) and the branch indexes both read the
    summaries, most of a plan's rendering time (issue 23).  `root_summary` is None (not worked
    out): the root index summarises each domain's largest leaf itself.  Keyed by the leaf's text,
    which is all the facts depend on (a nested leaf keeps its text under a new name)."""
    known = {leaf.text: LeafFacts(tokens, summarize(leaf.text), None, heading_text(leaf.text))
             for s in stats if s.name not in SINGLE_FILE_DOMAINS for leaf, tokens in s.leaves}
    return lambda leaf: known[leaf.text]


def _nest_groups(
    leaves: tuple[Leaf, ...], slots: list[tuple[str, int]], parts: list[_Part], stats: tuple[DomainStats, ...],
    config: Config, facts: FactsOf,
) -> tuple[tuple[Leaf, ...], list[tuple[str, int]], tuple[DomainStats, ...]]:
    """Move the leaves of a shared `#` group into a sub-folder named after it, in domains too large for one index.

    Per folder domain, the groups of 2+ leaves (at most `branches.group_folder_room`, the largest
    first, ties in document order), unless one group would hold every leaf of the domain (a
    folder that divides nothing) or the domain's leaves listed flat fit one index
    (`indexes.domain_fits_one_index`).  The folder is the group heading's `leaf_name`, unique in
    the domain (`-2`, ...); the leaf keeps its name.  `stats` are the leaves' `domain_stats`, `facts`
    their LeafFacts (`_index_facts`, for every folder domain's leaf).  Returns the leaves (sorted by
    path), `slots` with the moved parts' paths and `stats` with the moved leaves renamed.  Pure and
    deterministic: document order decides ties.
    """
    by_domain: dict[str, dict[str, list[int]]] = {}  # domain -> group heading -> part indices, document order
    for i, part in enumerate(parts):
        if part.group and part.domain not in SINGLE_FILE_DOMAINS:
            by_domain.setdefault(part.domain, {}).setdefault(part.group, []).append(i)
    stats_of = {s.name: s for s in stats}
    moved: dict[str, str] = {}  # old leaf path -> new leaf name in its domain
    for domain, groups in sorted(by_domain.items()):
        shared = sorted(((g, idx) for g, idx in groups.items() if len(idx) >= 2),
                        key=lambda gi: (-len(gi[1]), gi[1][0]))
        chosen = sorted(shared[: group_folder_room(config.branch_tokens)], key=lambda gi: gi[1][0])
        in_domain = stats_of[domain]
        if not chosen or (len(chosen) == 1 and len(chosen[0][1]) == len(in_domain.leaves)):
            continue
        if domain_fits_one_index(in_domain, config, facts):
            continue
        for folder, (_group, indices) in zip(unique_leaf_names(g for g, _ in chosen), chosen):
            for i in indices:
                old = slots[i][0]
                moved[old] = f"{folder}/{old.rsplit('/', 1)[-1]}"
    if not moved:
        return leaves, slots, stats
    nested = [Leaf(leaf.domain, moved.get(leaf.path, leaf.name), leaf.text) for leaf in leaves]
    new_path = {leaf.path: nest.path for leaf, nest in zip(leaves, nested)}
    changed = {leaf.domain for leaf in leaves if leaf.path in moved}
    restated = {s.name: s for s in domain_stats((leaf for leaf in nested if leaf.domain in changed),
                                                config.estimator, facts)}
    return (tuple(sorted(nested, key=lambda leaf: leaf.path)), [(new_path.get(p, p), off) for p, off in slots],
            tuple(restated.get(s.name, s) for s in stats))


def _fixed_names(domain: str, entries: list[tuple[str, str]], has_preamble: bool) -> list[str]:
    """Check an edited plan's leaf names in one domain; return them.  BadInput naming the heading of
    the first name that is unsafe (not what slugs.leaf_name keeps as is) or taken twice."""
    used = {PREAMBLE_LEAF} if has_preamble else set()
    for heading, name in entries:
        if not is_leaf_path_name(name):
            raise BadInput(f"plan: section {heading!r}: unsafe leaf name {name!r} (use lowercase letters, digits "
                           f"and '-', a sub-folder before a '/', e.g. {leaf_name(name or heading)!r})")
        if name_key(name) in used:
            raise BadInput(f"plan: section {heading!r}: leaf name {name!r} is used twice in {domain}")
        used.add(name_key(name))
    return [name for _h, name in entries]


def _separator(pinned_text: str, newline: str) -> str:
    if not pinned_text or pinned_text.endswith(("\n\n", "\r\n\r\n")):
        return ""
    return newline if pinned_text.endswith(("\n", "\r")) else newline * 2


def _files(leaves: tuple[Leaf, ...], stats: tuple[DomainStats, ...], roots: list[RootEntry], trunk: str,
           config: Config, paths: Mapping[str, str], facts: FactsOf) -> dict[str, str]:
    """{path: text} of every planned file; a leaf's path is the string in `paths` ({path: path}) when there is one.
    `roots` are the domains' `root_domain_entry` (in `stats` order), `facts` the leaves' `_index_facts`."""
    files = {paths.get(path := leaf.path, path): leaf.text for leaf in leaves}
    files.update(render_index_files(stats, config, facts))
    files[ROOT_INDEX] = assemble_root_index(roots)
    files[TRUNK] = trunk
    return files


def _placements(
    order: list[tuple[str, int]],
    pinned_parts: list[tuple[str, str]],
    leaf_parts: list[_Part],
    leaf_slots: list[tuple[str, int]],
) -> tuple[Placement, ...]:
    pin_offsets, offset = [], 0
    for _h, text in pinned_parts:
        pin_offsets.append(offset)
        offset += len(text)
    out = []
    for kind, i in order:
        if kind == "pin":
            heading, text = pinned_parts[i]
            out.append(Placement(TRUNK, pin_offsets[i], len(text), heading))
        else:
            part = leaf_parts[i]
            path, off = leaf_slots[i]
            c = part.classification
            out.append(Placement(path, off, len(part.text), part.heading, c.keyword if c else None,
                                 c.decided_by if c else ("plan" if part.name is not None else "")))
    return tuple(out)
