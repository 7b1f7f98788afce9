"""Plan a flatten: the memory tree of today -> one flat MEMORY.md text, every byte accounted for.

The way back that keeps later memories (issue 14).  The migration commit says how the original
file was cut: its `Bonsai-Source` blob is the original MEMORY.md, and the files it committed
hold each piece (the preamble and every `##` section) in exactly one place: the trunk's pinned
text, one leaf, or a single-file domain such as `memory/dates.md` (`original_slots` recovers the
mapping by content, so it does not depend on the classifier of the release that migrated).

The flat text is, in order:
1. every slot of the original document, in its original place, filled with what that place
   holds today: a leaf's current text (followed through moves, `renames`), the pinned text's
   pieces, or the single-file domain's pieces.  Pinned sections go back where they were in the
   original (the round trip needs it); pinned text added later follows the piece it was
   written after.  A leaf deleted or archived since leaves its slot empty (archived leaves
   stay in `memory/archive/`: they were archived on purpose);
2. leaves added after the migration, in domain order and then index order (sorted path);
3. the inbox (text after the trunk's end marker), as it is.
Where a piece does not end a line, one line break (the file's own style) is inserted before
the next, so a `##` heading stays a heading: the only bytes flatten adds.

Right after a migration this gives the original back byte for byte (tests: hypothesis and every
corpus file).  `FlatPlan.pieces` records where each source's bytes sit in the flat text, and
`verify_flat` proves that every source (each leaf, the pinned text, the inbox) is there whole.
Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .config import SINGLE_FILE_DOMAINS
from .errors import Failed
from .layout import TRUNK, Leaf, leaf_location, parse_trunk
from .sections import BOM, split_sections

PINNED = "MEMORY.md (pinned text)"
INBOX = "MEMORY.md (inbox)"


@dataclass(frozen=True, slots=True)
class Slot:
    """One piece of the original file: where the migration put it and its text then.

    `source` is PINNED for the trunk's pinned text, else the leaf path (a single-file domain's
    path for its sections); `heading` is the piece's heading ("" for the preamble).
    """

    source: str
    heading: str
    text: str


@dataclass(frozen=True, slots=True)
class FlatPiece:
    """A run of one source's bytes in the flat text: source name, offset in the source, offset in the flat text, length (chars)."""

    source: str
    source_offset: int
    flat_offset: int
    length: int


@dataclass(frozen=True, slots=True)
class FlatPlan:
    """The flat MEMORY.md text and where each source's bytes went.

    `restored`: leaf paths placed in their original slot; `added`: leaf paths added after the
    migration (flat order); `sources`: {source name: its full text}, sorted by name.
    """

    text: str
    pieces: tuple[FlatPiece, ...]
    restored: tuple[str, ...]
    added: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]


def original_slots(original: str, migrated: Mapping[str, str]) -> tuple[Slot, ...]:
    """Map each piece of the `original` MEMORY.md text to the file the migration put it in.

    `migrated` maps workspace-relative paths to their text in the migration commit (MEMORY.md
    and the leaves; other paths are ignored).  A piece equal to a not yet used leaf's whole
    text belongs to that leaf; else to the next bytes of a single-file domain or of the pinned
    text.  Raises Failed when a piece is found nowhere (the commit is not this original's migration).
    """
    trunk = parse_trunk(migrated.get(TRUNK, ""))
    pinned = trunk.pinned if trunk is not None else ""
    leaves = sorted(p for p in migrated if leaf_location(p) is not None and p not in SINGLE_FILE_DOMAINS.values())
    by_text: dict[str, list[str]] = {}
    for path in leaves:
        by_text.setdefault(migrated[path], []).append(path)
    cursors = {path: 0 for path in SINGLE_FILE_DOMAINS.values() if path in migrated}
    cursors[PINNED] = 0
    texts = dict(migrated) | {PINNED: pinned}
    doc = split_sections(original)
    pieces = ([("", doc.preamble)] if doc.preamble else []) + [(s.heading, s.text) for s in doc.sections]
    slots = []
    for heading, text in pieces:
        free = by_text.get(text)
        if free:
            slots.append(Slot(free.pop(0), heading, text))
            continue
        source = next((s for s, at in sorted(cursors.items()) if texts[s].startswith(text, at)), None)
        if source is None:
            raise Failed(f"{TRUNK}: the section {heading or '(preamble)'!r} of the migrated original is in none of "
                         f"the migration commit's files; flatten cannot tell where it went")
        cursors[source] += len(text)
        slots.append(Slot(source, heading, text))
    return tuple(slots)


def strip_separator(pinned_now: str, pinned_then: str, original_pinned: str) -> str:
    """Today's pinned text without the line break(s) migrate put between the pinned text and the block.

    `pinned_then` is the trunk's text before the begin marker in the migration commit and
    `original_pinned` the pinned pieces of the original joined: the separator is what the
    first has beyond the second (plan._separator), removed from the end of `pinned_now` if there.
    """
    separator = pinned_then[len(original_pinned):] if pinned_then.startswith(original_pinned) else ""
    if separator and pinned_now.endswith(separator):
        return pinned_now[: len(pinned_now) - len(separator)]
    return pinned_now


def plan_flatten(
    slots: Sequence[Slot],
    pinned: str,
    leaves: Sequence[Leaf],
    inbox: str,
    renames: Mapping[str, str],
    newline: str = "\n",
) -> FlatPlan:
    """Build the flat text (see the module docstring for the order).

    `slots`: `original_slots` of the migration (empty when there is none: then everything counts
    as added later); `pinned`: today's pinned text (`strip_separator` applied); `leaves`: every
    leaf today (single-file domains included); `inbox`: the text after the end marker;
    `renames`: {path at the migration: path today} for leaves moved since.  Raises Failed if
    a source would not be reproduced whole (a bug guard).
    """
    today = {leaf.path: leaf.text for leaf in leaves}
    sources = {PINNED: pinned, INBOX: inbox, **today}
    fills: list[list[tuple[str, int, int]]] = [[] for _ in slots]  # per slot: (source, offset, length)
    top: list[tuple[str, int, int]] = []
    placed: set[str] = set()
    for source in (PINNED, *sorted(p for p in today if p in SINGLE_FILE_DOMAINS.values())):
        indices = [i for i, s in enumerate(slots) if s.source == source]
        if not indices:
            continue  # no slot then: pinned text goes on top, a single-file domain counts as added
        for i, runs in _anchor(sources[source], [slots[i] for i in indices]).items():
            fills[indices[i]].extend((source, at, n) for at, n in runs)
        placed.add(source)
    if PINNED not in placed:
        top = [(PINNED, 0, len(pinned))]
    restored: list[str] = []
    for i, slot in enumerate(slots):
        path = renames.get(slot.source, slot.source)
        if slot.source != PINNED and path in today and path not in placed:
            fills[i].append((path, 0, len(today[path])))
            placed.add(path)
            restored.append(path)
    added = sorted((p for p in today if p not in placed), key=lambda p: leaf_location(p) or ("", p))
    tail = [(p, 0, len(today[p])) for p in added]
    order = top + [run for runs in fills for run in runs] + tail + [(INBOX, 0, len(inbox))]
    text, pieces = _join(order, sources, newline)
    plan = FlatPlan(text, pieces, tuple(restored), tuple(added), tuple(sorted(sources.items())))
    verify_flat(plan, text)
    return plan


def flat_text_estimate(pinned: str, leaves: Sequence[str], inbox: str) -> str:
    """What `plan_flatten` would write, up to the order of its pieces: the pinned text, each of
    `leaves` (the texts of today's leaves, archived ones not among them) and the inbox, with one
    line break after a piece that does not end a line (the only bytes flatten adds, module
    docstring).  Its size is the flat file's to within a line break or two (the pinned text's
    separator, the last piece); the order needs the migration commit, which status does not read.
    Pure; used by status to warn before a flatten would be cut at boot (boot.boot_cut_warning)."""
    pieces = [piece for piece in (pinned, *leaves, inbox) if piece]
    return "".join(piece if piece.endswith("\n") else piece + "\n" for piece in pieces[:-1]) + (pieces[-1] if pieces else "")


def verify_flat(plan: FlatPlan, flat: str) -> None:
    """Prove `flat` (the text read back) holds every source whole: its runs tile the source exactly.

    Raises Failed naming the first source that is missing, cut or changed.
    """
    sources = dict(plan.sources)
    runs: dict[str, list[FlatPiece]] = {}
    for piece in plan.pieces:
        if flat[piece.flat_offset : piece.flat_offset + piece.length] != \
                sources[piece.source][piece.source_offset : piece.source_offset + piece.length]:
            raise Failed(f"{TRUNK}: the flat text does not hold {piece.source} as planned; the tree was restored")
        runs.setdefault(piece.source, []).append(piece)
    for source, text in sorted(sources.items()):
        at = 0
        for piece in sorted(runs.get(source, []), key=lambda p: p.source_offset):
            if piece.source_offset != at:
                break
            at += piece.length
        if at != len(text):
            raise Failed(f"{source}: not all of it would be in the flat {TRUNK} (a bug); the tree was restored")


def _anchor(text: str, slots: Sequence[Slot]) -> dict[int, list[tuple[int, int]]]:
    """Cut a shared source's text today (pinned text, `memory/dates.md`) into runs per slot.

    {slot index: [(offset, length), ...]}.  Unchanged since the migration: each slot gets its
    own piece.  Only appended to: the same, plus the rest after the last slot.  Otherwise the
    text's pieces (preamble, `##` sections) go to the first unused slot with the same heading;
    a piece with none follows the piece before it (the first slot when it comes first).
    """
    then = "".join(s.text for s in slots)
    out: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(slots))}
    if text.startswith(then):
        at = 0
        for i, slot in enumerate(slots):
            out[i] = [(at, len(slot.text))]
            at += len(slot.text)
        if at < len(text):
            out[len(slots) - 1].append((at, len(text) - at))
        return out
    doc = split_sections(text)
    pieces = ([("", doc.preamble)] if doc.preamble else []) + [(s.heading, s.text) for s in doc.sections]
    free = list(range(len(slots)))
    current, at = 0, 0
    for heading, piece in pieces:
        match = next((i for i in free if slots[i].heading == heading and i >= current), None)
        if match is not None:
            free.remove(match)
            current = match
        out[current].append((at, len(piece)))
        at += len(piece)
    return out


def _join(order: Sequence[tuple[str, int, int]], sources: Mapping[str, str],
          newline: str) -> tuple[str, tuple[FlatPiece, ...]]:
    """Concatenate the runs, inserting `newline` where a run does not end its last line."""
    parts: list[str] = []
    pieces: list[FlatPiece] = []
    length = 0
    for source, at, n in order:
        if n == 0:
            continue
        if parts and not parts[-1].endswith(("\n", "\r")) and length > len(BOM):  # a lone BOM starts the file
            parts.append(newline)
            length += len(newline)
        chunk = sources[source][at : at + n]
        pieces.append(FlatPiece(source, at, length, n))
        parts.append(chunk)
        length += n
    return "".join(parts), tuple(pieces)
