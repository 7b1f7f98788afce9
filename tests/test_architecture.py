"""The layers hold: the pure core imports no I/O, git or CLI module (STYLE.md habit 1), the
hook's import path stays light, commands load only when they run, every package ships."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from living_tree import HOOK_SCRIPT, PRICING, MakeRepo, migrated, run, write

PACKAGE = Path(__file__).parent.parent / "bonsai_git"
CORE = sorted(p.stem for p in (PACKAGE / "core").glob("*.py"))
# Core takes text, not paths or processes: no file, process, socket or terminal module (pathlib
# only for PurePosixPath, checked below), no git, CLI or lock library.  Pure third-party
# libraries (slugify, markdown_it, mdit_py_plugins) are allowed.
FORBIDDEN = {"os", "io", "sys", "subprocess", "shutil", "tempfile", "glob", "fcntl", "mmap", "socket", "select",
             "signal", "sqlite3", "traceback", "multiprocessing", "threading", "filelock", "git", "gitdb", "click"}
# Never on the hook's import path (a no-op commit): GitPython, click, markdown-it, slugify.
HEAVY = ("git", "click", "markdown_it", "slugify")


def _imports(path: Path, package: str) -> set[str]:
    """Every module `path` imports at run time (absolute names; `from m import n` also gives `m.n`)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []  # typing-only imports never run
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[:len(parts) - (node.level - 1)], *([node.module] if node.module else [])])
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_no_io_and_imports_only_core(module: str) -> None:
    names = _imports(PACKAGE / "core" / f"{module}.py", "bonsai_git.core")
    bad = {n for n in names if n.split(".")[0] in FORBIDDEN}
    bad |= {n for n in names if n.split(".")[0] == "pathlib" and n not in ("pathlib", "pathlib.PurePosixPath")}
    bad |= {n for n in names if n == "pathlib" and f"{n}.PurePosixPath" not in names}  # `import pathlib` whole
    bad |= {n for n in names if n.startswith("bonsai_git") and n.split(".")[:2] != ["bonsai_git", "core"]
            and n != "bonsai_git"}
    assert not bad, f"core/{module}.py imports {sorted(bad)}"


def test_the_purity_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("from pathlib import Path\nfrom ..tree import read_leaves\nimport os.path\n"
                                   "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..survey import x\n")
    names = _imports(tmp_path / "m.py", "bonsai_git.core")
    assert {"pathlib.Path", "bonsai_git.tree", "os.path"} <= names and "bonsai_git.survey" not in names


def test_commands_use_no_click_and_cli_loads_them_only_when_a_command_runs() -> None:
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        assert not {n for n in _imports(path, "bonsai_git.commands") if n.split(".")[0] == "click"}, path.name
    code = ("import sys; import bonsai_git.cli\n"
            "print(sorted(m for m in sys.modules if m.startswith('bonsai_git.commands') or m == 'git'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout == "[]\n"  # `bonsai-git --help` stays light


def test_every_package_folder_is_in_the_wheel() -> None:
    listed = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    folders = sorted(".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py"))
    assert sorted(listed) == folders


PROBE = """
import sys
from bonsai_git.hook import main
code = main(sys.argv[1:])
heavy = sorted(m for m in ("git", "click", "markdown_it", "slugify", "filelock", "tomllib") if m in sys.modules)
print(code, ",".join(heavy))
"""


def test_hook_path_never_imports_gitpython_click_markdown_it_or_slugify(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale $20.\n")
    assert run([sys.executable, "-c", PROBE], repo).stdout.splitlines()[-1] == "1 "  # a run that rewrites files
    assert run([sys.executable, "-c", PROBE], repo).stdout.splitlines()[-1] == "0 "  # a no-op run
    timed = run([sys.executable, "-X", "importtime", str(HOOK_SCRIPT)], repo)  # the console script, no-op
    imported = {line.rsplit("|", 1)[-1].strip() for line in timed.stderr.splitlines() if line.startswith("import time:")}
    assert timed.returncode == 0 and "bonsai_git.hook" in imported
    assert not {m for m in imported if m.split(".")[0] in HEAVY or m == "gitdb"}
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln service\nDone.\n")
    # absorbing: slugify names the new leaf; plain text is cut by the line scanner, not markdown-it; the
    # classifier reads its lexicon (TOML package data) to place the section, so tomllib loads then
    assert run([sys.executable, "-c", PROBE], repo).stdout.splitlines()[-1] == "1 slugify,tomllib"
