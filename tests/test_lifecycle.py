"""move, archive, purge: one reviewable commit each, fresh indexes, undone by git revert; refusals touch nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bonsai_git.core.errors import BadInput, NothingToDo, Refused
from bonsai_git.lifecycle import archive_target, due_for_purge, is_domain_name, parse_duration, resolve_leaf
from support import git, snapshot
from memory_samples import CRON, PRICING, READING, TRAVEL, MakeRepo, at, commit_all, migrated, run

BONSAI = str(Path(sys.executable).with_name("bonsai-git"))
LEAVES = (TRAVEL, READING, PRICING, "memory/domains/business/business-overview.md", CRON,
          "memory/domains/infrastructure/services.md", "memory/dates.md")


def _files(repo: Path) -> dict[str, object]:
    snap = snapshot(repo)
    return {"files": snap["files"], "status": snap["status"]}


def _trailers(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%(trailers:only,unfold)").strip()


def _fresh(repo: Path) -> bool:
    return run("reindex", "-C", str(repo), "--check").exit_code == 0


# ----------------------------------------------------------------------------- pure helpers


@pytest.mark.parametrize(
    ("ref", "path"),
    [(TRAVEL, TRAVEL), ("./" + TRAVEL, TRAVEL), ("general/travel-notes.md", TRAVEL), ("general/travel-notes", TRAVEL),
     ("travel-notes", TRAVEL), ("travel-notes.md", TRAVEL), ("Travel-Notes", TRAVEL), ("dates.md", "memory/dates.md")],
)
def test_resolve_leaf_accepts_paths_and_unique_names(ref: str, path: str) -> None:
    assert resolve_leaf(ref, LEAVES) == path


def test_resolve_leaf_refuses_unknown_and_ambiguous_names() -> None:
    with pytest.raises(Refused, match="no such leaf"):
        resolve_leaf("nope", LEAVES)
    with pytest.raises(Refused, match="names 2 leaves"):
        resolve_leaf("notes", ("memory/domains/a/notes.md", "memory/domains/b/notes.md"))


@pytest.mark.parametrize(("text", "days"), [("180d", 180), ("180", 180), ("26w", 182), (" 7D ", 7), ("0d", 0)])
def test_parse_duration_days_and_weeks(text: str, days: int) -> None:
    assert parse_duration(text) == days


@pytest.mark.parametrize("text", ["", "6m", "-1d", "1.5d", "d"])
def test_parse_duration_refuses_other_units(text: str) -> None:
    with pytest.raises(BadInput, match="--older-than"):
        parse_duration(text)


@pytest.mark.parametrize(("name", "ok"), [("travel", True), ("side-projects", True), ("项目", True), ("2026", True),
                                          ("Travel", False), ("_x", False), (".x", False), ("-x", False),
                                          ("a/b", False), ("a_b", False), ("", False), ("a" * 60, True),
                                          ("a" * 61, False)])
def test_is_domain_name(name: str, ok: bool) -> None:
    assert is_domain_name(name) is ok


def test_archive_target_suffixes_a_taken_name_case_insensitively() -> None:
    taken = ["memory/archive/general/Travel-Notes.md", "memory/archive/general/travel-notes-2.md"]
    assert archive_target(TRAVEL, taken) == "memory/archive/general/travel-notes-3.md"
    assert archive_target(TRAVEL, []) == "memory/archive/general/travel-notes.md"


def test_due_for_purge_uses_the_archiving_commit_and_tracked_files_only() -> None:
    day = 86_400
    added = {"memory/archive/a.md": 0, "memory/archive/b.md": 100 * day, "memory/archive/c.md": 0}
    got = due_for_purge(added, ["memory/archive/a.md", "memory/archive/b.md"], now=181 * day, grace_days=180)
    assert got == (("memory/archive/a.md", 181),)


# ----------------------------------------------------------------------------- move


def test_move_commits_a_rename_with_the_same_bytes_and_fresh_indexes(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / TRAVEL).write_bytes(b"## Travel Notes\r\ndomain: general\r\nAisle seat.\r\n")  # a body line the seed rewrote
    commit_all(repo, "travel notes")
    leaf = (repo / TRAVEL).read_bytes()
    result = run("move", "-C", str(repo), "travel-notes", "identity", ok=True)
    assert result.exit_code == 0, result.output
    target = repo / "memory/domains/identity/travel-notes.md"
    assert target.read_bytes() == leaf and not (repo / TRAVEL).exists()
    assert _trailers(repo) == "Bonsai-Op: move"
    assert git(repo, "log", "-1", "--format=%s") == "bonsai: move travel-notes.md from general to identity\n"
    assert "R100\tmemory/domains/general/travel-notes.md\tmemory/domains/identity/travel-notes.md" in git(
        repo, "show", "--name-status", "--format=", "-M", "HEAD")
    assert "travel-notes.md" in (repo / "memory/domains/identity/_index.md").read_text()
    assert _fresh(repo) and git(repo, "status", "--porcelain") == ""


def test_move_then_git_revert_restores_the_previous_tree(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = _files(repo)
    assert run("move", "-C", str(repo), READING, "business").exit_code == 0
    git(repo, "revert", "--no-edit", "HEAD")
    assert _files(repo) == before


def test_move_last_leaf_of_a_domain_drops_its_index_and_folder(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    assert run("move", "-C", str(repo), TRAVEL, "business").exit_code == 0
    assert run("move", "-C", str(repo), READING, "business").exit_code == 0
    assert not (repo / "memory/domains/general").exists()
    assert "general" not in (repo / "memory/_index.md").read_text() and _fresh(repo)


def test_move_dry_run_and_no_commit(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before, head = snapshot(repo), git(repo, "rev-parse", "HEAD")
    dry = run("move", "-C", str(repo), "travel-notes", "identity", "--dry-run", ok=True)
    assert dry.exit_code == 0 and "Would move:" in dry.stdout and "nothing written" in dry.stdout
    assert snapshot(repo) == before
    result = run("move", "-C", str(repo), "travel-notes", "identity", "--no-commit")
    assert result.exit_code == 0
    assert git(repo, "rev-parse", "HEAD") == head and (repo / "memory/domains/identity/travel-notes.md").is_file()
    assert git(repo, "diff", "--cached", "--name-only") == ""
    # leaves are indexed once git tracks them (one rule): staging what it names makes the tree fresh
    git(repo, "add", "-A", "--", *result.stdout.rsplit("git add -A -- ", 1)[1].split())
    assert _fresh(repo)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope", "business"), "nope: no such leaf"),
        (("travel-notes", "Bad_Name"), "not a domain name"),
        (("travel-notes", "dates"), "not a domain name"),
        (("travel-notes", "a" * 300), "domain name too long (300 chars); use at most 60"),
        (("travel-notes", "a" * 61), "domain name too long (61 chars)"),
        (("--", "travel-notes", "-x"), "not a domain name"),
        (("travel-notes", ".x"), "not a domain name"),
        (("travel-notes", "a/b"), "not a domain name"),
        (("travel-notes", "general"), "already in domain 'general'"),
        (("dates", "general"), "single-file domain"),
    ],
)
def test_move_refusals_leave_the_tree_untouched(make_repo: MakeRepo, args: tuple[str, ...], message: str) -> None:
    repo = migrated(make_repo, _with_dates())
    before = snapshot(repo)
    result = run("move", "-C", str(repo), *args)
    assert result.exit_code == 3 and message in result.stderr and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert snapshot(repo) == before


def _with_dates() -> str:
    from memory_samples import SAMPLE

    return SAMPLE + "\n## Birthdays\n\nMari: May 2.\n"


@pytest.mark.parametrize("name", ["travel-notes.md", "Travel-Notes.md"])
def test_move_refuses_a_name_collision_even_in_another_case(make_repo: MakeRepo, name: str) -> None:
    repo = migrated(make_repo)
    (repo / "memory/domains/business" / name).write_text("## Travel\n\nx\n")
    commit_all(repo, "a leaf with capitals")
    assert run("reindex", "-C", str(repo)).exit_code == 0
    commit_all(repo, "reindex")
    before = snapshot(repo)
    result = run("move", "-C", str(repo), TRAVEL, "business")
    assert result.exit_code == 3 and f"memory/domains/business/{name}: already exists" in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize("mess", ["modified leaf", "untracked leaf", "staged elsewhere", "modified trunk"])
def test_move_refuses_an_unclean_memory_tree(make_repo: MakeRepo, mess: str) -> None:
    repo = migrated(make_repo)
    if mess == "modified leaf":
        (repo / PRICING).write_text("changed\n")
    elif mess == "untracked leaf":
        (repo / "memory/domains/general/new.md").write_text("## New\n")
    elif mess == "staged elsewhere":
        (repo / "notes.txt").write_text("x\n")
        git(repo, "add", "notes.txt")
    else:
        (repo / "MEMORY.md").write_text((repo / "MEMORY.md").read_text() + "\nmore\n")
    before = snapshot(repo)
    result = run("move", "-C", str(repo), TRAVEL, "identity")
    assert result.exit_code == 3 and ("uncommitted changes" in result.stderr or "staged" in result.stderr)
    assert snapshot(repo) == before


def test_move_refuses_before_migration(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\n## Travel\n\nx\n")
    result = run("move", "-C", str(repo), "travel", "identity")
    assert result.exit_code == 3 and "not migrated yet" in result.stderr and "run bonsai-git migrate first" in result.stderr


def test_move_restores_everything_when_the_commit_hook_rejects(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text("#!/bin/sh\necho 'subject must start with a ticket id' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = snapshot(repo)
    result = run("move", "-C", str(repo), TRAVEL, "identity")
    assert result.exit_code == 1 and "ticket id" in result.stderr and "nothing was committed" in result.stderr
    assert snapshot(repo) == before and not (repo / "memory/domains/identity").exists()


# ----------------------------------------------------------------------------- archive and purge


def test_archive_commits_leaves_out_of_the_indexes_with_the_reason(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    leaf = (repo / READING).read_bytes()
    result = run("archive", "-C", str(repo), "reading-list", PRICING, "--reason", "done\nwith  Q1", ok=True)
    assert result.exit_code == 0, result.output
    assert (repo / "memory/archive/general/reading-list.md").read_bytes() == leaf
    assert (repo / "memory/archive/business/pricing.md").is_file()
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("bonsai: archive 2 leaves\n\nReason: done with Q1\n")
    assert _trailers(repo) == "Bonsai-Op: archive"
    indexes = "".join(p.read_text() for p in (repo / "memory").rglob("_index.md")) + (repo / "MEMORY.md").read_text()
    assert "reading-list" not in indexes and "pricing.md" not in indexes and "- pricing" not in indexes
    assert _fresh(repo) and git(repo, "status", "--porcelain") == ""


def test_archive_then_git_revert_restores_the_previous_tree(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = _files(repo)
    assert run("archive", "-C", str(repo), TRAVEL, READING).exit_code == 0
    assert not (repo / "memory/domains/general").exists()
    git(repo, "revert", "--no-edit", "HEAD")
    assert _files(repo) == before


def test_archive_a_second_leaf_of_the_same_name_gets_a_suffix(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0
    (repo / READING).write_text("## Reading List\n\nNew book.\n")
    commit_all(repo, "new reading list")
    assert run("reindex", "-C", str(repo)).exit_code == 0
    commit_all(repo, "reindex")
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0
    assert (repo / "memory/archive/general/reading-list-2.md").read_text() == "## Reading List\n\nNew book.\n"


def test_archive_refusal_leaves_the_tree_untouched(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    result = run("archive", "-C", str(repo), "reading-list", "nope")
    assert result.exit_code == 3 and "nope: no such leaf" in result.stderr
    assert snapshot(repo) == before


def test_purge_removes_only_files_archived_before_the_grace_period(make_repo: MakeRepo,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    at(monkeypatch, "2026-03-02T12:00:00+00:00")
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0
    at(monkeypatch, "2026-06-01T12:00:00+00:00")
    assert run("archive", "-C", str(repo), "pricing").exit_code == 0
    at(monkeypatch, "2026-09-01T12:00:00+00:00")
    monkeypatch.setenv("BONSAI_NOW", "2026-09-01T12:00:00+00:00")
    before = _files(repo)
    dry = run("purge", "-C", str(repo), "--dry-run", ok=True)
    assert dry.stdout.splitlines()[:2] == ["Would purge:", "  memory/archive/general/reading-list.md (archived 183 days ago)"]
    assert _files(repo) == before
    result = run("purge", "-C", str(repo), ok=True)
    assert result.exit_code == 0 and "Purged:" in result.stdout
    assert not (repo / "memory/archive/general").exists() and (repo / "memory/archive/business/pricing.md").is_file()
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("bonsai: purge 1 archived file older than 180 days\n\n"
                              "memory/archive/general/reading-list.md (archived 183 days ago)\n")
    assert _trailers(repo) == "Bonsai-Op: purge" and _fresh(repo)
    assert run("purge", "-C", str(repo), "--older-than", "13w").exit_code == 0  # pricing: 92 days > 91
    git(repo, "revert", "--no-edit", "HEAD")
    git(repo, "revert", "--no-edit", "HEAD~2")
    assert _files(repo) == before


def test_purge_with_nothing_due_commits_nothing(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0
    monkeypatch.setenv("BONSAI_NOW", "2026-04-01")
    head = git(repo, "rev-parse", "HEAD")
    result = run("purge", "-C", str(repo), ok=True)
    assert (result.exit_code, result.stdout) == (0, "Nothing to purge: no archived file is older than the grace period.\n")
    assert git(repo, "rev-parse", "HEAD") == head


def test_purge_refuses_a_due_file_with_uncommitted_changes(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0
    (repo / "memory/archive/general/reading-list.md").write_text("edited\n")
    monkeypatch.setenv("BONSAI_NOW", "2027-03-01")
    before = snapshot(repo)
    result = run("purge", "-C", str(repo))
    assert result.exit_code == 3 and "reading-list.md: has uncommitted changes" in result.stderr
    assert snapshot(repo) == before


def test_purge_rejects_a_bad_duration_as_usage_error(make_repo: MakeRepo) -> None:
    result = run("purge", "-C", str(migrated(make_repo)), "--older-than", "6 months")
    assert result.exit_code == 2 and "--older-than" in result.stderr


def test_lifecycle_commands_run_as_real_processes(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    env_now = {"BONSAI_NOW": "2027-01-01"}

    def bonsai(*args: str) -> subprocess.CompletedProcess[str]:
        import os

        return subprocess.run([BONSAI, *args, "-C", str(repo)], capture_output=True, text=True,
                              env={**os.environ, **env_now})

    assert bonsai("move", TRAVEL, "identity").returncode == 0
    assert bonsai("archive", "reading-list", "--reason", "read").returncode == 0
    assert bonsai("purge", "--older-than", "0d").returncode == 0
    assert [s for s in git(repo, "log", "--format=%s").splitlines()][:3] == [
        "bonsai: purge 1 archived file older than 0 days", "bonsai: archive reading-list.md",
        "bonsai: move travel-notes.md from general to identity"]
    refused = bonsai("move", "nope", "identity")
    assert refused.returncode == 3 and refused.stderr.startswith("bonsai-git: nope: no such leaf")


def test_nothing_to_do_is_a_refusal_exit_3() -> None:
    assert issubclass(NothingToDo, Refused) and NothingToDo("x").exit_code == 3


def test_move_to_a_very_long_domain_name_is_bad_input_even_on_a_dry_run(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    for extra in ((), ("--dry-run",)):
        proc = subprocess.run([BONSAI, "move", "-C", str(repo), "cron-jobs", "a" * 300, *extra],
                              capture_output=True, text=True)
        assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.count("\n") == 1 and "domain name too long" in proc.stderr
    assert snapshot(repo) == before


# ----------------------------------------------------------------------------- one trunk check, one "due" rule


@pytest.mark.parametrize("command", ["move", "archive"])
def test_move_and_archive_refuse_text_typed_inside_the_generated_block(make_repo: MakeRepo, command: str) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text(encoding="utf-8")
    end = "<!-- bonsai:end -->"
    assert trunk.count(end) == 1
    (repo / "MEMORY.md").write_text(trunk.replace(end, "wifi code 4417\n" + end), encoding="utf-8")
    git(repo, "commit", "-qam", "a note typed in the block", "--no-verify")
    line = (repo / "MEMORY.md").read_text(encoding="utf-8").split("\n").index("wifi code 4417") + 1
    before = snapshot(repo)
    args = (TRAVEL, "identity") if command == "move" else (TRAVEL,)
    result = run(command, "-C", str(repo), *args)
    assert result.exit_code == 3, result.output
    assert f"MEMORY.md:{line}: text inside the generated block" in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert snapshot(repo) == before and "wifi code 4417" in (repo / "MEMORY.md").read_text(encoding="utf-8")


def test_move_refuses_conflict_markers_in_the_trunk(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text(encoding="utf-8")
    (repo / "MEMORY.md").write_text(trunk + "<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n", encoding="utf-8")
    git(repo, "commit", "-qam", "a conflicted inbox", "--no-verify")
    before = snapshot(repo)
    result = run("move", "-C", str(repo), TRAVEL, "identity")
    assert result.exit_code == 3 and "merge-conflict marker" in result.stderr and result.stderr.count("\n") == 1
    assert snapshot(repo) == before


@pytest.mark.parametrize(("hours", "due"), [(180 * 24, False), (180 * 24 + 1, True), (180 * 24 + 12, True), (181 * 24, True)])
def test_purge_and_status_agree_on_what_is_due(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                               hours: int, due: bool) -> None:
    import json
    from datetime import datetime, timedelta

    from memory_samples import DAY0

    repo = migrated(make_repo)
    assert run("archive", "-C", str(repo), "reading-list").exit_code == 0  # archived at DAY0
    now = datetime.fromisoformat(DAY0) + timedelta(hours=hours)
    monkeypatch.setenv("BONSAI_NOW", now.isoformat())
    report = json.loads(run("status", "-C", str(repo), "--json").stdout)
    listed = [d["path"] for d in report["archive"]["due_for_purge"]]
    warned = [w["path"] for w in report["warnings"] if w["kind"] == "purge_due"]
    dry = run("purge", "-C", str(repo), "--dry-run", ok=True)
    purged = [line.split(" (")[0].strip() for line in dry.stdout.splitlines() if line.startswith("  memory/")]
    expected = ["memory/archive/general/reading-list.md"] if due else []
    assert listed == warned == purged == expected, (listed, warned, purged)
