"""Bad input and hostile surroundings: every case is a one-line error, a documented exit, and no change.

Extends tests/test_transaction.py (which covers unborn/detached HEAD, merges, staged changes, a
missing/untracked/modified/symlinked/directory/non-UTF-8 MEMORY.md, occupied paths, .gitignore,
a bare repository, no identity, the lock held in-process, rejecting hooks, a hook that rewrites
our files, failed signing) with the rest of issue 4's matrix, and with large inputs.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bonsai_git import transaction
from bonsai_git.cli import main
from support import corpus_bytes, git, put, snapshot

SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
MakeRepo = Callable[..., Path]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def assert_refused(result: Result, code: int, message: str) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr  # one line
    assert result.stderr.startswith("bonsai-git: ")


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


# --- MEMORY.md itself -------------------------------------------------------------------------------

def _nul(make_repo: MakeRepo) -> Path:
    return make_repo(b"# Memory\n\n## Services\nport 8080\x00 and more\n" + b"filler words here " * 400)


def _empty(make_repo: MakeRepo) -> Path:
    return make_repo(b"")


def _whitespace(make_repo: MakeRepo) -> Path:
    return make_repo(b" \n\t\r\n\n   \n")


def _symlink_outside(make_repo: MakeRepo) -> Path:
    repo = make_repo(None)
    outside = repo.parent / "outside-MEMORY.md"
    outside.write_bytes(SOURCE)
    (repo / "MEMORY.md").symlink_to(outside)
    git(repo, "add", "MEMORY.md")
    git(repo, "commit", "-qm", "link")
    return repo


def _submodule(make_repo: MakeRepo) -> Path:
    inner = make_repo(SOURCE, name="inner")
    outer = put(make_repo(None, name="outer"), {"README": "x\n"}, "readme")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "agent")
    git(outer, "commit", "-qm", "add the agent as a submodule")
    git(outer / "agent", "checkout", "-q", "-B", "main")  # a branch, so only the submodule rule can refuse
    return outer / "agent"


def _memory_is_a_submodule(make_repo: MakeRepo) -> Path:
    notes = put(make_repo(None, name="notes"), {"2026-03-01.md": "daily\n"}, "notes")
    repo = make_repo(SOURCE, name="ws")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(notes), "memory")
    git(repo, "commit", "-qm", "memory as a submodule")
    return repo


def _sparse(make_repo: MakeRepo) -> Path:
    repo = put(make_repo(SOURCE), {"docs/a.md": "a\n"}, "docs")
    git(repo, "sparse-checkout", "set", "--cone", "docs")
    return repo


def _sparse_non_cone(make_repo: MakeRepo) -> Path:
    repo = _sparse(make_repo)
    git(repo, "sparse-checkout", "set", "--no-cone", "/*.md", "/docs/")
    return repo


def _inside_git_dir(make_repo: MakeRepo) -> Path:
    return make_repo(SOURCE) / ".git"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (_nul, "MEMORY.md: holds a NUL byte at byte offset 31 (binary data, not Markdown)"),
        (_empty, "MEMORY.md: is empty or only whitespace; there is nothing to migrate"),
        (_whitespace, "MEMORY.md: is empty or only whitespace"),
        (_symlink_outside, "MEMORY.md: is a symlink; bonsai-git migrates a regular file only"),
        (_submodule, "MEMORY.md: lives in a git submodule of outer"),
        (_memory_is_a_submodule, "memory: is a git submodule; bonsai-git writes its leaves there"),
        (_sparse, "outside the sparse checkout; add its folder first (git sparse-checkout add memory)"),
        (_sparse_non_cone, "outside the sparse checkout"),
        (_inside_git_dir, "a bare repository or git dir has no work tree"),
    ],
)
def test_migrate_refuses_bad_input_and_changes_nothing(
    make_repo: MakeRepo, setup: Callable[[MakeRepo], Path], message: str
) -> None:
    ws = setup(make_repo)
    repo = Path(git(ws, "rev-parse", "--show-toplevel").strip()) if ws.name != ".git" else ws.parent
    before = snapshot(repo)
    assert_refused(run("migrate", "-C", str(ws), "--force"), 3, message)
    assert snapshot(repo) == before


def test_migrate_with_sparse_checkout_that_includes_memory_works(make_repo: MakeRepo) -> None:
    repo = _sparse(make_repo)
    git(repo, "sparse-checkout", "add", "memory")
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository to another user (chown)")
def test_migrate_refuses_a_repository_git_does_not_trust(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    nobody = pwd.getpwnam("nobody")
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, nobody.pw_uid, nobody.pw_gid)
    try:
        result = run("migrate", "-C", str(repo))
    finally:
        for path in [repo, *repo.rglob("*")]:
            os.lchown(path, 0, 0)
    assert_refused(result, 3, "git refuses this repository (dubious ownership); to trust it run: "
                              f"git config --global --add safe.directory {repo}")
    assert snapshot(repo) == before


# --- git's own guards: hooks, signing, index.lock --------------------------------------------------

def test_migrate_restores_when_a_pre_commit_fixer_modifies_files_and_fails(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    hook(repo, "pre-commit", "for f in $(git diff --cached --name-only); do printf ' \\n' >> \"$f\"; done; "
                             "echo 'trailing-whitespace: Fixed files' >&2; exit 1")
    before = snapshot(repo)
    result = run("migrate", "-C", str(repo))
    assert_refused(result, 1, "git commit failed (a hook or signing rejected it); nothing was committed: "
                              "trailing-whitespace: Fixed files")
    assert snapshot(repo) == before


def test_migrate_restores_when_gpg_has_no_usable_key(make_repo: MakeRepo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("gpg") is None:
        pytest.skip("gpg is not installed; test_transaction covers signing failure with gpg.program=false")
    repo = make_repo(SOURCE)
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))
    git(repo, "config", "commit.gpgsign", "true")
    git(repo, "config", "user.signingkey", "0xDEADBEEFDEADBEEF")
    before = snapshot(repo)
    result = run("migrate", "-C", str(repo))
    assert_refused(result, 1, "gpg failed to sign the data")
    assert snapshot(repo) == before


def test_migrate_refuses_while_git_index_lock_stays_and_never_deletes_it(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = snapshot(repo)
    start = time.monotonic()
    result = run("migrate", "-C", str(repo))
    waited = time.monotonic() - start
    assert_refused(result, 3, ".git/index.lock: another git process holds the index; wait for it and retry")
    assert 1.9 <= waited < 10
    assert lock.exists()
    assert snapshot(repo) == before
    assert not (repo / ".git" / "bonsai").exists()


def test_migrate_waits_for_a_briefly_held_index_lock(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    threading.Timer(0.5, lock.unlink).start()
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "Bonsai-Migration: 1" in git(repo, "log", "-1", "--format=%B")


def test_migrate_retries_git_add_while_index_lock_comes_and_goes(make_repo: MakeRepo,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    lock = repo / ".git" / "index.lock"
    real = transaction._stage

    def lock_then_release(*args: Any) -> None:  # another git takes the index right after our precondition check
        lock.write_bytes(b"")
        threading.Timer(0.4, lock.unlink).start()
        real(*args)

    monkeypatch.setattr(transaction, "_stage", lock_then_release)
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr


def test_migrate_restores_when_index_lock_is_taken_for_good_mid_run(make_repo: MakeRepo,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(SOURCE)
    lock = repo / ".git" / "index.lock"
    before = snapshot(repo)
    real = transaction._stage

    def lock_for_good(*args: Any) -> None:
        lock.write_bytes(b"")
        real(*args)

    monkeypatch.setattr(transaction, "_stage", lock_for_good)
    result = run("migrate", "-C", str(repo))
    lock.unlink()
    assert_refused(result, 1, "git add failed: fatal: Unable to create")
    assert "index.lock': File exists" in result.stderr and "the tree was restored" in result.stderr
    assert snapshot(repo) == before


def test_migrate_works_when_git_converts_line_endings(make_repo: MakeRepo) -> None:
    repo = make_repo(None)
    git(repo, "config", "core.autocrlf", "true")  # git stores LF, the work tree holds CRLF
    (repo / "MEMORY.md").write_bytes(SOURCE.replace(b"\n", b"\r\n"))
    git(repo, "add", "MEMORY.md")
    git(repo, "commit", "-qm", "memory")
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "memory" / "domains" / "identity" / "working-preferences.md").read_bytes().count(b"\r\n") > 0


def test_migrate_lets_git_apply_gitattributes_filters(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    (repo / ".gitattributes").write_text("*.md text eol=lf\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    assert transaction._git_converts(transaction.open_workspace(repo), ["memory/_index.md"])
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert git(repo, "status", "--porcelain") == ""


def test_migrate_keeps_file_modes(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    (repo / "MEMORY.md").chmod(0o640)
    umask = os.umask(0o022)
    os.umask(umask)
    hook(repo, "commit-msg", "exit 1")
    assert run("migrate", "-C", str(repo)).exit_code == 1
    assert stat.S_IMODE((repo / "MEMORY.md").stat().st_mode) == 0o640  # restored: same bytes, same mode
    (repo / ".git" / "hooks" / "commit-msg").unlink()
    assert run("migrate", "-C", str(repo)).exit_code == 0
    assert stat.S_IMODE((repo / "MEMORY.md").stat().st_mode) == 0o640  # the trunk keeps its mode
    assert stat.S_IMODE((repo / "memory" / "_index.md").stat().st_mode) == 0o666 & ~umask


# --- one run at a time: a second real process holds the lock ---------------------------------------

def test_migrate_refuses_while_another_process_holds_the_workspace_lock(make_repo: MakeRepo) -> None:
    repo = make_repo(SOURCE)
    before = snapshot(repo)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import filelock, sys, time\n"
                               f"lock = filelock.FileLock({str(repo / '.git' / 'bonsai.lock')!r}, timeout=0)\n"
                               "lock.acquire(); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        result = run("migrate", "-C", str(repo))
        assert time.monotonic() - start < 5  # fails fast: timeout 0
        assert_refused(result, 3, ".git/bonsai.lock: another bonsai-git run holds this lock; wait for it to finish")
        assert_refused(run("migrate", "--recover", "-C", str(repo)), 3, "another bonsai-git run holds this lock")
    finally:
        holder.kill()
        holder.wait()
    assert snapshot(repo) == before
    assert run("migrate", "-C", str(repo)).exit_code == 0  # the OS released the dead holder's lock


# --- headings that try to escape --------------------------------------------------------------------

ESCAPES = ["../../x", "/etc/passwd", "C:\\x", "con", ".git", "..", "NUL.txt", "~/.ssh/id_rsa", "_index",
           "%2e%2e%2f", "a/../../../../tmp/evil", "\u202eexe.md", "AUX", ".", "-", "#"]


def test_headings_that_try_to_escape_become_safe_leaf_names(make_repo: MakeRepo) -> None:
    body = "".join(f"## {h}\nabout {h!r}: {'words ' * 60}\n\n" for h in ESCAPES)
    repo = make_repo("# Memory\n\n" + body)
    outside = sorted(p.name for p in repo.parent.iterdir())
    result = run("migrate", "-C", str(repo), "--force")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in repo.parent.iterdir()) == outside  # nothing written beside the workspace
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    leaves = [f for f in files if f.startswith("memory/domains/") and not f.rsplit("/", 1)[-1].startswith("_index")]
    assert len(leaves) == len(ESCAPES)
    reserved = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
    for path in leaves:
        parts = PurePosixPath(path).parts
        assert len(parts) == 4 and parts[:2] == ("memory", "domains"), path
        name = parts[3]
        assert name.endswith(".md") and not name.startswith((".", "_", "-")), name
        assert name[:-3].split(".")[0].lower() not in reserved, name
        assert all(c.isalnum() or c == "-" for c in name[:-3]), name
    assert not (repo / ".git" / "x").exists() and not (repo / "x.md").exists()


# --- large inputs -------------------------------------------------------------------------------------

def _large_memory(sections: int, words: int) -> bytes:
    topics = ["Services", "Revenue", "Family", "Agent", "Contract", "Birthday", "Community", "Tools", "Notes"]
    parts = ["# Memory\n\nThe agent's long-term memory.\n\n"]
    for i in range(sections):
        body = " ".join(f"w{(i * 7 + k) % 997}" for k in range(words))
        parts.append(f"## {topics[i % len(topics)]} note {i}\n{body}\n\n")
    return "".join(parts).encode()


def test_a_5_mb_memory_with_10000_sections_migrates_into_one_pack(make_repo: MakeRepo) -> None:
    # Its time is a figure of benchmarks/bench_migrate.py, not an assertion here: a timed unit test
    # on a shared 2-core machine fails on load, not on code (STYLE.md: benchmarks are scripts).
    data = _large_memory(10_000, 100)
    assert 5_000_000 <= len(data) <= 6_000_000
    repo = make_repo(data)
    result = transaction.migrate(repo)
    assert result.commit is not None and result.plan is not None
    assert result.plan.sections == 10_000
    assert git(repo, "status", "--porcelain") == ""
    loose = dict(ln.split(": ") for ln in git(repo, "count-objects", "-v").splitlines())
    assert int(loose["count"]) < 100  # the blobs went into one pack, not 10,000 loose files


def test_a_single_1_mb_section_is_one_leaf(make_repo: MakeRepo) -> None:
    section = "## Services\n" + ("the cron runner restarts at 04:00 UTC; " * 26_000) + "\n"
    data = ("# Memory\n\nTitle line.\n\n" + section).encode()
    assert len(section.encode()) > 1_000_000
    repo = make_repo(data)
    result = run("migrate", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    leaves = [f for f in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
              if f.startswith("memory/domains/") and not f.endswith("_index.md")]
    assert leaves == ["memory/domains/infrastructure/services.md"]
    assert (repo / leaves[0]).read_bytes() == section.encode()


# --- the README's Safety section matches the code ----------------------------------------------------

def test_readme_safety_section_documents_exit_codes_recovery_and_the_secrets_hook() -> None:
    from bonsai_git.core import errors

    section = (Path(__file__).parent.parent / "docs" / "safety.md").read_text(encoding="utf-8")  # from the README (issue 20)
    codes = {cls.exit_code for cls in vars(errors).values()
             if isinstance(cls, type) and issubclass(cls, errors.BonsaiError)}
    for code in codes | {0, 2, 4}:
        assert f"\n| {code} |" in section, code
    assert "bonsai-git migrate --recover" in section and ".git/bonsai/prior/MEMORY.md" in section
    assert "- id: bonsai-secrets" in section
    hooks = (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "id: bonsai-secrets" in hooks and "entry: bonsai-git-secrets" in hooks
