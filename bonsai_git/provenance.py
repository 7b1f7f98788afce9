"""OpenClaw's provenance record for MEMORY.md: read it (never write it) to warn before a rewrite.

OpenClaw 2026.8-2026.9 keeps, per workspace, the hash of the MEMORY.md its own tools last wrote
(table `plugin_state_entries` of `$OPENCLAW_STATE_DIR/state/openclaw.sqlite`, default
`~/.openclaw`).  Measured with 2026.9.6 by tests/openclaw/test_openclaw_provenance.py: a rewrite
outside the agent's tools (migrate, reindex, absorb, rollback, git revert) is harmless by itself,
but the agent's *next* write through its tools is then recorded `untrusted`, and from then on
OpenClaw silently leaves MEMORY.md out of every boot.  States:

- `none`: no record (or no OpenClaw state here): nothing to do;
- `agent`: the agent wrote this exact MEMORY.md; a bonsai-git rewrite will arm the trap;
- `armed`: MEMORY.md changed outside the agent since; re-adopt it before the agent writes to it;
- `untrusted`: OpenClaw no longer injects MEMORY.md at boot; re-adopt it;
- `unknown`: the state database could not be read, or the record is not a JSON object.
The recovery is in the README ("MEMORY.md provenance").  `provenance_state` is pure.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

PLUGIN_ID = "core:memory-artifact-provenance"
NAMESPACE = "workspace-files"
RISKY_STATES = ("agent", "armed", "untrusted")


def provenance_state(record: Mapping[str, object] | None, memory: bytes | None) -> str:
    """The state (see module docstring) of a provenance record (parsed JSON or None) vs MEMORY.md bytes.

    A record that is not a JSON object (a list, a string, a number) is `unknown`.
    """
    if record is not None and not isinstance(record, Mapping):
        return "unknown"
    if not record:
        return "none"
    if record.get("originClass") == "untrusted":
        return "untrusted"
    if memory is not None and record.get("fileHash") == hashlib.sha256(memory).hexdigest():
        return "agent"
    return "armed"


def record_key(workspace: Path) -> str:
    """OpenClaw's entry key for `<workspace>/MEMORY.md`: sha256(workspace path) + ":" + sha256("MEMORY.md")."""
    return hashlib.sha256(str(workspace).encode()).hexdigest() + ":" + hashlib.sha256(b"MEMORY.md").hexdigest()


def read_provenance(workspace: Path, environ: Mapping[str, str] = os.environ) -> str:
    """Look up the state of `<workspace>/MEMORY.md` in OpenClaw's state database, read-only.

    Never raises: a missing database is `none`, an unreadable one `unknown`.
    """
    root = Path(environ.get("OPENCLAW_STATE_DIR") or Path(environ.get("HOME", "~")) / ".openclaw").expanduser()
    db = root / "state" / "openclaw.sqlite"
    if not db.is_file():
        return "none"
    import sqlite3  # only when OpenClaw state exists: keeps the hook's start-up light

    workspace = workspace.resolve()
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
        try:
            row = con.execute(
                "select value_json from plugin_state_entries where plugin_id = ? and namespace = ? and entry_key = ?",
                (PLUGIN_ID, NAMESPACE, record_key(workspace)),
            ).fetchone()
        finally:
            con.close()
        record = json.loads(row[0]) if row else None
    except (sqlite3.Error, ValueError, TypeError):
        return "unknown"
    if row and not isinstance(record, dict):  # valid JSON, but not the object OpenClaw writes (a list, null...)
        return "unknown"
    from .tree import read_regular_or_none  # never opens a FIFO or a device in place of MEMORY.md

    return provenance_state(record, read_regular_or_none(workspace / "MEMORY.md"))


def provenance_warning(state: str) -> str | None:
    """A one-line warning for a state that a MEMORY.md rewrite makes (or has made) harmful, else None."""
    fix = "see README, 'MEMORY.md provenance', to re-adopt it through the agent"
    if state == "untrusted":
        return f"OpenClaw marks MEMORY.md untrusted and no longer loads it at boot; {fix}"
    if state == "armed":
        return f"MEMORY.md changed outside the agent since OpenClaw recorded it; the agent's next write will drop it from boot; {fix}"
    if state == "agent":
        return f"OpenClaw recorded MEMORY.md as agent-written; after this rewrite the agent's next write will drop it from boot; {fix}"
    return None
