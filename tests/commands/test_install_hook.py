"""The plain git hook (hooks/pre-commit) and `bonsai-git install-hook`, with real `git commit` runs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.githook import PUSH_SCRIPT, SCRIPT
from living_tree import (
    LIVING, SCENARIOS, MakeRepo, assert_commit_lands_at_once, commit_all, delete_leaf, edit_leaf, env, migrated,
    run, tree_files, write,
)
from support import ROOT, git


def install(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["install-hook", "-C", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def test_hook_script_is_the_packaged_one() -> None:
    assert (ROOT / "hooks/pre-commit").read_bytes() == SCRIPT.read_bytes()
    assert (ROOT / "hooks/pre-push").read_bytes() == PUSH_SCRIPT.read_bytes()
    assert os.access(ROOT / "hooks/pre-commit", os.X_OK)
    assert subprocess.run(["sh", "-n", str(SCRIPT)]).returncode == 0


@pytest.mark.parametrize("change", SCENARIOS, ids=lambda f: f.__name__)
def test_plain_hook_stops_a_stale_commit_once(make_repo: MakeRepo, change: Callable[[Path], None]) -> None:
    repo = migrated(make_repo)
    assert install(repo)[0] == 0
    change(repo)
    assert_commit_lands_at_once(repo)


def test_plain_hook_lets_an_unrelated_commit_through_untouched(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    install(repo)
    write(repo, "notes/todo.txt", "buy clay\n")
    before = tree_files(repo)
    assert commit_all(repo).returncode == 0
    assert tree_files(repo) == before


def test_install_hook_is_idempotent_and_uninstall_reverses_it(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    hooks = repo / ".git/hooks"
    before = sorted(p.name for p in hooks.iterdir())
    code, out, _ = install(repo)
    assert (code, out) == (0, f"installed: {hooks / 'pre-commit'}\ninstalled: {hooks / 'pre-push'}\n")
    assert (hooks / "pre-commit").read_bytes() == SCRIPT.read_bytes()
    assert (hooks / "pre-push").read_bytes() == (ROOT / "hooks" / "pre-push").read_bytes()  # the push gate
    assert stat.S_IMODE((hooks / "pre-commit").stat().st_mode) == 0o755
    assert install(repo)[1].startswith("already installed:")
    assert install(repo, "--uninstall")[1].startswith("uninstalled:")
    assert sorted(p.name for p in hooks.iterdir()) == before
    assert install(repo, "--uninstall")[1].startswith("not installed; nothing to do")


def test_install_hook_chains_an_existing_hook_and_uninstall_restores_it(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    theirs = repo / ".git/hooks/pre-commit"
    script = b"#!/bin/sh\necho theirs ran >> \"$(git rev-parse --git-dir)/theirs.log\"\nexit 0\n"
    theirs.write_bytes(script)
    theirs.chmod(0o750)
    code, out, _ = install(repo)
    assert code == 0 and "chained:" in out
    chained = repo / ".git/hooks/pre-commit.bonsai-chained"
    assert chained.read_bytes() == script and stat.S_IMODE(chained.stat().st_mode) == 0o750
    edit_leaf(repo)
    assert_commit_lands_at_once(repo)
    assert (repo / ".git/theirs.log").read_text() == "theirs ran\n"  # it ran first, in the one attempt
    assert install(repo)[1].startswith("already installed:")
    assert install(repo, "--uninstall")[1].startswith("uninstalled (the previous hook is back)")
    assert theirs.read_bytes() == script and stat.S_IMODE(theirs.stat().st_mode) == 0o750
    assert not chained.exists()


def test_a_failing_chained_hook_stops_the_commit_first(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    theirs = repo / ".git/hooks/pre-commit"
    theirs.write_text("#!/bin/sh\necho 'lint failed' >&2\nexit 7\n")
    theirs.chmod(0o755)
    install(repo)
    edit_leaf(repo)
    result = commit_all(repo)
    assert result.returncode != 0 and "lint failed" in result.stderr and "bonsai-git: wrote" not in result.stderr


def test_install_hook_refuses_the_pre_commit_frameworks_hook(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    proc = subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "install"], cwd=repo, env=env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    theirs = (repo / ".git/hooks/pre-commit").read_bytes()
    code, out, err = install(repo)
    assert code == 3
    assert "- id: bonsai-reindex" in out and "repo: local" in out and "entry: bonsai-git-hook" in out
    assert err.startswith("bonsai-git: .git/hooks/pre-commit: written by the pre-commit framework;")
    assert (repo / ".git/hooks/pre-commit").read_bytes() == theirs
    assert not (repo / ".git/hooks/pre-commit.bonsai-chained").exists()
    assert install(repo, "--uninstall")[0] == 3  # not ours: left alone
    assert (repo / ".git/hooks/pre-commit").read_bytes() == theirs


def test_install_hook_honours_core_hooks_path(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    git(repo, "config", "core.hooksPath", ".githooks")
    assert install(repo)[0] == 0
    assert (repo / ".githooks/pre-commit").read_bytes() == SCRIPT.read_bytes()
    assert not (repo / ".git/hooks/pre-commit").exists()
    delete_leaf(repo)
    git(repo, "add", "-A")
    result = run(["git", "commit", "-q", "-m", "delete"], repo)  # git sends a hook's stdout to stderr
    assert result.returncode == 0 and "staged them: " in result.stderr
    assert "memory/domains/personal/_index.md" in result.stderr  # removed with its last leaf, in the same commit
    assert git(repo, "ls-files", "memory/domains/personal") == "" and git(repo, "status", "--porcelain") == ""


def test_install_hook_from_a_linked_worktree_installs_for_the_repository(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert install(tmp_path / "wt")[0] == 0
    assert (repo / ".git/hooks/pre-commit").is_file()
    edit_leaf(tmp_path / "wt")
    assert_commit_lands_at_once(tmp_path / "wt")


def test_install_hook_updates_an_older_copy_and_refuses_a_leftover_chain(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\n# bonsai-git pre-commit hook (an older version)\nexec bonsai-git-hook\n")
    assert install(repo)[1].startswith("updated:")
    assert hook.read_bytes() == SCRIPT.read_bytes()
    hook.unlink()
    (repo / ".git/hooks/pre-commit.bonsai-chained").write_text("#!/bin/sh\nexit 0\n")
    code, _out, err = install(repo)
    assert code == 3 and "pre-commit.bonsai-chained: left over from an earlier install" in err


def test_install_hook_outside_a_repository_is_refused(tmp_path: Path) -> None:
    code, _out, err = install(tmp_path)
    assert code == 3 and "not inside a git repository" in err


def test_plain_hook_falls_back_to_python3_dash_m(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    install(repo)
    edit_leaf(repo)
    git(repo, "add", "-A")
    only_python = tmp_path / "bin"
    only_python.mkdir()
    (only_python / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (only_python / "python3").chmod(0o755)
    bare_path = {"PATH": f"{only_python}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    result = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True, text=True,
                            env=env() | bare_path)
    assert result.returncode == 0 and "staged them: memory/_index.md memory/domains/business/_index.md" in result.stderr
    (only_python / "python3").unlink()
    (only_python / "python3").write_text("#!/bin/sh\nexit 1\n")
    (only_python / "python3").chmod(0o755)
    missing = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True, text=True,
                             env=env() | bare_path)
    assert missing.returncode != 0 and "bonsai-git-hook is not on PATH" in missing.stderr


def test_plain_hook_lets_bonsai_gits_own_commits_through(make_repo: MakeRepo) -> None:
    from support import corpus_bytes

    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert install(repo)[0] == 0
    bonsai = str(Path(sys.executable).parent / "bonsai-git")
    for args in (["migrate"], ["move", "memory/domains/infrastructure/runbooks.md", "agents"]):
        done = run([bonsai, *args, "-C", str(repo)], repo)
        assert done.returncode == 0, done.stderr
        assert git(repo, "status", "--porcelain") == ""
