"""`bonsai-git check [--rev COMMIT]`: the push gate's check of one commit's own tree, for CI (pushcheck.py)."""

from __future__ import annotations

from pathlib import Path


def run(workspace: Path, *, rev: str) -> int:
    """Check `rev`'s tree (every migrated workspace in it), never the work tree; print each stale file
    (stdout) and one line naming the commit (stderr).  Returns 0 fresh, 1 stale; raises BadInput
    (exit 3) for a name that is not a commit or a workspace that cannot be reindexed."""
    from ..pushcheck import check_rev

    return check_rev(workspace, rev)
