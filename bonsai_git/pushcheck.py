"""Check what is pushed, not the work tree: each pushed commit's tree must hold fresh indexes.

Issue 22: the pre-push check read the index and the work tree, so a stale commit made with
`--no-verify` whose fix was only staged was pushed, and `git push origin side` of a stale branch
passed while main was fresh.  Here a commit is checked by its own tree: the blobs of its
MEMORY.md, memory/ files, `.bonsai.toml` and `.gitattributes` files are written, as git stores
them, into a temporary folder (`git ls-tree` + `git cat-file --batch`) and every migrated
workspace there is reindexed with `check=True` (the renderer every command uses).  So the
verdict is the one `reindex --check` gives in a clean clone of that commit.

- `bonsai-git check --rev <commit>` (CI, any clone, shallow included: it reads one tree);
- the plain `pre-push` hook (`bonsai-git-hook --pre-push`, installed by `install-hook`) reads
  the `<local ref> <local sha> <remote ref> <remote sha>` lines git passes on stdin and checks
  the pushed commits oldest first, naming the first stale one (exit 1; git then pushes nothing);
- under the pre-commit framework, `bonsai-git-hook --check` at the pre-push stage checks the
  commits `PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF` the framework passes.
Of the pushed commits, those that change no memory file, `.bonsai.toml` or `.gitattributes`
hold the verdict of their parent and are not checked again; the newest is always checked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from .core.errors import BadInput, BonsaiError, NotARepository
from .core.layout import MEMORY_DIR, TRUNK, is_migrated, leaf_location
from .gitrun import GitFailed, run

# What can bear on a commit's verdict: trunks, memory/ folders, configs, attributes, at any depth.
PATHSPECS = (f":(glob)**/{TRUNK}", f":(glob)**/{MEMORY_DIR}/**", ":(glob)**/.bonsai.toml", ":(glob)**/.gitattributes")
_ZERO = frozenset("0")


def stale_in_commit(top: Path, commit: str) -> list[str]:
    """The generated files (repository paths, sorted) that are stale in `commit`'s own tree.

    Raises BadInput (exit 3) when a workspace there cannot be reindexed (a conflict marker, a
    trunk without markers beside memory/domains/, ...), its message prefixed with the commit;
    GitFailed when git cannot read the commit.
    """
    import tempfile

    entries = _tree_entries(top, commit)
    with tempfile.TemporaryDirectory(prefix="bonsai-check-") as scratch:
        view = Path(scratch)
        _write_blobs(top, view, entries)
        stale: list[str] = []
        for prefix in _workspaces(view, [path for _mode, _oid, path in entries]):
            stale += [prefix + p for p in _check_workspace(view / prefix, prefix, entries, commit)]
    return sorted(stale)


def _tree_entries(top: Path, commit: str) -> list[tuple[str, str, str]]:
    """(mode, object id, path) of the blobs under PATHSPECS in `commit`'s tree."""
    proc = run(top, "ls-tree", "-r", "-z", "--full-tree", commit)  # ls-tree takes no :(glob) magic: filtered here
    if proc.returncode != 0:
        raise GitFailed(["ls-tree", commit], proc.stderr.decode("utf-8", "replace"))
    out = []
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        info, _, path = record.partition("\t")
        mode, kind, oid = info.split(" ")
        if kind == "blob" and _bears_on_verdict(path):
            out.append((mode, oid, path))
    return out


def _bears_on_verdict(path: str) -> bool:
    """The paths PATHSPECS name: a MEMORY.md, anything under a memory/ folder, a config, attributes."""
    name = path.rpartition("/")[2]
    return (name in (TRUNK, ".bonsai.toml", ".gitattributes") or path.startswith(MEMORY_DIR + "/")
            or f"/{MEMORY_DIR}/" in path)


def _write_blobs(top: Path, view: Path, entries: Sequence[tuple[str, str, str]]) -> None:
    """Write each entry's blob, bytes as git stores them, under `view` (a symlink as a symlink)."""
    if not entries:
        return
    request = "".join(f"{oid}\n" for _mode, oid, _path in entries).encode("ascii")
    proc = run(top, "cat-file", "--batch", input=request, check=True)
    data, at = proc.stdout, 0
    for mode, _oid, path in entries:
        header_end = data.index(b"\n", at)
        size = int(data[at:header_end].split()[2])
        body = data[header_end + 1: header_end + 1 + size]
        at = header_end + 1 + size + 1
        target = view / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            os.symlink(os.fsdecode(body), target)
        else:
            target.write_bytes(body)


def _workspaces(view: Path, paths: Iterable[str]) -> list[str]:
    """Prefixes ("" or "a/b/") of the migrated workspaces among `paths` (a MEMORY.md with markers)."""
    found = []
    for path in sorted(paths):
        if path == TRUNK or path.endswith("/" + TRUNK):
            trunk = view / path
            if not trunk.is_symlink() and is_migrated(trunk.read_bytes().decode("utf-8", "replace")):
                found.append(path[: -len(TRUNK)])
    return found


def _check_workspace(root: Path, prefix: str, entries: Sequence[tuple[str, str, str]], commit: str) -> tuple[str, ...]:
    from .reindex import reindex_workspace
    from .workspace import load_config

    leaves = sorted(p[len(prefix):] for _m, _o, p in entries
                    if p.startswith(prefix) and leaf_location(p[len(prefix):]) is not None
                    and _m in ("100644", "100755"))
    try:
        config = load_config(root)
        return reindex_workspace(root, check=True, leaf_paths=leaves, config=config, absorb=config.absorb).changed
    except BonsaiError as exc:
        raise BadInput(f"commit {commit[:12]}: {prefix}{exc.message}") from None


def pushed_commits(top: Path, lines: Iterable[str], remote: str | None) -> list[str]:
    """The commits a push sends, oldest first, from git's pre-push stdin lines
    (`<local ref> <local sha> <remote ref> <remote sha>`); deletions send none.

    For a ref the remote has, the commits after its sha; for a new ref, those no ref of `remote`
    (when named) reaches."""
    commits: list[str] = []
    for line in lines:
        parts = line.split()
        if len(parts) != 4 or set(parts[1]) <= _ZERO:
            continue
        local, theirs = parts[1], parts[3]
        if set(theirs) <= _ZERO or not _has_commit(top, theirs):
            rest = ["--not", f"--remotes={remote}"] if remote else []
        else:
            rest = ["--not", theirs]
        commits += [c for c in _rev_list(top, local, *rest) if c not in commits]
    return commits


def commits_between(top: Path, start: str, end: str) -> list[str]:
    """The commits in `start..end`, oldest first (the pre-commit framework's FROM_REF and TO_REF)."""
    return _rev_list(top, end, "--not", start)


def _rev_list(top: Path, *args: str) -> list[str]:
    proc = run(top, "rev-list", "--reverse", "--topo-order", *args)
    if proc.returncode != 0:
        raise GitFailed(["rev-list", *args[:1]], proc.stderr.decode("utf-8", "replace"))
    return proc.stdout.decode("ascii").split()


def _has_commit(top: Path, sha: str) -> bool:
    return run(top, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def _touches_memory(top: Path, commit: str) -> bool:
    """True when `commit` changes a path under PATHSPECS against any parent (a root commit does)."""
    proc = run(top, "diff-tree", "-r", "-m", "--root", "--name-only", "-z", "--no-commit-id", commit, "--",
               *PATHSPECS, literal=False)
    return proc.returncode != 0 or bool(proc.stdout.strip(b"\0"))


def first_stale(top: Path, commits: Sequence[str]) -> tuple[str, list[str]] | None:
    """(commit, its stale paths) for the first of `commits` (oldest first) whose tree is stale, or None.

    A commit that changes nothing under PATHSPECS is not checked (its parent's verdict holds),
    except the last one."""
    for number, commit in enumerate(commits):
        if number < len(commits) - 1 and not _touches_memory(top, commit):
            continue
        stale = stale_in_commit(top, commit)
        if stale:
            return commit, stale
    return None


def describe(top: Path, commit: str) -> str:
    """`<short sha> ("<subject>")` for messages."""
    proc = run(top, "log", "-1", "--format=%h (\"%s\")", commit)
    return proc.stdout.decode("utf-8", "replace").strip() or commit[:12]


def report_stale(top: Path, found: tuple[str, list[str]] | None, pushing: bool) -> int:
    """Print the verdict (stale paths on stdout, one line on stderr); 1 when stale, else 0."""
    if found is None:
        return 0
    from .core.secretscan import mask_name

    commit, stale = found
    for path in stale:
        print(f"bonsai-git: stale {mask_name(path)} in {commit[:12]}")
    advice = ("fix that commit (git commit --amend, or git rebase -i to edit it), then push again" if pushing
              else "run bonsai-git reindex, commit, and check again")
    print(f"bonsai-git: commit {describe(top, commit)} has {len(stale)} stale generated file(s); {advice}",
          file=sys.stderr)
    return 1


def repository_top(directory: Path) -> Path:
    """The work tree's top (or, in a bare repository, the git dir) holding `directory`."""
    proc = run(directory, "rev-parse", "--show-toplevel")
    if proc.returncode == 0 and proc.stdout.strip():
        return Path(proc.stdout.decode("utf-8", "surrogateescape").strip())
    proc = run(directory, "rev-parse", "--absolute-git-dir")
    if proc.returncode != 0:
        raise NotARepository(f"{directory}: not inside a git repository; run bonsai-git check in one")
    return Path(proc.stdout.decode("utf-8", "surrogateescape").strip())


def check_rev(directory: Path, rev: str) -> int:
    """`bonsai-git check --rev REV`: 0 when REV's tree is fresh, 1 stale (named), 3 unreadable."""
    top = repository_top(directory)
    proc = run(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if proc.returncode != 0:
        raise BadInput(f"{rev}: not a commit in this repository; name one (a sha, a branch, HEAD)")
    commit = proc.stdout.decode("ascii").strip()
    return report_stale(top, first_stale(top, [commit]), pushing=False)


def check_push(directory: Path, remote: str | None, lines: Iterable[str]) -> int:
    """The plain pre-push hook: check every commit the push sends (git's stdin lines)."""
    top = repository_top(directory)
    return report_stale(top, first_stale(top, pushed_commits(top, lines, remote)), pushing=True)


def check_framework_push(directory: Path) -> int | None:
    """Under the pre-commit framework at pre-push: check PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF;
    None when the framework named no refs (then the hook checks the work tree, as before)."""
    start, end = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
    if not (os.environ.get("PRE_COMMIT") and start and end):
        return None
    top = repository_top(directory)
    return report_stale(top, first_stale(top, commits_between(top, start, end)), pushing=True)
