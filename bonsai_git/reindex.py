"""Reindex a migrated workspace: regenerate stale indexes and the trunk block from the leaves.

Light on purpose: this is the pre-commit hook's path, so it never imports GitPython (leaf
lists come from `git ls-files` through a subprocess, or from a walk of the disk).  A file is
written only when its bytes change (mdformat's rule), so a second run writes nothing.
Text outside the trunk's markers and the leaves themselves are never changed here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .config import Config, load_config
from .errors import BadInput
from .indexes import render_tree
from .tree import DOMAINS_DIR, INDEX_NAME, TRUNK, decode_utf8, parse_trunk, read_leaves, walk_leaf_paths, write_durably


@dataclass(frozen=True, slots=True)
class ReindexResult:
    """Workspace-relative paths that were (or, under --check, would be) written or deleted."""

    changed: tuple[str, ...]


def reindex_workspace(
    workspace: Path, *, check: bool = False, leaf_paths: Iterable[str] | None = None, config: Config | None = None
) -> ReindexResult:
    """Regenerate every branch index, `memory/_index.md` and the trunk block of `workspace`.

    `leaf_paths` (workspace-relative) defaults to every leaf on disk; the hook passes the
    leaves git tracks.  `check=True` writes nothing and only reports.  Raises BadInput when
    MEMORY.md is missing, not UTF-8 or has no bonsai markers, or a leaf is unreadable.
    """
    config = config or load_config(workspace)
    trunk_path = workspace / TRUNK
    if not trunk_path.is_file():
        raise BadInput(f"{TRUNK}: not found; run bonsai-git migrate first")
    parts = parse_trunk(decode_utf8(trunk_path.read_bytes(), TRUNK))
    if parts is None:
        raise BadInput(f"{TRUNK}: no bonsai markers (not migrated yet); run bonsai-git migrate first")
    paths = walk_leaf_paths(workspace) if leaf_paths is None else tuple(leaf_paths)
    leaves = read_leaves(workspace, paths)
    rendered = render_tree(leaves, parts, config, existing_index_paths(workspace))
    changed = []
    for path, text in rendered.items():
        target = workspace / path
        current = target.read_bytes() if target.is_file() else None
        wanted = None if text is None else text.encode("utf-8")
        if current == wanted:
            continue
        changed.append(path)
        if check:
            continue
        if wanted is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_durably(target, wanted)
    return ReindexResult(tuple(changed))


def existing_index_paths(workspace: Path) -> tuple[str, ...]:
    """Branch index paths present on disk (`memory/domains/<d>/_index.md`), sorted."""
    root = workspace / DOMAINS_DIR
    if not root.is_dir():
        return ()
    return tuple(sorted(f"{DOMAINS_DIR}/{d.name}/{INDEX_NAME}" for d in root.iterdir() if (d / INDEX_NAME).is_file()))
