"""`bonsai-git absorb`: move the `##` sections appended after MEMORY.md's end marker into leaves (a
same-topic leaf is extended), then reindex (core/absorb.py, reindex.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo, indexed_leaves, warn_provenance


def run(workspace: Path, *, dry_run: bool, echo: Echo) -> int:
    """Absorb under the workspace lock (or, with `dry_run`, say where each section would go); print
    each section and file on stdout, and on stderr the `git add` a new leaf needs to stay indexed."""
    from ..journal import holding_lock
    from ..reindex import reindex_workspace
    from ..core.secretscan import mask_secrets

    if not dry_run:
        warn_provenance(workspace, echo)
    with holding_lock(workspace):
        leaves = indexed_leaves(workspace, echo)
        tracked = set(leaves)
        result = reindex_workspace(workspace, check=dry_run, absorb=True, leaf_paths=leaves)
    for s in result.absorbed:
        extends = " (same topic: extends that leaf)" if s.extends and s.path.startswith("memory/domains/") else ""
        echo(f"{'would absorb' if dry_run else 'absorbed'} {mask_secrets(s.heading)!r} -> {s.path}{extends}")
    if not result.absorbed:
        echo("MEMORY.md: nothing to absorb (no ## section after the end marker that is not pinned; "
             "pinned sections and loose text there stay in the trunk)")
    for path in result.changed:
        echo(f"{'would write' if dry_run else 'wrote'} {path}")
    new = [s.path for s in result.absorbed if not dry_run and s.path not in tracked]
    if new:  # the one rule: a leaf stays indexed once git tracks it (the hook indexes only tracked leaves)
        echo(f"note: git add the new leaves so they stay indexed: git add -- {' '.join(sorted(set(new)))}", err=True)
    return 0
