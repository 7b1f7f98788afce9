"""Crash recovery: a run killed at any point (SIGKILL, as a power cut would stop it) is recoverable.

Each test kills a real `bonsai-git` process at a named point (journal.crash_point, driven by the
test-only BONSAI_TEST_CRASH_AT), then shows that every command refuses while the journal is
there and that `migrate --recover` restores the workspace byte for byte (HEAD, index, every
file) or keeps a commit that was already made whole.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git import journal
from bonsai_git.cli import main
from bonsai_git.core.config import Config
from bonsai_git.core.errors import JournalPresent
from bonsai_git.core.plan import plan_migration
from support import corpus_bytes, git, snapshot

SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
PLANNED = plan_migration(SOURCE.decode(), Config()).file_map()
EXE = Path(sys.executable).with_name("bonsai-git")
MakeRepo = Callable[..., Path]


def bonsai(repo: Path, *args: str, crash_at: str | None = None, mode: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("BONSAI_TEST_CRASH_AT", None)
    if crash_at:
        env["BONSAI_TEST_CRASH_AT"] = crash_at
    if mode:
        env["BONSAI_TEST_CRASH_MODE"] = mode
    return subprocess.run([str(EXE), *args, "-C", str(repo)], capture_output=True, text=True, env=env, timeout=120)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def killed(proc: subprocess.CompletedProcess[str]) -> bool:
    return proc.returncode == -signal.SIGKILL


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def assert_recovered(repo: Path, before: dict[str, object], outcome: str = "Restored") -> None:
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert outcome in result.stdout
    assert snapshot(repo) == before
    assert not (repo / ".git" / "bonsai").exists()


# --- killed at every step: recover restores the exact state before the run ------------------------

@pytest.mark.parametrize("point", ["journal", "write:1", "write:2", "write:17", f"write:{len(PLANNED)}", "verified",
                                   "staged"])
def test_recover_restores_a_migration_killed_before_its_commit(make_repo: MakeRepo, point: str) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    proc = bonsai(repo, "migrate", crash_at=point)
    assert killed(proc), (proc.returncode, proc.stderr)
    assert json.loads((repo / ".git" / "bonsai" / "journal.json").read_text())["head"] == before["head"].strip()
    assert (repo / ".git" / "bonsai" / "prior" / "MEMORY.md").read_bytes() == SOURCE  # the original, kept aside
    assert_recovered(repo, before)


def test_a_killed_migration_leaves_the_trunk_untouched_until_every_leaf_is_written(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    assert killed(bonsai(repo, "migrate", crash_at=f"write:{len(PLANNED) - 1}"))
    assert (repo / "MEMORY.md").read_bytes() == SOURCE  # the agent still reads the whole original
    leaves = [p for p in PLANNED if p != "MEMORY.md"]
    assert all((repo / p).is_file() for p in leaves)


def test_recover_keeps_a_migration_killed_after_its_commit(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    head0 = git(repo, "rev-parse", "HEAD").strip()
    assert killed(bonsai(repo, "migrate", crash_at="committed"))
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "had finished its commit; kept it" in result.stdout
    assert git(repo, "rev-parse", "HEAD^").strip() == head0
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")
    assert git(repo, "status", "--porcelain") == ""
    for path, text in PLANNED.items():
        assert (repo / path).read_bytes() == text.encode()
    assert not (repo / ".git" / "bonsai").exists()
    assert run("migrate", "-C", str(repo)).exit_code == 0  # already migrated: usable again


def test_recover_undoes_a_commit_a_hook_rewrote_when_killed_before_the_check(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", "printf 'tampered\\n' >> memory/_index.md && git add memory/_index.md")
    before = snapshot(repo)
    assert killed(bonsai(repo, "migrate", crash_at="committed"))
    assert "Bonsai-Migration" in git(repo, "log", "-1", "--format=%B")
    assert_recovered(repo, before, outcome="Undid the interrupted run's commit")


def test_recover_finishes_a_restore_that_was_itself_killed(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "commit-msg", "exit 1")
    before = snapshot(repo)
    assert killed(bonsai(repo, "migrate", crash_at="restore"))
    assert (repo / ".git" / "bonsai" / "journal.json").is_file()
    assert_recovered(repo, before)


def test_recover_after_a_kill_from_outside_while_paused(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    env = dict(os.environ, BONSAI_TEST_CRASH_AT="write:5", BONSAI_TEST_CRASH_MODE="pause")
    proc = subprocess.Popen([str(EXE), "migrate", "-C", str(repo)], stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().strip() == "bonsai-git: test pause at write:5"
        second = run("migrate", "-C", str(repo))  # the paused run is alive: it is not "interrupted"
        assert second.exit_code == 3 and "another bonsai-git run is in progress" in second.stderr
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert_recovered(repo, before)


def test_recover_in_a_subfolder_workspace(make_repo: MakeRepo) -> None:
    repo = make_repo(None)
    (repo / "agent").mkdir()
    (repo / "agent" / "MEMORY.md").write_bytes(SOURCE)
    (repo / "notes.txt").write_text("unrelated, uncommitted\n")
    git(repo, "add", "agent/MEMORY.md")
    git(repo, "commit", "-qm", "memory")
    before = snapshot(repo)
    assert killed(bonsai(repo / "agent", "migrate", crash_at="write:9"))
    assert run("status", "-C", str(repo / "agent")).exit_code == 3
    result = run("migrate", "--recover", "-C", str(repo))  # from the repository root: the journal knows the folder
    assert result.exit_code == 0, result.stderr
    assert snapshot(repo) == before


def test_lifecycle_commands_are_journaled_too(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    assert run("migrate", "-C", str(repo)).exit_code == 0
    leaf = next(p for p in sorted(PLANNED) if p.startswith("memory/domains/") and not p.endswith("_index.md"))
    before = snapshot(repo)
    proc = bonsai(repo, "archive", leaf, crash_at="write:2")
    assert killed(proc), proc.stderr
    assert_recovered(repo, before)


@pytest.mark.parametrize("failure", ["reports", "raises"])
def test_a_restore_that_cannot_finish_keeps_the_journal_and_never_hides_the_cause(
    make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "commit-msg", "echo 'needs a ticket id' >&2; exit 1")
    before = snapshot(repo)
    real = journal.restore

    def broken(*args: object, **kwargs: object) -> list[str]:
        if failure == "raises":
            raise RuntimeError("disk went read-only")
        return ["memory/_index.md: Permission denied"]

    monkeypatch.setattr(journal, "restore", broken)
    result = run("migrate", "-C", str(repo))
    monkeypatch.setattr(journal, "restore", real)
    assert result.exit_code == 1
    assert "git commit failed (a hook or signing rejected it); nothing was committed: needs a ticket id" in result.stderr
    cause = "disk went read-only" if failure == "raises" else "memory/_index.md: Permission denied"
    assert f"bonsai-git: warning: restore incomplete: {cause}; run `bonsai-git migrate --recover`" in result.stderr
    assert (repo / ".git" / "bonsai" / "journal.json").is_file()
    assert run("status", "-C", str(repo)).exit_code == 3
    assert_recovered(repo, before)


# --- while a journal exists, everything refuses and points to --recover --------------------------

def _dummy_args(command: str) -> list[str]:
    import click

    cmd = main.commands[command]
    return [(p.type.choices[0] if isinstance(p.type, click.Choice) else "x" if p.name != "domain" else "general")
            for p in cmd.params if isinstance(p, click.Argument) and p.required]


WORKSPACE_COMMANDS = sorted(name for name, cmd in main.commands.items() if any(p.name == "workspace" for p in cmd.params))


@pytest.fixture(scope="module")
def journaled_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from support import GIT_ENV

    repo = tmp_path_factory.mktemp("journaled")
    env = dict(os.environ, **GIT_ENV)
    for args in (["init", "-q", "-b", "main"], ["add", "MEMORY.md"], ["commit", "-qm", "memory"]):
        if args[0] == "add":
            (repo / "MEMORY.md").write_bytes(SOURCE)
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    proc = subprocess.run([str(EXE), "migrate", "-C", str(repo)], env=dict(env, BONSAI_TEST_CRASH_AT="write:3"),
                          capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    return repo


@pytest.mark.parametrize("command", WORKSPACE_COMMANDS)
def test_every_workspace_command_refuses_while_a_journal_exists(journaled_repo: Path, command: str) -> None:
    before = snapshot(journaled_repo)
    result = run(command, "-C", str(journaled_repo), *_dummy_args(command))
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert result.stderr == ("bonsai-git: .git/bonsai: an interrupted bonsai-git run left its journal here; run "
                             "`bonsai-git migrate --recover` to restore (or finish) it before anything else\n")
    assert snapshot(journaled_repo) == before


def test_the_journal_check_is_light_and_works_without_the_cli(journaled_repo: Path) -> None:
    code = ("import sys, pathlib; from bonsai_git import journal, secrethook\n"
            "assert 'git' not in sys.modules and 'markdown_it' not in sys.modules\n"
            f"journal.refuse_if_journaled(pathlib.Path({str(journaled_repo)!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1 and "JournalPresent" in proc.stderr
    with pytest.raises(JournalPresent, match="migrate --recover"):
        journal.refuse_if_journaled(journaled_repo / "memory")


# --- --recover refuses to guess; the journal's own rules ----------------------------------------------

def test_recover_refuses_when_someone_committed_since_the_crash(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    assert killed(bonsai(repo, "migrate", crash_at="write:4"))
    (repo / "other.txt").write_text("mine\n")
    git(repo, "add", "other.txt")
    git(repo, "commit", "-qm", "my own work")
    before = snapshot(repo)
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 3
    assert "HEAD moved since the interrupted run" in result.stderr
    assert "the original bytes are under .git/bonsai/prior" in result.stderr
    assert result.stderr.count("\n") == 1
    assert snapshot(repo) == before
    assert (repo / ".git" / "bonsai" / "prior" / "MEMORY.md").read_bytes() == SOURCE


def test_recover_without_a_journal_changes_nothing(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    result = run("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0 and "No interrupted run to recover" in result.stdout
    assert snapshot(repo) == before


def test_an_incomplete_journal_is_not_a_journal(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    leftover = repo / ".git" / "bonsai" / "prior"
    leftover.mkdir(parents=True)
    (leftover / "MEMORY.md").write_bytes(b"half")  # killed while recording: journal.json never written
    assert journal.find_journal(repo) is None
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert not (repo / ".git" / "bonsai").exists()


def test_write_journal_never_overwrites_a_journal(tmp_path: Path) -> None:
    folder = tmp_path / "bonsai"
    record = journal.Journal("a" * 40, "", "s", "sha1", (journal.JournalEntry("MEMORY.md", True, None, None),), ())
    journal.write_journal(folder, record, {"MEMORY.md": b"one"})
    assert journal.read_journal(folder) == record
    assert journal.read_prior(folder, "MEMORY.md") == b"one"
    with pytest.raises(JournalPresent):
        journal.write_journal(folder, record, {"MEMORY.md": b"two"})
    assert journal.read_prior(folder, "MEMORY.md") == b"one"
    journal.remove_journal(folder)
    assert journal.read_journal(folder) is None and not folder.exists()


@pytest.mark.parametrize("path", ["../x", "/etc/passwd", "a/../../b", ""])
def test_journal_paths_never_leave_their_root(tmp_path: Path, path: str) -> None:
    with pytest.raises(ValueError, match="not a workspace-relative path"):
        journal.read_prior(tmp_path, path)


def test_blob_id_matches_git(tmp_path: Path) -> None:
    data = "bytes\r\nwith CRLF and ünïcode\n".encode()
    (tmp_path / "f").write_bytes(data)
    assert journal.blob_id(data) == git(tmp_path, "hash-object", "f").strip()


def test_a_journal_in_a_linked_worktree_does_not_block_the_main_one(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(SOURCE)
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "other", str(linked))
    assert killed(bonsai(linked, "migrate", crash_at="write:2"))
    assert journal.find_journal(repo) is None
    assert run("migrate", "-C", str(linked)).exit_code == 3
    assert run("migrate", "--dry-run", "-C", str(repo)).exit_code == 0
    assert run("migrate", "--recover", "-C", str(linked)).exit_code == 0
    assert git(linked, "status", "--porcelain") == ""
