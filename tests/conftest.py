"""Shared fixtures: real git repositories in tmp_path with a pinned, isolated git environment."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from support import CORPUS, CORPUS_FILES, EXPECTED, GIT_ENV, corpus_bytes, git, snapshot  # noqa: F401 (re-exported)

settings.register_profile("ci", derandomize=True, max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", help="Rewrite tests/golden/*/expected from the code.")
    parser.addoption("--update-docs", action="store_true",
                     help="Rewrite the outputs of the README's and docs/' console examples from the commands.")


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Pin git's identity, dates and config for every test (no user or system config leaks in)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw-state"))  # never the real ~/.openclaw
    monkeypatch.delenv("OPENCLAW_CONFIG_PATH", raising=False)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))  # never the real ~/.codex (runtimes.py)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))  # never the real ~/.claude
    yield


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
