"""Memory health: a Survey of the workspace -> a StatusReport (its findings), and reflect's candidates.

Pure: `assess` turns the facts `survey.survey_workspace` read into findings; `health_report`'s
`status_json` and `status_text` render them.  Status never writes and never needs a clean tree.

Findings (each a warning; any warning makes `bonsai-git status` exit 1), in this order:

| kind | when |
|---|---|
| `no_trunk` | MEMORY.md is missing |
| `unreadable_trunk` | MEMORY.md is not UTF-8 (the first bad byte offset named); every command refuses it |
| `boot_truncated` | a bootstrap file would be cut at session start (per-file or total cap) |
| `boot_near_limit` | a bootstrap file is at >= 85% of its cap |
| `boot_total_near_limit` | all bootstrap files together are at >= 85% of the total cap |
| `claude_code_cut` | Claude Code's auto memory would not load all of MEMORY.md (200 lines, then 25,000 chars, comment lines stripped); not under `--profile claude` when CLAUDE.md imports it whole |
| `not_loaded` | the profile's runtime does not load MEMORY.md at boot at all (Codex without `bonsai-git connect codex`, Claude Code without the import, OpenClaw pointed at another folder); names the `bonsai-git connect` to run |
| `stale_index` | `bonsai-git reindex --check` would rewrite this generated file |
| `reindex_error` | the indexes could not be checked (a leaf is not UTF-8, ...) |
| `unclosed_comment` | an HTML comment (`<!-- ...`) never closed swallows the headings after it (line and headings named) |
| `unreadable_leaf` | a leaf is not UTF-8 or holds merge-conflict markers |
| `untracked_leaf` | a leaf git does not track yet |
| `misplaced_leaf` | a `.md` file directly in `memory/domains/` (no domain folder): never indexed |
| `domain_name` | a domain folder name `bonsai-git move` would reject (uppercase, spaces...) |
| `orphan_leaf` | a leaf its branch index does not list |
| `orphan_entry` | a branch-index entry whose leaf is gone |
| `oversized_leaf` | a leaf over 500 estimated tokens |
| `oversized_domain` | a domain over 20 leaves |
| `old_general_leaf` | a leaf in `general/` last committed more than 30 days ago |
| `purge_due` | an archived file archived more than 180 days ago |
| `inbox` | text waiting after the trunk's end marker |
| `unpinned_section` | a `##` section above the generated block that no pin rule keeps there: loaded at every boot, though new memories belong below the end marker |
| `secret` | a secret-looking value (`file:line: kind` and its fingerprint; the value is never shown), or a file name holding one (shown masked) |
| `openclaw_provenance` | OpenClaw's record makes MEMORY.md `armed` (the agent's next write drops it from boot) or `untrusted` (not loaded at boot now); see provenance.py; the survey passes its state and warning in |
| `attributes` | MEMORY.md has git attributes (an encryption `filter`...) that files under `memory/` lack: they reach history unconverted (gitsettings.py), or `merge=union` on a memory file (the line named) |
| `broken_link` | a leaf's `#anchor` link to a heading it does not hold, or a relative link that names no file from the leaf's folder (core/links.py; the survey checks the disk) |

A workspace that is not migrated yet gets its boot budget and the note "not migrated";
that alone is not a warning.  A migrated one gets the note `flatten_cut: if flattened now, ...` when
the MEMORY.md `bonsai-git flatten` would write now is cut by the profile's boot caps
(boot.boot_cut_warning on flatplan.flat_text_estimate: the pinned text, every leaf, the inbox).

JSON (`bonsai-git status --json`), schema_version 1; keys are stable, new keys may be added:

    {"schema_version": 1, "healthy": bool, "migrated": bool, "now": "YYYY-MM-DDTHH:MM:SSZ",
     "boot": {"profile": str, "trunk_tokens": int|null, "tokens": int, "total_chars": int,
              "total_cap": int|null, "headroom_chars": int|null,
              "files": [{"name", "chars", "tokens", "cap", "injected_chars", "lost_chars",
                         "truncated", "near_limit"}],
              "claude_code": {"lines", "chars", "bytes", "max_lines", "max_chars", "max_bytes",
                              "lost_lines", "lost_chars", "lost_bytes", "stripped_lines", "fits"} | null,
              "loaded": {"loaded": bool, "by": str}},
     "leaves": int, "leaf_tokens": int,
     "domains": [{"name", "leaves", "tokens", "largest_leaf": {"path", "tokens"}}],
     "stale": [path] | null,
     "archive": {"files": int, "grace_days": int, "due_for_purge": [{"path", "age_days"}]},
     "inbox": {"sections": int, "tokens": int},
     "warnings": [{"kind", "path", "line": int|null, "message"}],
     "notes": [str],
     "openclaw_provenance": "none"|"agent"|"armed"|"untrusted"|"unknown",
     "lookup": {"leaves", "median", "p95", "max", "largest_index": {"path", "tokens"} | null} | null}

`claude_code` counts what is left after whole-line HTML comments are stripped (`stripped_lines`);
its cap counts chars (`max_chars`; `max_bytes` is the same number, kept for older readers).
`loaded`: whether the profile's runtime loads MEMORY.md at boot, and by what (boot.loaded_at_boot).

`lookup` (null before migration): tokens an agent reads from boot to a leaf's entry (MEMORY.md
plus each index file on the way; lookup.py), lower median, nearest-rank p95 and max over the
leaves the indexes list, and the largest index file.

Chars are UTF-16 units (as OpenClaw counts), tokens are estimates (tokens.py), ages are
whole days between a commit's committer date and "now".  Lists are sorted: files in
injection order, domains by name, warnings by kind (table order), path, line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from dataclasses import replace

from .boot import (
    CLAUDE_CODE_MAX_CHARS,
    CLAUDE_CODE_MAX_LINES,
    CODEX_MAX_BYTES,
    BootBudget,
    BootProfile,
    RuntimeFacts,
    boot_budget,
    boot_cut_warning,
    loaded_at_boot,
)
from .config import FALLBACK_DOMAIN, SINGLE_FILE_DOMAINS, Config, is_domain_name
from .indexes import DomainStats, domain_stats
from .layout import (
    TRUNK,
    Leaf,
    TrunkParts,
    domain_name_message,
    find_conflict_marker,
    leaf_location,
    misplaced_leaf,
    misplaced_message,
    parse_trunk,
)
from .lookup import LookupCost, index_sizes, leaf_paths, summarize_costs
from .secretscan import find_secrets, finding_fingerprint, mask_name, mask_secrets, name_secret_kinds
from .sections import split_sections, unclosed_comment_warning
from .tokens import estimate_tokens

SCHEMA_VERSION = 1
FLATTEN_CUT = "flatten_cut"  # the note's code: status' notes start with it (docs/status.md)
DAY = 86_400
KINDS = (
    "no_trunk", "unreadable_trunk", "boot_truncated", "boot_near_limit", "boot_total_near_limit", "claude_code_cut", "not_loaded",
    "stale_index",
    "reindex_error", "unclosed_comment", "unreadable_leaf", "untracked_leaf", "misplaced_leaf", "domain_name",
    "orphan_leaf", "orphan_entry", "oversized_leaf",
    "oversized_domain", "old_general_leaf", "purge_due", "inbox", "unpinned_section", "secret", "openclaw_provenance", "attributes",
    "broken_link",
)
_ENTRY = re.compile(r"^### (.+?) \(~[\d,]+ tokens\)\r?$")
_ENTRIES = re.compile(_ENTRY.pattern, re.M)


@dataclass(frozen=True, slots=True)
class FileFacts:
    """One file of the workspace: its path, text (None if not UTF-8), tracked or not, age source.

    `committed_at`: unix seconds of the commit that dates it (see the module docstring), or None.
    """

    path: str
    text: str | None
    tracked: bool
    committed_at: int | None


@dataclass(frozen=True, slots=True)
class Survey:
    """Everything status and reflect need, read at one moment; paths workspace-relative, sorted.

    `boot_files`: {name: text} of the trunk and the sibling bootstrap files present;
    `leaves`, `archived`: FileFacts; `indexes`: {branch index path: text};
    `stale`: generated files `reindex --check` would rewrite (None when it could not run,
    with the reason in `stale_error`); `now`: unix seconds.
    """

    config: Config
    now: int
    boot_files: tuple[tuple[str, str], ...]
    leaves: tuple[FileFacts, ...]
    archived: tuple[FileFacts, ...]
    indexes: tuple[tuple[str, str], ...]
    stale: tuple[str, ...] | None
    stale_error: str | None
    scanned: tuple[tuple[str, str], ...]
    provenance: str = "none"
    attributes: str | None = None  # gitsettings.attribute_problem's message, when MEMORY.md's attributes are missing
    chain_files: tuple[tuple[str, str], ...] = ()  # Codex's candidates: {path from the project root: text}
    runtime: RuntimeFacts = RuntimeFacts()  # what the runtimes' own settings say (runtimes.py)
    # provenance.provenance_warning(provenance): the shell reads OpenClaw's record and words it
    provenance_warning: str | None = None
    shallow: bool = False  # a shallow clone: no ages (history.py); the report notes it
    links: tuple[tuple[str, int, str], ...] = ()  # broken links: (leaf path, line, message), survey.broken_links
    trunk_error: str | None = None  # layout.decode_utf8's message when MEMORY.md is not UTF-8 (boot_files decodes it lossily)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The health rules' limits: tokens per leaf, leaves per domain, ages in days."""

    leaf_tokens: int = 500
    domain_leaves: int = 20
    general_days: int = 30
    purge_days: int = 180
    reflect_general_days: int = 15


@dataclass(frozen=True, slots=True)
class Finding:
    """One warning: its kind (see KINDS), the file, a 1-based line or None, a one-line message."""

    kind: str
    path: str
    line: int | None
    message: str


@dataclass(frozen=True, slots=True)
class DomainHealth:
    """A domain's leaves and tokens, and its largest leaf (path, tokens)."""

    name: str
    leaves: int
    tokens: int
    largest: tuple[str, int]


@dataclass(frozen=True, slots=True)
class StatusReport:
    """Everything `bonsai-git status` shows."""

    migrated: bool
    now: int
    boot: BootBudget
    trunk_tokens: int | None
    domains: tuple[DomainHealth, ...]
    stale: tuple[str, ...] | None
    archived: int
    due_for_purge: tuple[tuple[str, int], ...]
    inbox_sections: int
    inbox_tokens: int
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    thresholds: Thresholds
    provenance: str = "none"
    lookup: LookupCost | None = None
    loaded: tuple[bool, str] = (True, "")  # the runtime loads MEMORY.md at boot, and by what

    @property
    def healthy(self) -> bool:
        """True when there is no warning."""
        return not self.findings


def age_days(committed_at: int | None, now: int) -> int | None:
    """Whole days from `committed_at` to `now` (unix seconds), or None without a commit."""
    return None if committed_at is None else max(0, (now - committed_at) // DAY)


def is_due_for_purge(committed_at: int | None, now: int, grace_days: int) -> bool:
    """True when a file archived at `committed_at` (unix seconds; None: never committed) is older than
    `grace_days` at `now`, compared in seconds (like `find -mmin` or `git gc --prune`): archived an
    hour ago is due under 0 days, 180.5 days ago under 180.  The one rule `status` (purge_due) and
    `purge` share."""
    return committed_at is not None and now - committed_at > grace_days * DAY


def readable_leaves(survey: Survey, conflicts: dict[str, int | None] | None = None,
                    located: Mapping[str, tuple[str, str] | None] | None = None) -> tuple[Leaf, ...]:
    """The survey's leaves that are UTF-8 and free of conflict markers, as Leaf records.

    `conflicts`: `conflict_lines(survey)` when the caller has it already (each leaf scanned once);
    `located`: `leaf_locations(survey)`, likewise."""
    conflicts = conflict_lines(survey) if conflicts is None else conflicts
    located = leaf_locations(survey) if located is None else located
    out = []
    for facts in survey.leaves:
        location = located[facts.path]
        if facts.text is not None and location is not None and conflicts[facts.path] is None:
            out.append(Leaf(location[0], location[1], facts.text))
    return tuple(out)


def leaf_locations(survey: Survey) -> dict[str, tuple[str, str] | None]:
    """{path: `leaf_location(path)`} for every leaf of the survey (asked by several rules)."""
    return {f.path: leaf_location(f.path) for f in survey.leaves}


def conflict_lines(survey: Survey) -> dict[str, int | None]:
    """{path: `find_conflict_marker` of its text} for every UTF-8 leaf of the survey."""
    return {f.path: find_conflict_marker(f.text) for f in survey.leaves if f.text is not None}


def assess(survey: Survey, profile: BootProfile, thresholds: Thresholds = Thresholds()) -> StatusReport:
    """Turn a Survey into a StatusReport under boot `profile` and `thresholds` (pure)."""
    boot_files = dict(survey.boot_files)
    trunk = boot_files.get(TRUNK)
    parts = parse_trunk(trunk) if trunk is not None else None
    facts = survey.runtime
    chain = dict(survey.chain_files)
    if profile.chain:  # Codex's own config: its fallback names join the chain; its budget, unless overridden
        profile = replace(profile, files=(*profile.files, *(n for n in facts.codex_fallbacks if n not in profile.files)))
        if profile.total_cap == CODEX_MAX_BYTES:
            profile = replace(profile, total_cap=facts.codex_max_bytes, file_cap=facts.codex_max_bytes)
    budget = boot_budget(boot_files, profile, survey.config.estimator, chain, facts.claude_import is not None)
    loaded = loaded_at_boot(budget, facts, chain) if trunk is not None else (False, f"no {TRUNK}")
    conflicts = conflict_lines(survey)
    located = leaf_locations(survey)
    readable = readable_leaves(survey, conflicts, located)
    stats = domain_stats(readable, survey.config.estimator)
    masked = _path_masker()
    inbox = parts.inbox if parts is not None else ""
    waiting = absorbable_sections(inbox, survey.config)
    due = tuple((f.path, age_days(f.committed_at, survey.now) or 0) for f in survey.archived
                if is_due_for_purge(f.committed_at, survey.now, thresholds.purge_days))
    findings = [
        *_trunk_findings(trunk, waiting, survey.trunk_error),
        *(_above_block_findings(parts.pinned, survey.config) if parts is not None else ()),
        *_boot_findings(budget, facts.claude_import is not None),
        *_loaded_findings(budget.profile, loaded, trunk is not None),
        *_index_findings(survey, masked, located),
        *_leaf_findings(survey, stats, thresholds, conflicts, located),
        *_layout_findings(survey, trunk, located),
        *(Finding("purge_due", p, None, f"archived {d} days ago (grace {thresholds.purge_days} days); "
                  f"run bonsai-git purge") for p, d in due),
        *_secret_findings(survey.scanned, survey.config.secret_allow, masked),
        *_provenance_findings(survey.provenance, survey.provenance_warning),
        *([Finding("attributes", TRUNK, None, survey.attributes)] if survey.attributes else []),
        *(Finding("broken_link", path, line, message) for path, line, message in survey.links),
    ]
    notes: tuple[str, ...] = () if parts is not None or trunk is None else (
        f"{TRUNK}: not migrated: run bonsai-git migrate --dry-run",)
    if parts is not None:
        notes += _flatten_note(parts, readable, budget.profile, facts.claude_import is not None)
    if survey.shallow:
        notes += (f"shallow clone: leaf ages (old general leaves, archived files due for purge) need the history it "
                  f"does not have and were not checked; run `git fetch --unshallow` (or `git fetch --deepen=<commits>`)",)
    return StatusReport(
        migrated=parts is not None, now=survey.now, boot=budget,
        trunk_tokens=None if trunk is None else estimate_tokens(trunk, survey.config.estimator),
        domains=tuple(_domain_health(s) for s in stats), stale=survey.stale, archived=len(survey.archived),
        due_for_purge=due, inbox_sections=waiting,
        inbox_tokens=estimate_tokens(inbox, survey.config.estimator) if inbox.strip() else 0,
        findings=tuple(sorted(findings, key=_finding_key)), notes=notes, thresholds=thresholds,
        provenance=survey.provenance, lookup=survey_lookup_cost(survey) if parts is not None else None,
        loaded=loaded,
    )


def connect_command(profile: BootProfile) -> str:
    """The `bonsai-git connect` line for `profile`'s runtime."""
    runtime = "codex" if profile.chain else "claude" if profile.name == "claude" else "openclaw"
    return f"bonsai-git connect {runtime}"


def _loaded_findings(profile: BootProfile, loaded: tuple[bool, str], has_trunk: bool) -> Iterable[Finding]:
    if has_trunk and not loaded[0]:
        yield Finding("not_loaded", TRUNK, None, f"{profile.label} does not load it at boot ({loaded[1]}); run "
                      f"{connect_command(profile)}")


def survey_lookup_cost(survey: Survey) -> LookupCost:
    """The lookup cost (lookup.py) of the tree as it is on disk: MEMORY.md and the index files read."""
    trunk = dict(survey.boot_files).get(TRUNK, "")
    indexes = dict(survey.indexes)
    singles = [f.path for f in survey.leaves if f.path in SINGLE_FILE_DOMAINS.values()]
    sizes = index_sizes(indexes, survey.config.estimator)  # once for both: 16,000 index files at 60,000 leaves
    paths = leaf_paths(trunk, indexes, survey.config.estimator, singles, sizes)
    return summarize_costs({p: c for p, (c, _) in paths.items()}, indexes, survey.config.estimator, sizes,
                           {p: d for p, (_, d) in paths.items()})


def _provenance_findings(state: str, warning: str | None) -> Iterable[Finding]:
    if state in ("armed", "untrusted"):
        yield Finding("openclaw_provenance", TRUNK, None, f"OpenClaw provenance {state}: {warning}")


def _finding_key(f: Finding) -> tuple[int, str, int]:
    return (KINDS.index(f.kind), f.path, f.line or 0)


def _domain_health(stats: DomainStats) -> DomainHealth:
    leaf, tokens = stats.leaves[0]  # largest first (ties by name)
    return DomainHealth(stats.name, len(stats.leaves), stats.tokens, (mask_name(leaf.path), tokens))


def absorbable_sections(inbox: str, config: Config) -> int:
    """How many `##` sections after the end marker absorb would move (pinned ones stay in the trunk)."""
    if not inbox.strip():
        return 0
    from .classify import is_pinned  # its keyword tables cost ~5 ms to import; an empty inbox never needs them

    return sum(1 for section in split_sections(inbox).sections if not is_pinned(section.heading, config))


def _trunk_findings(trunk: str | None, count: int, error: str | None = None) -> Iterable[Finding]:
    """`no_trunk`, `unreadable_trunk` (`error`: decode_utf8's message, which starts with the file's name),
    and `inbox` for the `count` sections absorb would move (`absorbable_sections`)."""
    if trunk is None:
        yield Finding("no_trunk", TRUNK, None, "not found; run bonsai-git in the workspace that holds MEMORY.md (-C DIR)")
    if error is not None:
        yield Finding("unreadable_trunk", TRUNK, None, error.removeprefix(f"{TRUNK}: "))
    # Only what absorb would move is waiting: pinned sections and loose text after the end
    # marker are the user's trunk text (loaded at boot like the pinned text above the block).
    if count:
        yield Finding("inbox", TRUNK, None, f"{count} section(s) waiting after the end marker; run bonsai-git absorb "
                      "(or commit: the hook absorbs them)")


def _above_block_findings(pinned: str, config: Config) -> Iterable[Finding]:
    """`unpinned_section` for each `##` section above the generated block that no pin rule keeps."""
    from .absorb import sections_above_block  # the classifier's tables: only when there is a `##` to judge

    if "#" not in pinned and "-" not in pinned:
        return
    for line, heading in sections_above_block(pinned, config):
        yield Finding("unpinned_section", TRUNK, line,
                      f"'{mask_secrets(heading)}' sits above the generated block, so it loads at every boot but is "
                      "not pinned; new memories go below the end marker: move it there (bonsai-git absorb files it) "
                      "or pin it (📌 in its heading, or a `pinned` rule in .bonsai.toml)")


def _flatten_note(parts: TrunkParts, leaves: Iterable[Leaf], profile: BootProfile, claude_whole: bool) -> tuple[str, ...]:
    """The `flatten_cut` note when the flat MEMORY.md `bonsai-git flatten` would write now is cut by
    `profile` at boot, in flatten --profile's own words (boot.boot_cut_warning; issue 20).  A note,
    not a warning: every memory large enough to need the tree would be cut flat, and that is no
    fault of the workspace (the demo sample is one); it is said so a flatten does not surprise."""
    from .flatplan import flat_text_estimate

    flat = flat_text_estimate(parts.pinned, [leaf.text for leaf in sorted(leaves, key=lambda lf: lf.path)],
                              parts.inbox)
    warning = boot_cut_warning(flat, profile, "keep the tree, or archive or trim memories before you flatten",
                               claude_whole)
    return (f"{FLATTEN_CUT}: if flattened now, {warning}",) if warning else ()


def _boot_findings(budget: BootBudget, claude_whole: bool = False) -> Iterable[Finding]:
    profile = budget.profile
    for f in budget.files:
        if f.truncated and profile.name == "claude":
            yield Finding("boot_truncated", f.name, None,
                          f"{f.chars:,} chars after comment lines are stripped; Claude Code's auto memory keeps "
                          f"{f.injected:,} ({CLAUDE_CODE_MAX_LINES} lines, then {profile.file_cap:,} chars) and "
                          f"loses the last {f.lost:,}")
        elif f.truncated and profile.chain:
            yield Finding("boot_truncated", f.name, None,
                          f"{f.chars:,} bytes; {profile.label} stops at {profile.total_cap:,} bytes across its "
                          f"instruction files: cut at byte {f.injected:,}, the last {f.lost:,} bytes are never loaded")
        elif f.truncated:
            why = "its cap" if f.injected == f.cap else "the total cap"
            yield Finding("boot_truncated", f.name, None,
                          f"{f.chars:,} chars, {profile.label} injects {f.injected:,} ({why}) and loses "
                          f"{f.lost:,} from the middle")
        elif f.near_limit:
            yield Finding("boot_near_limit", f.name, None,
                          f"{f.chars:,} {profile.unit} is {100 * f.chars // f.cap}% of the {f.cap:,}-{profile.unit[:-1]} cap")
    if budget.near_total_limit and profile.total_cap is not None:
        yield Finding("boot_total_near_limit", "(boot files)", None,
                      f"{budget.total_chars:,} {profile.unit} injected is {100 * budget.total_chars // profile.total_cap}% "
                      f"of the {profile.total_cap:,}-{profile.unit[:-1]} total cap")
    cc = budget.claude_code
    if cc is not None and not cc.fits and not (profile.name == "claude" and claude_whole):
        yield Finding("claude_code_cut", TRUNK, None,
                      f"Claude Code's auto memory loads only the first {CLAUDE_CODE_MAX_LINES} lines, then "
                      f"{CLAUDE_CODE_MAX_CHARS:,} chars (comment lines stripped): {cc.lost_lines:,} lines "
                      f"({cc.lost_chars:,} chars) would not load; an @{TRUNK} import in CLAUDE.md loads it whole "
                      f"(bonsai-git connect claude)")


def _path_masker() -> Callable[[str], str]:
    """`mask_name` memoized for one report: a path is masked once for every rule that shows or tests
    it, and its folder (shared by thousands of leaves) and its name are masked apart, since
    mask_name masks each path component on its own (tests/test_status_shortcuts.py checks
    `mask_name(a/b) == mask_name(a)/mask_name(b)`)."""
    part = functools.lru_cache(maxsize=None)(mask_name)

    @functools.lru_cache(maxsize=None)
    def masked(path: str) -> str:
        folder, sep, name = path.rpartition("/")
        return part(folder) + sep + part(name) if sep else part(name)

    return masked


def _index_findings(survey: Survey, masked: Callable[[str], str] = mask_name,
                    located: Mapping[str, tuple[str, str] | None] | None = None) -> Iterable[Finding]:
    for path in survey.stale or ():
        yield Finding("stale_index", path, None, "stale; run bonsai-git reindex")
    if survey.stale_error is not None:
        yield Finding("reindex_error", TRUNK, None, f"indexes not checked: {survey.stale_error}")
    on_disk = {masked(f.path) for f in survey.leaves}  # an index shows names masked (secretscan.mask_name)
    listed_paths: set[str] = set()  # every (masked) leaf path an index lists: one set, not one per leaf (quadratic)
    for index_path, text in sorted(survey.indexes):
        folder = index_path.rsplit("/", 1)[0]
        shown_folder = masked(folder) + "/"  # masked(folder/name): each component masked on its own
        shown_names = [masked(name) for name in _ENTRIES.findall(text)]  # names only: lines are counted
        listed_paths.update(shown_folder + name for name in shown_names)  # for an index listing a gone leaf
        gone = any(shown_folder + name not in on_disk for name in shown_names)
        if gone:
            for line, name in _index_entries(text):
                if masked(f"{folder}/{name}") not in on_disk:
                    yield Finding("orphan_entry", index_path, line, f"lists {name}, which is gone; run bonsai-git reindex")
    for facts in survey.leaves:
        location = leaf_location(facts.path) if located is None else located[facts.path]
        if location is None or location[0] in SINGLE_FILE_DOMAINS or not facts.tracked:
            continue  # an untracked leaf is not indexed until git tracks it (untracked_leaf says so)
        if masked(facts.path) not in listed_paths:
            folder = facts.path.rsplit("/", 1)[0]
            yield Finding("orphan_leaf", facts.path, None, f"not listed in {folder}/_index.md; run bonsai-git reindex")


def _index_entries(text: str) -> list[tuple[int, str]]:
    """(1-based line, leaf name) of each `### <name> (~N tokens)` entry of a branch index.

    One multi-line scan (`_ENTRIES`: `_ENTRY` with re.M, lines split at LF as before), line
    numbers counted between matches in C: 16,000 index files at 60,000 leaves."""
    out = []
    line, pos = 1, 0
    for m in _ENTRIES.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append((line, m.group(1)))
    return out


def _leaf_findings(survey: Survey, stats: tuple[DomainStats, ...], limits: Thresholds,
                   conflicts: dict[str, int | None],
                   located: Mapping[str, tuple[str, str] | None] | None = None) -> Iterable[Finding]:
    for facts in survey.leaves:
        if facts.text is None:
            yield Finding("unreadable_leaf", facts.path, None, "not valid UTF-8; save it as UTF-8")
        elif (line := conflicts[facts.path]) is not None:
            yield Finding("unreadable_leaf", facts.path, line, "merge-conflict marker; resolve the conflict")
        if not facts.tracked:
            yield Finding("untracked_leaf", facts.path, None, f"not tracked by git; git add {facts.path} and commit")
    for s in stats:
        for leaf, tokens in s.leaves:
            if tokens > limits.leaf_tokens:
                yield Finding("oversized_leaf", leaf.path, None,
                              f"~{tokens:,} tokens (over {limits.leaf_tokens}); split it or archive what is done")
        if len(s.leaves) > limits.domain_leaves:
            yield Finding("oversized_domain", _domain_folder(s.name), None,
                          f"{len(s.leaves)} leaves (over {limits.domain_leaves}); move some to a new domain")
    for facts, days in _general_ages(survey.leaves, survey.now, located):
        if days > limits.general_days:
            yield Finding("old_general_leaf", facts.path, None,
                          f"in general/ for {days} days (over {limits.general_days}); bonsai-git move it to a "
                          "domain or bonsai-git archive it")


def _layout_findings(survey: Survey, trunk: str | None,
                     located: Mapping[str, tuple[str, str] | None] | None = None) -> Iterable[Finding]:
    """`unclosed_comment` in MEMORY.md or a leaf; `misplaced_leaf`; `domain_name` (one per folder)."""
    texts = ([(TRUNK, trunk)] if trunk is not None else []) + [(f.path, f.text) for f in survey.leaves if f.text]
    for path, text in texts:
        found = unclosed_comment_warning(path, text)
        if found is not None:
            line = found.split(":", 2)[1]
            yield Finding("unclosed_comment", path, int(line), found.split(": ", 1)[1])
    for path, _text in survey.scanned:
        if misplaced_leaf(path):
            yield Finding("misplaced_leaf", path, None, misplaced_message(path))
    located = leaf_locations(survey) if located is None else located
    for domain in sorted({loc[0] for loc in located.values() if loc is not None}):
        if domain not in SINGLE_FILE_DOMAINS and not is_domain_name(domain):
            yield Finding("domain_name", _domain_folder(domain), None, domain_name_message(domain))


def _general_ages(leaves: Iterable[FileFacts], now: int,
                  located: Mapping[str, tuple[str, str] | None] | None = None) -> Iterable[tuple[FileFacts, int]]:
    for facts in leaves:
        location = leaf_location(facts.path) if located is None else located[facts.path]
        days = age_days(facts.committed_at, now)
        if location is not None and location[0] == FALLBACK_DOMAIN and days is not None:
            yield facts, days


def _domain_folder(domain: str) -> str:
    return SINGLE_FILE_DOMAINS.get(domain, f"memory/domains/{domain}/")


def _secret_findings(scanned: Iterable[tuple[str, str]], allow: Collection[str],
                     masked: Callable[[str], str] = mask_name) -> Iterable[Finding]:
    """`secret` findings: each value `find_secrets` reports (the bonsai-secrets hook's rule) and each
    file name holding a secret-looking run; paths shown masked (`masked`: mask_name, or a memo of it)."""
    for path, text in scanned:
        shown = masked(path)
        # mask_name changes exactly the names holding a run name_secret_kinds reports (each run is
        # replaced by its kept prefix and the mask): an unchanged name needs no second scan.
        kinds = name_secret_kinds(path) if shown != path else ()
        hits = find_secrets(text, allow=allow)
        if not kinds and not hits:
            continue  # the common case: no finding
        for kind in kinds:
            yield Finding("secret", shown, None, f"{kind} in the file name (indexes show it masked); rename the file")
        for hit in hits:
            yield Finding("secret", shown, hit.line, f"{hit.kind} ({finding_fingerprint(text, hit)}); move it to a "
                          "secret store and rewrite this line (a false alarm? list the sha256 in .bonsai.toml "
                          "[secrets] allow)")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A leaf or domain worth reviewing: kind, path, the reason, its tokens and age (days) if known."""

    kind: str
    path: str
    reason: str
    tokens: int | None
    age_days: int | None


def reflection_candidates(survey: Survey, limits: Thresholds = Thresholds()) -> tuple[Candidate, ...]:
    """What an agent or a person should review now (pure; no state file).

    general/ leaves last committed more than `reflect_general_days` ago (placed by no keyword:
    give them a domain or archive them), leaves over `leaf_tokens`, domains over
    `domain_leaves`.  Sorted by kind (that order), then path.
    """
    stats = domain_stats(readable_leaves(survey), survey.config.estimator)
    tokens_of = {leaf.path: t for s in stats for leaf, t in s.leaves}
    out: list[Candidate] = []
    for facts, days in _general_ages(survey.leaves, survey.now):
        if days > limits.reflect_general_days:
            out.append(Candidate("general_leaf", facts.path,
                                 f"in general/ for {days} days: move it to a domain, or archive it if it is done",
                                 tokens_of.get(facts.path), days))
    for s in stats:
        for leaf, tokens in s.leaves:
            if tokens > limits.leaf_tokens:
                out.append(Candidate("oversized_leaf", leaf.path,
                                     f"~{tokens:,} tokens (over {limits.leaf_tokens}): split it or archive what is done",
                                     tokens, None))
    for s in stats:
        if len(s.leaves) > limits.domain_leaves:
            out.append(Candidate("oversized_domain", _domain_folder(s.name),
                                 f"{len(s.leaves)} leaves (over {limits.domain_leaves}): split it into domains",
                                 s.tokens, None))
    return tuple(out)


# ----------------------------------------------------------------------------- rendering
