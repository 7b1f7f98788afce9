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
    """One level-2 section: its heading text (inline source, one line), exact text, 1-based line,
    and `group`: the text of the last top-level `#` heading before it ("" when none, or when the
    document has a single `#` heading, or for the `#` that opens the file before any `##`: that is
    its title, not a group)."""

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
    by spaces.  Never raises on any str; join(pieces()) == text always holds.  The headings are
    `find_headings`': markdown-it's answer, the parser reading only what the line scanner cannot.
    """
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    events = find_headings(body)
    cuts = [(offset, line, heading) for offset, line, level, heading in events if level == 2]
    if not cuts:
        return SplitDocument(text, ())
    groups: list[str] = []
    group = ""
    for k, (_offset, _line, level, heading) in enumerate(events):
        if level == 1:
            # the file's first heading, a `#` before every `##`, is its title, not a group (issue 23)
            group = "" if k == 0 else heading
        else:
            groups.append(group)
    if sum(1 for event in events if event[2] == 1) < 2:
        groups = [""] * len(cuts)  # a lone `#` heading is the file's title, not a group of sections
    sections = []
    for k, (offset, line, heading) in enumerate(cuts):
        end = cuts[k + 1][0] if k + 1 < len(cuts) else len(body)
        sections.append(Section(heading, body[offset:end], line + 1, groups[k]))
    return SplitDocument(bom + body[: cuts[0][0]], tuple(sections))


_Event = tuple[int, int, int, str]  # (char offset, 0-based line, level, text) of a top-level h1 or h2


def parse_headings(body: str) -> list[_Event]:
    """(char offset, 0-based line, level, text) of each top-level h1 and h2 of `body` (no BOM), by markdown-it."""
    return _parse(body)[0]


def _parse(body: str) -> tuple[list[_Event], bool]:
    """(`parse_headings` of `body`, whether markdown-it read front matter at its start)."""
    tokens = _parser().parse(body)
    starts = line_starts(body)
    events: list[_Event] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.level == 0 and tok.map and tok.tag in ("h1", "h2"):
            line = tok.map[0]
            events.append((starts[line], line, int(tok.tag[1]), _heading_text(tokens[i + 1].content)))
    return events, any(tok.type == "front_matter" for tok in tokens)


def find_headings(body: str) -> list[_Event]:
    """`parse_headings` of `body` (no BOM), markdown-it parsing only the stretches the line scanner
    (`scan_headings`) cannot read; tests/core/test_sections_fast.py checks it equals the parse.

    A top-level ATX heading closes every block before it, so CommonMark reads the text after one as it
    reads a document of its own.  The scanner's headings (`_mark_events`, read past what makes it give
    up) cut `body` into pieces, each opening on one of them.  A piece the scanner reads is its answer.
    A run of pieces it cannot read (an HTML block, an indented fence, a setext underline, front matter)
    is parsed together with the heading line after it, and that parse must read that line as a
    top-level heading (not swallowed by an unclosed comment or fence), and read any front matter the
    text opens with as closed before it (the front matter rule looks ahead to its closing `---`);
    else markdown-it parses everything from the run's start.  A memory in plain Markdown with a few
    odd lines costs the parse of those sections only (issue 23: the whole parse was ~23% of the CPU
    time of planning 1,000 sections of real memories, ~70 of ~310 ms).  NUL or a lone CR anywhere: markdown-it parses it all (they
    change how it reads lines).
    """
    events = scan_headings(body)
    if events is not None:
        return events
    if "\x00" in body or ("\r" in body and re.search("\r(?!\n)", body)):
        return parse_headings(body)
    starts = [(0, 0)] + [(offset, line) for offset, line, _level, _text in _mark_events(body) if offset > 0]
    ends = [offset for offset, _line in starts[1:]] + [len(body)]
    scanned = [scan_headings(body[start:end]) for (start, _line), end in zip(starts, ends)]
    out: list[_Event] = []
    k = 0
    while k < len(starts):
        start, line = starts[k]
        found = scanned[k]
        if found is not None:
            out += [(offset + start, n + line, level, text) for offset, n, level, text in found]
            k += 1
            continue
        j = next((j for j in range(k + 1, len(starts)) if scanned[j] is not None), len(starts))
        if j < len(starts):
            after = body.find("\n", starts[j][0])
            parsed, front_matter = _parse(body[start : len(body) if after < 0 else after + 1])
            read_as_heading = bool(parsed) and parsed[-1][0] == starts[j][0] - start
            if read_as_heading and (front_matter or not (start == 0 and body.startswith("---"))):
                out += [(offset + start, n + line, level, text) for offset, n, level, text in parsed[:-1]]
                k = j
                continue
        out += [(offset + start, n + line, level, text) for offset, n, level, text in parse_headings(body[start:])]
        break
    return out


# The line scanner's fast path: it answers only for text where a top-level h1/h2 is exactly a
# column-0 ATX `#`/`##` line outside a column-0 code fence.  It gives up (None) on anything that
# could make CommonMark read a line otherwise, so markdown-it decides those: a line starting
# with `<` after any indentation (an HTML block may swallow what follows), a fence or `#`/`##`
# behind indentation (inside a list item, or not), a `-` or `=` underline under a non-blank line
# (setext), front matter, NUL (markdown-it replaces it) and a lone CR (a line end).  A full
# markdown-it parse of 10,000 sections costs ~1.5 s and ~30x the input in tokens; this ~30 ms.
# Each pattern is a line's start; searched as "\n" + pattern (re's literal-prefix search, ~20x
# faster than `^` with re.M on a large text) plus a match at offset 0 for the first line.
_GIVE_UP_LINE = r"(?:[ \t]*<|[ \t]+(?:```|~~~)| {1,3}#{1,2}(?:[ \t\r\n]|$))"
_UNDERLINE = r" {0,3}(?:-+|=+)[ \t]*\r?(?=\n|$)"  # a lookahead: the next line may be an underline too
_MARK_LINE = r"(?:(`{3,}|~{3,})([^\n]*)|(#{1,2})(?=[ \t\r\n]|$)([^\n]*))"
_LINE_PATTERNS = {name: (re.compile(pattern), re.compile("\n" + pattern))
                  for name, pattern in (("give_up", _GIVE_UP_LINE), ("underline", _UNDERLINE), ("mark", _MARK_LINE))}


def _lines_matching(name: str, text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """(line start offset, match) of each line of `text` that starts with pattern `name`."""
    first, rest = _LINE_PATTERNS[name]
    m = first.match(text)
    if m is not None:
        yield 0, m
    for m in rest.finditer(text):
        yield m.start() + 1, m


def scan_headings(body: str) -> list[_Event] | None:
    """What `parse_headings` gives for `body`, found by a line scanner; None when the text needs markdown-it."""
    if body.startswith("-") or "\x00" in body or ("\r" in body and re.search("\r(?!\n)", body)):
        return None
    if next(_lines_matching("give_up", body), None) is not None:
        return None
    for start, _ in _lines_matching("underline", body):
        if start and body[body.rfind("\n", 0, start - 1) + 1 : start - 1].strip(" \t\r"):
            return None  # under a non-blank line: a setext underline, perhaps
    return _mark_events(body)


def _mark_events(body: str) -> list[_Event]:
    """The column-0 `#`/`##` lines of `body` outside column-0 code fences, as `scan_headings` reads them
    (what the text holds that makes the scanner give up is not looked at)."""
    events: list[_Event] = []
    fence = ""
    line = 0
    counted = 0
    for start, m in _lines_matching("mark", body):
        line += body.count("\n", counted, start)
        counted = start
        marker, info, hashes, rest = m.group(1), m.group(2), m.group(3), m.group(4)
        if fence:
            if marker and marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip(" \t\r"):
                fence = ""
            continue
        if marker:
            if not (marker[0] == "`" and "`" in info):  # a backtick in a ``` line's info string: not a fence
                fence = marker
            continue
        events.append((start, line, len(hashes), _heading_text(_atx_content(rest.removesuffix("\r")))))
    return events


def _atx_content(rest: str) -> str:
    """The text of an ATX heading after its `#`s, as markdown-it's heading rule takes it."""
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
    if not _may_open_unclosed(body):
        return None  # the common case (MEMORY.md's markers): no markdown-it import, no parse
    return parse_unclosed_comment(body)


def parse_unclosed_comment(body: str) -> UnclosedComment | None:
    """`unclosed_comment` of `body` (no BOM) by markdown-it alone: the reference its line check must equal."""
    for tok in _parser().parse(body):
        if tok.type != "html_block" or tok.level != 0 or not tok.map:
            continue
        content = tok.content.lstrip(" ")
        if content.startswith("<!--") and "-->" not in content[4:]:
            lines = _LINE_END.split(content)[1:]
            swallowed = tuple(" ".join((m.group(1) or "").split()) for m in map(_ATX_HEADING.match, lines) if m)
            return UnclosedComment(tok.map[0] + 1, swallowed)
    return None


def _may_open_unclosed(body: str) -> bool:
    """False when no line could open a comment block that `unclosed_comment` reports.

    Such a block's first line is a line of `body` (markdown-it splits lines at CR, LF and CRLF)
    that starts, after spaces, with `<!--`; its content runs from that line to the first line
    holding `-->`, the start line included.  So when every line starting (after spaces) with
    `<!--` holds `-->` after those four characters, every such block closes on its first line
    and the parser would find nothing; lines inside containers (quotes, lists) only add
    candidates, never remove one.  tests/core/test_sections.py checks it equals the parse.
    """
    for line in _LINE_END.split(body):
        stripped = line.lstrip(" ")
        if stripped.startswith("<!--") and "-->" not in stripped[4:]:
            return True
    return False


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
