"""Helpers shared by the tests (imported as `support`, a name no other folder's module shadows).

Fixtures live in conftest.py; plain functions and constants live here so that test modules can
import them by a unique module name (tests/openclaw has a conftest.py of its own).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest
    from click.testing import Result

ROOT = Path(__file__).parent.parent  # the checkout (README.md, hooks/, pyproject.toml)
CORPUS = Path(__file__).parent / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("[0-9]*.md"))

MakeRepo = Callable[..., Path]  # the make_repo fixture (conftest.py)
BONSAI = str(Path(sys.executable).parent / "bonsai-git")  # the installed entry point, for runs as a real process

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "2026-03-01T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-03-01T12:00:00+00:00",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "NO_COLOR": "1",
}


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run git in `cwd`; return stdout as text."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def snapshot(repo: Path) -> dict[str, object]:
    """Everything a failed run must leave unchanged: HEAD, index, status and every file's bytes."""
    files = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    return {
        "head": git(repo, "rev-parse", "HEAD", check=False),
        "index": git(repo, "ls-files", "-s"),
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
        "files": files,
    }


def corpus_bytes(name: str) -> bytes:
    """The bytes of one shared corpus file."""
    return (CORPUS / name).read_bytes()


def commit(repo: Path, message: str, *paths: str) -> None:
    """`git add -- PATHS` (all changes when none) and `git commit -q -m MESSAGE` in `repo`."""
    git(repo, "add", "--", *(paths or (".",)))
    git(repo, "commit", "-q", "-m", message)


def bonsai(*args: str, catch_exceptions: bool = True) -> Result:
    """`bonsai-git ARGS` in this process through click's CliRunner (stdout and stderr kept apart).

    Imports the CLI when first called, so importing support (conftest does) stays light."""
    from click.testing import CliRunner

    from bonsai_git.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=catch_exceptions)


def put(repo: Path, files: Mapping[str, str | bytes], message: str | None = None) -> Path:
    """Write each of `files` ({repo-relative path: text or bytes}; folders made as needed) into `repo`,
    then commit exactly those paths as `message` when one is given.  Returns `repo`, so a setup reads
    `return put(make_repo(SOURCE), {".gitignore": "memory/\\n"}, "ignore")`."""
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    if message is not None:
        commit(repo, message, *files)
    return repo


def bonsai_untouched(repo: Path, *args: str) -> Result:
    """`bonsai(*args)`, asserting the run left `repo` exactly as it was (snapshot: HEAD, index, status,
    every file's bytes), as every refusal and every restored failure must.  Returns the result, for
    the exit code and message checks."""
    before = snapshot(repo)
    result = bonsai(*args)
    assert snapshot(repo) == before, (result.exit_code, result.stderr)
    return result


def forget_git_identity(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    """Leave git no committer identity in `repo`: no GIT_AUTHOR_*/GIT_COMMITTER_* variables, an empty
    EMAIL, and user.useConfigOnly so git does not guess one from the host name."""
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("EMAIL", "")
    git(repo, "config", "user.useConfigOnly", "true")
