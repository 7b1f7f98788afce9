"""The instants a tight loop rarely hits, made certain: a write landing inside each window of a
replacement (while the temp file is written, between the check and the rename, after the
rename into the replaced file, mid-verification) is kept or carried, and the exit code says so."""

from __future__ import annotations

import os
from pathlib import Path

import filelock
import pytest
from click.testing import CliRunner, Result

from bonsai_git import hook as hook_module
from bonsai_git import transaction, tree
from bonsai_git.cli import main
from bonsai_git.core.errors import ConcurrentWrite
from bonsai_git.hook import main as hook_main
from bonsai_git.tree import CheckedWriter
from living_tree import DATES, PRICING, MakeRepo, migrated, write
from support import corpus_bytes, git

SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
NOTE = b"\n## Written meanwhile\n\nthe agent's new fact\n"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def append(path: Path, data: bytes = NOTE) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def agent_during_temp_write(monkeypatch: pytest.MonkeyPatch, folder: Path, target: Path, data: bytes = NOTE) -> None:
    """Append `data` to `target` once, while bonsai-git writes its first temp file in `folder`."""
    real = os.fchmod
    done: list[int] = []

    def fchmod(fd: int, mode: int) -> None:
        if not done and os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder / ".bonsai-")):
            done.append(1)
            append(target, data)
        real(fd, mode)

    monkeypatch.setattr(os, "fchmod", fchmod)


# --- the primitive ---------------------------------------------------------------------------

def test_an_append_between_the_check_and_the_rename_is_carried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old\n")
    real = tree._exchange
    monkeypatch.setattr(tree, "_exchange", lambda a, b: (append(target), real(a, b))[1])
    writer = CheckedWriter(tmp_path)
    writer.write("MEMORY.md", b"new\n", b"old\n")
    writer.finish()
    assert target.read_bytes() == b"new\n" + NOTE  # carried after our bytes
    assert writer.carried == ["MEMORY.md"]


def test_a_file_replaced_by_another_writers_rename_before_ours_is_put_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor's atomic save lands between our check and our swap: their file stays, we stop."""
    target = tmp_path / "leaf.md"
    target.write_bytes(b"old\n")
    theirs = tmp_path / "editor-save.tmp"
    theirs.write_bytes(b"old\nedited in an editor\n")
    real = tree._exchange
    calls: list[int] = []

    def exchange(a: str, b: str) -> bool:
        if not calls:
            os.replace(theirs, target)
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(tree, "_exchange", exchange)
    writer = CheckedWriter(tmp_path)
    with pytest.raises(ConcurrentWrite, match=r"^leaf\.md: was replaced by another process"):
        writer.write("leaf.md", b"new\n", b"old\n")
    writer.close()
    assert target.read_bytes() == b"old\nedited in an editor\n"
    assert [p.name for p in tmp_path.iterdir()] == ["leaf.md"]


def test_an_append_to_the_replaced_file_after_the_rename_is_carried_at_finish(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes(b"old\n")
    held = open(target, "ab")  # a writer that opened the file before we replaced it
    writer = CheckedWriter(tmp_path)
    writer.write("memory.md", b"new\n", b"old\n")
    held.write(NOTE)
    held.close()
    writer.finish()
    assert target.read_bytes() == b"new\n" + NOTE


def test_a_rewrite_of_the_replaced_file_puts_theirs_back_and_refuses(tmp_path: Path) -> None:
    target = tmp_path / "leaf.md"
    target.write_bytes(b"old\n")
    held = open(target, "r+b")
    writer = CheckedWriter(tmp_path)
    writer.write("leaf.md", b"new\n", b"old\n")
    held.seek(0)
    held.write(b"THEIRS")
    held.close()
    with pytest.raises(ConcurrentWrite, match=r"^leaf\.md: was rewritten by another process"):
        writer.finish()
    assert target.read_bytes() == b"THEIRS"


def test_a_file_changed_before_the_rename_is_refused_and_left_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old\n")
    real = os.fchmod
    monkeypatch.setattr(os, "fchmod", lambda fd, mode: (append(target), real(fd, mode)))  # during the temp write
    writer = CheckedWriter(tmp_path)
    with pytest.raises(ConcurrentWrite, match=r"^MEMORY\.md: changed by another process"):
        writer.write("MEMORY.md", b"new\n", b"old\n")
    writer.close()
    assert target.read_bytes() == b"old\n" + NOTE
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]  # no temp file left


def test_a_restore_carries_text_appended_while_it_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """carry_appends (the restore's mode): a tight-loop appender cannot make it fail forever."""
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"ours\n")
    agent_during_temp_write(monkeypatch, tmp_path, target)
    writer = CheckedWriter(tmp_path)
    writer.write("MEMORY.md", b"original\n", b"ours\n", carry_appends=True)
    writer.finish()
    assert target.read_bytes() == b"original\n" + NOTE


# --- (a) migrate: an append after the new trunk is written, before it is checked back ----------

def test_migrate_restores_the_original_plus_an_append_made_after_the_trunk_was_written(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    head = git(repo, "rev-parse", "HEAD")
    real = transaction._verify_on_disk  # right before the written files are checked back
    monkeypatch.setattr(transaction, "_verify_on_disk", lambda *a: (append(repo / "MEMORY.md"), real(*a)))
    result = cli("migrate", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "MEMORY.md: read back differently" in result.stderr
    assert (repo / "MEMORY.md").read_bytes() == SOURCE + NOTE  # the original and the append: a whole state
    assert not (repo / "memory").exists()
    assert git(repo, "rev-parse", "HEAD") == head


# --- (b) reindex, absorb, the hook: an append while the temp file is written ----------------------

@pytest.mark.parametrize("command", [("reindex",), ("absorb",), ("hook",)])
def test_an_append_while_the_temp_trunk_is_written_is_never_thrown_away(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]) -> None:
    repo = migrated(make_repo)
    append(repo / "MEMORY.md", b"\n## Pricing update\n\nMugs are $20 now.\n")
    write(repo, "memory/domains/zzstress/note.md", "## Stress\n\nnew domain: the block changes\n")
    git(repo, "add", "-A")
    trunk = repo / "MEMORY.md"
    agent_during_temp_write(monkeypatch, repo, trunk)
    before = trunk.read_bytes()
    result = cli(*command, "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "MEMORY.md: changed by another process while bonsai-git was running" in result.stderr
    assert trunk.read_bytes() == before + NOTE
    assert not (repo / "memory/domains/business/pricing-update.md").exists()


# --- (c) absorb: a write to memory/dates.md during absorb ------------------------------------------

def test_absorb_never_overwrites_a_write_to_dates_md(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    append(repo / "MEMORY.md", b"\n## Birthday: Theo\n\nJune 2\n")
    dates = repo / DATES
    agent_during_temp_write(monkeypatch, dates.parent, dates, b"- Kim: July 9\n")
    trunk = (repo / "MEMORY.md").read_bytes()
    result = cli("absorb", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "memory/dates.md: changed by another process" in result.stderr
    assert dates.read_bytes().endswith(b"- Kim: July 9\n") and b"Theo" not in dates.read_bytes()
    assert (repo / "MEMORY.md").read_bytes() == trunk  # the section is still in the inbox: nothing lost


# --- (d) the hook takes the same lock as absorb ----------------------------------------------------

def test_the_hook_waits_for_the_lock_absorb_holds_and_then_refuses(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    append(repo / "MEMORY.md", b"\n## Pricing update\n\nMugs are $20 now.\n")
    git(repo, "add", "-A")
    before = (repo / "MEMORY.md").read_bytes()
    monkeypatch.setattr(hook_module._holding_lock, "LOCK_WAIT", 0.3)
    lock = filelock.FileLock(str(repo / ".git" / "bonsai.lock"), timeout=0)  # what absorb/reindex/migrate take
    with lock:
        code = hook_main(["-C", str(repo)])
    err = capsys.readouterr().err
    assert code == 3 and "bonsai.lock: another bonsai-git run holds this lock" in err
    assert (repo / "MEMORY.md").read_bytes() == before  # absorbed by no one twice
    assert hook_main(["-C", str(repo)]) == 1  # free again: the hook absorbs it once
    assert len(list((repo / "memory/domains").rglob("pricing-update*.md"))) == 1


@pytest.mark.parametrize("command", ["archive"])
def test_commands_that_commit_under_the_lock_still_run_the_hook(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                                command: str) -> None:
    """archive commits while holding bonsai.lock: the hook its commit runs must not wait for
    that lock (it is the committing run's own).  (git revert, rollback's commit, runs no pre-commit hook.)"""
    import time

    from living_tree import env

    monkeypatch.setenv("PATH", env()["PATH"])
    repo = migrated(make_repo)
    assert cli("install-hook", "-C", str(repo)).exit_code == 0
    start = time.monotonic()
    result = cli(command, *([PRICING] if command == "archive" else []), "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert time.monotonic() - start < 4  # no 5 s wait for the lock
