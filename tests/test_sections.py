from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bonsai_git.sections import (
    heading_of, line_starts, parse_unclosed_comment, split_sections, unclosed_comment,
)
from support import CORPUS_FILES, EXPECTED, corpus_bytes


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_split_sections_matches_commonmark_count_on_corpus(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    doc = split_sections(text)
    assert len(doc.sections) == EXPECTED[name]["h2_sections"]
    assert "".join(doc.pieces()) == text


@pytest.mark.parametrize(
    ("text", "headings"),
    [
        ("# T\n\n## A\nx\n## B\ny\n", ["A", "B"]),
        ("## A\n```\n## not\n```\n## B\n", ["A", "B"]),
        ("## A\n~~~\n## not\n", ["A"]),  # unclosed fence runs to the end
        ("Title\n---\nbody\n", ["Title"]),  # setext
        ("para one\npara two\n---\n", ["para one para two"]),  # accidental setext
        ("para\n\n---\n", []),  # thematic break after a blank line
        ("> ## quoted\n\n## Real\n", ["Real"]),  # blockquote heading is nested
        ("- ## listed\n\n## Real\n", ["Real"]),
        ("<!--\n## hidden\n-->\n## Shown\n", ["Shown"]),
        ("<details>\n## hidden\n</details>\n\n## Shown\n", ["Shown"]),
        ("    ## indented code\n## Real\n", ["Real"]),
        ("##tags: no space\n## Real\n", ["Real"]),
        ("## Local SEO <!-- importance: 4 -->\n", ["Local SEO"]),
        ("---\ntitle: x\n---\n# H\n## A\n", ["A"]),  # front matter is not a setext underline
        ("## Closing hashes ##\n", ["Closing hashes"]),
    ],
)
def test_split_sections_finds_top_level_h2_only(text: str, headings: list[str]) -> None:
    doc = split_sections(text)
    assert [s.heading for s in doc.sections] == headings
    assert "".join(doc.pieces()) == text


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff# T\r\n\r\n## A\r\nx\r\n## B\r\ny",  # BOM, CRLF, no final newline
        "# T\n## A\r\nmixed\r## B\n\ttab  \n",  # mixed endings incl. a lone CR
        "## A\n\x0bvertical tab\u2028line sep\n## B\n",  # not CommonMark line ends
        "",
        "\n\n",
    ],
)
def test_split_sections_is_byte_exact(text: str) -> None:
    assert "".join(split_sections(text).pieces()) == text


def test_split_sections_keeps_bom_in_preamble() -> None:
    doc = split_sections("\ufeff# Título\n## Sección\nñ\n")
    assert doc.preamble == "\ufeff# Título\n"
    assert doc.sections[0].text == "## Sección\nñ\n"


def test_split_sections_without_h2_is_all_preamble() -> None:
    doc = split_sections("# One\n### Three\nno final newline")
    assert doc.sections == ()
    assert doc.preamble == "# One\n### Three\nno final newline"


def test_split_sections_reports_one_based_lines() -> None:
    doc = split_sections("# T\n\n## A\nx\n## B\n")
    assert [s.line for s in doc.sections] == [3, 5]


def test_line_starts_counts_crlf_and_cr_as_one_line_end() -> None:
    assert line_starts("a\r\nb\rc\nd") == [0, 3, 5, 7]


def test_heading_of_returns_empty_for_text_without_heading() -> None:
    assert heading_of("no heading\n") == ""
    assert heading_of("## Hello  world\n") == "Hello world"


# --- unclosed_comment's line check (issue 15: status need not load markdown-it for MEMORY.md) --------

_COMMENT_PIECES = ["<!--", "-->", "<!-->", "<!---->", "\n", "\r\n", "\r", " ", "   ", "\t", "## H", "# T", "x",
                   "> ", "- ", "1. ", "```", "~~~", "---", "<div>", "</div>", "\x00", "\ufeff", "-", ">", "!"]


@given(st.lists(st.sampled_from(_COMMENT_PIECES), max_size=24).map("".join))
@example("<!-->\n## A\n")
@example("   <!-- a --> b\n<!-- open\n## A\n")
@example("> <!-- quoted\n\n## A\n")
@example("<!-- a\r-->\n## A\n")
def test_unclosed_comment_line_check_equals_the_parse(text: str) -> None:
    """The line check in front of markdown-it never changes the answer: same finding (or None) on any text."""
    body = text[1:] if text.startswith("\ufeff") else text
    expected = parse_unclosed_comment(body) if "<!--" in text else None
    assert unclosed_comment(text) == expected


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_unclosed_comment_line_check_equals_the_parse_on_corpus(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    for piece in (text, *split_sections(text).pieces()):
        assert unclosed_comment(piece) == (parse_unclosed_comment(piece.removeprefix("\ufeff")) if "<!--" in piece
                                           else None)


def test_a_migrated_trunk_is_checked_without_markdown_it() -> None:
    """MEMORY.md's markers close on their own line: `bonsai-git status` on a plain tree never imports markdown-it."""
    import subprocess
    import sys

    code = ("import sys\nfrom bonsai_git.sections import unclosed_comment\n"
            "t = '# M\\n\\n<!-- bonsai:begin #1a2b3c4d -->\\nx\\n<!-- bonsai:end -->\\n'\n"
            "assert unclosed_comment(t) is None and unclosed_comment('<!-- open\\n## A\\n') is not None\n"
            "print(sum(1 for m in sys.modules if m.startswith('markdown_it')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) > 0  # the open comment did load the parser: the check below is not vacuous
    code_closed = code.replace(" and unclosed_comment('<!-- open\\n## A\\n') is not None", "")
    out = subprocess.run([sys.executable, "-c", code_closed], capture_output=True, text=True, check=True).stdout
    assert int(out) == 0
