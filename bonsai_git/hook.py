"""The pre-commit hook: keep every memory tree in the repository true at every commit, fast.

Entry points: the console script `bonsai-git-hook` (this module's `main`, argparse: no click,
no GitPython on this path, so a no-op run costs little more than the interpreter's start-up),
`python -m bonsai_git.hook`, and `bonsai-git hook` (cli.py); all three call `run_hook`.

What a run does, for the repository that holds the current folder:
1. One `git ls-files` lists the tracked and untracked paths named `MEMORY.md` or under a
   `memory/` folder.  Each tracked `MEMORY.md` with bonsai markers is a workspace (a repository
   may hold several); none ⇒ exit 0 at once.
2. Per workspace, the leaves are the tracked leaf paths (`layout.leaf_location`), so what is
   indexed is what is committed: untracked `.md` files under `memory/domains/` are not indexed
   (a warning names them), tracked leaves deleted from disk but not from the index are left
   out (a warning says `git rm`).  pre-commit never passes deleted files to a hook and only
   notices changes to tracked files, so the hook reads the whole tree instead of its arguments.
   The same rule serves `reindex`, `absorb` and `status` (gitsettings.indexed_leaf_paths).
   Inside a commit under the plain git hook (GIT_INDEX_FILE set, PRE_COMMIT not), a workspace
   whose leaves, indexes or MEMORY.md differ between the work tree and git's index is reindexed
   from git's index instead (commitstage.py): a partial or pathspec commit gets indexes of
   exactly what it commits.  MEMORY.md's git attributes must reach memory/ too
   (gitsettings.check_attributes, exit 3).
3. With `absorb = true` (the default), `##` sections appended after the trunk's end marker are
   moved into new leaves first (core/absorb.py).  Then every stale generated file is rewritten.
   Writing runs hold `bonsai.lock` (as `absorb` and `reindex` do), and every file is replaced
   through tree.CheckedWriter, so an agent's write meanwhile is never overwritten.
4. Exit 0 when nothing changed; 1 when it wrote anything (a new untracked `_index.md` or
   leaf included), naming each file and the `git add` to run (the pre-commit framework's
   convention).  Under the plain git hook it stages what it wrote instead, prints one line and
   exits 0: the commit goes through with fresh indexes (issue 22).  Under `--check` it writes
   nothing and exits 1 when anything is stale.  Errors: one line on stderr and the
   BonsaiError's exit code (3 for a leaf with merge-conflict markers, naming file and line).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .entry import CyclicGcOff, run_entry
from .redaction import MaskedOutput
from .core.errors import BonsaiError, NotARepository, Refused
from .gitrun import run
from .gitsettings import check_attributes, check_repository_env, indexed_leaf_paths, memory_probe_paths
from .core.layout import DOMAINS_DIR, MEMORY_DIR, TRUNK, is_migrated, leaf_location, markers_missing
from .tree import read_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms per hook run)
if TYPE_CHECKING:
    from .factcache import FactsCache, Unread
    from .freshness import FreshMemo
    from typing import Any

    from .reindex import ReindexResult

# Only paths that can matter: trunks and anything under a memory/ folder, at any depth.
_PATHSPECS = (f":(glob)**/{TRUNK}", f":(glob)**/{MEMORY_DIR}/**")


@dataclass
class Workspace:
    """A migrated workspace in the repository: its path prefix from the top ("" or "a/b/")."""

    prefix: str
    tracked: list[str] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)
    unstaged: list[str] = field(default_factory=list)  # tracked, and the work tree differs from git's index
    stage: dict[str, str] = field(default_factory=dict)  # tracked path -> "mode blob-id" in git's index


def main(argv: Sequence[str] | None = None) -> int:
    """Run the hook from the command line; return the exit code (0 clean, 1 rewritten/stale, 3, 4, 130)."""
    parser = argparse.ArgumentParser(
        prog="bonsai-git-hook",
        description="Regenerate stale bonsai-git indexes (and absorb new MEMORY.md sections) before a commit.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("files", nargs="*", help="Ignored: the whole tree is checked (pre-commit passes staged files).")
    parser.add_argument("--check", action="store_true", help="Write nothing; exit 1 when anything is stale.")
    parser.add_argument("--pre-push", action="store_true",
                        help="git's pre-push hook: check each pushed commit's tree (refs read from stdin).")
    parser.add_argument("-C", dest="directory", type=Path, default=Path("."), help="Run in this folder.")
    parser.add_argument("--version", action="version", version=f"bonsai-git {__version__}")
    # What it prints, usage errors included, passes the one masking rule (redaction.py).
    with MaskedOutput():
        args = parser.parse_args(argv)
        if args.pre_push:  # git runs `pre-push <remote> <url>` and writes the refs on stdin
            from .pushcheck import check_push

            remote = args.files[0] if args.files else None
            return run_entry("bonsai-git", lambda: check_push(args.directory, remote, sys.stdin.read().splitlines()))
        with CyclicGcOff():  # the collector's passes over the renderer's import-time objects: a few ms of a run that writes
            return run_entry("bonsai-git", lambda: run_hook(args.directory, check=args.check))


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized only when help is printed: its own __init__ imports shutil (and
    bz2, lzma: ~2 ms of every hook run) to ask the terminal's width, even when no help is shown."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=1 << 16)

    def format_help(self) -> str:
        import shutil

        self._width = shutil.get_terminal_size().columns - 2  # as argparse sizes it
        self._max_help_position = min(24, max(self._width - 20, self._indent_increment * 2))
        return super().format_help()


def run_hook(directory: Path, *, check: bool = False) -> int:
    """Reindex (and absorb into) every migrated workspace of the repository holding `directory`.

    Prints each file written (stdout) and warnings (stderr).  Returns 0 when nothing changed,
    1 when files were written (or, under `check`, are stale).  Raises NotARepository outside
    a git work tree, BadInput for an unreadable leaf or a merge-conflict marker.
    """
    if check and os.environ.get("PRE_COMMIT_TO_REF"):  # the framework's pre-push stage: check what is pushed
        from .pushcheck import check_framework_push

        pushed = check_framework_push(directory)
        if pushed is not None:
            return pushed
    if os.environ.get("GIT_INDEX_FILE"):  # inside a commit: the index git commits, whatever folder a git command runs in
        from .commitstage import absolute_index_file

        absolute_index_file()
    top, common_dir, journal = _locate(directory)
    if (journal / "journal.json").is_file():  # an interrupted migration: only `migrate --recover` may run
        from .journal import refuse_if_journaled

        refuse_if_journaled(directory)
    listing, stage_info = _ls_files(top)
    workspaces = find_workspaces(top, listing)
    if not workspaces:
        return 0
    from .freshness import open_memo, workspace_digest

    memo = open_memo(common_dir)
    pending: list[tuple[Workspace, str | None]] = []
    _split_stage(workspaces, stage_info)
    for ws in workspaces:
        digest = workspace_digest(top / ws.prefix, ws.tracked, ws.untracked, ws.unstaged, ws.stage,
                                  _setting_files(top, ws.prefix, common_dir))
        if not memo.holds(digest):  # else: the same input a full run found fresh, warning-free: nothing to read
            pending.append((ws, digest))
    if not pending:
        return 0
    _refuse_half_visible(top, listing, [ws for ws, _digest in pending])
    if check:
        return _run_workspaces(top, common_dir, pending, check, memo, len(pending) == len(workspaces))
    with _holding_lock(journal):  # the lock `absorb` and every writing command take: one writer at a time
        return _run_workspaces(top, common_dir, pending, check, memo, len(pending) == len(workspaces))


def _run_workspaces(top: Path, common_dir: Path, pending: list[tuple[Workspace, str | None]], check: bool,
                    memo: FreshMemo, every: bool = True) -> int:
    caches: list[FactsCache] = []

    def open_facts() -> FactsCache:
        return _facts_cache(caches, common_dir)

    # Inside a commit under the plain git hook: index what the commit holds and stage what was
    # regenerated (commitstage.py).  Under the pre-commit framework (PRE_COMMIT=1) what differs from
    # git's index was written by an earlier hook (a formatter) and is re-added with ours (issue 22).
    from . import commitstage  # only when a workspace is read: off the no-op path

    plain = commitstage.in_plain_commit(check)
    if not check and os.environ.get("GIT_INDEX_FILE"):  # inside a commit (git sets it for its hooks)
        for ws, _digest in pending:  # before any workspace is written: all or nothing
            _refuse_unstaged_projection(top, ws, open_facts)
    changed: list[str] = []
    touched: list[Workspace] = []
    for ws, digest in pending:
        warned = _WARNINGS[0]
        if plain and commitstage.needs_staged_view(ws.unstaged):
            written = commitstage.reindex_staged(top, ws.prefix, ws.tracked, ws.unstaged,
                                                 {ws.prefix + p: v for p, v in ws.stage.items()})
        else:
            written = _run_workspace(top, ws, check, open_facts, common_dir, quiet=plain)
            if plain and written:
                commitstage.stage_from_work_tree(top, written, {ws.prefix + p: v for p, v in ws.stage.items()})
                commitstage.verify_staged(top, ws.prefix, ws.tracked, written)
        changed += written
        touched += [ws] if written else []
        if not written and _WARNINGS[0] == warned:
            memo.remember(digest)
    memo.save()
    if not check:
        for cache in caches:  # workspaces the memo skipped used no entry: keep theirs
            cache.save(compact=every)
        _warn_provenance(top, [ws for ws in touched if f"{ws.prefix}{TRUNK}" in changed])
    if not changed:
        return 0
    if plain:  # one line; the commit goes through with them
        from .core.secretscan import mask_name

        print(f"bonsai-git: regenerated {len(changed)} file(s) from what this commit holds and staged them: "
              f"{' '.join(mask_name(p) for p in sorted(changed))}")
        return 0
    if check:
        print(f"bonsai-git: {len(changed)} generated file(s) stale; run bonsai-git reindex (and bonsai-git absorb), "
              "then commit", file=sys.stderr)
    else:
        # Exactly the files written: `git add -A -- MEMORY.md memory` also staged hunks the user had
        # kept out of this commit.
        print(f"bonsai-git: rewrote {len(changed)} file(s); stage them and commit again: git add -A -- "
              f"{_addable(changed)}", file=sys.stderr)
    return 1


def _refuse_half_visible(top: Path, listing: Sequence[tuple[str, str]], workspaces: Sequence[Workspace]) -> None:
    """Refuse (exit 3) when indexing what git tracks would drop part of a workspace's tree: a domain
    whose leaves are on disk but not staged (gitsettings.unstaged_domain_problem: a migration
    staged in part), or tracked files a sparse checkout leaves out.

    `git ls-files -t` tags them `S` (skip-worktree): tracked, absent from disk.  Indexing the
    work tree would drop their domains from MEMORY.md's block and the root index (issue 21 §4),
    so the run refuses before anything is read or written.  Asked only of runs the freshness memo
    did not settle (a skip-worktree entry never makes a workspace known fresh).
    """
    from .gitsettings import sparse_problem

    from .gitsettings import unstaged_domain_problem

    for ws in workspaces:
        if ws.untracked:
            problem = unstaged_domain_problem(top / ws.prefix, ws.tracked, ws.untracked, ws.prefix)
            if problem is not None:
                raise Refused(problem)
    skipped = [path for tag, path in listing if tag == "S"]
    if not skipped:
        return
    for ws in sorted(workspaces, key=lambda w: w.prefix):
        problem = sparse_problem([p[len(ws.prefix):] for p in skipped if p.startswith(ws.prefix)], ws.prefix)
        if problem is not None:
            raise Refused(problem)


def _facts_cache(caches: list[FactsCache], common_dir: Path) -> FactsCache:
    """The facts cache, opened on first need (a run whose workspaces are all known fresh never loads it)."""
    if not caches:
        from .factcache import open_cache

        caches.append(open_cache(common_dir))
    return caches[0]


def _setting_files(top: Path, prefix: str, common_dir: Path) -> list[Path]:
    """Files outside the listing whose bytes bear on the verdict: `.gitattributes` from the top down to
    the workspace (a filter on MEMORY.md is refused), the repository's config and info/attributes
    (core.autocrlf, attributesFile) and the user's global git config."""
    files = [top / ".gitattributes"]
    folder = top
    for part in prefix.split("/")[:-1]:
        folder = folder / part
        files.append(folder / ".gitattributes")
    files += [common_dir / "config", common_dir / "info" / "attributes"]
    home = os.environ.get("HOME", "")
    files += [Path(p) for p in (os.environ.get("GIT_CONFIG_GLOBAL"), os.path.join(home, ".gitconfig"),
                                os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
                                             "git", "config")) if p]
    return files


def _addable(paths: Sequence[str]) -> str:
    """`paths` for a shell `git add`, never showing a secret-looking name: a path whose name
    `mask_name` would change is given as its nearest ancestor folder that shows none."""
    import shlex

    from .core.secretscan import mask_name  # loaded already whenever something was written

    out: list[str] = []
    for path in sorted(set(paths)):
        while path and mask_name(path) != path:
            path = path.rpartition("/")[0]
        if path and path not in out:
            out.append(path)
    return " ".join(shlex.quote(p) for p in out)


def _refuse_unstaged_projection(top: Path, ws: Workspace, cache: Callable[[], FactsCache]) -> None:
    """Refuse (exit 3), as for MEMORY.md, when the run would rewrite the Codex block in an AGENTS
    file (projection.py) that has changes git's index does not hold: staging the rewrite would
    stage those too.  Two failed opens for a workspace that is not connected; one `git diff` for
    one that is; a check run only when that file has unstaged changes."""
    from .projection import connected_codex_file

    try:
        found = connected_codex_file(top / ws.prefix)
    except BonsaiError:
        return  # the run itself refuses, naming the file
    if found is None:
        return
    name = ws.prefix + found[0]
    if run(top, "diff", "--quiet", "--", name).returncode != 1:
        return  # as staged (or untracked: the hook names it to add)
    if found[0] not in _would_rewrite(top, ws, cache):
        return
    raise Refused(f"{name}: has changes that are not staged, and this commit rewrites its bonsai-git Codex block; "
                  f"stage them (git add -- {name}) or set them aside (git stash push --keep-index), then commit again")


def _would_rewrite(top: Path, ws: Workspace, cache: Callable[[], FactsCache]) -> tuple[str, ...]:
    """The files a run over `ws` would write (a check run: nothing is written)."""
    from .workspace import load_config
    from .reindex import reindex_workspace

    root = top / ws.prefix
    config = load_config(root)
    leaves, _warnings = indexed_leaf_paths(root, ws.tracked, ws.untracked)
    return reindex_workspace(root, check=True, leaf_paths=leaves, config=config, absorb=config.absorb,
                             facts=cache().facts_of(config.estimator)).changed


class _holding_lock:
    """Hold `bonsai.lock` (next to the journal folder) while the hook writes.

    The same flock that filelock's UnixFileLock takes in `absorb`, `reindex`, `migrate`...,
    taken with fcntl directly so the hook's import path stays light.  Waits up to LOCK_WAIT
    seconds (an `absorb` run is short), then LockHeld (exit 3).  Inside bonsai-git's own commit
    (journal.OWN_COMMIT_ENV names this journal folder) the committing run holds the lock already.
    """

    LOCK_WAIT = 5.0

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.fd: int | None = None

    def __enter__(self) -> None:
        if os.environ.get("BONSAI_GIT_OWN_COMMIT") == str(self.journal.resolve()):
            return
        import fcntl
        import time

        lock = self.journal.with_name("bonsai.lock")
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return  # a read-only git dir: nothing else can write there either
        deadline = time.monotonic() + self.LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    from .core.errors import LockHeld

                    raise LockHeld(f"{lock}: another bonsai-git run holds this lock; wait for it to finish, "
                                   f"then commit again") from None
                time.sleep(0.05)
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)


def _warn_provenance(top: Path, rewritten: Sequence[Workspace]) -> None:
    """Warn when OpenClaw's provenance record makes a MEMORY.md the hook rewrote risky (provenance.py)."""
    if not rewritten:
        return
    from .provenance import provenance_warning, read_provenance

    for ws in rewritten:
        warning = provenance_warning(read_provenance(top / ws.prefix if ws.prefix else top))
        if warning:
            print(f"bonsai-git: warning: {ws.prefix}{TRUNK}: {warning}", file=sys.stderr)


def find_workspaces(top: Path, listing: Sequence[tuple[str, str]]) -> list[Workspace]:
    """The migrated workspaces among `(tag, repo-relative path)` entries of `git ls-files -t`, by prefix.

    A workspace is a tracked `MEMORY.md` whose text on disk has bonsai markers.  Each gets the
    tracked and untracked paths under its folder, relative to it, except those under a workspace
    nested in it (`memory/domains/agents/helper/MEMORY.md`): they are the inner one's alone, never
    the outer one's leaves, which once made the two rewrite each other's indexes (issue 21 §5).  A tracked `MEMORY.md` without
    a valid marker pair beside a tracked `memory/domains/` (a marker deleted or retyped, the trunk
    rewritten by an agent) raises BadInput (exit 3), the message `reindex --check` gives: indexing
    nothing there would commit stale indexes.
    """
    tracked = {path for tag, path in listing if tag not in ("?", "C")}
    workspaces = []
    for path in sorted(p for p in tracked if p == TRUNK or p.endswith("/" + TRUNK)):
        trunk = top / path
        try:  # a FIFO or a device in place of MEMORY.md is refused (NotRegularFile), never read
            text = read_regular(trunk, path).decode("utf-8", "replace")
        except OSError:  # deleted from disk, or a folder: nothing to index there
            continue
        prefix = path[: -len(TRUNK)]
        if is_migrated(text):
            workspaces.append(Workspace(prefix))
        elif _has_domains(tracked, prefix):
            error = markers_missing(text)
            error.message = prefix + error.message
            raise error
    if len(workspaces) == 1 and not workspaces[0].prefix:  # one workspace at the top: every path is its own
        only = workspaces[0]
        untracked, unstaged, tracked_ = only.untracked.append, only.unstaged.append, only.tracked.append
        for tag, path in listing:
            (untracked if tag == "?" else unstaged if tag == "C" else tracked_)(path)
        return workspaces
    by_prefix = {ws.prefix: ws for ws in workspaces}
    deepest = max(map(len, by_prefix), default=0)  # no workspace folder ends past this: stop looking there
    for tag, path in listing:  # one pass: each path goes to the nearest workspace folder above it (~depth lookups)
        end, owner, at = 0, None, 0
        while True:
            ws = by_prefix.get(path[:end])
            if ws is not None:
                owner, at = ws, end
            end = path.find("/", end) + 1
            if not end or end > deepest:
                break
        if owner is not None:
            rel = path[at:]
            (owner.untracked if tag == "?" else owner.unstaged if tag == "C" else owner.tracked).append(rel)
    return workspaces


def _split_stage(workspaces: Sequence[Workspace], stage_info: dict[str, str]) -> None:
    """Give each workspace its part of `stage_info` ({repo path: "mode blob-id"}), keyed by paths
    relative to it: one pass over the index however many workspaces the repository holds (a fleet
    of 100 workspaces once scanned the whole index 100 times), each path to the nearest workspace
    folder above it, as `find_workspaces` hands out the listing."""
    if len(workspaces) == 1 and not workspaces[0].prefix:
        workspaces[0].stage = stage_info
        return
    by_prefix = {ws.prefix: ws for ws in workspaces}
    deepest = max(map(len, by_prefix), default=0)
    for ws in workspaces:
        ws.stage = {}
    for path, value in stage_info.items():
        end, owner, at = 0, None, 0
        while True:
            holder = by_prefix.get(path[:end])
            if holder is not None:
                owner, at = holder, end
            end = path.find("/", end) + 1
            if not end or end > deepest:
                break
        if owner is not None:
            owner.stage[path[at:]] = value


def _has_domains(tracked: set[str], prefix: str) -> bool:
    """True when git tracks a file under `<prefix>memory/domains/`."""
    folder = f"{prefix}{DOMAINS_DIR}/"
    return any(p.startswith(folder) for p in tracked)


def _run_workspace(top: Path, ws: Workspace, check: bool, cache_of: Callable[[], FactsCache],
                   common_dir: Path, quiet: bool = False) -> list[str]:
    """Reindex one workspace (incrementally when its snapshot allows, else in full); the repository
    paths written.  `quiet`: do not name each file (the plain hook's one line does)."""
    from .incremental import load_snapshot, run_incremental, save_snapshot, snapshot_path
    from .freshness import settings_digest

    root = top / ws.prefix
    snap_path = snapshot_path(common_dir, root)
    settings = settings_digest(root, _setting_files(top, ws.prefix, common_dir)) if snap_path is not None else None
    snapshot = load_snapshot(snap_path, settings)
    if snapshot is not None:  # only the domains whose leaves changed since the last run are rendered
        from .workspace import load_config

        try:
            outcome = run_incremental(root, snapshot, load_config(root), ws.stage, ws.tracked, ws.untracked,
                                      ws.unstaged, check, lambda: check_attributes(top, ws.prefix, _probe_paths(ws)))
        except BonsaiError as exc:
            if ws.prefix:  # name the file from the repository's top, where the user commits
                exc.message = ws.prefix + exc.message
            raise
        if outcome is not None:
            changed, after = outcome
            if after is not None:
                save_snapshot(snap_path, after)
            if not quiet:
                _report(ws, root, changed, check)
            return [ws.prefix + p for p in changed]
    return _run_workspace_in_full(top, ws, check, cache_of(), settings, snap_path, quiet)


def _run_workspace_in_full(top: Path, ws: Workspace, check: bool, cache: FactsCache, settings: str | None,
                           snap_path: Path | None, quiet: bool = False) -> list[str]:
    from .workspace import load_config
    from .reindex import reindex_workspace

    root = top / ws.prefix
    warned = _WARNINGS[0]
    check_attributes(top, ws.prefix, _probe_paths(ws))  # e.g. git-crypt on MEMORY.md only
    sizes: dict[str, int] = {}
    leaves, warnings = indexed_leaf_paths(root, ws.tracked, ws.untracked, sizes)  # the one rule, as reindex and status
    for warning in warnings:
        _warn(ws.prefix + warning)
    _warn_layout(ws, leaves)
    failure: BonsaiError | None = None
    unread: Unread | None = None
    clean = _clean_blobs(ws)
    try:
        config = load_config(root)
    except BonsaiError as exc:  # raised after the name warnings, as always
        failure = exc
    else:
        unread = cache.plan_unread(config, root, leaves, {p: (clean[p], sizes[p]) for p in leaves if p in clean}, clean)
    _warn_secret_names(ws, leaves, unread.quiet if unread is not None else ())
    try:
        if failure is not None:
            raise failure
        assert unread is not None
        rendered: dict[str, str | None] = {}
        layouts: dict[str, Any] = {}  # each rendered domain's layout, for the incremental snapshot
        result = reindex_workspace(root, check=check, leaf_paths=leaves, config=config, absorb=config.absorb,
                                   facts=cache.facts_of(config.estimator, unread),
                                   branches=cache.branches_of(root, clean, unread, layouts if not check else None),
                                   unread=unread.blobs, clean=clean, rendered_out=rendered)
    except BonsaiError as exc:
        if ws.prefix:  # name the file from the repository's top, where the user commits
            exc.message = ws.prefix + exc.message
        raise
    if not check:
        _keep_snapshot(root, ws, leaves, cache, config.estimator, unread, rendered, result, settings, snap_path,
                       warned == _WARNINGS[0], layouts)
    if result.absorbed:
        from .core.secretscan import mask_secrets  # only when something was absorbed: keeps start-up light

        for s in result.absorbed:
            verb = "would absorb" if check else "absorbed"
            extends = " (same topic: extends that leaf)" if s.extends and s.path.startswith(DOMAINS_DIR + "/") else ""
            print(f"bonsai-git: {verb} {mask_secrets(s.heading)!r} from {ws.prefix}{TRUNK} into {ws.prefix}{s.path}{extends}")
    if not quiet:
        _report(ws, root, result.changed, check)
    if result.inbox_sections:
        _warn(f"{ws.prefix}{TRUNK}: {result.inbox_sections} new section(s) after the end marker are not absorbed "
              "(absorb = false); run bonsai-git absorb")
    return [ws.prefix + p for p in result.changed]


def _report(ws: Workspace, root: Path, changed: Sequence[str], check: bool) -> None:
    """Name each generated file written, removed or (under `check`) stale, masked, from the repository's top."""
    if not changed:
        return
    from .core.secretscan import mask_name  # a sub-folder's index sits inside that folder: never echo a key in its name

    root_str = os.fspath(root)
    for path in changed:
        verb = "stale" if check else "wrote" if os.path.lexists(os.path.join(root_str, path)) else "removed"
        print(f"bonsai-git: {verb} {ws.prefix}{mask_name(path)}")


def _keep_snapshot(root: Path, ws: Workspace, leaves: Sequence[str], cache: FactsCache, estimator: str,
                   unread: Unread | None, rendered: dict[str, str | None], result: ReindexResult,
                   settings: str | None, snap_path: Path | None, quiet: bool, layouts: dict[str, Any]) -> None:
    """Record the incremental snapshot of a full run that wrote the tree fresh and printed no warning;
    otherwise remove the old one (incremental.py)."""
    from .incremental import drop_snapshot, save_snapshot, snapshot_after_full_run

    rows = cache.leaf_rows(estimator, leaves, unread) if quiet and settings is not None and rendered \
        and not result.absorbed and not result.inbox_sections else None
    if rows is None or settings is None:
        drop_snapshot(snap_path)
        return
    written = [p for p in result.changed if p in rendered]  # the Codex projection (AGENTS.md) is not the snapshot's
    snapshot = snapshot_after_full_run(settings, ws.stage, ws.unstaged, ws.untracked, root, rows, rendered,
                                       written, snap_path)
    snapshot.layouts = {domain: layout for domain, layout in layouts.items() if domain in snapshot.roots}
    save_snapshot(snap_path, snapshot)


def _probe_paths(ws: Workspace) -> Iterator[str]:
    """memory_probe_paths, listed only when asked: only when MEMORY.md has attributes (rare) are the
    10,000 paths of a large tree compared with it."""
    yield from memory_probe_paths(ws.prefix, ws.tracked)


def _clean_blobs(ws: Workspace) -> dict[str, str]:
    """{path: blob id} of the workspace's regular files that git reports unchanged against its index
    (`git ls-files -t --modified` did not tag them `C`, after git's own stat and racy checks)."""
    dirty = set(ws.unstaged)
    return {path: info[7:] for path, info in ws.stage.items()
            if path not in dirty and info.startswith(("100644 ", "100755 "))}


def _warn_layout(ws: Workspace, leaves: list[str]) -> None:
    """Warn about a `.md` file directly in memory/domains/ and a domain folder name `move` would refuse."""
    from .core.config import SINGLE_FILE_DOMAINS, is_domain_name
    from .core.layout import domain_name_message, misplaced_leaf, misplaced_message

    folder = DOMAINS_DIR + "/"
    # Only a path directly in memory/domains/ can be misplaced: a C-level test picks those out of the
    # listing (10,000 paths) before the rule itself is asked.
    shallow = {p for p in (*ws.tracked, *ws.untracked) if p.startswith(folder) and p.count("/") == 2}
    for path in sorted(shallow):
        if misplaced_leaf(path):
            _warn(f"{ws.prefix}{path}: {misplaced_message(path)}")
    domains = {location[0] for path in leaves if (location := leaf_location(path)) is not None}
    for domain in sorted(domains - set(SINGLE_FILE_DOMAINS)):
        if not is_domain_name(domain):
            _warn(f"{ws.prefix}{DOMAINS_DIR}/{domain}/: {domain_name_message(domain)}")


def _warn_secret_names(ws: Workspace, leaves: Sequence[str], quiet: Collection[str] = ()) -> None:
    """Name (masked) each leaf whose file name holds a secret-looking run: the indexes show it masked,
    whoever made the file (an agent may write `notes-akia….md`), but the name itself is in git.

    `quiet`: domains whose leaf names the facts cache found free of such runs (the same names,
    by its content key): not scanned again."""
    from .core.secretscan import mask_name, name_secret_kinds  # already loaded by the indexes: no start-up cost

    if quiet:
        leaves = [p for p in leaves if (location := leaf_location(p)) is None or location[0] not in quiet]
    # One scan of all the names first: "/" splits them into the same parts, and the prefilter's
    # pattern cannot match across a "/", so this is every leaf's kinds in a row (usually none).
    if not name_secret_kinds("/".join(leaves)):
        return
    for path in leaves:
        for kind in name_secret_kinds(path):
            _warn(f"{mask_name(ws.prefix + path)}: {kind} in the file name (the indexes show it masked); rename the "
                  "file and keep the value in a secret store")


def _locate(directory: Path) -> tuple[Path, Path, Path]:
    """The work tree's top folder, the git common dir (the facts cache) and the crash journal's folder.

    One `git rev-parse`: the journal folder is journal.py's `--git-path bonsai`.
    """
    check_repository_env(directory)
    proc = run(directory, "rev-parse", "--show-toplevel", "--git-common-dir", "--git-path", "bonsai")
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != 3:
        raise NotARepository(f"{directory}: not inside a git work tree; run the bonsai-git hook in a repository")
    return Path(lines[0]), directory / lines[1], directory / lines[2]


def _ls_files(top: Path) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """`(tag, path)` for tracked (`H`, `M`...), untracked-not-ignored (`?`) and, again, tracked paths whose
    work tree differs from git's index (`C`: unstaged changes, deletions included) that can matter; and
    {tracked path: "mode blob-id"} from the index (`-s`), the freshness memo's input."""
    proc = run(top, "ls-files", "-z", "-t", "-s", "--cached", "--modified", "--others", "--exclude-standard", "--",
               *_PATHSPECS, literal=False)  # :(glob) specs
    if proc.returncode != 0:
        first = proc.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise NotARepository(f"git ls-files failed: {first[0] if first else 'no output'}")
    listing: set[tuple[str, str]] = set()
    stage_info: dict[str, str] = {}
    for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if len(entry) < 3:
            continue
        tag = entry[0]
        if tag == "?":
            listing.add((tag, entry[2:]))
            continue
        info, _, path = entry[2:].partition("\t")  # "mode blob stage\tpath"
        listing.add((tag, path))
        if tag == "H" and info.endswith(" 0"):  # unmerged, skip-worktree...: no info, never taken as known fresh
            stage_info[path] = info[:-2]
    return sorted(listing), stage_info


_WARNINGS = [0]  # warnings printed so far: a run that warned is not remembered as fresh (it must warn again)


def _warn(message: str) -> None:
    _WARNINGS[0] += 1
    print(f"bonsai-git: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
