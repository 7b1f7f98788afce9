"""The migration commit is what we say it is (issue 21, item 6): a commit-msg hook that drops our
`Bonsai-*` trailers gets the commit undone (exit 1, tree restored, HEAD back, the hook named), and a
migration is known by its content as well as its trailers, so rollback and flatten find one whose
trailers are gone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bonsai_git.migration_commit import (
    find_migration, is_migration_by_content, is_migration_commit, missing_trailers, trailer_lines,
)
from living_tree import LIVING, PRICING, MakeRepo, migrated
from support import bonsai, bonsai_untouched, git, put

STRIP_BONSAI = "#!/bin/sh\nsed -i '/^Bonsai-/d' \"$1\"\n"


def _hook(repo: Path, name: str, script: str) -> Path:
    hook = repo / ".git" / "hooks" / name
    hook.write_text(script)
    os.chmod(hook, 0o755)
    return hook


def _drop_trailers(repo: Path) -> str:
    """Rewrite HEAD's message without its Bonsai-* lines (as an old commit-msg hook left it); return the new sha."""
    message = git(repo, "log", "-1", "--format=%B")
    kept = "\n".join(line for line in message.splitlines() if not line.startswith("Bonsai-")) + "\n"
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", kept)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize("name", ["commit-msg", "prepare-commit-msg"])
def test_migrate_undoes_a_commit_whose_trailers_a_message_hook_dropped(make_repo: MakeRepo, name: str) -> None:
    repo = make_repo(LIVING)
    _hook(repo, name, STRIP_BONSAI)
    result = bonsai_untouched(repo, "migrate", "--force", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "dropped the trailer Bonsai-Migration:" in result.stderr
    assert f".git/hooks/{name}" in result.stderr
    assert "the commit was undone and the tree restored" in result.stderr
    assert not (repo / ".git/bonsai/journal.json").exists()
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


def test_a_hook_that_only_adds_a_trailer_is_fine(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    _hook(repo, "commit-msg", "#!/bin/sh\nprintf 'Signed-off-by: A <a@example.com>\\n' >> \"$1\"\n")
    result = bonsai("migrate", "--force", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")


def test_move_undoes_a_commit_whose_op_trailer_was_dropped(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    head = git(repo, "rev-parse", "HEAD")
    _hook(repo, "commit-msg", STRIP_BONSAI)
    result = bonsai_untouched(repo, "move", PRICING, "projects", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "dropped the trailer Bonsai-Op:" in result.stderr
    assert git(repo, "rev-parse", "HEAD") == head


def test_rollback_finds_a_migration_by_its_content(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    sha = _drop_trailers(repo)
    assert is_migration_by_content(repo, sha, "MEMORY.md")
    assert find_migration(repo, "MEMORY.md") == sha
    result = bonsai("rollback", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "MEMORY.md").read_text() == LIVING
    assert not (repo / "memory").exists()


def test_flatten_finds_the_original_without_a_source_trailer(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    _drop_trailers(repo)
    result = bonsai("flatten", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "no usable migration commit" not in result.stdout
    assert (repo / "MEMORY.md").read_text() == LIVING


def test_the_newest_migration_wins_whichever_way_it_is_known(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    first = git(repo, "rev-parse", "HEAD").strip()  # with trailers
    assert bonsai("flatten", "-C", str(repo)).exit_code == 0
    assert bonsai("migrate", "--force", "-C", str(repo)).exit_code == 0
    second = _drop_trailers(repo)
    assert find_migration(repo, "MEMORY.md") == second
    git(repo, "reset", "-q", "--hard", first)
    assert find_migration(repo, "MEMORY.md") == first


def test_ordinary_commits_are_not_migrations(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    root = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    put(repo, {PRICING: "## Pricing\n\nMugs $20.\n"}, "edit a leaf")
    edit = git(repo, "rev-parse", "HEAD").strip()
    for sha in (root, edit):
        assert not is_migration_by_content(repo, sha, "MEMORY.md")
        assert not is_migration_commit(repo, sha, "MEMORY.md")
    assert not is_migration_by_content(repo, edit, "nowhere/MEMORY.md")
    result = bonsai("rollback", edit, "-C", str(repo))
    assert result.exit_code == 3 and "not a bonsai-git migration commit" in result.stderr


def test_trailer_lines_and_missing_trailers() -> None:
    message = "bonsai: migrate\n\nbody: 1 leaf\n\nBonsai-Migration: 1\nBonsai-Sections: 3\n"
    assert trailer_lines(message) == ("Bonsai-Migration: 1", "Bonsai-Sections: 3")
    assert missing_trailers("x\n\nBonsai-Migration: 1\nSigned-off-by: a\nBonsai-Sections: 3\n",
                            trailer_lines(message)) == ()
    assert missing_trailers("x\n\nBonsai-Migration: 1\n", trailer_lines(message)) == ("Bonsai-Sections: 3",)
    assert missing_trailers("x\r\n\r\nBonsai-Migration: 1\r\nBonsai-Sections: 3\r\n", trailer_lines(message)) == ()


def test_a_message_without_a_trailer_paragraph_has_none() -> None:
    assert trailer_lines("bonsai: just a subject\n") == ()
