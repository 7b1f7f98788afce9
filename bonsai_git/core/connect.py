"""Connect a runtime to the memory: the blocks `bonsai-git connect` puts into the files it loads.

Measured with the real runtimes (Codex CLI 0.171.0, Claude Code 2.1.332; ../shared/tools/clients/
README.md): Codex never reads MEMORY.md (only AGENTS.md files, root first, one 32,768-byte budget),
and Claude Code reads a repository's MEMORY.md only through an `@MEMORY.md` import in CLAUDE.md (or
an absolute `autoMemoryDirectory`).  So `connect` writes:

- codex: the *projection*, a generated block at the top of the AGENTS.md Codex loads for the
  workspace folder.  Mode `block` (the default) holds one intro line and the trunk block's own
  lines (the trunk renderer's output, re-joined with the file's line ending: whatever the trunk
  block says, the projection says); mode `pointer` holds only an instruction to read MEMORY.md
  (used when the block would not fit the chain budget, or when asked).  The begin line carries
  the mode, `new-file` when connect created the file, and a CRC-32 of the body, so text typed
  between the markers is found exactly and refused, never overwritten.  The block goes first in
  the file: Codex cuts the chain at its end, so the top is the one place the user's own text can
  never push it out of the budget.
- claude: a three-line block at the top of CLAUDE.md: two whole-line HTML comments (Claude Code
  strips them before injecting, measured) around `@MEMORY.md`.  A CLAUDE.md that imports
  MEMORY.md already (the user's own line) gets nothing: never a duplicate import.

`remove_block` takes out exactly the bytes `insert_block` put in, so connect + undo leaves the
file byte for byte as it was (a file connect created is deleted).  Text outside the markers is
never changed.  Pure: text in, text out.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import BadInput
from .layout import END, TRUNK

CODEX_BEGIN = "<!-- bonsai:codex:begin"
CODEX_END = "<!-- bonsai:codex:end -->"
CLAUDE_BEGIN = "<!-- bonsai:claude:begin"
CLAUDE_END = "<!-- bonsai:claude:end -->"
MODES = ("block", "pointer")
NEW_FILE = "new-file"
CLAUDE_IMPORT = f"@{TRUNK}"
CODEX_NAMES = ("AGENTS.override.md", "AGENTS.md")  # Codex's per-folder order (the first non-blank wins)
# Intro of the block mode: the trunk block's own lines follow (its "below the end marker" means MEMORY.md's).
CODEX_INTRO = (f"Agent memory: {TRUNK} and memory/ (Codex does not load {TRUNK}; bonsai-git copies its generated "
               f"index here, so edit {TRUNK}, never this block). Read {TRUNK} for its pinned notes; new memories "
               f"go into {TRUNK}, below its end marker.")
CODEX_POINTER = (f"Agent memory: {TRUNK} and memory/ (Codex does not load {TRUNK}). Before a task that may need "
                 f"memory, read {TRUNK}: it lists the memory's domains and how to look things up; new memories go "
                 f"into {TRUNK}, below its end marker.")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_IMPORT = re.compile(r"(?:^|\s)@(?:\./)?MEMORY\.md(?=\s|$)")
_CRC = re.compile(r" #([0-9a-f]{8}) -->\r?$")


@dataclass(frozen=True, slots=True)
class BlockSpan:
    """Where a connect block sits in a file: character offsets [start, end) of its lines (the end
    line's newline included), its begin line's words (`mode`, `new-file`) and its 1-based line."""

    start: int
    end: int
    words: tuple[str, ...]
    line: int

    @property
    def created(self) -> bool:
        """True when connect created the file that holds the block (undo then deletes it)."""
        return NEW_FILE in self.words

    @property
    def mode(self) -> str:
        """The codex block's mode (`block` or `pointer`; `block` for a claude block)."""
        return next((w for w in self.words if w in MODES), "block")


def newline_of(text: str) -> str:
    """The line ending `text` uses (its first line's), "\\n" for a text without one."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def trunk_block_lines(block: str) -> list[str]:
    """The lines between the trunk block's markers (`layout.parse_trunk(...).block`), without endings."""
    lines = block.replace("\r\n", "\n").split("\n")
    body = lines[1:]
    end = next((i for i, line in enumerate(body) if line.startswith(END)), len(body))
    return body[:end]


def render_codex_block(trunk_block: str | None, mode: str, newline: str = "\n", created: bool = False) -> str:
    """The Codex projection for the trunk block text `trunk_block` (markers included; None in
    `pointer` mode), markers and all, each line ended by `newline`."""
    if mode not in MODES:
        raise ValueError(f"unknown codex block mode {mode!r}")
    if mode == "block":
        if trunk_block is None:
            raise ValueError("block mode needs the trunk block")
        body_lines = [CODEX_INTRO, *trunk_block_lines(trunk_block)]
    else:
        body_lines = [CODEX_POINTER]
    body = newline.join(body_lines) + newline
    words = " ".join(["generated", mode, *([NEW_FILE] if created else [])])
    return f"{CODEX_BEGIN} {words} #{_crc(body)} -->{newline}{body}{CODEX_END}{newline}"


def render_claude_block(newline: str = "\n", created: bool = False) -> str:
    """The CLAUDE.md block: the `@MEMORY.md` import between two whole-line comments Claude Code strips."""
    words = " ".join(["generated", *([NEW_FILE] if created else [])])
    return (f"{CLAUDE_BEGIN} {words} (bonsai-git connect claude; undo: bonsai-git connect claude --undo) -->{newline}"
            f"{CLAUDE_IMPORT}{newline}{CLAUDE_END}{newline}")


def find_block(text: str, begin: str, end: str, name: str) -> BlockSpan | None:
    """The connect block (`begin` prefix / `end` line) in `text`, or None when it has none.

    Raises BadInput naming `name` and the line when a begin line has no end line after it, or when
    the file holds two blocks (a copy pasted in: which one is ours cannot be told)."""
    starts = [m for m in re.finditer(rf"^{re.escape(begin)}\b[^\n]*$", text, re.M)]
    if not starts:
        return None
    first = starts[0]
    line = text.count("\n", 0, first.start()) + 1
    if len(starts) > 1:
        raise BadInput(f"{name}:{text.count(chr(10), 0, starts[1].start()) + 1}: a second bonsai-git block; "
                       "delete one copy, then retry")
    stop = re.compile(rf"^{re.escape(end)}[ \t]*\r?$", re.M).search(text, first.end())
    if stop is None:
        raise BadInput(f"{name}:{line}: bonsai-git's begin marker has no end marker `{end}`; restore it "
                       "(git diff shows what changed), then retry")
    close = stop.end() + (1 if text.startswith("\n", stop.end()) else 0)
    head = first.group(0).rstrip("\r")[len(begin):]
    words = tuple(w for w in re.sub(r"\(.*\)|#[0-9a-f]{8}|-->", " ", head).split())
    return BlockSpan(first.start(), close, words, line)


def foreign_line(text: str, span: BlockSpan) -> int | None:
    """1-based line in `text` of the codex block `span` where text bonsai-git did not write sits, else None.

    The begin line's CRC-32 covers the body (read with LF endings, as the trunk block's): any byte
    typed, changed or removed between the markers is caught.  A block holding a git conflict
    (a merge of two generated blocks) is regenerated whole: None."""
    block = text[span.start:span.end]
    if "\n<<<<<<<" in block:
        return None
    first, _, rest = block.partition("\n")
    crc = _CRC.search(first)
    end = rest.rfind(CODEX_END)
    body = rest[:end] if end >= 0 else rest
    if crc is not None and _crc(body) == crc.group(1):
        return None
    return span.line + 1


def insert_block(text: str | None, block: str) -> str:
    """`text` (None: no file yet) with `block` put first; nothing of `text` changes."""
    return block + (text or "")


def replace_block(text: str, span: BlockSpan, block: str) -> str:
    """`text` with the block at `span` replaced by `block` (the bytes around it unchanged)."""
    return text[:span.start] + block + text[span.end:]


def remove_block(text: str, span: BlockSpan) -> str | None:
    """`text` without the block at `span`: exactly what `insert_block` added is gone.  None when
    connect created the file and nothing else is left in it (undo deletes the file)."""
    rest = text[:span.start] + text[span.end:]
    return None if span.created and rest == "" else rest


def imports_memory(text: str) -> int | None:
    """1-based line of an `@MEMORY.md` import (`@./MEMORY.md` too) in CLAUDE.md `text`, outside code
    fences and HTML comment lines, else None (Claude Code ignores imports inside code blocks)."""
    fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fence = not fence
            continue
        if fence or line.lstrip().startswith("<!--"):
            continue
        if _IMPORT.search(line.replace("`" + CLAUDE_IMPORT + "`", "")):
            return number
    return None


@dataclass(frozen=True, slots=True)
class CodexFit:
    """The projection against Codex's chain budget (UTF-8 bytes, root first).

    `before`: bytes of the chain's files above the target file; `block`: the projection's bytes;
    `budget`; `user_lost`: bytes of the user's own instruction text the budget cuts with the
    projection in place; `user_lost_before`: the same without it."""

    before: int
    block: int
    budget: int
    user_lost: int
    user_lost_before: int

    @property
    def fits(self) -> bool:
        """True when Codex loads the whole projection."""
        return self.before + self.block <= self.budget


def codex_fit(chain_before: Mapping[str, str], target_text: str, block: str, budget: int) -> CodexFit:
    """How the projection `block`, first in the target file (whose other text is `target_text`),
    fares under Codex's `budget` (bytes) after the chain files above it (`chain_before`: {path: the
    text Codex takes from each folder above the target, root first}); see CodexFit."""
    before = sum(len(t.encode("utf-8")) for t in chain_before.values())
    own = len(target_text.encode("utf-8"))
    size = len(block.encode("utf-8"))
    lost_before = max(0, own - max(0, budget - before))
    lost = max(0, own - max(0, budget - before - size))
    return CodexFit(before, size, budget, lost, lost_before)


def _crc(body: str) -> str:
    return f"{zlib.crc32(body.replace(chr(13) + chr(10), chr(10)).encode('utf-8', 'surrogatepass')):08x}"
