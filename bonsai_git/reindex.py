"""Reindex a migrated workspace: regenerate stale indexes and the trunk block from the leaves.

Light on purpose: this is the pre-commit hook's path, so it never imports GitPython (leaf
lists come from `git ls-files` through a subprocess, or from a walk of the disk), and
markdown-it is imported only when the trunk has an inbox to absorb.  A file is written only
when its bytes change (mdformat's rule), so a second run writes nothing.  Text outside the
trunk's markers and the leaves themselves are never changed here, except by absorbing.

Every shape the tree takes is derived from the leaves alone: a leaf edited, added, deleted or
moved between domain folders; a new domain folder (it gets its `_index.md` and a root entry);
nested folders inside a domain (their leaves belong to that domain); a domain left with no
leaf (its `_index.md` is deleted, and its folder if that leaves it empty).  Files under
`memory/archive/`, non-`.md` files and `_`/`.` names are not leaves (`layout.leaf_location`).

Absorbing (`absorb=True`, see core/absorb.py) writes the new leaves first, reads them back and proves
the inbox's bytes are all there, and only then rewrites MEMORY.md; if MEMORY.md changed on disk
meanwhile (the agent wrote to it), the new leaves are removed again and nothing is lost.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .workspace import load_config
from .core.config import SINGLE_FILE_DOMAINS, Config
from .core.errors import BadInput, ConcurrentWrite
from .core.branches import is_index_name
from .gitsettings import stored_alike
from .core.indexes import BranchesOf, FactsOf, foreign_block_line, render_tree
from .core.layout import (
    DOMAINS_DIR,
    END,
    INDEX_NAME,
    OnDisk,
    TRUNK,
    Leaf,
    TrunkParts,
    decode_utf8,
    find_conflict_marker,
    leaf_location,
    markers_missing,
    parse_trunk,
    git_blob_id,
    unread_leaves,
)
from .tree import (
    CheckedWriter,
    has_symlink_between,
    _read_bytes,
    read_leaves,
    read_regular,
    remove_empty_folders,
    walk_leaf_paths,
    write_durably,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms per hook run)
if TYPE_CHECKING:
    from .core.absorb import AbsorbedSection, AbsorbPlan


@dataclass(frozen=True, slots=True)
class ReindexResult:
    """What a run did (or, under check, would do).

    `changed`: workspace-relative paths written, created or deleted, sorted (new leaves included).
    `absorbed`: the inbox sections moved into leaves, in document order.
    `inbox_sections`: sections waiting in the inbox that were not absorbed (absorb was off).
    """

    changed: tuple[str, ...]
    absorbed: tuple[AbsorbedSection, ...] = ()
    inbox_sections: int = 0


def reindex_workspace(
    workspace: Path,
    *,
    check: bool = False,
    leaf_paths: Iterable[str] | None = None,
    config: Config | None = None,
    absorb: bool = False,
    facts: FactsOf | None = None,
    branches: BranchesOf | None = None,
    known: Mapping[str, bytes] | None = None,
    unread: Collection[str] = (),
    clean: Mapping[str, str] | None = None,
    rendered_out: dict[str, str | None] | None = None,
) -> ReindexResult:
    """Regenerate every branch index, `memory/_index.md` and the trunk block of `workspace`.

    `leaf_paths` (workspace-relative) defaults to every leaf on disk; the hook passes the
    leaves git tracks.  `absorb=True` first moves the inbox's `##` sections into leaves.
    `check=True` writes nothing and only reports.  `facts` (the hook's cache) supplies leaf
    facts and `branches` each domain's index files, without changing a byte of the output;
    `known` ({absolute path: bytes}) holds files just read from disk.  `unread`: leaf paths
    not to read, whose facts `facts` holds (the hook's cache by git blob id); all are read when
    an inbox is absorbed.  `clean` ({workspace-relative path: blob id}): files git reports
    unchanged against its index: a rendered file with that blob id is fresh without being read.
    `rendered_out`, when given, receives every generated file's rendering ({path: text, `OnDisk`,
    or None to delete}) when nothing was absorbed (the hook's incremental snapshot, incremental.py).
    Raises BadInput (exit 3) when MEMORY.md is
    missing, not UTF-8, has no bonsai markers or a merge-conflict marker outside its block, or
    a leaf is unreadable; Failed (exit 1) when MEMORY.md changed while absorbing.
    """
    config = config or load_config(workspace)
    trunk_bytes, parts = read_trunk(workspace)
    paths = walk_leaf_paths(workspace) if leaf_paths is None else tuple(leaf_paths)
    absorbing = absorb and bool(parts.inbox.strip())
    skip = set(unread) if unread and facts is not None and not absorbing else set()  # absorb reads every leaf
    leaves = read_leaves(workspace, [p for p in paths if p not in skip])
    if skip:  # in no particular order: every renderer groups by domain and sorts (domain_stats)
        leaves += unread_leaves(p for p in paths if p in skip)
    singles: dict[str, bytes | None] = {}
    plan = _plan_absorb(workspace, parts, config, singles, leaves) if absorbing else None
    if plan is None or not plan.sections:
        pending = _count_inbox_sections(parts.inbox) if not absorb and parts.inbox.strip() else 0
        rendered = render_tree(leaves, parts, config, existing_index_paths(workspace), facts, branches)
        if rendered_out is not None:
            rendered_out.update(rendered)
        return ReindexResult(sync_rendered(workspace, rendered, trunk_bytes, check, known, clean), (), pending)
    planned = dict(plan.files)
    leaves = tuple(leaf for leaf in leaves if leaf.path not in planned) + _planned_leaves(planned)
    new_parts = TrunkParts(parts.pinned, parts.block, plan.inbox, parts.newline)
    rendered = render_tree(leaves, new_parts, config, existing_index_paths(workspace), facts, branches)
    if check:
        stale = _sync(workspace, rendered, trunk_bytes, None)
        return ReindexResult(tuple(sorted({*planned, *stale})), plan.sections)
    new_trunk = rendered[TRUNK]
    assert new_trunk is not None
    writer = CheckedWriter(workspace)
    try:
        written = _write_absorbed(workspace, writer, plan, parts.inbox, singles)
        try:
            changed = _sync(workspace, {TRUNK: new_trunk}, trunk_bytes, writer)
        except BaseException:
            if not _file_is(workspace / TRUNK, new_trunk.encode("utf-8")):  # the sections are still in MEMORY.md
                _undo(workspace, written, singles)
            raise
        changed += _sync(workspace, {p: t for p, t in rendered.items() if p != TRUNK}, trunk_bytes, writer)
        writer.finish()
    except BaseException:
        writer.drain()  # late appends to what was replaced are carried, never left behind
        raise
    return ReindexResult(tuple(sorted({*written, *changed})), plan.sections)


def sync_rendered(workspace: Path, rendered: Mapping[str, str | None], trunk_bytes: bytes, check: bool,
                  known: Mapping[str, bytes] | None = None, clean: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Write the rendered files whose bytes differ (none under `check`); return their paths, sorted.

    `rendered` {workspace-relative path: text, `OnDisk`, or None to delete}; `trunk_bytes` what the
    run parsed of MEMORY.md.  Every file goes through one CheckedWriter (an agent's write meanwhile
    raises ConcurrentWrite and is kept); see `_sync` for `known` and `clean`.
    """
    if check:
        return _sync(workspace, rendered, trunk_bytes, None, known, clean)
    writer = CheckedWriter(workspace)
    try:
        changed = _sync(workspace, rendered, trunk_bytes, writer, known, clean)
        writer.finish()
    except BaseException:
        writer.drain()  # late appends to what was replaced are carried, never left behind
        raise
    return changed


def read_trunk(workspace: Path) -> tuple[bytes, TrunkParts]:
    """MEMORY.md's bytes and its parts; BadInput when missing, not UTF-8, unmigrated or conflicted."""
    try:
        data = read_regular(workspace / TRUNK, TRUNK)  # a FIFO or a device is refused, never read
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(f"{TRUNK}: not found; run bonsai-git migrate first") from None
    except IsADirectoryError:
        raise BadInput(f"{TRUNK}: is not a regular file (a folder); bonsai-git reads regular files only") from None
    text = decode_utf8(data, TRUNK)
    parts = parse_trunk(text)
    if parts is None:
        if (workspace / DOMAINS_DIR).is_dir():
            raise markers_missing(text)
        raise BadInput(f"{TRUNK}: no bonsai markers (not migrated yet); run bonsai-git migrate first")
    foreign = foreign_block_line(parts.block)
    if foreign is not None:
        at = text.count("\n", 0, len(parts.pinned)) + foreign
        raise BadInput(f"{TRUNK}:{at}: text inside the generated block (between the bonsai markers) would be "
                       f"overwritten; move it below `{END}` (new memories go there) and retry")
    # A conflict wholly inside the block is regenerated (the block is ours); any other conflict
    # line, in the user's text or crossing a marker, is refused: a rewrite would keep half of it.
    line = find_conflict_marker(text, allowed=(len(parts.pinned), len(parts.pinned) + len(parts.block)))
    if line is not None:
        raise BadInput(f"{TRUNK}:{line}: merge-conflict marker; resolve the conflict, then commit again")
    return data, parts


def existing_index_paths(workspace: Path, domains: Iterable[str] | None = None) -> tuple[str, ...]:
    """Generated index files on disk under `memory/domains/` (`_index.md`, `_index.<key>.md`, at any
    depth, not inside `_`/`.` folders nor through symlinks), workspace-relative, sorted.
    `domains`: only under these domain folders (the hook's incremental run)."""
    found: list[str] = []
    base = os.path.join(os.fspath(workspace), DOMAINS_DIR)
    if domains is None:
        _walk_indexes(base, DOMAINS_DIR, found)
    else:
        for domain in domains:
            if not domain.startswith(("_", ".")) and not os.path.islink(os.path.join(base, domain)):
                _walk_indexes(os.path.join(base, domain), f"{DOMAINS_DIR}/{domain}", found)
    return tuple(sorted(found))


def _walk_indexes(folder: str, relative: str, found: list[str]) -> None:
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if not name.startswith(("_", ".")):
                    _walk_indexes(entry.path, f"{relative}/{name}", found)
            elif is_index_name(name) and entry.is_file(follow_symlinks=False):
                found.append(f"{relative}/{name}")


def taken_leaf_names(workspace: Path) -> dict[str, tuple[str, ...]]:
    """{domain: names of the `.md` files (any, tracked or not) directly in its folder, without `.md`}."""
    root = workspace / DOMAINS_DIR
    if not root.is_dir():
        return {}
    return {
        d.name: tuple(sorted(f.name[:-3] for f in d.iterdir() if f.name.endswith(".md")))
        for d in sorted(root.iterdir()) if d.is_dir()
    }


def _plan_absorb(workspace: Path, parts: TrunkParts, config: Config, singles: dict[str, bytes | None],
                 leaves: Iterable[Leaf]) -> AbsorbPlan:
    """Plan the absorption; `leaves` (the indexed ones) may be extended by a same-topic section.

    Fills `singles` with the bytes each file the plan rewrites held when planned (a single-file
    domain's, None when absent; a same-topic leaf's), which is what writing it later expects to
    find: an agent's write meanwhile is then noticed, never overwritten (CheckedWriter)."""
    from .core.absorb import plan_absorb  # markdown-it and slugify: only when there is an inbox

    texts = {}
    for path in SINGLE_FILE_DOMAINS.values():
        target = workspace / path
        try:
            singles[path] = read_regular(target, path) if os.path.lexists(target) else None
        except IsADirectoryError:
            raise BadInput(f"{path}: is not a regular file (a folder); move it away, then absorb again") from None
        texts[path] = None if singles[path] is None else decode_utf8(singles[path] or b"", path)
    existing = {leaf.path: leaf.text for leaf in leaves}
    plan = plan_absorb(parts.inbox, config, taken_leaf_names(workspace), texts, existing, parts.pinned)
    singles.update((path, text.encode("utf-8")) for path, text in plan.bases)
    return plan


def _count_inbox_sections(inbox: str) -> int:
    from .core.sections import split_sections

    return len(split_sections(inbox).sections)


def _planned_leaves(planned: Mapping[str, str]) -> tuple[Leaf, ...]:
    out = []
    for path, text in planned.items():
        location = leaf_location(path)
        assert location is not None, path  # plan_absorb only names leaf paths
        out.append(Leaf(location[0], location[1], text))
    return tuple(out)


def _write_absorbed(workspace: Path, writer: CheckedWriter, plan: AbsorbPlan, old_inbox: str,
                    singles: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """Write the plan's leaves, read them back, verify the inbox is all there; return {path: bytes written}.

    A new leaf is created exclusively; a single-file domain (`memory/dates.md`) is replaced only
    while it holds the bytes the plan was made from (`singles`), else ConcurrentWrite.  On any
    failure the files written are put back (only where they still hold our bytes) and the error re-raised.
    """
    from .core.absorb import verify_absorbed

    written: dict[str, bytes] = {}
    try:
        for path, text in plan.files:
            target = workspace / path
            _refuse_symlinked(workspace, path)
            if target.exists() and not target.is_file():
                raise BadInput(f"{path}: is not a regular file; move it away, then absorb again")
            target.parent.mkdir(parents=True, exist_ok=True)
            data = text.encode("utf-8")
            writer.write(path, data, singles.get(path), sync=True)
            written[path] = data
        read_back = {path: decode_utf8((workspace / path).read_bytes(), path) for path, _ in plan.files}
        verify_absorbed(old_inbox, plan, read_back)
    except BaseException:
        _undo(workspace, written, singles)
        raise
    return written


def _undo(workspace: Path, written: Mapping[str, bytes], singles: Mapping[str, bytes | None]) -> None:
    """Put back the files absorbing wrote, each only while it still holds exactly our bytes."""
    for path, data in written.items():
        target = workspace / path
        prior = singles.get(path)
        with contextlib.suppress(OSError, ConcurrentWrite):
            undo = CheckedWriter(workspace)
            try:
                if prior is None:
                    undo.delete(path, data)
                    remove_empty_folders(target.parent, workspace / DOMAINS_DIR)
                else:
                    undo.write(path, prior, data)
            finally:
                undo.close()


def _file_is(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _sync(workspace: Path, rendered: Mapping[str, str | None], trunk_bytes: bytes,
          writer: CheckedWriter | None, known: Mapping[str, bytes] | None = None,
          clean: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Write (or with no `writer`, only list) the rendered files whose bytes differ; the trunk first.

    Each file is replaced only while it holds the bytes compared here (MEMORY.md: the bytes the
    run parsed), else ConcurrentWrite (exit 1) and the other write stays (tree.CheckedWriter).
    `known`: {absolute path: bytes} just read from disk (never the trunk), not read again.
    `clean`: {path: blob id} of files git reports unchanged against its index: one whose blob id
    is the rendered text's is equal as git stores it, and is not read (~300 files per 1,000 leaves).
    """
    changed = []
    base = os.fspath(workspace)
    folders: dict[str, str | None] = {}  # folder -> the symlink on its way, checked once per folder
    made: set[str] = set()
    for path in sorted(rendered, key=lambda p: (p != TRUNK, p)):
        text = rendered[path]
        if isinstance(text, OnDisk):
            continue  # the file on disk is this rendering (git reports it unchanged, with its blob id)
        blob = None if clean is None or text is None or path == TRUNK else clean.get(path)
        if blob is not None and text is not None and blob == git_blob_id(text.encode("utf-8")):
            continue
        full = os.path.join(base, path)
        current: bytes | None = None if known is None or path == TRUNK else known.get(full)
        if current is None:
            try:  # one open+read (tree._read_bytes), not is_file()+read_bytes(): the hook's hot path
                current = _read_bytes(full)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                current = None
        wanted = None if text is None else text.encode("utf-8")
        if current == wanted or (current is not None and wanted is not None
                                 and stored_alike(workspace, path, current, wanted)):
            continue  # equal, or equal as git stores them (a CRLF checkout under core.autocrlf)
        changed.append(path)
        if writer is None:
            continue
        target = workspace / path
        _refuse_symlinked(workspace, path, folders)
        expected = trunk_bytes if path == TRUNK else current
        if wanted is None:
            if expected is not None:
                writer.delete(path, expected)
            remove_empty_folders(target.parent, workspace / DOMAINS_DIR)
            folders.clear()  # a folder may be gone now
        else:
            folder = os.path.dirname(full)
            if folder not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(folder)
            # fsync only the trunk (it holds the user's text); an index is regenerated from the
            # leaves at any time, and an fsync per index cost more than the rest of a hook run.
            writer.write(path, wanted, expected, sync=path == TRUNK)
    return tuple(sorted(changed))


def _refuse_symlinked(workspace: Path, path: str, folders: dict[str, str | None] | None = None) -> None:
    """BadInput when writing `path` would go through a symlink (out of the repository, or unaddable).

    `folders` memoizes the check of each parent folder ({workspace-relative folder: symlink or
    None}) across the files of one run: 300 index files sit in a few dozen folders."""
    if path == TRUNK:
        return  # MEMORY.md itself: parse_trunk read it; a symlinked trunk is the user's own layout
    if folders is None:
        link = has_symlink_between(workspace, path)
    else:
        folder, _, _name = path.rpartition("/")
        if folder not in folders:
            folders[folder] = has_symlink_between(workspace, folder) if folder else None
        link = folders[folder]
        if link is None and os.path.islink(os.path.join(os.fspath(workspace), path)):
            link = path
    if link is not None:
        raise BadInput(f"{link}: is a symlink; bonsai-git will not write {path} through it. Replace it with a folder")
