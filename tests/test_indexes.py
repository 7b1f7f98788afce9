from __future__ import annotations

from bonsai_git.config import Config
from bonsai_git.indexes import BLOCK_CAP_TOKENS, domain_stats, render_block, render_branch_index, render_tree
from bonsai_git.tokens import estimate_tokens
from bonsai_git.tree import BEGIN, END, Leaf, parse_trunk


def _leaves(n: int, domains: int = 7) -> list[Leaf]:
    return [
        Leaf(f"domain-{i % domains}", f"leaf-{i:05d}.md", f"## Leaf {i}\nA fact about thing number {i} " * 3 + "\n")
        for i in range(n)
    ]


def test_render_branch_index_lists_leaves_by_name_with_tokens() -> None:
    stats = domain_stats([Leaf("business", "b.md", "## B\nBee.\n"), Leaf("business", "a.md", "## A\nAy.\n")], "script-aware")
    assert render_branch_index(stats[0]) == (
        "# Business Index\n_Estimated tokens: ~6 in 2 leaves_\n\n"
        "### a.md (~3 tokens)\nAy.\n\n### b.md (~3 tokens)\nBee.\n"
    )


def test_render_block_stays_under_400_tokens_however_large() -> None:
    for n, domains in ((10, 3), (1_000, 7), (5_000, 60), (3_000, 400)):
        block = render_block(domain_stats(_leaves(n, domains), "script-aware"))
        assert block.startswith(BEGIN) and block.rstrip().endswith(END)
        assert estimate_tokens(block) <= BLOCK_CAP_TOKENS < 400


def test_render_block_folds_domains_that_do_not_fit() -> None:
    block = render_block(domain_stats(_leaves(3_000, 400), "script-aware"))
    assert "more domains under memory/domains/" in block


def test_render_block_uses_crlf_when_asked() -> None:
    block = render_block(domain_stats(_leaves(5), "script-aware"), "\r\n")
    assert block.count("\n") == block.count("\r\n")


def test_render_tree_is_deterministic_and_deletes_empty_domain_indexes() -> None:
    leaves = _leaves(30)
    trunk = parse_trunk(f"# Pinned\n\n{BEGIN}\nold\n{END}\n## Inbox\n")
    assert trunk is not None
    a = render_tree(leaves, trunk, Config(), ["memory/domains/gone/_index.md"])
    b = render_tree(list(reversed(leaves)), trunk, Config(), ["memory/domains/gone/_index.md"])
    assert a == b
    assert a["memory/domains/gone/_index.md"] is None
    assert a["MEMORY.md"].startswith("# Pinned\n\n" + BEGIN) and a["MEMORY.md"].endswith(END + "\n## Inbox\n")


def test_parse_trunk_needs_both_markers() -> None:
    assert parse_trunk(f"{BEGIN}\nno end\n") is None
    assert parse_trunk("plain text") is None
    parts = parse_trunk(f"a\r\n{BEGIN}\r\nx\r\n{END}\r\nb")
    assert parts is not None and parts.newline == "\r\n" and parts.pinned == "a\r\n" and parts.inbox == "b"
