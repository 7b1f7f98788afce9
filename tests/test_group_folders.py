"""The `#` group heading as a sub-branch key: migrate and regroup nest a large domain's groups in sub-folders."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bonsai_git.core.config import Config, parse_config
from bonsai_git.hook import run_hook
from bonsai_git.core.lookup import is_index_path, leaf_costs, lookup_cost
from bonsai_git.core.plan import plan_migration
from bonsai_git.reindex import reindex_workspace
from bonsai_git.core.tokens import estimate_tokens
from bonsai_git.core.layout import TRUNK
from bonsai_git.tree import walk_leaf_paths
from living_tree import HOOK_SCRIPT, tree_files
from memory_samples import MakeRepo, commit_all, run
from support import git, snapshot
from test_flatten import _flat_in_memory

BUSINESS = "memory/domains/business"
SMALL_BOUND = "branch_tokens = 150\n"
BATCHES = ("batch-a", "batch-b", "batch-c-zircon", "batch-d", "batch-e", "batch-f")


def _grouped_memory(seo: int = 8, clients: int = 7, products: int = 3, orders: int = 32) -> str:
    """A business memory in three `#` groups (as the seed's business/seo/ nesting comes from), after
    `orders` ungrouped sales notes: with them the domain is too large for one index of the default bound."""
    words = ("mugs", "bowls", "glaze", "kiln", "studio", "wholesale", "gifts", "cafes")[:seo]
    names = ("Bramble Cafe", "Heron Roasters", "Juniper Tea", "Kestrel Bakery", "Lantern Bar", "Meridian Hotel",
             "Nimbus Books")[:clients]
    lines = ("stoneware", "porcelain", "raku")[:products]
    return (
        "# Memory\n\nA potter's business assistant.\n\n"
        + "".join(f"## Sales order {i}\n\nWholesale order {i} of mugs for the cafes: the invoice went out, the "
                  f"customer pays net 30 and the sales pipeline shows the next revenue.\n\n" for i in range(orders))
        + "# SEO\n\n"
        + "".join(f"## Keyword research: {w}\n\nSearch volume for {w} pottery terms rose this quarter; the client "
                  f"wants a landing page and the sales team tracks the ranking weekly.\n\n" for w in words)
        + "# Clients\n\n"
        + "".join(f"## Client {c}\n\n{c} buys mugs wholesale for its cafes; invoices net 30, the owner "
                  f"negotiates pricing each spring and the sales pipeline notes the next order.\n\n" for c in names)
        + "# Products\n\n"
        + "".join(f"## Product line {p}\n\nThe {p} line sells to customers online; revenue and margin are "
                  f"reviewed with the business plan every month.\n\n" for p in lines)
    )


def _studio_memory() -> str:
    """Two groups the default rules leave in general/ (twelve leaves: too many for one index at 150 tokens)."""
    looks = ("glossy", "matte", "crazed", "pinholed", "even", "runny")
    glaze = "".join(f"## Batch {c}{z}\n\nThe glaze batch {c} came out {w}; note the oven position and the cooling "
                    f"time.\n\n" for c, w, z in zip("ABCDEF", looks, ("", "", " (zircon)", "", "", "")))
    pickups = "".join(f"## Pickup {n}\n\nPick up the {n} from the shop on the way back; it is paid already.\n\n"
                      for n in ("twine", "boxes", "labels", "tape", "sponges", "brushes"))
    return "# Memory\n\nStudio notes.\n\n# Glaze notes\n\n" + glaze + "# Pickups\n\n" + pickups


def _indexes(files: dict[str, str]) -> dict[str, str]:
    return {p: t for p, t in files.items() if is_index_path(p)}


def _migrate(repo: Path, *args: str) -> None:
    result = run("migrate", "-C", str(repo), "--force", *args, ok=True)
    assert result.exit_code == 0, result.output


def _with_config(make_repo: MakeRepo, memory: str, toml: str) -> Path:
    repo = make_repo(memory)
    (repo / ".bonsai.toml").write_text(toml, encoding="utf-8")
    commit_all(repo, "config")
    return repo


def test_a_large_domain_puts_each_shared_group_in_a_sub_folder_named_after_it() -> None:
    plan = plan_migration(_grouped_memory(), Config())
    paths = {p.heading: p.path for p in plan.placed}
    assert paths["Keyword research: mugs"] == f"{BUSINESS}/seo/keyword-research-mugs.md"
    assert paths["Client Heron Roasters"] == f"{BUSINESS}/clients/client-heron-roasters.md"
    assert paths["Product line raku"] == f"{BUSINESS}/products/product-line-raku.md"
    files = plan.file_map()
    assert "### [seo/](seo/_index.md)\n\n8 leaves" in files[f"{BUSINESS}/_index.md"]
    seo = [t for p, t in files.items() if p.startswith(f"{BUSINESS}/seo/_index")]
    assert any("### keyword-research-kiln.md (~" in t for t in seo)
    costs = leaf_costs(files[TRUNK], _indexes(files))
    assert sorted(costs) == sorted(leaf.path for leaf in plan.leaves)  # every leaf reachable where it is
    cost = lookup_cost(files)
    # trunk, business/_index.md, (the folder's index,) the leaf: a group that fits is listed in the parent (issue 24)
    assert cost.depth == 2 and cost.reads <= 4
    assert max(estimate_tokens(t) for t in _indexes(files).values()) <= Config().branch_tokens


def test_a_domain_that_fits_one_index_stays_flat() -> None:
    plan = plan_migration(_grouped_memory(seo=2, clients=2, products=1, orders=20), Config())
    assert {p.path.rsplit("/", 1)[0] for p in plan.placed} == {BUSINESS}


def test_a_group_that_holds_the_whole_domain_makes_no_folder() -> None:
    memory = "# Memory\n\nA potter.\n\n# SEO\n\n" + _grouped_memory(clients=0, products=0, orders=0).split("# SEO\n\n")[1]
    plan = plan_migration(memory + "# Later\n\nA closing note.\n", Config())
    assert {p.path.rsplit("/", 1)[0] for p in plan.placed} == {BUSINESS}  # one folder would divide nothing


def test_more_groups_than_one_index_can_list_keep_the_largest_as_folders() -> None:
    groups = "".join(f"# Group {g}\n\n" + "".join(f"## Client note {g}{i}\n\nThe client {g}{i} pays invoices for "
                                                  f"wholesale mugs; sales follow up.\n\n" for i in range(2 + g % 3))
                     for g in range(12))
    config = Config(branch_tokens=300)  # room for 4 folders beside two sub-branches
    plan = plan_migration("# Memory\n\nSales.\n\n" + groups, config)
    folders = {p.path.split("/")[3] for p in plan.placed if p.path.count("/") == 4}
    assert folders == {"group-2", "group-5", "group-8", "group-11"}  # the groups of 4 leaves
    assert lookup_cost(plan.file_map()).depth <= 3


@given(st.lists(st.tuples(st.sampled_from(["SEO", "Clients", "seo!", "Ops", ""]),
                          st.lists(st.sampled_from(["Mugs", "Kiln", "Pricing 2024", "Person: Ada", "ops"]),
                                   min_size=1, max_size=6)), min_size=1, max_size=6),
       st.sampled_from(["\n", "\r\n"]))
@settings(max_examples=40, deadline=None)
def test_nesting_keeps_every_section_byte_for_byte_and_flattens_back(groups: list[tuple[str, list[str]]],
                                                                    eol: str) -> None:
    text = f"# Memory{eol}{eol}" + "".join(
        (f"# {g}{eol}{eol}" if g else "") + "".join(f"## {h}{eol}{eol}Fact about {h}.{eol}{eol}" for h in heads)
        for g, heads in groups)
    config = parse_config(SMALL_BOUND)
    plan = plan_migration(text, config)  # plan_migration verifies the placements itself
    assert _flat_in_memory(text, config) == text  # flatten puts them back in document order
    names = [leaf.name.rsplit("/", 1)[-1].casefold() for leaf in plan.leaves if leaf.domain != "dates"]
    by_domain = [(leaf.domain, n) for leaf, n in zip((x for x in plan.leaves if x.domain != "dates"), names)]
    assert len(set(by_domain)) == len(by_domain)  # a leaf's name is unique in its domain, whatever its folder
    assert all(not part.startswith(("_", ".")) for leaf in plan.leaves for part in leaf.name.split("/"))


def test_migrate_with_sub_folders_lists_them_then_status_hook_reindex_agree(make_repo: MakeRepo) -> None:
    repo = make_repo(_grouped_memory())
    dry = run("migrate", "-C", str(repo), "--force", "--dry-run", ok=True)
    assert f"Keyword research: mugs -> {BUSINESS}/seo/keyword-research-mugs.md (heading)" in dry.stdout
    planned = json.loads(run("migrate", "-C", str(repo), "--force", "--dry-run", "--json", ok=True).stdout)["lookup"]
    _migrate(repo)
    assert f"{BUSINESS}/clients/client-lantern-bar.md" in git(repo, "ls-files").splitlines()
    status = json.loads(run("status", "-C", str(repo), "--json", ok=True).stdout)
    assert status["lookup"] == planned
    assert not [w for w in status["warnings"] if w["kind"] in ("orphan_leaf", "orphan_entry", "stale_index",
                                                                 "untracked_leaf", "misplaced_leaf")]
    assert reindex_workspace(repo, check=True).changed == ()
    assert run_hook(repo, check=True) == 0
    hook = subprocess.run([str(HOOK_SCRIPT)], cwd=repo, capture_output=True, text=True, check=False)
    assert (hook.returncode, hook.stdout) == (0, "")  # the installed hook, as git runs it: nothing to do
    trunk = (repo / TRUNK).read_bytes()
    leaf = repo / BUSINESS / "seo" / "keyword-research-kiln.md"
    leaf.write_text(leaf.read_text(encoding="utf-8") + "Ranking: page one since May.\n", encoding="utf-8")
    git(repo, "add", "-A")
    assert run_hook(repo) == 1  # the sub-folder's index is refreshed ...
    git(repo, "add", "-A")
    assert run_hook(repo) == 0
    git(repo, "commit", "-q", "-m", "ranking")
    assert (repo / TRUNK).read_bytes() == trunk  # ... the trunk is not touched
    assert any("### keyword-research-kiln.md (~" in p.read_text(encoding="utf-8")
               for p in (repo / BUSINESS / "seo").glob("_index*.md"))
    assert git(repo, "status", "--porcelain") == ""


def test_adding_leaves_through_the_hook_never_moves_one_into_a_folder(make_repo: MakeRepo) -> None:
    repo = make_repo(_grouped_memory())
    _migrate(repo)
    before = set(walk_leaf_paths(repo))
    for i in range(30):
        (repo / BUSINESS / f"client-extra-{i:02d}.md").write_text(
            f"## Client Extra {i}\n\nBuys mugs wholesale; net 30.\n", encoding="utf-8")
    git(repo, "add", "-A")
    run_hook(repo)
    git(repo, "add", "-A")
    assert run_hook(repo) == 0
    git(repo, "commit", "-q", "-m", "more clients")
    after = set(walk_leaf_paths(repo))
    assert before <= after and len(after - before) == 30
    assert all(p.count("/") == 3 for p in after - before)  # flat where they were written
    files = {p: (repo / p).read_text(encoding="utf-8") for p in git(repo, "ls-files", "memory").splitlines()}
    files[TRUNK] = (repo / TRUNK).read_text(encoding="utf-8")
    assert sorted(leaf_costs(files[TRUNK], _indexes(files))) == sorted(after)
    assert max(estimate_tokens(t) for t in _indexes(files).values()) <= Config().branch_tokens


def test_flatten_brings_leaves_in_sub_folders_back_in_their_original_order(make_repo: MakeRepo) -> None:
    original = _grouped_memory().encode("utf-8")
    repo = make_repo(original)
    _migrate(repo)
    assert (repo / BUSINESS / "products").is_dir()
    assert run("flatten", "-C", str(repo), ok=True).exit_code == 0
    assert (repo / TRUNK).read_bytes() == original
    assert git(repo, "ls-files") == "MEMORY.md\n" and not (repo / "memory").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_rejected_migration_leaves_no_sub_folder_behind(make_repo: MakeRepo) -> None:
    repo = make_repo(_grouped_memory())
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'policy: no memory commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = snapshot(repo)
    result = run("migrate", "-C", str(repo), "--force")
    assert result.exit_code == 1 and "policy: no memory commits today" in result.stderr
    assert snapshot(repo) == before and not (repo / "memory").exists()


@pytest.mark.parametrize("undo", ["rollback", "git revert"])
def test_undoing_a_migration_that_made_sub_folders_restores_the_file(make_repo: MakeRepo, undo: str) -> None:
    original = _grouped_memory().encode("utf-8")
    repo = make_repo(original)
    _migrate(repo)
    if undo == "rollback":
        assert run("rollback", "-C", str(repo), ok=True).exit_code == 0
    else:
        git(repo, "revert", "--no-edit", "HEAD")
    assert (repo / TRUNK).read_bytes() == original
    assert git(repo, "ls-files", "memory") == "" and not (repo / "memory").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_plan_file_carries_the_sub_folders_and_gives_the_same_tree_back(make_repo: MakeRepo, tmp_path: Path) -> None:
    direct = make_repo(_grouped_memory())
    _migrate(direct)
    planned = make_repo(_grouped_memory())
    plan = tmp_path / "plan.toml"
    assert run("migrate", "-C", str(planned), "--force", "--dry-run", "--plan-out", str(plan), ok=True).exit_code == 0
    assert 'leaf = "seo/keyword-research-mugs"' in plan.read_text(encoding="utf-8")
    _migrate(planned, "--plan", str(plan))
    assert tree_files(planned) == tree_files(direct)
    # an edited plan may name a folder; a part bonsai-git would not write itself is refused
    edited = plan.read_text(encoding="utf-8").replace('leaf = "clients/client-juniper-tea"', 'leaf = "tea/juniper"')
    again = make_repo(_grouped_memory())
    plan.write_text(edited, encoding="utf-8")
    _migrate(again, "--plan", str(plan))
    assert (again / BUSINESS / "tea" / "juniper.md").is_file()
    for bad in ("../juniper", "_private/juniper", "clients//juniper", "Clients/juniper"):
        repo = make_repo(_grouped_memory())
        plan.write_text(edited.replace('leaf = "tea/juniper"', f'leaf = "{bad}"'), encoding="utf-8")
        result = run("migrate", "-C", str(repo), "--force", "--plan", str(plan))
        assert result.exit_code == 3 and "unsafe leaf name" in result.stderr, (bad, result.output)
        assert git(repo, "status", "--porcelain") == "" and not (repo / "memory").exists()


@pytest.mark.parametrize(("keywords", "expected"), [
    ('["glaze"]', {f"memory/domains/ceramics/glaze-notes/{n}.md" for n in BATCHES}),
    ('["zircon"]', {"memory/domains/ceramics/batch-c-zircon.md"}),  # one leaf alone: no folder for it
])
def test_regroup_keeps_a_group_folder_only_where_the_target_domain_needs_it(make_repo: MakeRepo, keywords: str,
                                                                            expected: set[str]) -> None:
    repo = _with_config(make_repo, _studio_memory(), SMALL_BOUND)
    _migrate(repo)
    assert (repo / "memory/domains/general/glaze-notes/batch-c-zircon.md").is_file()
    (repo / ".bonsai.toml").write_text(SMALL_BOUND + f"[domains]\nceramics = {keywords}\n", encoding="utf-8")
    commit_all(repo, "a ceramics domain")
    before = {p: (repo / p).read_bytes() for p in walk_leaf_paths(repo)}
    result = run("regroup", "-C", str(repo), ok=True)
    assert result.exit_code == 0, result.output
    moved = set(walk_leaf_paths(repo)) - set(before)
    assert moved == expected
    for path in moved:
        old = "memory/domains/general/glaze-notes/" + path.rsplit("/", 1)[-1]
        assert (repo / path).read_bytes() == before[old] and not (repo / old).exists()
    assert reindex_workspace(repo, check=True).changed == ()
    assert git(repo, "status", "--porcelain") == ""
    git(repo, "revert", "--no-edit", "HEAD")
    assert {p: (repo / p).read_bytes() for p in walk_leaf_paths(repo)} == before


def test_an_unedited_plan_of_a_section_headed_preamble_gives_the_plain_tree_back(make_repo: MakeRepo, tmp_path: Path) -> None:
    """A `## Preamble` section is named `preamble` when the preamble stays in the trunk; the plan file
    `--plan-out` writes is taken back by `--plan` (it was refused as an unsafe name)."""
    memory = "# Memory\n\nYou are Ada.\n\n## Preamble\nThe intro I give new clients.\n\n## Tools\nvim, tmux\n"
    direct = make_repo(memory)
    _migrate(direct)
    planned = make_repo(memory)
    plan = tmp_path / "plan.toml"
    assert run("migrate", "-C", str(planned), "--force", "--dry-run", "--plan-out", str(plan), ok=True).exit_code == 0
    assert 'leaf = "preamble"' in plan.read_text(encoding="utf-8")
    _migrate(planned, "--plan", str(plan))
    assert tree_files(planned) == tree_files(direct)
