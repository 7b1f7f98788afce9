"""The lookup cost of a memory tree: tokens an agent reads from boot to a leaf's entry (issue 11).

Cost of a leaf = the tokens of MEMORY.md (loaded at boot) + the tokens of every index file read
on the way to the index that lists the leaf, one per level: the domain's `_index.md`, then each
sub-branch index its links lead to.  The leaf itself is not counted (the agent reads it in any
case).  A single-file domain (`memory/dates.md`) is named in the trunk, so its cost is the
trunk's alone.  The root index `memory/_index.md` is not on the path (the trunk names each
domain's index).

What a reader reads is reported with it (issue 24): the index files on each path (`depth`, at
most 1 + 2 below the domain index at 10,000 leaves), the files read per lookup with the leaf
(`reads`: trunk, indexes, leaf), and the sizes of the index files themselves.  A tree of tiny
wordless indexes makes the token figure small and the reader lost: the figure is no target to
shrink by splitting; the findability study (../shared/tools/findability) measures the rest.

The walk follows the links the index files really hold (`### [label](target)` to a sub-branch,
`### name.md (~N tokens)` for a leaf, both relative to the listing index's folder), so it
measures what an agent would read, on a planned tree or on disk.  A leaf no index lists has no
cost (status reports it as an orphan).  Pure: text in, figures out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .branches import is_index_name
from .config import SINGLE_FILE_DOMAINS
from .tokens import estimate_tokens

DOMAINS_PREFIX = "memory/domains/"
_LINK = re.compile(r"^### \[[^\]\n]*\]\(([^)\n]+)\)\r?$", re.M)
_LEAF = re.compile(r"^### (.+?) \(~[\d,]+ tokens\)\r?$", re.M)


@dataclass(frozen=True, slots=True)
class LookupCost:
    """Lookup cost over all indexed leaves, in estimated tokens.

    `median` is the lower median, `p95` the nearest-rank 95th percentile; all 0 when no leaf is
    indexed.  `largest_index` is (path, tokens) of the largest index file, or None.  `depth`: the
    most index files on one path (1 = the domain index lists the leaf); `reads`: the lower median
    of the files read per lookup (MEMORY.md, the indexes on the path, the leaf); `index_files`
    and `index_median` (tokens, lower median) describe the index files themselves.
    """

    leaves: int
    median: int
    p95: int
    max: int
    largest_index: tuple[str, int] | None
    depth: int = 0
    reads: int = 0
    index_files: int = 0
    index_median: int = 0

    def as_json(self) -> dict[str, object]:
        """{leaves, median, p95, max, largest_index: {path, tokens} | null, depth, reads_median,
        index_files, index_tokens_median}."""
        largest = None if self.largest_index is None else {"path": self.largest_index[0],
                                                             "tokens": self.largest_index[1]}
        return {"leaves": self.leaves, "median": self.median, "p95": self.p95, "max": self.max,
                "largest_index": largest, "depth": self.depth, "reads_median": self.reads,
                "index_files": self.index_files, "index_tokens_median": self.index_median}


def is_index_path(path: str) -> bool:
    """True for a generated index file under memory/domains/ (`_index.md`, `_index.<key>.md`)."""
    return path.startswith(DOMAINS_PREFIX) and is_index_name(path.rsplit("/", 1)[-1])


def leaf_costs(trunk: str, indexes: Mapping[str, str], estimator: str = "script-aware",
               single_files: Iterable[str] = (), sizes: Mapping[str, int] | None = None) -> dict[str, int]:
    """{leaf path: lookup cost in tokens} for every leaf the indexes (or the trunk) lead to.

    `trunk` is MEMORY.md's text, `indexes` {workspace-relative index path: text}, `single_files`
    the single-file domain paths present (their cost is the trunk's), `sizes` the indexes'
    `index_sizes` when the caller has them (each text estimated once).
    """
    return {path: cost for path, (cost, _) in leaf_paths(trunk, indexes, estimator, single_files, sizes).items()}


def leaf_paths(trunk: str, indexes: Mapping[str, str], estimator: str = "script-aware",
               single_files: Iterable[str] = (), sizes: Mapping[str, int] | None = None) -> dict[str, tuple[int, int]]:
    """{leaf path: (lookup cost in tokens, index files read on the way)}: `leaf_costs` with the depth."""
    base = estimate_tokens(trunk, estimator)
    sizes = index_sizes(indexes, estimator) if sizes is None else sizes
    costs = {path: (base, 0) for path in single_files}
    roots = sorted(p for p in indexes if p.count("/") == 3 and p.endswith("/_index.md"))
    for root in roots:
        stack = [(root, base + sizes[root], 1)]
        seen = {root}
        while stack:
            path, cost, depth = stack.pop()
            folder = path.rsplit("/", 1)[0]
            text = indexes[path]
            for name in _LEAF.findall(text):  # findall: no match object per entry (60,000 of them)
                costs.setdefault(_join(folder, name), (cost, depth))
            for link in _LINK.findall(text):
                target = _join(folder, link)
                if target in indexes and target not in seen:
                    seen.add(target)
                    stack.append((target, cost + sizes[target], depth + 1))
    return costs


def cost_text(cost: LookupCost, over: str = "", path: bool = False) -> str:
    """The lookup line migrate and status print: `lookup: ~M tokens median, ~P p95, ~X max from boot
    to a leaf's entry{over}; R reads (trunk, indexes, leaf), depth D; N index files, ~T tokens
    median, largest ~L` (`path`: the largest index's path too)."""
    largest = "" if cost.largest_index is None else (
        f", largest {cost.largest_index[0]} (~{cost.largest_index[1]:,})" if path else f", largest ~{cost.largest_index[1]:,}")
    return (f"lookup: ~{cost.median:,} tokens median, ~{cost.p95:,} p95, ~{cost.max:,} max from boot to a leaf's "
            f"entry{over}; {cost.reads} reads median (trunk, indexes, leaf), depth {cost.depth}; "
            f"{cost.index_files} index files, ~{cost.index_median:,} tokens median{largest}")


def index_sizes(indexes: Mapping[str, str], estimator: str = "script-aware") -> dict[str, int]:
    """{index path: its estimated tokens} of {path: text}."""
    return {path: estimate_tokens(text, estimator) for path, text in indexes.items()}


def summarize_costs(costs: Mapping[str, int], indexes: Mapping[str, str], estimator: str = "script-aware",
                    sizes: Mapping[str, int] | None = None, depths: Mapping[str, int] | None = None) -> LookupCost:
    """Median, p95 and max of `costs` (see `leaf_costs`), the largest of `indexes` (`sizes`: as
    leaf_costs), and from `depths` ({leaf: index files on its path}, `leaf_paths`) the depth and reads."""
    values = sorted(costs.values())
    sizes = index_sizes(indexes, estimator) if sizes is None else sizes
    largest = max(((p, sizes[p]) for p in indexes), key=lambda pt: (pt[1], pt[0]), default=None)
    own = sorted(sizes[p] for p in indexes)
    index_median = own[(len(own) - 1) // 2] if own else 0
    if not values:
        return LookupCost(0, 0, 0, 0, largest, 0, 0, len(own), index_median)
    rank95 = max(0, -(-95 * len(values) // 100) - 1)
    levels = sorted((depths or {}).values())
    depth = levels[-1] if levels else 0
    reads = 2 + levels[(len(levels) - 1) // 2] if levels else 0
    return LookupCost(len(values), values[(len(values) - 1) // 2], values[rank95], values[-1], largest,
                      depth, reads, len(own), index_median)


def lookup_cost(files: Mapping[str, str], estimator: str = "script-aware") -> LookupCost:
    """The LookupCost of a whole tree given as {workspace-relative path: text} (MEMORY.md included)."""
    indexes = {p: t for p, t in files.items() if is_index_path(p)}
    singles = [p for p in SINGLE_FILE_DOMAINS.values() if p in files]
    paths = leaf_paths(files.get("MEMORY.md", ""), indexes, estimator, singles)
    return summarize_costs({p: c for p, (c, _) in paths.items()}, indexes, estimator,
                           depths={p: d for p, (_, d) in paths.items()})


def _join(folder: str, relative: str) -> str:
    if "/" not in relative and relative not in ("", ".", ".."):
        return f"{folder}/{relative}"  # a plain name (every leaf entry): what _join_general gives, without its loop
    return _join_general(folder, relative)


def _join_general(folder: str, relative: str) -> str:
    """`folder` joined with the link `relative` (`..` and `.` resolved, empty parts dropped)."""
    parts = folder.split("/")
    for part in relative.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/".join(parts)
