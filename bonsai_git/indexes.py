"""Render the generated files of a memory tree: branch indexes, the root index, the trunk block.

One renderer serves migrate, reindex, absorb and the hook, so "migrate, then reindex" never
changes a byte.  Everything is derived from the leaves alone (their domain, name and text),
in sorted orders, with no clock, host or absolute path: same leaves, same bytes.

Formats (DESIGN.md §3):
- branch index `memory/domains/<d>/_index.md`: a title, the domain's token total, then one
  `### <name>.md (~N tokens)` entry per leaf (sorted by name) with its one-line summary;
- root index: one line per domain with its tokens and leaf count, richer (leaf names, a summary)
  while it fits the block budget; written between the trunk's markers and alone to
  `memory/_index.md`.
Names (domains, leaves, sub-folders) are shown through `secretscan.mask_name`, whoever made the
file: an agent-made `notes-akia….md` must not carry its key into always-loaded text.
Block budget: the whole generated block (markers included) costs at most 5% of the leaves'
tokens, never more than 380 tokens (below the 400 the design promises), so boot cost stays
O(1) in the size of memory; when even the plainest form does not fit, the smallest domains
are folded into a "+N more domains" line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .config import SINGLE_FILE_DOMAINS, Config
from .secretscan import mask_name
from .summary import summarize
from .tokens import estimate_tokens, format_tokens
from .tree import BEGIN, DOMAINS_DIR, END, INDEX_NAME, ROOT_INDEX, TRUNK, Leaf, TrunkParts

BLOCK_CAP_TOKENS = 380
BLOCK_SHARE = 0.05
ROOT_SUMMARY_CHARS = 80
# (leaf names listed per domain, with a summary line): richest first.
_LEVELS = ((5, True), (3, True), (3, False), (1, False), (0, False))


@dataclass(frozen=True, slots=True)
class LeafFacts:
    """What the indexes say about one leaf, all derived from its text alone.

    `tokens` (estimated, for the configured estimator), `summary` (branch index, <= 120 chars)
    and `root_summary` (root index, <= 80 chars).  The renderers compute them from the leaf's
    text unless a caller passes a `facts` function (the hook's cache of unchanged leaves).
    """

    tokens: int
    summary: str
    root_summary: str


FactsOf = Callable[[Leaf], LeafFacts]


def leaf_facts(text: str, estimator: str) -> LeafFacts:
    """The LeafFacts of a leaf's text (str) for `estimator` ("script-aware" or "chars4")."""
    return LeafFacts(estimate_tokens(text, estimator), summarize(text), summarize(text, ROOT_SUMMARY_CHARS))


@dataclass(frozen=True, slots=True)
class DomainStats:
    """A domain's leaves with their token estimates, largest first (ties by name)."""

    name: str
    leaves: tuple[tuple[Leaf, int], ...]

    @property
    def tokens(self) -> int:
        """Sum of the leaves' estimated tokens."""
        return sum(t for _, t in self.leaves)


def domain_stats(leaves: Iterable[Leaf], estimator: str, facts: FactsOf | None = None) -> tuple[DomainStats, ...]:
    """Group leaves by domain (sorted by domain name), each with per-leaf token estimates.

    `facts`, when given, supplies each leaf's tokens (it must agree with `leaf_facts`).
    """
    by_domain: dict[str, list[tuple[Leaf, int]]] = {}
    for leaf in leaves:
        tokens = estimate_tokens(leaf.text, estimator) if facts is None else facts(leaf).tokens
        by_domain.setdefault(leaf.domain, []).append((leaf, tokens))
    return tuple(
        DomainStats(name, tuple(sorted(items, key=lambda lt: (-lt[1], lt[0].name))))
        for name, items in sorted(by_domain.items())
    )


def branch_index_path(domain: str) -> str:
    """Workspace-relative path of a domain's branch index."""
    return f"{DOMAINS_DIR}/{domain}/{INDEX_NAME}"


def render_branch_index(stats: DomainStats, estimator: str = "script-aware", facts: FactsOf | None = None) -> str:
    """Render one branch index (str, LF line endings) for a domain's leaves.

    `facts`, when given, supplies each leaf's summary (it must agree with `leaf_facts`).
    """
    count = len(stats.leaves)
    lines = [
        f"# {mask_name(_title(stats.name))} Index",
        f"_Estimated tokens: {format_tokens(stats.tokens)} in {_leaves(count)}_",
    ]
    for leaf, tokens in sorted(stats.leaves, key=lambda lt: lt[0].name):
        lines += ["", f"### {mask_name(leaf.name)} ({format_tokens(tokens)} tokens)"]
        summary = summarize(leaf.text) if facts is None else facts(leaf).summary
        if summary:
            lines.append(summary)
    return "\n".join(lines) + "\n"


def render_root_index(stats: tuple[DomainStats, ...], newline: str = "\n", facts: FactsOf | None = None) -> str:
    """Render the root index content (no markers) within the block budget; ends with `newline`.

    Tries the levels of detail from richest to plainest and keeps the first that fits the
    budget; if even the plainest form exceeds the 380-token cap, shows the largest domains that
    fit (binary search) and folds the rest into one "+N more domains" line.
    """
    total = sum(s.tokens for s in stats)
    budget = min(BLOCK_CAP_TOKENS, math.ceil(total * BLOCK_SHARE))
    summaries: dict[str, str] = {} if facts is None else {
        s.name: facts(s.leaves[0][0]).root_summary for s in stats if s.leaves
    }
    for names, with_summary in _LEVELS:
        text = _root_text(stats, stats, names, with_summary, newline, summaries)
        if _block_tokens(text, newline) <= budget:
            return text
    if _block_tokens(text, newline) <= BLOCK_CAP_TOKENS:
        return text
    by_size = sorted(stats, key=lambda s: (-s.tokens, s.name))
    low, high = 1, len(by_size)  # the largest count of shown domains that fits (at least one)
    while low < high:
        mid = (low + high + 1) // 2
        shown = sorted(by_size[:mid], key=lambda s: s.name)
        if _block_tokens(_root_text(shown, stats, 0, False, newline, summaries), newline) <= BLOCK_CAP_TOKENS:
            low = mid
        else:
            high = mid - 1
    return _root_text(sorted(by_size[:low], key=lambda s: s.name), stats, 0, False, newline, summaries)


def render_block(stats: tuple[DomainStats, ...], newline: str = "\n", facts: FactsOf | None = None) -> str:
    """The trunk's generated block: begin marker, root index, end marker, each line `newline`-ended."""
    return _wrap(render_root_index(stats, newline, facts), newline)


def render_trunk(parts: TrunkParts, stats: tuple[DomainStats, ...], facts: FactsOf | None = None) -> str:
    """The trunk with its block regenerated; the user's text before and after is kept as is."""
    return parts.pinned + render_block(stats, parts.newline, facts) + parts.inbox


def render_tree(
    leaves: Iterable[Leaf],
    trunk: TrunkParts,
    config: Config,
    existing_indexes: Iterable[str] = (),
    facts: FactsOf | None = None,
) -> dict[str, str | None]:
    """Every generated file of the tree: {workspace-relative path: text, or None to delete}.

    `existing_indexes` are branch index paths present now; one whose domain has no leaf left
    maps to None.  The trunk maps to its full new text.  `facts` (optional) supplies each
    leaf's LeafFacts, e.g. from a cache; the bytes are the same as without it.
    """
    stats = domain_stats(leaves, config.estimator, facts)
    files: dict[str, str | None] = {}
    for s in stats:
        if s.name not in SINGLE_FILE_DOMAINS:
            files[branch_index_path(s.name)] = render_branch_index(s, config.estimator, facts)
    for path in sorted(existing_indexes):
        files.setdefault(path, None)
    files[ROOT_INDEX] = render_root_index(stats, facts=facts)
    files[TRUNK] = render_trunk(trunk, stats, facts)
    return dict(sorted(files.items()))


def stale_files(rendered: Mapping[str, str | None], current: Mapping[str, str | None]) -> tuple[str, ...]:
    """Paths whose rendered text differs from `current` (None = absent), sorted."""
    return tuple(sorted(p for p, text in rendered.items() if current.get(p) != text))


def _block_tokens(root_text: str, nl: str) -> int:
    return estimate_tokens(_wrap(root_text, nl))


def _root_text(
    shown: Sequence[DomainStats], stats: tuple[DomainStats, ...], names: int, with_summary: bool, nl: str,
    summaries: dict[str, str],
) -> str:
    leaves = sum(len(s.leaves) for s in stats)
    total = sum(s.tokens for s in stats)
    lines = [
        "# Memory Index",
        f"{format_tokens(total)} tokens in {leaves} leaves. Before a task, read the index of its domain:"
        f" {DOMAINS_DIR}/<domain>/{INDEX_NAME}",
    ]
    for s in shown:
        lines += _domain_lines(s, names, with_summary, summaries)
    hidden = len(stats) - len(shown)
    if hidden:
        lines.append(f"- +{hidden} more domains under {DOMAINS_DIR}/")
    return nl.join(lines) + nl


def _domain_lines(s: DomainStats, names: int, with_summary: bool, summaries: dict[str, str]) -> list[str]:
    single = SINGLE_FILE_DOMAINS.get(s.name)
    count = len(s.leaves)
    head = f"- {mask_name(s.name)} ({format_tokens(s.tokens)} tokens"
    if single is not None:
        head += f"): {single}"
    else:
        head += f", {_leaves(count)})"
        if names:
            listed = [mask_name(leaf.stem) for leaf, _ in s.leaves[:names]]
            more = count - len(listed)
            head += ": " + ", ".join(listed) + (f", +{more} more" if more else "")
    lines = [head]
    if with_summary:
        if s.name not in summaries:
            summaries[s.name] = next((summarize(leaf.text, ROOT_SUMMARY_CHARS) for leaf, _ in s.leaves), "")
        summary = summaries[s.name]
        if summary:
            lines.append(f"  {summary}")
    return lines


# Every line shape the block renderer writes: markers, title, total, domain lines, indented summaries.
_BLOCK_LINE = re.compile(
    r"(?:<!-- bonsai:(?:begin\b.*|end -->)|# Memory Index|~[\d,]+ tokens in .*|- .*|  .*|)\r?"
)


def foreign_block_line(block: str) -> int | None:
    """1-based line of the first line in a trunk block that the renderer never writes, else None.

    Such a line was typed (or appended by an agent) between the markers; regenerating the block
    would lose it, so reindex and the hook refuse instead (the user moves it below the end marker).
    A block holding a git conflict (a merge of two generated blocks) is regenerated whole: None.
    """
    if "\n<<<<<<<" in block:
        return None
    for number, line in enumerate(block.split("\n"), 1):
        if not _BLOCK_LINE.fullmatch(line):
            return number
    return None


def _wrap(root_text: str, nl: str) -> str:
    return f"{BEGIN}{nl}{root_text}{END}{nl}"


def _title(domain: str) -> str:
    return domain.replace("-", " ").title()


def _leaves(count: int) -> str:
    return f"{count} leaf" if count == 1 else f"{count} leaves"
