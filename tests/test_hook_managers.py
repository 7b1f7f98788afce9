"""install-hook with the real hook managers: husky 9, lefthook, simple-git-hooks (npm) and the
pre-commit framework's config (hookmanagers.py, issue 22 item 5).

The npm packages are installed once into a cache folder under the system temp dir (reused by
later sessions); without npm, or when the registry cannot be reached, those tests skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from bonsai_git.githook import OUR_MARKER
from living_tree import BIN, LIVING, MakeRepo, edit_leaf, migrated
from support import GIT_ENV, bonsai, bonsai_untouched, git

NPM_PACKAGES = ("husky@9", "lefthook@2", "simple-git-hooks@2")
TOOLS = ("husky", "lefthook", "simple-git-hooks")


@pytest.fixture(scope="session")
def npm_bin() -> Path:
    """node_modules/.bin of a cache folder holding husky, lefthook and simple-git-hooks (installed once)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm/node not installed: the husky, lefthook and simple-git-hooks tests need them")
    from filelock import FileLock

    cache = Path(tempfile.gettempdir()) / "bonsai-git-test-npm"
    cache.mkdir(exist_ok=True)
    bin_dir = cache / "node_modules" / ".bin"
    with FileLock(str(cache / ".lock")):
        if not all((bin_dir / tool).exists() for tool in TOOLS):
            (cache / "package.json").write_text('{"name": "bonsai-git-test-npm", "version": "1.0.0", "private": true}\n')
            proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *NPM_PACKAGES],
                                  cwd=cache, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                pytest.skip(f"npm install {' '.join(NPM_PACKAGES)} failed (no registry?): {proc.stderr.strip()[-300:]}")
    return bin_dir


def shell_env(npm_bin: Path) -> dict[str, str]:
    env = dict(os.environ) | GIT_ENV
    env["PATH"] = os.pathsep.join([str(BIN), str(npm_bin), env.get("PATH", "")])
    return env


def tool(npm_bin: Path, name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(npm_bin / name), *args], cwd=cwd, env=shell_env(npm_bin), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def commit_until_fresh(repo: Path, npm_bin: Path) -> str:
    """`git commit -am` (re-adding once if our hook stopped it); returns the hook output. The tree ends fresh."""
    out = ""
    for _ in range(2):
        proc = subprocess.run(["git", "commit", "-qam", "leaf edit"], cwd=repo, env=shell_env(npm_bin),
                              capture_output=True, text=True)
        out += proc.stdout + proc.stderr
        if proc.returncode == 0:
            break
        git(repo, "add", "-A")
    else:
        raise AssertionError(out)
    assert "bonsai-git" in out, out  # our hook ran, through the manager
    assert bonsai("reindex", "-C", str(repo), "--check").exit_code == 0
    assert git(repo, "status", "--porcelain") == ""
    return out


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_husky_9_gets_the_hook_in_dot_husky_pre_commit(make_repo: MakeRepo, npm_bin: Path) -> None:
    repo = migrated(make_repo, LIVING)
    tool(npm_bin, "husky", cwd=repo)
    assert git(repo, "config", "core.hooksPath").strip() == ".husky/_"
    generated = files_under(repo / ".husky/_")
    result = bonsai("install-hook", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("husky: installed (created .husky/pre-commit, which husky runs; .husky/_ is left to husky)")
    assert "next: commit .husky/pre-commit" in result.stdout
    assert (repo / ".husky/pre-commit").read_text() == "bonsai-git-hook\n"
    assert files_under(repo / ".husky/_") == generated  # never written into the folder husky regenerates
    assert not (repo / ".git/hooks/pre-commit").exists()
    tool(npm_bin, "husky", cwd=repo)  # what every `npm install` does (prepare script)
    assert (repo / ".husky/pre-commit").read_text() == "bonsai-git-hook\n"
    git(repo, "add", ".husky/pre-commit")
    git(repo, "commit", "-qm", "husky hook", "--no-verify")
    edit_leaf(repo)
    commit_until_fresh(repo, npm_bin)
    assert bonsai("install-hook", "-C", str(repo)).stdout.startswith("husky: already installed")
    removed = bonsai("install-hook", "-C", str(repo), "--uninstall")
    assert removed.exit_code == 0 and "removed the file it had created" in removed.stdout
    assert not (repo / ".husky/pre-commit").exists()


def test_husky_keeps_the_users_own_hook_lines(make_repo: MakeRepo, npm_bin: Path) -> None:
    repo = migrated(make_repo, LIVING)
    tool(npm_bin, "husky", cwd=repo)
    (repo / ".husky/pre-commit").write_text("echo users-own-check")
    assert bonsai("install-hook", "-C", str(repo)).exit_code == 0
    assert (repo / ".husky/pre-commit").read_text() == "echo users-own-check\nbonsai-git-hook\n"
    assert bonsai("install-hook", "-C", str(repo), "--uninstall").exit_code == 0
    assert (repo / ".husky/pre-commit").read_text() == "echo users-own-check\n"


def test_lefthook_gets_a_pre_commit_command(make_repo: MakeRepo, npm_bin: Path) -> None:
    repo = migrated(make_repo, LIVING)
    (repo / "lefthook.yml").write_text("# team hooks\npre-push:\n  commands:\n    hello:\n      run: echo pushing\n")
    tool(npm_bin, "lefthook", "install", cwd=repo)
    result = bonsai("install-hook", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("lefthook: installed (a pre-commit command bonsai-reindex in lefthook.yml")
    assert "next: run `lefthook install`, then commit lefthook.yml" in result.stdout
    assert (repo / "lefthook.yml").read_text().endswith(
        "run: echo pushing\n\npre-commit:\n  commands:\n    bonsai-reindex:\n      run: bonsai-git-hook\n")
    tool(npm_bin, "lefthook", "install", cwd=repo)
    assert OUR_MARKER not in (repo / ".git/hooks/pre-commit").read_bytes()  # lefthook's own script
    git(repo, "add", "lefthook.yml")
    git(repo, "commit", "-qm", "lefthook", "--no-verify")
    edit_leaf(repo)
    commit_until_fresh(repo, npm_bin)
    assert bonsai("install-hook", "-C", str(repo)).stdout.startswith("lefthook: already installed")


def test_lefthook_with_a_pre_commit_section_is_refused_with_the_lines(make_repo: MakeRepo, npm_bin: Path) -> None:
    repo = migrated(make_repo, LIVING)
    (repo / "lefthook.yml").write_text("pre-commit:\n  commands:\n    lint:\n      run: echo lint\n")
    git(repo, "add", "lefthook.yml")
    git(repo, "commit", "-qm", "lefthook")
    tool(npm_bin, "lefthook", "install", cwd=repo)
    result = bonsai_untouched(repo, "install-hook", "-C", str(repo))
    assert result.exit_code == 3
    assert result.stdout == ("# lefthook.yml, under `pre-commit:` -> `commands:`\n"
                             "    bonsai-reindex:\n      run: bonsai-git-hook\n")
    assert "lefthook.yml: already has a pre-commit section" in result.stderr and "lefthook install" in result.stderr


def test_simple_git_hooks_is_refused_with_the_package_json_line(make_repo: MakeRepo, npm_bin: Path) -> None:
    repo = migrated(make_repo, LIVING)
    (repo / "package.json").write_text('{"name": "ws", "version": "1.0.0", "simple-git-hooks": {"pre-commit": "echo hi"}}\n')
    git(repo, "add", "package.json")
    git(repo, "commit", "-qm", "simple-git-hooks")
    tool(npm_bin, "simple-git-hooks", cwd=repo)
    result = bonsai_untouched(repo, "install-hook", "-C", str(repo))
    assert result.exit_code == 3
    assert '"pre-commit": "echo hi && bonsai-git-hook"' in result.stdout
    assert "then run: npx simple-git-hooks" in result.stderr
    (repo / "package.json").write_text(
        '{"name": "ws", "version": "1.0.0", "simple-git-hooks": {"pre-commit": "echo hi && bonsai-git-hook"}}\n')
    git(repo, "commit", "-qam", "bonsai in simple-git-hooks")
    tool(npm_bin, "simple-git-hooks", cwd=repo)
    assert bonsai("install-hook", "-C", str(repo)).stdout.startswith("simple-git-hooks: already installed")
    edit_leaf(repo)
    commit_until_fresh(repo, npm_bin)


def test_a_pre_commit_config_is_refused_with_the_snippet(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, LIVING)
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-qm", "pre-commit")
    result = bonsai_untouched(repo, "install-hook", "-C", str(repo))
    assert result.exit_code == 3 and "id: bonsai-reindex" in result.stdout
    assert "run by the pre-commit framework" in result.stderr
    (repo / ".pre-commit-config.yaml").write_text("repos:\n- repo: local\n  hooks:\n  - id: bonsai-reindex\n")
    assert bonsai("install-hook", "-C", str(repo)).stdout.startswith("pre-commit: already installed")


def test_install_hook_registers_the_merge_driver(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo, LIVING)
    result = bonsai("install-hook", "-C", str(repo), "--merge-driver")
    assert result.exit_code == 0, result.stderr
    assert git(repo, "config", "merge.bonsai.driver").strip() == "bonsai-git merge-driver %O %A %B %P"
    assert "add to .gitattributes and commit it: `MEMORY.md merge=bonsai`  `memory/**/_index*.md merge=bonsai`" in result.stdout
    (repo / ".gitattributes").write_text("MEMORY.md merge=bonsai\nmemory/**/_index*.md merge=bonsai\n")
    assert ".gitattributes" not in bonsai("install-hook", "-C", str(repo), "--merge-driver").stdout


@pytest.mark.parametrize(("name", "text", "snippet"), [
    ("lefthook.toml", '[pre-push.commands.hello]\nrun = "echo pushing"\n',
     '[pre-commit.commands.bonsai-reindex]\nrun = "bonsai-git-hook"\n'),
    (".lefthook.json", '{"pre-push": {"commands": {"hello": {"run": "echo pushing"}}}}\n',
     '"pre-commit": {"commands": {"bonsai-reindex": {"run": "bonsai-git-hook"}}}\n'),
])
def test_lefthook_toml_or_json_config_gets_no_second_yaml_config(make_repo: MakeRepo, npm_bin: Path, name: str,
                                                                 text: str, snippet: str) -> None:
    """lefthook reads one of lefthook.{yml,toml,json,jsonc}, "and you'll never know which": a
    lefthook.yml written beside a lefthook.toml could silently replace the team's config."""
    repo = migrated(make_repo, LIVING)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", "lefthook")
    tool(npm_bin, "lefthook", "install", cwd=repo)
    result = bonsai_untouched(repo, "install-hook", "-C", str(repo))
    assert result.exit_code == 3, result.stdout + result.stderr
    assert not (repo / "lefthook.yml").exists()
    assert result.stdout == f"# {name}\n{snippet}"
    assert f"{name}: lefthook reads its config from {name}" in result.stderr and "lefthook install" in result.stderr


@pytest.mark.parametrize("last", ["exit 0", "exec npx --no -- lint-staged"])
def test_husky_hook_that_ends_in_exit_or_exec_is_refused_with_the_line(make_repo: MakeRepo, npm_bin: Path,
                                                                      last: str) -> None:
    """A line appended after a final `exit`/`exec` never runs: the hook would look installed and do nothing."""
    repo = migrated(make_repo, LIVING)
    tool(npm_bin, "husky", cwd=repo)
    (repo / ".husky/pre-commit").write_text(f"echo users-own-check\n{last}\n")
    git(repo, "add", ".husky/pre-commit")
    git(repo, "commit", "-qm", "own husky hook", "--no-verify")
    result = bonsai_untouched(repo, "install-hook", "-C", str(repo))
    assert result.exit_code == 3, result.stdout + result.stderr
    assert result.stdout == "bonsai-git-hook\n"
    assert f".husky/pre-commit: its last command `{last}` ends the hook" in result.stderr
