"""Rollback: git revert of the migration commit, refused (tree untouched) when it would conflict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner, Result

from bonsai_git.cli import main
from support import corpus_bytes, git, snapshot

SOURCE = corpus_bytes("17-crlf-line-endings.md")
MakeRepo = Callable[..., Path]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def migrated(make_repo: MakeRepo) -> Path:
    repo = make_repo(SOURCE)
    assert run("migrate", "-C", str(repo), "--force").exit_code == 0
    return repo


def test_rollback_restores_memory_byte_for_byte(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    migration = git(repo, "rev-parse", "HEAD").strip()
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert f"Reverted {migration[:12]}" in result.stdout
    assert (repo / "MEMORY.md").read_bytes() == SOURCE
    assert not (repo / "memory").exists()
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "-1", "--format=%s").startswith('Revert "bonsai: migrate MEMORY.md')


def test_rollback_after_unrelated_commits(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / "notes.txt").write_text("later work\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-qm", "later")
    assert run("rollback", "-C", str(repo)).exit_code == 0
    assert (repo / "MEMORY.md").read_bytes() == SOURCE
    assert (repo / "notes.txt").read_text() == "later work\n"


def test_rollback_of_a_named_commit(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert run("rollback", "-C", str(repo), sha[:10]).exit_code == 0


def test_rollback_refuses_when_the_revert_would_conflict(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    leaf = next((repo / "memory" / "domains" / "business").glob("[!_]*.md"))
    leaf.write_bytes(leaf.read_bytes() + b"edited after the migration\r\n")
    git(repo, "commit", "-qam", "edit a leaf")
    before = snapshot(repo)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 3
    assert "would conflict with later commits that changed" in result.stderr
    assert leaf.relative_to(repo).as_posix() in result.stderr
    assert snapshot(repo) == before


def test_rollback_refuses_without_a_migration(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 3 and "no migration commit to revert" in result.stderr
    assert run("rollback", "-C", str(repo), "HEAD").exit_code == 3
    assert snapshot(repo) == before


def test_rollback_refuses_with_local_changes_to_migrated_files(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / "MEMORY.md").write_bytes(b"scribble\n")
    before = snapshot(repo)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 3 and "MEMORY.md: has uncommitted changes" in result.stderr
    assert snapshot(repo) == before
