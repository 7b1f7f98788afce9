"""`bonsai-git archive LEAVES...`: move leaves to memory/archive/<domain>/ (out of the indexes, still
searchable), reindex, one commit (lifecycle.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, leaves: tuple[str, ...], *, reason: str | None, dry_run: bool, no_commit: bool,
        no_verify: bool, echo: Echo) -> int:
    """Archive `leaves`; `reason` goes into the commit message.  Refusals (exit 3) write nothing."""
    from ..lifecycle import archive_leaves, lifecycle_text

    echo(lifecycle_text(archive_leaves(workspace, leaves, reason, dry_run=dry_run, no_commit=no_commit,
                                       no_verify=no_verify)))
    return 0
