"""Boot budget: what an agent loads at session start, measured against its runtime's caps.

At session start OpenClaw injects the workspace's bootstrap files (the trunk `MEMORY.md` and
the sibling files below, when present and not blank) into the system prompt, each cut to a
per-file cap and all of them to a total cap.  An oversized file keeps its first ~75% and
last ~25% of its budget and loses the middle.  `boot_budget` simulates it, so status can say how
much headroom is left, which file would be cut and how many of its characters would be lost.

The other runtimes, as measured with the real CLIs offline (Codex CLI 0.171.0, Claude Code
2.1.332; ../shared/tools/clients/README.md, tests/clients/):
- Codex (the `codex` profile) loads `~/.codex/AGENTS.md` (outside the budget), then one file per
  folder from the project root (the folder holding `.git`) down to the working folder:
  AGENTS.override.md, else AGENTS.md, else a name listed in `project_doc_fallback_filenames`
  (MEMORY.md only when listed there); blank files are skipped.  One budget for the chain,
  `project_doc_max_bytes` (32,768 bytes), in UTF-8 bytes, spent root first: the file that
  crosses it is cut mid-line with no marker, later files are lost whole.  `codex_chain`.
- Claude Code (the `claude` profile) loads CLAUDE.md files whole, never cut, with their
  `@imports`: a repository's MEMORY.md imported by `@MEMORY.md` loads whole.  Its auto memory
  (MEMORY.md of `autoMemoryDirectory`) is cut: whole-line HTML comments (the bonsai markers too)
  are stripped first, then the first 200 lines are kept, then the whole lines within 25,000
  characters (UTF-16 units: Claude Code is JavaScript; the line the cut falls in is dropped),
  then a warning line is added.  `claude_code_fit`.
`loaded_at_boot` says whether a runtime loads the trunk at all, and by what (RuntimeFacts: what
the shell read of the runtimes' settings).

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

from .connect import CODEX_END
from .tokens import estimate_tokens

TRUNK_NAME = "MEMORY.md"
# Claude Code 2.1.332's auto memory, measured: 200 lines, then 25,000 characters (not bytes), both
# counted after whole-line HTML comments are stripped.
CLAUDE_CODE_MAX_LINES = 200
CLAUDE_CODE_MAX_CHARS = 25_000
CLAUDE_CODE_MAX_BYTES = CLAUDE_CODE_MAX_CHARS  # the old name; the cap counts characters


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
CODEX_NAMES = ("AGENTS.override.md", "AGENTS.md")  # without project_doc_fallback_filenames
CODEX_FILES = (*CODEX_NAMES, TRUNK_NAME)  # the candidates the survey reads (MEMORY.md: a fallback, if listed)
PROFILES += (
    BootProfile("codex", "Codex", CODEX_NAMES, CODEX_MAX_BYTES, CODEX_MAX_BYTES, head_ratio=1.0, unit="bytes",
                chain=True, source="measured on Codex CLI 0.171.0: project_doc_max_bytes = 32,768, AGENTS.md chain "
                                   "root -> cwd, cut mid-line with no marker"),
    BootProfile("claude", "Claude Code", (TRUNK_NAME,), CLAUDE_CODE_MAX_CHARS, None, head_ratio=1.0,
                source="measured on Claude Code 2.1.332: CLAUDE.md imports whole; auto memory 200 lines, then "
                       "25,000 chars, after stripping whole-line HTML comments"),
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
    """MEMORY.md as Claude Code's auto memory: what is left after comment lines are stripped
    (lines, chars in UTF-16 units, UTF-8 bytes) and what of it would not load."""

    lines: int
    chars: int
    lost_lines: int
    lost_chars: int
    bytes: int = 0
    lost_bytes: int = 0
    stripped: int = 0  # lines of whole-line HTML comments removed before counting

    @property
    def fits(self) -> bool:
        """True when Claude Code loads the whole file."""
        return self.lost_chars == 0


@dataclass(frozen=True, slots=True)
class RuntimeFacts:
    """What the shell read of the runtimes' own settings (runtimes.py), for `loaded_at_boot`.

    `prefix`: the workspace folder from the project root ("" or "agent/"); `codex_max_bytes`,
    `codex_fallbacks`: `project_doc_max_bytes` and `project_doc_fallback_filenames` of Codex's
    config.toml; `claude_import`: "CLAUDE.md:LINE" of an `@MEMORY.md` import, or None;
    `claude_auto_memory`: the settings file whose `autoMemoryDirectory` names this folder, or None;
    `openclaw_config`: the OpenClaw config file read ("" when none); `openclaw_here`: True when it
    names this folder as a workspace, False when it names others only, None without a config."""

    prefix: str = ""
    codex_max_bytes: int = 32 * 1024
    codex_fallbacks: tuple[str, ...] = ()
    claude_import: str | None = None
    claude_auto_memory: str | None = None
    openclaw_config: str = ""
    openclaw_here: bool | None = None


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
    """Length of `text` in UTF-16 code units (JavaScript's `string.length`): one per char, two for a
    char past U+FFFF; counted by the UTF-16 codec (a lone surrogate passes as one unit), which is
    ~50x faster than counting in Python on a flattened tree's megabytes (status' flatten_cut)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def boot_budget(files: Mapping[str, str], profile: BootProfile, estimator: str = "script-aware",
                chain: Mapping[str, str] | None = None, claude_whole: bool = False) -> BootBudget:
    """Simulate the injection of bootstrap `files` ({file name: text}) under `profile`.

    Files the profile does not inject and blank files are skipped (OpenClaw skips them).
    Each file gets min(its cap, what is left of the total cap); the excess is lost from its
    middle.  The Claude Code fit is computed for the trunk when it is present.  A chain profile
    (Codex) reads `chain` instead ({path from the project root: text}, see `codex_chain`).  The
    `claude` profile has one row, MEMORY.md, in chars after comment lines are stripped: whole when
    `claude_whole` (imported by CLAUDE.md), else cut as auto memory (`claude_code_fit`).
    """
    if profile.chain:
        trunk = files.get(TRUNK_NAME)
        picked = codex_chain(chain if chain is not None else files, profile, estimator)
        return BootBudget(profile, picked, None if trunk is None else claude_code_fit(trunk))
    if profile.name == "claude":
        return _claude_budget(files.get(TRUNK_NAME), profile, estimator, claude_whole)
    trunk = files.get(TRUNK_NAME)
    return BootBudget(profile, _injected(files, profile, estimator),
                      None if trunk is None else claude_code_fit(trunk))


def _injected(files: Mapping[str, str], profile: BootProfile, estimator: str | None) -> tuple[BootFile, ...]:
    """The rows of an injection profile (OpenClaw's: per-file caps within a total cap), boot_budget;
    `estimator` None leaves their tokens 0 (boot_cut_warning, `_tokens`)."""
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
        out.append(BootFile(name, chars, _tokens(text, estimator), cap, injected, chars - injected, near))
        if remaining is not None:
            remaining -= injected
    return tuple(out)


FLATTEN_ADVICE = "migrate again (bonsai-git migrate) to keep the boot load small"


def boot_cut_warning(trunk: str, profile: BootProfile, advice: str = FLATTEN_ADVICE,
                     claude_whole: bool = False) -> str | None:
    """One line saying how `profile` would cut a MEMORY.md of text `trunk` at boot, or None when it loads whole.

    Used where bonsai-git writes a large trunk on purpose (flatten: the whole tree back in one file)
    and by status for the file flatten would write (the `flatten_cut` warning); `advice` ends the line.
    `claude_whole`: CLAUDE.md imports MEMORY.md (loaded whole: never cut).  Sizes in `profile.unit`.
    """
    files = {TRUNK_NAME: trunk}
    # estimator None: the rows' tokens are not counted (0), a pass over megabytes the line never names
    if profile.chain:
        rows = codex_chain(files, profile, None)
    elif profile.name == "claude":
        rows = _claude_budget(trunk, profile, None, claude_whole).files
    else:  # boot_budget's rows without its Claude Code fit, a pass over the whole text that is not asked here
        rows = _injected(files, profile, None)
    cut = [f for f in rows if f.name.endswith(TRUNK_NAME) and f.truncated]
    if not cut:
        return None
    f = cut[0]
    return (f"{TRUNK_NAME} would be {f.chars:,} {profile.unit}: {profile.label} loads {f.injected:,} at boot and "
            f"never sees the other {f.lost:,}; {advice}")


def strip_comment_lines(text: str) -> tuple[str, int]:
    """`text` without its whole-line HTML comments (one line `<!-- ... -->`, or a comment opened at
    a line's start running over several lines), outside code fences, as Claude Code strips them
    before injecting a memory file (measured); and the number of lines removed."""
    out: list[str] = []
    fence = comment = False
    removed = 0
    for line in text.split("\n"):
        s = line.strip()
        if comment:
            comment = "-->" not in s
            removed += 1
            continue
        if s.startswith(("```", "~~~")):
            fence = not fence
        elif not fence and s.startswith("<!--") and (s.endswith("-->") or "-->" not in s):
            comment = "-->" not in s
            removed += 1
            continue
        out.append(line)
    return "\n".join(out), removed


def claude_code_fit(text: str) -> ClaudeCodeFit:
    """How much of MEMORY.md `text` Claude Code loads as auto memory: comment lines stripped, then
    the first 200 lines, then the whole lines that fit in 25,000 chars (UTF-16 units; a first line
    longer than that is cut inside).  Measured on Claude Code 2.1.332 (tests/clients/)."""
    stripped, removed = strip_comment_lines(text)
    lines = stripped.splitlines(keepends=True)
    head = "".join(lines[:CLAUDE_CODE_MAX_LINES])
    kept = _utf16_prefix(head, CLAUDE_CODE_MAX_CHARS)
    if kept != head and "\n" in kept:
        kept = kept[: kept.rindex("\n") + 1]  # measured: the char cut drops the line it falls in
    kept_lines = len(kept.splitlines())
    size = len(stripped.encode("utf-8"))
    kept_bytes = len(kept.encode("utf-8"))
    return ClaudeCodeFit(len(lines), utf16_len(stripped), len(lines) - kept_lines, utf16_len(stripped) - utf16_len(kept),
                         size, size - kept_bytes, removed)


def _utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of `text` of at most `units` UTF-16 code units."""
    if utf16_len(text) <= units:
        return text
    if len(text) == utf16_len(text):
        return text[:units]
    count = 0
    for i, ch in enumerate(text):
        count += 2 if ord(ch) > 0xFFFF else 1
        if count > units:
            return text[:i]
    return text


def loaded_at_boot(budget: BootBudget, facts: RuntimeFacts, chain: Mapping[str, str]) -> tuple[bool, str]:
    """Whether `budget.profile`'s runtime loads the trunk at session start, and by what (one phrase).

    Codex: the workspace folder's AGENTS file holding bonsai-git's block (`bonsai-git connect codex`)
    whole inside the budget, or MEMORY.md itself when `project_doc_fallback_filenames` lists it;
    `chain` {path from the project root: text}.  Claude Code: an `@MEMORY.md` import in CLAUDE.md,
    or `autoMemoryDirectory` naming the folder.  OpenClaw: its own bootstrap, unless its config
    names other workspace folders only."""
    profile = budget.profile
    if profile.chain:
        for f in budget.files:
            folder, _, name = f.name.rpartition("/")
            if (folder + "/" if folder else "") != facts.prefix:
                continue
            if name == TRUNK_NAME:
                return (f.injected > 0, f"{f.name} itself (project_doc_fallback_filenames lists it)"
                        + (f", cut at byte {f.injected:,}" if f.truncated else ""))
            text = chain.get(f.name, "")
            end = text.find(CODEX_END)
            if end >= 0:
                whole = len(text[:end].encode("utf-8")) + len(CODEX_END) <= f.injected
                return (whole, f"bonsai-git's block in {f.name}" + ("" if whole else
                                                                     ", but Codex's budget cuts it"))
        return False, f"nothing: Codex never reads {TRUNK_NAME} and no AGENTS.md of this folder carries it"
    if profile.name == "claude":
        if facts.claude_import is not None:
            return True, f"the @{TRUNK_NAME} import in {facts.claude_import} (loaded whole, never cut)"
        if facts.claude_auto_memory is not None:
            return True, (f"autoMemoryDirectory in {facts.claude_auto_memory} (auto memory: cut at "
                          f"{CLAUDE_CODE_MAX_LINES} lines, then {CLAUDE_CODE_MAX_CHARS:,} chars)")
        return False, f"nothing: no CLAUDE.md imports {TRUNK_NAME} and no autoMemoryDirectory names this folder"
    if facts.openclaw_here is False:
        return False, f"nothing: OpenClaw's workspace setting ({facts.openclaw_config}) names another folder"
    where = f" ({facts.openclaw_config} names this folder)" if facts.openclaw_here else ""
    return True, f"OpenClaw's bootstrap injection of {TRUNK_NAME}{where}"


def _tokens(text: str, estimator: str | None) -> int:
    """estimate_tokens(text, estimator), or 0 when `estimator` is None (a caller that reports no tokens)."""
    return 0 if estimator is None else estimate_tokens(text, estimator)


def _claude_budget(trunk: str | None, profile: BootProfile, estimator: str | None, whole: bool) -> BootBudget:
    if trunk is None:
        return BootBudget(profile, (), None)
    fit = claude_code_fit(trunk)
    lost = 0 if whole else fit.lost_chars
    row = BootFile(TRUNK_NAME, fit.chars, _tokens(trunk, estimator), profile.file_cap, fit.chars - lost, lost,
                   not whole and fit.chars >= profile.file_cap * profile.warn_ratio)
    return BootBudget(profile, (row,), fit)


def codex_chain(paths: Mapping[str, str], profile: BootProfile,
                estimator: str | None = "script-aware") -> tuple[BootFile, ...]:
    """The files Codex concatenates, in order, with what of each is loaded and lost (UTF-8 bytes).

    `paths` maps posix paths relative to the project root (`AGENTS.md`, `agent/MEMORY.md`) to
    their text: the candidate files of every folder from the root down to the working folder.
    Per folder, shallowest first, the first non-blank file in `profile.files` order is taken;
    bytes count until `profile.total_cap`, and the file that crosses it is cut there: `injected`
    is the cut point (a byte offset in that file), `lost` the bytes after it; later files are
    lost whole.  `estimator` None leaves the rows' tokens 0.  Pure.
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
        out.append(BootFile(path, size, _tokens(text, estimator), profile.file_cap, injected, size - injected,
                            near))
        remaining -= injected
    return tuple(out)
