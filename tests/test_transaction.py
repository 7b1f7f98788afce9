"""The migration transaction in real git repositories: success, every refusal, injected failures."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import filelock
import pytest
from hypothesis import given
from hypothesis import strategies as st
from click.testing import CliRunner, Result

from bonsai_git import transaction
from bonsai_git.cli import main
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.config import Config
from support import bonsai_untouched, commit, corpus_bytes, forget_git_identity, git, put, snapshot

SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
MakeRepo = Callable[..., Path]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def assert_refused(result: Result, code: int, message: str) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert message in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr  # one line
    assert result.stderr.startswith("bonsai-git: ")


def test_migrate_makes_one_commit_with_trailers(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    head0 = git(repo, "rev-parse", "HEAD").strip()
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert git(repo, "rev-list", "--count", f"{head0}..HEAD").strip() == "1"
    assert git(repo, "status", "--porcelain") == ""
    message = git(repo, "log", "-1", "--format=%B")
    blob = git(repo, "rev-parse", f"{head0}:MEMORY.md").strip()
    assert message.startswith("bonsai: migrate MEMORY.md into 8 domains (6,408 -> ")
    assert f"Bonsai-Source: MEMORY.md {blob}" in message
    assert "Bonsai-Migration: 1\n" in message and "Bonsai-Sections: 26\n" in message
    assert git(repo, "log", "-1", "--format=%cn <%ce>").strip() == "Test Committer <committer@example.com>"
    planned = plan_migration(SOURCE.decode(), Config()).file_map()
    for path, text in planned.items():
        assert (repo / path).read_bytes() == text.encode()
    assert "Migrated MEMORY.md into 8 domains" in result.stdout


def test_migrate_twice_is_a_noop(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    assert run("migrate", "-C", str(repo)).exit_code == 0
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 0 and "already migrated" in result.stdout


def test_migrate_dry_run_writes_nothing_and_reports_json(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--dry-run", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["commit"] is None and report["dry_run"] is True
    assert report["boot_tokens_before"] == 6408 and report["boot_tokens_after"] < 400
    assert report["domains"]["identity"] == {"leaves": 6, "tokens": 1240}


def test_migrate_no_commit_leaves_the_tree_unstaged(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    head = git(repo, "rev-parse", "HEAD")
    assert run("migrate", "-C", str(repo), "--no-commit").exit_code == 0
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert (repo / "memory/domains/identity/_index.md").is_file()


def test_migrate_in_a_subfolder_workspace_and_keeps_daily_notes(make_repo: MakeRepo) -> None:
    repo = make_repo(None)
    ws = repo / "agents" / "juniper"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_bytes(SOURCE)
    (ws / "memory" / "2026-02-28.md").write_text("daily note\n")
    (repo / "notes.txt").write_text("unrelated\n")
    commit(repo, "ws", "agents")
    (repo / "scratch.txt").write_text("untracked elsewhere\n")
    result = run("migrate", "-C", str(ws))
    assert result.exit_code == 0, result.stderr
    assert "note: 2 unrelated uncommitted path(s) left alone, e.g. notes.txt" in result.stderr
    assert (ws / "memory" / "2026-02-28.md").read_text() == "daily note\n"
    assert "agents/juniper/memory/domains/identity/_index.md" in git(repo, "show", "--name-only", "HEAD")
    assert git(repo, "status", "--porcelain") == "?? notes.txt\n?? scratch.txt\n"


def test_migrate_uses_the_configured_subject(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    (repo / ".bonsai.toml").write_text('[commit]\nsubject = "chore(memory): split into {domains} domains"\n')
    commit(repo, "config", ".bonsai.toml")
    assert run("migrate", "-C", str(repo)).exit_code == 0
    assert git(repo, "log", "-1", "--format=%s").strip() == "chore(memory): split into 8 domains"


# --- refusals: exit 3, one line, nothing changed -------------------------------------------------

def _unborn(make_repo: MakeRepo) -> Path:
    return make_repo(SOURCE, commit=False)


def _detached(make_repo: MakeRepo) -> Path:
    repo = make_repo(SOURCE)
    git(repo, "checkout", "-q", "--detach")
    return repo


def _conflicting_branch(make_repo: MakeRepo) -> Path:
    repo = make_repo(SOURCE)
    (repo / "f.txt").write_text("base\n")
    commit(repo, "base", "f.txt")
    git(repo, "checkout", "-qb", "other")
    (repo / "f.txt").write_text("other\n")
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "f.txt").write_text("main\n")
    git(repo, "commit", "-qam", "main")
    return repo


def _merging(make_repo: MakeRepo) -> Path:
    repo = _conflicting_branch(make_repo)
    git(repo, "merge", "other", check=False)
    return repo


def _cherry_picking(make_repo: MakeRepo) -> Path:
    repo = _conflicting_branch(make_repo)
    git(repo, "cherry-pick", "other", check=False)
    return repo


def _reverting(make_repo: MakeRepo) -> Path:
    repo = _conflicting_branch(make_repo)
    (repo / "f.txt").write_text("main again\n")
    git(repo, "commit", "-qam", "main again")
    git(repo, "revert", "--no-edit", "HEAD~1", check=False)
    return repo


def _rebasing(make_repo: MakeRepo) -> Path:
    repo = _conflicting_branch(make_repo)
    git(repo, "checkout", "-q", "other")
    git(repo, "rebase", "main", check=False)
    return repo


def _staged(make_repo: MakeRepo) -> Path:
    repo = put(make_repo(SOURCE), {"new.txt": "x\n"})
    git(repo, "add", "new.txt")
    return repo


def _missing(make_repo: MakeRepo) -> Path:
    return put(make_repo(None), {"README": "x\n"}, "readme")


def _untracked(make_repo: MakeRepo) -> Path:
    return put(_missing(make_repo), {"MEMORY.md": SOURCE})


def _untracked_and_ignored(make_repo: MakeRepo) -> Path:
    return put(put(_missing(make_repo), {".gitignore": "MEMORY.md\n"}, "ignore"), {"MEMORY.md": SOURCE})


def _intent_to_add(make_repo: MakeRepo) -> Path:
    repo = _untracked(make_repo)
    git(repo, "add", "-N", "MEMORY.md")  # in the index (status " A"), not in HEAD
    return repo


def _modified(make_repo: MakeRepo) -> Path:
    return put(make_repo(SOURCE), {"MEMORY.md": SOURCE + b"\nmore\n"})


def _symlink(make_repo: MakeRepo) -> Path:
    repo = put(_missing(make_repo), {"real.md": SOURCE})
    (repo / "MEMORY.md").symlink_to("real.md")
    commit(repo, "link", "real.md", "MEMORY.md")
    return repo


def _directory(make_repo: MakeRepo) -> Path:
    return put(_missing(make_repo), {"MEMORY.md/x.md": "x\n"}, "dir")


def _not_utf8(make_repo: MakeRepo) -> Path:
    return make_repo(b"# Memory\n\n## A\ncaf\xe9\n")


def _occupied(make_repo: MakeRepo) -> Path:
    return put(make_repo(SOURCE), {"memory/domains/x/mine.md": "user file\n"})


def _root_index_exists(make_repo: MakeRepo) -> Path:
    return put(make_repo(SOURCE), {"memory/_index.md": "mine\n"}, "mine")


def _ignored(make_repo: MakeRepo) -> Path:
    return put(make_repo(SOURCE), {".gitignore": "memory/\n"}, "ignore")


def _small(make_repo: MakeRepo) -> Path:
    return make_repo(corpus_bytes("01-tiny-fresh-agent.md"))


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (_unborn, "HEAD has no commit yet"),
        (_detached, "HEAD is detached"),
        (_merging, "a merge is in progress"),
        (_cherry_picking, "a cherry-pick is in progress"),
        (_reverting, "a revert is in progress"),
        (_rebasing, "a rebase is in progress"),
        (_staged, "new.txt: staged changes"),
        (_missing, "MEMORY.md: not found"),
        (_untracked, "MEMORY.md: not tracked by git"),
        (_untracked_and_ignored, "MEMORY.md: not tracked by git"),
        (_intent_to_add, "MEMORY.md: has uncommitted changes"),
        (_modified, "MEMORY.md: has uncommitted changes"),
        (_symlink, "MEMORY.md: is a symlink"),
        (_directory, "MEMORY.md: not a regular file"),
        (_not_utf8, "MEMORY.md: not valid UTF-8 at byte offset 18"),
        (_occupied, "memory/domains: already exists"),
        (_root_index_exists, "memory/_index.md: already exists"),
        (_ignored, "ignored by .gitignore"),
        (_small, "only ~122 tokens (minimum 1,000)"),
    ],
)
def test_migrate_refuses_and_changes_nothing(make_repo: MakeRepo, setup: Callable[[MakeRepo], Path], message: str) -> None:
    repo = setup(make_repo)
    assert_refused(bonsai_untouched(repo, "migrate", "-C", str(repo)), 3, message)


def test_migrate_allow_detached_overrides(make_repo: MakeRepo) -> None:
    repo = _detached(make_repo)
    assert run("migrate", "-C", str(repo), "--allow-detached").exit_code == 0


def test_migrate_force_migrates_a_small_file(make_repo: MakeRepo) -> None:
    repo = _small(make_repo)
    assert run("migrate", "-C", str(repo), "--force").exit_code == 0
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")


def test_migrate_refuses_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_bytes(SOURCE)
    assert_refused(run("migrate", "-C", str(tmp_path)), 3, "not inside a git work tree; run `git init`")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]


def test_migrate_refuses_a_bare_repository(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert_refused(run("migrate", "-C", str(bare)), 3, "bare repository")


def test_migrate_refuses_without_identity(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    forget_git_identity(monkeypatch, repo)
    assert_refused(bonsai_untouched(repo, "migrate", "-C", str(repo)), 3, "no committer identity")


def test_migrate_refuses_while_another_run_holds_the_lock(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    with filelock.FileLock(str(repo / ".git" / "bonsai.lock"), timeout=0):
        assert_refused(run("migrate", "-C", str(repo)), 3, ".git/bonsai.lock: another bonsai-git run holds this lock")
    assert snapshot(repo) == before


# --- injected failures: exit 1 (130 on Ctrl-C), everything restored ------------------------------

def _fail_write(monkeypatch: pytest.MonkeyPatch, at: int, error: Callable[[Path], BaseException]) -> None:
    """The `at`-th transaction.write_durably call raises `error(path)` instead of writing; the others write."""
    real = transaction.write_durably
    calls = {"n": 0}

    def failing(path: Path, data: bytes, **kwargs: bool) -> None:
        calls["n"] += 1
        if calls["n"] == at:
            raise error(path)
        real(path, data, **kwargs)

    monkeypatch.setattr(transaction, "write_durably", failing)


def test_migrate_restores_when_a_write_fails(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    _fail_write(monkeypatch, 7, lambda path: OSError(28, "No space left on device", str(path)))
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 1
    assert "No space left on device; the tree was restored" in result.stderr
    assert not (repo / "memory").exists()


def test_migrate_restores_on_ctrl_c_mid_write(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    _fail_write(monkeypatch, 12, lambda path: KeyboardInterrupt())
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 130
    assert "interrupted" in result.stderr


def test_migrate_restores_when_verification_from_disk_fails(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    real = transaction.write_durably

    def corrupting(path: Path, data: bytes, **kwargs: bool) -> None:
        real(path, data.replace(b"Lisbon", b"Lisboa") if path.name == "working-preferences.md" else data, **kwargs)

    monkeypatch.setattr(transaction, "write_durably", corrupting)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 1
    assert "working-preferences.md: read back differently" in result.stderr


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("pre-commit", 'echo "policy: no memory commits today" >&2; exit 1'),
        ("commit-msg", 'echo "subject must start with a ticket id" >&2; exit 1'),
    ],
)
def test_migrate_restores_when_a_hook_rejects(make_repo: MakeRepo, name: str, body: str) -> None:
    repo = make_repo(SOURCE)
    hook(repo, name, body)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 1
    assert "git commit failed" in result.stderr
    assert ("policy: no memory commits today" in result.stderr) or ("ticket id" in result.stderr)


def test_migrate_no_verify_passes_through(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", "exit 1")
    assert run("migrate", "-C", str(repo), "--no-verify").exit_code == 0


@pytest.mark.parametrize("script", [
    "printf 'tampered\\n' >> memory/_index.md && git add memory/_index.md",  # rewrote one of our files
    "git rm -q --cached memory/_index.md",  # left one of our files out of the commit
], ids=["rewrote", "left-out"])
def test_migrate_undoes_a_commit_whose_hook_changed_our_files(make_repo: MakeRepo, script: str) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", script)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 1
    assert "memory/_index.md: a commit hook changed it; the commit was undone" in result.stderr


def test_migrate_restores_when_signing_fails(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    git(repo, "config", "commit.gpgsign", "true")
    git(repo, "config", "gpg.program", "false")
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert result.exit_code == 1 and "git commit failed" in result.stderr


def test_migrate_as_a_subprocess(make_repo: MakeRepo) -> None:
    import subprocess
    import sys

    repo = make_repo(SOURCE)
    exe = Path(sys.executable).with_name("bonsai-git")
    proc = subprocess.run([str(exe), "migrate", "-C", str(repo), "--json"], capture_output=True, text=True,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["commit"] == git(repo, "rev-parse", "HEAD").strip()


def test_migrate_json_lists_secret_warnings_without_values(make_repo: MakeRepo) -> None:
    from bonsai_git.core.secretscan import fingerprint

    token = "ghp_" + "a1B2c3D4e5" * 4
    repo = make_repo(SOURCE + f"\n## Deploy Keys\n\n- GitHub token: {token}\n".encode())
    report = json.loads(run("migrate", "-C", str(repo), "--dry-run", "--json").stdout)
    assert report["secret_warnings"] == [f"memory/domains/infrastructure/deploy-keys.md:3: github token ({fingerprint(token)})"]
    assert token not in json.dumps(report)


def test_migrate_keeps_a_memory_write_made_while_it_runs(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent appending to MEMORY.md mid-run must not lose its text: the run is undone instead."""
    repo = make_repo(SOURCE)
    real = transaction.write_durably
    calls = {"n": 0}

    def agent_writes_meanwhile(path: Path, data: bytes, **kwargs: bool) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            with (repo / "MEMORY.md").open("ab") as fh:
                fh.write(b"\n## Learned just now\nthe agent's new fact\n")
        real(path, data, **kwargs)

    monkeypatch.setattr(transaction, "write_durably", agent_writes_meanwhile)
    head = git(repo, "rev-parse", "HEAD")
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 1
    assert "MEMORY.md: changed by another process while bonsai-git was running; that write was kept" in result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE + b"\n## Learned just now\nthe agent's new fact\n"
    assert git(repo, "rev-parse", "HEAD") == head
    assert not (repo / "memory").exists()
    assert not (repo / ".git" / "bonsai" / "journal.json").exists()


def test_migrate_dry_run_refuses_what_the_real_run_would(make_repo: MakeRepo) -> None:
    repo = _occupied(make_repo)
    result = run("migrate", "-C", str(repo), "--dry-run")
    assert result.exit_code == 3 and "memory/domains: already exists" in result.stderr


def test_migrate_no_commit_needs_no_identity(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    forget_git_identity(monkeypatch, repo)
    result = run("migrate", "-C", str(repo), "--no-commit")
    assert result.exit_code == 0, result.stderr
    assert (repo / "memory" / "domains").is_dir()



def test_a_migration_starts_fifteen_git_processes(make_repo: MakeRepo, tmp_path: Path) -> None:
    """Each git process costs 2-4 ms of a ~0.2 s migration (issue 15): the journal check and the
    repository facts share one rev-parse, one `git config --list` answers every key, the
    preconditions' check-attr serves staging too, and the commit refreshes the index itself."""
    import subprocess
    import sys

    repo = make_repo(corpus_bytes("03-chief-of-staff-6k.md"))
    shim = tmp_path / "shim"
    shim.mkdir()
    log = tmp_path / "git-calls.log"
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True).stdout.strip()
    (shim / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\nexec {real} "$@"\n', encoding="utf-8")
    (shim / "git").chmod(0o755)
    env = dict(os.environ, PATH=f"{shim}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run([str(Path(sys.executable).parent / "bonsai-git"), "migrate", "--force"], cwd=repo, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text(encoding="utf-8").splitlines()
    assert len(calls) <= 15, "\n".join(calls)
    assert git(repo, "status", "--porcelain") == ""


def test_a_refused_migration_leaves_no_git_running(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reads migrate starts before MEMORY.md is checked are waited for when a check refuses."""
    from bonsai_git import gitrun

    started: list[gitrun.Started] = []
    real = gitrun.start

    def recording(*args: object, **kwargs: object) -> gitrun.Started:
        one = real(*args, **kwargs)  # type: ignore[arg-type]
        started.append(one)
        return one

    monkeypatch.setattr(gitrun, "start", recording)
    repo = _modified(make_repo)
    assert_refused(bonsai_untouched(repo, "migrate", "-C", str(repo)), 3, "MEMORY.md: has uncommitted changes")
    assert len(started) >= 3
    assert all(one._proc.returncode is not None for one in started)  # every one reaped


def test_a_failed_flush_to_disk_restores_the_tree(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The durability flush runs on a thread (transaction._BackgroundSync): its error still stops the
    run before git commit, and the tree is restored."""
    repo = make_repo(SOURCE)

    def failing() -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(transaction, "sync_barrier", failing)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo))
    assert_refused(result, 1, "Input/output error; the tree was restored")


@given(st.dictionaries(st.text("ab/", max_size=4), st.text("xy", max_size=3)), st.lists(st.text("ab/", max_size=4)))
def test_the_plans_files_looked_up_in_its_sorted_tuple_answer_as_a_dict(files: dict[str, str], asked: list[str]) -> None:
    """transaction._FileTexts (no dict of every path beside the plan) gives what a dict gives, in any order of asking."""
    texts = transaction._FileTexts(tuple(sorted(files.items())))
    assert list(texts) == sorted(files) and len(texts) == len(files)
    for path in [*asked, *sorted(files), *asked]:
        assert texts.get(path) == files.get(path)
