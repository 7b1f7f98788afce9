"""Keep the Codex projection fresh: the block `bonsai-git connect codex` put into AGENTS.md.

The projection's body is the trunk block's own lines (core/connect.py), so it changes exactly when
the trunk block changes: a leaf edit changes neither (the quiet-trunk rule).  reindex, absorb and
the hook (its full and its incremental run) add it to the files they render, and it is written by
the same `reindex.sync_rendered` / `_sync` as MEMORY.md: only when its bytes change, through the
run's CheckedWriter, compared with the bytes read here (an agent's write meanwhile is kept and
reported, never overwritten), refused through a symlink.  Text typed between its markers is
refused (exit 3), as in the trunk block.  A workspace whose AGENTS.md holds no projection costs
two failed opens.  Light on purpose: this is on the hook's path.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

from .core.connect import CODEX_BEGIN, CODEX_END, CODEX_NAMES, BlockSpan, find_block, foreign_line, newline_of
from .core.errors import BadInput
from .core.layout import TRUNK, decode_utf8, parse_trunk
from .tree import _read_bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms per hook run)
if TYPE_CHECKING:
    from typing import Any


def connected_codex_file(workspace: Path) -> tuple[str, bytes, str, BlockSpan] | None:
    """(file name, its bytes, its text, the block) of the workspace folder's AGENTS file holding the
    projection (AGENTS.override.md first, as Codex picks), or None when neither holds one.

    Raises BadInput for a file that is not UTF-8 or whose markers are broken (core/connect.py)."""
    base = os.fspath(workspace)
    for name in CODEX_NAMES:
        try:
            data = _read_bytes(os.path.join(base, name), name)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        if CODEX_BEGIN.encode() not in data:
            continue
        text = decode_utf8(data, name)
        span = find_block(text, CODEX_BEGIN, CODEX_END, name)
        if span is not None:
            return name, data, text, span
    return None


def add_codex_projection(workspace: Path, rendered: MutableMapping[str, Any],
                         known: MutableMapping[str, bytes]) -> None:
    """Put the projection's new text into `rendered` ({workspace-relative path: text}) and the bytes
    it was made from into `known` ({absolute path: bytes}, what the writer expects to replace), when
    the workspace is connected and `rendered` holds MEMORY.md's text.  A `pointer` block does not
    depend on the trunk: left as it is.  Raises BadInput for text typed inside the block."""
    trunk = rendered.get(TRUNK)
    if not isinstance(trunk, str):
        return
    found = connected_codex_file(workspace)
    if found is None:
        return
    name, data, text, span = found
    line = foreign_line(text, span)
    if line is not None:
        raise BadInput(f"{name}:{line}: text inside bonsai-git's Codex block (between the bonsai:codex markers) "
                       f"would be overwritten; move it out of the block and retry")
    if span.mode != "block":
        return
    from .core.connect import render_codex_block, replace_block

    parts = parse_trunk(trunk)
    if parts is None:
        return
    block = render_codex_block(parts.block, "block", newline_of(text), span.created)
    rendered[name] = replace_block(text, span, block)
    known[os.path.join(os.fspath(workspace), name)] = data
