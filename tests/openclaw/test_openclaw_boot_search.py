"""Before and after ``bonsai-git migrate``, as the real OpenClaw sees the workspace.

For each corpus file: what OpenClaw injects at boot (its own
``systemPromptReport``), and whether OpenClaw's own ``memory_search`` tool finds
a distinctive fact of every domain: in MEMORY.md before, in the leaf where the
fact lives after.
"""
from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.openclaw

CORPUS_FILES = [
    "02-ops-assistant-2764.md",
    "03-chief-of-staff-6k.md",
    "10-zh-chinese-headings.md",
    "22-pinned-core-rules.md",
    "23-long-running-agent-25k.md",
]
BOOT_MAX_CHARS = 20_000  # OpenClaw 2026.9.6 per-file bootstrap cap (bootstrapMaxChars)


@dataclass
class Probe:
    name: str
    original: str
    trunk: str
    facts: dict[str, tuple[str, str]]  # domain -> (word, leaf)
    before: Any  # harness.Turn
    after: Any


def _probe(harness: Any, runtime: Any, base: Path, name: str) -> Probe:
    source = harness.CORPUS / name
    ws = harness.make_workspace(base / "ws", source.read_bytes())
    harness.bonsai(ws, "migrate", "--json").check(0)
    facts = harness.distinctive_words(ws)
    words = [word for word, _ in facts.values()]
    before_ws = base / "before-ws"
    before_ws.mkdir()
    shutil.copyfile(source, before_ws / "MEMORY.md")
    after_ws = harness.copy_workspace(ws, base / "after-ws")
    before = harness.Sandbox(runtime, base / "sb-before", before_ws).search_turn(words)
    after = harness.Sandbox(runtime, base / "sb-after", after_ws).search_turn(words)
    return Probe(name, source.read_text(encoding="utf-8"), (ws / "MEMORY.md").read_text(encoding="utf-8"),
                 facts, before, after)


@pytest.fixture(scope="session")
def probes(harness: Any, runtime: Any, bonsai_cli: list[str], tmp_path_factory: pytest.TempPathFactory,
           report: list[str]) -> dict[str, Probe]:
    base = tmp_path_factory.mktemp("openclaw-corpus")
    with ThreadPoolExecutor(max_workers=2) as pool:  # each probe has its own namespace and $HOME
        futures = {n: pool.submit(_probe, harness, runtime, base / n.removesuffix(".md"), n) for n in CORPUS_FILES}
        out = {n: f.result() for n, f in futures.items()}
    report.append(f"OpenClaw {runtime.openclaw_version} on Node {runtime.node_version}; "
                  f"boot = meta.systemPromptReport.injectedWorkspaceFiles[MEMORY.md] (chars, UTF-16 units)")
    for p in out.values():
        b, a = p.before.boot_file(), p.after.boot_file()
        report.append(f"{p.name}: before raw {b['rawChars']:,} injected {b['injectedChars']:,}"
                      f"{' TRUNCATED' if b['truncated'] else ' whole'} -> after raw {a['rawChars']:,} "
                      f"injected {a['injectedChars']:,}{' TRUNCATED' if a['truncated'] else ' whole'}")
        for domain, (word, leaf) in p.facts.items():
            got_b, got_a = p.before.searches.get(word, []), p.after.searches.get(word, [])
            report.append(f"    {domain:<15} {word!r}: before {'MEMORY.md' if 'MEMORY.md' in got_b else 'NOT FOUND'}; "
                          f"after {leaf if leaf in got_a else 'NOT FOUND ' + str(got_a)}")
    return out


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_boot_before_migration_injects_flat_file_up_to_cap(probes: dict[str, Probe], harness: Any, name: str) -> None:
    p = probes[name]
    assert p.before.report["bootstrapMaxChars"] == BOOT_MAX_CHARS
    f = p.before.boot_file()
    assert f and not f["missing"]
    assert f["rawChars"] == harness.js_chars(p.original)
    if f["rawChars"] > BOOT_MAX_CHARS:
        assert f["truncated"] and f["injectedChars"] <= BOOT_MAX_CHARS
    else:
        assert not f["truncated"] and f["injectedChars"] == f["rawChars"]


def test_long_running_agent_file_is_cut_at_cap_before_migration(probes: dict[str, Probe]) -> None:
    f = probes["23-long-running-agent-25k.md"].before.boot_file()
    assert f["rawChars"] > 90_000 and f["truncated"] and f["injectedChars"] <= BOOT_MAX_CHARS


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_boot_after_migration_injects_whole_trunk(probes: dict[str, Probe], harness: Any, name: str) -> None:
    p = probes[name]
    f = p.after.boot_file()
    assert f and not f["missing"] and not f["truncated"]
    assert f["rawChars"] == f["injectedChars"] == harness.js_chars(p.trunk)
    assert f["rawChars"] < BOOT_MAX_CHARS
    assert "<!-- bonsai:begin" in p.trunk and "<!-- bonsai:end -->" in p.trunk


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_domain_has_a_distinctive_fact(probes: dict[str, Probe], harness: Any, name: str) -> None:
    p = probes[name]
    assert p.facts, "migration produced no leaves"
    assert set(p.facts) == set(harness.domain_leaves(Path(p.after.report["workspaceDir"])))


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_memory_search_finds_facts_in_memory_md_before_migration(probes: dict[str, Probe], name: str) -> None:
    p = probes[name]
    missing = {d: (w, p.before.searches.get(w)) for d, (w, _) in p.facts.items()
               if "MEMORY.md" not in p.before.searches.get(w, [])}
    assert not missing


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_memory_search_finds_facts_in_their_leaf_after_migration(probes: dict[str, Probe], name: str) -> None:
    p = probes[name]
    missing = {d: (w, leaf, p.after.searches.get(w)) for d, (w, leaf) in p.facts.items()
               if leaf not in p.after.searches.get(w, [])}
    assert not missing
