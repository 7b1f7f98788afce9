"""The refusals before a tree-changing command writes (bonsai_git/preconditions.py), on real git repos.

Each check is asked directly here; tests/test_transaction.py, test_lifecycle.py and
test_rollback.py pin the same messages through the commands that ask for them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bonsai_git import preconditions
from bonsai_git.core.errors import BadInput, Refused
from bonsai_git.gitrepo import open_workspace, staged_paths, status_paths
from support import commit, git

MakeRepo = Callable[..., Path]
MEMORY = "# Memory\n\n## Tools\nUse ripgrep.\n"


def test_an_unborn_head_is_refused_with_the_commands_hint(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY, commit=False)
    ctx = open_workspace(repo)
    with pytest.raises(Refused, match=r"^HEAD has no commit yet; commit the workspace first$"):
        preconditions.check_clean_for_commit(ctx, ["memory"])
    with pytest.raises(Refused, match=r"^HEAD has no commit yet; commit MEMORY.md first"):
        preconditions.check_migration(ctx, allow_detached=False)


def test_an_operation_in_progress_is_refused(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    (repo / ".git" / "MERGE_HEAD").write_text(git(repo, "rev-parse", "HEAD"))
    ctx = open_workspace(repo)
    for check in (preconditions.refuse_operation_in_progress,
                  lambda c: preconditions.check_clean_for_commit(c, ["memory"]),
                  lambda c: preconditions.check_migration(c, allow_detached=False)):
        with pytest.raises(Refused, match=r"^a merge is in progress; finish or abort it first$"):
            check(ctx)


def test_staged_changes_are_refused_in_both_wordings(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    ctx = open_workspace(repo)
    with pytest.raises(Refused, match=r"^notes.md: staged changes \(1 path\(s\)\); commit or unstage them first$"):
        preconditions.check_clean_for_commit(ctx, ["memory"])
    with pytest.raises(Refused, match=r"^staged changes present; commit or unstage them before rolling back$"):
        preconditions.refuse_staged(staged_paths(ctx), before="rolling back")


def test_uncommitted_changes_count_only_under_the_areas_asked(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    (repo / "memory").mkdir()
    (repo / "memory" / "_index.md").write_text("index\n")
    commit(repo, "index")
    (repo / "elsewhere.md").write_text("unrelated\n")
    ctx = open_workspace(repo)
    preconditions.check_clean_for_commit(ctx, ["memory"])  # an unrelated untracked file: no refusal
    (repo / "memory" / "_index.md").write_text("edited\n")
    with pytest.raises(Refused, match=r"^memory/_index.md: has uncommitted changes; commit them \(the hook"):
        preconditions.check_clean_for_commit(ctx, ["memory"])
    dirty = [p for _xy, p in status_paths(ctx, "memory/_index.md")]
    with pytest.raises(Refused, match=r"^memory/_index.md: has uncommitted changes; commit or discard them before"):
        preconditions.refuse_dirty(dirty, "commit or discard them before rolling back")


def test_a_missing_identity_is_refused(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(MEMORY)
    ctx = open_workspace(repo)
    preconditions.check_identity(ctx)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    git(repo, "config", "user.useConfigOnly", "true")
    with pytest.raises(Refused, match=r"^git has no committer identity"):
        preconditions.check_identity(ctx)


def test_an_ignored_target_is_refused_before_any_write(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    (repo / ".gitignore").write_text("memory/\n")
    commit(repo, "ignore", ".gitignore")
    ctx = open_workspace(repo)
    with pytest.raises(Refused, match=r"^memory/domains/a/b.md: ignored by .gitignore:1 \(`memory/`\), so memory written there would never be "
                       r"committed; add the lines `!/memory/` and `!memory/\*\*` after it in .gitignore"):
        preconditions.check_committable(ctx, ["memory/domains/a/b.md"], "change")
    assert git(repo, "status", "--porcelain") == ""


def test_migrate_returns_the_trunk_text_and_notes_unrelated_paths(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    (repo / "scratch.txt").write_text("x\n")
    text, notes, blob = preconditions.check_migration(open_workspace(repo), allow_detached=False)
    assert text == MEMORY and blob == git(repo, "rev-parse", "HEAD:MEMORY.md").strip()
    assert notes == ["1 unrelated uncommitted path(s) left alone, e.g. scratch.txt"]
    git(repo, "checkout", "-q", "--detach")
    with pytest.raises(Refused, match=r"^HEAD is detached"):
        preconditions.check_migration(open_workspace(repo), allow_detached=False)
    assert preconditions.check_migration(open_workspace(repo), allow_detached=True)[0] == MEMORY


def test_memory_text_refuses_bytes_that_are_not_memory() -> None:
    assert preconditions.memory_text(b"# m\n", "MEMORY.md") == "# m\n"
    with pytest.raises(BadInput, match=r"^MEMORY.md: holds a NUL byte at byte offset 3"):
        preconditions.memory_text(b"# m\0", "MEMORY.md")
    with pytest.raises(BadInput, match=r"^MEMORY.md: is empty or only whitespace"):
        preconditions.memory_text(b" \n", "MEMORY.md")


# --- what one run asks git, and how often (issue 15: each git process costs 2-4 ms) -------------

CONFIG_VALUES = ["true", "TRUE", "yes", "On", "1", "2", "-1", "0", "false", "No", "off", "", " true ", "maybe", "0x1",
                 "0x0", "010", "00", "08", "1k", "0k", " 3", "3 ", "+0", "-0x10", "1kb"]


@pytest.mark.parametrize("value", [*CONFIG_VALUES, None])
def test_one_config_listing_reads_values_and_booleans_as_git_does(make_repo: MakeRepo, value: str | None) -> None:
    from bonsai_git.gitrepo import config_flag, config_value

    repo = make_repo("# Memory\n")
    with (repo / ".git" / "config").open("a", encoding="utf-8") as fh:  # None: the key alone, no `=`
        fh.write('[bonsai]\n\tsomeFlag\n' if value is None else f'[bonsai]\n\tsomeFlag = "{value}"\n')
        fh.write('[Bonsai "Sub.Case"]\n\tSomeKey = x\n')
    ctx = open_workspace(repo)
    as_bool = git(repo, "config", "--bool", "bonsai.someflag", check=False).strip() == "true"
    assert config_flag(ctx, "bonsai.someFlag") == as_bool
    assert config_value(ctx, "BONSAI.SOMEFLAG") == git(repo, "config", "--get", "bonsai.someFlag").rstrip("\n")
    assert config_value(ctx, "bonsai.Sub.Case.somekey") == "x"  # the subsection keeps its case, as in git
    assert config_value(ctx, "bonsai.sub.case.somekey") is None and config_value(ctx, "core.nothing") is None
    assert not config_flag(ctx, "core.nothing")


def test_a_plain_repository_asks_no_superproject_question_a_submodule_does(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n")
    assert open_workspace(repo).superproject is None
    outer = make_repo("# Outer\n", name="outer")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(repo), "agent")
    assert open_workspace(outer / "agent").superproject == outer.resolve()
    nested = outer / "nested"  # a plain repository inside another's work tree: git is asked, says none
    nested.mkdir()
    git(nested, "init", "-q")
    assert open_workspace(nested).superproject is None
