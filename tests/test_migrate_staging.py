"""Both ways a migration stages its files end in the same commit: `git fast-import` of the bytes it
wrote into one pack (the usual case), or `git update-index --add` when git converts the files (so
git applies its filters); and an append that lands before staging is never committed."""

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


@pytest.mark.parametrize(("sections", "packed"), [(40, True), (300, True), (40, False)])
def test_both_staging_routes_commit_exactly_the_files_on_disk(make_repo: MakeRepo, sections: int,
                                                               packed: bool) -> None:
    repo = make_repo(memory(sections))
    if not packed:  # an attribute that makes git convert: the files go through `update-index --add`
        (repo / ".gitattributes").write_text("*.md text eol=lf\n")
        git(repo, "add", ".gitattributes")
        git(repo, "commit", "-q", "-m", "attributes")
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
    if packed:  # however few: migrate keeps fast-import's pack (fastimport.unpackLimit=0), no unpack-objects
        assert counts["in-pack"] >= sections  # the leaves went into one pack, not loose objects
        paths = [e.split("\t", 1)[1] for e in entries]
        trees = {"", *(p.rsplit("/", k)[0] for p in paths for k in range(1, p.count("/") + 1))}
        assert counts["count"] - loose_before == len(trees) + 1  # loose: only what git commit made (trees, commit)
    else:
        assert counts["count"] - loose_before >= sections  # update-index wrote them as git add does
        assert counts["in-pack"] == 0


def test_an_append_between_writing_and_staging_stays_unstaged_and_the_migration_lands(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent appends to a new leaf right before `git` stages it: the commit holds the bytes the
    migration wrote, the append stays in the working tree as a change of its own, nothing is lost
    (staging from disk committed the append and then restored the whole run as a hook's edit)."""
    repo = make_repo(memory(12))
    stage = transaction._stage
    appended: list[Path] = []

    def append_then_stage(ctx: object, changes: dict[str, bytes | None], modes: object) -> None:
        leaf = repo / next(p for p in sorted(changes) if p.startswith("memory/domains/") and "_index" not in p)
        with leaf.open("ab") as handle:
            handle.write(b"- written by the agent meanwhile\n")
        appended.append(leaf)
        stage(ctx, changes, modes)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "_stage", append_then_stage)
    result = CliRunner().invoke(main, ["migrate", "--force", "-C", str(repo)])
    assert result.exit_code == 0, result.output
    leaf = appended[0]
    rel = leaf.relative_to(repo).as_posix()
    on_disk = leaf.read_bytes()
    committed = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=repo, capture_output=True, check=True).stdout
    assert on_disk == committed + b"- written by the agent meanwhile\n"
    assert git(repo, "status", "--porcelain") == f" M {rel}\n"
