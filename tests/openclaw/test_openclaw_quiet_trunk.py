"""Quiet trunk (issue 11 §3–4), as the real OpenClaw sees it.

A workspace whose domains get sub-branches (corpus 23: ``_index.<key>.md``
files) is migrated, the pre-commit hook installed, and the agent re-adopts
MEMORY.md through its own tools (README, "MEMORY.md provenance"). Then five
rounds of: edit a leaf and commit it through the hook (the commit stops once
because the hook rewrites indexes; re-add, commit again), then the agent writes
MEMORY.md with its ``edit`` tool and the user commits that through the hook.

After every round MEMORY.md must still be ``agent`` in OpenClaw's provenance
database and injected whole at the next boot: the hook never rewrote it, so the
provenance record was never armed. Finally OpenClaw's ``memory_search`` must
find one distinctive fact under every sub-branch index.

The agent's write goes into the pinned text above the begin marker, not after
the end marker: a ``##`` section after the end marker is absorbed into a leaf by
the next commit, a rewrite by design (SKILL.md has the agent re-adopt after it),
and not what this test is about.
"""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.openclaw

CORPUS = "23-long-running-agent-25k.md"
ROUNDS = 5
BEGIN = "<!-- bonsai:begin"
ENTRY = re.compile(r"^### (\S+\.md) \(~", re.M)  # a leaf entry of an index (README, lookup path)


def _readopt(content: str) -> list[list[list[Any]]]:
    """Re-adopt MEMORY.md through the agent's tools (same ritual as test_openclaw_provenance.py)."""
    delete = [["apply_patch", {"input": "*** Begin Patch\n*** Delete File: MEMORY.md\n*** End Patch"}]]
    write = [["write", {"path": "MEMORY.md", "content": content}]]
    return [delete, write, delete, write]


def _agent_note(content: str, n: int) -> list[list[list[Any]]]:
    """The agent adds a line to the pinned text, just above the generated block."""
    start = content.index(BEGIN)
    marker_line = content[start:content.index("\n", start)]
    return [[["edit", {"path": "MEMORY.md", "edits": [
        {"oldText": marker_line, "newText": f"- Agent note {n}: checked the quiet trunk\n\n{marker_line}"}]}]]]


def _hook_commit(harness: Any, ws: Path, message: str, *paths: str) -> list[subprocess.CompletedProcess[str]]:
    """``git commit`` through the installed hook; when the hook stops it, re-add and commit once more."""
    # The hook script runs `bonsai-git-hook` from PATH: this Python's entry points first.
    env = {**os.environ, **harness.GIT_ENV,
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    runs = []

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=ws, env=env, capture_output=True, text=True)

    assert run("add", "--", *paths).returncode == 0
    runs.append(run("commit", "-q", "-m", message))
    if runs[-1].returncode != 0:
        assert run("add", "-A", "--", "memory", "MEMORY.md").returncode == 0
        runs.append(run("commit", "-q", "-m", message))
    assert runs[-1].returncode == 0, runs[-1].stderr
    assert run("status", "--porcelain", "--", "memory", "MEMORY.md").stdout == ""
    return runs


def _sub_branches(ws: Path) -> dict[str, list[str]]:
    """Sub-branch index (workspace-relative) -> the leaves it lists directly (may be none)."""
    out: dict[str, list[str]] = {}
    for index in sorted((ws / "memory" / "domains").rglob("_index.*.md")):
        folder = index.parent.relative_to(ws).as_posix()
        out[index.relative_to(ws).as_posix()] = [f"{folder}/{name}" for name in
                                                 ENTRY.findall(index.read_text(encoding="utf-8"))]
    return out


def _unique_fact(harness: Any, ws: Path, leaves: list[str]) -> tuple[str, str] | None:
    """(query, leaf): words that, together, only one of ``leaves`` holds among OpenClaw's indexed files.

    First harness.distinctive_words' rule (one word no other file holds). Templated
    leaves (incidents, monthly reviews) share every word with a sibling, so then the
    first pair (or triple) of words, in document order, that no other file holds
    together: OpenClaw's keyword search ANDs the words of a query, so the leaf must
    be found and is the only file that can be.
    """
    files = harness.memory_files(ws)
    lowered = {k: v.lower() for k, v in files.items()}
    leaves_only = [v for k, v in lowered.items() if k != "MEMORY.md" and "/_index" not in k]
    for pattern, pool in ((harness.TOKEN, list(lowered.values())), (harness.SHORT_TOKEN, leaves_only)):
        for leaf in leaves:
            unique = [w for w in dict.fromkeys(pattern.findall(files[leaf])) if sum(w.lower() in t for t in pool) == 1]
            if unique:
                return max(unique, key=len), leaf
    others = list(lowered.values())
    for size in (2, 3):
        for leaf in leaves:
            words = list(dict.fromkeys(w.lower() for w in harness.SHORT_TOKEN.findall(files[leaf])))[:25]
            for combo in itertools.combinations(words, size):
                if sum(all(w in t for w in combo) for t in others) == 1:
                    return " ".join(combo), leaf
    return None


def _boot(turn: Any, harness: Any, memory: str) -> str:
    f = turn.boot_file()
    assert f and not f["missing"] and not f["truncated"], f
    assert f["rawChars"] == f["injectedChars"] == harness.js_chars(memory), f
    return f"{f['injectedChars']:,}/{f['rawChars']:,}"


@pytest.fixture(scope="module")
def story(harness: Any, runtime: Any, bonsai_cli: list[str], tmp_path_factory: pytest.TempPathFactory,
          report: list[str]) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("quiet-trunk")
    ws = harness.make_workspace(base / "ws", (harness.CORPUS / CORPUS).read_bytes())
    harness.bonsai(ws, "migrate").check(0)
    harness.bonsai(ws, "install-hook").check(0)
    subs = _sub_branches(ws)
    s: dict[str, Any] = {"ws": ws, "subs": subs, "rounds": []}
    sb = harness.Sandbox(runtime, base / "sb", ws)
    memory = (ws / "MEMORY.md").read_text(encoding="utf-8")
    t = sb.agent_turn(_readopt(memory), session="adopt")
    s["adopt_boot"] = _boot(t, harness, memory)
    s["adopt_state"] = sb.provenance_state()
    s["adopt_bytes_kept"] = (ws / "MEMORY.md").read_text(encoding="utf-8") == memory
    # One leaf per round, each under a different leaf-bearing sub-branch, domains taken in turn.
    by_domain: dict[str, list[str]] = {}
    for leaves in (v for v in subs.values() if v):
        by_domain.setdefault(leaves[0].split("/")[2], []).append(leaves[0])
    turns = itertools.zip_longest(*by_domain.values())
    targets = [leaf for row in turns for leaf in row if leaf][:ROUNDS]
    for n, leaf in enumerate(targets, 1):
        before = (ws / "MEMORY.md").read_bytes()
        with open(ws / leaf, "a", encoding="utf-8") as fh:
            fh.write(f"\n- Follow-up {n}: rechecked after the quiet trunk change; the notes above still hold.\n")
        leaf_runs = _hook_commit(harness, ws, f"edit {leaf}", leaf)
        after_leaf = (ws / "MEMORY.md").read_bytes()
        state_after_leaf = sb.provenance_state()
        memory = after_leaf.decode("utf-8")
        turn = sb.agent_turn(_agent_note(memory, n), session=f"round-{n}")
        boot = _boot(turn, harness, memory)  # boot of this session: the trunk after the leaf commit
        written = (ws / "MEMORY.md").read_bytes()
        note_runs = _hook_commit(harness, ws, f"agent note {n}", "MEMORY.md")
        s["rounds"].append({
            "leaf": leaf, "leaf_runs": [r.returncode for r in leaf_runs], "leaf_hook_out": leaf_runs[0].stdout + leaf_runs[0].stderr,
            "trunk_kept_by_leaf_commit": before == after_leaf, "state_after_leaf": state_after_leaf,
            "boot": boot, "agent_wrote": written != after_leaf,
            "trunk_kept_by_note_commit": (ws / "MEMORY.md").read_bytes() == written,
            "note_runs": [r.returncode for r in note_runs], "state": sb.provenance_state(),
        })
    final = sb.agent_turn(session="final")
    s["final_boot"] = _boot(final, harness, (ws / "MEMORY.md").read_text(encoding="utf-8"))
    s["final_state"] = sb.provenance_state()
    # One distinctive fact per leaf-bearing sub-branch, searched with OpenClaw's own tool.
    facts = {index: _unique_fact(harness, ws, leaves) for index, leaves in subs.items() if leaves}
    s["facts"] = facts
    words = [f[0] for f in facts.values() if f]
    s["search"] = sb.search_turn(words, session="search").searches if words else {}
    report.append(f"quiet trunk (corpus 23): {len(subs)} sub-branch indexes, {sum(1 for v in subs.values() if v)} list leaves; "
                  f"re-adopt: {s['adopt_state']}, boot {s['adopt_boot']} chars")
    for n, r in enumerate(s["rounds"], 1):
        report.append(f"    round {n}: {r['leaf']} commit rcs {r['leaf_runs']} + note {r['note_runs']}; "
                      f"MEMORY.md kept by hook: {r['trunk_kept_by_leaf_commit'] and r['trunk_kept_by_note_commit']}; "
                      f"state after leaf commit {r['state_after_leaf']}, after agent write {r['state']}; boot {r['boot']}")
    report.append(f"    final boot {s['final_boot']} chars, state {s['final_state']}")
    hits = sum(1 for f in facts.values() if f and f[1] in s["search"].get(f[0], []))
    report.append(f"    memory_search: {hits}/{len(facts)} sub-branch facts found in their leaf")
    for index, f in facts.items():
        got = s["search"].get(f[0], []) if f else []
        report.append(f"      {index}: {f[0] if f else None!r} -> {'found' if f and f[1] in got else 'MISSING ' + str(got[:3])}")
    return s


def test_corpus_migration_makes_sub_branches(story: dict[str, Any]) -> None:
    subs = story["subs"]
    assert len(subs) >= ROUNDS
    assert sum(1 for leaves in subs.values() if leaves) >= ROUNDS
    for index, leaves in subs.items():
        for leaf in leaves:
            assert (story["ws"] / leaf).is_file(), (index, leaf)


def test_readopt_leaves_memory_md_agent_trusted(story: dict[str, Any]) -> None:
    assert story["adopt_bytes_kept"]
    assert story["adopt_state"] == "agent"


def test_leaf_commits_land_at_once_and_leave_memory_md_alone(story: dict[str, Any]) -> None:
    assert len(story["rounds"]) == ROUNDS
    for r in story["rounds"]:
        assert r["leaf_runs"] == [0], r  # the plain hook stages the indexes it regenerates (issue 22)
        assert "_index" in r["leaf_hook_out"] and "MEMORY.md" not in r["leaf_hook_out"], r["leaf_hook_out"]
        assert r["trunk_kept_by_leaf_commit"], r


def test_agent_writes_are_committed_untouched(story: dict[str, Any]) -> None:
    for r in story["rounds"]:
        assert r["agent_wrote"], r
        assert r["note_runs"] == [0], r
        assert r["trunk_kept_by_note_commit"], r


def test_memory_md_stays_agent_trusted_every_round(story: dict[str, Any]) -> None:
    for r in story["rounds"]:
        assert r["state_after_leaf"] == "agent", r
        assert r["state"] == "agent", r
    assert story["final_state"] == "agent"


def test_memory_md_injected_whole_at_every_boot(story: dict[str, Any]) -> None:
    # _boot asserted each boot whole while the story ran; this pins that every round booted.
    assert all(r["boot"] for r in story["rounds"]) and story["final_boot"]


def test_memory_search_finds_a_fact_per_sub_branch(story: dict[str, Any]) -> None:
    facts = story["facts"]
    assert facts and all(facts.values()), {k: v for k, v in facts.items() if not v}
    missing = {index: (word, leaf, story["search"].get(word)) for index, (word, leaf) in facts.items()
               if leaf not in story["search"].get(word, [])}
    assert not missing
    # Every sub-branch index, leaf-bearing or not, has a found fact beneath it:
    # `_index.incident.md` lists `_index.incident.1.md` ... in the same folder.
    def key(index: str) -> tuple[str, str]:
        folder, name = index.rsplit("/", 1)
        return folder, name.removeprefix("_index.").removesuffix(".md")

    for index in story["subs"]:
        folder, k = key(index)
        assert any(key(f)[0] == folder and (key(f)[1] == k or key(f)[1].startswith(k + ".")) for f in facts), index
