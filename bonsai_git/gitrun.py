"""The one git runner: every git subprocess bonsai-git starts goes through `run` (issue 9).

Modelled on pre-commit's `git.py` + `util.cmd_output`.  One place for:

- **Which git.** `git_exe` searches PATH once per process (as `shutil.which` does: the first
  executable regular file named git) and reuses the absolute path: `subprocess.run(["git", ...])`
  made the child search PATH on every call (a migration ran ~24 git commands and ~190 failed
  PATH lookups).  When no git is found the bare name is used, so the usual "No such file"
  error still names git.
- **Literal pathspecs.** `git_env` gives every command `GIT_LITERAL_PATHSPECS=1` (and drops the
  glob/icase/noglob switches, which git refuses alongside it): a workspace folder named `ws[1]`
  or `notes*` must never match its neighbours (a glob pathspec made `rollback` revert the wrong
  workspace).  `literal=False` is for our own `:(glob)` listings; `check-ignore` takes path
  names, not pathspecs, and dies under the switch, so it gets none.
- **Stable output.** `STABLE_CONFIG` (`-c color.ui=false -c core.quotePath=false
  -c diff.noprefix=false`) goes before every subcommand, so a user's config never colours,
  quotes or un-prefixes what we parse; our parsers read NUL-separated (`-z`) output where they
  read paths.  Commands that run the user's hooks (`commit`, `revert`, ...) take no pathspec
  from us and get the user's environment and config unchanged (`-c` would reach the hooks
  through GIT_CONFIG_PARAMETERS).
- **One error.** `GitFailed` carries git's stderr; `run(check=True)` raises it.
- **index.lock.** `run_retrying` retries, for up to ~2 s, a command that failed only because
  another git process holds `index.lock`; `wait_for_index_lock` waits for it to go.

Light on purpose (os, subprocess, time): the pre-commit hook imports it.  GitPython lives
behind gitrepo.py alone.
"""

from __future__ import annotations

import io
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from .core.errors import BonsaiError

# Before every subcommand that runs no user hook: output we parse looks the same whatever the
# user's config says (no colour codes, UTF-8 paths as they are, `a/` `b/` prefixes in patches).
STABLE_CONFIG = ("-c", "color.ui=false", "-c", "core.quotePath=false", "-c", "diff.noprefix=false")
# git subcommands that run the user's hooks: they get the user's environment and config as they are.
RUNS_HOOKS = frozenset({"commit", "revert", "merge", "am", "rebase", "cherry-pick"})
# check-ignore takes path names, not pathspecs, and dies under GIT_LITERAL_PATHSPECS ("pathspec
# magic not supported"): it gets no global pathspec switch at all.
_NO_PATHSPECS = frozenset({"check-ignore"})
_PATHSPEC_SWITCHES = ("GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS")
INDEX_LOCK_WAIT = 2.0  # seconds: another git process usually lets go of index.lock within this
_POLL = 0.05

_FOUND: list[str] = []


class GitFailed(BonsaiError):
    """A git command failed (exit 1); `stderr` holds git's own words, the message its first line."""

    def __init__(self, args: Sequence[str], stderr: str, exit_code: int = 1) -> None:
        super().__init__(f"git {' '.join(args[:2])} failed: {first_line(stderr)}")
        self.stderr = stderr
        self.exit_code = exit_code


def git_exe() -> str:
    """The absolute path of the git found on PATH at the first call (the bare `git` if none)."""
    if not _FOUND:
        _FOUND.append(_which("git") or "git")
    return _FOUND[0]


def _which(name: str) -> str | None:
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def git_env(args: Sequence[str] = (), extra: Mapping[str, str] | None = None, *,
            literal: bool = True, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for `git <args>`: `base` (default: the user's) plus `extra`, with literal
    pathspecs unless the command runs hooks (then it is left as it is).

    `literal=False` (our own `:(glob)` listings) clears every global pathspec switch instead, so
    a user's GIT_LITERAL_PATHSPECS cannot break it either.
    """
    env = dict(os.environ if base is None else base)
    env.update(extra or {})
    command = subcommand(args)
    if command in RUNS_HOOKS:
        return env
    env.pop("GIT_LITERAL_PATHSPECS", None)
    for name in _PATHSPEC_SWITCHES:
        env.pop(name, None)
    if literal and command not in _NO_PATHSPECS:
        env["GIT_LITERAL_PATHSPECS"] = "1"
    return env


def subcommand(args: Sequence[str]) -> str:
    """The git subcommand among `args`, skipping `-c name=value`, `-C dir` and other leading options."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-c", "-C"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def command(args: Sequence[str]) -> list[str]:
    """The argv for `git <args>`: git's absolute path, STABLE_CONFIG unless the command runs hooks, `args`."""
    stable = () if subcommand(args) in RUNS_HOOKS else STABLE_CONFIG
    return [git_exe(), *stable, *args]


def run(cwd: Path | str, *args: str, input: bytes | None = None, check: bool = False, literal: bool = True,
        extra_env: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `git <args>` in `cwd`, output captured as bytes; raise GitFailed on a non-zero exit if `check`.

    `extra_env` is added to the environment; `env` replaces the user's as its base (a probe
    without GIT_DIR).  See the module docstring for the pathspec and `-c` rules.
    """
    proc = subprocess.run(command(args), cwd=cwd, input=input, capture_output=True,
                          env=git_env(args, extra_env, literal=literal, base=env))
    if check and proc.returncode != 0:
        raise GitFailed(list(args), proc.stderr.decode("utf-8", "replace"))
    return proc


class Started:
    """A git command `start` launched: `result()` waits for it (the first time) and returns its
    CompletedProcess, as `run` would have.  Several can run at once: each waits for its reader
    (a full pipe just pauses git), so reading them one by one in any order cannot deadlock."""

    def __init__(self, args: Sequence[str], argv: list[str], proc: subprocess.Popen[bytes], input: bytes | None) -> None:
        self._args, self._argv, self._proc, self._input = args, argv, proc, input
        self._done: subprocess.CompletedProcess[bytes] | None = None

    def result(self) -> subprocess.CompletedProcess[bytes]:
        """The finished command's exit code, stdout and stderr (waits for it)."""
        if self._done is None:
            try:
                out, err = self._proc.communicate(self._input)
            except BaseException:
                self._proc.kill()
                self._proc.wait()
                raise
            self._done = subprocess.CompletedProcess(self._argv, self._proc.returncode, out, err)
        return self._done

    def records(self, sep: bytes = b"\0") -> Iterator[bytes]:
        """The command's stdout record by record (`sep`-terminated), read as git writes it: a
        100,000-line listing is never held whole (issue 15).  Started without input; raises
        GitFailed (git's stderr, which must stay small: it is read at the end) on a non-zero exit."""
        assert self._done is None and self._proc.stdout is not None and self._proc.stderr is not None
        try:
            rest = b""
            while chunk := self._proc.stdout.read(1 << 16):
                *whole, rest = (rest + chunk).split(sep)
                yield from whole
            if rest:
                yield rest
            err = self._proc.stderr.read()
            code = self._proc.wait()
        except BaseException:
            self._proc.kill()
            self._proc.wait()
            raise
        self._done = subprocess.CompletedProcess(self._argv, code, b"", err)
        if code != 0:
            raise GitFailed(self._args, err.decode("utf-8", "replace"))


def start(cwd: Path | str, *args: str, input: bytes | None = None, literal: bool = True) -> Started:
    """Start `git <args>` in `cwd` without waiting for it (as `run` would run it; stdin is `input`,
    or nothing): a read whose answer is needed later runs while bonsai-git does other work.
    Read-only commands only: its effect must not depend on when it runs.  `literal`: as `run`."""
    argv = command(args)
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env(args, literal=literal))
    return Started(args, argv, proc, input)


def run_streaming(cwd: Path | str, *args: str, chunks: Iterable[bytes]) -> subprocess.CompletedProcess[bytes]:
    """Run `git <args>` in `cwd` with `chunks` written to its stdin one by one, as `run` would with their join.

    For input too large to hold twice (`git fast-import` of a 50 MB tree: joining the stream into
    one buffer was the migration's peak memory, issue 15).  stdout and stderr go to temporary
    files, so git never blocks on a full pipe while we write.  Returns the CompletedProcess (the
    caller checks returncode; stderr holds git's words).  When git exits early (a closed pipe),
    writing stops and its exit code and stderr are returned.  Any exception while producing or
    writing a chunk (Ctrl-C included) kills git, waits for it and is re-raised.
    """
    argv = command(args)
    with _spool() as out, _spool() as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=out, stderr=err,
                                env=git_env(args))
        assert proc.stdin is not None
        try:
            try:
                for chunk in chunks:
                    proc.stdin.write(chunk)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # git exited before reading everything: its exit code and stderr say why
            code = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            if not proc.stdin.closed:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, code, out.read(), err.read())


def _spool() -> io.BufferedRandom:
    """An anonymous read-write file for a child's output: a memfd where Linux offers one (no
    `tempfile` import: random and its seeding cost every process that imports gitrun ~2 ms,
    the hook's included), else tempfile.TemporaryFile."""
    if hasattr(os, "memfd_create"):
        try:
            return open(os.memfd_create("bonsai-git", getattr(os, "MFD_CLOEXEC", 0)), "w+b")
        except OSError:
            pass
    import tempfile

    return tempfile.TemporaryFile()


def run_streaming_retrying(top: Path, *args: str, chunks: Callable[[], Iterable[bytes]],
                           timeout: float = INDEX_LOCK_WAIT) -> subprocess.CompletedProcess[bytes]:
    """`run_streaming` with `chunks()`'s stream, retried as `run_retrying` retries (another git
    holds index.lock); `chunks` makes the stream anew for each try."""
    deadline = time.monotonic() + timeout
    while True:
        proc = run_streaming(top, *args, chunks=chunks())
        if proc.returncode == 0 or not is_index_lock_error(proc.stderr) or time.monotonic() >= deadline:
            return proc
        time.sleep(_POLL)


def output(cwd: Path | str, *args: str, input: bytes | None = None) -> str:
    """`run(..., check=True)`'s stdout as text (UTF-8, undecodable bytes kept as surrogates)."""
    return run(cwd, *args, input=input, check=True).stdout.decode("utf-8", "surrogateescape")


def run_retrying(top: Path, *args: str, input: bytes | None = None, timeout: float = INDEX_LOCK_WAIT,
                 extra_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """`run`, retried for up to `timeout` s while it fails only because index.lock exists.

    Returns the last CompletedProcess (the caller checks returncode).
    """
    deadline = time.monotonic() + timeout
    while True:
        proc = run(top, *args, input=input, extra_env=extra_env)
        if proc.returncode == 0 or not is_index_lock_error(proc.stderr) or time.monotonic() >= deadline:
            return proc
        time.sleep(_POLL)


def is_index_lock_error(stderr: bytes) -> bool:
    """True when git's stderr says it could not take index.lock because the file exists."""
    return b"index.lock" in stderr and b"File exists" in stderr


def wait_for_index_lock(top: Path, timeout: float = INDEX_LOCK_WAIT, *, lock: Path | None = None) -> Path | None:
    """Wait up to `timeout` seconds for git's `index.lock` to go; return its path if it stays.

    Another git process (an editor, a GUI, a hook) holds it briefly; a crashed git leaves it
    behind.  It is never deleted here: only its owner, or the user, may do that.
    """
    if lock is None:  # the caller may know it already (RepoContext asks git once per run)
        lock = (top / output(top, "rev-parse", "--git-path", "index.lock").strip()).resolve()
    deadline = time.monotonic() + timeout
    while lock.exists():
        if time.monotonic() >= deadline:
            return lock
        time.sleep(_POLL)
    return None


def first_line(stderr: str | bytes) -> str:
    """The first non-blank line of git's output, stripped ("no output" when there is none)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "no output")


# --- plumbing reads (the journal, the transaction and recovery share them) ----------------------

# One `git rev-parse` answers everything a tree-changing run asks of the repository's layout: the
# CLI's journal check (journal.journal_dir) asks it, and the run's open_workspace takes the same
# answer instead of starting a second rev-parse (issue 15: each git process costs 2-4 ms).
FACT_QUESTIONS = ("--is-bare-repository", "--is-inside-work-tree", "--absolute-git-dir", "--show-toplevel",
                  "--show-object-format", "--git-common-dir")
FACT_GIT_PATHS = ("bonsai", "bonsai.lock", "index.lock", "info/sparse-checkout")
_FACTS: dict[str, list[str]] = {}


def repo_key(cwd: Path | str) -> str:
    """What a per-process answer about the repository at `cwd` is kept under: the absolute folder
    and the environment that can point git elsewhere (GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR)."""
    return "\0".join([os.path.abspath(cwd), *(os.environ.get(n, "") for n in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"))])


def repo_facts(cwd: Path | str) -> list[str] | None:
    """The lines `git rev-parse FACT_QUESTIONS --git-path FACT_GIT_PATHS...` prints in `cwd`, in that
    order (paths as git prints them, relative to `cwd` or absolute), or None when it fails (no
    repository, a bare one, a git dir: the caller asks again what it needs).

    Kept for one `take_repo_facts` of the same folder in this process (the run that follows the
    CLI's journal check), never longer: a later run must see the repository as it is then.
    """
    args = [*FACT_QUESTIONS, *(arg for name in FACT_GIT_PATHS for arg in ("--git-path", name))]
    proc = run(cwd, "rev-parse", *args)
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != len(FACT_QUESTIONS) + len(FACT_GIT_PATHS):
        return None
    _FACTS[repo_key(cwd)] = lines
    return lines


def take_repo_facts(cwd: Path | str) -> list[str] | None:
    """`repo_facts(cwd)`: the answer an earlier call in this process kept (then forgotten), or a new one."""
    kept = _FACTS.pop(repo_key(cwd), None)
    return kept if kept is not None else repo_facts(cwd)


def forget_repo_facts() -> None:
    """Drop every kept `repo_facts` answer (a new command starts: it must see the repository anew)."""
    _FACTS.clear()


HEAD_COMMIT = ("rev-parse", "-q", "--verify", "HEAD^{commit}")


def head_commit(top: Path) -> str | None:
    """The commit HEAD points to, or None when HEAD is unborn (`git rev-parse --verify`)."""
    return head_of(run(top, *HEAD_COMMIT))


def head_of(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    """head_commit's answer from its finished `git HEAD_COMMIT` (run or started)."""
    sha = proc.stdout.decode().strip()
    return sha if proc.returncode == 0 and sha else None


def index_entries(top: Path, repo_paths: Iterable[str]) -> dict[str, str]:
    """{repo path: "mode sha stage"} for those of `repo_paths` that are in the index; raises GitFailed."""
    wanted = set(repo_paths)
    if not wanted:
        return {}
    specs = sorted({p.rpartition("/")[0] or p for p in wanted})  # folders: see committed_blobs
    found: dict[str, str] = {}
    for entry in filter(None, output(top, "ls-files", "-s", "-z", "--", *specs).split("\0")):
        meta, path = entry.split("\t", 1)
        if path in wanted:
            found[path] = meta
    return found


def committed_blobs(top: Path, commit: str, repo_paths: Iterable[str],
                    started: Started | None = None) -> dict[str, str]:
    """{repo path: blob id} in `commit` for those of `repo_paths` it holds (one `git ls-tree`); raises GitFailed.

    Asks for the paths' folders, not the paths: 10,000 pathspecs made ls-tree match every
    entry against every spec.  `started`: that ls-tree (`committed_blobs_args`), started earlier.
    """
    wanted = set(repo_paths)
    args = committed_blobs_args(commit, wanted)
    if args is None:
        return {}
    proc = started.result() if started is not None else run(top, *args)
    if proc.returncode != 0:
        raise GitFailed(args, proc.stderr.decode("utf-8", "replace"))
    found = {}
    for entry in filter(None, proc.stdout.decode("utf-8", "surrogateescape").split("\0")):
        meta, path = entry.split("\t", 1)
        if path in wanted:
            found[path] = meta.split()[2]
    return found


def committed_blobs_args(commit: str, repo_paths: Iterable[str]) -> tuple[str, ...] | None:
    """committed_blobs' `git ls-tree` arguments (None: no path asked)."""
    specs = sorted({p.rpartition("/")[0] or p for p in repo_paths})
    return ("ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs) if specs else None


def commit_parents_and_subject(top: Path, commit: str) -> tuple[tuple[str, ...], str]:
    """(parent shas, subject line) of `commit`; raises GitFailed."""
    parents, _, subject = output(top, "log", "-1", "--format=%P%n%s", commit).partition("\n")
    return tuple(parents.split()), subject.rstrip("\n")
