"""Rollback: git revert of the migration commit, refused (tree untouched) when it would conflict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git.cli import main
from support import bonsai_untouched, commit, corpus_bytes, git, snapshot

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
    commit(repo, "later", "notes.txt")
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
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3
    edit = git(repo, "rev-parse", "HEAD").strip()[:12]
    assert f"would conflict with 1 later commit that changed its files: {edit} edit a leaf." in result.stderr
    assert "Nothing was changed" in result.stderr and "then run bonsai-git rollback again" in result.stderr
    assert result.stderr.count("\n") == 1


USER_DIFF_CONFIG = (("color.ui", "always"), ("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"),
                    ("diff.external", "echo"), ("color.diff", "always"), ("apply.whitespace", "error"))


@pytest.mark.parametrize(("key", "value"), USER_DIFF_CONFIG)
def test_rollback_ignores_the_users_diff_settings(make_repo: MakeRepo, key: str, value: str) -> None:
    repo = migrated(make_repo)
    git(repo, "config", key, value)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE
    assert git(repo, "status", "--porcelain") == ""


def test_rollback_with_every_diff_setting_at_once_still_refuses_a_conflict(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    for key, value in USER_DIFF_CONFIG:
        git(repo, "config", key, value)
    leaf = next((repo / "memory" / "domains" / "business").glob("[!_]*.md"))
    leaf.write_bytes(leaf.read_bytes() + b"edited after the migration\r\n")
    git(repo, "commit", "-qam", "edit a leaf")
    before = snapshot(repo)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 3 and "would conflict with 1 later commit" in result.stderr
    assert result.stderr.count("\n") == 1 and snapshot(repo) == before
    git(repo, "revert", "--no-edit", "HEAD")
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE


def test_rollback_asks_for_the_revert_chain_once(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from bonsai_git import rollback

    repo = migrated(make_repo)
    leaf = next((repo / "memory" / "domains" / "business").glob("[!_]*.md"))
    leaf.write_bytes(leaf.read_bytes() + b"edited after the migration\r\n")
    git(repo, "commit", "-qam", "edit a leaf")
    calls: list[str] = []
    real = rollback.revert_chain
    monkeypatch.setattr(rollback, "revert_chain", lambda ctx, sha: calls.append(sha) or real(ctx, sha))
    assert run("rollback", "-C", str(repo)).exit_code == 3  # the conflict path used to ask twice
    assert len(calls) == 1


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
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3 and "MEMORY.md: has uncommitted changes" in result.stderr


def test_rollback_conflict_lists_at_most_five_later_commits(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    migration = git(repo, "rev-parse", "HEAD").strip()
    (repo / "notes.txt").write_text("unrelated\n")
    commit(repo, "unrelated work", "notes.txt")
    leaf = next((repo / "memory" / "domains" / "business").glob("[!_]*.md"))
    for n in range(7):
        leaf.write_bytes(leaf.read_bytes() + f"edit {n}\r\n".encode())
        git(repo, "commit", "-qam", f"edit {n}")
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3
    assert f"reverting {migration[:12]} would conflict with 7 later commits" in result.stderr
    assert "edit 6;" in result.stderr and "edit 2 (+2 more)" in result.stderr
    assert "edit 1" not in result.stderr and "unrelated work" not in result.stderr


def test_second_rollback_says_already_reverted(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    migration = git(repo, "rev-parse", "HEAD").strip()
    assert run("rollback", "-C", str(repo)).exit_code == 0
    revert = git(repo, "rev-parse", "HEAD").strip()
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3
    assert result.stderr == f"bonsai-git: {migration[:12]} is already reverted by {revert[:12]}; nothing to do\n"
    # still so after later commits, also to MEMORY.md, and when the commit is named
    (repo / "MEMORY.md").write_bytes(SOURCE + b"a new line\r\n")
    git(repo, "commit", "-qam", "the agent writes on")
    for args in ((), (migration[:10],)):
        result = run("rollback", "-C", str(repo), *args)
        assert result.exit_code == 3 and f"already reverted by {revert[:12]}" in result.stderr


def test_rollback_after_a_revert_of_the_revert_reverts_again(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    migrated_tree = snapshot(repo)["files"]
    assert run("rollback", "-C", str(repo)).exit_code == 0
    git(repo, "revert", "--no-edit", "HEAD")  # the migration is back
    assert snapshot(repo)["files"] == migrated_tree
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE and not (repo / "memory").exists()
    assert "already reverted by" in run("rollback", "-C", str(repo)).stderr


def test_rollback_refuses_when_the_migration_was_undone_by_hand(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    migration = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "rm", "-rq", "memory")
    (repo / "MEMORY.md").write_bytes(SOURCE)
    git(repo, "commit", "-qam", "undo the split by hand")
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3 and f"{migration[:12]} is already undone" in result.stderr


def squash_of_a_migration_branch(make_repo: MakeRepo, *later: str) -> Path:
    """main squash-merges a branch that migrated and then made the `later` changes ("leaf", "agents"),
    with GitHub's default squash message: the branch's messages as bullets, the trailers mid-body."""
    repo = make_repo(SOURCE)
    put_file(repo, "AGENTS.md", "be kind\n")
    commit(repo, "agents", "AGENTS.md")
    git(repo, "checkout", "-q", "-b", "work")
    assert run("migrate", "-C", str(repo), "--force").exit_code == 0
    messages = [git(repo, "log", "-1", "--format=%B").strip()]
    if "leaf" in later:
        leaf = next((repo / "memory" / "domains" / "business").glob("[!_]*.md"))
        leaf.write_bytes(leaf.read_bytes() + b"edited after the migration\r\n")
        assert run("reindex", "-C", str(repo)).exit_code == 0
        git(repo, "commit", "-qam", "edit a leaf")
        messages.append("edit a leaf")
    if "agents" in later:
        put_file(repo, "AGENTS.md", "be kind\nand brief\n")
        git(repo, "commit", "-qam", "agents: be brief")
        messages.append("agents: be brief")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "work")
    body = "\n\n".join(f"* {m}" for m in messages)
    git(repo, "commit", "-q", "-m", f"Memory tree (#7)\n\n{body}")
    return repo


def put_file(repo: Path, name: str, text: str) -> bool:
    (repo / name).write_text(text)
    return True


@pytest.mark.parametrize("later", [("leaf",), ("agents",), ("leaf", "agents")])
def test_rollback_refuses_a_squash_holding_more_than_the_migration(make_repo: MakeRepo, later: tuple[str, ...]) -> None:
    repo = squash_of_a_migration_branch(make_repo, *later)
    assert "\nBonsai-Migration: 1\n" in git(repo, "log", "-1", "--format=%B")  # mid-body, GitHub style
    result = bonsai_untouched(repo, "rollback", "-C", str(repo))
    assert result.exit_code == 3, result.stderr
    squash = git(repo, "rev-parse", "HEAD").strip()[:12]
    assert result.stderr.startswith(f"bonsai-git: {squash} holds more than a migration: ")
    if "agents" in later:
        assert "AGENTS.md changed (not a file migrate writes)" in result.stderr
    if "leaf" in later:
        assert "memory/domains/business/" in result.stderr and "is not a section of the original" in result.stderr
    assert "run `bonsai-git flatten`" in result.stderr and result.stderr.count("\n") == 1


def test_rollback_reverts_a_squash_that_is_exactly_the_migration(make_repo: MakeRepo) -> None:
    repo = squash_of_a_migration_branch(make_repo)
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE and not (repo / "memory").exists()


def test_rollback_refuses_a_named_merge_commit(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    git(repo, "checkout", "-q", "-b", "work")
    assert run("migrate", "-C", str(repo), "--force").exit_code == 0
    git(repo, "checkout", "-q", "main")
    put_file(repo, "notes.txt", "main's work\n")
    commit(repo, "notes", "notes.txt")
    git(repo, "merge", "-q", "--no-ff", "work", "-m", "Merge work\n\nBonsai-Migration: 1")
    result = bonsai_untouched(repo, "rollback", "-C", str(repo), "HEAD")
    assert result.exit_code == 3
    assert "is a merge commit, not the migration itself" in result.stderr and "bonsai-git flatten" in result.stderr
    assert run("rollback", "-C", str(repo)).exit_code == 0  # the migration commit itself, found by its trailer
    assert (repo / "MEMORY.md").read_bytes() == SOURCE and (repo / "notes.txt").exists()


def test_rollback_of_a_migration_under_an_encrypting_filter(make_repo: MakeRepo) -> None:
    """Stored blobs are not the text (rot13 stands in for git-crypt): the content check reads them filtered."""
    repo = make_repo(None)
    rot13 = "tr A-Za-z N-ZA-Mn-za-m"
    for key, value in (("filter.rot.clean", rot13), ("filter.rot.smudge", rot13), ("filter.rot.required", "true")):
        git(repo, "config", key, value)
    put_file(repo, ".gitattributes", "MEMORY.md filter=rot\nmemory/** filter=rot\n")
    (repo / "MEMORY.md").write_bytes(SOURCE)
    commit(repo, "memory")
    assert git(repo, "cat-file", "blob", "HEAD:MEMORY.md").encode() != SOURCE  # really stored rot13'd
    assert run("migrate", "-C", str(repo), "--force").exit_code == 0
    result = run("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE
