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
from .core.errors import BadInput, ConcurrentWrite, Refused
from .core.branches import is_generated_index, is_index_name
from .gitsettings import stored_alike
from .core.indexes import BranchesOf, FactsOf, foreign_block_line, formatted_alike, render_tree
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
    widen_to_block_conflict,
)
from .tree import (
    CheckedWriter,
    Reads,
    has_symlink_between,
    is_foreign_folder,
    _read_bytes,
    read_leaves,
    read_regular,
    read_regular_or_none,
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
        known = _with_projection(workspace, rendered, known)
        return ReindexResult(sync_rendered(workspace, rendered, trunk_bytes, check, known, clean), (), pending)
    planned = dict(plan.files)
    _refuse_ignored(workspace, planned)
    leaves = tuple(leaf for leaf in leaves if leaf.path not in planned) + _planned_leaves(planned)
    new_parts = TrunkParts(parts.pinned, parts.block, plan.inbox, parts.newline)
    rendered = render_tree(leaves, new_parts, config, existing_index_paths(workspace), facts, branches)
    known = _with_projection(workspace, rendered, known)
    if check:
        stale = _sync(workspace, rendered, trunk_bytes, None)
        return ReindexResult(tuple(sorted({*planned, *stale})), plan.sections)
    new_trunk = rendered[TRUNK]
    assert new_trunk is not None
    from . import journal

    generated = {p: t for p, t in rendered.items() if p != TRUNK}
    seen = _generated_now(workspace, generated, known)  # the one read the index writes are checked against
    folder = _journal_absorb(workspace, plan, singles, trunk_bytes, new_trunk.encode("utf-8"), generated, seen)
    writer = CheckedWriter(workspace)
    try:
        written = _write_absorbed(workspace, writer, plan, parts.inbox, singles)
        try:
            changed = _sync(workspace, {TRUNK: new_trunk}, trunk_bytes, writer)
        except BaseException:
            if not _file_is(workspace / TRUNK, new_trunk.encode("utf-8")):  # the sections are still in MEMORY.md
                _undo(workspace, written, singles)
            raise
        journal.crash_point("trunk")
        changed += _sync(workspace, generated, trunk_bytes, writer, seen)
        writer.finish()
        journal.crash_point("written")
    except BaseException:
        writer.drain()  # late appends to what was replaced are carried, never left behind
        # Handled here: the sections are in MEMORY.md (the leaves undone) or in their leaves (the new
        # trunk written; a stale index is rewritten by the next run): never in both, so no journal is left.
        if folder is not None:
            journal.remove_journal(folder)
        raise
    if folder is not None:
        journal.remove_journal(folder)
    return ReindexResult(tuple(sorted({*written, *changed})), plan.sections)


def _with_projection(workspace: Path, rendered: dict[str, str | None],
                     known: Mapping[str, bytes] | None) -> Mapping[str, bytes] | None:
    """Add the Codex projection (projection.py) to `rendered` when the workspace is connected; return
    `known` with the bytes the projection was made from (what its write must find on disk)."""
    from .projection import add_codex_projection

    extra: dict[str, bytes] = {}
    add_codex_projection(workspace, rendered, extra)
    if not extra:
        return known
    return {**(known or {}), **extra}


def _generated_now(workspace: Path, generated: Mapping[str, str | None],
                   known: Mapping[str, bytes] | None) -> dict[str, bytes]:
    """{absolute path: bytes} of the generated files on disk that `generated` would change (`_sync`'s
    `known`): read once, for the crash journal and for the writer to check against."""
    base = os.fspath(workspace)
    out: dict[str, bytes] = {}
    for path, text in generated.items():
        if isinstance(text, OnDisk):
            continue
        full = os.path.join(base, path)
        data = None if known is None else known.get(full)
        if data is None:
            try:
                data = _read_bytes(full)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                continue
        out[full] = data
    return out


def _journal_absorb(workspace: Path, plan: AbsorbPlan, singles: Mapping[str, bytes | None], trunk_bytes: bytes,
                    new_trunk: bytes, generated: Mapping[str, str | None], seen: Mapping[str, bytes]) -> Path | None:
    """Record the crash journal (journal.py) of an absorb run before its first write: every file it
    writes (new leaves, a single-file domain or same-topic leaf, MEMORY.md, the generated files that
    change) with the bytes the plan read there.  A kill -9 between the leaves and MEMORY.md used to
    leave each section in both places, filed twice by the next absorb (issue 21); now every command
    refuses until `migrate --recover` puts the whole old state back.  The run never stages
    (`staged` False: recovery leaves git's index alone).  Returns the journal folder; None outside
    a repository, or inside bonsai-git's own commit (that run's journal is the one in place).
    Raises Failed (nothing written) when the journal cannot be recorded.
    """
    from . import gitrun, journal
    from .core.errors import Failed

    folder = journal.journal_dir(workspace)
    if folder is None or os.environ.get(journal.OWN_COMMIT_ENV) == str(folder.resolve()):
        return None
    top = gitrun.run(workspace, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        return None
    rel = os.path.relpath(os.path.realpath(workspace), os.path.realpath(top.stdout.decode("utf-8", "surrogateescape").strip()))
    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
    base = os.fspath(workspace)
    prior: dict[str, bytes] = {TRUNK: trunk_bytes}
    planned: dict[str, bytes | None] = {TRUNK: new_trunk}
    for path, leaf in plan.files:
        planned[path] = leaf.encode("utf-8")
        if singles.get(path) is not None:
            prior[path] = singles[path] or b""
    for path, text in generated.items():
        if isinstance(text, OnDisk):
            continue
        wanted = None if text is None else text.encode("utf-8")
        current = seen.get(os.path.join(base, path))
        if current == wanted:
            continue
        planned[path] = wanted
        if current is not None:
            prior[path] = current
    entries = tuple(journal.JournalEntry(p, p in prior, None, None if d is None else journal.blob_id(d))
                    for p, d in sorted(planned.items()))
    created: set[str] = set()
    for path in planned:
        parent = path.rpartition("/")[0]
        while parent and parent not in created and not os.path.exists(os.path.join(base, parent)):
            created.add(parent)
            parent = parent.rpartition("/")[0]
    record = journal.Journal(None, prefix, None, "sha1", entries,
                             tuple(sorted(created, key=lambda d: (d.count("/"), d))), staged=False)
    try:
        journal.write_journal(folder, record, prior, {p: d for p, d in planned.items() if p in prior and d is not None})
    except OSError as exc:
        raise Failed(f"{folder.name}: could not record the crash journal ({exc.strerror or exc}); nothing was "
                     "written") from None
    journal.crash_point("journal")
    return folder


def _refuse_ignored(workspace: Path, planned: Mapping[str, str]) -> None:
    """Refused (exit 3, before anything is written) when a .gitignore rule hides a file absorbing
    would write or its folder's index: new memory is never written into an ignored file (issue 21 §10)."""
    from .gitsettings import ignore_problem

    indexes = {f"{p.rpartition('/')[0]}/{INDEX_NAME}" for p in planned if p.startswith(DOMAINS_DIR + "/")}
    problem = ignore_problem(workspace, [*sorted(planned), *sorted(indexes)])  # a leaf is named first
    if problem is not None:
        raise Refused(problem)


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


def read_trunk(workspace: Path, reads: Reads | None = None) -> tuple[bytes, TrunkParts]:
    """MEMORY.md's bytes and its parts; BadInput when missing, not UTF-8, unmigrated or conflicted.

    `reads`: the run's one read of the truth (tree.Reads), which records the bytes (the ones a
    later swap of MEMORY.md is checked against)."""
    try:  # a FIFO or a device is refused, never read
        data = read_regular(workspace / TRUNK, TRUNK) if reads is None else reads.read(TRUNK, TRUNK)
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(f"{TRUNK}: not found; run bonsai-git migrate first") from None
    except IsADirectoryError:
        raise BadInput(f"{TRUNK}: is not a regular file (a folder); bonsai-git reads regular files only") from None
    text = decode_utf8(data, TRUNK)
    if "\0" in text:  # as migrate refuses it: flatten would hand migrate a file it refuses (issue 21 §8)
        raise BadInput(f"{TRUNK}: holds a NUL byte at byte offset {data.find(bytes(1))} (binary data, not Markdown); "
                       "remove it and retry")
    parts = parse_trunk(text)
    if parts is not None:
        parts = widen_to_block_conflict(parts)
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
                if not name.startswith(("_", ".")) and not is_foreign_folder(entry.path):
                    _walk_indexes(entry.path, f"{relative}/{name}", found)
            elif is_index_name(name) and entry.is_file(follow_symlinks=False):
                found.append(f"{relative}/{name}")


def generated_index_paths(workspace: Path, paths: Iterable[str]) -> tuple[str, ...]:
    """Those of `paths` (index-named files, workspace-relative) that bonsai-git generated
    (branches.is_generated_index on their bytes); each other one is named in a warning and kept."""
    kept = []
    for path in paths:
        data = read_regular_or_none(workspace / path)
        if data is not None and is_generated_index(data):
            kept.append(path)
        else:
            warn_foreign_index(path)
    return tuple(kept)


def warn_foreign_index(path: str) -> None:
    """Warn (stderr) that `path`, named like a generated index, was not written by bonsai-git and is kept."""
    from .hook import _warn  # the hook's counter: a run that warned is not remembered as fresh

    _warn(f"{path}: named like a generated index but not written by bonsai-git, so kept (never deleted as "
          "stale); rename it without the leading `_` to make it a leaf")


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
    from .journal import crash_point

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
            crash_point(f"write:{len(written)}")
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
    # Test only (journal.crash_point), asked once: no journal here, since every file this writes
    # is generated (a crash leaves some stale, and the next run rewrites them from the leaves).
    crashing = writer is not None and "BONSAI_TEST_CRASH_AT" in os.environ
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
                                 and (stored_alike(workspace, path, current, wanted)
                                      or formatted_alike(path, current, wanted))):
            continue  # equal, as git stores them (a CRLF checkout under core.autocrlf) or but for a formatter's changes
        if wanted is None and current is not None and not is_generated_index(current):
            warn_foreign_index(path)  # named like an index, written by someone else: never deleted (issue 21 §3)
            continue
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
        if crashing:
            from .journal import crash_point

            crash_point(f"write:{len(changed)}")
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
