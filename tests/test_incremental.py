"""The hook's incremental run (bonsai_git/incremental.py): after edits, adds, deletes and renames it
renders only the domains that changed, and the tree is byte for byte what a rebuild from scratch gives."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import bonsai_git.core.branches as branches
import bonsai_git.core.indexes as indexes
import bonsai_git.incremental as incremental
from bonsai_git.core.layout import BEGIN, END
from bonsai_git.hook import main as hook_main
from bonsai_git.hook import run_hook
from bonsai_git.reindex import reindex_workspace
from living_tree import rebuilt_from_scratch, tree_files
from support import git, snapshot

DOMAINS = ("business", "family", "projects", "travel")  # no leaf in travel at first: a new domain
WORDS = ("Pricing", "Person: Ana", "Person: Bo", "Project 2024 launch", "Meetup notes", "Kiln firing", "Cron jobs")


def _leaf_text(n: int, extra: int = 0) -> str:
    heading = WORDS[n % len(WORDS)]
    return f"## {heading} {n}\n\n" + "".join(f"- fact {n}.{k}: mugs and glaze batch {k * 7}\n" for k in range(1 + extra))


def _workspace(root: Path) -> Path:
    """A committed workspace of 18 leaves in 3 domains, with a small bound so that domains split into sub-branches."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".bonsai.toml").write_text("branch_tokens = 150\n", encoding="utf-8")
    for n in range(18):
        sub = "older/" if n % 7 == 5 else ""
        path = root / "memory" / "domains" / DOMAINS[n % 3] / f"{sub}note-{n:02d}.md"  # travel: none yet
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_leaf_text(n, n % 4), encoding="utf-8")
    (root / "MEMORY.md").write_text(f"# MEMORY\n\nPinned: be brief.\n\n{BEGIN}\n{END}\n", encoding="utf-8")
    reindex_workspace(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tree")
    return root


def _leaves(repo: Path) -> list[str]:
    return sorted(p for p in git(repo, "ls-files", "memory/domains").splitlines()
                  if "/_index" not in p and Path(repo / p).is_file())


@pytest.fixture
def fast_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Each hook run's verdict: True when the incremental run served it, False when it ran in full."""
    runs: list[bool] = []
    real = incremental.run_incremental

    def spy(*args: object, **kwargs: object) -> object:
        try:
            outcome = real(*args, **kwargs)  # type: ignore[arg-type]
        except BaseException:
            runs.append(True)  # it served the run, and the run failed (e.g. ConcurrentWrite)
            raise
        runs.append(outcome is not None)
        return outcome

    monkeypatch.setattr(incremental, "run_incremental", spy)
    yield runs


_OPS = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 99), st.integers(0, 5)),
    st.tuples(st.just("retitle"), st.integers(0, 99), st.integers(0, 50)),
    st.tuples(st.just("add"), st.integers(0, 3), st.integers(100, 140)),
    st.tuples(st.just("delete"), st.integers(0, 99), st.just(0)),
    st.tuples(st.just("rename"), st.integers(0, 99), st.integers(0, 3)),
    st.tuples(st.just("unstage-delete"), st.integers(0, 99), st.just(0)),
    st.tuples(st.just("stage"), st.just(0), st.just(0)),
    st.tuples(st.just("commit"), st.just(0), st.just(0)),
    st.tuples(st.just("touch-index"), st.integers(0, 2), st.just(0)),
)


def _apply(repo: Path, op: tuple[str, int, int]) -> None:
    kind, a, b = op
    leaves = _leaves(repo)
    pick = leaves[a % len(leaves)] if leaves else None
    if kind in ("edit", "retitle") and pick:
        text = _leaf_text(a, b) if kind == "edit" else _leaf_text(b, 1)  # retitle: another heading, another kind
        (repo / pick).write_text(text, encoding="utf-8")
    elif kind == "add":
        path = repo / "memory" / "domains" / DOMAINS[a] / f"added-{b}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_leaf_text(b, b % 3), encoding="utf-8")
        git(repo, "add", "--", path.relative_to(repo).as_posix())
    elif kind == "delete" and pick and len(leaves) > 6:
        git(repo, "rm", "-q", "-f", "--", pick)
    elif kind == "rename" and pick:
        target = f"memory/domains/{DOMAINS[b]}/moved-{a}.md"
        if not (repo / target).exists():
            (repo / target).parent.mkdir(parents=True, exist_ok=True)
            git(repo, "mv", pick, target)
    elif kind == "unstage-delete" and pick and len(leaves) > 6:
        (repo / pick).unlink()  # deleted from disk only: the full run warns (git rm it) and leaves it out
    elif kind == "stage":
        git(repo, "add", "-A")
    elif kind == "commit":
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "step")
    elif kind == "touch-index":
        index = repo / "memory" / "domains" / DOMAINS[a] / "_index.md"
        if index.is_file():
            index.write_text(index.read_text(encoding="utf-8") + "\nhand-written line\n", encoding="utf-8")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(_OPS, min_size=1, max_size=6))
def test_after_any_sequence_of_changes_the_hook_gives_the_bytes_of_a_full_rebuild(
        ops: list[tuple[str, int, int]], fast_runs: list[bool], capsys: pytest.CaptureFixture[str]) -> None:
    fast_runs.clear()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        repo = _workspace(tmp / "ws")
        assert run_hook(repo) == 0  # the full run that records the snapshot
        for op in ops:
            _apply(repo, op)
            note(f"{op}: {git(repo, 'status', '--porcelain')}")
            run_hook(repo)
            assert tree_files(repo) == rebuilt_from_scratch(repo, tmp), op
            assert run_hook(repo) == 0, op  # and the tree is fresh: a second run writes nothing
    capsys.readouterr()
    if fast_runs and all(op[0] != "unstage-delete" for op in ops):  # that one warns at every run: always in full
        assert True in fast_runs  # the incremental run served some of the runs the memo did not


def test_an_edit_renders_only_its_domain_from_the_snapshot(tmp_path: Path, fast_runs: list[bool],
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    rendered: list[str] = []
    real = indexes.domain_index_files

    def counting(stats: indexes.DomainStats, *args: object) -> dict[str, str]:
        rendered.append(stats.name)
        return real(stats, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(indexes, "domain_index_files", counting)
    (repo / "memory/domains/family/note-01.md").write_text(_leaf_text(1, 6), encoding="utf-8")
    assert run_hook(repo) == 1
    assert fast_runs[-1] is True and rendered == ["family"]
    out = capsys.readouterr().out
    assert "wrote memory/domains/family/_index.md" in out and "business" not in out
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)


def test_check_after_an_edit_writes_nothing_and_says_what_a_full_run_says(tmp_path: Path, fast_runs: list[bool],
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    (repo / "memory/domains/projects/note-02.md").write_text(_leaf_text(2, 5), encoding="utf-8")
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    capsys.readouterr()
    before = snapshot(repo)
    assert hook_main(["-C", str(repo), "--check"]) == 1
    fast = capsys.readouterr()
    assert fast_runs == [True, True] or fast_runs[-1] is True
    assert snapshot(repo) == before
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")
    assert hook_main(["-C", str(twin), "--check"]) == 1
    full = capsys.readouterr()
    assert (fast.out, fast.err) == (full.out, full.err)


def test_the_snapshot_declines_what_the_full_run_warns_about(tmp_path: Path, fast_runs: list[bool],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    (repo / "memory/domains/family/note-01.md").unlink()  # deleted but not staged: the full run warns
    assert run_hook(repo) == 1
    assert fast_runs[-1] is False
    assert "deleted but not staged" in capsys.readouterr().err
    git(repo, "rm", "-q", "--cached", "memory/domains/family/note-01.md")
    (repo / "memory/domains/family/notes-akia2e0a8f3b9c1d4e5f.md").write_text(_leaf_text(3), encoding="utf-8")
    git(repo, "add", "-A")
    run_hook(repo)
    assert fast_runs[-1] is False
    assert "in the file name" in capsys.readouterr().err
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)


def test_a_damaged_snapshot_means_a_full_run(tmp_path: Path, fast_runs: list[bool],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    folder = next((repo / ".git" / incremental.SNAPSHOT_DIR).iterdir())
    for rows in folder.glob("d-*"):
        rows.write_bytes(b"not marshal")
    (repo / "memory/domains/business/note-00.md").write_text(_leaf_text(0, 6), encoding="utf-8")
    assert run_hook(repo) == 1
    assert fast_runs[-1] is False
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    (repo / "memory/domains/business/note-00.md").write_text(_leaf_text(0, 2), encoding="utf-8")
    assert run_hook(repo) == 1
    assert fast_runs[-1] is True  # the full run recorded a sound snapshot again
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    capsys.readouterr()


def test_a_second_edit_reuses_the_sub_branches_it_did_not_touch(tmp_path: Path, fast_runs: list[bool],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The snapshot keeps each domain's layout: the next edit there lays out only the sub-branches on
    the edited leaf's path, and takes the others' files as they were (the same bytes)."""
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    leaf = repo / "memory/domains/business/note-03.md"
    leaf.write_text(_leaf_text(3, 2), encoding="utf-8")
    assert run_hook(repo) == 1  # the first edit lays the domain out in full and keeps its layout
    taken: list[int] = []
    real = branches.LayoutMemo.take

    def counting(self: branches.LayoutMemo, key: str, out: dict[str, str]) -> tuple[str, ...] | None:
        found = real(self, key, out)
        taken.append(found is not None)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(branches.LayoutMemo, "take", counting)
        leaf.write_text(_leaf_text(3, 3), encoding="utf-8")
        assert run_hook(repo) == 1
    assert fast_runs[-1] is True and True in taken
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    capsys.readouterr()


def test_an_agents_write_during_an_incremental_run_is_kept_and_the_run_fails(
        tmp_path: Path, fast_runs: list[bool], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The incremental run writes through the same CheckedWriter: an index file another process
    rewrites while it is replaced is left with that process's bytes (exit 1), and the next run,
    which no longer trusts that file, puts the tree right."""
    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    (repo / "memory/domains/family/note-01.md").write_text(_leaf_text(1, 6), encoding="utf-8")
    index = repo / "memory/domains/family/_index.md"
    theirs = b"# written by an agent meanwhile\n"
    real = os.fchmod

    calls: list[int] = []

    def meanwhile(fd: int, mode: int) -> None:  # during a temp file's write, before its swap
        calls.append(fd)
        if len(calls) == 2:  # the second file written (memory/_index.md goes first): the domain's index
            index.write_bytes(theirs)
        real(fd, mode)

    monkeypatch.setattr(os, "fchmod", meanwhile)
    assert hook_main(["-C", str(repo)]) == 1
    assert fast_runs[-1] is True
    assert index.read_bytes() == theirs
    assert "changed by another process" in capsys.readouterr().err
    monkeypatch.setattr(os, "fchmod", real)
    assert run_hook(repo) == 1
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    capsys.readouterr()


def test_an_incremental_run_waits_for_the_lock(tmp_path: Path, fast_runs: list[bool],
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import filelock

    import bonsai_git.hook as hook_module

    repo = _workspace(tmp_path / "ws")
    assert run_hook(repo) == 0
    (repo / "memory/domains/family/note-01.md").write_text(_leaf_text(1, 6), encoding="utf-8")
    monkeypatch.setattr(hook_module._holding_lock, "LOCK_WAIT", 0.2)
    before = snapshot(repo)
    with filelock.FileLock(str(repo / ".git" / "bonsai.lock"), timeout=0):
        assert hook_main(["-C", str(repo)]) == 3
    assert snapshot(repo) == before and fast_runs == []
    assert hook_main(["-C", str(repo)]) == 1 and fast_runs == [True]
    capsys.readouterr()
