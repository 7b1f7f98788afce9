"""Boot budget: what an agent loads at session start, measured against its runtime's caps.

At session start OpenClaw injects the workspace's bootstrap files (the trunk `MEMORY.md` and
the sibling files below, when present and not blank) into the system prompt, each cut to a
per-file cap and all of them to a total cap.  An oversized file keeps its first ~75% and
last ~25% of its budget and loses the middle.  Claude Code loads the first 200 lines or
the first 25,000 bytes of MEMORY.md, whichever comes first.  `boot_budget` simulates both,
so status can say how much headroom is left, which file would be cut and how many of its
characters would be lost.  Codex (the `codex` profile) works differently: it concatenates one
instruction file per folder, from the project root (the folder holding `.git`) down to the
working folder, and stops once the combined size reaches `project_doc_max_bytes` (32 KiB =
32,768 bytes by default), counted in UTF-8 bytes: the cut keeps the start and silently drops the
rest, so the files closest to the working folder are lost first.  `codex_chain` simulates it.

Characters are counted as OpenClaw counts them: JavaScript string length, i.e. UTF-16 code
units (an emoji outside the BMP counts 2).  The runtimes' numbers live in one table,
`PROFILES`, newest first; `DEFAULT_PROFILE` is what OpenClaw 2026.9 does (measured with
OpenClaw 2026.9.6's own `systemPromptReport`: bootstrapMaxChars 20,000, bootstrapTotalMaxChars
60,000, near-limit warning at 85%, USER.md capped at 4,000).  Older rows come from OpenClaw's
changelog.  Pure: text in, records out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .tokens import estimate_tokens

TRUNK_NAME = "MEMORY.md"
CLAUDE_CODE_MAX_LINES = 200  # Claude Code auto memory: "the first 200 lines of MEMORY.md,
CLAUDE_CODE_MAX_BYTES = 25_000  # or the first 25KB, whichever comes first"


@dataclass(frozen=True, slots=True)
class BootProfile:
    """One runtime release's injection rules.

    `files`: bootstrap file names in injection order (the trunk last); `file_cap` and
    `total_cap` in chars (UTF-16 units; `total_cap` None = no total cap); `file_caps`: files
    with their own, smaller cap; `warn_ratio`: share of a cap that counts as near the limit;
    `head_ratio`: share of a cut file's budget kept from its start (the rest from its end).
    """

    name: str
    label: str
    files: tuple[str, ...]
    file_cap: int
    total_cap: int | None
    file_caps: tuple[tuple[str, int], ...] = ()
    warn_ratio: float = 0.85
    head_ratio: float = 0.75
    source: str = ""
    unit: str = "chars"  # what the caps count: "chars" (UTF-16 units) or "bytes" (UTF-8)
    chain: bool = False  # one file per folder from the project root down (Codex), cut at the end

    def cap_for(self, name: str) -> int:
        """The per-file cap (chars) that applies to bootstrap file `name`."""
        return dict(self.file_caps).get(name, self.file_cap)


_FILES_2026_9 = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", TRUNK_NAME)
_FILES_OLDER = ("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md",
                TRUNK_NAME)

PROFILES: tuple[BootProfile, ...] = (
    BootProfile("openclaw-2026.9", "OpenClaw 2026.9", _FILES_2026_9, 20_000, 60_000, (("USER.md", 4_000),),
                source="measured on OpenClaw 2026.9.6 (systemPromptReport)"),
    BootProfile("openclaw-2026.5", "OpenClaw 2026.5", _FILES_OLDER, 12_000, 60_000,
                source="OpenClaw changelog: per-file default 12,000 until 2026-06-01"),
    BootProfile("openclaw-2026.2", "OpenClaw 2026.2", _FILES_OLDER, 20_000, 150_000,
                source="OpenClaw #18229 (2026-02-16): total cap raised from 24,000 to 150,000"),
    BootProfile("openclaw-2026.1", "OpenClaw 2026.1", _FILES_OLDER, 20_000, None,
                source="OpenClaw (Clawdbot) 2026-01-13: per-file cap only"),
)
# Codex: developers.openai.com/codex/guides/agents-md (checked 2026-11): per folder from the
# project root down to the working folder, AGENTS.override.md, else AGENTS.md, else a name listed in
# project_doc_fallback_filenames (MEMORY.md here: Codex reads MEMORY.md only when it is listed
# there); at most one file per folder; empty files skipped; files stop once the combined size
# reaches project_doc_max_bytes (32 KiB).  The global ~/.codex/AGENTS.md is not part of that budget.
CODEX_MAX_BYTES = 32 * 1024
CODEX_FILES = ("AGENTS.override.md", "AGENTS.md", TRUNK_NAME)
PROFILES += (
    BootProfile("codex", "Codex", CODEX_FILES, CODEX_MAX_BYTES, CODEX_MAX_BYTES, head_ratio=1.0, unit="bytes",
                chain=True, source="Codex docs: project_doc_max_bytes = 32 KiB, AGENTS.md chain root -> cwd"),
)
DEFAULT_PROFILE = PROFILES[0].name


@dataclass(frozen=True, slots=True)
class BootFile:
    """One injected file: raw size, the cap that applied, what was injected and what was lost (chars)."""

    name: str
    chars: int
    tokens: int
    cap: int
    injected: int
    lost: int
    near_limit: bool

    @property
    def truncated(self) -> bool:
        """True when part of the file would not be injected."""
        return self.lost > 0


@dataclass(frozen=True, slots=True)
class ClaudeCodeFit:
    """MEMORY.md against Claude Code's load limit: lines and bytes, and what would not load."""

    lines: int
    bytes: int
    lost_lines: int
    lost_bytes: int

    @property
    def fits(self) -> bool:
        """True when Claude Code loads the whole file."""
        return self.lost_bytes == 0


@dataclass(frozen=True, slots=True)
class BootBudget:
    """The whole boot load under one profile.

    `files` in injection order (present, non-blank files only); `total_chars` injected;
    `headroom` = total cap - injected chars (None without a total cap).
    """

    profile: BootProfile
    files: tuple[BootFile, ...]
    claude_code: ClaudeCodeFit | None

    @property
    def total_chars(self) -> int:
        """Chars injected across all files."""
        return sum(f.injected for f in self.files)

    @property
    def tokens(self) -> int:
        """Estimated tokens of every bootstrap file, whole."""
        return sum(f.tokens for f in self.files)

    @property
    def headroom(self) -> int | None:
        """Chars left under the total cap (None when the profile has no total cap)."""
        cap = self.profile.total_cap
        return None if cap is None else cap - self.total_chars

    @property
    def near_total_limit(self) -> bool:
        """True when the injected total reaches the warning share of the total cap."""
        cap = self.profile.total_cap
        return cap is not None and self.total_chars >= cap * self.profile.warn_ratio


def profile_named(name: str) -> BootProfile:
    """The profile called `name` (see PROFILES); raises KeyError listing the known names."""
    for profile in PROFILES:
        if profile.name == name:
            return profile
    raise KeyError(f"unknown boot profile {name!r}; known: {', '.join(p.name for p in PROFILES)}")


def with_caps(profile: BootProfile, file_cap: int | None = None, total_cap: int | None = None) -> BootProfile:
    """`profile` with its per-file and/or total cap (chars) overridden (None keeps the profile's)."""
    if file_cap is not None:
        profile = replace(profile, file_cap=file_cap, file_caps=tuple((n, min(c, file_cap)) for n, c in profile.file_caps))
    if total_cap is not None:
        profile = replace(profile, total_cap=total_cap)
    return profile


def utf16_len(text: str) -> int:
    """Length of `text` in UTF-16 code units (JavaScript's `string.length`)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def boot_budget(files: Mapping[str, str], profile: BootProfile, estimator: str = "script-aware",
                chain: Mapping[str, str] | None = None) -> BootBudget:
    """Simulate the injection of bootstrap `files` ({file name: text}) under `profile`.

    Files the profile does not inject and blank files are skipped (OpenClaw skips them).
    Each file gets min(its cap, what is left of the total cap); the excess is lost from its
    middle.  The Claude Code fit is computed for the trunk when it is present.  A chain profile
    (Codex) reads `chain` instead ({path from the project root: text}, see `codex_chain`).
    """
    if profile.chain:
        trunk = files.get(TRUNK_NAME)
        picked = codex_chain(chain if chain is not None else files, profile, estimator)
        return BootBudget(profile, picked, None if trunk is None else claude_code_fit(trunk))
    remaining = profile.total_cap
    out: list[BootFile] = []
    for name in profile.files:
        text = files.get(name)
        if text is None or not text.strip():
            continue
        chars = utf16_len(text)
        cap = profile.cap_for(name)
        budget = cap if remaining is None else min(cap, remaining)
        injected = min(chars, budget)
        near = chars >= cap * profile.warn_ratio
        out.append(BootFile(name, chars, estimate_tokens(text, estimator), cap, injected, chars - injected, near))
        if remaining is not None:
            remaining -= injected
    trunk = files.get(TRUNK_NAME)
    return BootBudget(profile, tuple(out), None if trunk is None else claude_code_fit(trunk))


def boot_cut_warning(trunk: str, profile: BootProfile) -> str | None:
    """One line saying how `profile` would cut a MEMORY.md of text `trunk` at boot, or None when it loads whole.

    Used where bonsai-git writes a large trunk on purpose (flatten: the whole tree back in one file).
    """
    budget = boot_budget({TRUNK_NAME: trunk}, profile, chain={TRUNK_NAME: trunk})
    cut = [f for f in budget.files if f.name.endswith(TRUNK_NAME) and f.truncated]
    if not cut:
        return None
    f = cut[0]
    return (f"{TRUNK_NAME} would be {f.chars:,} {profile.unit}: {profile.label} loads {f.injected:,} at boot and "
            f"never sees the other {f.lost:,}; migrate again (bonsai-git migrate) to keep the boot load small")


def claude_code_fit(text: str) -> ClaudeCodeFit:
    """How much of MEMORY.md `text` Claude Code loads: the first 200 lines or 25,000 bytes, whichever ends first."""
    data = text.encode("utf-8")
    lines = data.splitlines(keepends=True)
    kept = b"".join(lines[:CLAUDE_CODE_MAX_LINES])[:CLAUDE_CODE_MAX_BYTES]
    kept_lines = len(kept.splitlines())  # a line cut by the byte limit counts as loaded
    return ClaudeCodeFit(len(lines), len(data), len(lines) - kept_lines, len(data) - len(kept))



def codex_chain(paths: Mapping[str, str], profile: BootProfile, estimator: str = "script-aware") -> tuple[BootFile, ...]:
    """The files Codex concatenates, in order, with what of each is loaded and lost (UTF-8 bytes).

    `paths` maps posix paths relative to the project root (`AGENTS.md`, `agent/MEMORY.md`) to
    their text: the candidate files of every folder from the root down to the working folder.
    Per folder, shallowest first, the first non-blank file in `profile.files` order is taken;
    bytes count until `profile.total_cap`, and the file that crosses it is cut there: `injected`
    is the cut point (a byte offset in that file), `lost` the bytes after it; later files are
    lost whole.  Pure.
    """
    folders: dict[str, dict[str, str]] = {}
    for path, text in paths.items():
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder, {})[name] = text
    remaining = profile.total_cap if profile.total_cap is not None else profile.file_cap
    out: list[BootFile] = []
    for folder in sorted(folders, key=lambda f: (f.count("/") + (f != ""), f)):
        chosen = next((n for n in profile.files if folders[folder].get(n, "").strip()), None)
        if chosen is None:
            continue
        text = folders[folder][chosen]
        size = len(text.encode("utf-8"))
        injected = min(size, remaining)
        near = size >= profile.file_cap * profile.warn_ratio
        path = f"{folder}/{chosen}" if folder else chosen
        out.append(BootFile(path, size, estimate_tokens(text, estimator), profile.file_cap, injected, size - injected,
                            near))
        remaining -= injected
    return tuple(out)
