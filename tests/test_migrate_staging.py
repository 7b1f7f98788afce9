"""Both ways a migration stages its files end in the same commit: one `git update-index --add`
(loose objects) for a small batch, `git fast-import` into one pack for a large one."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git import transaction
from bonsai_git.cli import main
from support import git

MakeRepo = Callable[..., Path]


def memory(sections: int) -> str:
    """A MEMORY.md of `sections` sections across several domains."""
    heads = ["Business notes", "Family", "Cron jobs", "Meetup group", "Agent tasks", "Contract"]
    return "# MEMORY\n\n" + "".join(f"## {heads[i % len(heads)]} {i}\n\n- fact {i}: kept as written.\n\n"
                                     for i in range(sections))


def objects(repo: Path) -> dict[str, int]:
    counts = {}
    for line in git(repo, "count-objects", "-v").splitlines():
        key, _, value = line.partition(": ")
        counts[key] = int(value) if value.isdigit() else 0
    return counts


@pytest.mark.parametrize(("sections", "packed"), [(40, False), (transaction._LOOSE_BATCH + 20, True)])
def test_a_small_and_a_large_migration_commit_exactly_the_files_on_disk(make_repo: MakeRepo, sections: int,
                                                                         packed: bool) -> None:
    repo = make_repo(memory(sections))
    loose_before = objects(repo)["count"]
    result = CliRunner().invoke(main, ["migrate", "--force", "-C", str(repo)])
    assert result.exit_code == 0, result.output
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""  # index stat data refreshed too
    committed = git(repo, "ls-tree", "-r", "-z", "HEAD").split("\0")
    entries = [e for e in committed if e]
    assert len(entries) > sections  # every leaf and index, and MEMORY.md
    for entry in entries:
        meta, path = entry.split("\t", 1)
        mode, _kind, blob = meta.split()
        assert mode == "100644"
        on_disk = subprocess.run(["git", "hash-object", "--no-filters", path], cwd=repo, capture_output=True,
                                 text=True, check=True).stdout.strip()
        assert blob == on_disk, path
    counts = objects(repo)
    if packed:
        assert counts["in-pack"] >= sections  # the leaves went into one pack, not loose objects
    else:
        assert counts["count"] - loose_before >= sections  # update-index wrote them as git add does
        assert counts["in-pack"] == 0
