"""Open the git repository that holds a workspace, and run the real git CLI in it.

Every write (add, commit, revert, update-ref) runs the real `git` CLI with list arguments and
paths after `--`, so the user's identity, signing, hooks and configuration apply (GitPython's
own `index.commit` skips signing and invents an identity).  Reads a run needs (HEAD, status)
come from the same CLI, folded into as few calls as possible: each costs ~4 ms.  GitPython
stays the repository object (`RepoContext.repo`) for code that wants one, opened on first use:
importing it costs 40-70 ms and opening it starts `git version` twice and `git cat-file`
twice, more than a whole migration of a small memory otherwise spends.  This module is never
imported on the hook's path.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING, Any

from . import gitrun
from .core.errors import LockHeld, NotARepository
from .gitrun import git_exe
from .gitsettings import check_repository_env
from .journal import LOCK_NAME  # one name for the lock, next to the journal folder

if TYPE_CHECKING:
    import git
# The git paths a run asks for, fetched in open_workspace's single rev-parse.
_GIT_PATHS = (LOCK_NAME, "bonsai", "index.lock", "info/sparse-checkout")


@dataclass(frozen=True)
class RepoContext:
    """A workspace inside a git work tree.

    `top` is the work tree root, `workspace` the absolute workspace folder, `prefix` the
    workspace's path from `top` ("" or "sub/dir/"), `git_dir` this worktree's git dir.
    """

    top: Path
    workspace: Path
    prefix: str
    git_dir: Path
    git_paths: Mapping[str, Path] = field(default_factory=dict)
    object_format: str = "sha1"
    superproject: Path | None = None
    _repo: list[Any] = field(default_factory=list, repr=False, compare=False)

    @property
    def repo(self) -> "git.Repo":
        """The GitPython repository object, opened (and GitPython imported) on first use."""
        if not self._repo:
            import git

            git.Git.GIT_PYTHON_GIT_EXECUTABLE = git_exe()  # GitPython's own commands: no PATH search per call
            try:
                self._repo.append(git.Repo(self.top))
            except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:  # pragma: no cover - probed
                raise NotARepository(f"{self.top.name}: not a git repository ({exc})") from None
        repo: git.Repo = self._repo[0]
        return repo

    def repo_path(self, ws_path: str) -> str:
        """A workspace-relative posix path as a path relative to the work tree root."""
        return self.prefix + ws_path

    def abs_path(self, ws_path: str) -> Path:
        """A workspace-relative posix path as an absolute path on disk."""
        return self.workspace / ws_path

    def shown(self, path: Path) -> str:
        """An absolute path as messages name it: relative to the work tree root when inside it."""
        try:
            return path.relative_to(self.top).as_posix()
        except ValueError:
            return os.fspath(path)


def open_workspace(workspace: Path) -> RepoContext:
    """Find the git work tree holding `workspace` and open it with GitPython.

    Raises NotARepository (no repo, bare repo, safe.directory refusal, with git's hint);
    Refused when GIT_DIR / GIT_WORK_TREE point git at another repository.
    """
    workspace = workspace.resolve()
    if not workspace.is_dir():
        raise NotARepository(f"{workspace.name}: no such directory")
    check_repository_env(workspace)
    # One rev-parse for every fact a run needs (each git call costs ~4 ms); the superproject
    # line comes last because git prints nothing for it outside a submodule.  When it fails (no
    # repository, a bare one, a git dir, safe.directory), the probe below says why.
    facts_proc = gitrun.run(workspace, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--absolute-git-dir",
                            "--show-toplevel", "--show-object-format",
                            *(arg for name in _GIT_PATHS for arg in ("--git-path", name)),
                            "--show-superproject-working-tree")
    facts = facts_proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if facts_proc.returncode != 0 or len(facts) < 5 + len(_GIT_PATHS) or facts[0] == "true" or facts[1] != "true":
        _refuse_without_work_tree(workspace)
    git_dir, top = Path(facts[2]), Path(facts[3]).resolve()
    git_paths = {name: (workspace / out).resolve() for name, out in zip(_GIT_PATHS, facts[5:])}
    superproject = Path(facts[5 + len(_GIT_PATHS)]) if len(facts) > 5 + len(_GIT_PATHS) else None
    rel = workspace.relative_to(top).as_posix()
    prefix = "" if rel == "." else rel + "/"
    return RepoContext(top, workspace, prefix, git_dir, git_paths, facts[4] or "sha1", superproject)


def _refuse_without_work_tree(workspace: Path) -> None:
    """Raise NotARepository saying why `workspace` is not in a usable work tree (git's hint included)."""
    probe = gitrun.run(workspace, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--absolute-git-dir")
    err = probe.stderr.decode("utf-8", "replace")
    if probe.returncode != 0:
        if "dubious ownership" in err:
            hint = next((ln.strip() for ln in err.splitlines() if "safe.directory" in ln), "")
            raise NotARepository(f"git refuses this repository (dubious ownership); to trust it run: {hint}")
        raise NotARepository(f"{workspace.name}: not inside a git work tree; run `git init` and commit MEMORY.md first")
    raise NotARepository(f"{workspace.name}: a bare repository or git dir has no work tree; run bonsai-git in a checkout")


def git_path(ctx: RepoContext, name: str) -> Path:
    """`git rev-parse --git-path NAME` as an absolute path (honours worktrees); asked once per run."""
    if name in ctx.git_paths:
        return ctx.git_paths[name]
    out = gitrun.run(ctx.top, "rev-parse", "--git-path", name, check=True).stdout.decode().strip()
    return (ctx.top / out).resolve()


@contextlib.contextmanager
def workspace_lock(ctx: RepoContext) -> Iterator[Path]:
    """Hold the worktree's bonsai lock (an OS flock the kernel releases if we die); timeout 0.

    Raises LockHeld naming the lock file when another run holds it.
    """
    path = git_path(ctx, LOCK_NAME)
    if os.name != "posix":  # pragma: no cover - filelock knows each platform's lock
        import filelock

        lock = filelock.FileLock(str(path), timeout=0)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise LockHeld(f"{ctx.shown(path)}: another bonsai-git run holds this lock; wait for it to finish") from None
        try:
            yield path
        finally:
            lock.release()
        return
    # On POSIX the flock filelock's UnixFileLock takes (and journal.py, hook.py take on this
    # file), taken with fcntl directly: importing filelock cost 15-35 ms of every run.
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockHeld(f"{ctx.shown(path)}: another bonsai-git run holds this lock; wait for it to finish") from None
        try:
            yield path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def head_sha(ctx: RepoContext) -> str | None:
    """The commit HEAD points to, or None when HEAD is unborn (`git rev-parse --verify`)."""
    return gitrun.head_commit(ctx.top)


def head_blob(ctx: RepoContext, repo_path: str) -> tuple[str | None, str | None]:
    """(the commit HEAD points to, the blob id of `repo_path` in it): one `git rev-parse`.

    (None, None) when HEAD is unborn; (sha, None) when the commit does not hold the path.
    """
    proc = gitrun.run(ctx.top, "rev-parse", "HEAD^{commit}", f"HEAD:{repo_path}")
    shas = proc.stdout.decode().split()
    if proc.returncode == 0 and len(shas) == 2:
        return shas[0], shas[1]
    return head_sha(ctx), None


def head_is_detached(ctx: RepoContext) -> bool:
    """True when HEAD names a commit rather than a branch: the worktree's HEAD file, read as GitPython
    reads it (`ref: refs/heads/…` is a branch, an unborn one included)."""
    try:
        return not (ctx.git_dir / "HEAD").read_bytes().startswith(b"ref:")
    except OSError:
        return False


def in_progress_operation(ctx: RepoContext) -> str | None:
    """The name of a merge/rebase/cherry-pick/revert/bisect in progress in this worktree, or None."""
    markers = (("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"), ("rebase-apply", "rebase or am"),
               ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"), ("BISECT_LOG", "bisect"))
    return next((what for name, what in markers if (ctx.git_dir / name).exists()), None)


def status_paths(ctx: RepoContext, *pathspecs: str) -> list[tuple[str, str]]:
    """`git status --porcelain` entries (XY code, repo-relative path) under the pathspecs (all if none)."""
    args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
    out = gitrun.run(ctx.top, *args, "--", *(pathspecs or (".",)), check=True).stdout.decode("utf-8", "surrogateescape")
    return [(entry[:2], entry[3:]) for entry in out.split("\0") if entry]


def staged_paths(ctx: RepoContext) -> list[str]:
    """Paths with staged changes (index differs from HEAD)."""
    out = gitrun.output(ctx.top, "diff", "--cached", "--name-only", "-z")
    return [p for p in out.split("\0") if p]


def is_tracked(ctx: RepoContext, repo_path: str) -> bool:
    """True when `repo_path` is in the index."""
    return gitrun.run(ctx.top, "ls-files", "--error-unmatch", "--", repo_path).returncode == 0


def ignored_paths(ctx: RepoContext, repo_paths: Sequence[str]) -> list[str]:
    """The paths among `repo_paths` that .gitignore (or exclude files) would ignore."""
    if not repo_paths:
        return []
    proc = gitrun.run(ctx.top, "check-ignore", "--no-index", "--stdin", "-z", input="\0".join(repo_paths).encode())
    return [p for p in proc.stdout.decode().split("\0") if p]
