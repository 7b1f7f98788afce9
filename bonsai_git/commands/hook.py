"""`bonsai-git hook`: the pre-commit entry, the same as the bonsai-git-hook script (hook.py)."""

from __future__ import annotations

from pathlib import Path


def run(directory: Path, *, check: bool) -> int:
    """Reindex and absorb every migrated workspace of the repository holding `directory` (hook.run_hook
    prints for itself); returns 0 when nothing changed, 1 when files were (or, with `check`, would be)
    rewritten."""
    from ..hook import run_hook

    return run_hook(directory, check=check)
