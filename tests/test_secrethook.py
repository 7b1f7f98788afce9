"""The `bonsai-secrets` hook: a commit that adds a new secret-looking value to memory stops.

Direct runs of `secrethook.main` in real repositories (staged vs HEAD, only new findings count),
then the real pre-commit framework against this checkout's `.pre-commit-hooks.yaml`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bonsai_git import secrethook
from bonsai_git.gitrun import subcommand
from bonsai_git.core.secretscan import fingerprint
from support import GIT_ENV, corpus_bytes, git
from core.test_secretscan import KEYS

MakeRepo = Callable[..., Path]
GITHUB = KEYS["github token"]
STRIPE = KEYS["stripe key"]
GH = f"github token ({fingerprint(GITHUB[0])})"
ST = f"stripe key ({fingerprint(STRIPE[0])})"
LEAF = "memory/domains/infrastructure/services.md"


def leaf_repo(make_repo: MakeRepo, text: str = "## Services\nThe cron runner restarts nightly.\n") -> Path:
    repo = make_repo(corpus_bytes("03-chief-of-staff-6k.md"))
    (repo / LEAF).parent.mkdir(parents=True)
    (repo / LEAF).write_text(text)
    git(repo, "add", LEAF)
    git(repo, "commit", "-qm", "leaf")
    return repo


def check(repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *files: str) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    code = secrethook.main(list(files))
    out, err = capsys.readouterr()
    return code, out, err


def stage(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", path)


def test_a_new_key_in_a_leaf_stops_the_commit_without_showing_it(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, LEAF, "## Services\nThe cron runner restarts nightly.\n" + GITHUB[1] + "\n")
    code, out, err = check(repo, monkeypatch, capsys, LEAF)
    assert code == 1
    assert out == f"{LEAF}:3: {GH}\n"
    assert "1 new secret-looking value(s) staged in memory" in err and "SKIP=bonsai-secrets" in err
    assert GITHUB[0] not in out + err and GITHUB[0][4:14] not in out + err


def test_a_key_already_committed_does_not_block_other_edits(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo, "## Services\n" + GITHUB[1] + "\n")
    stage(repo, LEAF, "## Services\nA new line above.\n" + GITHUB[1] + "\n")
    assert check(repo, monkeypatch, capsys, LEAF)[0] == 0
    stage(repo, LEAF, "## Services\n" + GITHUB[1] + "\n" + GITHUB[1] + "\n")  # a second copy is new
    code, out, _err = check(repo, monkeypatch, capsys, LEAF)
    assert code == 1 and out == f"{LEAF}:3: {GH}\n"


def test_only_staged_bytes_count(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, LEAF, "## Services\nclean edit\n")
    (repo / LEAF).write_text("## Services\n" + STRIPE[1] + "\n")  # in the work tree, not staged
    assert check(repo, monkeypatch, capsys, LEAF)[0] == 0


def test_without_names_every_staged_memory_file_is_checked(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, "memory/2026-03-01.md", "daily note " + STRIPE[1] + "\n")
    stage(repo, "MEMORY.md", (repo / "MEMORY.md").read_text() + "\n" + GITHUB[1] + "\n")
    stage(repo, "docs/notes.md", GITHUB[1] + "\n")  # not memory: out of scope
    code, out, _err = check(repo, monkeypatch, capsys)
    lines = (repo / "MEMORY.md").read_text().count("\n")
    assert code == 1
    assert out.splitlines() == [f"MEMORY.md:{lines}: {GH}", f"memory/2026-03-01.md:1: {ST}"]


def test_paths_are_taken_relative_to_the_current_folder(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, LEAF, "## Services\n" + STRIPE[1] + "\n")
    code, out, _err = check(repo / "memory", monkeypatch, capsys, "domains/infrastructure/services.md")
    assert code == 1 and out == f"domains/infrastructure/services.md:2: {ST}\n"


def test_look_alikes_new_files_and_deletions_pass(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from core.test_secretscan import LOOKALIKES

    repo = leaf_repo(make_repo)
    stage(repo, "memory/domains/general/look.md", "## Look\n" + LOOKALIKES)
    git(repo, "rm", "-q", LEAF)
    assert check(repo, monkeypatch, capsys, "memory/domains/general/look.md", LEAF)[:2] == (0, "")


SPACED = "memory/domains/general/my notes.md"
SPACED_KEY = "ghp_" + "a1B2c3D4e5" * 4


@pytest.mark.parametrize("by_name", [True, False])
def test_a_new_file_whose_name_has_a_space_is_scanned(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], by_name: bool) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, SPACED, f"## Wifi\nThe deploy token is {SPACED_KEY}\n")
    code, out, err = check(repo, monkeypatch, capsys, *([SPACED] if by_name else []))
    assert code == 1, err
    assert out == f"{SPACED}:2: github token ({fingerprint(SPACED_KEY)})\n" and SPACED_KEY not in out + err
    assert "Traceback" not in err


def test_a_new_file_whose_name_has_a_space_without_a_key_passes(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, SPACED, "## Notes\nThe router sits behind the couch.\n")
    stage(repo, "memory/domains/general/a blob 12.md", "## Odd name\nShaped like a found object.\n")
    assert check(repo, monkeypatch, capsys, SPACED, "memory/domains/general/a blob 12.md") == (0, "", "")


def test_a_git_failure_is_one_line_not_a_traceback(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, LEAF, "## Services\nEdited.\n")
    real_run = subprocess.run

    def truncated(cmd: list[str], *args: object, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        proc = real_run(cmd, *args, **kwargs)  # type: ignore[arg-type]
        if Path(cmd[0]).name == "git" and subcommand(cmd[1:]) == "cat-file":  # git by its absolute path (gitrun)
            return subprocess.CompletedProcess(cmd, 128, b"", b"fatal: simulated\n")
        return proc

    monkeypatch.setattr(subprocess, "run", truncated)
    code, out, err = check(repo, monkeypatch, capsys, LEAF)
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("bonsai-git-secrets: git cat-file stopped before") and "fatal: simulated" in err


def test_outside_a_repository_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = check(tmp_path, monkeypatch, capsys, "MEMORY.md")
    assert code == 3 and "not inside a git work tree" in err


def test_the_console_script_is_installed(make_repo: MakeRepo) -> None:
    repo = leaf_repo(make_repo)
    stage(repo, LEAF, "## Services\n" + STRIPE[1] + "\n")
    exe = Path(sys.executable).with_name("bonsai-git-secrets")
    proc = subprocess.run([str(exe), LEAF], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stdout == f"{LEAF}:2: {ST}\n"


# --- the real pre-commit framework ----------------------------------------------------------------------

ROOT = Path(__file__).parent.parent
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """A snapshot commit of this checkout (what `repo:` needs) and a PRE_COMMIT_HOME for the module."""
    if not PRE_COMMIT.exists():
        pytest.skip("the pre-commit framework is not installed (pip install -e '.[test]')")
    source = tmp_path_factory.mktemp("bonsai-git-source")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "bonsai_git"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    env = dict(os.environ, **GIT_ENV)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "snapshot"]):
        subprocess.run(["git", *args], cwd=source, env=env, check=True, capture_output=True)
    rev = git(source, "rev-parse", "HEAD").strip()
    return source, rev, tmp_path_factory.mktemp("pre-commit-home")


def test_the_framework_runs_bonsai_secrets_on_commit(make_repo: MakeRepo, hook_source: tuple[Path, str, Path]) -> None:
    source, rev, home = hook_source
    repo = leaf_repo(make_repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: bonsai-secrets\n")
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-qm", "hooks")
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    install = subprocess.run([str(PRE_COMMIT), "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    stage(repo, LEAF, "## Services\n" + GITHUB[1] + "\n")
    proc = subprocess.run(["git", "commit", "-qm", "add a key"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{LEAF}:2: {GH}" in proc.stdout + proc.stderr  # git shows hook output on stderr
    assert GITHUB[0] not in proc.stdout + proc.stderr
    stage(repo, LEAF, "## Services\nThe token lives in the vault now.\n")
    proc = subprocess.run(["git", "commit", "-qm", "no key"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- every staged file that can hold text (issue 25) ------------------------------------------------------

NEWLINE_NAMES = ["memory/domains/general/notes\nfrom the agent.md", "memory/domains/general/trailing.md\n",
                 "memory/domains/general/tab\tand \x01 odd.md"]


@pytest.mark.parametrize("name", NEWLINE_NAMES, ids=["inner-newline", "final-newline", "control-chars"])
@pytest.mark.parametrize("by_name", [True, False])
def test_a_file_whose_name_holds_a_newline_is_scanned(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], name: str,
                                                     by_name: bool) -> None:
    """An agent that forgot to strip a generated name's line break: the listing was split on
    newlines and such a name dropped, so its key went in unseen."""
    repo = leaf_repo(make_repo)
    stage(repo, name, f"## Wifi\nThe deploy token is {SPACED_KEY}\n")
    code, out, err = check(repo, monkeypatch, capsys, *([name] if by_name else []))
    shown = name.replace("\t", "\\t").replace("\n", "\\n").replace("\x01", "\\x01")
    assert code == 1, err
    assert out == f"{shown}:2: github token ({fingerprint(SPACED_KEY)})\n"  # one line, the name escaped
    assert SPACED_KEY not in out + err


def test_a_symlink_replaced_by_a_file_is_scanned(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A tracked symlink under memory/ replaced by a regular file is a type change (`T`), which
    `--diff-filter=ACMR` left out."""
    repo = leaf_repo(make_repo)
    link = repo / "memory/domains/general/shared.md"
    link.parent.mkdir(parents=True)
    link.symlink_to("../infrastructure/services.md")
    git(repo, "add", "memory/domains/general/shared.md")
    git(repo, "commit", "-qm", "a symlink")
    link.unlink()
    stage(repo, "memory/domains/general/shared.md", "## Shared\n" + STRIPE[1] + "\n")
    status = git(repo, "diff", "--cached", "--name-status")
    assert status.startswith("T\t"), status
    for files in (["memory/domains/general/shared.md"], []):
        code, out, _err = check(repo, monkeypatch, capsys, *files)
        assert (code, out) == (1, f"memory/domains/general/shared.md:2: {ST}\n")


def test_a_copied_and_a_renamed_file_are_scanned(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo = leaf_repo(make_repo)
    git(repo, "mv", LEAF, "memory/domains/infrastructure/moved.md")
    stage(repo, "memory/domains/infrastructure/moved.md",
          (repo / "memory/domains/infrastructure/moved.md").read_text() + STRIPE[1] + "\n")
    code, out, _err = check(repo, monkeypatch, capsys)
    assert (code, out) == (1, f"memory/domains/infrastructure/moved.md:3: {ST}\n")


def test_on_an_unborn_branch_every_staged_file_is_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    stage(repo, "MEMORY.md", "# Memory\n" + GITHUB[1] + "\n")
    code, out, _err = check(repo, monkeypatch, capsys)
    assert (code, out) == (1, f"MEMORY.md:2: {GH}\n")


def test_the_framework_passes_a_newline_name_and_the_hook_reads_it(make_repo: MakeRepo,
                                                                   hook_source: tuple[Path, str, Path]) -> None:
    source, rev, home = hook_source
    repo = leaf_repo(make_repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: bonsai-secrets\n")
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-qm", "hooks")
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    assert subprocess.run([str(PRE_COMMIT), "install"], cwd=repo, env=env, capture_output=True).returncode == 0
    stage(repo, NEWLINE_NAMES[0], "## Notes\n" + GITHUB[1] + "\n")
    proc = subprocess.run(["git", "commit", "-qm", "a key in an odd name"], cwd=repo, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"memory/domains/general/notes\\nfrom the agent.md:2: {GH}" in proc.stdout + proc.stderr
    assert GITHUB[0] not in proc.stdout + proc.stderr
