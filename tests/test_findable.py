"""Findable trees (issue 24), checked on corpus 03 and 23 and a generated 1,000-section memory, migrated
for real: every entry of every index says what it holds, no entry is a range of names, a domain of
40 leaves or fewer is one index file, the trunk block stays within its cap and names each domain's
topics, lookups stay within the domain index and two levels below it, and an edit inside a leaf
committed through the hook leaves MEMORY.md byte for byte."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.core.indexes import BLOCK_CAP_TOKENS
from bonsai_git.core.layout import TRUNK, parse_trunk
from bonsai_git.core.lookup import is_index_path, lookup_cost
from bonsai_git.core.tokens import estimate_tokens
from bonsai_git.hook import run_hook
from bonsai_git.tree import walk_leaf_paths
from living_tree import MakeRepo
from support import corpus_bytes, git

ENTRY = re.compile(r"^### (.+)$", re.M)
RANGE = re.compile(r"\w[–—]\w|\w-\w.* … ")  # `books–dentist`, or guide words `a-b … c`
FIRST = ("Amara", "Bilal", "Chen", "Dana", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kenji", "Lena")
LAST = ("Quist", "Okafor", "Lindqvist", "Moreau", "Haddad", "Novak", "Sato", "Alvarez", "Brennan", "Kowalski")
THINGS = ("bramble", "tidepool", "lantern", "orchard", "granite", "heron", "juniper", "kestrel", "meridian", "nimbus")
NOTES = ("Deploy notes for the {t} service", "Client {T} pricing and renewal", "Meetup in {c}", "Tool: {t} dashboard",
         "Contract review: {T} supplier agreement", "Home {t} maintenance", "Agent rule about {t} reports")
CITIES = ("Lisbon", "Oslo", "Nairobi", "Austin", "Seoul", "Porto")


def generated_memory(sections: int, seed: int = 24) -> str:
    """A long-running agent's MEMORY.md of `sections` `##` sections (deterministic for a seed): people,
    projects, dated incidents, weekly reviews and daily logs, and topical notes."""
    rng = random.Random(seed)
    out = ["# MEMORY\n\nLong-running assistant memory for the Kestrel studio.\n\n"]
    for i in range(sections):
        roll, year = rng.random(), 2019 + (i * 7) % 8
        if roll < 0.15:
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            head, body = f"Person: {name} ({i})", f"{name} works with us on the {rng.choice(THINGS)} account."
        elif roll < 0.25:
            head, body = f"Project: {rng.choice(THINGS).title()} {i}", "Ships in phases; status every Friday."
        elif roll < 0.35:
            head, body = f"Incident {year}-{1 + i % 12:02d}-{1 + i % 28:02d}: {rng.choice(THINGS)} outage", \
                "Failed over; the root cause was an expired certificate."
        elif roll < 0.55:
            head, body = f"Weekly review {year}-W{1 + i % 52:02d}", "Shipped the fixes, planned the next week."
        else:
            t = rng.choice(THINGS)
            head = rng.choice(NOTES).format(t=t, T=t.title(), c=rng.choice(CITIES)) + f" {i}"
            body = f"The {t} owner is {rng.choice(FIRST)}; call before 10:00, host {t}.example.com."
        out.append(f"## {head}\n\n{body}\n\n- note {i}: follow up before the end of the week\n\n")
    return "".join(out)


MEMORIES = {
    "03": lambda: corpus_bytes("03-chief-of-staff-6k.md").decode("utf-8"),
    "23": lambda: corpus_bytes("23-long-running-agent-25k.md").decode("utf-8"),
    "generated-1000": lambda: generated_memory(1000),
}


def _tree(repo: Path) -> dict[str, str]:
    paths = git(repo, "-c", "core.quotePath=false", "ls-files", "MEMORY.md", "memory").splitlines()
    return {p: (repo / p).read_text(encoding="utf-8") for p in paths}


@pytest.mark.parametrize("name", sorted(MEMORIES))
def test_a_migrated_tree_is_findable(make_repo: MakeRepo, name: str) -> None:
    repo = make_repo(MEMORIES[name]())
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0, result.output
    _every_index_entry_says_what_it_holds_and_none_is_a_name_range(repo)
    _small_domains_stay_one_index_and_lookups_stay_shallow(repo)
    _the_trunk_block_names_topics_within_its_cap(repo)
    _an_edit_inside_a_leaf_never_rewrites_memory_md(repo)


def _every_index_entry_says_what_it_holds_and_none_is_a_name_range(repo: Path) -> None:
    files = _tree(repo)
    indexes = {p: t for p, t in files.items() if is_index_path(p)}
    assert indexes
    for path, text in indexes.items():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("### "):
                rest = [l for l in lines[i + 1:i + 3] if l.strip()]  # mdformat's blank line first (issue 22)
                below = rest[0] if rest else ""
                assert below.strip() and not below.startswith("#"), f"{path}: {line!r} has no description line"
                label = re.match(r"### \[([^\]]*)\]", line)
                if label:
                    assert not RANGE.search(label.group(1)), f"{path}: {line!r} is a name range"
                    assert re.fullmatch(r"\d+ leaf: .+|\d+ leaves: .+", below), f"{path}: {below!r}"


def _small_domains_stay_one_index_and_lookups_stay_shallow(repo: Path) -> None:
    files = _tree(repo)
    leaves: dict[str, int] = {}
    for leaf in walk_leaf_paths(repo):
        if leaf.startswith("memory/domains/"):
            leaves[leaf.split("/")[2]] = leaves.get(leaf.split("/")[2], 0) + 1
    for domain, count in leaves.items():
        own = [p for p in files if is_index_path(p) and p.split("/")[2] == domain]
        if count <= 40:
            assert own == [f"memory/domains/{domain}/_index.md"], (domain, count, own)
    cost = lookup_cost(files)
    assert cost.leaves == sum(leaves.values()) + ("memory/dates.md" in files)
    assert cost.depth <= 3  # the domain index, then at most two levels below it


def _the_trunk_block_names_topics_within_its_cap(repo: Path) -> None:
    trunk = (repo / TRUNK).read_text(encoding="utf-8")
    parts = parse_trunk(trunk)
    assert parts is not None
    assert estimate_tokens(parts.block) <= BLOCK_CAP_TOKENS
    assert [l for l in parts.block.split("\n")[1:] if l][0].startswith("To find a fact, read `memory/domains/<domain>/_index.md`")
    assert " — " in parts.block  # at least one domain line names this memory's topics
    assert estimate_tokens(trunk) <= 500  # boot stays within the seed's 300-500-token trunk


def _an_edit_inside_a_leaf_never_rewrites_memory_md(repo: Path) -> None:
    trunk = (repo / TRUNK).read_bytes()
    leaf = repo / sorted(p for p in walk_leaf_paths(repo) if p.startswith("memory/domains/"))[-1]
    leaf.write_text(leaf.read_text(encoding="utf-8") + "\nA new line with a date, 2026-04-01, and a host db9.example.com.\n",
                    encoding="utf-8")
    git(repo, "add", "-A")
    assert run_hook(repo) == 1  # its index is refreshed ...
    git(repo, "add", "-A")
    assert run_hook(repo) == 0
    git(repo, "commit", "-q", "-m", "edit a leaf")
    assert (repo / TRUNK).read_bytes() == trunk  # ... MEMORY.md is not
    assert git(repo, "status", "--porcelain") == ""
