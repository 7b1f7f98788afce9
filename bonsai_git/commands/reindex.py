"""`bonsai-git reindex`: regenerate stale branch indexes, memory/_index.md and the trunk block
(`--check`: write nothing, list the stale files, exit 1)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo, indexed_leaves, warn_provenance


def run(workspace: Path, *, check: bool, echo: Echo) -> int:
    """Reindex under the workspace lock with the hook's fact cache (an unchanged leaf is not summarized
    again); print each file written (or stale, under `check`) on stdout.  Returns 1 when `check`
    finds stale files (with a one-line hint on stderr), else 0."""
    from ..workspace import load_config
    from ..factcache import open_cache
    from ..journal import holding_lock
    from ..reindex import reindex_workspace

    config = load_config(workspace)
    cache = open_cache(_git_common_dir(workspace))
    with holding_lock(workspace):
        result = reindex_workspace(workspace, check=check, leaf_paths=indexed_leaves(workspace, echo), config=config,
                                   facts=cache.facts_of(config.estimator), branches=cache.branches_of(workspace))
        if not check:
            cache.save()
    for path in result.changed:
        echo(f"{'stale' if check else 'wrote'} {path}")
    if "MEMORY.md" in result.changed and not check:
        warn_provenance(workspace, echo)
    if check and result.changed:
        echo(f"bonsai-git: {len(result.changed)} generated file(s) stale; run bonsai-git reindex", err=True)
        return 1
    return 0


def _git_common_dir(workspace: Path) -> Path | None:
    """`git rev-parse --git-common-dir` as a path (None outside a repository: reindex then reports that),
    asked with the CLI's journal check (journal.git_common_dir): no git process of its own."""
    from ..journal import git_common_dir

    return git_common_dir(workspace) if workspace.is_dir() else None
