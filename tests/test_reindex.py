"""reindex: every shape the living tree takes, determinism, and incremental == from scratch (hypothesis)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.cli import main
from bonsai_git.core.config import Config
from bonsai_git.core.errors import BadInput
from bonsai_git.factcache import FactsCache
from bonsai_git.core.indexes import render_tree
from bonsai_git.reindex import reindex_workspace
from bonsai_git.core.layout import BEGIN, END, parse_trunk
from bonsai_git.tree import read_leaves, walk_leaf_paths
from living_tree import (
    CRON, DATES, FAMILY, PRICING, READING, MakeRepo, migrated, rebuilt_from_scratch, run, tree_files, write,
)


def reindexed(ws: Path, tmp_path: Path) -> tuple[str, ...]:
    """Reindex `ws`; check a second run writes nothing and the result equals a from-scratch rebuild."""
    changed = reindex_workspace(ws).changed
    assert reindex_workspace(ws).changed == ()
    assert tree_files(ws) == rebuilt_from_scratch(ws, tmp_path)
    return changed


def test_reindex_after_migrate_changes_nothing(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    assert reindexed(ws, tmp_path) == ()


def test_reindex_after_editing_a_leaf_rewrites_its_branch_and_the_root(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    write(ws, PRICING, "## Pricing\n\nWholesale mugs are now $20.\n" + "- tier note\n" * 40)
    assert reindexed(ws, tmp_path) == ("memory/_index.md", "memory/domains/business/_index.md")  # not MEMORY.md
    assert "Wholesale mugs are now $20." in (ws / "memory/domains/business/_index.md").read_text()


def test_reindex_lists_an_added_leaf(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    write(ws, "memory/domains/business/suppliers.md", "## Suppliers\n\nClay from Highwater Clays, Asheville.\n")
    assert "memory/domains/business/_index.md" in reindexed(ws, tmp_path)
    index = (ws / "memory/domains/business/_index.md").read_text()
    assert "### suppliers.md (~" in index and "3 leaves" in index


def test_reindex_drops_a_deleted_leaf(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    (ws / PRICING).unlink()
    reindexed(ws, tmp_path)
    assert "pricing.md" not in (ws / "memory/domains/business/_index.md").read_text()


def test_reindex_removes_an_emptied_domain_and_its_index(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    (ws / FAMILY).unlink()
    changed = reindexed(ws, tmp_path)
    assert "memory/domains/identity/_index.md" in changed
    assert not (ws / "memory/domains/identity").exists()  # the empty folder goes too
    assert "identity" not in (ws / "memory/_index.md").read_text()
    assert "- identity" not in (ws / "MEMORY.md").read_text()


def test_reindex_follows_a_leaf_moved_to_another_domain(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    (ws / "memory/domains/personal/pricing.md").write_bytes((ws / PRICING).read_bytes())
    (ws / PRICING).unlink()
    changed = reindexed(ws, tmp_path)
    assert {"memory/domains/business/_index.md", "memory/domains/personal/_index.md"} <= set(changed)
    assert "### pricing.md" in (ws / "memory/domains/personal/_index.md").read_text()


def test_reindex_gives_a_new_domain_folder_an_index_and_a_root_entry(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    write(ws, "memory/domains/projects/kiln-upgrade.md", "## Kiln upgrade\n\nQuote from Skutt due in April.\n")
    assert "memory/domains/projects/_index.md" in reindexed(ws, tmp_path)
    assert "# Projects Index" in (ws / "memory/domains/projects/_index.md").read_text()
    assert "\n- projects: " in (ws / "MEMORY.md").read_text()


def test_reindex_lists_nested_folders_under_their_domain(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    write(ws, "memory/domains/projects/alpha/notes.md", "## Alpha notes\n\nThe alpha glaze cracks below cone 5.\n")
    write(ws, "memory/domains/projects/alpha/beta/deep.md", "## Deep\n\nTwo levels down.\n")
    reindexed(ws, tmp_path)
    index = (ws / "memory/domains/projects/_index.md").read_text()
    assert "### [alpha/](alpha/_index.md)\n\n2 leaves" in index  # a hand-made folder is a sub-branch, indexed where it is
    alpha = (ws / "memory/domains/projects/alpha/_index.md").read_text()
    assert "### notes.md (~" in alpha and "### [beta/](beta/_index.md)" in alpha
    assert "### deep.md (~" in (ws / "memory/domains/projects/alpha/beta/_index.md").read_text()
    root = (ws / "memory/_index.md").read_text()
    assert "- alpha" not in root and "- projects (~" in root  # never a phantom top-level domain


def test_reindex_ignores_archive_non_markdown_and_reserved_names(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    before = tree_files(ws)
    write(ws, "memory/archive/general/old-notes.md", "## Old notes\n\nArchived.\n")
    write(ws, "memory/domains/general/photo.png", "not markdown")
    write(ws, "memory/domains/general/notes.txt", "## Not a leaf\n")
    write(ws, "memory/domains/general/_draft.md", "## Draft\n")
    write(ws, "memory/domains/general/.hidden.md", "## Hidden\n")
    write(ws, "memory/2026-03-01.md", "## Daily note\n")
    assert reindexed(ws, tmp_path) == ()
    assert {p: b for p, b in tree_files(ws).items() if p in before} == before


def test_reindex_follows_the_dates_file(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    (ws / DATES).unlink()
    reindexed(ws, tmp_path)
    assert "dates" not in (ws / "memory/_index.md").read_text()


def test_reindex_keeps_text_around_the_block_byte_for_byte(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    trunk = (ws / "MEMORY.md").read_bytes()
    (ws / "MEMORY.md").write_bytes(b"Extra pinned line\r\n" + trunk + b"\nTrailing note, no heading.\n")
    (ws / READING).unlink()
    reindexed(ws, tmp_path)
    text = (ws / "MEMORY.md").read_bytes().decode("utf-8")
    assert text.startswith("Extra pinned line\r\n# Memory\n") and text.endswith("\nTrailing note, no heading.\n")


def test_reindex_refuses_a_leaf_with_conflict_markers(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    write(ws, CRON, "## Cron Jobs\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> other\n")
    with pytest.raises(BadInput, match=r"^memory/domains/infrastructure/cron-jobs\.md:2: merge-conflict marker"):
        reindex_workspace(ws)


def test_reindex_refuses_conflict_markers_outside_the_block(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    text = (ws / "MEMORY.md").read_text()
    (ws / "MEMORY.md").write_text(text + "<<<<<<< HEAD\n## A\n=======\n## B\n>>>>>>> other\n")
    with pytest.raises(BadInput, match=r"^MEMORY\.md:\d+: merge-conflict marker"):
        reindex_workspace(ws)


def test_reindex_regenerates_a_conflicted_block(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    fresh = (ws / "MEMORY.md").read_text()
    begin, end = fresh.index(BEGIN), fresh.index(END)
    conflicted = fresh[:begin] + BEGIN + "\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\n" + fresh[end:]
    (ws / "MEMORY.md").write_text(conflicted)
    assert reindex_workspace(ws).changed == ("MEMORY.md",)  # the block is ours: regenerated whole
    assert (ws / "MEMORY.md").read_text() == fresh


def _both_sides_changed_the_block(fresh: str, ours_tail: str = "", theirs_head: str = "") -> str:
    """MEMORY.md as git leaves it when two branches each changed the block: one region from the begin line on."""
    begin, end = fresh.index(BEGIN), fresh.index(END)
    block = fresh[begin:end]
    first, _, rest = block.partition("\n")
    ours = first.replace(first[-12:], "#0000000a -->") + "\n" + rest.replace(" — ", " — ours, ", 1)
    theirs = first.replace(first[-12:], "#0000000b -->") + "\n" + rest.replace(" — ", " — theirs, ", 1)
    return (fresh[:begin] + "<<<<<<< HEAD\n" + theirs_head + ours + ours_tail + "=======\n" + theirs
            + ">>>>>>> other\n" + fresh[end:])


def test_reindex_settles_a_conflict_on_the_blocks_begin_line(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    fresh = (ws / "MEMORY.md").read_text()
    (ws / "MEMORY.md").write_text(_both_sides_changed_the_block(fresh))
    assert reindex_workspace(ws).changed == ("MEMORY.md",)  # every side is a generated block: regenerated whole
    assert (ws / "MEMORY.md").read_text() == fresh


@pytest.mark.parametrize(("theirs_head", "ours_tail"), [("A pinned line of mine\n", ""),
                                                         ("", END + "\n## Typed after the block\n")])
def test_reindex_refuses_a_begin_line_conflict_that_holds_user_text(make_repo: MakeRepo, theirs_head: str,
                                                                    ours_tail: str) -> None:
    ws = migrated(make_repo)
    conflicted = _both_sides_changed_the_block((ws / "MEMORY.md").read_text(), ours_tail, theirs_head)
    (ws / "MEMORY.md").write_text(conflicted)
    with pytest.raises(BadInput, match=r"^MEMORY\.md:\d+: (merge-conflict marker|text inside the generated block)"):
        reindex_workspace(ws)
    assert (ws / "MEMORY.md").read_text() == conflicted


def test_reindex_cli_check_names_stale_files_and_writes_nothing(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    (ws / READING).unlink()
    before = tree_files(ws)
    result = CliRunner().invoke(main, ["reindex", "-C", str(ws), "--check"])
    assert result.exit_code == 1
    assert "stale memory/domains/personal/_index.md" in result.stdout
    assert "run bonsai-git reindex" in result.stderr
    assert tree_files(ws) == before


@pytest.mark.parametrize(
    "variant",
    [{"TZ": "Pacific/Kiritimati", "LC_ALL": "C", "PYTHONHASHSEED": "1"},
     {"TZ": "America/St_Johns", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "4242"},
     {"TZ": "UTC", "LC_ALL": "POSIX", "PYTHONHASHSEED": "random"}],
)
def test_reindex_bytes_do_not_depend_on_time_zone_locale_or_hash_seed(
    make_repo: MakeRepo, tmp_path: Path, variant: dict[str, str]
) -> None:
    ws = migrated(make_repo)
    write(ws, "memory/domains/projects/alpha/notes.md", "## Alpha\n\n项目笔记：釉料在五号锥以下开裂。\n")
    write(ws, "memory/domains/misc/ünïcode.md", "## Ünïcode\n\nÀ la carte — naïve café.\n")
    (ws / FAMILY).unlink()
    reference = tmp_path / "reference"
    shutil.copytree(ws, reference)
    baseline = {"TZ": "UTC", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0"}
    assert run(["bonsai-git", "reindex", "-C", str(reference)], reference, baseline).returncode == 0
    result = run(["bonsai-git", "reindex", "-C", str(ws)], ws, variant)
    assert result.returncode == 0, result.stderr
    assert tree_files(ws) == tree_files(reference)


# --- incremental reindex == rendering the same leaves from scratch --------------------------------

NAMES = st.sampled_from(["alpha", "beta", "Gamma", "delta-2", "项目", "notes/deep"])
DOMAINS = st.sampled_from(["business", "general", "projects", "identity", "dates"])
BODIES = st.sampled_from([
    "## Heading\n\nA fact.\n", "## Other\n\n- bullet one\n- bullet two\n", "# Title\n\nprose\n",
    "## 标题\n\n中文内容，长期有效。\n", "Setext\n------\n\nbody\n", "## Key\n\ntoken sk-test-XXXXXXXXXXXXXXXXXXXXXXXX\n",
    "## CRLF\r\n\r\nline\r\n", "", "## Big\n\n" + "word " * 300 + "\n",
])
OPS = st.lists(st.tuples(st.sampled_from(["write", "delete"]), DOMAINS, NAMES, BODIES), min_size=1, max_size=8)


def _leaf_path(domain: str, name: str) -> str:
    return "memory/dates.md" if domain == "dates" else f"memory/domains/{domain}/{name}.md"


@given(OPS)
def test_incremental_reindex_equals_rendering_from_scratch(ops: list[tuple[str, str, str, str]]) -> None:
    cache = FactsCache(None)  # the hook's facts cache, carried across steps as the hook does
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "MEMORY.md").write_text(f"# Memory\n\nPinned.\n\n{BEGIN}\n{END}\n", encoding="utf-8")
        write(ws, "memory/domains/general/seed.md", "## Seed\n\nThe first leaf.\n")
        reindex_workspace(ws)
        for step, (op, domain, name, body) in enumerate(ops):
            target = ws / _leaf_path(domain, name)
            if op == "write":
                write(ws, _leaf_path(domain, name), body)
            elif target.exists():
                target.unlink()
            facts = cache.facts_of("script-aware") if step % 2 else None
            reindex_workspace(ws, facts=facts)
        parts = parse_trunk((ws / "MEMORY.md").read_text(encoding="utf-8"))
        assert parts is not None
        leaves = read_leaves(ws, walk_leaf_paths(ws))
        scratch = {p: t for p, t in render_tree(leaves, parts, Config()).items() if t is not None}
        generated = {p: b.decode("utf-8") for p, b in tree_files(ws).items()
                     if p == "MEMORY.md" or p.endswith("_index.md")}
        assert generated == scratch
