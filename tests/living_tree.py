"""Helpers for the living-tree tests (reindex, absorb, the hooks): a migrated sample and tree snapshots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from bonsai_git.transaction import migrate
from bonsai_git.core.layout import BEGIN, END
from support import GIT_ENV, git

MakeRepo = Callable[..., Path]
BIN = Path(sys.executable).parent
HOOK_SCRIPT = BIN / "bonsai-git-hook"
BONSAI = BIN / "bonsai-git"

LIVING = (
    "# Memory\n\nPinned: answer briefly; ask before spending money.\n\n"
    "## Business Overview\n\nAcme Pottery sells hand-thrown mugs to cafes in three cities.\n\n"
    "## Pricing\n\nWholesale mugs are $18; retail $32. Net 30 for cafes.\n\n"
    "## Family\n\nPartner Sam; kids Ada (9) and Theo (6). School pickup on Thursdays.\n\n"
    "## Cron Jobs\n\n" + "".join(f"- job {i:02d}: nightly kiln temperature export to the shared sheet\n" for i in range(30))
    + "\n## Birthdays to remember\n\n- Sam: May 3\n- Ada: October 12\n\n"
    "## Reading List\n\nThe Unhurried Workshop (chapter 7).\n"
)
PRICING = "memory/domains/business/pricing.md"
OVERVIEW = "memory/domains/business/business-overview.md"
FAMILY = "memory/domains/identity/family.md"
CRON = "memory/domains/infrastructure/cron-jobs.md"
READING = "memory/domains/personal/reading-list.md"
DATES = "memory/dates.md"


def migrated(make_repo: MakeRepo, memory: str = LIVING, name: str | None = None) -> Path:
    """A committed git workspace holding `memory`, migrated by bonsai-git (one commit)."""
    repo = make_repo(memory, name=name)
    migrate(repo, force=True)
    return repo


def write(ws: Path, path: str, text: str) -> None:
    """Write `text` to the workspace-relative `path`, creating folders."""
    target = ws / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8"))


def tree_files(ws: Path) -> dict[str, bytes]:
    """{workspace-relative path: bytes} of MEMORY.md and everything under memory/ (the tree)."""
    files = {"MEMORY.md": (ws / "MEMORY.md").read_bytes()} if (ws / "MEMORY.md").exists() else {}
    root = ws / "memory"
    if root.is_dir():
        files |= {p.relative_to(ws).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    return files


def rebuilt_from_scratch(ws: Path, tmp: Path) -> dict[str, bytes]:
    """The tree a from-scratch reindex of a copy gives: every `_index.md` deleted, the block emptied."""
    from bonsai_git.reindex import reindex_workspace
    from bonsai_git.core.layout import parse_trunk

    copy = tmp / "from-scratch"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(ws, copy, ignore=shutil.ignore_patterns(".git"))
    for index in (copy / "memory").rglob("_index.md"):
        index.unlink()
    parts = parse_trunk((copy / "MEMORY.md").read_bytes().decode("utf-8"))
    assert parts is not None
    nl = parts.newline
    (copy / "MEMORY.md").write_bytes((parts.pinned + f"{BEGIN}{nl}{END}{nl}" + parts.inbox).encode("utf-8"))
    reindex_workspace(copy)
    return tree_files(copy)


def env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment for subprocesses: pinned git identity, this venv's scripts first on PATH."""
    out = dict(os.environ) | GIT_ENV
    out["PATH"] = f"{BIN}{os.pathsep}{out.get('PATH', '')}"
    out.pop("BONSAI_GIT_NO_CACHE", None)
    return out | dict(extra or {})


def run(args: list[str], cwd: Path, extra_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command in `cwd` with `env()`; capture text output."""
    return subprocess.run(args, cwd=cwd, env=env(extra_env), capture_output=True, text=True)


def commit_all(repo: Path, message: str = "change") -> subprocess.CompletedProcess[str]:
    """`git add -A && git commit` (hooks run); returns the commit's CompletedProcess."""
    git(repo, "add", "-A")
    return run(["git", "commit", "-q", "-m", message], repo)


# --- the scenarios every hook test runs: each changes the tree so that the indexes go stale ---

def edit_leaf(ws: Path) -> None:
    write(ws, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")


def add_leaf(ws: Path) -> None:
    write(ws, "memory/domains/business/suppliers.md", "## Suppliers\n\nClay from Highwater Clays.\n")


def delete_leaf(ws: Path) -> None:
    (ws / READING).unlink()


def move_leaf(ws: Path) -> None:
    git(ws, "mv", FAMILY, "memory/domains/personal/family.md")


def append_to_memory(ws: Path) -> None:
    with (ws / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln config\n\nCone 6 program, hold 10 minutes.\n")


SCENARIOS: list[Callable[[Path], None]] = [edit_leaf, add_leaf, delete_leaf, move_leaf, append_to_memory]


def assert_commit_lands_at_once(repo: Path) -> None:
    """With the plain git hook, the commit goes through at the first attempt: the hook regenerates
    the stale indexes from what the commit holds, stages them and says so in one line (issue 22);
    the tree is then fresh and `git status` clean."""
    first = commit_all(repo, "memory change")
    out = first.stdout + first.stderr
    assert first.returncode == 0, out
    assert "bonsai-git: regenerated " in out and "staged them" in out and "bonsai-git: wrote" not in out
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0
    assert git(repo, "status", "--porcelain") == ""
