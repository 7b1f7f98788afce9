"""Plan a migration: MEMORY.md text + Config -> every file of the new tree, and a report.

Pure: no disk, no git.  The plan places every piece of the original (the preamble and each
`##` section) in exactly one file at a recorded offset, so `verify_placements` can prove,
before and after writing, that concatenating the pieces in document order gives the original
back byte for byte.

Placement rules:
- a section whose heading matches a pin rule stays verbatim in the trunk, after the preamble;
- the preamble stays in the trunk when it is small (<= `preamble_tokens`, default 40: a title
  line and a sentence) or carries a BOM or YAML front matter (they belong at the top of the
  file); otherwise it becomes the leaf `memory/domains/general/preamble.md`;
- every other section becomes one leaf in the domain its heading classifies into, named by
  `slugs.unique_leaf_names`; sections of a single-file domain (`dates`) are appended, in
  document order, to that one file (`memory/dates.md`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .classify import classify_heading, is_pinned
from .config import FALLBACK_DOMAIN, SINGLE_FILE_DOMAINS, Config
from .errors import BadInput, Failed
from .indexes import DomainStats, config_scopes, domain_stats, render_block, render_index_files, render_root_index
from .sections import BOM, split_sections
from .slugs import unique_leaf_names
from .tokens import estimate_tokens
from .tree import ROOT_INDEX, TRUNK, Leaf, parse_trunk

PREAMBLE_LEAF = "preamble"
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

    def file_map(self) -> dict[str, str]:
        """The planned files as a dict {workspace-relative path: text}."""
        return dict(self.files)


def plan_migration(original: str, config: Config) -> MigrationPlan:
    """Build the migration plan for MEMORY.md's text (str, decoded strictly from its bytes).

    Raises Failed if the plan does not reproduce the original (a bug guard, never expected).
    """
    doc = split_sections(original)
    pinned_parts: list[tuple[str, str]] = []  # (heading, text) kept in the trunk, in order
    leaf_parts: list[tuple[str, str, str, str | None]] = []  # (domain, heading, text, keyword)
    order: list[tuple[str, int]] = []  # ("pin"|"leaf", index) in document order
    preamble_leaf: int | None = None  # index in leaf_parts of the preamble, when it became a leaf
    if doc.preamble:
        if _keeps_preamble(doc.preamble, config):
            order.append(("pin", len(pinned_parts)))
            pinned_parts.append(("", doc.preamble))
        else:
            preamble_leaf = len(leaf_parts)
            order.append(("leaf", preamble_leaf))
            leaf_parts.append((FALLBACK_DOMAIN, "", doc.preamble, None))
    for section in doc.sections:
        if is_pinned(section.heading, config):
            order.append(("pin", len(pinned_parts)))
            pinned_parts.append((section.heading, section.text))
        else:
            c = classify_heading(section.heading, config)
            order.append(("leaf", len(leaf_parts)))
            leaf_parts.append((c.domain, section.heading, section.text, c.keyword))
    leaves, leaf_slots = _make_leaves(leaf_parts, preamble_leaf)
    pinned_text = "".join(text for _, text in pinned_parts)
    stats = domain_stats(leaves, config.estimator)
    newline = "\r\n" if 2 * original.count("\r\n") > original.count("\n") else "\n"
    head = pinned_text + _separator(pinned_text, newline)
    trunk = head + render_block((s.name for s in stats), newline, config_scopes(config))
    _refuse_marker_lookalikes(trunk, head)
    files = _files(leaves, stats, trunk, config)
    placements = _placements(order, pinned_parts, leaf_parts, leaf_slots)
    plan = MigrationPlan(
        files=tuple(sorted(files.items())),
        placements=placements,
        leaves=leaves,
        domains=stats,
        sections=len(doc.sections),
        pinned_sections=sum(1 for h, _ in pinned_parts if h),
        boot_tokens_before=estimate_tokens(original, config.estimator),
        boot_tokens_after=estimate_tokens(trunk, config.estimator),
    )
    verify_placements(original, plan.file_map(), plan.placements)
    return plan


def verify_placements(original: str, files: Mapping[str, str], placements: tuple[Placement, ...]) -> None:
    """Prove the tree holds the original: each piece at its offset, and the pieces join to it.

    `files` maps workspace-relative paths to their text (planned, or read back from disk).
    Raises Failed naming the first piece that is missing or differs.
    """
    pieces = []
    for p in placements:
        piece = piece_at(files, p.path, p.offset, p.length)
        if piece is None:
            raise Failed(f"{p.path}: lost the section {p.heading or '(preamble)'!r}; nothing was committed")
        pieces.append(piece)
    if "".join(pieces) != original:
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
    parts: list[tuple[str, str, str, str | None]], preamble: int | None = None,
) -> tuple[tuple[Leaf, ...], list[tuple[str, int]]]:
    """Name the leaves per domain; return them and, per part, (path, offset in that file).

    `preamble` is the index in `parts` of the preamble (named PREAMBLE_LEAF), or None when the
    preamble stayed in the trunk: a section with an empty heading (`##` alone) is a section.
    """
    by_domain: dict[str, list[int]] = {}
    for i, (domain, _h, _t, _k) in enumerate(parts):
        by_domain.setdefault(domain, []).append(i)
    slots: list[tuple[str, int]] = [("", 0)] * len(parts)
    leaves: list[Leaf] = []
    for domain, indices in sorted(by_domain.items()):
        single = SINGLE_FILE_DOMAINS.get(domain)
        if single is not None:
            offset = 0
            for i in indices:
                slots[i] = (single, offset)
                offset += len(parts[i][2])
            leaves.append(Leaf(domain, single.rsplit("/", 1)[-1], "".join(parts[i][2] for i in indices)))
            continue
        has_preamble = preamble is not None and preamble in indices
        named = [i for i in indices if i != preamble]
        names = unique_leaf_names((parts[i][1] for i in named), taken=(PREAMBLE_LEAF,) if has_preamble else ())
        pairs = ([(preamble, PREAMBLE_LEAF)] if has_preamble and preamble is not None else []) + list(zip(named, names))
        for i, name in pairs:
            leaf = Leaf(domain, f"{name}.md", parts[i][2])
            leaves.append(leaf)
            slots[i] = (leaf.path, 0)
    return tuple(sorted(leaves, key=lambda leaf: leaf.path)), slots


def _separator(pinned_text: str, newline: str) -> str:
    if not pinned_text or pinned_text.endswith(("\n\n", "\r\n\r\n")):
        return ""
    return newline if pinned_text.endswith(("\n", "\r")) else newline * 2


def _files(leaves: tuple[Leaf, ...], stats: tuple[DomainStats, ...], trunk: str, config: Config) -> dict[str, str]:
    files = {leaf.path: leaf.text for leaf in leaves}
    files.update(render_index_files(stats, config))
    files[ROOT_INDEX] = render_root_index(stats)
    files[TRUNK] = trunk
    return files


def _placements(
    order: list[tuple[str, int]],
    pinned_parts: list[tuple[str, str]],
    leaf_parts: list[tuple[str, str, str, str | None]],
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
            domain, heading, text, keyword = leaf_parts[i]
            path, off = leaf_slots[i]
            out.append(Placement(path, off, len(text), heading, keyword))
    return tuple(out)
