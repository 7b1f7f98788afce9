"""The pure core imports no I/O, git or CLI modules (STYLE.md habit 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "bonsai_git"
CORE = ["sections", "classify", "slugs", "tokens", "summary", "indexes", "plan", "secretscan", "report", "branches",
        "lookup", "planfile", "explain", "flatplan"]
FORBIDDEN = {"click", "git", "subprocess", "os", "shutil", "tempfile", "filelock", "bonsai_git.gitrepo",
             "bonsai_git.transaction"}


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []  # typing-only imports never run
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ("bonsai_git." if node.level else "") + (node.module or "")
            found.add(base)
    return found


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_no_io(module: str) -> None:
    bad = {name for name in _imports(module) if name in FORBIDDEN or name.split(".")[0] in {"git", "click", "subprocess"}}
    assert not bad, f"{module}.py imports {sorted(bad)}"


def test_commands_use_no_click_and_cli_loads_them_only_when_a_command_runs() -> None:
    commands = sorted(p.stem for p in (PACKAGE / "commands").glob("*.py"))
    for module in commands:
        assert not {n for n in _imports(f"commands/{module}") if n.split(".")[0] == "click"}, module
    code = ("import sys; import bonsai_git.cli\n"
            "print(sorted(m for m in sys.modules if m.startswith('bonsai_git.commands') or m == 'git'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout == "[]\n"  # `bonsai-git --help` stays light


def test_every_package_folder_is_in_the_wheel() -> None:
    listed = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    folders = sorted(".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py"))
    assert sorted(listed) == folders
