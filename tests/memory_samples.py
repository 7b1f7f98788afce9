"""A small migrated workspace for the status and lifecycle tests, with commits at chosen dates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git.cli import main
from support import git

MakeRepo = Callable[..., Path]
DAY0 = "2026-03-01T12:00:00+00:00"  # conftest's pinned commit date

SAMPLE = (
    "# Memory\n\n"
    "## Business Overview\n\nAcme Pottery sells hand-thrown mugs to cafes in three cities.\n\n"
    "## Pricing\n\nWholesale mugs are $18; retail $32. Net 30 for cafes.\n\n"
    "## Travel Notes\n\nAisle seat, never basic economy. Prefers driving under 6 hours.\n\n"
    "## Reading List\n\nThe Unhurried Workshop (chapter 7).\n\n"
    "## Cron Jobs\n\n" + "".join(f"- job {i:02d}: nightly kiln temperature export to the shared sheet\n" for i in range(40))
    + "\n## Services\n\nThe sandbox AWS key is AKIABONSAITESTKEY123 (fake, for the secret scan).\n"
)
TRAVEL = "memory/domains/general/travel-notes.md"
READING = "memory/domains/general/reading-list.md"
PRICING = "memory/domains/business/pricing.md"
CRON = "memory/domains/infrastructure/cron-jobs.md"


def run(*args: str, ok: bool = False) -> Result:
    """Invoke the CLI in-process; `ok=True` lets exceptions through (success paths)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=not ok)


def at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """Date the next commits at `when` (ISO 8601), author and committer alike."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)


def migrated(make_repo: MakeRepo, memory: str = SAMPLE) -> Path:
    """A workspace whose MEMORY.md was committed and then migrated (both at DAY0)."""
    repo = make_repo(memory)
    keep_in_general(repo)
    result = run("migrate", "-C", str(repo), "--force", ok=True)
    assert result.exit_code == 0, result.output
    return repo


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


# The default table sends "Travel Notes" and "Reading List" to personal/; these tests need leaves in
# general/ (reflect, archive, move out of general), so the sample narrows personal's keywords.
NARROW_PERSONAL = '[domains.personal]\nkeywords = ["fitness"]\n'


def keep_in_general(repo: Path) -> None:
    """Commit a `.bonsai.toml` that keeps the sample's travel and reading sections in general/."""
    (repo / ".bonsai.toml").write_text(NARROW_PERSONAL)
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-q", "-m", "config")
