"""`bonsai-git flatten`: rebuild one flat MEMORY.md from today's tree (every later edit kept) and remove
the tree, as one commit (flatten.py)."""

from __future__ import annotations

from pathlib import Path

from ..core.boot import DEFAULT_PROFILE
from .common import Echo, warn_provenance


def run(workspace: Path, *, dry_run: bool, no_commit: bool, no_verify: bool, echo: Echo,
        profile: str = DEFAULT_PROFILE) -> int:
    """Flatten (or, with `dry_run`, say what would be flattened); refusals (exit 3) write nothing.  A flat
    MEMORY.md that `profile`'s boot caps would cut gets a warning on stderr (issue 20: flatten used to
    produce one over OpenClaw's 20,000-char cap without a word)."""
    from ..core.boot import boot_cut_warning, profile_named
    from ..flatten import flatten, flatten_text

    if not dry_run:
        warn_provenance(workspace, echo)
    result = flatten(workspace, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)
    echo(flatten_text(result))
    warning = boot_cut_warning(result.plan.text, profile_named(profile))
    if warning:
        echo(f"warning: {warning}", err=True)
    from .connect import warn_connected

    warn_connected(workspace, echo)
    return 0
