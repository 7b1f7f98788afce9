"""`bonsai-git flatten`: rebuild one flat MEMORY.md from today's tree (every later edit kept) and remove
the tree, as one commit (flatten.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo, warn_provenance


def run(workspace: Path, *, dry_run: bool, no_commit: bool, no_verify: bool, echo: Echo) -> int:
    """Flatten (or, with `dry_run`, say what would be flattened); refusals (exit 3) write nothing."""
    from ..flatten import flatten, flatten_text

    if not dry_run:
        warn_provenance(workspace, echo)
    echo(flatten_text(flatten(workspace, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)))
    from .connect import warn_connected

    warn_connected(workspace, echo)
    return 0
