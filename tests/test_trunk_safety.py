"""The trunk's user text is never lost: quoted markers, text typed inside the block, Markdown that
looks like conflict markers, symlinked folders, and markers deleted by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git.cli import main
from bonsai_git.core.layout import END, find_conflict_marker, parse_trunk
from support import commit, git, snapshot

MakeRepo = Callable[..., Path]
TOPICS = "".join(f"## Topic {i}\n" + "word " * 40 + "\n" for i in range(30))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def migrated(make_repo: MakeRepo, memory: str) -> Path:
    repo = make_repo(memory)
    result = run("migrate", "-C", str(repo), "--force")
    assert result.exit_code == 0, result.stderr
    return repo


def test_a_quoted_begin_marker_in_pinned_text_is_kept(make_repo: MakeRepo) -> None:
    pinned = "## Pinned rules\nAlways be nice.\n```\n<!-- bonsai:begin example\n```\nMore pinned text that matters.\n\n"
    repo = migrated(make_repo, "# M\n\n" + pinned + TOPICS)
    assert run("reindex", "-C", str(repo), "--check").exit_code == 0
    assert run("reindex", "-C", str(repo)).exit_code == 0
    assert pinned in (repo / "MEMORY.md").read_text()


def test_parse_trunk_skips_an_end_marker_quoted_before_the_block() -> None:
    text = f"```\n{END}\n```\n<!-- bonsai:begin x -->\nblock\n{END}\ninbox\n"
    parts = parse_trunk(text)
    assert parts is not None and parts.pinned == f"```\n{END}\n```\n" and parts.inbox == "inbox\n"


def test_reindex_refuses_text_typed_inside_the_block(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text(trunk.replace(END, "## New fact\nwifi code 4417\n" + END))
    before = snapshot(repo)
    for command in ("reindex", "absorb"):
        result = run(command, "-C", str(repo))
        assert result.exit_code == 3, (command, result.stderr)
        assert "MEMORY.md:" in result.stderr and "text inside the generated block" in result.stderr
    assert snapshot(repo) == before


def test_hook_refuses_text_typed_inside_the_block(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text(trunk.replace(END, "wifi code 4417\n" + END))
    before = snapshot(repo)
    monkeypatch.chdir(repo)
    result = run("hook")
    assert result.exit_code == 3 and "text inside the generated block" in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Sub title\n=======\nnotes\n", None),  # setext H1 underline
        (">>>>>>> seven levels of quote\n", None),
        ("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n", 2),
        ("<<<<<<<\n", 1),
    ],
)
def test_find_conflict_marker_ignores_ordinary_markdown(text: str, line: int | None) -> None:
    assert find_conflict_marker(text) == line


def test_a_setext_h1_in_a_leaf_does_not_block_commits(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, "## Projects\nSub title\n=======\nnotes\n" + "z " * 3000 + "\n")
    assert run("reindex", "-C", str(repo), "--check").exit_code == 0
    assert run("status", "-C", str(repo)).exit_code in (0, 1)
    assert "merge-conflict" not in run("status", "-C", str(repo)).stdout


def test_absorb_refuses_to_write_through_a_symlinked_domain_folder(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "memory" / "domains" / "identity").symlink_to(outside)
    commit(repo, "link")
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write("## Team preferences new\nlikes tea\n")
    before = snapshot(repo)
    result = run("absorb", "-C", str(repo))
    assert result.exit_code == 3
    assert "memory/domains/identity: is a symlink" in result.stderr
    assert snapshot(repo) == before
    assert list(outside.iterdir()) == []


def test_absorb_refuses_when_dates_file_is_a_folder(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    (repo / "memory" / "dates.md").mkdir()
    (repo / "memory" / "dates.md" / "x.md").write_text("## x\n")
    commit(repo, "odd")
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write("## Birthdays\nBob 3 March\n")
    before = snapshot(repo)
    result = run("absorb", "-C", str(repo))
    assert result.exit_code == 3 and "memory/dates.md: is not a regular file" in result.stderr
    assert snapshot(repo) == before


def test_deleted_markers_get_a_message_that_says_how_to_put_them_back(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text(trunk.replace(END + "\n", ""))
    result = run("reindex", "-C", str(repo))
    assert result.exit_code == 3
    assert "bonsai markers are missing but memory/domains/ exists" in result.stderr
    assert "git show HEAD:MEMORY.md" in result.stderr
    assert "checkout" not in result.stderr  # advice that would throw away the memory written since (issue 21 §9)


def test_absorb_and_hook_output_never_show_a_secret_from_a_heading(make_repo: MakeRepo,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write(f"## Deploy key {token}\nrotate monthly\n")
    dry = run("absorb", "-C", str(repo), "--dry-run")
    assert dry.exit_code == 0 and "ghp_…[masked]" in dry.stdout and token not in dry.stdout + dry.stderr
    git(repo, "add", "-A")
    monkeypatch.chdir(repo)
    hooked = run("hook")
    assert hooked.exit_code == 1 and token not in hooked.stdout + hooked.stderr
    assert "ghp_…[masked]" in hooked.stdout + hooked.stderr


def test_a_pinned_section_after_the_end_marker_is_not_an_inbox(make_repo: MakeRepo) -> None:
    import json

    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write("## 📌 Never deploy on Fridays\nno exceptions\n")
    git(repo, "commit", "-qam", "pin")
    report = json.loads(run("status", "-C", str(repo), "--json").stdout)
    assert report["inbox"]["sections"] == 0
    assert not [w for w in report["warnings"] if w["kind"] == "inbox"]
    absorbed = run("absorb", "-C", str(repo))
    assert absorbed.exit_code == 0 and "pinned sections and loose text there stay in the trunk" in absorbed.stdout


def test_a_file_system_error_is_one_line_and_exit_1_not_a_traceback(make_repo: MakeRepo,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    (repo / "memory" / "_index.md").unlink()
    (repo / "memory" / "_index.md").mkdir()  # a folder where bonsai-git writes the root index
    result = run("reindex", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "memory/_index.md" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    monkeypatch.chdir(repo)
    from bonsai_git.hook import main as hook_main

    assert hook_main([]) == 1


def test_reindex_and_absorb_wait_for_no_one_while_another_run_holds_the_lock(make_repo: MakeRepo) -> None:
    import filelock

    repo = migrated(make_repo, "# M\n\n" + TOPICS)
    (repo / "memory" / "_index.md").write_text("stale\n")
    before = snapshot(repo)
    with filelock.FileLock(str(repo / ".git" / "bonsai.lock"), timeout=0):
        for command in ("reindex", "absorb"):
            result = run(command, "-C", str(repo))
            assert result.exit_code == 3, result.stderr
            assert ".git/bonsai.lock: another bonsai-git run holds this lock" in result.stderr
    assert snapshot(repo) == before
    assert run("reindex", "-C", str(repo)).exit_code == 0
