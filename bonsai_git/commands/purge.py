"""`bonsai-git purge --older-than AGE`: git rm the files archived longer ago than AGE, in one commit
(history keeps them; lifecycle.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, *, days: int, dry_run: bool, no_commit: bool, no_verify: bool, echo: Echo) -> int:
    """Purge what the archiving commit put under memory/archive/ more than `days` days ago."""
    from ..lifecycle import lifecycle_text, purge_archive

    echo(lifecycle_text(purge_archive(workspace, days, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)))
    return 0
