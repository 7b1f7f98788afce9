"""`bonsai-git demo`: a throwaway workspace from the bundled sample, migrated, with before/after.

Works with no git identity configured: the demo repository gets a local demo identity (in its
own .git/config only) and commit signing off, so nothing outside it changes.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path

from .core.errors import Refused
from . import gitrun
from .gitsettings import check_no_repository_env
from .transaction import migrate

DEMO_IDENTITY = (("user.name", "bonsai-git demo"), ("user.email", "demo@bonsai-git.invalid"), ("commit.gpgsign", "false"))


def sample_memory() -> bytes:
    """The bundled sample MEMORY.md (~6,000 tokens), as bytes."""
    return resources.files("bonsai_git").joinpath("data/demo_memory.md").read_bytes()


def run_demo(directory: Path | None) -> str:
    """Create the demo workspace in `directory` (new or empty; default a fresh temp folder), migrate it.

    Returns the report to print.  Raises Refused when `directory` exists and is not empty.
    """
    check_no_repository_env("demo")  # git init would initialise GIT_DIR's repository instead
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="bonsai-demo-"))
    elif directory.exists() and any(directory.iterdir()):
        raise Refused(f"{directory}: exists and is not empty; give a new folder for the demo")
    directory.mkdir(parents=True, exist_ok=True)
    gitrun.run(directory, "init", "-q", "-b", "main", check=True)
    for key, value in DEMO_IDENTITY:
        gitrun.run(directory, "config", key, value, check=True)
    (directory / "MEMORY.md").write_bytes(sample_memory())
    gitrun.run(directory, "add", "MEMORY.md", check=True)
    gitrun.run(directory, "commit", "-q", "-m", "Agent memory as one flat file", check=True)
    result = migrate(directory)
    assert result.plan is not None and result.commit is not None
    plan = result.plan
    saved = 100 * (plan.boot_tokens_before - plan.boot_tokens_after) / plan.boot_tokens_before
    subject = gitrun.run(directory, "log", "-1", "--format=%s", check=True).stdout.decode().strip()
    tree = gitrun.run(directory, "ls-files", check=True).stdout.decode().split()
    lines = [
        f"Demo workspace: {directory}",
        f"Boot tokens (loaded at every session start): {plan.boot_tokens_before:,} -> {plan.boot_tokens_after:,} "
        f"({saved:.0f}% less)",
        f"Commit {result.commit[:12]}: {subject}",
        "",
        "The tree:",
        *(f"  {path}" for path in tree),
        "",
        "Domains:",
        *(f"  {d.name:<16} {len(d.leaves):>3} {'leaf ' if len(d.leaves) == 1 else 'leaves'} ~{d.tokens:,} tokens"
          for d in plan.domains),
        "",
        f"Look:        cd {directory} && git show --stat HEAD && cat MEMORY.md",
        f"Roll back:   bonsai-git rollback -C {directory}",
    ]
    return "\n".join(lines)
