"""The BonsaiError tree: every failure a user can meet, each with one message and one exit code.

The CLI converts these in one place (cli.py).  Exit codes follow DESIGN.md §6:
1 failed and restored (or stale under --check), 3 refused before anything was written,
4 a bug (an unexpected exception), 130 Ctrl-C.
"""

from __future__ import annotations


class BonsaiError(Exception):
    """Base class: a one-line message for stderr and the exit code the CLI returns."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Refused(BonsaiError):
    """A precondition failed; nothing was written (exit 3)."""

    exit_code = 3


class NotARepository(Refused):
    """The workspace is not inside a git work tree (exit 3)."""


class LockHeld(Refused):
    """Another bonsai-git run holds the workspace lock (exit 3)."""


class BadInput(Refused):
    """MEMORY.md (or a leaf) cannot be used as it is: not UTF-8, a symlink, conflict markers... (exit 3)."""


class NothingToDo(Refused):
    """Nothing to revert, or the revert would conflict (exit 3)."""


class JournalPresent(Refused):
    """An interrupted run left its crash journal; only `migrate --recover` may run (exit 3)."""


class IndexLocked(Refused):
    """git's index.lock stayed held by another process past the short wait (exit 3; never deleted)."""


class RecoveryRefused(Refused):
    """`migrate --recover` cannot tell what happened since the crash, so it changes nothing (exit 3)."""


class FrameworkHookFound(Refused):
    """install-hook: the pre-commit framework owns the git hook; list bonsai-reindex in its config (exit 3)."""


class HookManagerFound(Refused):
    """install-hook: a hook manager (husky, lefthook, simple-git-hooks, pre-commit) owns the git hooks and
    its file cannot be changed safely; `snippet` holds the exact lines to add (printed first) (exit 3)."""

    def __init__(self, message: str, snippet: str) -> None:
        super().__init__(message)
        self.snippet = snippet


class Failed(BonsaiError):
    """A step failed after writing began; the tree was restored (exit 1)."""

    exit_code = 1


class ConcurrentWrite(Failed):
    """Another process wrote a file while bonsai-git was replacing it; that write was kept, the run
    stopped and was undone (exit 1)."""


class Interrupted(BonsaiError):
    """Ctrl-C during a run; the tree was restored (exit 130)."""

    exit_code = 130


def os_error_message(exc: OSError) -> str:
    """One line for a file-system error that escaped a command (a folder where a file belongs,
    permissions, a disk full): the file, the cause, the next step.  Exit code 1, not a bug's 4."""
    # os.replace(temp, target) names the temp file first: the target is what the user knows
    where = exc.filename2 if exc.filename2 is not None else exc.filename if exc.filename is not None else "a file"
    return f"{where}: {exc.strerror or exc}; fix that (or move it away) and run the command again"
