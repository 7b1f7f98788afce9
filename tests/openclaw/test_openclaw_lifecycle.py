"""After ``reindex``, ``absorb`` and ``rollback``, as the real OpenClaw sees the workspace.

One workspace (corpus 03, whose flat MEMORY.md is over OpenClaw's boot cap)
goes migrate -> edit a leaf + add a leaf -> reindex -> append a ``##`` section
after the trunk's end marker -> absorb. A second one goes migrate -> rollback.
After each step OpenClaw (on a copy) must inject the trunk whole and find the
new facts where they now live.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.openclaw

CORPUS = "03-chief-of-staff-6k.md"
LEAF_WORD = "Zephyrinequokka"  # appended to an existing leaf
NEW_LEAF_WORD = "Quillonade"  # in a leaf the user adds by hand
ABSORB_WORD = "gorseberry"  # in a `##` section appended after the trunk's end marker
NEW_LEAF = "memory/domains/business/vendor-quillonade.md"


def _boot_whole(turn: Any, harness: Any, ws: Path) -> dict[str, Any]:
    f = turn.boot_file()
    assert f and not f["missing"] and not f["truncated"], f
    assert f["rawChars"] == f["injectedChars"] == harness.js_chars((ws / "MEMORY.md").read_text(encoding="utf-8"))
    return f


@pytest.fixture(scope="module")
def migrated(harness: Any, bonsai_cli: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = harness.make_workspace(tmp_path_factory.mktemp("lifecycle") / "ws", (harness.CORPUS / CORPUS).read_bytes())
    harness.bonsai(ws, "migrate").check(0)
    return ws


@pytest.fixture(scope="module")
def reindexed(harness: Any, migrated: Path) -> dict[str, Any]:
    ws = migrated
    leaf = harness.domain_leaves(ws)["identity"][0]
    with open(ws / leaf, "a", encoding="utf-8") as fh:
        fh.write(f"- {LEAF_WORD}: the family's code word for the Lisbon flat.\n")
    (ws / NEW_LEAF).write_text(f"## Vendor {NEW_LEAF_WORD}\n\n{NEW_LEAF_WORD} supplies the marmalade crates; net 30.\n",
                               encoding="utf-8")
    harness.commit_all(ws, "memory: edit a leaf, add a leaf")
    stale = harness.bonsai(ws, "reindex", "--check")
    result = harness.bonsai(ws, "reindex").check(0)
    check_after = harness.bonsai(ws, "reindex", "--check")
    harness.commit_all(ws, "memory: reindex")
    return {"leaf": leaf, "stale": stale, "result": result, "check_after": check_after, "ws": ws}


def test_reindex_picks_up_the_edited_and_the_new_leaf(harness: Any, runtime: Any, reindexed: dict[str, Any],
                                                       tmp_path: Path, report: list[str]) -> None:
    ws = reindexed["ws"]
    assert reindexed["stale"].returncode == 1, "adding a leaf must make an index stale"
    assert reindexed["check_after"].returncode == 0
    # The new leaf is listed in one of its domain's index files (the domain's _index.md, or a
    # sub-branch index below it when the domain is too large for one).
    listed = [p.name for p in (ws / "memory/domains/business").rglob("_index*.md")
              if "vendor-quillonade.md" in p.read_text(encoding="utf-8")]
    assert len(listed) == 1, listed
    copy = harness.copy_workspace(ws, tmp_path / "ws")
    turn = harness.Sandbox(runtime, tmp_path / "sb", copy).search_turn([LEAF_WORD, NEW_LEAF_WORD])
    f = _boot_whole(turn, harness, ws)
    report.append(f"after reindex ({CORPUS}): boot raw {f['rawChars']:,} injected {f['injectedChars']:,} whole; "
                  f"{LEAF_WORD!r} -> {turn.searches.get(LEAF_WORD)}; {NEW_LEAF_WORD!r} -> {turn.searches.get(NEW_LEAF_WORD)}")
    assert reindexed["leaf"] in turn.searches.get(LEAF_WORD, [])
    assert NEW_LEAF in turn.searches.get(NEW_LEAF_WORD, [])
    assert "MEMORY.md" not in turn.searches.get(LEAF_WORD, [])


@pytest.fixture(scope="module")
def absorbed(harness: Any, reindexed: dict[str, Any]) -> dict[str, Any]:
    ws = reindexed["ws"]
    argv = _absorb_argv(harness, ws)
    if argv is None:
        pytest.skip("this bonsai-git has neither an `absorb` nor a `hook` command")
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.write(f"\n## Sanctuary Volunteering\n\nSaturday shifts at the marmoset sanctuary; bring the {ABSORB_WORD} jam.\n")
    harness.commit_all(ws, "memory: note appended after the end marker")
    proc = subprocess.run(argv, env={**os.environ, **harness.GIT_ENV}, capture_output=True, text=True, timeout=120)
    result = harness.CliResult(argv, proc.returncode, proc.stdout, proc.stderr)
    harness.commit_all(ws, "memory: absorb")
    via = "absorb" if "absorb" in argv else "hook"
    label = "python -m bonsai_git.hook" if "bonsai_git.hook" in argv else f"bonsai-git {via}"
    return {"ws": ws, "result": result, "via": via, "label": label}


def _absorb_argv(harness: Any, ws: Path) -> list[str] | None:
    """`bonsai-git absorb -C WS`, or else the pre-commit hook entry, which absorbs then reindexes."""
    commands = subprocess.run([*harness.bonsai_exe(), "--help"], capture_output=True, text=True).stdout
    for name in ("absorb", "hook"):
        if re.search(rf"^\s+{name}\b", commands, re.M):
            return [*harness.bonsai_exe(), name, "-C", str(ws)]
    probe = subprocess.run([sys.executable, "-m", "bonsai_git.hook", "--help"], capture_output=True, text=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "bonsai_git.hook", "-C", str(ws)]
    return None


def test_absorb_moves_the_appended_section_into_a_leaf(harness: Any, runtime: Any, absorbed: dict[str, Any],
                                                       tmp_path: Path, report: list[str]) -> None:
    ws = absorbed["ws"]
    # `absorb` exits 0; the hook entry exits 1 when it wrote files (pre-commit's fixer convention).
    absorbed["result"].check(0) if absorbed["via"] == "absorb" else absorbed["result"].check(1)
    assert ABSORB_WORD not in (ws / "MEMORY.md").read_text(encoding="utf-8")
    homes = [p for p, text in harness.memory_files(ws).items() if ABSORB_WORD in text and not p.endswith("_index.md")]
    assert len(homes) == 1 and homes[0].startswith("memory/"), homes
    copy = harness.copy_workspace(ws, tmp_path / "ws")
    turn = harness.Sandbox(runtime, tmp_path / "sb", copy).search_turn([ABSORB_WORD])
    f = _boot_whole(turn, harness, ws)
    report.append(f"after absorb via `{absorbed['label']}` ({CORPUS}): boot raw {f['rawChars']:,} injected {f['injectedChars']:,} whole; "
                  f"{ABSORB_WORD!r} -> {turn.searches.get(ABSORB_WORD)}")
    assert homes[0] in turn.searches.get(ABSORB_WORD, [])
    assert "MEMORY.md" not in turn.searches.get(ABSORB_WORD, [])


def test_rollback_gives_openclaw_the_flat_file_back(harness: Any, runtime: Any, bonsai_cli: list[str],
                                                    tmp_path: Path, report: list[str]) -> None:
    original = (harness.CORPUS / CORPUS).read_bytes()
    ws = harness.make_workspace(tmp_path / "ws", original)
    harness.bonsai(ws, "migrate").check(0)
    facts = harness.distinctive_words(ws)
    harness.bonsai(ws, "rollback").check(0)
    assert (ws / "MEMORY.md").read_bytes() == original
    assert not (ws / "memory" / "domains").exists()
    assert harness.git(ws, "status", "--porcelain").stdout == ""
    copy = harness.copy_workspace(ws, tmp_path / "copy")
    words = [w for w, _ in facts.values()]
    turn = harness.Sandbox(runtime, tmp_path / "sb", copy).search_turn(words)
    f = turn.boot_file()
    report.append(f"after rollback ({CORPUS}): boot raw {f['rawChars']:,} injected {f['injectedChars']:,}"
                  f"{' TRUNCATED' if f['truncated'] else ' whole'} (same as before migration); "
                  f"{sum('MEMORY.md' in turn.searches.get(w, []) for w in words)}/{len(words)} facts found in MEMORY.md")
    assert f["rawChars"] == harness.js_chars(original.decode("utf-8")) and f["truncated"]
    assert all(turn.searches.get(w) == ["MEMORY.md"] for w in words), turn.searches
