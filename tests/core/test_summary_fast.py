"""The hook's fast summary path gives the same bytes as the markdown-it path, on every input."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core import summary as _s
from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.summary import _LEAD, _LEAD_MARKS, _summary_without_parser, summarize, summarize_parsed

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


# --- the regex guards (issue 15): `_pick`, `_candidate_lines` and `_clean` skip a pattern when the
# line lacks the char it needs; the reference below is the unguarded code they replaced.



def _clean_reference(line: str) -> str:
    text = _s._COMMENT.sub(" ", line)
    text = _s._LEAD.sub("", text)
    text = _s._WIKI.sub(lambda m: m.group(2) or m.group(1), text)
    text = _s._LINK.sub(r"\1", text)
    text = _s._EMPHASIS.sub("", text)
    if "*" in text or "_" in text:
        text = _s._UNDERSCORE.sub(r"\1", _s._STAR.sub(r"\1", text))
    text = re.sub(r"<[^>]{0,200}>", " ", text)
    if "|" in text:
        text = " · ".join(cell.strip() for cell in text.strip().strip("|").split("|") if cell.strip())
    text = text.replace("<!--", "").replace("-->", "→")
    return " ".join(text.split())


def _candidates_reference(lines: list[str], front_matter: bool) -> list[tuple[int, str]]:
    out, start = [], 0
    if front_matter and lines and lines[0].lstrip("\ufeff").strip() == "---":
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
        if end is not None:
            start = end + 1
    fence, in_comment = None, False
    for index in range(start, len(lines)):
        line = lines[index] if index else lines[0].lstrip("\ufeff")
        m = _s._FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if line.lstrip().startswith("<!--") and "-->" not in line:
            in_comment = True
            continue
        if _s.TABLE_RULE.match(line) or _s._THEMATIC.match(line) or _s._SETEXT.match(line):
            continue
        if "|" in line and index + 1 < len(lines) and "-" in lines[index + 1] and _s.TABLE_RULE.match(lines[index + 1]):
            continue
        out.append((index, line))
    return out


def _pick_reference(lines: list[str], front_matter: bool) -> tuple[int, str] | None:
    prefix, first = "", None
    for index, line in _candidates_reference(lines, front_matter):
        heading = _s._SUBHEADING.match(line)
        bold = None if heading else _s._BOLD_LINE.match(line)
        if bold is not None and (len(bold.group(2)) > 60 or bold.group(2).rstrip("*_ ").endswith((".", "!", "?", "。"))):
            bold = None
        if heading or bold:
            title = _clean_reference(line[heading.end():] if heading else bold.group(2) if bold else line)
            title = title.rstrip(":").rstrip()
            if title and first is None:
                first = (index, title)
            if title and (bold or len(heading.group(1) if heading else "") >= 3):
                prefix = title
            continue
        cleaned = _clean_reference(line)
        if cleaned:
            if prefix and not cleaned.casefold().startswith(prefix.casefold()):
                cleaned = f"{prefix}: {cleaned}"
            return index, cleaned
    return None if first is None else first


MARKUP = st.sampled_from(["<!-- c -->", "<!--", "-->", "[[a|b]]", "[[w]]", "|---|", "| --- |", ":--:", "[x](y)", "![i](p)", "**", "__", "`", "~~", "*",
                          "_", "<b>", "<", ">", "|", "#", "## ", "###", "---", "-", "***", "___", "===", "=", ":",
                          " ", "\t", "\u00a0", "\u2028", "\x0c", "\x1c", "word", "snake_case", "1.", "> ", "- [x] ",
                          "```", "~~~", "   ", "é"])
LINE = st.lists(MARKUP, max_size=7).map("".join)


@given(LINE)
@example("   \x1c")
@settings(max_examples=400)
def test_clean_with_guards_equals_the_unguarded_clean(line: str) -> None:
    assert _s._clean(line) == _clean_reference(line)


@given(st.lists(LINE, max_size=8), st.booleans())
@example(["\x1c", "**Wins**", "- a"], False)
@example(["---", "x: y", "---", "- body"], True)
@example(["|---|---|", "x"], False)
@settings(max_examples=400)
def test_pick_with_guards_equals_the_unguarded_pick(lines: list[str], front_matter: bool) -> None:
    assert _s._pick(lines, front_matter=front_matter) == _pick_reference(lines, front_matter)
    cut = len(lines) - 1
    assert _s._no_heading_through(lines, cut) == (
        not any(_s._ATX_H2.match(line) for line in lines[: cut + 1])
        and not any(_s._SETEXT_H2.match(lines[i]) and not _s._BLANK.match(lines[i - 1])
                    for i in range(1, min(next((i for i in range(cut + 1, len(lines)) if _s._BLANK.match(lines[i])),
                                                    len(lines)), len(lines)))))


@given(st.lists(st.sampled_from(["#", ">", "-", "*", "+", " ", "\t", "\u3000", "\xa0", "1", "١", "²", ".", ")",
                                 "[x]", "a", "Word", "é", "<!--", "_"]), max_size=6).map("".join))
@settings(max_examples=500)
def test_a_line_that_starts_with_no_blank_digit_or_marker_has_no_lead_to_strip(line: str) -> None:
    first = line[:1]
    if not (first.isspace() or first.isdigit() or first in _LEAD_MARKS):
        assert _LEAD.sub("", line) == line
