"""Links that a split breaks: `#anchor` links to a heading in another file, relative file links.

Sections that link each other (`[see backups](#backups)`) or a file beside MEMORY.md
(`[runbook](docs/runbook.md)`) break silently when the sections become leaves in
`memory/domains/<domain>/`: the heading is now in another file, and a relative link resolves
from the leaf's folder (issue 22).  Leaves stay byte-exact, so these are reported, never fixed:

- `split_link_warnings` (migrate --dry-run): for a plan, each link in a piece whose target
  heading lands in another file, each relative link in a piece that moves out of MEMORY.md's
  folder, and each reference link (`[x][ref]`) whose definition lands in another file;
- `leaf_links` (status): the links of one leaf as it is, for the shell to check (an anchor
  with no heading in the leaf; a relative path, resolved from the leaf's folder).

Links are markdown-it's link and image tokens (CommonMark), never a regex over the text:
a `[x](#y)` inside a code span or fence is not a link.  Anchors are GitHub's: the heading's
text lowercased, punctuation other than `-` and `_` removed, spaces as `-`, `-1`, `-2`... for
repeats.  Pure: texts in, findings out.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .layout import TRUNK

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ANCHOR_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Link:
    """One link: its 1-based line in the text parsed, its destination as written (`href`)."""

    line: int
    href: str


@dataclass(frozen=True, slots=True)
class LeafLinks:
    """A leaf's links to check: anchors it does not hold (line, href) and relative links
    (line, href, the workspace-relative path they resolve to from the leaf's folder, or None
    when they climb out of the workspace)."""

    missing_anchors: tuple[Link, ...]
    relative: tuple[tuple[Link, str | None], ...]


def may_have_links(text: str) -> bool:
    """False when `text` cannot hold a link with a relative or `#` destination (the shortcut before
    markdown-it): an inline link or image needs `](`, a reference link `][` or a definition `]:`
    (autolinks `<scheme:...>` always have a scheme).  A checkbox `- [ ]` alone parses nothing."""
    return "](" in text or "][" in text or "]:" in text


def find_links(text: str) -> tuple[Link, ...]:
    """Every link and image destination in `text` (markdown-it's tokens), with its 1-based line; the
    destination percent-decoded, as written (markdown-it's normalizeLink encodes it), so that it
    compares with a heading's anchor and names a file path."""
    if not may_have_links(text):
        return ()
    found: list[Link] = []
    for token in _parser().parse(text):
        if token.type != "inline" or token.map is None or not token.children:
            continue
        line = token.map[0] + 1
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type in ("link_open", "image"):
                href = child.attrGet("href" if child.type == "link_open" else "src")
                if isinstance(href, str):  # markdown-it percent-encodes it (`#café` -> `#caf%C3%A9`): decode
                    found.append(Link(line, unquote(href)))
    return tuple(found)


def heading_anchors(text: str) -> tuple[tuple[str, int], ...]:
    """(GitHub anchor, 1-based line) of every heading in `text`, in document order."""
    out: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    tokens = _parser().parse(text)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None and i + 1 < len(tokens):
            base = anchor_of(_inline_text(tokens[i + 1]))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.append((base if n == 0 else f"{base}-{n}", token.map[0] + 1))
    return tuple(out)


def anchor_of(heading: str) -> str:
    """GitHub's anchor for a heading's text: lowercase, punctuation dropped, spaces as `-`."""
    return _ANCHOR_DROP.sub("", heading.strip().lower()).replace(" ", "-")


def is_relative_file_link(href: str) -> bool:
    """True for a link to a file by a relative path (`docs/runbook.md`, `../x.md#part`): no scheme, no
    leading `/` or `#`, not empty."""
    return bool(href) and not href.startswith(("#", "/", "?")) and _SCHEME.match(href) is None


def split_link_warnings(pieces: Sequence[tuple[str, int, str]], files: Mapping[str, str]) -> tuple[str, ...]:
    """One line per link the planned split breaks, `file:line: ...` in plan order.

    `pieces`: (file path, char offset in that file, piece text) for each piece of the original in
    document order (the plan's placements); `files`: the planned files' texts.  Lines are the
    link's line in the file it lands in.
    """
    if not any(may_have_links(text) for _p, _o, text in pieces):
        return ()
    whole = "".join(text for _p, _o, text in pieces)
    starts, line = [], 1
    for _path, _offset, text in pieces:
        starts.append(line)
        line += text.count("\n")
    owner = _heading_owners(whole, pieces, starts)
    alone: dict[int, set[tuple[int, str]]] = {}
    warnings: list[str] = []
    for link in find_links(whole):
        index = _piece_at(starts, link.line)
        path, offset, text = pieces[index]
        at = f"{path}:{files.get(path, '')[:offset].count(chr(10)) + link.line - starts[index] + 1}"
        if index not in alone:
            alone[index] = {(k.line, k.href) for k in find_links(text)}
        if (link.line - starts[index] + 1, link.href) not in alone[index]:
            warnings.append(f"{at}: link `{link.href}` is a reference defined in another section; it stops being a "
                            "link once that section is in another file")
        elif link.href.startswith("#") and owner.get(link.href[1:].lower(), path) != path:
            warnings.append(f"{at}: link `{link.href}` points at a heading that goes to {owner[link.href[1:].lower()]}; "
                            "it breaks once split (link the file instead)")
        elif is_relative_file_link(link.href) and posixpath.dirname(path) != posixpath.dirname(TRUNK):
            warnings.append(f"{at}: relative link `{link.href}` will resolve from {posixpath.dirname(path)}/, not from "
                            f"{TRUNK}'s folder")
    return tuple(warnings)


def leaf_links(text: str) -> LeafLinks:
    """The links of one leaf (path-free): anchors without a heading here, relative links as written.

    Relative links are returned with None; `resolve_from` gives their workspace path.
    """
    links = find_links(text)
    if not links:
        return LeafLinks((), ())
    anchors = {a for a, _line in heading_anchors(text)}
    missing = tuple(k for k in links if k.href.startswith("#") and len(k.href) > 1 and k.href[1:].lower() not in anchors)
    relative = tuple((k, None) for k in links if is_relative_file_link(k.href))
    return LeafLinks(missing, relative)


def resolve_from(folder: str, href: str) -> str | None:
    """The workspace-relative path a relative `href` names from `folder` (posix, "" = the workspace
    root), its `#fragment` and `?query` dropped; None when it climbs out of the workspace."""
    target = href.split("#", 1)[0].split("?", 1)[0]
    joined = posixpath.normpath(posixpath.join(folder, target)) if target else folder or "."
    return None if joined == ".." or joined.startswith("../") else joined


def _heading_owners(whole: str, pieces: Sequence[tuple[str, int, str]], starts: Sequence[int]) -> dict[str, str]:
    """{anchor: the file its heading lands in} for the whole document's headings."""
    return {anchor: pieces[_piece_at(starts, line)][0] for anchor, line in heading_anchors(whole)}


def _piece_at(starts: Sequence[int], line: int) -> int:
    """Index of the piece holding 1-based `line` (`starts`: each piece's first line)."""
    low, high = 0, len(starts) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if starts[mid] <= line:
            low = mid
        else:
            high = mid - 1
    return low


def _inline_text(token: Token) -> str:
    return "".join(c.content for c in token.children or () if c.type in ("text", "code_inline"))


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")
