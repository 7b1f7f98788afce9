"""The plain git hook inside a commit: index what the commit holds, and stage what it regenerates.

Issue 22: `git commit -- <leaf>`, `git add -p` and `git commit -a` each took two attempts (the
hook rewrote the indexes in the work tree and stopped the commit), and a partial commit was
refused.  Inside a commit git gives its hooks the index it commits (`GIT_INDEX_FILE`: the real
index's lock, or a temporary `next-index-*.lock` for a pathspec commit; relative or absolute;
in a linked worktree, that worktree's).  So, under the plain hook (`install-hook`; not the
pre-commit framework, whose convention is exit 1 and re-add):

- When the work tree holds what git's index holds for every leaf, index file and MEMORY.md of
  a workspace, the hook runs as always on the work tree, then stages each file it wrote.
- Otherwise (a partial or pathspec commit, an unstaged edit elsewhere) the workspace's staged
  files are checked out into a temporary folder (`git checkout-index`), reindexed there (the
  same `reindex_workspace`), and each generated file that changed is staged from there: the
  commit's indexes describe exactly the bytes it commits.  In the work tree, a generated file
  gets the same bytes; a leaf or MEMORY.md with unstaged changes is never written (a run that
  would have to, by absorbing from MEMORY.md, is refused, exit 3, nothing staged).
- For a pathspec commit git writes the real index too when the commit succeeds (its lock,
  `index.lock` beside the temporary one): the same entries go there, so `git status` is clean
  after it.

Staging writes blobs with `git hash-object -w` (the path's attributes apply) and index entries
with `git update-index --index-info`: only our generated paths, never a hunk the user kept out.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .core.errors import NotARepository, Refused
from .core.layout import MEMORY_DIR, TRUNK, leaf_location
from .gitrun import GitFailed, run

if TYPE_CHECKING:
    from .reindex import ReindexResult

CONFIG_NAME = ".bonsai.toml"


def absolute_index_file() -> None:
    """Make GIT_INDEX_FILE absolute, against the folder the hook started in (git may pass it
    relative to the work tree's top, where it runs hooks): every git command we start then reads
    and writes the index git is committing, whatever folder it runs in."""
    found = os.environ.get("GIT_INDEX_FILE")
    if found and not os.path.isabs(found):
        os.environ["GIT_INDEX_FILE"] = os.path.abspath(found)


def in_plain_commit(check: bool) -> bool:
    """True inside a commit run by the plain git hook: git set GIT_INDEX_FILE and the pre-commit
    framework (which sets PRE_COMMIT=1 and keeps its exit-1-and-re-add convention) did not run us."""
    return not check and bool(os.environ.get("GIT_INDEX_FILE")) and not os.environ.get("PRE_COMMIT")


def needs_staged_view(unstaged: Iterable[str]) -> bool:
    """True when a workspace path that bears on its indexes (a leaf, a generated index, MEMORY.md)
    differs between the work tree and git's index (`unstaged`, workspace-relative)."""
    return any(p == TRUNK or leaf_location(p) is not None or (p.startswith(MEMORY_DIR + "/") and "/_index" in p)
               for p in unstaged)


def stage_from_work_tree(top: Path, paths: Sequence[str], modes: Mapping[str, str]) -> None:
    """Stage repository-relative `paths` as they are in the work tree now (a missing one as deleted),
    in the index git is committing and, for a pathspec commit, the real index too.

    `modes` {path: "mode blob-id"} of git's index (a path keeps its mode).  Raises GitFailed."""
    _stage(top, top, None, paths, modes)


def reindex_staged(top: Path, prefix: str, tracked: Sequence[str], unstaged: Iterable[str],
                   modes: Mapping[str, str]) -> list[str]:
    """Reindex the workspace at `prefix` as git's index holds it, stage each generated file that
    changed, and give the work tree the same generated files; return the repository-relative paths.

    `tracked` and `unstaged` are workspace-relative (the hook's listing); `modes` is git's index
    by repository path.  Raises Refused (exit 3) before staging anything when the run would have
    to write a leaf or MEMORY.md whose work tree differs from what is staged; BadInput as reindex.
    """
    dirty = set(unstaged)
    with _staged_view(top, prefix, tracked) as (view, reindex):
        changed = list(reindex(False).changed)
        for path in changed:
            generated = path.startswith(MEMORY_DIR + "/") and "/_index" in path
            if not generated and (path in dirty or (path not in tracked and os.path.lexists(top / prefix / path))):
                from .core.secretscan import mask_name

                raise Refused(f"{mask_name(prefix + path)}: has changes that are not staged, and this commit would "
                              f"rewrite it (absorbing new sections from {prefix}{TRUNK}); stage it (git add -- "
                              f"{mask_name(prefix + path)}) or set the rest aside (git stash push --keep-index), "
                              "then commit again")
        repo_paths = [prefix + p for p in changed]
        _stage(top, view, _git_dir(top), repo_paths, modes)
        _copy_to_work_tree(view, top, repo_paths)
    return repo_paths


def verify_staged(top: Path, prefix: str, tracked: Sequence[str], written: Sequence[str]) -> None:
    """Check that what this commit holds for the workspace at `prefix` is fresh: its staged files
    (`tracked` plus the repository-relative paths the hook just `written`) checked out into a
    temporary folder and reindexed there with check=True.  The hook staged each file it wrote as
    the work tree held it a moment later, so an agent writing a leaf or MEMORY.md meanwhile can
    leave the commit with indexes that describe other bytes than it commits.  Raises Refused
    (exit 3: git then commits nothing; the work tree keeps every byte) naming the stale files."""
    paths = sorted(set(tracked) | {p[len(prefix):] for p in written if p.startswith(prefix)})
    with _staged_view(top, prefix, paths) as (_view, reindex):  # a path the index no longer holds is skipped
        stale = list(reindex(True).changed)
    if stale:
        from .core.secretscan import mask_name

        raise Refused(f"{mask_name(prefix + stale[0])}: changed by another process while this commit was being made, "
                      f"so the commit's indexes would not describe what it holds; nothing was committed and nothing "
                      f"was lost: commit again")


@contextlib.contextmanager
def _staged_view(top: Path, prefix: str, paths: Sequence[str]) -> Iterator[tuple[Path, Callable[[bool], ReindexResult]]]:
    """git's index entries of the workspace's `paths` (workspace-relative) checked out into a temporary
    folder, and a function that reindexes the workspace there (check: bool) as the hook does."""
    import tempfile  # off the hook's no-op path (tempfile loads random and hashlib)

    from .gitsettings import indexed_leaf_paths
    from .reindex import reindex_workspace
    from .workspace import load_config

    with tempfile.TemporaryDirectory(prefix="bonsai-staged-") as scratch:
        view = Path(scratch)
        _check_out(top, view, prefix, paths)
        root = view / prefix
        config = load_config(root)
        leaves, _warnings = indexed_leaf_paths(root, paths)  # the hook has warned about the work tree

        def reindex(check: bool) -> ReindexResult:
            return reindex_workspace(root, check=check, leaf_paths=leaves, config=config, absorb=config.absorb)

        yield view, reindex


def _check_out(top: Path, view: Path, prefix: str, tracked: Sequence[str]) -> None:
    """git's index entries of the workspace (its tracked MEMORY.md and memory/ paths, `.bonsai.toml`
    and the `.gitattributes` files above it) into `view`, with the checkout's conversions."""
    names = [prefix + p for p in tracked]
    names.append(prefix + CONFIG_NAME)
    parts = prefix.split("/")[:-1]
    names += ["".join(f"{part}/" for part in parts[:depth]) + ".gitattributes" for depth in range(len(parts) + 1)]
    data = "".join(f"{n}\0" for n in names).encode("utf-8", "surrogateescape")
    proc = run(top, "checkout-index", "-q", "-f", "-z", "--stdin", f"--prefix={view}/", input=data)
    if proc.returncode != 0 and not (view / prefix / TRUNK).exists():
        raise GitFailed(["checkout-index"], proc.stderr.decode("utf-8", "replace"))
    config = top / prefix / CONFIG_NAME
    if not (view / prefix / CONFIG_NAME).exists() and config.is_file():  # an untracked .bonsai.toml still applies
        import shutil

        shutil.copyfile(config, view / prefix / CONFIG_NAME)


def _git_dir(top: Path) -> str:
    proc = run(top, "rev-parse", "--absolute-git-dir")
    if proc.returncode != 0:
        raise NotARepository(f"{top}: git rev-parse failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def _stage(top: Path, source: Path, git_dir: str | None, paths: Sequence[str], modes: Mapping[str, str]) -> None:
    """Hash the files at `paths` under `source` into git's objects and enter them in the index git
    is committing (and in the real index of a pathspec commit); a missing file is removed."""
    present = [p for p in paths if os.path.lexists(source / p)]
    extra = {"GIT_DIR": git_dir, "GIT_WORK_TREE": str(source)} if git_dir is not None else None
    ids: list[str] = []
    if present:
        proc = run(source, "hash-object", "-w", "--stdin-paths", extra_env=extra,
                   input="".join(f"{p}\n" for p in present).encode("utf-8", "surrogateescape"), check=True)
        ids = proc.stdout.decode("ascii").split()
    blobs = dict(zip(present, ids))
    zero = "0" * (len(ids[0]) if ids else 40)
    lines = []
    for path in paths:
        blob = blobs.get(path)
        mode = (modes.get(path) or "100644 ").split(" ", 1)[0]
        lines.append(f"{mode} {blob}\t{path}\0" if blob else f"0 {zero}\t{path}\0")
    entries = "".join(lines).encode("utf-8", "surrogateescape")
    run(top, "update-index", "-z", "--index-info", input=entries, check=True)
    real = _real_index_lock()
    if real is not None:
        run(top, "update-index", "-z", "--index-info", input=entries, extra_env={"GIT_INDEX_FILE": real}, check=True)


def _real_index_lock() -> str | None:
    """The real index's lock during a pathspec commit (git commits it after the hook), else None."""
    index = os.environ.get("GIT_INDEX_FILE", "")
    if not os.path.basename(index).startswith("next-index-"):
        return None
    lock = os.path.join(os.path.dirname(index), "index.lock")
    return lock if os.path.isfile(lock) else None


def _copy_to_work_tree(view: Path, top: Path, paths: Sequence[str]) -> None:
    """Give the work tree the staged view's version of each path (its generated files, new leaves)."""
    from .tree import write_durably

    for path in paths:
        source, target = view / path, top / path
        if os.path.lexists(source):
            target.parent.mkdir(parents=True, exist_ok=True)
            write_durably(target, source.read_bytes(), sync=path.endswith(TRUNK))
        elif os.path.lexists(target) and not target.is_dir():
            target.unlink()
