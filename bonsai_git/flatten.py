"""`bonsai-git flatten`: rebuild one flat MEMORY.md from today's tree, as one commit, and remove the tree.

The way back that keeps later memories: `rollback` reverts the migration commit, which conflicts
as soon as a leaf changed after it; flatten instead writes what the tree holds *today* (every
edit, every new leaf, the inbox) back into one file, in the original order (core/flatplan.py), and
deletes the leaves, the branch indexes, the root index and `memory/dates.md`.  Right after a
migration the result is the original MEMORY.md byte for byte, and `migrate` works on it again.

Untouched: daily notes (`memory/YYYY-MM-DD.md`), `memory/archive/` (archived leaves were
archived on purpose and do not come back), `.bonsai.toml`, and any file under `memory/domains/`
that is not a leaf or an index.

It is one `transaction.apply_changes` run, as migrate and the lifecycle commands: the lock, the
crash journal, a read-back check that every leaf, the pinned text and the inbox are in the flat
file whole, one commit with the trailer `Bonsai-Op: flatten`, and on any failure a restore of
every path, the index and HEAD.  Refusals (exit 3, nothing written) are the lifecycle ones:
no commit yet, an operation in progress, staged changes, uncommitted changes in the memory tree,
a trunk reindex would refuse (no markers, text typed inside the block, conflict markers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .core.branches import is_generated_index, is_index_name
from .core.errors import BadInput, Failed, NothingToDo
from .core.flatplan import PINNED, FlatPlan, Slot, original_slots, plan_flatten, strip_separator, verify_flat
from . import gitrun
from .history import refuse_if_shallow
from .gitrepo import RepoContext, open_workspace, workspace_lock
from .journal import refuse_if_journaled
from .lifecycle import MEMORY_AREAS, TRAILER, commit_outcome
from .preconditions import check_clean_for_commit, check_identity
from .reindex import read_trunk
from .rollback import files_at, find_migration_commit
from .transaction import apply_changes
from .core.layout import DOMAINS_DIR, MEMORY_DIR, ROOT_INDEX, TRUNK, decode_utf8, parse_trunk
from .tree import Reads, read_leaves, read_regular_or_none, remove_empty_folders, walk_files, walk_leaf_paths

_SOURCE = re.compile(r"^Bonsai-Source:[ \t]*\S+[ \t]+([0-9a-f]{40,64})[ \t]*$", re.M)


@dataclass(frozen=True, slots=True)
class FlattenResult:
    """A flatten run: the plan, the files deleted, the migration commit used (None: none found),
    the new commit (None on --dry-run / --no-commit)."""

    plan: FlatPlan
    deleted: tuple[str, ...]
    migration: str | None
    commit: str | None
    dry_run: bool
    kept: tuple[str, ...] = ()  # files under memory/domains/ that are neither leaves nor indexes: left in place


def flatten(workspace: Path, *, dry_run: bool = False, no_commit: bool = False, no_verify: bool = False) -> FlattenResult:
    """Write today's tree back into one flat MEMORY.md and delete the tree, as one commit.

    Raises Refused/BadInput (exit 3, nothing written) for the refusals in the module docstring;
    Failed or Interrupted after a restore.
    """
    ctx = open_workspace(workspace)
    refuse_if_journaled(ctx.top)
    with workspace_lock(ctx):
        check_clean_for_commit(ctx, MEMORY_AREAS)
        reads = Reads(ctx.workspace)  # the one read the plan is made from and the swap checks against
        _trunk_bytes, parts = read_trunk(ctx.workspace, reads)
        migration = _migration_commit(ctx)
        slots, pinned_then = _migration_slots(ctx, migration) if migration else ((), "")
        if migration and not slots:
            migration = None  # its files do not hold its original: order by domain instead (nothing is lost)
        original_pinned = "".join(s.text for s in slots if s.source == PINNED)
        pinned = strip_separator(parts.pinned, pinned_then, original_pinned)
        leaves = read_leaves(ctx.workspace, walk_leaf_paths(ctx.workspace), reads)
        renames = _renames(ctx, migration) if migration else {}
        plan = plan_flatten(slots, pinned, leaves, parts.inbox, renames, parts.newline)
        generated = _generated_paths(ctx)
        for path in generated:
            reads.read_or_none(path)  # deleted only while it holds what was seen here
        deleted = tuple(sorted({leaf.path for leaf in leaves} | set(generated)))
        kept = tuple(p for p in _files_under(ctx, DOMAINS_DIR) if p not in deleted)
        if dry_run:
            return FlattenResult(plan, deleted, migration, None, True, kept)
        if not no_commit:
            check_identity(ctx)
        changes: dict[str, bytes | None] = {TRUNK: plan.text.encode("utf-8")}
        changes.update({path: None for path in deleted})
        message = flatten_message(plan, deleted, migration)
        sha = apply_changes(ctx, changes, None if no_commit else message, reads,
                            verify=lambda: _verify(ctx, plan, deleted), no_verify=no_verify)
        for path in sorted(deleted, key=lambda p: -p.count("/")):
            remove_empty_folders(ctx.abs_path(path).parent, ctx.workspace)  # memory/ too, when nothing is left
        return FlattenResult(plan, deleted, migration, sha, False, kept)


def flatten_message(plan: FlatPlan, deleted: tuple[str, ...], migration: str | None) -> str:
    """The flatten commit message: subject, what went where, the Bonsai-Op trailer."""
    body = [f"{len(plan.restored)} leaf file(s) back in their original place"
            + (f" (migration {migration[:12]})" if migration else "")]
    if plan.added:
        body.append(f"{len(plan.added)} leaf file(s) added since, appended in domain order: {', '.join(plan.added[:5])}"
                    + (" ..." if len(plan.added) > 5 else ""))
    body.append(f"{len(deleted)} tree file(s) removed; memory/archive/ and daily notes are left as they are")
    return "\n".join(["bonsai: flatten the memory tree back into MEMORY.md", "", *body, "",
                      f"{TRAILER}: flatten"]) + "\n"


def flatten_text(result: FlattenResult) -> str:
    """What a flatten run did (or, on --dry-run, would do), for the terminal."""
    plan = result.plan
    verb = "Would flatten" if result.dry_run else "Flattened"
    lines = [f"{verb} the memory tree into {TRUNK} ({len(plan.text):,} chars): "
             f"{len(plan.restored)} leaf file(s) in their original place, {len(plan.added)} added since"]
    if result.migration is None:
        lines.append("note: no usable migration commit (none, or its files do not hold its Bonsai-Source); "
                     "every leaf goes in domain order")
    lines += [f"  + {path} (added since the migration)" for path in plan.added]
    lines.append(f"{'would remove' if result.dry_run else 'removed'} {len(result.deleted)} tree file(s) "
                 f"(leaves, indexes, {ROOT_INDEX}); memory/archive/ and daily notes stay")
    if result.kept:
        lines.append(f"left in place (not leaves): {', '.join(result.kept[:5])}{' ...' if len(result.kept) > 5 else ''}; "
                     f"move them out of {DOMAINS_DIR}/ before migrating again")
    lines.append(commit_outcome(result.dry_run, result.commit, "flatten")
                 or "Written, not committed (--no-commit): review with git status, then commit.")
    return "\n".join(lines)


def _migration_commit(ctx: RepoContext) -> str | None:
    """The migration commit, None when history has none; Refused in a shallow clone that may lack it
    (flatten would otherwise put every leaf in domain order instead of the original's)."""
    try:
        return find_migration_commit(ctx)
    except NothingToDo:
        refuse_if_shallow(ctx.top, "flatten's lookup of the migration commit (the original order)")
        return None


def _migration_slots(ctx: RepoContext, migration: str) -> tuple[tuple[Slot, ...], str]:
    """The original's slots (flatplan.original_slots) and the trunk's pinned text in the migration commit.

    The original is the blob its `Bonsai-Source` trailer names (without one: the trunk of its
    parent); the migrated files are read at the commit.  Raises BadInput when the blob is missing; no slots when the
    commit's files do not hold the original (a hand-edited migration commit).
    """
    message = gitrun.run(ctx.top, "log", "-1", "--format=%B", migration, check=True).stdout.decode("utf-8", "replace")
    m = _SOURCE.search(message)
    # No Bonsai-Source trailer (a commit-msg hook dropped it; the commit was found by its content):
    # the original is the flat trunk of the migration's parent, which migrate requires unmodified.
    source = m.group(1) if m is not None else f"{migration}^1:{ctx.repo_path(TRUNK)}"
    blob = gitrun.run(ctx.top, "cat-file", "blob", source)
    if blob.returncode != 0:
        refuse_if_shallow(ctx.top, f"flatten's read of the original {TRUNK} (the blob {source[:12]})")
        raise BadInput(f"{migration[:12]}: the original {TRUNK} blob {source[:12]} is missing from the repository")
    original = decode_utf8(blob.stdout, f"{TRUNK} at {migration[:12]}^")
    migrated = files_at(ctx, migration)
    parts = parse_trunk(migrated.get(TRUNK, ""))
    try:
        return original_slots(original, migrated), parts.pinned if parts else ""
    except Failed:
        return (), ""


def _renames(ctx: RepoContext, migration: str) -> dict[str, str]:
    """{path at the migration: path today} for files under memory/ that git sees as moved since."""
    out = gitrun.run(ctx.top, "diff", "-z", "--name-status", "-M", "--no-color", migration, "HEAD", "--",
                     ctx.repo_path(MEMORY_DIR), check=True).stdout.decode("utf-8", "surrogateescape")
    fields = out.split("\0")
    renames: dict[str, str] = {}
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status.startswith(("R", "C")):
            if status.startswith("R"):
                renames[fields[i + 1][len(ctx.prefix):]] = fields[i + 2][len(ctx.prefix):]
            i += 3
        else:
            i += 2
    return renames


def _files_under(ctx: RepoContext, folder: str) -> list[str]:
    return walk_files(ctx.workspace, folder)  # never into a submodule, nested repository or workspace


def _generated_paths(ctx: RepoContext) -> list[str]:
    """The index files on disk that bonsai-git wrote: every `_index.md` and sub-branch `_index.<key>.md`
    under memory/domains/ (branches.is_index_name) whose bytes open with the generated head
    (branches.is_generated_index), and the root index (opening with its title).  A note an agent
    named like an index is kept (listed with the other kept files)."""
    root = read_regular_or_none(ctx.abs_path(ROOT_INDEX))
    found = [ROOT_INDEX] if root is not None and root.startswith(b"# Memory Index") else []
    for path in walk_files(ctx.workspace, DOMAINS_DIR, symlinks=False):
        if is_index_name(path.rpartition("/")[2]):
            data = read_regular_or_none(ctx.abs_path(path))
            if data is not None and is_generated_index(data):
                found.append(path)
    return found


def _verify(ctx: RepoContext, plan: FlatPlan, deleted: tuple[str, ...]) -> None:
    """Read back: MEMORY.md holds every source whole, and every deleted path is gone."""
    written = ctx.abs_path(TRUNK).read_bytes()
    if written != plan.text.encode("utf-8"):
        raise Failed(f"{ctx.repo_path(TRUNK)}: read back differently from what was written; the tree was restored")
    verify_flat(plan, written.decode("utf-8"))
    for path in deleted:
        if ctx.abs_path(path).exists():
            raise Failed(f"{ctx.repo_path(path)}: still there after deleting it; the tree was restored")
