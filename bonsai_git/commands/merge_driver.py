"""`bonsai-git merge-driver %O %A %B %P`: git's merge driver for MEMORY.md and the indexes (mergedriver.py)."""

from __future__ import annotations

from pathlib import Path


def run(ancestor: Path, ours: Path, theirs: Path, repo_path: str) -> int:
    """Merge `repo_path` (git's %P) from the ancestor, ours and theirs files git hands over, writing the
    result into `ours`; 0 when clean, 1 when the user's text (MEMORY.md's pinned text or inbox) conflicts."""
    from ..gitrun import output
    from ..mergedriver import merge_driver

    top = Path(output(Path.cwd(), "rev-parse", "--show-toplevel").strip())
    return merge_driver(top, ancestor, ours, theirs, repo_path)
