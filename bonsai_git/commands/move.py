"""`bonsai-git move LEAVES... DOMAIN`: relocate leaves to a domain and reindex, as one commit (lifecycle.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, leaves: tuple[str, ...], domain: str, *, dry_run: bool, no_commit: bool, no_verify: bool,
        echo: Echo, new_domain: bool = False) -> int:
    """Move `leaves` (paths or unique names) to `domain`; print what moved and, per leaf, the one
    `.bonsai.toml` line that would have placed it there (never written: issue 23).  Refusals (exit 3)
    write nothing, among them a `domain` that is not known unless `new_domain` (lifecycle.check_known_domain)."""
    from ..lifecycle import lifecycle_text, move_leaves, teaching_lines

    result = move_leaves(workspace, leaves, domain, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify,
                         new_domain=new_domain)
    echo(lifecycle_text(result))
    for line in teaching_lines(workspace, result, domain):  # advice, like every note: stderr
        echo(f"note: {line}", err=True)
    return 0
