"""One-line summaries of leaves for the indexes, with secrets masked.

A leaf's summary is its first meaningful line after the heading: not blank, not front matter,
not a code fence or anything inside one, not an HTML comment, not a table rule.  Markdown
markers are stripped (list bullets, quote marks, heading hashes, emphasis, links keep their
text), secret-looking values are masked, and the result is cut on a word boundary to at most
120 chars.  A summary never contains `<!--` or `-->`, so it cannot break the trunk's markers.
Pure: text in, text out.
"""

from __future__ import annotations

import re

from .secretscan import mask_secrets
from .sections import split_sections

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


def summarize(text: str, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """Return the one-line summary (str, <= max_chars chars, may be "") of a leaf's text.

    `text` is a whole leaf: a `##` section (its heading line is skipped) or free text.
    """
    doc = split_sections(text)
    body = doc.preamble if not doc.sections else doc.sections[0].text.split("\n", 1)[-1]
    if doc.sections and doc.preamble.strip():
        body = doc.preamble
    for line in _candidate_lines(body):
        cleaned = _clean(line)
        if cleaned:
            return _cut(mask_secrets(cleaned), max_chars)
    return ""


def _candidate_lines(body: str) -> list[str]:
    lines = body.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # YAML front matter
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
        if end is not None:
            lines = lines[end + 1 :]
    out: list[str] = []
    fence: str | None = None
    in_comment = False
    for line in lines:
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
        out.append(line)
    return out


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
