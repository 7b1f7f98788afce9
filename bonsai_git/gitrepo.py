"""Open the git repository that holds a workspace, and run the real git CLI in it.

GitPython opens and reads the repository (HEAD, status); every write (add, commit, revert,
update-ref) runs the real `git` CLI with list arguments and paths after `--`, so the user's
identity, signing, hooks and configuration apply (GitPython's own `index.commit` skips signing
and invents an identity).  This module is never imported on the hook's path.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import filelock
import git

from .errors import BonsaiError, LockHeld, NotARepository, Refused
from .gitsettings import check_repository_env, git_env

from .gitexe import git_exe
from .journal import LOCK_NAME  # one name for the lock, next to the journal folder

git.Git.GIT_PYTHON_GIT_EXECUTABLE = git_exe()  # GitPython's own commands: no PATH search per call either
# The git paths a run asks for, fetched in open_workspace's single rev-parse.
_GIT_PATHS = (LOCK_NAME, "bonsai", "index.lock", "info/sparse-checkout")


@dataclass(frozen=True)
class RepoContext:
    """A workspace inside a git work tree.

    `top` is the work tree root, `workspace` the absolute workspace folder, `prefix` the
    workspace's path from `top` ("" or "sub/dir/"), `git_dir` this worktree's git dir.
    """

    repo: git.Repo
    top: Path
    workspace: Path
    prefix: str
    git_dir: Path
    git_paths: Mapping[str, Path] = field(default_factory=dict)
    object_format: str = "sha1"
    superproject: Path | None = None

    def repo_path(self, ws_path: str) -> str:
        """A workspace-relative posix path as a path relative to the work tree root."""
        return self.prefix + ws_path

    def abs_path(self, ws_path: str) -> Path:
        """A workspace-relative posix path as an absolute path on disk."""
        return self.workspace / ws_path


class GitFailed(BonsaiError):
    """A git command failed; carries git's own stderr."""

    def __init__(self, args: Sequence[str], stderr: str, exit_code: int = 1) -> None:
        first = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "no output")
        super().__init__(f"git {' '.join(args[:2])} failed: {first}")
        self.stderr = stderr
        self.exit_code = exit_code


def run_git(cwd: Path, *args: str, input: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run `git <args>` in `cwd`; raise GitFailed on non-zero if `check`.

    The user's environment, with every pathspec literal (gitsettings.git_env): a folder named
    `ws[1]` never matches `ws1`.
    """
    proc = subprocess.run([git_exe(), *args], cwd=cwd, input=input, capture_output=True, env=git_env(args))
    if check and proc.returncode != 0:
        raise GitFailed(list(args), proc.stderr.decode("utf-8", "replace"))
    return proc


def open_workspace(workspace: Path) -> RepoContext:
    """Find the git work tree holding `workspace` and open it with GitPython.

    Raises NotARepository (no repo, bare repo, safe.directory refusal, with git's hint);
    Refused when GIT_DIR / GIT_WORK_TREE point git at another repository.
    """
    workspace = workspace.resolve()
    if not workspace.is_dir():
        raise NotARepository(f"{workspace.name}: no such directory")
    check_repository_env(workspace)
    probe = run_git(workspace, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", "--absolute-git-dir",
                    check=False)
    err = probe.stderr.decode("utf-8", "replace")
    if probe.returncode != 0:
        if "dubious ownership" in err:
            hint = next((ln.strip() for ln in err.splitlines() if "safe.directory" in ln), "")
            raise NotARepository(f"git refuses this repository (dubious ownership); to trust it run: {hint}")
        raise NotARepository(f"{workspace.name}: not inside a git work tree; run `git init` and commit MEMORY.md first")
    lines = probe.stdout.decode().splitlines()
    if lines[0] == "true" or lines[1] != "true":
        raise NotARepository(f"{workspace.name}: a bare repository or git dir has no work tree; run bonsai-git in a checkout")
    # One rev-parse for every fact a run needs (each git call costs ~4 ms); the superproject
    # line comes last because git prints nothing for it outside a submodule.
    facts = run_git(workspace, "rev-parse", "--show-toplevel", "--show-object-format",
                    *(arg for name in _GIT_PATHS for arg in ("--git-path", name)),
                    "--show-superproject-working-tree").stdout.decode("utf-8", "surrogateescape").splitlines()
    git_paths = {name: (workspace / out).resolve() for name, out in zip(_GIT_PATHS, facts[2:])}
    superproject = Path(facts[2 + len(_GIT_PATHS)]) if len(facts) > 2 + len(_GIT_PATHS) else None
    lines = [*lines[:2], facts[0], lines[2]]
    top = Path(lines[2]).resolve()
    try:
        repo = git.Repo(top)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:  # pragma: no cover - probed above
        raise NotARepository(f"{workspace.name}: not a git repository ({exc})") from None
    rel = workspace.relative_to(top).as_posix()
    prefix = "" if rel == "." else rel + "/"
    return RepoContext(repo, top, workspace, prefix, Path(lines[3]), git_paths, facts[1] or "sha1", superproject)


def git_path(ctx: RepoContext, name: str) -> Path:
    """`git rev-parse --git-path NAME` as an absolute path (honours worktrees); asked once per run."""
    if name in ctx.git_paths:
        return ctx.git_paths[name]
    out = run_git(ctx.top, "rev-parse", "--git-path", name).stdout.decode().strip()
    return (ctx.top / out).resolve()


@contextlib.contextmanager
def workspace_lock(ctx: RepoContext) -> Iterator[Path]:
    """Hold the worktree's bonsai lock (an OS flock the kernel releases if we die); timeout 0.

    Raises LockHeld naming the lock file when another run holds it.
    """
    path = git_path(ctx, LOCK_NAME)
    lock = filelock.FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise LockHeld(f"{_show(ctx, path)}: another bonsai-git run holds this lock; wait for it to finish") from None
    try:
        yield path
    finally:
        lock.release()


def head_sha(ctx: RepoContext) -> str | None:
    """The commit HEAD points to, or None when HEAD is unborn."""
    try:
        return ctx.repo.head.commit.hexsha
    except ValueError:
        return None


def check_identity(ctx: RepoContext) -> None:
    """Refuse when git cannot make a committer identity (`git var GIT_COMMITTER_IDENT`)."""
    proc = run_git(ctx.top, "var", "GIT_COMMITTER_IDENT", check=False)
    if proc.returncode != 0:
        raise Refused("git has no committer identity; set it with `git config user.name` and `git config user.email`")


def in_progress_operation(ctx: RepoContext) -> str | None:
    """The name of a merge/rebase/cherry-pick/revert/bisect in progress in this worktree, or None."""
    markers = (("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"), ("rebase-apply", "rebase or am"),
               ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"), ("BISECT_LOG", "bisect"))
    return next((what for name, what in markers if (ctx.git_dir / name).exists()), None)


def status_paths(ctx: RepoContext, *pathspecs: str) -> list[tuple[str, str]]:
    """`git status --porcelain` entries (XY code, repo-relative path) under the pathspecs (all if none)."""
    args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
    out = run_git(ctx.top, *args, "--", *(pathspecs or (".",))).stdout.decode("utf-8", "surrogateescape")
    return [(entry[:2], entry[3:]) for entry in out.split("\0") if entry]


def staged_paths(ctx: RepoContext) -> list[str]:
    """Paths with staged changes (index differs from HEAD)."""
    out = run_git(ctx.top, "diff", "--cached", "--name-only", "-z").stdout.decode("utf-8", "surrogateescape")
    return [p for p in out.split("\0") if p]


def is_tracked(ctx: RepoContext, repo_path: str) -> bool:
    """True when `repo_path` is in the index."""
    return run_git(ctx.top, "ls-files", "--error-unmatch", "--", repo_path, check=False).returncode == 0


def ignored_paths(ctx: RepoContext, repo_paths: Sequence[str]) -> list[str]:
    """The paths among `repo_paths` that .gitignore (or exclude files) would ignore."""
    if not repo_paths:
        return []
    proc = run_git(ctx.top, "check-ignore", "--no-index", "--stdin", "-z", input="\0".join(repo_paths).encode(), check=False)
    return [p for p in proc.stdout.decode().split("\0") if p]


def _show(ctx: RepoContext, path: Path) -> str:
    try:
        return path.relative_to(ctx.top).as_posix()
    except ValueError:
        return os.fspath(path)
