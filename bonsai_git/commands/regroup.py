"""`bonsai-git regroup [--all]`: re-apply the current rules and .bonsai.toml to a migrated tree, as one
commit with the trailer `Bonsai-Op: regroup` (lifecycle.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, *, all_leaves: bool, dry_run: bool, no_commit: bool, no_verify: bool, echo: Echo) -> int:
    """Move the leaves the rules now place elsewhere (general/ only, or every leaf with `all_leaves`)."""
    from ..lifecycle import lifecycle_text, regroup_workspace

    echo(lifecycle_text(regroup_workspace(workspace, all_leaves=all_leaves, dry_run=dry_run, no_commit=no_commit,
                                          no_verify=no_verify)))
    return 0
