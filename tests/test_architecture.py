"""The pure core imports no I/O, git or CLI modules (STYLE.md habit 1)."""

from __future__ import annotations

import ast
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
