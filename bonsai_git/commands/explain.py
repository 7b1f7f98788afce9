"""`bonsai-git explain`: where each heading (or every section of a file) goes, and why (core/explain.py)."""

from __future__ import annotations

import json
from pathlib import Path

from .common import Echo, read_utf8


def run(workspace: Path, headings: tuple[str, ...], *, body: str, memory_file: Path | None, as_json: bool,
        echo: Echo) -> int:
    """Explain `headings` (with `body` read when a heading decides nothing), or every section of
    `memory_file` in context, under the workspace's .bonsai.toml; text or JSON (with the scope table)."""
    from ..workspace import load_config
    from ..core.explain import explain_file, explain_headings, render_explain, scope_table

    config = load_config(workspace)
    if memory_file is not None:
        entries = explain_file(_read_memory_file(workspace, memory_file), config)
    else:
        entries = explain_headings(headings, body, config)
    if as_json:
        echo(json.dumps({"sections": entries, "domains": scope_table(config)}, indent=2, ensure_ascii=False))
    else:
        if memory_file is not None and not entries:  # a new user's finding: a migrated trunk explained nothing, silently
            echo(NO_SECTIONS)
        echo(render_explain(entries, config))
    return 0


NO_SECTIONS = ("explain: the file has no ## section to explain; a migrated MEMORY.md keeps its sections as leaves "
               "under memory/domains/: explain a heading, or the file as it was (git show HEAD~1:MEMORY.md > before.md)")


def _read_memory_file(workspace: Path, path: Path) -> str:
    """Read `path` (relative to the workspace when it exists there), strict UTF-8; BadInput when not."""
    target = path if path.is_absolute() or not (workspace / path).is_file() else workspace / path
    return read_utf8(target, "no such file", shown=path)
