"""Opt-in suite against the real Codex CLI and Claude Code, offline (docs/agents.md).

Skipped unless ``BONSAI_CLIENTS=1``: without it every test here is marked skipped at collection
and nothing is installed.  With it, the session installs both CLIs from npm with the shared
scripts (``../shared/tools/clients/``, next to the repository; ``BONSAI_CLIENTS_TOOLS`` overrides)
into a cache outside the repository (``BONSAI_CLIENTS_CACHE``, default
``~/.cache/bonsai-git/clients``), and skips with a reason when that cannot work here (no scripts,
no npm/node/unshare/ip, no registry on the first run).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ENABLED = os.environ.get("BONSAI_CLIENTS") == "1"
HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "clients: needs the real Codex CLI and Claude Code (BONSAI_CLIENTS=1)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="real-clients suite (Codex CLI, Claude Code): set BONSAI_CLIENTS=1 to run it")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


def _load_harness() -> ModuleType:
    name = "bonsai_clients_harness"  # loaded by path: works under any --import-mode
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "harness.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def clients() -> object:
    """The installed CLIs (harness.Clients); skip, not fail, where they cannot run."""
    harness = _load_harness()
    try:
        return harness.ensure_clients()
    except harness.Unavailable as exc:
        pytest.skip(f"real clients unavailable: {exc}")
