"""What the real Codex CLI and Claude Code load at session start, before and after `bonsai-git connect`.

Per runtime: after connect the trunk's generated block is in the boot request; a branch index read
through the runtime's own tool comes back; `connect --undo` gives the files back byte for byte (and
the block is gone from the boot request again); and on over-limit files the caps `bonsai-git
status` reports are where the real runtime cuts.  Every run is offline (harness.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bonsai_git.core.connect import trunk_block_lines
from bonsai_git.core.layout import parse_trunk
from living_tree import LIVING, MakeRepo, commit_all, migrated, write
from support import git

pytestmark = pytest.mark.clients

INDEX = "memory/domains/business/_index.md"


def _h() -> Any:
    import sys

    return sys.modules["bonsai_clients_harness"]


def _block_lines(ws: Path) -> list[str]:
    """The trunk block's own lines (markers excluded: Claude Code strips comment lines)."""
    parts = parse_trunk((ws / "MEMORY.md").read_text(encoding="utf-8"))
    assert parts is not None
    return trunk_block_lines(parts.block)


def _status(ws: Path, profile: str) -> dict[str, Any]:
    proc = _h().bonsai("status", "--profile", profile, "--json", cwd=ws)
    return json.loads(proc.stdout)


def _files(ws: Path, *names: str) -> dict[str, bytes | None]:
    return {n: (ws / n).read_bytes() if (ws / n).exists() else None for n in names}


@pytest.mark.parametrize(("runtime", "file", "boot_args"), [
    ("codex", "AGENTS.md", ()),
    ("claude", "CLAUDE.md", ("--automem", "none")),  # no autoMemoryDirectory: only CLAUDE.md can carry it
])
def test_connect_puts_the_trunk_block_into_the_boot_request_and_undo_takes_it_out(
        clients: Any, make_repo: MakeRepo, runtime: str, file: str, boot_args: tuple[str, ...]) -> None:
    h = _h()
    ws = migrated(make_repo)
    write(ws, file, "# House rules\n\nAnswer briefly.\n")
    commit_all(ws, "the user's instruction file")
    before = _files(ws, "AGENTS.md", "CLAUDE.md")
    lines = _block_lines(ws)
    domain_lines = [line for line in lines if line.startswith("- ")]

    unconnected = h.boot(clients, runtime, ws, *boot_args, "--read", INDEX)
    assert not any(unconnected.carries(line) for line in domain_lines), unconnected.output
    assert _status(ws, runtime)["boot"]["loaded"]["loaded"] is False

    assert h.bonsai("connect", runtime, cwd=ws).returncode == 0
    commit_all(ws, f"connect {runtime}")
    connected = h.boot(clients, runtime, ws, *boot_args, "--read", INDEX)
    missing = [line for line in lines if not connected.carries(line)]
    assert not missing, f"not in {runtime}'s boot request: {missing}\n{connected.output}"
    assert connected.carries("Answer briefly."), "the user's own text is loaded too"
    assert connected.read_ok, f"{INDEX} read through {runtime}'s own tool did not come back:\n{connected.output}"
    status = _status(ws, runtime)
    assert status["boot"]["loaded"]["loaded"] is True and not any(w["kind"] == "not_loaded" for w in status["warnings"])

    assert h.bonsai("connect", runtime, "--undo", cwd=ws).returncode == 0
    assert _files(ws, "AGENTS.md", "CLAUDE.md") == before
    undone = h.boot(clients, runtime, ws, *boot_args)
    assert not any(undone.carries(line) for line in domain_lines)


def test_codex_sees_a_new_domain_after_the_hook_commit_and_nothing_new_after_a_leaf_edit(
        clients: Any, make_repo: MakeRepo) -> None:
    h = _h()
    ws = migrated(make_repo)
    assert h.bonsai("connect", "codex", cwd=ws).returncode == 0
    assert h.bonsai("install-hook", cwd=ws).returncode == 0
    assert commit_all(ws, "connect").returncode == 0
    agents = (ws / "AGENTS.md").read_bytes()
    write(ws, "memory/domains/business/pricing.md", "## Pricing\n\nWholesale mugs $20 from April.\n")
    commit_all(ws, "leaf edit")
    assert commit_all(ws, "leaf edit").returncode == 0
    assert (ws / "AGENTS.md").read_bytes() == agents  # the quiet trunk: a leaf edit changes nothing
    write(ws, "memory/domains/gardening/roses.md", "## Roses\n\nPrune the climbing roses in March.\n")
    commit_all(ws, "new domain")
    assert commit_all(ws, "new domain").returncode == 0 and git(ws, "status", "--porcelain") == ""
    seen = h.boot(clients, "codex", ws, "--read", "memory/domains/gardening/_index.md")
    assert seen.carries("- gardening") and seen.read_ok, seen.output


def test_codex_cut_is_where_status_says_at_the_root_and_in_a_fleet_folder(clients: Any, make_repo: MakeRepo) -> None:
    h = _h()
    ws = migrated(make_repo)
    write(ws, "AGENTS.md", "".join(f"AG L{i:05d} " + "a" * 47 + "\n" for i in range(1, 691)))  # 40,020 bytes
    commit_all(ws, "long AGENTS.md")
    assert h.bonsai("connect", "codex", cwd=ws).returncode == 0
    status = _status(ws, "codex")
    (agents,) = status["boot"]["files"]
    real = h.boot(clients, "codex", ws).rows["AGENTS.md"]
    assert (real.status, real.kept_bytes) == ("CUT", agents["injected_chars"]), real
    assert agents["injected_chars"] == 32_768 and status["boot"]["loaded"]["loaded"] is True

    fleet = make_repo(None)
    write(fleet, "AGENTS.md", "R" * 29_999 + "\n")
    write(fleet, "agent/MEMORY.md", LIVING)
    write(fleet, "agent/AGENTS.md", "".join(f"SUB L{i:05d} " + "s" * 40 + "\n" for i in range(1, 200)))
    commit_all(fleet, "fleet")
    assert h.bonsai("migrate", "--force", cwd=fleet / "agent").returncode == 0
    assert h.bonsai("connect", "codex", cwd=fleet / "agent").returncode == 0
    files = {f["name"]: f for f in _status(fleet / "agent", "codex")["boot"]["files"]}
    rows = h.boot(clients, "codex", fleet, "--cwd", "agent").rows
    assert rows["AGENTS.md"].status == "whole" and files["AGENTS.md"]["lost_chars"] == 0
    assert (rows["agent/AGENTS.md"].status, rows["agent/AGENTS.md"].kept_bytes) == (
        "CUT", files["agent/AGENTS.md"]["injected_chars"]), (rows, files)


@pytest.mark.parametrize("shape", ["lines", "chars"])
def test_claude_auto_memory_cut_is_where_status_says(clients: Any, make_repo: MakeRepo, shape: str) -> None:
    h = _h()
    if shape == "lines":  # 300 lines and whole-line comments among them: stripped first, then 200 lines
        body = "".join((f"<!-- note {i} -->\n" if i % 25 == 0 else "") + f"- MEM L{i:04d} a fact worth keeping\n"
                       for i in range(1, 301))
    else:  # 120 long lines of a 2-byte character: 25,000 chars (50,000 bytes), not 25,000 bytes
        body = "".join(f"- {i:03d} " + "é" * 240 + "\n" for i in range(1, 121))
    ws = make_repo("# Memory\n" + body)
    cc = _status(ws, "claude")["boot"]["claude_code"]
    real = h.boot(clients, "claude", ws).rows["MEMORY.md"]  # autoMemoryDirectory = the repository root
    assert real.status == "CUT", real
    kept_bytes = cc["bytes"] - cc["lost_bytes"]
    assert real.kept_lines == cc["lines"] - cc["lost_lines"], (real, cc)
    assert kept_bytes - 1 <= (real.kept_bytes or 0) <= kept_bytes, (real, cc)  # the kept text, last newline aside
    if shape == "lines":
        assert "stripped block HTML comments" in real.note and cc["stripped_lines"] == 12
    else:
        assert cc["lines"] < 200 and cc["lost_chars"] > 0
