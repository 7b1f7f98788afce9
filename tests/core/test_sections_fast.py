"""The section splitter's line scanner gives markdown-it's answer wherever it answers at all.

`scan_headings` is a fast path beside markdown-it (STYLE.md: allowed only with a hypothesis test
proving it equal to the library): for every text it does not hand back (None), its cuts —
offset, line, level and text of each top-level h1 and h2 — are exactly `parse_headings`'s.
`find_headings` (the scanner on the pieces it reads, markdown-it on the rest) gives exactly
`parse_headings`'s cuts for every text.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bonsai_git.core.sections import find_headings, parse_headings, scan_headings, split_sections
from support import CORPUS_FILES, corpus_bytes

# Line shapes around everything that moves a level-2 boundary in CommonMark: fences (open, close,
# longer, info strings with backticks), setext underlines, lists and quotes holding fences,
# indented headings, HTML blocks, link reference titles, front matter, tabs, trailing #s.
LINES = st.sampled_from([
    "", " ", "\t", "text line", "## next", "##", "## ", "##\tTab", "## Closing ##", "## Hash#", "## #", "## x #  ",
    "##  spaced  out  ", "###  deeper", "# one", "  ## indented", "   ## three", "    ## code", "\t## tab code",
    "---", "-", "- - -", "  ---", "===", "***", "```", "~~~", "````", "``` py", "```` x`y", "~~~ a`b", "  ```",
    "   ~~~", "- ```", "> ```", "- item", "  - nested", "1. one", "> quote", "> ## quoted", "    code",
    "<!-- open", "-->", "<!-- one -->", "<div>", "</div>", "<https://x.y>", "[ref]: /url 'title", "'",
    "| a | b |", "**bold**", "## <!-- c --> Commented", "## a\x0cb", "x\x0cy", "\x0c## ff", "é ## not",
    "## 中文 标题", "## \u2028sep", "# Group", "#", "# one #", "  # indented", "#hashtag", "Title", "=", "  ===",
])
ENDINGS = st.sampled_from(["\n", "\r\n"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A memory-like document of drawn lines with one drawn line ending, maybe without a final one."""
    lines = draw(st.lists(LINES, max_size=14))
    ending = draw(ENDINGS)
    tail = draw(st.sampled_from(["", ending]))
    return ending.join(lines) + tail


@given(documents())
@example("## A\n```\n## in code\n```\n## B\n")
@example("- a\n  ```\n## B\n")
@example("> ```\n## B\n")
@example("```` x\n```\n## in\n````\n## B\n")
@example("``` a`b\n## B\n")
@example("text\n-\n## B\n")
@example("\n=\n=")
@example("\n-\n-\n## B")
@example("[r]: /u 'title\n## B\n'\n")
@example("~~~\n## in\n~~~ not a closer\n## still in\n")
def test_scan_headings_equals_markdown_it(text: str) -> None:
    fast = scan_headings(text)
    if fast is not None:
        assert fast == parse_headings(text)


@given(st.text(alphabet=st.sampled_from(list("#`~-<>= \t\n\r\x00ab*:")), max_size=60))
def test_scan_headings_equals_markdown_it_on_any_text(text: str) -> None:
    fast = scan_headings(text)
    if fast is not None:
        assert fast == parse_headings(text)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_scan_headings_equals_markdown_it_on_the_corpus(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8").removeprefix("\ufeff")
    fast = scan_headings(text)
    if fast is not None:
        assert fast == parse_headings(text)


@pytest.mark.parametrize("text", [
    "<div>\n## B\n", "  ## B\n", "a\n---\n", "---\ntitle: x\n---\n## B\n", "a\rb\n## B\n", "a\x00\n## B\n",
    "- a\n  ```\n## B\n",
])
def test_scan_headings_hands_the_hard_cases_to_markdown_it(text: str) -> None:
    assert scan_headings(text) is None
    assert "".join(split_sections(text).pieces()) == text


def test_scan_headings_takes_plain_memory_with_fences() -> None:
    text = "# M\n\n## A\n\n```sh\n## not a heading\n```\n\n## B ##\n- x\n"
    assert scan_headings(text) == [(0, 0, 1, "M"), (5, 2, 2, "A"), (39, 8, 2, "B")]
    assert scan_headings(text) == parse_headings(text)


@st.composite
def long_documents(draw: st.DrawFn) -> str:
    """Like `documents`, longer: several headings, each piece between them plain or odd."""
    lines = draw(st.lists(LINES, max_size=40))
    ending = draw(ENDINGS)
    return ending.join(lines) + draw(st.sampled_from(["", ending]))


@given(st.one_of(documents(), long_documents()))
@example("---\ntitle: x\n## in front matter\n---\n## B\n")
@example("---\ntitle: x\n---\n## A\n<div>\n## B\n")
@example("## A\n<!-- open\n## swallowed\n## still\n-->\n## C\n")
@example("## A\n   ```\n## in code\n## B\n")
@example("## A\n<pre>\n## in pre\n</pre>\n## B\ntext\n---\n## C\n")
@example("# T\n\n## A\na\n---\n## B\n<div>\n\n## C\n")
@example("--\n## A\n")
@example("---\n## A\n")
def test_find_headings_equals_markdown_it(text: str) -> None:
    assert find_headings(text) == parse_headings(text)


@given(st.text(alphabet=st.sampled_from(list("#`~-<>= \t\n\r\x00ab*:!")), max_size=80))
def test_find_headings_equals_markdown_it_on_any_text(text: str) -> None:
    assert find_headings(text) == parse_headings(text)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_find_headings_equals_markdown_it_on_the_corpus(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8").removeprefix("\ufeff")
    assert find_headings(text) == parse_headings(text)
