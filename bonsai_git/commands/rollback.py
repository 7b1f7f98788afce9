"""`bonsai-git rollback [COMMIT]`: revert the migration commit with git revert (rollback.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo, warn_provenance


def run(workspace: Path, commit: str | None, *, echo: Echo) -> int:
    """Revert `commit` (default: the latest migration) and say which commit reverted it.  Nothing to
    revert, or a revert that would conflict, is refused (exit 3)."""
    from ..rollback import rollback

    warn_provenance(workspace, echo)
    result = rollback(workspace, commit)
    echo(f"Reverted {result.migration[:12]} ({result.subject}) in commit {result.revert[:12]}.")
    echo("MEMORY.md is back as it was; undo the rollback with: git revert HEAD")
    from .connect import warn_connected

    warn_connected(workspace, echo)
    return 0
