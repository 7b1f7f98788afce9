"""`bonsai-git explain`: where each heading (or every section of a file) goes, and why (core/explain.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import Echo, read_utf8

if TYPE_CHECKING:
    from ..core.config import Config


def run(workspace: Path, headings: tuple[str, ...], *, body: str, memory_file: Path | None, as_json: bool,
        echo: Echo) -> int:
    """Explain `headings` (with `body` read when a heading decides nothing), or every section of
    `memory_file` in context, under the workspace's .bonsai.toml; text or JSON (with the scope table)."""
    from ..core.errors import Refused
    from ..workspace import load_config
    from ..core.explain import explain_headings, explain_memory, heading_key, render_explain, scope_table

    if not workspace.is_dir():
        raise Refused(f"{workspace}: no such directory")
    config = load_config(workspace)
    moved = None
    if memory_file is not None:
        text = _read_memory_file(workspace, memory_file)
        entries, moved = explain_memory(text, config)
    else:
        found, unread = ({}, None) if body else _sections_in_workspace(workspace, config)
        if unread is not None:
            echo(f"note: {unread}; explaining the words alone", err=True)
        entries = []
        for heading in headings:  # a heading of the workspace's memory is explained in context, as migrate saw it
            here = found.get(heading_key(heading))
            if here is None and found:
                echo(f"note: no section of this memory is headed {heading!r}; explaining the words alone", err=True)
            entries += here or explain_headings([heading], body, config)
    if as_json:
        out: dict[str, Any] = {"sections": entries, "domains": scope_table(config)}
        if moved is not None:
            out["preamble"] = moved
        echo(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        if moved is not None:  # migrate writes this leaf too: explain names every file it would write
            echo(f"preamble (the text before the first ##, ~{moved['tokens']:,} tokens, over preamble_tokens = "
                 f"{config.preamble_tokens}) -> {moved['path']}, out of boot; to keep it in MEMORY.md set "
                 f"preamble_tokens = {moved['tokens']} in .bonsai.toml")
        elif memory_file is not None and not entries:  # a new user's finding: a migrated trunk explained nothing, silently
            echo(NO_SECTIONS)
        echo(render_explain(entries, config))
    return 0


NO_SECTIONS = ("explain: the file has no ## section to explain; a migrated MEMORY.md keeps its sections as leaves "
               "under memory/domains/: explain a heading, or the file as it was (git show HEAD~1:MEMORY.md > before.md)")


def _sections_in_workspace(workspace: Path, config: Config) -> tuple[dict[str, list[dict[str, Any]]], str | None]:
    """({heading_key: records} for the workspace's own sections, why they could not be read or None),
    so `explain HEADING` judges the real section (its body, group and document) rather than the bare words.

    Before a migration: every `##` section of MEMORY.md, as `explain --file MEMORY.md` (and so migrate)
    places it.  After one: every leaf, as regroup judges it (lifecycle.classify_leaves), its `path`
    saying where it is now.  No MEMORY.md: ({}, None), explain used outside a workspace.  A memory
    that cannot be read (not UTF-8, a folder, a FIFO, a leaf with conflict markers): ({}, the
    one-line reason), and the bare heading is explained.
    """
    from ..core.errors import BadInput, BonsaiError
    from ..core.explain import explain_file, heading_key, leaf_record
    from ..core.layout import is_migrated
    from ..core.sections import split_sections
    from ..lifecycle import classify_leaves
    from ..reindex import read_trunk
    from ..tree import read_leaves, walk_leaf_paths

    out: dict[str, list[dict[str, Any]]] = {}
    trunk_path = workspace / "MEMORY.md"
    if not trunk_path.exists() and not trunk_path.is_symlink():
        return out, None
    try:
        if trunk_path.is_symlink() or not trunk_path.is_file():
            raise BadInput("MEMORY.md: not a regular file")
        text = read_utf8(trunk_path, "no such file", shown=Path("MEMORY.md"))
        if not is_migrated(text):
            records = explain_file(text, config)
        else:
            trunk = read_trunk(workspace)[1]
            leaves = read_leaves(workspace, walk_leaf_paths(workspace))
            records = [record for record in explain_file(trunk.pinned, config) if record["decided_by"] == "pin"]
            # (a pinned section stays in the trunk, before the block: a new user's finding, it was "no section")
            for leaf, c in classify_leaves(leaves, config, trunk.pinned):
                sections = split_sections(leaf.text).sections
                if sections:
                    records.append(leaf_record(leaf.path, leaf.domain, sections[0].heading, c))
    except BonsaiError as exc:
        return out, exc.message
    for record in records:
        out.setdefault(heading_key(record["heading"]), []).append(record)
    return out, None


def file_workspace(workspace: Path, memory_file: Path, *, echo: Echo) -> tuple[Path, Path]:
    """(the workspace whose settings explain reads, the file's path from there) for `explain --file`
    without -C: the workspace holding `memory_file` (gitsettings.find_workspace from its folder) when
    that one has a .bonsai.toml and is not `workspace` (the current one), with a note on stderr; else
    both unchanged.  A file outside any workspace keeps the current workspace's settings."""
    from ..gitsettings import find_workspace
    from ..workspace import CONFIG_FILE

    inside = workspace / memory_file
    target = memory_file if memory_file.is_absolute() or not (inside.exists() or inside.is_symlink()) else inside
    folder = target.absolute().parent
    if not folder.is_dir():
        return workspace, memory_file
    home = find_workspace(folder)
    if not (home / CONFIG_FILE).is_file() or home.resolve() == workspace.resolve():
        return workspace, memory_file
    echo(f"note: reading {home / CONFIG_FILE}, the settings of the workspace holding {memory_file}", err=True)
    return home, target.absolute()


def _read_memory_file(workspace: Path, path: Path) -> str:
    """Read `path` (relative to the workspace when it exists there), strict UTF-8; BadInput when not,
    or when it holds a NUL byte (migrate refuses such a file: preconditions.memory_text)."""
    from ..core.errors import BadInput

    inside = workspace / path  # a folder or a FIFO there is named as such, not looked for elsewhere
    target = path if path.is_absolute() or not (inside.exists() or inside.is_symlink()) else inside
    text = read_utf8(target, "no such file", shown=path)
    if "\0" in text:
        offset = len(text[: text.index("\0")].encode("utf-8"))
        raise BadInput(f"{path}: holds a NUL byte at byte offset {offset} (binary data, not Markdown); "
                       f"migrate refuses it too: remove it and retry")
    return text
