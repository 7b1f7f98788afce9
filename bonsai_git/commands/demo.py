"""`bonsai-git demo [DIRECTORY]`: a git workspace from the bundled sample MEMORY.md, migrated (demo.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(directory: Path | None, *, echo: Echo) -> int:
    """Make the demo workspace in `directory` (default: a new temporary folder), migrate it and print
    the before/after; a non-empty `directory` is refused (exit 3)."""
    from .. import demo

    echo(demo.run_demo(directory))
    return 0
