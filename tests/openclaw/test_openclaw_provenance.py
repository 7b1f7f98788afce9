"""Provenance: does OpenClaw stop injecting MEMORY.md after bonsai-git rewrites it?

Reported against OpenClaw 2026.8-2026.9: a MEMORY.md rewritten outside the
agent's own tools may be marked untrusted and dropped from boot, persistently.
Measured here with the real 2026.9.6 runtime and a scripted mock model. The
mechanism (memory-core's write-provenance record, keyed by workspace and path,
holding the hash of the last content the agent's tools wrote):

1. an external rewrite alone changes nothing at boot: the record still says
   ``agent`` (state "armed");
2. the agent's *next* write through its tools sees that the file is not what it
   last wrote and records ``untrusted``;
3. from then on MEMORY.md is left out of every session's boot context, and
   further agent writes keep it ``untrusted``.

This file pins that behaviour (so a change in OpenClaw shows up here) and
checks both documented ways out: clearing the record, and "re-adopting" the
file through the agent's own tools right after bonsai-git rewrote it.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.openclaw

CORPUS = "22-pinned-core-rules.md"
END = "<!-- bonsai:end -->"
README_HINT = "OpenClaw's provenance behaviour changed: update the README's OpenClaw section and SKILL.md"


def _append_after_end_marker(title: str) -> list[list[Any]]:
    """The edit SKILL.md tells the agent to make: a new ``##`` section after the end marker."""
    return [["edit", {"path": "MEMORY.md", "edits": [
        {"oldText": END, "newText": f"{END}\n\n## {title}\n\n- noted by the agent in session\n"}]}]]


def _readopt(content: str) -> list[list[list[Any]]]:
    """Re-adopt MEMORY.md through the agent's own tools: delete it and write it back, twice.

    Why twice: a delete clears the record only when the file still has the bytes the
    record names, and the write tool skips a write of identical content. So the first
    delete + write gives a record of the current bytes (``untrusted`` when armed), the
    second delete clears it, and the second write records ``agent``. Bytes end unchanged.
    """
    delete = [["apply_patch", {"input": "*** Begin Patch\n*** Delete File: MEMORY.md\n*** End Patch"}]]
    write = [["write", {"path": "MEMORY.md", "content": content}]]
    return [delete, write, delete, write]


def _clear_record(sandbox: Any) -> None:
    """The other way out (OpenClaw stopped): delete the file's provenance record."""
    import hashlib

    ws_key = hashlib.sha256(str(sandbox.workspace.resolve()).encode()).hexdigest()
    key = f"{ws_key}:{hashlib.sha256(b'MEMORY.md').hexdigest()}"
    con = sqlite3.connect(sandbox.state_db)
    with con:
        con.execute("delete from plugin_state_entries where plugin_id = 'core:memory-artifact-provenance' "
                    "and namespace = 'workspace-files' and entry_key = ?", (key,))
    con.close()


@pytest.fixture(scope="module")
def story(harness: Any, runtime: Any, bonsai_cli: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("provenance")
    # The workspace is a throwaway copy of the corpus file; OpenClaw runs in it directly
    # because the agent's own edits are the subject here.
    ws = harness.make_workspace(base / "ws", (harness.CORPUS / CORPUS).read_bytes())
    sb = harness.Sandbox(runtime, base / "sb", ws)
    s: dict[str, Any] = {"ws": ws, "sb": sb, "states": {}}
    last = [line for line in (ws / "MEMORY.md").read_text(encoding="utf-8").splitlines() if line.strip()][-1]

    # Session 1: the agent edits the flat MEMORY.md with its own `edit` tool; the user commits.
    s["t1"] = sb.agent_turn([[["edit", {"path": "MEMORY.md", "edits": [
        {"oldText": last, "newText": last + "\n- agent note: renew the domain before March"}]}]]], session="s1")
    s["states"]["after agent edit"] = sb.provenance_state()
    harness.git(ws, "add", "MEMORY.md")
    harness.git(ws, "commit", "-q", "-m", "agent edit")
    # bonsai-git rewrites MEMORY.md outside the agent's tools.
    s["migrate"] = harness.bonsai(ws, "migrate").check(0)
    s["states"]["after migrate"] = sb.provenance_state()
    # Session 2: boot, then the agent appends a section after the end marker (as SKILL.md says).
    s["t2"] = sb.agent_turn([_append_after_end_marker("Session Two Note")], session="s2")
    s["states"]["after agent write following migrate"] = sb.provenance_state()
    # Session 3: a new session.
    s["t3"] = sb.agent_turn(session="s3")
    # Way out 1: clear the record (with OpenClaw stopped), then a new session.
    _clear_record(sb)
    s["states"]["after clearing the record"] = sb.provenance_state()
    s["t4"] = sb.agent_turn([_append_after_end_marker("Session Four Note")], session="s4")
    s["states"]["after agent write, no record"] = sb.provenance_state()
    harness.git(ws, "add", "MEMORY.md")
    harness.git(ws, "commit", "-q", "-m", "agent notes")
    # A leaf added to an existing domain, then reindex: the quiet trunk leaves MEMORY.md alone.
    trunk = (ws / "MEMORY.md").read_bytes()
    (ws / "memory/domains/general/harbour-permits.md").write_text("## Harbour Permits\n\nRenew the mooring permit in May.\n")
    harness.commit_all(ws, "leaf")
    s["reindex quiet"] = harness.bonsai(ws, "reindex").check(0)
    harness.commit_all(ws, "reindex")
    s["trunk untouched"] = (ws / "MEMORY.md").read_bytes() == trunk
    s["states"]["after reindex, existing domain"] = sb.provenance_state()
    # Another bonsai-git rewrite: a leaf in a new domain changes the trunk's domain list.
    (ws / "memory/domains/boating").mkdir()
    (ws / "memory/domains/boating/mooring.md").write_text("## Mooring\n\nThe boat is moored at pier 4.\n")
    harness.commit_all(ws, "new domain")
    s["reindex"] = harness.bonsai(ws, "reindex").check(0)
    harness.commit_all(ws, "reindex")
    s["trunk rewritten"] = (ws / "MEMORY.md").read_bytes() != trunk
    s["states"]["after reindex, new domain"] = sb.provenance_state()
    # Way out 2 (prevention): session 5 re-adopts MEMORY.md through the agent's tools, then writes.
    content = (ws / "MEMORY.md").read_text(encoding="utf-8")
    s["t5"] = sb.agent_turn([*_readopt(content), _append_after_end_marker("Session Five Note")], session="s5")
    s["states"]["after re-adopt + agent write"] = sb.provenance_state()
    s["readopt_expected"] = content.replace(END, f"{END}\n\n## Session Five Note\n\n- noted by the agent in session\n")
    s["t6"] = sb.agent_turn(session="s6")
    return s


def test_agent_tool_write_is_recorded_as_agent(story: dict[str, Any]) -> None:
    assert story["t1"].memory_injected()
    assert story["states"]["after agent edit"] == "agent"


def test_migration_alone_leaves_memory_md_injected_but_arms_the_record(story: dict[str, Any], report: list[str]) -> None:
    assert story["states"]["after migrate"] == "armed", README_HINT
    f = story["t2"].boot_file()
    assert f and not f["missing"] and not f["truncated"], README_HINT


def test_next_agent_write_after_migration_drops_memory_md_from_boot(story: dict[str, Any], report: list[str]) -> None:
    t3 = story["t3"]
    report.append("provenance (OpenClaw 2026.9.6, corpus 22): states " + "; ".join(f"{k}: {v}" for k, v in story["states"].items()))
    report.append("provenance: session 2 (after migrate) boot MEMORY.md " + _boot(story["t2"])
                  + "; session 3 (after the agent's next write) " + _boot(t3)
                  + "; session 4 (record cleared) " + _boot(story["t4"])
                  + "; session 6 (reindex, then re-adopt in session 5) " + _boot(story["t6"]))
    assert story["states"]["after agent write following migrate"] == "untrusted", README_HINT
    assert not t3.memory_injected(), README_HINT
    assert "MEMORY.md" not in [f["name"] for f in t3.report["injectedWorkspaceFiles"]], README_HINT


def test_clearing_the_record_restores_boot_injection(story: dict[str, Any]) -> None:
    assert story["states"]["after clearing the record"] == "none"
    assert story["t4"].memory_injected()
    assert story["states"]["after agent write, no record"] == "agent"


def test_reindex_after_a_leaf_in_an_existing_domain_keeps_the_record_agent(story: dict[str, Any]) -> None:
    """Issue 11's quiet trunk: a leaf added inside an existing domain never rewrites MEMORY.md."""
    assert story["trunk untouched"]
    assert story["states"]["after reindex, existing domain"] == "agent"


def test_reindex_of_a_new_domain_rewrites_the_trunk_and_arms_the_record_again(story: dict[str, Any]) -> None:
    assert story["trunk rewritten"]
    assert story["states"]["after reindex, new domain"] == "armed"


def test_readopting_after_a_rewrite_keeps_memory_md_trusted(story: dict[str, Any]) -> None:
    assert (story["ws"] / "MEMORY.md").read_text(encoding="utf-8") == story["readopt_expected"]
    assert story["states"]["after re-adopt + agent write"] == "agent"
    assert story["t6"].memory_injected()


def test_readopt_preserves_bytes(harness: Any, runtime: Any, bonsai_cli: list[str], tmp_path: Path) -> None:
    """The delete/write ritual must not change MEMORY.md (CRLF corpus: the strictest case)."""
    ws = harness.make_workspace(tmp_path / "ws", (harness.CORPUS / "17-crlf-line-endings.md").read_bytes())
    harness.bonsai(ws, "migrate", "--force").check(0)
    before = (ws / "MEMORY.md").read_bytes()
    sb = harness.Sandbox(runtime, tmp_path / "sb", ws)
    sb.agent_turn(_readopt(before.decode("utf-8")), session="r")
    assert (ws / "MEMORY.md").read_bytes() == before
    assert sb.provenance_state() == "agent"


def _boot(turn: Any) -> str:
    f = turn.boot_file()
    if not f:
        return "NOT INJECTED (absent from injectedWorkspaceFiles)"
    return f"injected {f['injectedChars']:,}/{f['rawChars']:,} chars"
