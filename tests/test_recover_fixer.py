"""Recovery restores a whole state, never a mix, even when a commit hook rewrote our files.

A fixer hook (like pre-commit's trailing-whitespace: rewrites every staged file, then fails the
commit) is installed; the migration is killed at every step, or from inside the hook right after
the fix.  `migrate --recover` must give back either the original MEMORY.md bytes with no leaves,
or the complete finished tree; never the fixer's trunk with the leaves deleted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import git, snapshot
from test_journal import PLANNED, SOURCE, MakeRepo, bonsai, hook, killed, run

# Rewrites each staged file in place (a trailing space on every line), as a whitespace fixer does.
FIX = "for f in $(git diff --cached --name-only); do sed -i 's/$/ /' \"$f\"; done"
# bonsai-git is the parent of the `git commit` that runs this hook (field 4 of /proc/<git>/stat).
KILL_BONSAI = "kill -9 $(cut -d' ' -f4 /proc/$PPID/stat)"


def assert_whole(repo: Path, before: dict[str, object]) -> str:
    """Recover, then: the original state exactly, or the complete finished migration. Returns which."""
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert not (repo / ".git" / "bonsai" / "journal.json").exists()
    if snapshot(repo) == before:
        assert (repo / "MEMORY.md").read_bytes() == SOURCE and not (repo / "memory").exists()
        return "original"
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")
    for path, text in PLANNED.items():
        assert (repo / path).read_bytes() == text.encode(), path
    return "finished"


@pytest.mark.parametrize("point", ["journal", "write:1", "write:9", f"write:{len(PLANNED)}", "verified", "staged",
                                   "restore"])
def test_recover_with_a_fixer_hook_killed_at_every_step(make_repo: MakeRepo, point: str) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", FIX + "; exit 1")
    before = snapshot(repo)
    proc = bonsai(repo, "migrate", crash_at=point)
    assert killed(proc), (proc.returncode, proc.stderr)
    assert assert_whole(repo, before) == "original"


def test_recover_after_a_kill_while_the_fixer_hook_ran(make_repo: MakeRepo) -> None:
    """The issue's case: killed while the fixer had rewritten the trunk and some leaves."""
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", FIX + "; " + KILL_BONSAI + "; exit 1")
    before = snapshot(repo)
    proc = bonsai(repo, "migrate")
    assert killed(proc), (proc.returncode, proc.stderr)
    assert (repo / "MEMORY.md").read_bytes() != SOURCE  # the fixer's trunk is on disk
    record = json.loads((repo / ".git" / "bonsai" / "journal.json").read_text())
    assert record["entries"]
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert snapshot(repo) == before  # the original bytes, no leaves: not the fixer's trunk
    rescued = repo / ".git" / "bonsai-rescued"
    assert (rescued / "MEMORY.md").read_bytes().endswith(b" \n")  # the fixer's bytes kept aside, not lost
    assert "copy of those bytes kept under" in result.stderr


def test_recover_after_a_kill_while_a_passing_fixer_ran(make_repo: MakeRepo) -> None:
    """A fixer that rewrites the working tree but lets the commit through: the commit holds our bytes."""
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", FIX + "; " + KILL_BONSAI + "; exit 0")
    before = snapshot(repo)
    assert killed(bonsai(repo, "migrate"))
    assert assert_whole(repo, before) in ("original", "finished")
    assert git(repo, "status", "--porcelain") == ""


def test_recover_carries_an_agent_append_made_after_the_crash(make_repo: MakeRepo) -> None:
    """The agent appended to the new trunk after the kill: recovery puts the original back plus that text."""
    repo = make_repo(SOURCE)
    assert killed(bonsai(repo, "migrate", crash_at="verified"))
    with (repo / "MEMORY.md").open("ab") as fh:
        fh.write(b"\n## Written after the crash\n\nkeep me\n")
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE + b"\n## Written after the crash\n\nkeep me\n"
    assert not (repo / "memory").exists()
