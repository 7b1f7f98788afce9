"""The hook's fast summary path gives the same bytes as the markdown-it path, on every input."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bonsai_git.config import Config
from bonsai_git.plan import plan_migration
from bonsai_git.summary import _summary_without_parser, summarize, summarize_parsed

from support import CORPUS_FILES, corpus_bytes

# Line shapes that move section boundaries, fences, comments and front matter around.
LINES = st.sampled_from([
    "", " ", "text line", "## next", "  ## indented", "##", "###  deeper", "---", " - - -", "-", "===",
    "```", "~~~", "````", "<!-- open", "-->", "<!-- one -->", "| a | b |", "|---|---|", "- item",
    "> quote", "    code", "\tcode", "**bold**", "...", "[[wiki]]", "key sk-test-XXXXXXXXXXXXXXXXXXXXXXXX",
    "\ufeffbom", "Heading\u2028sep", "x\x0cy", "### Dana", "**Wins**", "__Next:__", "*a* _b_ snake_case",
    "| name | role |", "| --- | --- |", "👩‍👩‍👧 🇺🇸 e\u0301",
])
ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def leaf_texts(draw: st.DrawFn) -> str:
    """A leaf-like text: a `## ` heading line (usually), then drawn lines with drawn endings."""
    head = draw(st.sampled_from(["## Heading", "## ", "## H", "Title", "# Title", "\ufeff## H", "---", "##"]))
    lines = draw(st.lists(LINES, max_size=8))
    ending = draw(ENDINGS)
    tail = draw(st.sampled_from(["", ending]))
    return ending.join([head, *lines]) + tail


@given(leaf_texts())
@example("## H\nfirst\n---\n")
@example("## H\n**\n---\nafter\n")
@example("## H\n---\nx: y\n---\nbody\n")
@example("## H\n\n## Next\nbody\n")
def test_summarize_fast_path_equals_parsed_path(text: str) -> None:
    assert summarize(text) == summarize_parsed(text)
    assert summarize(text, 80) == summarize_parsed(text, 80)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_summarize_fast_path_equals_parsed_path_on_corpus_leaves(name: str) -> None:
    plan = plan_migration(corpus_bytes(name).decode("utf-8"), Config())
    for leaf in plan.leaves:
        assert summarize(leaf.text) == summarize_parsed(leaf.text), leaf.path


def test_summary_without_parser_takes_the_common_leaf() -> None:
    assert _summary_without_parser("## Heading\n\nA fact.\n\n## Not here\n") == "A fact."
    assert _summary_without_parser("## Heading\nA fact\n---\n") is None  # a setext heading starts at "A fact"
    assert _summary_without_parser("# Title\nA fact.\n") == "A fact."  # all preamble: no line can be a `##`
    assert _summary_without_parser("# Title\n") == "Title"  # a title and nothing else
    assert _summary_without_parser("# Title\n\n## First\n") is None
