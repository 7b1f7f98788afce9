"""Bounded branch indexes (a B-tree of index files over stable leaf paths) and the lookup cost."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.core.config import DOMAIN_SCOPES, Config, parse_config
from bonsai_git.core.errors import BadInput
from bonsai_git.hook import run_hook
from bonsai_git.core.indexes import render_tree
from bonsai_git.core.lookup import is_index_path, leaf_costs, lookup_cost
from bonsai_git.reindex import reindex_workspace
from bonsai_git.core.tokens import estimate_tokens
from bonsai_git.core.layout import BEGIN, END, TRUNK, Leaf, parse_trunk
from bonsai_git.tree import walk_leaf_paths
from living_tree import MakeRepo
from support import git

BOUND = Config().branch_tokens
SMALL = Config(branch_tokens=300)  # a bound small enough for a few test leaves to need sub-branches
_LINK = re.compile(r"^### \[([^\]]*)\]\(([^)]*)\)\n\n?(.*)$", re.M)  # mdformat's blank line (issue 22)


def _leaf(domain: str, name: str, heading: str) -> Leaf:
    return Leaf(domain, name, f"## {heading}\n\n{heading} is worth remembering: a detail, a date and who owns it.\n")


def _rendered(leaves: list[Leaf], config: Config = Config()) -> dict[str, str]:
    trunk = parse_trunk(f"# Memory\n\n{BEGIN}\n{END}\n")
    assert trunk is not None
    return {p: t for p, t in render_tree(leaves, trunk, config).items() if t is not None}


def _indexes(files: dict[str, str]) -> dict[str, str]:
    return {p: t for p, t in files.items() if is_index_path(p)}


def _assert_every_leaf_listed_once(files: dict[str, str], leaves: list[Leaf]) -> dict[str, int]:
    """Each leaf reachable from its domain's `_index.md` by the links, and listed by exactly one index."""
    costs = leaf_costs(files[TRUNK], _indexes(files))
    assert sorted(costs) == sorted(leaf.path for leaf in leaves)
    entries = sum(text.count("\n### ") - text.count("\n### [") for text in _indexes(files).values())
    assert entries == len(leaves)
    return costs


def test_a_domain_that_fits_lists_its_leaves() -> None:
    leaves = [_leaf("business", f"topic-{i}.md", f"Topic {i}") for i in range(3)]
    files = _rendered(leaves)
    assert list(_indexes(files)) == ["memory/domains/business/_index.md"]
    assert "### topic-0.md (~" in files["memory/domains/business/_index.md"]


def _assert_every_sub_branch_says_what_it_holds(files: dict[str, str]) -> None:
    """Every link entry of every index has a description line in words; no label is a range of names."""
    for path, text in _indexes(files).items():
        for label, _target, line in _LINK.findall(text):
            assert re.fullmatch(r"\d+ leaf: .+|\d+ leaves: .+", line), (path, label, line)
            assert "–" not in label and " … " not in line, (path, label)


def test_a_domain_of_forty_leaves_stays_one_index_by_default() -> None:
    summary = "Dana Reyes runs the Lisbon office; call before 10:00 on Tuesdays, the host is db1.example.com."
    leaves = [Leaf("business", f"client-note-{i:02d}.md", f"## Client note {i}\n\n{summary} Item {i}.\n") for i in range(40)]
    assert list(_indexes(_rendered(leaves))) == ["memory/domains/business/_index.md"]


def test_a_domain_past_the_bound_splits_into_sub_branches_by_kind() -> None:
    people = [_leaf("general", f"person-{n}.md", f"Person: {n.title()}") for n in ("ada", "bo", "cy", "dee", "eve", "fay")]
    projects = [_leaf("general", f"project-{n}.md", f"Project: {n.title()}") for n in ("atlas", "birch", "cove", "dune")]
    loose = [_leaf("general", f"note-{n}.md", f"Thoughts on {n}") for n in ("kiln", "glaze", "clay")]
    files = _rendered(people + projects + loose, SMALL)
    top = files["memory/domains/general/_index.md"]
    assert "### [Person](_index.person.md)\n\n6 leaves: Ada; Bo; Cy; Dee; Eve; Fay\n" in top  # titles, without the kind
    assert "### [Project](_index.project.md)\n\n4 leaves: Atlas; Birch; Cove; Dune\n" in top
    assert "### note-clay.md (~" in top  # what no key groups, listed as it is: it fits beside the groups
    assert "### person-ada.md (~" in files["memory/domains/general/_index.person.md"]
    assert all(estimate_tokens(t) <= SMALL.branch_tokens for t in _indexes(files).values())
    _assert_every_leaf_listed_once(files, people + projects + loose)
    _assert_every_sub_branch_says_what_it_holds(files)


def test_the_log_domain_splits_by_year_first() -> None:
    leaves = [_leaf("log", f"log-{y}-{m:02d}.md", f"{y}-{m:02d} Weekly review") for y in (2024, 2025) for m in range(1, 9)]
    files = _rendered(leaves, SMALL)
    top = files["memory/domains/log/_index.md"]
    assert "### [2024](_index.2024.md)\n\n8 leaves: 2024-01 Weekly review;" in top and "### [2025](_index.2025.md)" in top
    _assert_every_sub_branch_says_what_it_holds(files)


def test_a_shared_heading_word_makes_a_sub_branch() -> None:
    leaves = [_leaf("infrastructure", f"deploy-{w}.md", f"Deploy of the {w} service") for w in ("api", "web", "cron", "mail")]
    leaves += [_leaf("infrastructure", f"backup-{w}.md", f"Backup plan {w}") for w in ("nas", "db", "photos")]
    leaves += [_leaf("infrastructure", f"{w}.md", w.title()) for w in ("firewall", "vpn", "printer", "router")]
    files = _rendered(leaves, SMALL)
    top = files["memory/domains/infrastructure/_index.md"]
    assert "### [deploy](_index.deploy.md)\n\n4 leaves: " in top and "### [backup](_index.backup.md)\n\n3 leaves: " in top
    _assert_every_leaf_listed_once(files, leaves)
    _assert_every_sub_branch_says_what_it_holds(files)


def test_chunks_by_name_are_the_last_resort_and_still_say_what_they_hold() -> None:
    words = ["apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "juniper", "kestrel",
             "lotus", "maple", "nimbus", "orchid", "pine", "quartz", "rowan", "sage", "tulip"]
    leaves = [_leaf("general", f"{w}.md", w.title()) for w in words]
    files = _rendered(leaves, SMALL)
    top = files["memory/domains/general/_index.md"]
    assert "### [Apple, Birch …](_index.part-1.md)\n" in top  # words of its titles, never `apple–delta`
    assert re.search(r"\n\d+ leaves: Apple; Birch; Cedar", top)
    assert all(estimate_tokens(t) <= SMALL.branch_tokens for t in _indexes(files).values())
    _assert_every_leaf_listed_once(files, leaves)
    _assert_every_sub_branch_says_what_it_holds(files)


@pytest.mark.parametrize("word", ["reisepläne-2026-und-mehr", "日本語の勉強と旅行の計画と家族の予定", "👩‍👩‍👧‍👦" * 20])
def test_descriptions_never_cut_a_title_inside_a_word_or_a_grapheme(word: str) -> None:
    leaves = [_leaf("personal", f"note-{i}.md", f"Reise {word} {i}" if i % 2 else f"{word}{i} plan") for i in range(24)]
    files = _rendered(leaves, SMALL)
    titles = {f"Reise {word} {i}" if i % 2 else f"{word}{i} plan" for i in range(24)}
    # a group's label and the words all its titles share are not repeated in front: any word suffix
    titles |= {" ".join(t.split()[k:]) for t in titles for k in range(1, len(t.split()))}
    cjk = word.startswith("日")
    for text in _indexes(files).values():
        for _label, _target, line in _LINK.findall(text):
            for shown in line.split(": ", 1)[1].split("; "):
                if shown.startswith("+"):
                    continue
                whole = shown.removesuffix("…")
                assert any(t == whole or t.startswith(whole + " ") or (cjk and t.startswith(whole)) for t in titles), shown


def test_splitting_is_deterministic_whatever_the_order() -> None:
    leaves = [_leaf("general", f"n-{i:03d}.md", f"Person: N{i}" if i % 3 else f"Item {i}") for i in range(80)]
    assert _rendered(leaves) == _rendered(list(reversed(leaves)))


def test_hand_made_sub_folders_are_indexed_where_they_are() -> None:
    leaves = [_leaf("business", "overview.md", "Overview"), _leaf("business", "seo/keywords.md", "Keywords"),
              _leaf("business", "seo/audit/2026.md", "Audit 2026")]
    files = _rendered(leaves)
    assert "### [seo/](seo/_index.md)\n\n2 leaves" in files["memory/domains/business/_index.md"]
    seo = files["memory/domains/business/seo/_index.md"]
    assert "### keywords.md (~" in seo and "### [audit/](audit/_index.md)" in seo
    assert "### 2026.md (~" in files["memory/domains/business/seo/audit/_index.md"]
    _assert_every_leaf_listed_once(files, leaves)


def test_a_smaller_branch_tokens_makes_more_levels_never_a_bigger_file() -> None:
    leaves = [_leaf("general", f"t-{i:04d}.md", f"Topic {i}") for i in range(300)]
    for bound in (150, 300, 600):
        files = _rendered(leaves, Config(branch_tokens=bound))
        assert max(estimate_tokens(t) for t in _indexes(files).values()) <= bound
        _assert_every_leaf_listed_once(files, leaves)
        _assert_every_sub_branch_says_what_it_holds(files)


def test_branch_tokens_is_read_from_the_config_and_bounded() -> None:
    assert parse_config("branch_tokens = 500").branch_tokens == 500
    with pytest.raises(BadInput, match="branch_tokens must be at least 150"):
        parse_config("branch_tokens = 20")


def test_lookup_cost_sums_the_trunk_and_every_index_on_the_way() -> None:
    files = {
        TRUNK: "x" * 400,  # 100 tokens
        "memory/domains/a/_index.md": "# A\n### [B](_index.b.md)\n" + "y" * 174,  # 50 tokens
        "memory/domains/a/_index.b.md": "### leaf.md (~3 tokens)\n" + "z" * 376,  # 100 tokens
        "memory/domains/a/_index.md.bak": "not an index",
        "memory/dates.md": "## Birthdays\n",
    }
    assert leaf_costs(files[TRUNK], {p: t for p, t in files.items() if is_index_path(p)}, single_files=["memory/dates.md"]) == {
        "memory/domains/a/leaf.md": 250, "memory/dates.md": 100}
    cost = lookup_cost(files)
    assert (cost.leaves, cost.median, cost.p95, cost.max) == (2, 100, 250, 250)
    assert cost.largest_index == ("memory/domains/a/_index.b.md", 100)
    assert (cost.depth, cost.reads, cost.index_files, cost.index_median) == (2, 2, 2, 50)


def _write_tree(ws: Path, leaves: int) -> None:
    kinds = ("Person", "Project", "Incident 2025-03", "Tool", "Weekly review 2024")
    for i in range(leaves):
        path = ws / "memory" / "domains" / f"d{i % 4}" / f"leaf-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        kind = kinds[i % 7] if i % 7 < len(kinds) else f"Note {i}"
        path.write_text(f"## {kind}: item {i}\n\nFact {i}: what happened and who owns the follow-up.\n", encoding="utf-8")


def test_a_10000_leaf_tree_keeps_every_index_bounded_and_every_lookup_cheap(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    _write_tree(ws, 10_000)
    (ws / TRUNK).write_text(f"# Memory\n\n{BEGIN}\n{END}\n", encoding="utf-8")
    reindex_workspace(ws)
    files = {p.relative_to(ws).as_posix(): p.read_text(encoding="utf-8") for p in (ws / "memory").rglob("_index*.md")}
    files[TRUNK] = (ws / TRUNK).read_text(encoding="utf-8")
    assert max(estimate_tokens(t) for p, t in files.items() if p != TRUNK) <= BOUND
    costs = leaf_costs(files[TRUNK], _indexes(files))
    assert sorted(costs) == sorted(walk_leaf_paths(ws))  # every leaf reachable, none moved
    cost = lookup_cost(files)
    assert cost.depth <= 3  # the domain index and at most two levels below it (issue 24)
    _assert_every_sub_branch_says_what_it_holds(files)
    assert reindex_workspace(ws, check=True).changed == ()


def _commit(repo: Path, message: str) -> None:
    """Commit everything the way a user does with the hook: it rewrites, the user re-adds, commits."""
    git(repo, "add", "-A")
    run_hook(repo)
    git(repo, "add", "-A")
    assert run_hook(repo) == 0
    git(repo, "commit", "-q", "-m", message)


def test_the_hook_re_splits_index_files_as_leaves_are_added_and_never_moves_a_leaf(make_repo: MakeRepo) -> None:
    body = "".join(f"## Person: Friend {i}\n\nMet at the {i}th meetup; likes glaze chemistry.\n\n" for i in range(4))
    repo = make_repo("# Memory\n\n" + body + "## Kiln\n\nCone 6.\n" + "Filler words to pass the minimum. " * 150)
    (repo / ".bonsai.toml").write_text("branch_tokens = 400\n", encoding="utf-8")  # a few dozen leaves split
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-q", "-m", "config")
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    history: dict[str, bytes] = {}
    index_sets = []
    for batch in range(4):
        for i in range(12):
            n = batch * 12 + i
            path = repo / "memory" / "domains" / "people" / f"friend-extra-{n:03d}.md"
            path.write_text(f"## Person: Extra {n}\n\nKnows the kiln supplier; birthday in spring.\n", encoding="utf-8")
        _commit(repo, f"batch {batch}")
        for leaf in walk_leaf_paths(repo):
            data = (repo / leaf).read_bytes()
            assert history.setdefault(leaf, data) == data  # a leaf path, once made, keeps its bytes
        assert set(history) <= set(walk_leaf_paths(repo))  # and is never moved or deleted
        indexes = {p for p in git(repo, "ls-files", "memory/domains").splitlines() if "/_index" in p}
        index_sets.append(indexes)
        files = {p: (repo / p).read_text(encoding="utf-8") for p in indexes} | {TRUNK: (repo / TRUNK).read_text()}
        assert max(estimate_tokens(t) for p, t in files.items() if p != TRUNK) <= 400
        assert sorted(leaf_costs(files[TRUNK], _indexes(files))) == sorted(walk_leaf_paths(repo))
        _assert_every_sub_branch_says_what_it_holds(files)
    assert len(index_sets[-1]) > len(index_sets[0]) >= 1  # the indexes split further as the domain grew
    assert git(repo, "status", "--porcelain") == ""


def _split_memory() -> str:
    """90 sections: 70 `Person:` entries, more than one index of the default bound holds."""
    people = "".join(f"## Person: Contact {i}\n\nWorks at the co-op; prefers calls after noon, and answers "
                     f"email within a day; met at the spring fair, table {i}.\n\n" for i in range(70))
    projects = "".join(f"## Project: Kiln {i}\n\nRebuild phase {i}; the budget was agreed with the studio "
                       "and the bricks come from the supplier in town.\n\n" for i in range(20))
    return "# Memory\n\nA potter's assistant.\n\n" + people + projects


@pytest.mark.parametrize("undo", ["rollback", "git revert"])
def test_undoing_a_migration_that_made_sub_branches_restores_the_flat_file(make_repo: MakeRepo, undo: str) -> None:
    source = _split_memory()
    repo = make_repo(source)
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0, result.stderr
    made = git(repo, "ls-files", "memory").splitlines()
    assert any(p.rsplit("/", 1)[-1].startswith("_index.") for p in made)  # sub-branch index files were made
    if undo == "rollback":
        assert CliRunner().invoke(main, ["rollback", "-C", str(repo)]).exit_code == 0
    else:
        git(repo, "revert", "--no-edit", "HEAD")
    assert (repo / TRUNK).read_text(encoding="utf-8") == source
    assert git(repo, "ls-files", "memory") == "" and not (repo / "memory").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_migrate_and_status_report_the_lookup_cost(make_repo: MakeRepo) -> None:
    repo = make_repo(_split_memory())
    dry = CliRunner().invoke(main, ["migrate", "-C", str(repo), "--dry-run", "--json"])
    planned = json.loads(dry.stdout)["lookup"]
    assert planned["leaves"] == 90 and 0 < planned["median"] <= planned["p95"] <= planned["max"]
    assert planned["depth"] == 2 and planned["reads_median"] == 4 and planned["index_files"] >= 3
    assert "lookup: ~" in CliRunner().invoke(main, ["migrate", "-C", str(repo), "--dry-run"]).stdout
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    status = json.loads(CliRunner().invoke(main, ["status", "-C", str(repo), "--json"]).stdout)
    assert status["lookup"] == planned  # what the plan promised is what is on disk
    assert status["lookup"]["largest_index"]["tokens"] <= BOUND
    text = CliRunner().invoke(main, ["status", "-C", str(repo)]).stdout
    assert f"lookup: ~{planned['median']:,} tokens median" in text


def test_status_finds_leaves_listed_in_sub_branch_files(make_repo: MakeRepo) -> None:
    repo = make_repo(_split_memory())
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    status = json.loads(CliRunner().invoke(main, ["status", "-C", str(repo), "--json"]).stdout)
    assert not [w for w in status["warnings"] if w["kind"] in ("orphan_leaf", "orphan_entry")]
    sub = next(p for p in (repo / "memory/domains/people").glob("_index.*.md"))
    first = next(line for line in sub.read_text().splitlines() if line.startswith("### ") and "(~" in line)
    leaf = sub.parent / first[4:].split(" (~")[0]
    leaf.unlink()
    status = json.loads(CliRunner().invoke(main, ["status", "-C", str(repo), "--json"]).stdout)
    assert any(w["kind"] == "orphan_entry" and w["path"].endswith(sub.name) for w in status["warnings"])


def test_the_hook_refuses_text_typed_inside_the_block_and_keeps_it(make_repo: MakeRepo) -> None:
    repo = make_repo(_split_memory())
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    trunk = (repo / TRUNK).read_text(encoding="utf-8")
    scope = DOMAIN_SCOPES["people"]
    assert scope in trunk
    typed = trunk.replace(scope, scope + "; the kiln key is in the shed")
    (repo / TRUNK).write_text(typed, encoding="utf-8")
    proc = subprocess.run(["bonsai-git-hook"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 3 and "text inside the generated block" in proc.stderr
    assert (repo / TRUNK).read_text(encoding="utf-8") == typed


def test_the_hooks_memo_of_index_files_never_hides_a_stale_or_damaged_file(make_repo: MakeRepo,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(_split_memory())
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    assert run_hook(repo) == 0 and run_hook(repo) == 0  # the second run answers from the memo
    sub = sorted((repo / "memory/domains/people").glob("_index.*.md"))[0]
    good = sub.read_bytes()
    sub.write_bytes(good.replace(b"leaves", b"leafs", 1))  # a hand edit of a generated file
    assert run_hook(repo) == 1 and sub.read_bytes() == good
    sub.unlink()
    assert run_hook(repo) == 1 and sub.read_bytes() == good
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")
    assert run_hook(repo) == 0  # the same bytes with or without the memo


def test_groups_whose_keys_slug_alike_get_distinct_index_files() -> None:
    kinds = [_leaf("general", f"person-{n}.md", f"Person: {n.title()}") for n in ("ada", "bo", "cy", "dee")]
    words = [_leaf("general", f"note-{n}.md", f"Notes on the person {n}") for n in ("kiln", "glaze", "clay", "wax")]
    cpp = [_leaf("general", f"c{n}.md", f"C++: {n}") for n in ("a", "b")] + [
        _leaf("general", f"d{n}.md", f"C#: {n}") for n in ("a", "b")]
    leaves = kinds + words + cpp + [_leaf("general", f"z{i}.md", f"Zebra {i}") for i in range(6)]
    files = _rendered(leaves)
    assert all(estimate_tokens(t) <= BOUND for t in _indexes(files).values())
    _assert_every_leaf_listed_once(files, leaves)  # no index file written over another
