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
from collections.abc import Iterator
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from markdown_it import MarkdownIt

BOM = "\ufeff"
# CommonMark line endings; str.splitlines would also split at \x0b, \x1c, \u2028 and break offsets.
_LINE_END = re.compile(r"\r\n|\r|\n")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


@dataclass(frozen=True, slots=True)
class Section:
    """One level-2 section: its heading text (inline source, one line), exact text, 1-based line."""

    heading: str
    text: str
    line: int


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
    # Imported here, not at the top: plain memory is cut by the line scanner, so `status` and most
    # migrations never load markdown-it (~20 ms of start-up).
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

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
    by spaces.  Never raises on any str; join(pieces()) == text always holds.  Plain text
    (no HTML block, indented fence, setext underline, front matter...) is cut by a line
    scanner (`scan_cuts`) that gives markdown-it's answer (a hypothesis test proves it equal);
    anything else is parsed by markdown-it.
    """
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    cuts = scan_cuts(body)
    if cuts is None:
        cuts = parse_cuts(body)
    if not cuts:
        return SplitDocument(text, ())
    sections = []
    for k, (offset, line, heading) in enumerate(cuts):
        end = cuts[k + 1][0] if k + 1 < len(cuts) else len(body)
        sections.append(Section(heading, body[offset:end], line + 1))
    return SplitDocument(bom + body[: cuts[0][0]], tuple(sections))


def parse_cuts(body: str) -> list[tuple[int, int, str]]:
    """(char offset, 0-based line, heading text) of each top-level h2 of `body` (no BOM), by markdown-it."""
    tokens = _parser().parse(body)
    starts = line_starts(body)
    cuts: list[tuple[int, int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2" and tok.level == 0 and tok.map:
            line = tok.map[0]
            cuts.append((starts[line], line, _heading_text(tokens[i + 1].content)))
    return cuts


# The line scanner's fast path: it answers only for text where a top-level h2 is exactly a
# column-0 ATX `##` line outside a column-0 code fence.  It gives up (None) on anything that
# could make CommonMark read a line otherwise, so markdown-it decides those: a line starting
# with `<` after any indentation (an HTML block may swallow what follows), a fence or `##`
# behind indentation (inside a list item, or not), a `-` underline under a non-blank line
# (setext), front matter, NUL (markdown-it replaces it) and a lone CR (a line end).  A full
# markdown-it parse of 10,000 sections costs ~1.5 s and ~30x the input in tokens; this ~30 ms.
# Each pattern is a line's start; searched as "\n" + pattern (re's literal-prefix search, ~20x
# faster than `^` with re.M on a large text) plus a match at offset 0 for the first line.
_GIVE_UP_LINE = r"(?:[ \t]*<|[ \t]+(?:```|~~~)| {1,3}##(?:[ \t\r\n]|$))"
_DASH_LINE = r" {0,3}-+[ \t]*\r?(?:\n|$)"
_MARK_LINE = r"(?:(`{3,}|~{3,})([^\n]*)|##(?=[ \t\r\n]|$)([^\n]*))"
_LINE_PATTERNS = {name: (re.compile(pattern), re.compile("\n" + pattern))
                  for name, pattern in (("give_up", _GIVE_UP_LINE), ("dash", _DASH_LINE), ("mark", _MARK_LINE))}


def _lines_matching(name: str, text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """(line start offset, match) of each line of `text` that starts with pattern `name`."""
    first, rest = _LINE_PATTERNS[name]
    m = first.match(text)
    if m is not None:
        yield 0, m
    for m in rest.finditer(text):
        yield m.start() + 1, m


def scan_cuts(body: str) -> list[tuple[int, int, str]] | None:
    """What `parse_cuts` gives for `body`, found by a line scanner; None when the text needs markdown-it."""
    if body.startswith("-") or "\x00" in body or ("\r" in body and re.search("\r(?!\n)", body)):
        return None
    if next(_lines_matching("give_up", body), None) is not None:
        return None
    for start, _ in _lines_matching("dash", body):
        if start and body[body.rfind("\n", 0, start - 1) + 1 : start - 1].strip(" \t\r"):
            return None  # under a non-blank line: a setext underline, perhaps
    cuts: list[tuple[int, int, str]] = []
    fence = ""
    line = 0
    counted = 0
    for start, m in _lines_matching("mark", body):
        line += body.count("\n", counted, start)
        counted = start
        marker, info, rest = m.group(1), m.group(2), m.group(3)
        if fence:
            if marker and marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip(" \t\r"):
                fence = ""
            continue
        if marker:
            if not (marker[0] == "`" and "`" in info):  # a backtick in a ``` line's info string: not a fence
                fence = marker
            continue
        cuts.append((start, line, _heading_text(_atx_content(rest.removesuffix("\r")))))
    return cuts


def _atx_content(rest: str) -> str:
    """The text of an ATX heading after its `##`, as markdown-it's heading rule takes it."""
    end = len(rest.rstrip(" \t"))
    tmp = end
    while tmp > 0 and rest[tmp - 1] == "#":
        tmp -= 1
    if 0 < tmp < end and rest[tmp - 1] in " \t":
        end = tmp
    return rest[:end]


def _heading_text(source: str) -> str:
    return " ".join(_HTML_COMMENT.sub(" ", source).split())


def heading_of(section_text: str) -> str:
    """The heading text of one section's text (as split_sections gives it), or "" if none."""
    doc = split_sections(section_text)
    return doc.sections[0].heading if doc.sections else ""
