"""Absorb new memories: `##` sections the agent appended to MEMORY.md after the end marker.

After a migration the trunk is `pinned text + generated block + inbox`: whatever follows the
`<!-- bonsai:end -->` line is the inbox.  Each level-2 section there (the same CommonMark split
as migrate) is a new memory, and absorbing it moves it out of the trunk into the tree:

- it is classified by its heading and body as migrate classifies (`classify_section`, with the
  trunk's pinned text as the preamble that names the owner and the agent);
- same topic, same leaf: when its heading matches the heading of a leaf already in that
  domain (the same words after case, whitespace and punctuation folding, `same_topic`), it is
  appended to that leaf after a blank line (the leaf's own line breaks), every byte kept, instead
  of making `travel-2.md`; a second section on the same topic in one inbox joins the first's leaf;
- otherwise it becomes a NEW leaf `memory/domains/<domain>/<name>.md`, named by `leaf_name` and
  made unique against the names already in that domain folder (case-insensitive, `-2`, `-3`...);
  an existing leaf is never overwritten: its old bytes stay its first bytes;
- except in a single-file domain (`dates`), whose sections are appended, in document order,
  to that one file (`memory/dates.md`), as migrate does.  When that file does not end with a
  line break, one (the file's own style) is inserted first so the heading stays a heading;
  these line breaks are the only bytes absorb ever adds to a leaf;
- a section whose heading matches a pin rule stays in the inbox (it is loaded at every
  session start, like the pinned text above the block); so does text before the inbox's
  first `##` heading.  Text before the begin marker is never touched.

Pure: `plan_absorb` maps the inbox text and the names already taken to the files to write and
the new inbox; `verify_absorbed` proves, from the files read back from disk, that the old inbox
is exactly the kept text and the absorbed sections interleaved in document order.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .classify import SectionInput, body_of, classify_section, document_context, is_pinned
from .config import SINGLE_FILE_DOMAINS, Config
from .errors import Failed
from .layout import DOMAINS_DIR, TRUNK, leaf_location
from .plan import piece_at
from .secretscan import mask_secrets
from .sections import heading_of, split_sections
from .slugs import unique_leaf_names

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# A line that could open a level-2 section (ATX `##`, or a setext `---` underline).
_MAYBE_SECTION = re.compile(r"^ {0,3}(?:##(?:[ \t]|\r?$)|-+[ \t]*\r?$)", re.M)


def sections_above_block(pinned: str, config: Config) -> tuple[tuple[int, str], ...]:
    """The `##` sections in the trunk's text above the generated block that no pin rule keeps there.

    `pinned` is TrunkParts.pinned (the user's text before the begin marker).  Returns (1-based line
    in MEMORY.md, heading) in document order.  Such a section is loaded at every boot like pinned text,
    but nobody pinned it: usually a new memory written above the block by mistake (issue 20: it stayed
    in the boot trunk with no warning).  New memories belong after the end marker, where absorb files them.
    """
    if "#" not in pinned and "-" not in pinned:
        return ()
    return tuple((s.line, s.heading) for s in split_sections(pinned).sections if not is_pinned(s.heading, config))


@dataclass(frozen=True, slots=True)
class AbsorbedSection:
    """One absorbed section: its heading, domain, the leaf file it went to, and where in that file.

    `offset` and `length` are in chars of the leaf file's new text; `extends` is True when the
    leaf existed before (same topic, or a single-file domain) and the section was appended to it.
    """

    heading: str
    domain: str
    path: str
    offset: int
    length: int
    extends: bool = False


@dataclass(frozen=True, slots=True)
class AbsorbPlan:
    """What absorbing writes: leaf files ({path: full new text}, sorted), the sections, the new inbox.

    `pieces` lists the old inbox in document order as ("keep", start, length) slices of the new
    inbox, ("leaf", index into `sections`) entries, or a ("gap", start, length) slice of the old
    inbox holding only the blank lines dropped before its sections, for `verify_absorbed`.  `bases`: (path,
    text the plan appended to) for each existing leaf it extends, so the writer can refuse to
    replace a leaf that changed since it was read.
    """

    files: tuple[tuple[str, str], ...]
    sections: tuple[AbsorbedSection, ...]
    inbox: str
    pieces: tuple[tuple[str, int, int], ...]
    bases: tuple[tuple[str, str], ...] = ()

    @property
    def new_leaf_paths(self) -> tuple[str, ...]:
        """Every leaf path the plan writes (new leaves and appended single-file domains), sorted."""
        return tuple(path for path, _ in self.files)


def may_hold_sections(inbox: str) -> bool:
    """True when the inbox text could hold a `##` section (a cheap test that needs no parser)."""
    return _MAYBE_SECTION.search(inbox) is not None


def same_topic(heading: str) -> str:
    """The folded words of a heading: its text as Markdown shows it, NFKC, casefolded, one space between words.

    Two headings are the same topic when their folds are equal and not empty
    (`Travel`, `travel:`, `**TRAVEL**`, `Travel!` and `(travel)` are; `Travel plans` is not).
    Emphasis and code markers go (markdown-it's inline text); so do sentence punctuation ending
    a word (`.,:;!?`), brackets and quotes around it, dashes, underscores and apostrophes (word
    separators), and words of symbols alone (`📌`, `&`).  Punctuation that carries meaning stays:
    `C#`, `C++` and `C` are three topics, as are `F#`/`F*` and `.NET`/`NET` (issue 22: `## Tool: C#`
    was appended to the `C++` leaf).
    """
    text = unicodedata.normalize("NFKC", _shown_text(heading)).casefold()
    words: list[str] = []
    for token in text.split():
        token = token.strip(_ENCLOSING).rstrip(_SENTENCE_END).strip(_ENCLOSING)
        kept = "".join(" " if _separates(ch) else ch for ch in token)
        words += [w for w in kept.split() if any(unicodedata.category(ch)[0] in "LN" for ch in w)]
    return " ".join(words)


_SENTENCE_END = ".,:;!?"
_ENCLOSING = "\"'()[]{}<>«»“”‘’„‚"
_SEPARATORS = frozenset("'\",:;!?")
_INLINE_MARKUP = re.compile(r"[*_`\[\]<>\\&!~]")  # what markdown-it's inline rules may act on


def _separates(ch: str) -> bool:
    """A character that splits words in a topic: spaces, controls, dashes, connectors, brackets, quotes, ..."""
    return ch in _SEPARATORS or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf", "Pd", "Pc", "Ps", "Pe",
                                                            "Pi", "Pf")


def _shown_text(heading: str) -> str:
    """The heading's text as CommonMark shows it (markdown-it's inline text and code tokens joined).

    A heading without a character inline rules act on is its own text (tests/core/test_absorb.py
    proves the shortcut equal to markdown-it with hypothesis); markdown-it is loaded only otherwise.
    """
    if _INLINE_MARKUP.search(heading) is None:
        return heading
    tokens = _inline_parser().parseInline(heading)
    return "".join(child.content for token in tokens for child in (token.children or ())
                   if child.type in ("text", "code_inline"))


@functools.lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def plan_absorb(
    inbox: str,
    config: Config,
    taken: Mapping[str, Collection[str]],
    single_files: Mapping[str, str | None],
    existing: Mapping[str, str] | None = None,
    preamble: str = "",
) -> AbsorbPlan:
    """Plan the absorption of the inbox's `##` sections (the rules are in the module docstring).

    `inbox` is the trunk text after the end marker line (str).  `taken` maps a domain to the
    leaf names already in its folder (without `.md`, any case; include untracked files so
    nothing on disk is overwritten).  `single_files` maps a single-file domain's path (e.g.
    `memory/dates.md`) to its current text, or None when it does not exist.  An inbox without
    sections gives a plan with no files and the inbox unchanged.  `existing` maps the leaf
    paths already in the tree to their text; a section whose heading is the same topic as one
    of theirs (in its domain) is appended to it.  `preamble` (the trunk's pinned text) names the
    owner and the agent and shows the memory's languages, as migrate reads them.  Never raises.
    """
    doc = split_sections(inbox)
    kept: list[str] = [doc.preamble]
    pieces: list[tuple[str, int, int]] = [("keep", 0, len(doc.preamble))] if doc.preamble else []
    moving: list[tuple[str, str, str]] = []  # (domain, heading, text) in document order
    kept_len = len(doc.preamble)
    inputs = [SectionInput(s.heading, body_of(s.text), s.group) for s in doc.sections]
    context = document_context(preamble, inputs, config) if inputs else None
    for section, found in zip(doc.sections, inputs):
        if is_pinned(section.heading, config):
            kept.append(section.text)
            pieces.append(("keep", kept_len, len(section.text)))
            kept_len += len(section.text)
            continue
        pieces.append(("leaf", len(moving), 0))
        decision = classify_section(found, config, context=context)
        moving.append((decision.domain, section.heading, section.text))
    topics = _topics(existing or {}, {domain for domain, _h, _t in moving})
    files, sections, bases = _place(moving, taken, single_files, topics)
    if moving and len(kept) == 1 and kept[0] and not kept[0].strip():
        # Only the blank lines between the end marker and the sections would stay: MEMORY.md would
        # end in a blank line, which a Markdown formatter removes at the next commit (issue 22).
        # They are dropped ("gap": `verify_absorbed` checks they are whitespace, and nothing else).
        pieces[0] = ("gap", 0, len(kept[0]))
        kept = []
    return AbsorbPlan(tuple(sorted(files.items())), sections, "".join(kept), tuple(pieces), bases)


def verify_absorbed(old_inbox: str, plan: AbsorbPlan, files: Mapping[str, str]) -> None:
    """Prove nothing was lost: the old inbox is the kept text and the absorbed leaves' pieces.

    `files` maps each leaf path of the plan to its text read back from disk.  Raises Failed
    naming the first section that is missing or differs, before MEMORY.md is rewritten.
    """
    joined: list[str] = []
    for kind, start, length in plan.pieces:
        if kind == "gap":  # blank lines dropped before the absorbed sections (plan_absorb)
            gap = old_inbox[start : start + length]
            if gap.strip():
                raise Failed(f"{TRUNK}: the absorbed sections do not reproduce the inbox; {TRUNK} was left unchanged")
            joined.append(gap)
            continue
        if kind == "keep":
            joined.append(plan.inbox[start : start + length])
            continue
        s = plan.sections[start]
        piece = piece_at(files, s.path, s.offset, s.length)
        if piece is None:
            raise Failed(f"{s.path}: the absorbed section {mask_secrets(s.heading)!r} is not there; {TRUNK} was left unchanged")
        joined.append(piece)
    if "".join(joined) != old_inbox:
        raise Failed(f"{TRUNK}: the absorbed sections do not reproduce the inbox; {TRUNK} was left unchanged")


def _topics(existing: Mapping[str, str], domains: set[str]) -> dict[tuple[str, str], tuple[str, str]]:
    """{(domain, folded heading): (leaf path, its text)} for the existing leaves of `domains`.

    Several leaves on one topic (made before this rule): the first path in sorted order wins.
    """
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for path in sorted(existing):
        location = leaf_location(path)
        if location is None or location[0] not in domains or location[0] in SINGLE_FILE_DOMAINS:
            continue
        text = existing[path]
        first = text.split("\n", 1)[0].rstrip("\r")
        heading = first[3:] if first.startswith("## ") and "#" not in first[3:] else heading_of(text)
        topic = same_topic(heading)
        if topic:
            out.setdefault((location[0], topic), (path, text))
    return out


def _place(
    moving: list[tuple[str, str, str]],
    taken: Mapping[str, Collection[str]],
    single_files: Mapping[str, str | None],
    topics: Mapping[tuple[str, str], tuple[str, str]],
) -> tuple[dict[str, str], tuple[AbsorbedSection, ...], tuple[tuple[str, str], ...]]:
    """Name each moving section's leaf, extend a same-topic leaf, or append to its single file; keep document order."""
    by_domain: dict[str, list[int]] = {}
    for i, (domain, _h, _t) in enumerate(moving):
        by_domain.setdefault(domain, []).append(i)
    files: dict[str, str] = {}
    bases: dict[str, str] = {}
    placed: list[AbsorbedSection | None] = [None] * len(moving)
    for domain, indices in sorted(by_domain.items()):
        single = SINGLE_FILE_DOMAINS.get(domain)
        if single is not None:
            text = single_files.get(single) or ""
            for i in indices:
                text += _line_break_before(text)
                placed[i] = AbsorbedSection(moving[i][1], domain, single, len(text), len(moving[i][2]), bool(text))
                text += moving[i][2]
            files[single] = text
            continue
        target: dict[int, str | int] = {}  # section -> existing leaf path, or the index of its group's first section
        leaders: dict[str, int] = {}
        for i in indices:
            topic = same_topic(moving[i][1])
            known = topics.get((domain, topic)) if topic else None
            if known is not None:
                target[i] = known[0]
                files.setdefault(known[0], known[1])
                bases[known[0]] = known[1]
            else:
                target[i] = leaders.setdefault(topic, i) if topic else i
        fresh = [i for i in indices if target[i] == i]
        names = dict(zip(fresh, unique_leaf_names((moving[i][1] for i in fresh), taken=taken.get(domain, ()))))
        for i in indices:
            goal = target[i]
            path = goal if isinstance(goal, str) else f"{DOMAINS_DIR}/{domain}/{names[goal]}.md"
            before = files.get(path)
            text = "" if before is None else before + _blank_line_before(before)
            placed[i] = AbsorbedSection(moving[i][1], domain, path, len(text), len(moving[i][2]), path in bases)
            files[path] = text + moving[i][2]
    return files, tuple(s for s in placed if s is not None), tuple(sorted(bases.items()))


def _blank_line_before(text: str) -> str:
    """What makes `text` end with a blank line: "", one or two line breaks (CRLF if it uses CRLF)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    if not text or text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
        return ""
    return newline if text.endswith(("\n", "\r")) else newline * 2


def _line_break_before(text: str) -> str:
    """"" when `text` is empty or ends a line; else its own line break (CRLF if it uses CRLF)."""
    if not text or text.endswith(("\n", "\r")):
        return ""
    return "\r\n" if "\r\n" in text else "\n"
