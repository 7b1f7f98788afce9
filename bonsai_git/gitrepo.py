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
import re
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING, Any

from . import gitrun
from .core.errors import LockHeld, NotARepository
from .gitrun import git_exe
from .gitsettings import check_repository_env
from .journal import LOCK_NAME, remember_journal_dir  # one name for the lock, next to the journal folder

assert LOCK_NAME in gitrun.FACT_GIT_PATHS and "bonsai" in gitrun.FACT_GIT_PATHS  # asked for in the one rev-parse

if TYPE_CHECKING:
    import git


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
    _config: list[dict[str, str | None]] = field(default_factory=list, repr=False, compare=False)
    _started: dict[tuple[object, ...], gitrun.Started] = field(default_factory=dict, repr=False, compare=False)
    # [(the repo paths the preconditions' `git check-attr -a` covered, whether git converts one of them)]
    converts: list[tuple[frozenset[str], bool]] = field(default_factory=list, repr=False, compare=False)

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


def prefetch(ctx: RepoContext, *args: str, input: bytes | None = None) -> None:
    """Start the read-only `git <args>` now (gitrun.start); `git_result` with the same arguments
    takes its answer later.  A run starts its independent reads together so they overlap each
    other and its own work (planning) instead of adding up, ~3 ms each (issue 15)."""
    if (args, input) not in ctx._started:
        ctx._started[(args, input)] = gitrun.start(ctx.top, *args, input=input)


def git_result(ctx: RepoContext, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`gitrun.run(ctx.top, *args)`'s result: the prefetched command's when there is one (then forgotten)."""
    started = ctx._started.pop((args, input), None)
    return started.result() if started is not None else gitrun.run(ctx.top, *args, input=input)


def settle(ctx: RepoContext) -> None:
    """Wait for every prefetched command nobody asked for (a refusal came first): no git left running."""
    while ctx._started:
        ctx._started.popitem()[1].result()


def config_value(ctx: RepoContext, name: str) -> str | None:
    """The value git's config gives `name` ("section.key", any case; the last one set wins), None
    when unset; a key set without `=` reads as "", as `git config --get` prints it.

    One `git config -z --list` per run answers every key the run asks about (the preconditions'
    sparse-checkout flags, staging's core.autocrlf): one git process instead of one per key.
    A config git cannot read counts as empty, as `git config --get` then prints nothing.
    """
    values = _config(ctx)
    key = _config_key(name)
    return None if key not in values else values[key] or ""


def config_flag(ctx: RepoContext, name: str) -> bool:
    """`git config --bool name` prints "true": git's booleans (true/yes/on or a non-zero integer, any
    case; a key set without `=`).  Unset, false/no/off/0/"" and values git rejects are False."""
    values = _config(ctx)
    key = _config_key(name)
    if key not in values:
        return False
    value = values[key]
    if value is None:  # `[core] sparseCheckout` alone: git reads it as true
        return True
    word = value.lower()
    if word in ("true", "yes", "on"):
        return True
    if word in ("false", "no", "off", ""):
        return False
    # Else an integer as git_parse_int reads it (strtoimax base 0, then a k/m/g unit); anything
    # else git --bool refuses, printing nothing.
    number = _GIT_INT.fullmatch(value)
    return number is not None and any(ch in "123456789abcdefABCDEF" for ch in number[2])


_GIT_INT = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[kKmMgG]?")


CONFIG_LIST = ("config", "-z", "--list")


def _config(ctx: RepoContext) -> dict[str, str | None]:
    """{key: value, None for a key set without `=`} from one `git config -z --list`, kept on `ctx`."""
    if not ctx._config:
        proc = git_result(ctx, *CONFIG_LIST)
        values: dict[str, str | None] = {}
        if proc.returncode == 0:
            for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
                if entry:
                    key, newline, value = entry.partition("\n")
                    values[_config_key(key)] = value if newline else None
        ctx._config.append(values)
    return ctx._config[0]


def _config_key(name: str) -> str:
    """git's own spelling of a key: section and variable names are case-insensitive, a subsection is not."""
    section, _, rest = name.partition(".")
    middle, _, variable = rest.rpartition(".")
    return ".".join(filter(None, [section.lower(), middle, variable.lower()])) if rest else section.lower()


def open_workspace(workspace: Path) -> RepoContext:
    """Find the git work tree holding `workspace` and open it with GitPython.

    Raises NotARepository (no repo, bare repo, safe.directory refusal, with git's hint);
    Refused when GIT_DIR / GIT_WORK_TREE point git at another repository.
    """
    workspace = workspace.resolve()
    if not workspace.is_dir():
        raise NotARepository(f"{workspace.name}: no such directory")
    check_repository_env(workspace)
    # One rev-parse for every fact a run needs (each git call costs ~4 ms), usually the one the
    # CLI's journal check already made (gitrun.repo_facts).  When it fails (no repository, a bare
    # one, a git dir, safe.directory), the probe below says why.
    facts = gitrun.take_repo_facts(workspace)
    if facts is None or facts[0] == "true" or facts[1] != "true":
        _refuse_without_work_tree(workspace)
    assert facts is not None
    git_dir, top = Path(facts[2]), Path(facts[3]).resolve()
    git_paths = {name: (workspace / out).resolve() for name, out in zip(gitrun.FACT_GIT_PATHS, facts[len(gitrun.FACT_QUESTIONS):])}
    superproject = _superproject(workspace, top)
    remember_journal_dir(top, git_paths["bonsai"], (workspace / facts[5]).resolve())  # the run's own journal check asks it for `top`
    rel = workspace.relative_to(top).as_posix()
    prefix = "" if rel == "." else rel + "/"
    return RepoContext(top, workspace, prefix, git_dir, git_paths, facts[4] or "sha1", superproject)


def _superproject(workspace: Path, top: Path) -> Path | None:
    """The work tree of the superproject when `top` is a submodule's work tree, else None.

    git answers it (`rev-parse --show-superproject-working-tree`) by starting `git ls-files` in
    the folder above `top`: two processes.  That search can only succeed inside another work
    tree, so when no folder above `top` holds a `.git` (and GIT_DIR is not set) there is none
    and git is not asked.
    """
    if not os.environ.get("GIT_DIR") and not any(os.path.lexists(folder / ".git") for folder in top.parents):
        return None
    out = gitrun.run(workspace, "rev-parse", "--show-superproject-working-tree").stdout
    line = out.decode("utf-8", "surrogateescape").strip()
    return Path(line) if line else None


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
    proc = git_result(ctx, "rev-parse", "HEAD^{commit}", f"HEAD:{repo_path}")
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
    proc = git_result(ctx, *status_args(*pathspecs))
    if proc.returncode != 0:
        raise gitrun.GitFailed(status_args(*pathspecs), proc.stderr.decode("utf-8", "replace"))
    out = proc.stdout.decode("utf-8", "surrogateescape")
    return [(entry[:2], entry[3:]) for entry in out.split("\0") if entry]


def status_args(*pathspecs: str) -> tuple[str, ...]:
    """status_paths' git arguments (to prefetch them)."""
    return ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *(pathspecs or (".",)))


def staged_paths(ctx: RepoContext) -> list[str]:
    """Paths with staged changes (index differs from HEAD)."""
    out = gitrun.output(ctx.top, "diff", "--cached", "--name-only", "-z")
    return [p for p in out.split("\0") if p]


def is_tracked(ctx: RepoContext, repo_path: str) -> bool:
    """True when `repo_path` is in the index."""
    return gitrun.run(ctx.top, "ls-files", "--error-unmatch", "--", repo_path).returncode == 0


IGNORED_ARGS = ("check-ignore", "--no-index", "--stdin", "-z")


def ignored_paths(ctx: RepoContext, repo_paths: Sequence[str]) -> list[str]:
    """The paths among `repo_paths` that .gitignore (or exclude files) would ignore."""
    if not repo_paths:
        return []
    proc = git_result(ctx, *IGNORED_ARGS, input="\0".join(repo_paths).encode())
    return [p for p in proc.stdout.decode().split("\0") if p]
