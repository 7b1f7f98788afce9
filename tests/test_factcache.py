"""The hook's facts cache by git blob id: after one edit only that leaf is read, and the cache
never changes a byte of what the hook writes (damaged, stale or converted-checkout cases are run
against a twin repository with the cache off, BONSAI_GIT_NO_CACHE=1)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import bonsai_git.reindex as reindex
import bonsai_git.tree as tree
from bonsai_git.factcache import CACHE_PATH
from bonsai_git.hook import run_hook
from living_tree import CRON, FAMILY, PRICING, MakeRepo, migrated, rebuilt_from_scratch, run, tree_files, write
from support import git


def _warm(make_repo: MakeRepo) -> Path:
    """A migrated, committed workspace after a full hook run: the facts cache holds every leaf."""
    repo = migrated(make_repo)
    assert run(["bonsai-git-hook"], repo).returncode == 0
    assert (repo / ".git" / CACHE_PATH).is_file()
    return repo


def _twin(repo: Path, tmp_path: Path) -> Path:
    """A copy of `repo` without the cache and the freshness memo."""
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    shutil.rmtree(twin / ".git" / "bonsai-git")
    return twin


def _same_as_without_cache(repo: Path, twin: Path) -> None:
    with_cache = run(["bonsai-git-hook"], repo)
    without = run(["bonsai-git-hook"], twin, {"BONSAI_GIT_NO_CACHE": "1"})
    assert (with_cache.returncode, with_cache.stdout, with_cache.stderr) == \
        (without.returncode, without.stdout, without.stderr)
    assert tree_files(repo) == tree_files(twin)


def test_after_one_edit_the_hook_reads_that_leaf_alone(make_repo: MakeRepo, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _warm(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $21 from May.\n")
    reads: list[str] = []
    real = tree._read_bytes
    counting = lambda path, name=None: reads.append(path) or real(path, name)  # noqa: E731
    for module in (tree, reindex):  # reindex binds the name at import
        monkeypatch.setattr(module, "_read_bytes", counting)
    assert run_hook(repo) == 1
    leaves = [p for p in reads if "/memory/domains/" in p and "/_index" not in p]
    assert leaves == [str(repo / PRICING)]
    indexes = [p for p in reads if "/_index" in p]
    assert indexes and all("/business/" in p or p.endswith("memory/_index.md") for p in indexes)  # the edited ones
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")  # the cache off: every leaf is read, the same bytes
    reads.clear()
    assert run_hook(repo) == 0
    assert any(p.endswith(FAMILY) for p in reads)


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xffnot a cache")


def _torn_last_row(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 7])


def _rows_of_the_wrong_shape(path: Path) -> None:
    head, _, body = path.read_bytes().partition(b"\n")
    wrong = b"".join(b'["f","script-aware:%s",["many","tokens"]]\n' % line[18:58] for line in body.splitlines()
                     if line.startswith(b'["f"'))
    path.write_bytes(head + b"\n" + wrong + b'["b","x",[["a"],["b","c"]]]\n')


def _another_format(path: Path) -> None:
    head, _, body = path.read_bytes().partition(b"\n")
    path.write_bytes(head.replace(b'"format": ', b'"format": 9') + b"\n" + body)


@pytest.mark.parametrize("damage", [_garbage, _torn_last_row, _rows_of_the_wrong_shape, _another_format],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_cache_changes_no_byte(make_repo: MakeRepo, tmp_path: Path, damage: Callable[[Path], None]) -> None:
    repo = _warm(make_repo)
    damage(repo / ".git" / CACHE_PATH)
    twin = _twin(repo, tmp_path)
    for ws in (repo, twin):
        write(ws, PRICING, "## Pricing\n\nWholesale mugs $21 from May.\n")
        write(ws, CRON, "## Cron Jobs\n\n- one job left\n")
    _same_as_without_cache(repo, twin)
    _same_as_without_cache(repo, twin)  # and the run after, from the cache that run wrote


def test_a_converted_checkout_of_a_cached_blob_is_read(make_repo: MakeRepo, tmp_path: Path) -> None:
    """A checkout that converts (here git's `ident`: `$Id$` is expanded in the work tree) holds
    other bytes than the blob git's index names and reports unchanged: the leaf is read, never
    rendered from the entry the blob's own bytes made (the entry's size differs from the file's)."""
    repo = migrated(make_repo)
    write(repo, FAMILY, "## Family\n\n$Id$ Partner Sam; kids Ada and Theo.\n")
    git(repo, "commit", "-qam", "id line", "--no-verify")
    assert run(["bonsai-git-hook"], repo).returncode == 1  # indexes it, and caches the blob's own bytes
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "indexes", "--no-verify")
    twin = _twin(repo, tmp_path)
    for ws in (repo, twin):
        write(ws, ".gitattributes", "memory/** ident\n")
        git(ws, "add", ".gitattributes")
        git(ws, "commit", "-qm", "ident", "--no-verify")
        (ws / FAMILY).unlink()
        git(ws, "checkout", "--", FAMILY)
        assert b"$Id: " in (ws / FAMILY).read_bytes()
        assert git(ws, "ls-files", "-m").strip() == ""  # unchanged, as git sees it
    _same_as_without_cache(repo, twin)
    assert b"$Id: " in (repo / "memory/domains/identity/_index.md").read_bytes()


def test_a_tree_edited_at_every_run_stays_equal_to_a_rebuild(make_repo: MakeRepo, tmp_path: Path) -> None:
    """Appended rows, branch entries answered from git's listing: five edits, each checked."""
    repo = _warm(make_repo)
    for step in range(5):
        write(repo, [PRICING, CRON, FAMILY][step % 3], f"## Note {step}\n\nFact number {step}.\n")
        if step % 2:
            git(repo, "add", "-A")
        assert run(["bonsai-git-hook"], repo).returncode == 1
        assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    rows = (repo / ".git" / CACHE_PATH).read_bytes().count(b"\n")
    assert rows < 60  # appended, and compacted when most rows went unused
