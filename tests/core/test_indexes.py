from __future__ import annotations

import dataclasses

import pytest

from bonsai_git.core.config import DOMAIN_SCOPES, Config
from bonsai_git.core.indexes import (
    BLOCK_CAP_TOKENS, LOOKUP_LINE, WRITE_LINE, domain_fits_one_index, domain_stats, domain_topics, foreign_block_line,
    render_block, render_branch_index, render_tree,
)
from bonsai_git.core.tokens import estimate_tokens
from bonsai_git.core.layout import BEGIN, END, Leaf, parse_trunk


def _leaves(n: int, domains: int = 7) -> list[Leaf]:
    return [
        Leaf(f"domain-{i % domains}", f"leaf-{i:05d}.md", f"## Leaf {i}\nA fact about thing number {i} " * 3 + "\n")
        for i in range(n)
    ]


def test_render_branch_index_lists_leaves_by_name_with_tokens() -> None:
    stats = domain_stats([Leaf("business", "b.md", "## B\nBee.\n"), Leaf("business", "a.md", "## A\nAy.\n")], "script-aware")
    assert render_branch_index(stats[0]) == (
        "# Business Index\n\n_Estimated tokens: ~6 in 2 leaves_\n\n"
        "### a.md (~3 tokens)\n\nAy.\n\n### b.md (~3 tokens)\n\nBee.\n"
    )


def test_render_block_holds_only_domains_scopes_and_two_how_to_lines() -> None:
    block = render_block(["general", "dates", "business"])
    lines = block.split("\n")
    assert lines[0].startswith(BEGIN + " #") and lines[-2] == END
    assert lines[1:5] == ["", LOOKUP_LINE, WRITE_LINE, ""]  # blank lines: mdformat's canonical form
    assert lines[-3] == ""
    assert lines[5:8] == [
        f"- business: {DOMAIN_SCOPES['business']}",
        f"- dates (memory/dates.md): {DOMAIN_SCOPES['dates']}",
        f"- general: {DOMAIN_SCOPES['general']}",
    ]
    assert "token" not in block and "leaf," not in block


def test_render_block_takes_configured_scopes_first() -> None:
    block = render_block(["marketing", "general"], scopes={"marketing": "campaigns and promotions"})
    assert "\n- marketing: campaigns and promotions\n" in block


@pytest.mark.parametrize("domains", [3, 12, 40, 400])
def test_render_block_stays_under_400_tokens_however_many_domains(domains: int) -> None:
    block = render_block([f"domain-{i}" for i in range(domains)] + list(DOMAIN_SCOPES))
    assert block.startswith(BEGIN) and block.rstrip().endswith(END)
    assert estimate_tokens(block) <= BLOCK_CAP_TOKENS < 400


def test_render_block_folds_domains_that_do_not_fit() -> None:
    block = render_block([f"domain-{i}" for i in range(400)])
    assert "more domains: see `memory/_index.md`" in block


def test_render_block_uses_crlf_when_asked() -> None:
    block = render_block(["general"], "\r\n")
    assert block.count("\n") == block.count("\r\n")
    assert foreign_block_line(block) is None


def test_render_tree_block_is_the_same_whatever_the_leaves_say() -> None:
    trunk = parse_trunk(f"# Pinned\n\n{BEGIN}\n{END}\n")
    assert trunk is not None
    few = render_tree(_leaves(30), trunk, Config())["MEMORY.md"]
    edited = [Leaf(leaf.domain, leaf.name, "## Another heading\n" + leaf.text * 3) for leaf in _leaves(30)]
    assert render_tree(edited, trunk, Config())["MEMORY.md"] == few  # an edit inside a leaf: the same bytes


def _topic_leaves(*names: str) -> list[Leaf]:
    return [Leaf("infrastructure", name, f"## {name}\nA fact.\n") for name in names]


def test_the_trunk_names_each_domains_topics_from_its_leaf_names() -> None:
    trunk = parse_trunk(f"{BEGIN}\n{END}\n")
    assert trunk is not None
    leaves = _topic_leaves("deploy-api.md", "deploy-web.md", "kiln-controller.md", "backup-nas.md", "backup-db.md",
                           "deploy-cron.md", "seo/audit.md", "seo/keywords.md")
    block = render_tree(leaves, trunk, Config())["MEMORY.md"]
    # shared words first, the most names first (ties alphabetical), then the other names as words
    assert f"- infrastructure: {DOMAIN_SCOPES['infrastructure']} — deploy, backup, seo, kiln controller\n" in block
    assert domain_topics("infrastructure", [leaf.name for leaf in leaves]) == ("deploy", "backup", "seo", "kiln controller")
    assert domain_topics("dates", ["dates.md"]) == ()


def test_the_trunk_changes_only_when_the_topics_it_shows_change() -> None:
    trunk = parse_trunk(f"{BEGIN}\n{END}\n")
    assert trunk is not None
    names = ["deploy-api.md", "deploy-web.md", "kiln.md"]
    before = render_tree(_topic_leaves(*names), trunk, Config())["MEMORY.md"]
    assert render_tree(_topic_leaves(*names, "deploy-cron.md"), trunk, Config())["MEMORY.md"] == before  # same topics
    assert render_tree(_topic_leaves("deploy-api.md", "deploy-web.md"), trunk, Config())["MEMORY.md"] != before
    assert render_tree(_topic_leaves("deploy-api.md", "deploy-web.md", "oven.md"), trunk, Config())["MEMORY.md"] != before


@pytest.mark.parametrize(("domains", "leaves"), [(3, 10), (12, 40), (12, 2_000), (40, 400)])
def test_the_block_with_topics_stays_within_its_cap(domains: int, leaves: int) -> None:
    names = [f"domain-{i}" for i in range(domains - len(DOMAIN_SCOPES))] + list(DOMAIN_SCOPES)
    words = ["atlas", "bramble", "cobalt", "driftwood", "ember", "fable", "gossamer", "harrow", "inkwell", "juniper"]
    topics = {d: domain_topics(d, [f"{words[i % 10]}-{words[(i * 7) % 10]}-supplier-contract-{i}.md"
                                   for i in range(leaves)]) for d in names}
    block = render_block(names, topics=topics)
    assert estimate_tokens(block) <= BLOCK_CAP_TOKENS
    assert foreign_block_line(block) is None
    if domains <= 12:
        assert "\n- people: other people, teams, contacts (Person: X) — " in block  # lists shortened first


def test_render_tree_is_deterministic_and_deletes_empty_domain_indexes() -> None:
    leaves = _leaves(30)
    trunk = parse_trunk(f"# Pinned\n\n{BEGIN}\nold\n{END}\n## Inbox\n")
    assert trunk is not None
    a = render_tree(leaves, trunk, Config(), ["memory/domains/gone/_index.md"])
    b = render_tree(list(reversed(leaves)), trunk, Config(), ["memory/domains/gone/_index.md"])
    assert a == b
    assert a["memory/domains/gone/_index.md"] is None
    text = a["MEMORY.md"]
    assert text is not None and text.startswith("# Pinned\n\n" + BEGIN) and text.endswith(END + "\n## Inbox\n")


def test_parse_trunk_needs_both_markers() -> None:
    assert parse_trunk(f"{BEGIN}\nno end\n") is None
    assert parse_trunk("plain text") is None
    parts = parse_trunk(f"a\r\n{BEGIN}\r\nx\r\n{END}\r\nb")
    assert parts is not None and parts.newline == "\r\n" and parts.pinned == "a\r\n" and parts.inbox == "b"


def test_foreign_block_line_accepts_exactly_what_the_renderer_wrote() -> None:
    assert foreign_block_line(render_block(["business", "general"])) is None


@pytest.mark.parametrize("edit", [
    lambda b: b.replace(END, "- remember: the kiln key is under the mat\n" + END),  # a typed bullet line
    lambda b: b.replace(END, "a note\n" + END),
    lambda b: b.replace("whatever fits nowhere else", "whatever fits nowhere else, and my notes"),
    lambda b: b.replace("- general:", "- general (see also business):"),
    lambda b: b.replace(WRITE_LINE + "\n", ""),  # a generated line deleted
])
def test_foreign_block_line_catches_any_byte_typed_inside_the_block(edit) -> None:  # type: ignore[no-untyped-def]
    block = render_block(["business", "general"])
    changed = edit(block)
    assert changed != block
    line = foreign_block_line(changed)
    assert line is not None and 2 <= line <= changed.count("\n")


def test_foreign_block_line_names_the_typed_line() -> None:
    block = render_block(["business", "general"])
    changed = block.replace(END, "a note\n" + END)
    assert changed.split("\n")[foreign_block_line(changed) - 1] == "a note"  # type: ignore[operator]


def test_foreign_block_line_reads_an_older_block_by_its_line_shapes() -> None:
    old = ("<!-- bonsai:begin generated; edit memory/ then run bonsai-git reindex -->\n# Memory Index\n"
           "~835 tokens in 9 leaves. Before a task, read the index of its domain: memory/domains/<domain>/_index.md\n"
           "- general (~687 tokens, 7 leaves)\n  a summary\n<!-- bonsai:end -->\n")
    assert foreign_block_line(old) is None
    assert foreign_block_line(old.replace("<!-- bonsai:end", "typed\n<!-- bonsai:end")) == 6


def test_foreign_block_line_lets_a_conflicted_block_be_regenerated() -> None:
    block = render_block(["general"])
    assert foreign_block_line(block.replace(END, "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n" + END)) is None


from hypothesis import given, strategies as st  # noqa: E402


@given(st.lists(st.sampled_from(sorted(DOMAIN_SCOPES)), min_size=1, unique=True), st.data())
def test_foreign_block_line_catches_every_insertion_into_the_body(domains: list[str], data: st.DataObject) -> None:
    block = render_block(domains)
    start = block.index("\n") + 1
    end = block.rindex(END)
    at = data.draw(st.integers(start, end))
    # Whitespace alone is a formatter's change (blank lines, a line ending), not text: mdformat's form is
    # accepted (issue 22), so only an insertion that holds a visible character must be caught.
    typed = data.draw(st.text(min_size=1).filter(lambda t: "<<<<<<<" not in t and t.strip() != ""))
    assert foreign_block_line(block[:at] + typed + block[at:]) is not None


def test_a_domain_whose_summaries_are_shorter_than_its_file_names_fits_one_index() -> None:
    """The quick check before summarising must not refuse a domain whose real listing fits: an entry
    without a summary shows its file name's stem, which can be longer than the summary (found by a
    helper: 30 long-named leaves of "Held Q3." needed no sub-folders at 800 tokens)."""
    leaves = [Leaf("business", f"quarterly-supplier-reconciliation-and-freight-notes-{i:02d}.md",
                   f"## Held Q{i}\n\nHeld Q3.\n") for i in range(30)]
    stats = domain_stats(leaves, "script-aware")[0]
    flat = estimate_tokens(render_branch_index(stats, branch_tokens=100_000))
    assert domain_fits_one_index(stats, dataclasses.replace(Config(), branch_tokens=flat + 20))
