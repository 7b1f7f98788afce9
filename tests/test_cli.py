"""The CLI wiring (cli.py, DESIGN.md §6): exit codes for usage errors, bugs and Ctrl-C, the version, the real\nprocess.  Each command's own tests are in tests/commands/."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git import cli
from bonsai_git.cli import main
from support import corpus_bytes

MakeRepo = Callable[..., Path]
BONSAI = str(Path(sys.executable).with_name("bonsai-git"))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_usage_error_exits_2() -> None:
    assert run("migrate", "--no-such-flag").exit_code == 2


def test_unexpected_exception_exits_4_with_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("bonsai_git.demo.run_demo", boom)
    result = run("demo")
    assert result.exit_code == 4
    assert "RuntimeError: a bug" in result.stderr and "internal error" in result.stderr


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("bonsai_git.demo.run_demo", interrupted)
    result = run("demo")
    assert result.exit_code == 130 and "interrupted" in result.stderr


def test_cli_as_a_subprocess_migrate_then_rollback(make_repo: MakeRepo) -> None:
    source = corpus_bytes("18-utf8-bom.md")
    repo = make_repo(source)
    env = dict(os.environ)
    refused = subprocess.run([BONSAI, "migrate", "-C", str(repo)], capture_output=True, text=True, env=env)
    assert refused.returncode == 3 and "Use --force" in refused.stderr and refused.stdout == ""
    done = subprocess.run([BONSAI, "migrate", "-C", str(repo), "--force"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    back = subprocess.run([BONSAI, "rollback", "-C", str(repo)], capture_output=True, text=True, env=env)
    assert back.returncode == 0, back.stderr
    assert (repo / "MEMORY.md").read_bytes() == source


def test_version_option() -> None:
    assert cli.__version__ in run("--version").stdout


def test_forcing_a_tiny_memory_says_the_trunk_grew(make_repo: MakeRepo) -> None:
    """An attack pass: `migrate --force` on a 41-token memory printed "-271% less"; a trunk that grows
    says how much more it costs, and why."""
    repo = make_repo(b"## Family\n- mum\n\n## Servers\n- nas\n")
    result = run("migrate", "-C", str(repo), "--force")
    assert result.exit_code == 0, result.stderr
    boot = next(line for line in result.stdout.splitlines() if line.startswith("boot tokens:"))
    assert "% more: the trunk's index outweighs so small a memory at every session start" in boot and "-" not in boot.split("(")[1]
