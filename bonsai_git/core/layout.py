"""The layout of a memory tree, as text: where things live, the trunk's markers, leaf records.

Layout (DESIGN.md §2): the trunk `MEMORY.md`; leaves `memory/domains/<domain>/<name>.md`, where
<name> may hold sub-folders (`projects/alpha.md` is a leaf of domain `projects`'s parent, never a
domain of its own); branch indexes `memory/domains/<domain>/_index.md`; the root index
`memory/_index.md`; single-file domains such as `memory/dates.md`.  Files under `memory/archive/`,
daily notes `memory/YYYY-MM-DD.md`, non-`.md` files and names starting with `_` or `.` are not
leaves.  Pure: paths and texts in, records and verdicts out; reading the files is tree.py's job.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from .config import SINGLE_FILE_DOMAINS
from .errors import BadInput


try:  # the sha1 module itself (git_blob_id): importing hashlib would load OpenSSL (~3 ms per hook run)
    from _sha1 import sha1 as _sha1  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import sha1 as _sha1

# The migration trailer naming a leaf an edited plan placed otherwise than the rules (issue 23):
# `regroup --all` leaves it where it is, as it leaves a `move`.
CHOSEN_TRAILER = "Bonsai-Chosen"
TRUNK = "MEMORY.md"
MEMORY_DIR = "memory"
DOMAINS_DIR = "memory/domains"
ROOT_INDEX = "memory/_index.md"
INDEX_NAME = "_index.md"
BEGIN_PREFIX = "<!-- bonsai:begin"
# The rendered begin line is BEGIN + " #<crc32 of the block body> -->" (indexes.py); any line
# starting with BEGIN_PREFIX is read as a begin marker, so older trunks' longer line still pairs.
BEGIN = "<!-- bonsai:begin generated"
END = "<!-- bonsai:end -->"
_BEGIN_LINE = re.compile(r"^<!-- bonsai:begin\b[^\n]*$", re.M)
# The end marker at a line start; text after it on the same line is the inbox's first text: an agent
# appending `## Dentist` to a trunk saved without a final newline glues it to the marker (issue 21 §9).
_END_LINE = re.compile(r"^<!-- bonsai:end -->", re.M)
_BLANK_REST = re.compile(r"[ \t]*(?:\r?\n|\r?$)")
# git's conflict lines: `<<<<<<< ours`, `||||||| base` (diff3), `=======`, `>>>>>>> theirs`.
_CONFLICT_LINE = re.compile(r"^(?:(<{7})|(\|{7})|(={7})|(>{7}))(?:[ \t][^\n]*)?\r?$", re.M)
_CONFLICT_HINT = re.compile(r"^(?:<{7}|>{7})", re.M)
# A fenced code block's opening line (CommonMark: up to 3 spaces, 3+ backticks or tildes).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True, slots=True)
class Leaf:
    """A leaf: its domain, its name inside the domain folder (posix, with `.md`), and its text.

    For a single-file domain (`dates`) the name is the file's path under `memory/`.
    """

    domain: str
    name: str
    text: str

    @property
    def path(self) -> str:
        """Workspace-relative posix path of the leaf file."""
        single = SINGLE_FILE_DOMAINS.get(self.domain)
        if single is not None and self.name == PurePosixPath(single).name:
            return single
        return f"{DOMAINS_DIR}/{self.domain}/{self.name}"

    @property
    def stem(self) -> str:
        """The leaf's name without `.md` (sub-folders kept)."""
        return self.name[:-3] if self.name.endswith(".md") else self.name


@dataclass(frozen=True, slots=True)
class TrunkParts:
    """The trunk cut at its markers: user text before, generated block, inbox after.

    `pinned + block + inbox == trunk text`.  `newline` is the block's line ending.
    """

    pinned: str
    block: str
    inbox: str
    newline: str


def parse_trunk(text: str) -> TrunkParts | None:
    """Cut trunk text at the bonsai markers; None when it has no complete marker pair.

    Only marker lines that are Markdown markers count: a marker line inside a (closed) fenced
    code block or multi-line HTML comment (an agent quoting the markers) is text (`code_spans`).
    The block is the first end-marker line that has a begin-marker line before it, paired with
    the *last* begin line before it: a begin-like line quoted in the user's pinned text
    therefore never swallows the text after it.
    """
    if "<!-- bonsai:begin" not in text:
        return None  # the usual flat MEMORY.md, decided without a scan
    spans = code_spans(text, closed=True) if "```" in text or "~~~" in text or "<!--" in text else []
    begins = [m for m in _BEGIN_LINE.finditer(text) if not _inside(spans, m.start())]
    if not begins:
        return None
    begin = end = None
    for candidate in _END_LINE.finditer(text):
        if _inside(spans, candidate.start()):
            continue
        before = [b for b in begins if b.end() <= candidate.start()]
        if before:
            begin, end = before[-1], candidate
            break
    if begin is None or end is None:
        return None
    stop = end.end()
    blank = _BLANK_REST.match(text, stop)
    if blank is not None:  # the marker's own line: trailing blanks and its line break belong to the block
        stop = blank.end()
    newline = "\r\n" if text[begin.start() : begin.end()].endswith("\r") else "\n"
    return TrunkParts(text[: begin.start()], text[begin.start() : stop], text[stop:], newline)


def widen_to_block_conflict(parts: TrunkParts) -> TrunkParts:
    """`parts` with a merge conflict around the block's begin line taken into the block.

    The begin line carries the block's CRC, so two branches that each changed the block (their
    trunk topics, issue 24) conflict on it: git writes `<<<<<<< ours`, our begin line and what
    follows, `=======`, their begin line ..., `>>>>>>> theirs`, and `parse_trunk` starts the
    block at the last begin line, leaving the region's opening in the user's text.  When every
    side of that region starts with a begin line (so all of it is generated text: a side's
    block, and after an end line nothing but blank lines), the whole region is part of the
    block, which is regenerated.  Anything else stays as parsed (the conflict check then
    refuses it): the user's bytes are never dropped.
    """
    pinned = parts.pinned
    at = max((m.start() for m in _CONFLICT_LINE.finditer(pinned) if m.group(1)), default=-1)
    if at < 0:
        return parts
    text = pinned + parts.block + parts.inbox
    close = next((m for m in _CONFLICT_LINE.finditer(text, at + 7) if m.group(1) or m.group(4)), None)
    if close is None or close.group(1):
        return parts
    sides: list[list[str]] = [[]]
    for line in text[at: close.start()].split("\n")[1:]:
        if _CONFLICT_LINE.fullmatch(line):
            sides.append([])
        else:
            sides[-1].append(line.rstrip("\r"))
    for side in sides:
        side = side[:-1] if side and side[-1] == "" else side
        if not side or not _BEGIN_LINE.fullmatch(side[0]):
            return parts
        ends = [i for i, line in enumerate(side) if _END_LINE.fullmatch(line)]
        if ends and any(line.strip() for line in side[ends[0] + 1:]):
            return parts  # the user's text after a side's end marker
    stop = max(len(pinned) + len(parts.block), text.find("\n", close.end()) + 1 or len(text))
    return TrunkParts(text[:at], text[at:stop], text[stop:], parts.newline)


def code_spans(text: str, *, closed: bool = False) -> list[tuple[int, int]]:
    """(start, end) char spans of `text` whose lines are code or comment, not Markdown structure.

    Fenced code blocks (from the opening fence line through the closing one, or to the end of
    the text when never closed, as CommonMark reads it) and HTML comments opened at a line start
    and not closed on that line (through the line that holds `-->`, or to the end).  Only
    top-level constructs; pure, no parser (the hook's light path calls it).  `closed`: leave
    out a fence or comment that is never closed (parse_trunk: an unclosed fence typed above the
    block must not make the real markers vanish; the migration and status warn about it instead).
    """
    spans: list[tuple[int, int]] = []
    fence: tuple[str, int] | None = None
    comment = False
    start = 0
    for m in _LINE.finditer(text):
        line = m.group().rstrip("\r\n")
        if fence is not None:
            close = _FENCE.match(line)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= fence[1] and not close.group(2).strip():
                fence = None
                spans.append((start, m.end()))
            continue
        if comment:
            if "-->" in line:
                comment = False
                spans.append((start, m.end()))
            continue
        opening = _FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence, start = (opening.group(1)[0], len(opening.group(1))), m.start()
        elif _COMMENT_OPEN.match(line) and "-->" not in line[line.index("<!--") + 4 :] \
                and not line.startswith(BEGIN_PREFIX):  # a marker line is never a comment's opening
            comment, start = True, m.start()
    if (fence is not None or comment) and not closed:
        spans.append((start, len(text)))
    return spans


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in spans)


def markers_missing(text: str = "") -> BadInput:
    """The refusal for a trunk without a valid marker pair while `memory/domains/` exists (a marker
    deleted or retyped, the trunk rewritten): one message for reindex, the hook, --check and status.

    When the markers are there but an HTML comment or code fence opened above them hides them
    (never closed before the marker line, so Markdown reads the marker as part of it), the
    message names that line instead: closing it brings the markers back.
    """
    begin = _BEGIN_LINE.search(text)
    spans = code_spans(text) if begin is not None else []
    for start, end in spans:
        if begin is not None and start <= begin.start() < end:
            line = text.count("\n", 0, start) + 1
            return BadInput(f"{TRUNK}:{line}: an HTML comment or code fence opened here is not closed before the "
                            f"bonsai markers, so Markdown reads them as part of it; close it (`-->` or the fence)")
    # Never advise `git checkout -- MEMORY.md`: it would throw away the memory written since (issue 21 §9).
    return BadInput(f"{TRUNK}: its bonsai markers are missing but {DOMAINS_DIR}/ exists; put the two marker lines "
                    f"back around the generated block (`git diff {TRUNK}` shows what changed; "
                    f"`git show HEAD:{TRUNK}` shows them)")


def is_migrated(text: str) -> bool:
    """True when the trunk text already carries a bonsai begin/end marker pair."""
    return parse_trunk(text) is not None


_LEAF_PREFIX = "memory/domains/"
_SINGLE_PATHS = frozenset(SINGLE_FILE_DOMAINS.values())


@functools.lru_cache(maxsize=1 << 17)  # pure, and asked several times per leaf by status (60,000 leaves)
def leaf_location(path: str) -> tuple[str, str] | None:
    """(domain, name) for a workspace-relative path that is a leaf, else None.

    Not leaves: index files, non-`.md` files, names or folders starting with `_` or `.`,
    anything outside `memory/domains/` except the single-file domains.
    """
    # The usual leaf path, decided by a few C-level string checks (every leaf, at every commit):
    # no empty, `.` or `_`/`.`-led part, so the general rule below gives exactly this.
    if path.startswith(_LEAF_PREFIX) and path.endswith(".md") and "/." not in path and "/_" not in path \
            and "//" not in path and path not in _SINGLE_PATHS:
        domain, _, name = path[len(_LEAF_PREFIX) :].partition("/")
        return (domain, name) if name else None
    return _leaf_location_general(path)


def _leaf_location_general(path: str) -> tuple[str, str] | None:
    """leaf_location's rule for any path (the fast path above agrees with it: tests/test_factcache.py)."""
    for domain, single in SINGLE_FILE_DOMAINS.items():
        if path == single:
            return domain, PurePosixPath(single).name
    if not path.endswith(".md") or path.startswith("/"):
        return None
    # str.split, not PurePosixPath: this runs for every leaf at every commit (the hook's hot path).
    parts = path.split("/")
    if "" in parts or "." in parts:
        parts = [p for p in parts if p and p != "."]
    if len(parts) < 4 or parts[0] != "memory" or parts[1] != "domains":
        return None
    for part in parts[2:]:
        if part.startswith((".", "_")):
            return None
    return parts[2], "/".join(parts[3:])


def misplaced_leaf(path: str) -> bool:
    """True for a `.md` file put directly in `memory/domains/` (no domain folder): never a leaf, never indexed."""
    parts = path.split("/")
    return len(parts) == 3 and parts[:2] == ["memory", "domains"] and path.endswith(".md") \
        and not parts[2].startswith((".", "_"))


def misplaced_message(path: str) -> str:
    """The warning for a misplaced_leaf `path`."""
    return (f"directly in {DOMAINS_DIR}/, not in a domain folder, so never indexed; move it into "
            f"{DOMAINS_DIR}/<domain>/ (git mv)")


def domain_name_message(domain: str) -> str:
    """The warning for a domain folder whose name `bonsai-git move` would refuse as a target."""
    return (f"domain folder {shown_name(domain)!r} is not a name bonsai-git move accepts (lowercase letters, digits "
            f"and '-'); rename the folder (git mv) so leaves can be moved into it")


def leaf_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """The leaf paths among workspace-relative paths, sorted."""
    return tuple(sorted(p for p in set(paths) if leaf_location(p) is not None))


def find_conflict_marker(text: str, allowed: tuple[int, int] | None = None) -> int | None:
    """1-based line of the first git merge-conflict line in `text`, or None.

    A conflict is a region git writes: a `<<<<<<< label` line, then `||||||| label` (diff3),
    `=======` and `>>>>>>> label` lines; the first line of the region is reported.  Outside
    such a region `=======` is a setext heading underline and `>>>>>>> x` a deeply nested
    quote, both ordinary Markdown; `<<<<<<<` at a line start is never written by hand.  `allowed` is a (start, end) char span (MEMORY.md's
    generated block) where a whole conflict region may sit: the tool regenerates it.  A region
    that only starts or ends there, or crosses a marker, is not allowed.
    """
    if ("<<<<<<<" not in text and ">>>>>>>" not in text) or _CONFLICT_HINT.search(text) is None:
        return None  # the common case: two substring scans (10x cheaper than the regex), then one regex scan
    region: list[int] = []  # offsets of the current region's lines
    for m in _CONFLICT_LINE.finditer(text):
        opening, base, sep, closing = m.groups()
        if opening:
            if region and not _all_in(region, allowed):
                break
            region = [m.start()]
        elif region and (base or sep):
            region.append(m.start())
        elif closing and region:
            region.append(m.start())
            if not _all_in(region, allowed):
                break
            region = []
    else:
        if not region or _all_in(region, allowed):
            return None
    return text.count("\n", 0, region[0]) + 1


def _all_in(offsets: list[int], span: tuple[int, int] | None) -> bool:
    return span is not None and all(span[0] <= o < span[1] for o in offsets)


def decode_utf8(data: bytes, name: str) -> str:
    """Decode `data` as strict UTF-8; BadInput names `name` and the first bad byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{name}: not valid UTF-8 at byte offset {exc.start}; save it as UTF-8 and retry") from None


def check_file_name(path: str) -> None:
    """BadInput when a path cannot become text in a generated file: control characters (a newline
    would inject lines, a fake end marker or heading, into the trunk and the indexes), line or
    paragraph separators, or bytes that are not UTF-8 (a `surrogateescape` str from git or the
    disk).  The message shows the name with those escaped (`\\n`, `\\xff`)."""
    if path.isprintable():
        return  # the usual name, decided without a per-char scan (isprintable is False for all the above)
    import unicodedata

    bad = [ch for ch in path if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")]
    if bad:
        kind = "bytes that are not UTF-8" if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in bad) else "control characters"
        raise BadInput(f"{shown_name(path)}: its name holds {kind}, which would become text in MEMORY.md and the "
                       f"indexes; rename it (git mv) to a plain name, then retry")


def shown_name(path: str) -> str:
    """`path` with control characters and non-UTF-8 bytes escaped, safe to print on one line."""
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def leaves_from_bytes(files: Iterable[tuple[str, bytes]]) -> tuple[Leaf, ...]:
    """Leaf records of `(workspace-relative leaf path, bytes)` pairs already read, in the given order.

    Raises BadInput for a leaf that is not UTF-8, holds a NUL byte (issue 21 §8: migrate refuses one, so
    flatten then migrate would not round-trip) or merge-conflict markers (as read_leaves).
    """
    leaves = []
    for path, data in files:
        location = leaf_location(path)
        if location is None:
            continue
        check_file_name(path)
        text = decode_utf8(data, path)
        if "\0" in text:  # migrate refuses a NUL (binary data): what is indexed must flatten and migrate back
            raise BadInput(f"{path}: holds a NUL byte at byte offset {data.find(bytes(1))} (binary data, not "
                           "Markdown), which flatten and migrate could not read back; remove it, then commit again")
        line = find_conflict_marker(text)
        if line is not None:
            raise BadInput(f"{path}:{line}: merge-conflict marker; resolve the conflict, then commit again")
        leaves.append(Leaf(location[0], location[1], text))
    return tuple(leaves)


def git_blob_id(data: bytes) -> str:
    """git's object id (SHA-1, hex) of `data` stored as a blob, as `git hash-object --no-filters` gives it
    (a repository in SHA-256 object format names blobs otherwise: its ids then never match, and
    the callers read the files)."""
    h = _sha1(b"blob %d\0" % len(data))
    h.update(data)
    digest: str = h.hexdigest()
    return digest


class OnDisk(str):
    """A rendered file's text that was not loaded: the file at its path is that text, as git
    stores it (git reports the file unchanged, with the blob id the rendering has).  Empty as a
    str; only the hook's writer is given these (factcache.branches_of with `clean`), and skips them."""

    __slots__ = ()


def unread_leaves(paths: Iterable[str]) -> tuple[Leaf, ...]:
    """Leaf records with empty text for leaf paths whose facts a caller already holds (the hook's
    facts cache, by git blob id): rendered through a `facts` function, never by their text.

    Raises BadInput for a name that could not be written into an index (check_file_name).
    """
    leaves = []
    for path in paths:
        location = leaf_location(path)
        if location is not None:
            check_file_name(path)
            leaves.append(Leaf(location[0], location[1], ""))
    return tuple(leaves)
