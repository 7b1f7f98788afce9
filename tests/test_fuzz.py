"""Fuzzing: arbitrary bytes and arbitrary Markdown either migrate losslessly or are refused cleanly.

Never a traceback (exit 4), never exit 1 on mere input, never a partial tree.  The planner gets
many examples (it is pure and fast); the CLI gets a few, each in a real git repository, and a
couple of runs go through a real `bonsai-git` process.  All use the registered "ci" hypothesis
profile from conftest (derandomized, bounded), so CI time is predictable and failures reproduce.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bonsai_git.cli import main
from bonsai_git.core.config import Config
from bonsai_git.core.errors import BadInput
from bonsai_git.core.plan import plan_migration, verify_placements
from bonsai_git.core.secretscan import find_secrets
from bonsai_git.preconditions import memory_text as _memory_text
from bonsai_git.core.layout import TRUNK, parse_trunk
from support import git, snapshot

SAFE_PATH = re.compile(r"^(MEMORY\.md|memory/_index\.md|memory/dates\.md|memory/domains/[a-z0-9-]+/(_index|[^/._][^/]*)\.md)$")
_FRAGMENTS = [
    "## Services", "## ", "##", "#", "# Title", "### Sub", "Heading", "---", "===", "```", "~~~", "```python",
    "    ## indented code", "> ## quoted", "- ## listed", "1. item", "<div>", "</div>", "<!-- ## hidden -->",
    "<!-- bonsai:begin x -->", "<!-- bonsai:end -->", "\ufeff", "---\ntitle: x\n---", "## 重要日期", "## 📌 Pinned rules",
    "## con", "## ../../x", "## /etc/passwd", "## C:\\x", "## .git", "## Dates", "## Birthday", "## 2026-03-14",
    "password: hunter2hunter2", "key sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8", "| a | b |", "|---|---|", "\t## tab",
    "\u2028", "\x0b", "\x85", "Ünïcödé text", "💾 emoji line", "\\## escaped", "Setext\n---",
]
_LINE = st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=40))
_NEWLINE = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ""])
MARKDOWN = st.lists(st.tuples(_LINE, _NEWLINE), max_size=40).map(lambda parts: "".join(a + b for a, b in parts))
MEMORY_BYTES = st.one_of(
    MARKDOWN.map(lambda t: t.encode("utf-8")),
    st.binary(max_size=300),
    st.tuples(MARKDOWN, st.binary(min_size=1, max_size=4), MARKDOWN).map(lambda t: t[0].encode() + t[1] + t[2].encode()),
)


def _rebuilt(files: dict[str, str], original: str) -> None:
    plan = plan_migration(original, Config())
    verify_placements(original, files, plan.placements)


# --- the planner: pure, many examples ----------------------------------------------------------------

@given(st.one_of(MARKDOWN, st.text()))
def test_plan_migration_is_lossless_and_safe_on_any_text(text: str) -> None:
    plan = plan_migration(text, Config())
    files = plan.file_map()
    pieces = "".join(files[p.path][p.offset : p.offset + p.length] for p in plan.placements)
    assert pieces == text
    assert all(SAFE_PATH.match(path) for path in files), sorted(files)
    trunk = parse_trunk(files[TRUNK])
    assert trunk is not None
    for path, content in files.items():
        if path.endswith("_index.md"):
            assert find_secrets(content, aggressive=True) == (), path
    assert find_secrets(trunk.block, aggressive=True) == ()


@given(MEMORY_BYTES)
def test_any_bytes_are_refused_in_one_line_or_planned_losslessly(data: bytes) -> None:
    try:
        text = _memory_text(data, "MEMORY.md")
    except BadInput as exc:
        assert exc.exit_code == 3
        assert exc.message.startswith("MEMORY.md: ") and "\n" not in exc.message
        return
    plan = plan_migration(text, Config())
    verify_placements(text, plan.file_map(), plan.placements)
    assert b"\0" not in data and text.strip()


# --- the CLI: a few examples, each in a real repository ------------------------------------------------

def _repo_with(data: bytes, root: Path) -> Path:
    repo = root / "ws"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "MEMORY.md").write_bytes(data)
    git(repo, "add", "MEMORY.md")
    git(repo, "commit", "-q", "-m", "memory")
    return repo


def _check_outcome(repo: Path, data: bytes, code: int, stdout: str, stderr: str, before: dict[str, object]) -> None:
    assert code in (0, 3), (code, stdout, stderr)
    event(f"exit {code}")
    assert "Traceback" not in stdout + stderr
    if code == 3:
        assert stderr.startswith("bonsai-git: ") and stderr.count("\n") == 1, stderr
        assert snapshot(repo) == before
        return
    assert git(repo, "status", "--porcelain") == ""
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")
    files = {p: (repo / p).read_bytes().decode("utf-8") for p in git(repo, "ls-files", "-z").split("\0") if p}
    _rebuilt(files, data.decode("utf-8"))
    assert not (repo / ".git" / "bonsai").exists()


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(MEMORY_BYTES)
def test_cli_migrates_or_refuses_cleanly(data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="bonsai-fuzz-") as tmp:
        repo = _repo_with(data, Path(tmp))
        before = snapshot(repo)
        result = CliRunner().invoke(main, ["migrate", "--force", "-C", str(repo)])
        _check_outcome(repo, data, result.exit_code, result.stdout, result.stderr, before)


@settings(max_examples=3, suppress_health_check=[HealthCheck.too_slow])
@given(MEMORY_BYTES)
def test_cli_process_migrates_or_refuses_cleanly(data: bytes) -> None:
    exe = Path(sys.executable).with_name("bonsai-git")
    with tempfile.TemporaryDirectory(prefix="bonsai-fuzz-") as tmp:
        repo = _repo_with(data, Path(tmp))
        before = snapshot(repo)
        proc = subprocess.run([str(exe), "migrate", "--force", "-C", str(repo)], capture_output=True, text=True)
        _check_outcome(repo, data, proc.returncode, proc.stdout, proc.stderr, before)
