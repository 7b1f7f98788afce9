"""Shared fixtures: real git repositories in tmp_path with a pinned, isolated git environment."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

CORPUS = Path(__file__).parent / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
CORPUS_FILES = sorted(p.name for p in CORPUS.glob("[0-9]*.md"))

settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="Rewrite tests/golden/*/expected from the code.")


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Pin git's identity, dates and config for every test (no user or system config leaks in)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(key, raising=False)
    yield


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


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """Create a git workspace holding MEMORY.md (bytes or str), committed on branch main."""
    counter = iter(range(1000))

    def _make(memory: bytes | str | None = None, name: str | None = None, commit: bool = True) -> Path:
        repo = tmp_path / (name or f"ws{next(counter)}")
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
        if memory is not None:
            data = memory.encode("utf-8") if isinstance(memory, str) else memory
            (repo / "MEMORY.md").write_bytes(data)
            if commit:
                git(repo, "add", "MEMORY.md")
                git(repo, "commit", "-q", "-m", "memory")
        return repo

    return _make


def corpus_bytes(name: str) -> bytes:
    """The bytes of one shared corpus file."""
    return (CORPUS / name).read_bytes()
