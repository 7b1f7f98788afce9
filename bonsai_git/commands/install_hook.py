"""`bonsai-git install-hook [--uninstall]`: the plain git pre-commit hook (hooks/pre-commit), chaining
any existing hook (githook.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, *, uninstall: bool, shared_hooks_path: bool, echo: Echo) -> int:
    """Install (or remove) the hook and print what changed.  A hook the pre-commit framework wrote is
    refused (FrameworkHookFound, exit 3) after printing the `.pre-commit-config.yaml` snippet to use
    instead; a shared core.hooksPath is refused unless `shared_hooks_path`."""
    from ..core.errors import FrameworkHookFound
    from ..githook import PRE_COMMIT_SNIPPET, install_hook, uninstall_hook

    try:
        change = (uninstall_hook(workspace, shared_ok=shared_hooks_path) if uninstall
                  else install_hook(workspace, shared_ok=shared_hooks_path))
    except FrameworkHookFound:
        echo(PRE_COMMIT_SNIPPET, nl=False)
        raise
    for one in (change, *change.also):
        echo(f"{one.action}: {one.hook}")
        if one.chained is not None:
            echo(f"chained: {one.chained} runs first")
    return 0
