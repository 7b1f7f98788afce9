"""The lookup cost of a memory tree: tokens an agent reads from boot to a leaf's entry (issue 11).

Cost of a leaf = the tokens of MEMORY.md (loaded at boot) + the tokens of every index file read
on the way to the index that lists the leaf, one per level: the domain's `_index.md`, then each
sub-branch index its links lead to.  The leaf itself is not counted (the agent reads it in any
case).  A single-file domain (`memory/dates.md`) is named in the trunk, so its cost is the
trunk's alone.  The root index `memory/_index.md` is not on the path (the trunk names each
domain's index).

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
    indexed.  `largest_index` is (path, tokens) of the largest index file, or None.
    """

    leaves: int
    median: int
    p95: int
    max: int
    largest_index: tuple[str, int] | None

    def as_json(self) -> dict[str, object]:
        """{leaves, median, p95, max, largest_index: {path, tokens} | null}."""
        largest = None if self.largest_index is None else {"path": self.largest_index[0],
                                                             "tokens": self.largest_index[1]}
        return {"leaves": self.leaves, "median": self.median, "p95": self.p95, "max": self.max,
                "largest_index": largest}


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
    base = estimate_tokens(trunk, estimator)
    sizes = index_sizes(indexes, estimator) if sizes is None else sizes
    costs = {path: base for path in single_files}
    roots = sorted(p for p in indexes if p.count("/") == 3 and p.endswith("/_index.md"))
    for root in roots:
        stack = [(root, base + sizes[root])]
        seen = {root}
        while stack:
            path, cost = stack.pop()
            folder = path.rsplit("/", 1)[0]
            text = indexes[path]
            for name in _LEAF.findall(text):  # findall: no match object per entry (60,000 of them)
                costs.setdefault(_join(folder, name), cost)
            for link in _LINK.findall(text):
                target = _join(folder, link)
                if target in indexes and target not in seen:
                    seen.add(target)
                    stack.append((target, cost + sizes[target]))
    return costs


def index_sizes(indexes: Mapping[str, str], estimator: str = "script-aware") -> dict[str, int]:
    """{index path: its estimated tokens} of {path: text}."""
    return {path: estimate_tokens(text, estimator) for path, text in indexes.items()}


def summarize_costs(costs: Mapping[str, int], indexes: Mapping[str, str], estimator: str = "script-aware",
                    sizes: Mapping[str, int] | None = None) -> LookupCost:
    """Median, p95 and max of `costs` (see `leaf_costs`) and the largest of `indexes` (`sizes`: as leaf_costs)."""
    values = sorted(costs.values())
    sizes = index_sizes(indexes, estimator) if sizes is None else sizes
    largest = max(((p, sizes[p]) for p in indexes), key=lambda pt: (pt[1], pt[0]), default=None)
    if not values:
        return LookupCost(0, 0, 0, 0, largest)
    rank95 = max(0, -(-95 * len(values) // 100) - 1)
    return LookupCost(len(values), values[(len(values) - 1) // 2], values[rank95], values[-1], largest)


def lookup_cost(files: Mapping[str, str], estimator: str = "script-aware") -> LookupCost:
    """The LookupCost of a whole tree given as {workspace-relative path: text} (MEMORY.md included)."""
    indexes = {p: t for p, t in files.items() if is_index_path(p)}
    singles = [p for p in SINGLE_FILE_DOMAINS.values() if p in files]
    costs = leaf_costs(files.get("MEMORY.md", ""), indexes, estimator, singles)
    return summarize_costs(costs, indexes, estimator)


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
