"""Is a commit exactly a migration?  Decided from its content, not from its message alone.

A migration commit (transaction.py, DESIGN.md §5) changes exactly this, in its workspace:
MEMORY.md rewritten into the trunk; new files under `memory/`: leaves (each one `##` section of
the original, byte for byte), single-file domains such as `memory/dates.md` (sections of the
original in order), branch indexes `memory/domains/**/_index*.md` and the root index
`memory/_index.md`.  The trunk's pinned text is the original's pinned pieces (plus the line
break migrate puts before the block) and nothing follows the end marker.

A squash merge of a branch that migrated and then edited a leaf or `AGENTS.md` carries the
`Bonsai-Migration` trailers too (GitHub's default squash message puts them mid-body), and
`git revert` of it would throw the later work away (issue 22).  `migration_surplus` names what
such a commit holds beyond a migration, so rollback can refuse it.  Pure: texts in, reasons out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .branches import is_index_name
from .config import SINGLE_FILE_DOMAINS
from .errors import Failed
from .flatplan import PINNED, original_slots
from .layout import DOMAINS_DIR, ROOT_INDEX, TRUNK, leaf_location, parse_trunk
from .sections import split_sections

_SHOWN = 3  # reasons named in a refusal; the rest are counted


def migration_surplus(original: str, changes: Sequence[tuple[str, str]], files: Mapping[str, str]) -> tuple[str, ...]:
    """What the commit holds beyond a migration of `original`; empty when it is exactly one.

    `original`: the MEMORY.md text the commit started from (its `Bonsai-Source` blob);
    `changes`: (git status letter A/M/D/R/..., path) for every path the commit changed against its
    parent, paths workspace-relative, or starting with `../` (or absolute) when outside the
    workspace; `files`: {workspace-relative path: text} of MEMORY.md and the files under memory/
    in the commit.  Each reason is a short phrase naming a path, in `changes` order.
    """
    reasons = [r for status, path in changes if (r := _surplus_change(status, path)) is not None]
    added = [path for status, path in changes if status == "A" and path != TRUNK]
    reasons += _surplus_content(original, added, files)
    return tuple(reasons)


def describe_surplus(reasons: Sequence[str]) -> str:
    """`reasons` (migration_surplus) joined for one line: the first few, then how many more."""
    shown = "; ".join(reasons[:_SHOWN])
    return shown + (f" (+{len(reasons) - _SHOWN} more)" if len(reasons) > _SHOWN else "")


def _is_generated_path(path: str) -> bool:
    """A path migrate writes besides the trunk: a leaf, a single-file domain or an index."""
    if path == ROOT_INDEX or path in SINGLE_FILE_DOMAINS.values():
        return True
    if not path.startswith(DOMAINS_DIR + "/"):
        return False
    return is_index_name(path.rsplit("/", 1)[-1]) or leaf_location(path) is not None


def _surplus_change(status: str, path: str) -> str | None:
    if path == TRUNK:
        return None if status == "M" else f"{TRUNK} {_verb(status)} (a migration rewrites it)"
    if not _is_generated_path(path):
        return f"{path} {_verb(status)} (not a file migrate writes)"
    if status != "A":
        return f"{path} {_verb(status)} (a migration only adds files under memory/)"
    return None


def _verb(status: str) -> str:
    return {"A": "added", "M": "changed", "D": "deleted", "T": "changed type"}.get(status[:1], "renamed or copied")


def _surplus_content(original: str, added: Sequence[str], files: Mapping[str, str]) -> list[str]:
    """Leaves that are not sections of `original`, a trunk holding other text, a section found nowhere."""
    trunk = parse_trunk(files.get(TRUNK, ""))
    if trunk is None:
        return [f"{TRUNK} has no bonsai markers"]
    reasons = [f"{TRUNK} holds text after the end marker"] if trunk.inbox else []
    content = [p for p in added if not is_index_name(p.rsplit("/", 1)[-1]) and p in files]
    doc = split_sections(original)
    pieces = {doc.preamble, *(s.text for s in doc.sections)}
    foreign = [p for p in content if p not in SINGLE_FILE_DOMAINS.values() and files[p] not in pieces]
    reasons += [f"{p} is not a section of the original {TRUNK} as it was" for p in foreign]
    try:
        slots = original_slots(original, {p: files[p] for p in (*content, TRUNK)})
    except Failed:
        return reasons or [f"{TRUNK}: a section of the original is in none of the commit's files as it was"]
    used: dict[str, str] = {}
    for slot in slots:
        used[slot.source] = used.get(slot.source, "") + slot.text
    for path in content:
        if used.get(path) != files[path] and path not in foreign:
            reasons.append(f"{path} is not a section of the original {TRUNK} as it was")
    pinned = used.get(PINNED, "")
    if not trunk.pinned.startswith(pinned) or trunk.pinned[len(pinned):].strip("\r\n"):
        reasons.append(f"{TRUNK} holds pinned text the original did not have")
    return reasons
