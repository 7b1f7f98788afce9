"""One read of the truth per run (issue 21, item 1): every command plans from the bytes its checked
writer later compares against, so an agent's write landing between the plan's read and the swap is
caught (exit 1, the write kept) and never silently lost with exit 0.

The agent here writes at the worst moment, deterministically: right after the command planned and
before it writes.  For the commands that run through transaction.apply_changes (migrate, flatten,
move, archive, regroup, purge) that is the entry of `_prior_bytes`, where the run used to read
every file a second time as its "prior bytes"; for reindex, absorb and the hook it is right after
MEMORY.md was read and parsed.  test_concurrent.py adds the real-timing loop of each command.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bonsai_git import reindex, transaction
from bonsai_git.tree import Reads
from living_tree import DATES, LIVING, PRICING, MakeRepo, migrated, write
from support import bonsai, commit, corpus_bytes, git

NOTE = b"\n## Written meanwhile\n\nthe agent's new fact\n"
LINE = b"the agent's new line\n"
SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
GENERAL = "memory/domains/general/glaze-tests.md"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def after_planning(monkeypatch: pytest.MonkeyPatch, target: Path, data: bytes) -> list[int]:
    """Append `data` to `target` once, when apply_changes starts (the plan is made, nothing written)."""
    real = transaction._prior_bytes
    done: list[int] = []

    def prior_bytes(*args: object) -> object:
        if not done:
            done.append(1)
            append(target, data)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(transaction, "_prior_bytes", prior_bytes)
    return done


def assert_caught(result: object, repo: Path, head: str, path: str, expected: bytes) -> None:
    """Exit 1 naming `path`, HEAD unchanged, `path` holding `expected` (the agent's write kept), no journal."""
    assert result.exit_code == 1, result.stderr  # type: ignore[attr-defined]
    assert f"{path}: changed by another process" in result.stderr  # type: ignore[attr-defined]
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / path).read_bytes() == expected
    assert not (repo / ".git/bonsai/journal.json").exists()
    assert git(repo, "diff", "--cached", "--name-only") == ""


@pytest.mark.parametrize("large", [False, True])
def test_migrate_catches_an_append_made_after_it_planned(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                                         large: bool) -> None:
    """Large: MEMORY.md is known by its Fingerprint, and the journal's copy of it is checked against it."""
    if large:
        monkeypatch.setattr(transaction, "LARGE_PRIOR", 0)
    repo = make_repo(SOURCE)
    head = git(repo, "rev-parse", "HEAD")
    assert after_planning(monkeypatch, repo / "MEMORY.md", NOTE) == []
    result = bonsai("migrate", "-C", str(repo))
    assert_caught(result, repo, head, "MEMORY.md", SOURCE + NOTE)
    assert not (repo / "memory").exists()


def test_flatten_catches_an_append_to_a_leaf_it_deletes(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    head, before = git(repo, "rev-parse", "HEAD"), (repo / PRICING).read_bytes()
    after_planning(monkeypatch, repo / PRICING, LINE)
    assert_caught(bonsai("flatten", "-C", str(repo)), repo, head, PRICING, before + LINE)
    assert (repo / "MEMORY.md").read_text().count("<!-- bonsai:end -->") == 1  # still the migrated trunk


def test_flatten_catches_an_append_to_the_trunk_it_rewrites(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    head, before = git(repo, "rev-parse", "HEAD"), (repo / "MEMORY.md").read_bytes()
    after_planning(monkeypatch, repo / "MEMORY.md", NOTE)
    assert_caught(bonsai("flatten", "-C", str(repo)), repo, head, "MEMORY.md", before + NOTE)
    assert (repo / PRICING).is_file()


@pytest.mark.parametrize("command", [("move", PRICING, "projects"), ("archive", PRICING)])
def test_move_and_archive_catch_an_append_to_the_leaf_they_relocate(make_repo: MakeRepo,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    command: tuple[str, ...]) -> None:
    repo = migrated(make_repo)
    head, before = git(repo, "rev-parse", "HEAD"), (repo / PRICING).read_bytes()
    after_planning(monkeypatch, repo / PRICING, LINE)
    assert_caught(bonsai(*command, "-C", str(repo)), repo, head, PRICING, before + LINE)
    assert not (repo / "memory/domains/projects").exists() and not (repo / "memory/archive").exists()


def test_move_catches_an_append_to_the_trunk_it_reindexes(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    head, before = git(repo, "rev-parse", "HEAD"), (repo / "MEMORY.md").read_bytes()
    after_planning(monkeypatch, repo / "MEMORY.md", NOTE)
    assert_caught(bonsai("move", PRICING, "projects", "-C", str(repo)), repo, head, "MEMORY.md", before + NOTE)


def test_move_never_overwrites_a_file_made_at_its_target_after_it_planned(make_repo: MakeRepo,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    head = git(repo, "rev-parse", "HEAD")
    target = repo / "memory/domains/projects/pricing.md"
    target.parent.mkdir(parents=True)
    after_planning(monkeypatch, target, b"## Pricing\n\nthe agent's own file\n")
    result = bonsai("move", PRICING, "projects", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "memory/domains/projects/pricing.md: was created by another process" in result.stderr
    assert target.read_bytes() == b"## Pricing\n\nthe agent's own file\n"
    assert (repo / PRICING).is_file() and git(repo, "rev-parse", "HEAD") == head


def test_regroup_catches_an_append_to_the_leaf_it_moves(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo, LIVING + "\n## Glaze tests\n\nCeladon crawls on the tall mugs.\n")
    assert (repo / GENERAL).is_file()
    (repo / ".bonsai.toml").write_text('[domains.studio]\nkeywords = ["glaze"]\nscope = "the pottery studio"\n')
    commit(repo, "config: a studio domain", ".bonsai.toml")
    head, before = git(repo, "rev-parse", "HEAD"), (repo / GENERAL).read_bytes()
    after_planning(monkeypatch, repo / GENERAL, LINE)
    assert_caught(bonsai("regroup", "-C", str(repo)), repo, head, GENERAL, before + LINE)
    assert not (repo / "memory/domains/studio").exists()


def test_purge_catches_an_append_to_the_archived_file_it_deletes(make_repo: MakeRepo,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    monkeypatch.setenv("BONSAI_NOW", "2026-01-01")
    assert bonsai("archive", PRICING, "-C", str(repo)).exit_code == 0
    archived = "memory/archive/business/pricing.md"
    head, before = git(repo, "rev-parse", "HEAD"), (repo / archived).read_bytes()
    monkeypatch.setenv("BONSAI_NOW", "2027-01-01")
    after_planning(monkeypatch, repo / archived, LINE)
    assert_caught(bonsai("purge", "-C", str(repo)), repo, head, archived, before + LINE)


def test_purge_reads_before_it_checks_the_file_is_committed(make_repo: MakeRepo,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """An append landing between purge's read and its `git status` check is refused by the check (exit 3)."""
    from bonsai_git import lifecycle

    repo = migrated(make_repo)
    monkeypatch.setenv("BONSAI_NOW", "2026-01-01")
    assert bonsai("archive", PRICING, "-C", str(repo)).exit_code == 0
    archived = repo / "memory/archive/business/pricing.md"
    before = archived.read_bytes()
    monkeypatch.setenv("BONSAI_NOW", "2027-01-01")
    real = lifecycle.check_clean_for_commit
    monkeypatch.setattr(lifecycle, "check_clean_for_commit", lambda *a: (append(archived, LINE), real(*a)))
    result = bonsai("purge", "-C", str(repo))
    assert result.exit_code == 3, result.stderr
    assert archived.read_bytes() == before + LINE


# --- reindex, absorb, the hook: an append right after MEMORY.md was read and parsed ---------------

def _after_trunk_read(monkeypatch: pytest.MonkeyPatch, target: Path, data: bytes) -> None:
    real = reindex.read_trunk
    done: list[int] = []

    def read_trunk(workspace: Path, reads: Reads | None = None) -> object:
        found = real(workspace, reads)
        if not done:
            done.append(1)
            append(target, data)
        return found

    monkeypatch.setattr(reindex, "read_trunk", read_trunk)


@pytest.mark.parametrize("command", [("reindex",), ("absorb",), ("hook",)])
def test_reindex_absorb_and_the_hook_catch_an_append_after_reading_the_trunk(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]) -> None:
    repo = migrated(make_repo)
    append(repo / "MEMORY.md", b"\n## Pricing update\n\nMugs are $20 now.\n")
    write(repo, "memory/domains/zzstress/note.md", "## Stress\n\nnew domain: the block changes\n")
    git(repo, "add", "-A")
    before = (repo / "MEMORY.md").read_bytes()
    _after_trunk_read(monkeypatch, repo / "MEMORY.md", NOTE)
    result = bonsai(*command, "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert "MEMORY.md: changed by another process" in result.stderr
    assert (repo / "MEMORY.md").read_bytes() == before + NOTE
    assert not (repo / "memory/domains/business/pricing-update.md").exists()
    assert not (repo / ".git/bonsai/journal.json").exists()


def test_absorb_catches_an_append_to_dates_md_after_planning(make_repo: MakeRepo,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    append(repo / "MEMORY.md", b"\n## Birthday: Theo\n\nJune 2\n")
    trunk, dates = (repo / "MEMORY.md").read_bytes(), (repo / DATES).read_bytes()
    real: Callable[..., object] = reindex._plan_absorb

    def plan_absorb(*args: object) -> object:
        found = real(*args)
        append(repo / DATES, LINE)
        return found

    monkeypatch.setattr(reindex, "_plan_absorb", plan_absorb)
    result = bonsai("absorb", "-C", str(repo))
    assert result.exit_code == 1, result.stderr
    assert f"{DATES}: changed by another process" in result.stderr
    assert (repo / DATES).read_bytes() == dates + LINE
    assert (repo / "MEMORY.md").read_bytes() == trunk


# --- the mechanism itself ------------------------------------------------------------------------

def test_reads_answers_each_path_once(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"first\n")
    reads = Reads(tmp_path)
    assert reads.read("a.md") == b"first\n"
    (tmp_path / "a.md").write_bytes(b"second\n")
    assert reads.read("a.md") == b"first\n" and reads.prior("a.md") == b"first\n"
    assert reads.read_or_none("b.md") is None and reads.prior("b.md") is None
    with pytest.raises(FileNotFoundError):
        reads.read("b.md")
    with pytest.raises(LookupError):
        reads.prior("never-read.md")
    assert Reads(tmp_path, others_absent=True).prior("never-read.md") is None
