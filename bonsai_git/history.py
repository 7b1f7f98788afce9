"""What a shallow clone lacks: the commits before its cut, and the one message saying so.

CI checks out with `fetch-depth: 1` (`git clone --depth 1`): HEAD is there, its parents are
not.  Commands that read history (rollback: the migration commit and its parent; flatten: the
migration commit and its original MEMORY.md; status: leaf ages; regroup --all: leaves placed by
`move`) would answer wrongly there ("no migration", "edited today") without a word, so they say
the clone is shallow and what to fetch (issue 22).  Checks of one tree (reindex --check, the
hook, check --rev) need no history and run as usual.
"""

from __future__ import annotations

from pathlib import Path

from .core.errors import Refused
from .gitrun import run

FETCH_ADVICE = "run `git fetch --unshallow` (or `git fetch --deepen=<commits>`) and try again"


def is_shallow(directory: Path) -> bool:
    """True when the repository holding `directory` is a shallow clone (`git rev-parse --is-shallow-repository`)."""
    proc = run(directory, "rev-parse", "--is-shallow-repository", extra_env={"GIT_OPTIONAL_LOCKS": "0"})
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


def refuse_if_shallow(directory: Path, needs: str) -> None:
    """Raise Refused (exit 3) in a shallow clone: `needs` (what the command looks up) needs its history."""
    if is_shallow(directory):
        raise Refused(f"this is a shallow clone; {needs} needs history it does not have. Nothing was changed; "
                      f"{FETCH_ADVICE}")
