"""OpenClaw provenance: the pure state table, the read-only lookup in a real SQLite file, status."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.provenance import NAMESPACE, PLUGIN_ID, provenance_state, provenance_warning, read_provenance, record_key
from support import corpus_bytes

MEMORY = b"# Memory\n"


@pytest.mark.parametrize(
    ("record", "memory", "state"),
    [
        (None, MEMORY, "none"),
        ({}, MEMORY, "none"),
        ({"originClass": "agent", "fileHash": hashlib.sha256(MEMORY).hexdigest()}, MEMORY, "agent"),
        ({"originClass": "agent", "fileHash": "0" * 64}, MEMORY, "armed"),
        ({"originClass": "agent", "fileHash": "0" * 64}, None, "armed"),
        ({"originClass": "untrusted", "fileHash": hashlib.sha256(MEMORY).hexdigest()}, MEMORY, "untrusted"),
    ],
)
def test_provenance_state_table(record: dict[str, str] | None, memory: bytes | None, state: str) -> None:
    assert provenance_state(record, memory) == state


def test_provenance_warning_only_for_risky_states() -> None:
    assert provenance_warning("none") is None and provenance_warning("unknown") is None
    assert "no longer loads it at boot" in (provenance_warning("untrusted") or "")
    assert "next write will drop it" in (provenance_warning("armed") or "")


def _state_db(state_dir: Path, workspace: Path, record: dict[str, str]) -> None:
    db = state_dir / "state" / "openclaw.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    con.execute("create table plugin_state_entries (plugin_id text, namespace text, entry_key text, value_json text)")
    con.execute("insert into plugin_state_entries values (?, ?, ?, ?)",
                (PLUGIN_ID, NAMESPACE, record_key(workspace.resolve()), json.dumps(record)))
    con.commit()
    con.close()


def test_read_provenance_reads_openclaw_state_read_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_bytes(MEMORY)
    state_dir = tmp_path / "oc"
    env = {"OPENCLAW_STATE_DIR": str(state_dir)}
    assert read_provenance(ws, env) == "none"
    _state_db(state_dir, ws, {"originClass": "agent", "fileHash": hashlib.sha256(MEMORY).hexdigest()})
    db_bytes = (state_dir / "state" / "openclaw.sqlite").read_bytes()
    assert read_provenance(ws, env) == "agent"
    (ws / "MEMORY.md").write_bytes(b"rewritten by bonsai-git\n")
    assert read_provenance(ws, env) == "armed"
    assert (state_dir / "state" / "openclaw.sqlite").read_bytes() == db_bytes


def test_read_provenance_unknown_on_a_broken_database(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "openclaw.sqlite").write_bytes(b"not sqlite")
    assert read_provenance(tmp_path, {"OPENCLAW_STATE_DIR": str(tmp_path)}) == "unknown"


def test_status_warns_when_memory_is_armed(make_repo: Callable[..., Path], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    state_dir = tmp_path / "openclaw-state"
    _state_db(state_dir, repo, {"originClass": "agent", "fileHash": "0" * 64})
    result = CliRunner().invoke(main, ["status", "-C", str(repo), "--json"])
    report = json.loads(result.stdout)
    assert report["openclaw_provenance"] == "armed"
    assert any(w["kind"] == "openclaw_provenance" for w in report["warnings"])
    assert result.exit_code == 1


def test_migrate_warns_before_rewriting_an_agent_written_memory(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    source = corpus_bytes("02-ops-assistant-2764.md")
    repo = make_repo(source)
    _state_db(tmp_path / "openclaw-state", repo, {"originClass": "agent", "fileHash": hashlib.sha256(source).hexdigest()})
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0
    assert "warning: OpenClaw recorded MEMORY.md as agent-written" in result.stderr
    status = json.loads(CliRunner().invoke(main, ["status", "-C", str(repo), "--json"]).stdout)
    assert status["openclaw_provenance"] == "armed"


def test_hook_warns_when_it_rewrites_an_armed_memory(make_repo: Callable[..., Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from bonsai_git.hook import run_hook
    from support import git

    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    _state_db(tmp_path / "openclaw-state", repo, {"originClass": "agent", "fileHash": "0" * 64})
    # A leaf in a new domain: the quiet trunk is rewritten only when the set of domains changes.
    (repo / "memory" / "domains" / "legal").mkdir(parents=True, exist_ok=True)
    (repo / "memory" / "domains" / "legal" / "lease.md").write_text("## Lease\n\nThe studio lease ends in May.\n")
    git(repo, "add", "-A")
    assert run_hook(repo) == 1
    assert "MEMORY.md: MEMORY.md changed outside the agent" in capsys.readouterr().err


def test_no_warning_without_openclaw_state(make_repo: Callable[..., Path]) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0 and "OpenClaw" not in result.stderr
