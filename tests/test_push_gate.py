"""The push gate checks what is pushed, with real `git push` to a local bare repository (issue 22).

A stale commit made with `--no-verify` whose fix is only staged is refused (the work tree is
fresh, the commit is not); `git push origin side` of a stale branch is refused while main is
fresh; a fresh push goes through; `bonsai-git check --rev` gives the same verdict in a clean
clone (CI); under the pre-commit framework `bonsai-check` at pre-push checks the pushed commits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from bonsai_git.cli import main
from living_tree import PRICING, MakeRepo, migrated, run, write
from support import BONSAI, git

PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")


def _with_remote(make_repo: MakeRepo, tmp_path: Path) -> tuple[Path, Path]:
    repo = migrated(make_repo)
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "origin", "main")
    return repo, bare


def _stale_commit(repo: Path, message: str = "stale on purpose") -> str:
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April, a much longer note than before.\n")
    git(repo, "add", PRICING)
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def _push(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["git", "push", "-q", "origin", *args], repo)


def test_a_pushed_stale_commit_is_refused_though_its_fix_is_staged(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, bare = _with_remote(make_repo, tmp_path)
    assert run([BONSAI, "install-hook"], repo).returncode == 0
    stale = _stale_commit(repo)
    assert run([BONSAI, "reindex"], repo).returncode == 0
    git(repo, "add", "-A")  # the fix is staged: the work tree and the index are fresh, the commit is not
    assert run([BONSAI, "reindex", "--check"], repo).returncode == 0
    remote_before = git(bare, "rev-parse", "main")
    proc = _push(repo, "main")
    assert proc.returncode != 0, proc.stderr
    assert f"commit {stale[:7]}" in proc.stderr and '("stale on purpose")' in proc.stderr
    assert f"bonsai-git: stale memory/domains/business/_index.md in {stale[:12]}" in proc.stdout
    assert git(bare, "rev-parse", "main") == remote_before  # nothing was pushed
    done = run(["git", "commit", "-q", "-m", "fix"], repo)
    assert done.returncode == 0, done.stderr
    assert _push(repo, "main").returncode != 0  # the stale commit is still among those pushed
    git(repo, "reset", "-q", "--soft", "HEAD~2")
    assert run(["git", "commit", "-q", "-m", "price, with its indexes"], repo).returncode == 0
    ok = _push(repo, "main")
    assert ok.returncode == 0, ok.stderr
    assert git(bare, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


def test_pushing_a_stale_side_branch_is_refused_while_main_is_fresh(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, bare = _with_remote(make_repo, tmp_path)
    assert run([BONSAI, "install-hook"], repo).returncode == 0
    git(repo, "checkout", "-q", "-b", "side")
    stale = _stale_commit(repo, "side work")
    git(repo, "checkout", "-q", "main")
    assert run([BONSAI, "reindex", "--check"], repo).returncode == 0  # main's work tree is fresh
    proc = _push(repo, "side")
    assert proc.returncode != 0 and f"commit {stale[:7]}" in proc.stderr, proc.stderr
    assert git(bare, "branch", "--list", "side") == ""
    assert _push(repo, "main").returncode == 0  # a push of a fresh branch goes through


def test_check_rev_on_a_clean_clone_names_the_stale_commit(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, _bare = _with_remote(make_repo, tmp_path)
    stale = _stale_commit(repo)
    clone = tmp_path / "ci-clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    result = CliRunner().invoke(main, ["check", "-C", str(clone), "--rev", "HEAD"])
    assert result.exit_code == 1
    assert result.stdout == (f"bonsai-git: stale memory/_index.md in {stale[:12]}\n"
                             f"bonsai-git: stale memory/domains/business/_index.md in {stale[:12]}\n")
    assert f"commit {stale[:7]} (\"stale on purpose\") has 2 stale generated file(s)" in result.stderr
    fresh = CliRunner().invoke(main, ["check", "-C", str(clone), "--rev", "HEAD~1"])
    assert (fresh.exit_code, fresh.stdout, fresh.stderr) == (0, "", "")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    assert run([BONSAI, "check", "--rev", "HEAD"], shallow).returncode == 1  # one tree is all it reads
    bad = CliRunner().invoke(main, ["check", "-C", str(clone), "--rev", "no-such-ref"])
    assert bad.exit_code == 3 and "no-such-ref: not a commit" in bad.stderr


def test_check_rev_reads_the_commit_not_the_work_tree(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    _stale_commit(repo)
    assert run([BONSAI, "reindex"], repo).returncode == 0  # the work tree is fresh now
    assert run([BONSAI, "check"], repo).returncode == 1
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fix")
    assert run([BONSAI, "check"], repo).returncode == 0


def test_framework_pre_push_hook_checks_the_pushed_commits(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo, bare = _with_remote(make_repo, tmp_path)
    hook = str(Path(sys.executable).parent / "bonsai-git-hook")
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: bonsai-check\n        name: bonsai-git check\n"
        f"        entry: {hook} --check\n        language: system\n        always_run: true\n"
        "        pass_filenames: false\n        require_serial: true\n        stages: [pre-push]\n", encoding="utf-8")
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "pre-commit config")
    extra = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    assert run([PRE_COMMIT, "install", "--hook-type", "pre-push"], repo, extra).returncode == 0
    assert run(["git", "push", "-q", "origin", "main"], repo, extra).returncode == 0
    stale = _stale_commit(repo)
    assert run([BONSAI, "reindex"], repo).returncode == 0
    git(repo, "add", "-A")  # fixed in the index only
    proc = run(["git", "push", "-q", "origin", "main"], repo, extra)
    assert proc.returncode != 0 and f"commit {stale[:7]}" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert git(bare, "rev-parse", "main") != stale
