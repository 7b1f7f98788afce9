"""kill -9 at each named step of each writing command (issue 21, item 2), with real processes: the
next `migrate --recover` always leaves the whole old state or the whole new one.

The steps are journal.crash_point's (driven by the test-only BONSAI_TEST_CRASH_AT): "journal"
(recorded, nothing written), "write:N" (after the N-th file), "trunk" (absorb: MEMORY.md
rewritten), "written", "verified", "staged", "committed".  Also a kill inside `git commit` itself,
after git moved the branch (a reference-transaction hook kills git there): recovery settles on the
commit HEAD holds, and HEAD and the index never disagree.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from living_tree import DATES, LIVING, PRICING, MakeRepo, migrated
from support import bonsai, commit, corpus_bytes, git, snapshot

EXE = Path(sys.executable).with_name("bonsai-git")
HOOK = Path(sys.executable).with_name("bonsai-git-hook")
INBOX = "\n## Pricing update\n\nMugs are $20 now.\n\n## Birthday: Theo\n\nTheo: June 2\n"
SOURCE = corpus_bytes("03-chief-of-staff-6k.md")


def killed_at(repo: Path, point: str, *command: str) -> subprocess.CompletedProcess[str]:
    """Run `command` (an executable and its arguments) in `repo`, SIGKILLed at crash point `point`."""
    env = dict(os.environ, BONSAI_TEST_CRASH_AT=point)
    env.pop("BONSAI_TEST_CRASH_MODE", None)
    proc = subprocess.run(list(command), cwd=repo, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, proc.stderr)
    assert (repo / ".git/bonsai/journal.json").is_file()
    return proc


def recover(repo: Path, outcome: str) -> None:
    result = bonsai("migrate", "--recover", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert outcome in result.stdout, result.stdout
    assert not (repo / ".git/bonsai").exists()


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def filed(repo: Path, text: str) -> list[str]:
    """Every file of the tree (and MEMORY.md) that holds `text`."""
    found = [p for p in [repo / "MEMORY.md", *(repo / "memory").rglob("*.md")] if text in p.read_text()]
    return sorted(p.relative_to(repo).as_posix() for p in found if not p.name.startswith("_index"))


# --- absorb and the hook's absorb ----------------------------------------------------------------

@pytest.mark.parametrize("point", ["journal", "write:1", "write:2", "trunk", "written"])
@pytest.mark.parametrize("runner", ["absorb", "hook"])
def test_absorb_killed_at_each_step_recovers_whole_and_files_each_section_once(
        make_repo: MakeRepo, point: str, runner: str) -> None:
    repo = migrated(make_repo)
    with open(repo / "MEMORY.md", "a") as fh:
        fh.write(INBOX)
    commit(repo, "new memories", "MEMORY.md")
    before = snapshot(repo)
    command = [str(EXE), "absorb"] if runner == "absorb" else [str(HOOK)]
    killed_at(repo, point, *command)
    refused = bonsai("absorb", "-C", str(repo))
    assert refused.exit_code == 3 and "migrate --recover" in refused.stderr
    recover(repo, "Restored")
    assert snapshot(repo) == before  # the whole old state: sections in MEMORY.md only, no leaf, old indexes
    assert bonsai("absorb", "-C", str(repo)).exit_code == 0
    assert filed(repo, "Mugs are $20 now.") == ["memory/domains/business/pricing-update.md"]
    assert filed(repo, "Theo: June 2") == [DATES]


# --- migrate, flatten and the lifecycle commands -------------------------------------------------

def _regroupable(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo, LIVING + "\n## Glaze tests\n\nCeladon crawls on the tall mugs.\n")
    (repo / ".bonsai.toml").write_text('[domains.studio]\nkeywords = ["glaze"]\nscope = "the pottery studio"\n')
    commit(repo, "config: a studio domain", ".bonsai.toml")
    return repo


def _purgeable(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo)
    env = dict(os.environ, BONSAI_NOW="2026-01-01")
    subprocess.run([str(EXE), "archive", PRICING], cwd=repo, env=env, check=True, capture_output=True)
    return repo


COMMANDS = {
    "migrate": (lambda make_repo: make_repo(SOURCE), ["migrate"]),
    "flatten": (migrated, ["flatten"]),
    "move": (migrated, ["move", PRICING, "projects"]),
    "archive": (migrated, ["archive", PRICING]),
    "regroup": (_regroupable, ["regroup"]),
    "purge": (_purgeable, ["purge"]),
}


@pytest.mark.parametrize("point", ["journal", "write:1", "write:2", "verified", "staged", "committed"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_killed_at_each_step_recovers_whole(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                         name: str, point: str) -> None:
    monkeypatch.setenv("BONSAI_NOW", "2027-01-01")  # purge: the archived file is due
    setup, args = COMMANDS[name]
    repo = setup(make_repo)
    before = snapshot(repo)
    if name == "purge" and point == "write:2":
        pytest.skip("purge deletes one file here")
    killed_at(repo, point, str(EXE), *args)
    if point != "committed":
        recover(repo, "Restored")
        assert snapshot(repo) == before
        return
    recover(repo, "had finished its commit; kept it")  # the whole new state: HEAD, index and files agree
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "rev-parse", "HEAD~1") == before["head"]


# --- a kill inside `git commit`, after git moved the branch --------------------------------------

def _kill_git_once_the_ref_moved(repo: Path, *, stale_head_lock: bool, kill_bonsai: bool) -> None:
    """A reference-transaction hook that, the first time a ref update is committed, kills `git commit`
    (and, with `kill_bonsai`, the bonsai-git that runs it).  `stale_head_lock`: first leave the
    HEAD.lock a kill between git's rename of the branch's lock and its removal of HEAD's leaves."""
    marker = repo / ".git" / "killed-once"
    body = (f'[ "$1" = committed ] && [ ! -e "{marker}" ] || exit 0\n'
            "grep -q ' HEAD$' || exit 0\n"  # the commit's update of HEAD, not fast-import's empty one
            f'touch "{marker}"\n'
            + ('touch "$(git rev-parse --git-dir)/HEAD.lock"\n' if stale_head_lock else "")
            + ("kill -9 $(awk '{print $4}' /proc/$PPID/stat)\n" if kill_bonsai else "")
            + "kill -9 $PPID\n")
    hook(repo, "reference-transaction", body)


def _consistent(repo: Path) -> None:
    """HEAD, the index and the work tree agree (no staged and no unstaged change), HEAD is the migration."""
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert git(repo, "status", "--porcelain") == ""
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")


def test_a_kill_inside_git_commit_with_a_stale_head_lock_never_mixes_head_and_index(make_repo: MakeRepo) -> None:
    """The undo cannot move HEAD back (HEAD.lock): it must not put the index and files back either."""
    repo = make_repo(SOURCE)
    _kill_git_once_the_ref_moved(repo, stale_head_lock=True, kill_bonsai=False)
    proc = subprocess.run([str(EXE), "migrate"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "git commit stopped after it had moved HEAD" in proc.stderr
    assert "HEAD: could not be moved back" in proc.stderr and "migrate --recover" in proc.stderr
    assert (repo / ".git/bonsai/journal.json").is_file()
    assert git(repo, "diff", "--cached", "--name-only") == ""  # the index is HEAD's: no mix
    recover(repo, "had finished its commit; kept it")
    _consistent(repo)
    (repo / ".git" / "HEAD.lock").unlink()  # the user removes git's stale lock, as git's own message says
    assert bonsai("status", "-C", str(repo)).exit_code in (0, 1)


def test_a_kill_inside_git_commit_is_undone_when_head_can_move_back(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    _kill_git_once_the_ref_moved(repo, stale_head_lock=False, kill_bonsai=False)
    before = snapshot(repo)
    proc = subprocess.run([str(EXE), "migrate"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "git commit stopped after it had moved HEAD" in proc.stderr
    after = snapshot(repo)
    assert {k: after[k] for k in ("head", "index", "files")} == {k: before[k] for k in ("head", "index", "files")}
    assert not (repo / ".git/bonsai").exists()


@pytest.mark.parametrize("stale_head_lock", [False, True])
def test_a_kill_of_git_commit_and_bonsai_git_after_the_ref_moved_recovers_to_the_commit(
        make_repo: MakeRepo, stale_head_lock: bool) -> None:
    repo = make_repo(SOURCE)
    _kill_git_once_the_ref_moved(repo, stale_head_lock=stale_head_lock, kill_bonsai=True)
    proc = subprocess.run([str(EXE), "migrate"], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    recover(repo, "had finished its commit; kept it")
    _consistent(repo)


def test_recover_puts_the_index_at_head_when_an_undo_left_the_flat_index(make_repo: MakeRepo) -> None:
    """The state the old undo left (HEAD at the migration, the index reset to the flat file):
    recovery settles on HEAD and makes the index agree."""
    repo = make_repo(SOURCE)
    killed_at(repo, "committed", str(EXE), "migrate")
    git(repo, "read-tree", "HEAD~1")  # the index as the old undo left it: the flat MEMORY.md
    assert git(repo, "diff", "--cached", "--name-only") != ""
    recover(repo, "had finished its commit; kept it")
    _consistent(repo)


def test_recover_undoes_a_crashed_commit_whose_trailers_a_hook_dropped(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "commit-msg", "sed -i '/^Bonsai-/d' \"$1\"")
    before = snapshot(repo)
    killed_at(repo, "committed", str(EXE), "migrate")
    recover(repo, "Undid the interrupted run's commit")
    assert snapshot(repo) == before


# --- reindex and the hook without an inbox: generated files only ---------------------------------

@pytest.mark.parametrize("point", ["write:1", "write:2", "write:3"])
@pytest.mark.parametrize("runner", ["reindex", "hook"])
def test_a_reindex_killed_midway_is_settled_by_the_next_run(make_repo: MakeRepo,
                                                          point: str, runner: str) -> None:
    """Every file it writes is generated, so it keeps no journal: the next run rewrites what is
    stale and leaves exactly the tree an uninterrupted run leaves."""
    def stale(name: str) -> Path:
        repo = migrated(make_repo, name=name)
        (repo / "memory/domains/zzstress").mkdir()
        (repo / "memory/domains/zzstress/note.md").write_text("## Stress note\n\nA new domain.\n")
        (repo / PRICING).write_text("## Pricing\n\nWholesale mugs $20 from April.\n")
        git(repo, "add", "-A")
        return repo

    repo, twin = stale("crashed"), stale("whole")
    command = [str(EXE), "reindex"] if runner == "reindex" else [str(HOOK)]
    env = dict(os.environ, BONSAI_TEST_CRASH_AT=point)
    proc = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert not (repo / ".git/bonsai/journal.json").exists()
    subprocess.run(command, cwd=repo, capture_output=True, timeout=120)
    subprocess.run(command, cwd=twin, capture_output=True, timeout=120)
    files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted((repo / "memory").rglob("*")) if p.is_file()}
    whole = {p.relative_to(twin).as_posix(): p.read_bytes() for p in sorted((twin / "memory").rglob("*")) if p.is_file()}
    assert files == whole
    assert (repo / "MEMORY.md").read_bytes() == (twin / "MEMORY.md").read_bytes()
    assert bonsai("reindex", "--check", "-C", str(repo)).exit_code == 0
