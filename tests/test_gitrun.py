"""The one git runner (bonsai_git/gitrun.py): which git, literal pathspecs, stable output, one error."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bonsai_git import gitrun
from bonsai_git.gitrun import GitFailed, git_env, run
from support import commit, git

MakeRepo = Callable[..., Path]


def test_git_env_makes_pathspecs_literal_except_where_git_cannot_take_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_GLOB_PATHSPECS", "1")
    assert git_env(["ls-files", "--", "a*"])["GIT_LITERAL_PATHSPECS"] == "1"
    assert "GIT_GLOB_PATHSPECS" not in git_env(["ls-files"])  # git refuses literal + glob together
    assert "GIT_LITERAL_PATHSPECS" not in git_env(["-c", "core.excludesFile=x", "check-ignore", "--stdin"])
    assert git_env(["commit", "-q"])["GIT_GLOB_PATHSPECS"] == "1"  # the user's hooks get the user's env
    assert "GIT_LITERAL_PATHSPECS" not in git_env(["ls-files"], literal=False)


def test_git_is_found_once_by_its_absolute_path() -> None:
    exe = gitrun.git_exe()
    assert os.path.isabs(exe) and Path(exe).name == "git" and gitrun.git_exe() is exe


def test_a_folder_named_like_a_glob_matches_only_itself(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    for folder in ("ws[1]", "ws1", "notes*", "notesX"):
        (repo / folder).mkdir()
        (repo / folder / "a.md").write_text(folder + "\n")
    commit(repo, "folders", ".")
    listed = run(repo, "ls-files", "-z", "--", "ws[1]", "notes*", check=True).stdout.split(b"\0")
    assert [p for p in listed if p] == [b"notes*/a.md", b"ws[1]/a.md"]
    glob = run(repo, "ls-files", "-z", "--", ":(glob)ws*/a.md", literal=False, check=True).stdout.split(b"\0")
    assert len([p for p in glob if p]) == 2  # our own :(glob) listings still glob


def test_output_is_stable_whatever_the_users_config_says(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    for key, value in (("color.ui", "always"), ("core.quotePath", "true"), ("diff.noprefix", "true")):
        git(repo, "config", key, value)
    (repo / "café.md").write_text("one\n")
    commit(repo, "accent", "café.md")
    (repo / "café.md").write_text("two\n")
    assert run(repo, "ls-files", check=True).stdout.decode("utf-8").splitlines() == ["MEMORY.md", "café.md"]
    diff = gitrun.output(repo, "diff", "--", "café.md")
    assert "\x1b[" not in diff and "--- a/café.md" in diff and "+++ b/café.md" in diff
    # the user's own git sees their config: the override is ours alone
    assert "\\303" in git(repo, "ls-files")


def test_commands_that_run_hooks_get_the_users_config_unchanged(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    seen = repo / "seen.txt"
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho \"[$GIT_CONFIG_PARAMETERS]\" > '{seen}'\n")
    hook.chmod(0o755)
    (repo / "MEMORY.md").write_text("# m\nmore\n")
    run(repo, "add", "MEMORY.md", check=True)
    run(repo, "commit", "-q", "-m", "more", check=True)
    assert seen.read_text() == "[]\n"
    assert gitrun.command(["commit"])[1:] == ["commit"]
    assert gitrun.command(["ls-files"])[1:] == [*gitrun.STABLE_CONFIG, "ls-files"]


def test_a_failure_raises_one_error_carrying_gits_stderr(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    assert run(repo, "rev-parse", "--verify", "no-such-ref").returncode != 0  # unchecked: the caller decides
    with pytest.raises(GitFailed) as caught:
        run(repo, "rev-parse", "--verify", "no-such-ref", check=True)
    assert caught.value.message == "git rev-parse --verify failed: fatal: Needed a single revision"
    assert "Needed a single revision" in caught.value.stderr and caught.value.exit_code == 1


def test_a_command_waits_for_another_gits_index_lock(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    assert gitrun.wait_for_index_lock(repo, timeout=0.1) == lock.resolve()  # it stays: named, never deleted
    assert lock.exists()
    threading.Timer(0.3, lock.unlink).start()
    started = time.monotonic()
    (repo / "MEMORY.md").write_text("# m\nnew\n")
    proc = gitrun.run_retrying(repo, "add", "MEMORY.md", timeout=5)
    assert proc.returncode == 0 and time.monotonic() - started >= 0.25
    assert git(repo, "diff", "--cached", "--name-only").strip() == "MEMORY.md"


def test_plumbing_reads_name_index_entries_and_committed_blobs(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    head = gitrun.head_commit(repo)
    assert head == git(repo, "rev-parse", "HEAD").strip()
    blob = git(repo, "rev-parse", "HEAD:MEMORY.md").strip()
    assert gitrun.committed_blobs(repo, "HEAD", ["MEMORY.md", "absent.md"]) == {"MEMORY.md": blob}
    assert gitrun.index_entries(repo, ["MEMORY.md"]) == {"MEMORY.md": f"100644 {blob} 0"}
    assert gitrun.commit_parents_and_subject(repo, head or "") == ((), "memory")
    assert gitrun.head_commit(make_repo(None)) is None


# --- run_streaming: large input fed chunk by chunk (migrate's fast-import, issue 15) -------------

def test_streamed_input_reaches_git_as_the_joined_bytes_would(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    chunks = [b"line %d\n" % i * 50 for i in range(2000)]  # ~1.4 MB: more than a pipe buffer holds
    streamed = gitrun.run_streaming(repo, "hash-object", "--stdin", chunks=iter(chunks))
    joined = run(repo, "hash-object", "--stdin", input=b"".join(chunks), check=True)
    assert streamed.returncode == 0 and streamed.stdout == joined.stdout


def test_a_git_that_stops_reading_returns_its_exit_code_and_stderr(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    chunks = [b"not a fast-import command\n", *([b"x" * (1 << 16)] * 64)]  # 4 MB git never reads
    proc = gitrun.run_streaming(repo, "fast-import", "--quiet", "--done", chunks=iter(chunks))
    assert proc.returncode != 0
    assert b"not a fast-import command" in proc.stderr or b"Unsupported command" in proc.stderr


def test_a_failing_producer_stops_git_and_raises_its_error(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")

    def chunks() -> Iterator[bytes]:
        yield b"blob\ndata 3\nabc\n"
        raise KeyboardInterrupt

    def stored() -> list[str]:
        # Loose objects and packs only: a fast-import killed mid-run may leave its tmp_pack file,
        # which count-objects reports as garbage (git's own leftover; `git gc` removes it).
        lines = git(repo, "count-objects", "-v").splitlines()
        return [line for line in lines if line.split(":")[0] in ("count", "in-pack", "packs")]

    before = stored()
    with pytest.raises(KeyboardInterrupt):
        gitrun.run_streaming(repo, "fast-import", "--quiet", "--done", chunks=chunks())
    assert stored() == before  # git was stopped before it stored anything


# --- start: reads that run at once (issue 15) -----------------------------------------------------

def test_started_commands_answer_as_run_does_read_in_any_order(make_repo: MakeRepo) -> None:
    """Output larger than a pipe holds, stdin input, a failing command: each Started gives what
    `run` gives, whichever is read first (a full pipe only pauses git, never deadlocks)."""
    repo = make_repo("# m\n")
    big = repo / "big.bin"
    big.write_bytes(os.urandom(300_000))  # 300 KB of output: more than a pipe's buffer
    blob = git(repo, "hash-object", "-w", "big.bin").strip()
    calls = [("cat-file", "blob", blob), ("hash-object", "--stdin"), ("rev-parse", "--verify", "no-such-ref"),
             ("cat-file", "blob", blob)]
    started = [gitrun.start(repo, *args, input=b"hello\n" if args[0] == "hash-object" else None) for args in calls]
    for args, one in reversed(list(zip(calls, started))):
        expected = run(repo, *args, input=b"hello\n" if args[0] == "hash-object" else None)
        got = one.result()
        assert (got.returncode, got.stdout, got.stderr) == (expected.returncode, expected.stdout, expected.stderr)
        assert one.result() is got  # asked again: the same answer, git is not run twice
    assert started[0].result().stdout == big.read_bytes()


def test_one_rev_parse_serves_the_journal_check_and_the_run_once(make_repo: MakeRepo) -> None:
    repo = make_repo("# m\n")
    facts = gitrun.repo_facts(repo)
    assert facts is not None and facts[3] == str(repo.resolve())
    assert gitrun.take_repo_facts(repo) is facts  # kept for the run that follows...
    again = gitrun.take_repo_facts(repo)  # ...once: then asked anew
    assert again == facts and again is not facts
    gitrun.forget_repo_facts()
    assert gitrun.repo_facts(repo / ".git") is None  # a git dir has no top level: the caller asks what it needs
