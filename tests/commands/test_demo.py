"""`bonsai-git demo`: a migrated sample workspace anyone can run, with no git identity; a non-empty folder is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import bonsai, git


def test_demo_works_without_any_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.gitconfig either
    target = tmp_path / "demo"
    result = bonsai("demo", str(target), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "Boot tokens (loaded at every session start): 6,084 -> " in result.stdout
    assert "bonsai-git rollback -C" in result.stdout
    assert git(target, "log", "--format=%an", "-1").strip() == "bonsai-git demo"
    assert git(target, "status", "--porcelain") == ""
    assert bonsai("rollback", "-C", str(target)).exit_code == 0


def test_demo_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("mine\n")
    result = bonsai("demo", str(tmp_path))
    assert result.exit_code == 3 and "exists and is not empty" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["x"]
