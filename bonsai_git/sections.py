"""Split memory Markdown into a preamble and level-2 sections, byte for byte.

A section runs from a level-2 heading line (ATX `## x` or setext `x` + `---`, as CommonMark
reads them through markdown-it-py) to the character before the next top-level level-2
heading.  A `## ` line inside a fenced or indented code block, an HTML block, a blockquote or a
list item is not a boundary.  Text before the first heading is the preamble.  A UTF-8 BOM
and YAML front matter are not parsed as Markdown (stripped for parsing only, as
mdit-py-plugins' front_matter rule does) but stay in the preamble's text.

Invariant: preamble + the sections' texts, in order, equal the input exactly (CRLF, lone CR,
a missing final newline, tabs and trailing spaces included).  Nothing here does I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

BOM = "\ufeff"
# CommonMark line endings; str.splitlines would also split at \x0b, \x1c, \u2028 and break offsets.
_LINE_END = re.compile(r"\r\n|\r|\n")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


@dataclass(frozen=True, slots=True)
class Section:
    """One level-2 section: its heading text (inline source, one line), exact text, 1-based line,
    and `group`: the text of the last top-level `#` heading before it ("" when none, or when the
    document has a single `#` heading: that is its title, not a group)."""

    heading: str
    text: str
    line: int
    group: str = ""


@dataclass(frozen=True, slots=True)
class SplitDocument:
    """A document cut into its preamble (str, may be empty) and sections (document order)."""

    preamble: str
    sections: tuple[Section, ...]

    def pieces(self) -> tuple[str, ...]:
        """The texts that reproduce the document when joined: preamble first."""
        return (self.preamble, *(s.text for s in self.sections))


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").use(front_matter_plugin)
    # Structure only: inline parsing is never needed (heading text comes from the inline
    # token's source), and skipping it makes a 5 MB file parse several times faster.
    md.disable(["inline", "text_join"], ignoreInvalid=True)
    return md


def line_starts(text: str) -> list[int]:
    """Char offsets at which each CommonMark line of `text` starts (line 0 starts at 0)."""
    return [0] + [m.end() for m in _LINE_END.finditer(text) if m.end() < len(text)]


def split_sections(text: str) -> SplitDocument:
    """Split `text` (the decoded file, str) into preamble and top-level `##` sections.

    Heading text is the heading's inline source with HTML comments removed and lines joined
    by spaces.  Never raises on any str; join(pieces()) == text always holds.
    """
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    tokens = _parser().parse(body)
    starts = line_starts(body)
    cuts: list[tuple[int, str]] = []
    groups: list[str] = []
    group = ""
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.level == 0 and tok.map:
            if tok.tag == "h2":
                cuts.append((tok.map[0], _heading_text(tokens[i + 1].content)))
                groups.append(group)
            elif tok.tag == "h1":
                group = _heading_text(tokens[i + 1].content)
    if not cuts:
        return SplitDocument(text, ())
    offsets = [starts[line] for line, _ in cuts] + [len(body)]
    preamble = bom + body[: offsets[0]]
    if sum(1 for tok in tokens if tok.type == "heading_open" and tok.tag == "h1" and tok.level == 0) < 2:
        groups = [""] * len(cuts)  # a lone `#` heading is the file's title, not a group of sections
    sections = tuple(
        Section(heading, body[offsets[k] : offsets[k + 1]], line + 1, groups[k])
        for k, (line, heading) in enumerate(cuts)
    )
    return SplitDocument(preamble, sections)


def _heading_text(source: str) -> str:
    return " ".join(_HTML_COMMENT.sub(" ", source).split())


def heading_of(section_text: str) -> str:
    """The heading text of one section's text (as split_sections gives it), or "" if none."""
    doc = split_sections(section_text)
    return doc.sections[0].heading if doc.sections else ""


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?[ \t#]*$")


@dataclass(frozen=True, slots=True)
class UnclosedComment:
    """An HTML comment opened at a line start and never closed: its 1-based line, and the
    headings after it that CommonMark reads as part of the comment (swallowed)."""

    line: int
    swallowed: tuple[str, ...]


def unclosed_comment(text: str) -> UnclosedComment | None:
    """The first top-level HTML comment (`<!-- ...`) that is never closed by `-->`, or None.

    CommonMark ends such an HTML block only at a `-->`, so without one everything after it,
    headings included, is one comment: a migration would put all the later sections into one
    leaf.  Pure; parses with markdown-it only when the text holds `<!--`.
    """
    if "<!--" not in text:
        return None
    body = text[len(BOM) :] if text.startswith(BOM) else text
    for tok in _parser().parse(body):
        if tok.type != "html_block" or tok.level != 0 or not tok.map:
            continue
        content = tok.content.lstrip(" ")
        if content.startswith("<!--") and "-->" not in content[4:]:
            lines = _LINE_END.split(content)[1:]
            swallowed = tuple(" ".join((m.group(1) or "").split()) for m in map(_ATX_HEADING.match, lines) if m)
            return UnclosedComment(tok.map[0] + 1, swallowed)
    return None


def unclosed_comment_warning(name: str, text: str) -> str | None:
    """`name:line: ...` naming an unclosed HTML comment and the headings it swallows, or None."""
    found = unclosed_comment(text)
    if found is None:
        return None
    shown = ", ".join(repr(h) for h in found.swallowed[:5]) + (" ..." if len(found.swallowed) > 5 else "")
    what = f"{len(found.swallowed)} heading(s) after it are swallowed into it: {shown}" if found.swallowed else \
        "everything after it is part of the comment"
    return (f"{name}:{found.line}: an HTML comment opened here is never closed (no `-->`); {what}. "
            f"Close it (add `-->`) so those sections are read")
