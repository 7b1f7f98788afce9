"""The hook's freshness memo: a no-op run reads no leaf, and never hides a change.

Each test primes the memo with a fresh, committed tree, changes something (or nothing), and
checks the hook's verdict, output and files against the same run with the memo off
(BONSAI_GIT_NO_CACHE=1) in a twin repository: the memo may only make runs faster.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import bonsai_git.tree as tree
from bonsai_git.hook import run_hook
from living_tree import (
    CRON, FAMILY, PRICING, SCENARIOS, MakeRepo, commit_all, migrated, run, tree_files, write,
)
from support import git


def _primed(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo)
    assert run(["bonsai-git-hook"], repo).returncode == 0  # a full run finds it fresh: remembered
    assert (repo / ".git/bonsai-git/fresh").is_file()
    return repo


def test_noop_hook_reads_no_leaf_once_the_tree_is_known_fresh(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _primed(make_repo)
    reads: list[str] = []
    real = tree._read_bytes
    monkeypatch.setattr(tree, "_read_bytes", lambda path, name=None: reads.append(path) or real(path, name))
    assert run_hook(repo) == 0
    assert [p for p in reads if not p.endswith("/MEMORY.md")] == []  # the trunk alone: its markers name the workspace
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")  # the memo off: every leaf is read again
    assert run_hook(repo) == 0
    assert any(p.endswith(PRICING) for p in reads)


def _unstaged_edit(ws: Path) -> None:
    write(ws, PRICING, "## Pricing\n\nWholesale mugs $21 from May.\n")


def _staged_edit(ws: Path) -> None:
    _unstaged_edit(ws)
    git(ws, "add", PRICING)


def _config_change(ws: Path) -> None:
    write(ws, ".bonsai.toml", "[domains]\nfinance = [\"pricing\"]\n")


def _untracked_leaf(ws: Path) -> None:
    write(ws, "memory/domains/business/idea.md", "## Idea\n\nA mug subscription.\n")


def _stray_index(ws: Path) -> None:
    write(ws, "memory/domains/legal/_index.md", "# Legal Index\n")


def _index_edited_and_committed(ws: Path) -> None:
    write(ws, "memory/domains/business/_index.md", "# Business Index\n\nhand-edited\n")
    git(ws, "commit", "-qam", "edit an index by hand", "--no-verify")


def _same_bytes_rewritten(ws: Path) -> None:
    target = ws / CRON
    target.write_bytes(target.read_bytes())


def _symlinked_leaf(ws: Path) -> None:
    (ws / FAMILY).unlink()
    (ws / FAMILY).symlink_to("../business/pricing.md")
    git(ws, "add", "-A")


CHANGES: list[Callable[[Path], None]] = [
    *SCENARIOS, _unstaged_edit, _staged_edit, _config_change, _untracked_leaf, _stray_index,
    _index_edited_and_committed, _same_bytes_rewritten, _symlinked_leaf,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__.strip("_"))
def test_memo_never_hides_a_change(make_repo: MakeRepo, tmp_path: Path, change: Callable[[Path], None]) -> None:
    repo = _primed(make_repo)
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    shutil.rmtree(twin / ".git" / "bonsai-git")  # the twin has no memo, no cache
    change(repo)
    change(twin)
    with_memo = run(["bonsai-git-hook"], repo)
    without = run(["bonsai-git-hook"], twin, {"BONSAI_GIT_NO_CACHE": "1"})
    assert (with_memo.returncode, with_memo.stdout, with_memo.stderr) == (without.returncode, without.stdout, without.stderr)
    assert tree_files(repo) == tree_files(twin)
    again = run(["bonsai-git-hook"], repo)  # and a second run (the memo may now hold the new state) agrees too
    again_twin = run(["bonsai-git-hook"], twin, {"BONSAI_GIT_NO_CACHE": "1"})
    assert (again.returncode, again.stderr) == (again_twin.returncode, again_twin.stderr)


def test_memo_is_shared_by_a_fleet_and_skips_only_known_workspaces(make_repo: MakeRepo) -> None:
    repo = make_repo(None, name="fleet")
    for name in ("a", "b"):
        ws = repo / name
        ws.mkdir()
        (ws / "MEMORY.md").write_text(f"# {name}\n\n## Pricing\n\nMugs $18.\n\n## Family\n\nSam.\n", encoding="utf-8")
    assert commit_all(repo, "two flat memories").returncode == 0
    for name in ("a", "b"):
        assert run(["bonsai-git", "migrate", "--force", "-C", name], repo).returncode == 0
    assert run(["bonsai-git-hook"], repo).returncode == 0
    memo = (repo / ".git/bonsai-git/fresh").read_text(encoding="ascii").split()
    assert len(memo) == 2
    leaf = sorted(p for p in (repo / "b/memory/domains").rglob("*.md") if p.name != "_index.md")[0]
    leaf.write_text("## Pricing\n\nMugs $19.\n", encoding="utf-8")
    result = run(["bonsai-git-hook"], repo)
    assert result.returncode == 1
    assert f"wrote {leaf.parent.relative_to(repo).as_posix()}/_index.md" in result.stdout
    assert "a/memory" not in result.stdout


def test_the_code_version_covers_the_core_modules() -> None:
    """The renderers and rules live in bonsai_git/core/: a change there must miss the memo too."""
    from bonsai_git.freshness import _code_version

    assert "core/branches.py:" in _code_version() and "core/indexes.py:" in _code_version()
