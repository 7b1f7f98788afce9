"""The hook's facts cache by git blob id: after one edit only that leaf is read, and the cache
never changes a byte of what the hook writes (damaged, stale or converted-checkout cases are run
against a twin repository with the cache off, BONSAI_GIT_NO_CACHE=1)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import bonsai_git.incremental as incremental
import bonsai_git.reindex as reindex
import bonsai_git.tree as tree
import bonsai_git.factcache as factcache
from bonsai_git.factcache import CACHE_PATH
from bonsai_git.hook import run_hook
from bonsai_git.core.layout import _leaf_location_general, leaf_location
from hypothesis import given
from hypothesis import strategies as st
from living_tree import (
    CRON, FAMILY, PRICING, SCENARIOS, MakeRepo, migrated, rebuilt_from_scratch, run, tree_files, write,
)
from support import git


def _warm(make_repo: MakeRepo) -> Path:
    """A migrated, committed workspace after a full hook run: the facts cache holds every leaf."""
    repo = migrated(make_repo)
    assert run(["bonsai-git-hook"], repo).returncode == 0
    assert (repo / ".git" / CACHE_PATH).is_file()
    return repo


def _without_snapshot(repo: Path) -> None:
    """Remove the hook's incremental snapshot (incremental.py), so its next run is a full one: the run
    the facts cache serves."""
    shutil.rmtree(repo / ".git" / incremental.SNAPSHOT_DIR, ignore_errors=True)


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
    for module in (tree, reindex, incremental):  # each binds the name at import
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
    """Every row kept under its key, its entry replaced by JSON of another shape (or a size that is no number)."""
    head, _, body = path.read_bytes().partition(b"\n")
    wrong = []
    for line in body.splitlines():
        kind, key, _rest = line.split(b"\t", 2)
        entry = {b"f": b'x\t["many","tokens"]', b"b": b'[["a"],["b","c"]]', b"d": b'[[1],"x","",[],[],true]'}[kind]
        wrong.append(kind + b"\t" + key + b"\t" + entry + b"\n")
    assert any(line.startswith(b"d\t") for line in wrong)  # the domains' content entries are damaged too
    path.write_bytes(head + b"\n" + b"".join(wrong) + b"b\tx\t[[\"a\"],[\"b\",\"c\"]]\n")


def _domain_rows_naming_other_files(path: Path) -> None:
    """Each domain's content entry, well formed, naming index files with blob ids git does not hold."""
    head, _, body = path.read_bytes().partition(b"\n")
    out = []
    for line in body.splitlines():
        if line.startswith(b"d\t"):
            kind, key, rest = line.split(b"\t", 2)
            entry = json.loads(rest)
            entry[4] = ["0" * 40 for _ in entry[4]]
            line = kind + b"\t" + key + b"\t" + json.dumps(entry).encode()
        out.append(line + b"\n")
    path.write_bytes(head + b"\n" + b"".join(out))


def _another_format(path: Path) -> None:
    head, _, body = path.read_bytes().partition(b"\n")
    path.write_bytes(head.replace(b'"format": ', b'"format": 9') + b"\n" + body)


@pytest.mark.parametrize("damage", [_garbage, _torn_last_row, _rows_of_the_wrong_shape, _another_format,
                                    _domain_rows_naming_other_files],
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


def _committed(make_repo: MakeRepo) -> Path:
    """A warm workspace with everything committed: the next hook run after a change is an edit run."""
    repo = _warm(make_repo)
    assert git(repo, "status", "--porcelain") == ""
    return repo


def test_after_one_edit_only_the_edited_domain_is_looked_up(make_repo: MakeRepo, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The other domains are done from their content entries: none of their leaves' facts is looked up."""
    repo = _committed(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $21 from May.\n")
    blobs = {line.split()[1]: line.split("\t")[1] for line in git(repo, "ls-files", "-s", "memory").splitlines()}
    looked_up: list[str] = []
    real = factcache.FactsCache._lookup

    def counting(self: factcache.FactsCache, text: str, estimator: str, blob: str) -> object:
        looked_up.append(blobs.get(blob, "edited"))
        return real(self, text, estimator, blob)

    monkeypatch.setattr(factcache.FactsCache, "_lookup", counting)
    _without_snapshot(repo)
    assert run_hook(repo) == 1
    assert "edited" in looked_up
    assert looked_up and all(p == "edited" or p.startswith("memory/domains/business/") or p == "memory/dates.md"
                             for p in looked_up), looked_up
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)
    looked_up.clear()  # the edit and the rewritten indexes left unstaged: those few files are read and hashed
    assert run_hook(repo) == 0
    assert looked_up == [] or looked_up == ["memory/dates.md"]


def _rename_inside_domain(ws: Path) -> None:
    git(ws, "mv", PRICING, "memory/domains/business/prices.md")


def _secret_looking_name(ws: Path) -> None:
    write(ws, "memory/domains/business/notes-akia2e0a8f3b9c1d4e5f.md", "## Notes\n\nA key-looking name.\n")
    git(ws, "add", "-A")


def _index_edited_by_hand(ws: Path) -> None:
    with (ws / "memory/domains/identity/_index.md").open("a", encoding="utf-8") as fh:
        fh.write("- a line typed by hand\n")


def _absorb_extending_a_leaf(ws: Path) -> None:
    """A section of a leaf's topic: absorbing appends it to that leaf (same count, same names)."""
    with (ws / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Family\n\nA niece, Mia, born in June.\n")


def _two_domains_swap_leaves(ws: Path) -> None:
    git(ws, "mv", CRON, "memory/domains/business/cron-jobs.md")
    git(ws, "mv", PRICING, "memory/domains/infrastructure/pricing.md")


@pytest.mark.parametrize("change", [*SCENARIOS, _rename_inside_domain, _secret_looking_name, _index_edited_by_hand,
                                    _absorb_extending_a_leaf, _two_domains_swap_leaves], ids=lambda f: f.__name__.strip("_"))
def test_domains_done_by_content_key_change_no_byte(make_repo: MakeRepo, tmp_path: Path,
                                                    change: Callable[[Path], None]) -> None:
    """Edits, adds, deletes, moves, renames, absorbing, a secret-looking name, a hand-edited index:
    the hook with the domain entries prints and writes what it does without any cache, run after
    run, staged or not, and the tree equals a from-scratch rebuild."""
    repo = _committed(make_repo)
    twin = _twin(repo, tmp_path)
    for ws in (repo, twin):
        change(ws)
    _same_as_without_cache(repo, twin)
    _same_as_without_cache(repo, twin)  # from the entries the first run recorded
    for ws in (repo, twin):
        git(ws, "add", "-A")
    _same_as_without_cache(repo, twin)
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path)


_PART = st.sampled_from(["memory", "domains", "business", "a", ".", "..", "_x", ".git", "", "dates.md", "b.md",
                         "_index.md", ".md", "x.md", "项目.md"])


@given(st.lists(_PART, min_size=1, max_size=6))
def test_leaf_location_fast_path_agrees_with_the_rule(parts: list[str]) -> None:
    for path in ("/".join(parts), "memory/domains/" + "/".join(parts)):
        assert leaf_location.__wrapped__(path) == _leaf_location_general(path), path


def test_rows_no_run_uses_are_dropped_once_they_outweigh_the_rest(make_repo: MakeRepo) -> None:
    """Each edit appends a domain entry; once the unused rows weigh more than a quarter of the used
    ones (and 64 KB), a run rewrites the file with only what it used."""
    repo = _committed(make_repo)
    path = repo / ".git" / CACHE_PATH
    used = path.stat().st_size
    dead = b"".join(b'f\tscript-aware:%040x\t12\t[3,"old","old","Old"]\n' % n for n in range(2500))  # ~130 KB
    with path.open("ab") as fh:
        fh.write(dead)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $21 from May.\n")
    _without_snapshot(repo)
    assert run(["bonsai-git-hook"], repo).returncode == 1
    assert path.stat().st_size < used + len(dead) // 4
    assert b"%040x" % 7 not in path.read_bytes()
    write(repo, CRON, "## Cron Jobs\n\n- one job left\n")  # the compacted file serves the next run
    twin = _twin(repo, repo.parent / "twin-of-compacted")
    _same_as_without_cache(repo, twin)


def test_the_code_fingerprint_covers_the_modules_the_indexes_derive_from() -> None:
    """Each deriving module is read by the fingerprint where it lives now: a module moved (into
    core/, say) must never leave a fingerprint that no longer changes with its code."""
    import os
    import sys

    import bonsai_git.core.branches
    import bonsai_git.core.secretscan
    import bonsai_git.core.summary
    import bonsai_git.core.tokens
    import bonsai_git.core.indexes

    package = Path(factcache.__file__).parent
    listed = {os.path.normpath(package / name) for name in factcache._DERIVING_MODULES}
    assert all(Path(path).is_file() for path in listed)
    for name in ("core.branches", "core.secretscan", "core.summary", "core.tokens", "core.indexes"):
        assert os.path.normpath(sys.modules[f"bonsai_git.{name}"].__file__ or "") in listed, name
