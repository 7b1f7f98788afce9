"""Opt-in integration suite against the real OpenClaw (see README, "OpenClaw").

Skipped unless ``BONSAI_OPENCLAW=1``: without it, every test here is marked
skipped at collection and nothing heavy is imported or installed. With it, the
session installs the pinned Node + OpenClaw into a cache outside the repo
(once; ``BONSAI_OPENCLAW_CACHE`` overrides the folder) and skips with a reason
when that cannot work here (no registry, no ``unshare -n``, Node too old).

Tests marked ``openclaw_static`` read files only and always run.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ENABLED = os.environ.get("BONSAI_OPENCLAW") == "1"
HERE = Path(__file__).resolve().parent
_SUMMARY: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "openclaw: needs the real OpenClaw runtime (BONSAI_OPENCLAW=1)")
    config.addinivalue_line("markers", "openclaw_static: reads files only; runs without BONSAI_OPENCLAW")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        return
    skip = pytest.mark.skip(reason="OpenClaw integration suite: set BONSAI_OPENCLAW=1 to run it")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents and item.get_closest_marker("openclaw_static") is None:
            item.add_marker(skip)


def _load_harness() -> ModuleType:
    # Loaded by path so the suite works under any --import-mode.
    name = "bonsai_openclaw_harness"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "harness.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def harness() -> ModuleType:
    return _load_harness()


@pytest.fixture(scope="session")
def runtime(harness: ModuleType) -> Any:
    """The pinned Node + OpenClaw, installed on demand; skip (not fail) where it cannot run."""
    try:
        return harness.ensure_runtime()
    except harness.Unavailable as exc:
        pytest.skip(f"OpenClaw unavailable: {exc}")


@pytest.fixture(scope="session")
def bonsai_cli(harness: ModuleType) -> list[str]:
    argv = harness.bonsai_exe()
    import subprocess

    proc = subprocess.run([*argv, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, f"bonsai-git is not installed in this Python ({sys.executable}): {proc.stderr}"
    return argv


@pytest.fixture(scope="session")
def report() -> list[str]:
    """Lines for the closing summary (boot sizes, facts found, provenance finding)."""
    return _SUMMARY


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _SUMMARY:
        terminalreporter.section("OpenClaw integration findings")
        for line in _SUMMARY:
            terminalreporter.write_line(line)
