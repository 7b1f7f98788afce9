"""One-line summaries of leaves for the indexes, with secrets masked.

A leaf's summary is its first meaningful line after the heading: not blank, not front matter,
not a code fence or anything inside one, not an HTML comment, not a table rule.  Markdown
markers are stripped (list bullets, quote marks, heading hashes, emphasis, links keep their
text), secret-looking values are masked, and the result is cut on a word boundary to at most
120 chars.  A summary never contains `<!--` or `-->`, so it cannot break the trunk's markers.
Pure: text in, text out.

Speed: the pre-commit hook summarizes every leaf at every commit, so the common leaf (one
`## ` section, LF or CRLF endings) is summarized without markdown-it (`_summary_without_parser`,
~100x faster, and markdown-it stays off the hook's import path).  That path gives up, and the
parsed path decides, whenever a level-2 heading could end the section at or before the chosen
line; both paths give the same bytes (tests/test_summary_fast.py checks it with hypothesis).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_SUMMARY_CHARS = 120
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WIKI = re.compile(r"\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
_EMPHASIS = re.compile(r"(\*\*|__|`|~~)")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)")
# Lines that could start a level-2 heading (ATX) or underline one (setext), as CommonMark allows.
_ATX_H2 = re.compile(r" {0,3}##(?:[ \t]|$)")
_SETEXT_H2 = re.compile(r" {0,3}-+[ \t]*$")
_BLANK = re.compile(r"[ \t]*$")


def summarize(text: str, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """Return the one-line summary (str, <= max_chars chars, may be "") of a leaf's text.

    `text` is a whole leaf: a `##` section (its heading line is skipped) or free text.
    """
    fast = _summary_without_parser(text)
    if fast is not None:
        return "" if not fast else _cut(_mask(fast), max_chars)
    return summarize_parsed(text, max_chars)


def summarize_parsed(text: str, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """`summarize` through markdown-it's section split: the reference the fast path must equal."""
    from .sections import split_sections  # markdown-it: imported only when the fast path gives up

    doc = split_sections(text)
    body = doc.preamble if not doc.sections else doc.sections[0].text.split("\n", 1)[-1]
    if doc.sections and doc.preamble.strip():
        body = doc.preamble
    for _index, line in _candidate_lines(_lines(body)):
        cleaned = _clean(line)
        if cleaned:
            return _cut(_mask(cleaned), max_chars)
    return ""


def _mask(line: str) -> str:
    # Imported here: compiling the secret rules costs ~6 ms, and the hook's cached no-op run
    # never summarizes (factcache.py).
    from .secretscan import mask_secrets

    return mask_secrets(line)


def _summary_without_parser(text: str) -> str | None:
    """The cleaned summary line ("" if none) of a leaf, or None when only the parser can tell.

    The section's body is everything after the first line up to the next level-2 heading.  We
    scan the whole rest instead, and accept the first meaningful line only when no line up to
    it could be an ATX `##` heading and no line up to the end of its paragraph could be a
    setext underline: then no heading can start at or before it, so the parser would have
    cut the section after it and picked the same line.
    """
    if not text.startswith("## "):
        return _summary_of_headingless(text)
    if "\n" not in text or text.count("\r") != text.count("\r\n"):
        return None
    lines = _lines(text.split("\n", 1)[1])
    if lines[0].startswith("\ufeff"):
        return None
    for index, line in _candidate_lines(lines):
        cleaned = _clean(line)
        if cleaned:
            return cleaned if _no_heading_through(lines, index) else None
    return "" if _no_heading_through(lines, len(lines) - 1) else None


def _summary_of_headingless(text: str) -> str | None:
    """The cleaned summary line of a text no line of which could be a level-2 heading, else None.

    Such a text is all preamble to the parser (a preamble leaf, `# Title` then prose).
    """
    if text.startswith("\ufeff"):
        return None
    lines = _lines(text)
    if any(_ATX_H2.match(line) for line in lines) or _could_underline(lines, len(lines)):
        return None
    return next((cleaned for _i, line in _candidate_lines(lines) if (cleaned := _clean(line))), "")


def _no_heading_through(lines: list[str], index: int) -> bool:
    """True when no level-2 heading can start at or before line `index` (see above)."""
    if any(_ATX_H2.match(line) for line in lines[: index + 1]):
        return False
    end = next((i for i in range(index + 1, len(lines)) if _BLANK.match(lines[i])), len(lines))
    return not _could_underline(lines, end)


def _could_underline(lines: list[str], end: int) -> bool:
    """True when one of `lines[:end]` could be a setext `---` underline (a non-blank line above it)."""
    return any(_SETEXT_H2.match(lines[i]) and not _BLANK.match(lines[i - 1]) for i in range(1, min(end, len(lines))))


def _lines(body: str) -> list[str]:
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _candidate_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(index, line) of the lines that may hold a summary, skipping front matter, fences, comments.

    A generator: callers stop at the first meaningful line, so long leaves cost no more.
    """
    start = 0
    if lines and lines[0].lstrip("\ufeff").strip() == "---":  # YAML front matter
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
        if end is not None:
            start = end + 1
    fence: str | None = None
    in_comment = False
    for index in range(start, len(lines)):
        line = lines[index] if index else lines[0].lstrip("\ufeff")
        m = _FENCE.match(line)
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
        if _TABLE_RULE.match(line) or _THEMATIC.match(line) or _SETEXT.match(line):
            continue
        yield index, line


def _clean(line: str) -> str:
    text = _COMMENT.sub(" ", line)
    text = _LEAD.sub("", text)
    text = _WIKI.sub(lambda m: m.group(2) or m.group(1), text)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    text = re.sub(r"<[^>]{0,200}>", " ", text)
    if "|" in text:
        text = " · ".join(cell.strip() for cell in text.strip().strip("|").split("|") if cell.strip())
    text = text.replace("<!--", "").replace("-->", "→")
    return " ".join(text.split())


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—·.") + "…"
