"""Shallow clones (`git clone --depth 1`, CI's fetch-depth 1): commands that need history say so and
what to fetch; checks of one tree work as usual (history.py, issue 22)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import BONSAI, MakeRepo, bonsai, bonsai_untouched, commit, corpus_bytes, git

SOURCE = corpus_bytes("17-crlf-line-endings.md")
ADVICE = "run `git fetch --unshallow` (or `git fetch --deepen=<commits>`)"


def shallow_clone(make_repo: MakeRepo, tmp_path: Path, *, later_commit: bool) -> Path:
    """A migrated workspace (plus one later commit when `later_commit`) cloned with --depth 1."""
    repo = make_repo(SOURCE)
    assert bonsai("migrate", "-C", str(repo), "--force").exit_code == 0
    if later_commit:
        (repo / "notes.txt").write_text("later\n")
        commit(repo, "later work", "notes.txt")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    return clone


@pytest.mark.parametrize("later_commit", [False, True], ids=["migration-is-the-cut", "migration-not-fetched"])
def test_rollback_in_a_shallow_clone_says_what_to_fetch(make_repo: MakeRepo, tmp_path: Path, later_commit: bool) -> None:
    clone = shallow_clone(make_repo, tmp_path, later_commit=later_commit)
    result = bonsai_untouched(clone, "rollback", "-C", str(clone))
    assert result.exit_code == 3
    assert "this is a shallow clone;" in result.stderr and ADVICE in result.stderr
    assert result.stderr.count("\n") == 1


def test_rollback_works_after_unshallow(make_repo: MakeRepo, tmp_path: Path) -> None:
    clone = shallow_clone(make_repo, tmp_path, later_commit=True)
    git(clone, "fetch", "-q", "--unshallow")
    result = bonsai("rollback", "-C", str(clone))
    assert result.exit_code == 0, result.stderr
    assert (clone / "MEMORY.md").read_bytes() == SOURCE


@pytest.mark.parametrize("args", [("flatten",), ("flatten", "--dry-run"), ("regroup", "--all", "--dry-run"),
                                  ("purge", "--dry-run")])
def test_history_commands_refuse_in_a_shallow_clone(make_repo: MakeRepo, tmp_path: Path, args: tuple[str, ...]) -> None:
    clone = shallow_clone(make_repo, tmp_path, later_commit=True)
    result = bonsai_untouched(clone, *args, "-C", str(clone))
    assert result.exit_code == 3, result.output
    assert "this is a shallow clone;" in result.stderr and ADVICE in result.stderr


def test_checks_of_one_tree_work_in_a_shallow_clone(make_repo: MakeRepo, tmp_path: Path) -> None:
    clone = shallow_clone(make_repo, tmp_path, later_commit=True)
    assert bonsai("reindex", "-C", str(clone), "--check").exit_code == 0
    hook = subprocess.run([BONSAI + "-hook", "--check"], cwd=clone, capture_output=True, text=True)
    assert hook.returncode == 0, hook.stderr
    status = bonsai("status", "-C", str(clone))
    assert status.exit_code == 0, status.stdout
    assert "note: shallow clone: leaf ages (old general leaves, archived files due for purge)" in status.stdout
    assert ADVICE in status.stdout
    reflect = bonsai("reflect", "-C", str(clone))
    assert reflect.exit_code == 0 and "note: shallow clone: leaf ages" in reflect.stderr
    notes = json.loads(bonsai("status", "-C", str(clone), "--json").stdout)["notes"]
    assert any(n.startswith("shallow clone:") for n in notes)


def test_status_of_a_full_clone_has_no_shallow_note(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    assert bonsai("migrate", "-C", str(repo), "--force").exit_code == 0
    assert "shallow" not in bonsai("status", "-C", str(repo)).stdout
