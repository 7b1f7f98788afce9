"""Bounded branch indexes: a B-tree of index files over stable leaf paths (issue 11).

A domain's `_index.md` lists its leaves while that fits `branch_tokens`; past it, the index
lists *sub-branches* instead, each a line saying what it holds and a link to its own index,
and so on down: as many levels as the size needs, so the tokens an agent reads from the trunk
to a leaf's entry grow with the log of the size of memory, never linearly.

Invariants:
- Leaves never move.  Splitting writes index files only: a sub-branch index of folder F is
  `F/_index.<key>.md` (names starting with `_` are never leaves, `layout.leaf_location`), next
  to the leaves it lists.  A sub-folder a person made (`business/seo/`) is a sub-branch of its
  own with `seo/_index.md`, split further the same way when it grows.
- Every entry is relative to the folder of the index that lists it: a leaf entry
  `### alice.md (~120 tokens)` in `people/_index.person.md` is `people/alice.md`; a link
  `### [seo/](seo/_index.md)` leads to the next index.
- No index file exceeds `branch_tokens` unless one entry alone does (a leaf name cannot be cut).
- Deterministic: the same leaves give the same files, whatever order they come in.

Sub-branch keys, in this order (the first that divides the entries wins; `log` tries the year
first): a shared `Kind:` prefix of the headings (`Person:`, `Project:`, `Incident 2024-…`), the
year in the heading, then a heading word several entries share; the last resort is ranges of
names (`a–f`), sized to keep the path from the domain index to any leaf's entry cheapest.
The `#` group heading is a key of another kind, because leaf text does not carry it: when a
domain is too large for one index, `migrate` (and `regroup`) put the leaves of a shared `#`
group in a sub-folder named after it (plan.py), and a split index lists each sub-folder as a
sub-branch of its own, before the keyed groups of the other entries (`_direct_entries`).
Pure: text in, text out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .mdtext import heading_text as heading_text_md, inline_text
from .secretscan import mask_name

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b
from .tokens import estimate_quarters, format_tokens

INDEX_PREFIX = "_index"
# Tokens of an index's title and summary line, and of one sub-branch entry: the planning
# figures for the split; the rendered files are measured exactly afterwards.
_HEAD_TOKENS = 22
_GROUP_TOKENS = 24
_NAME_CHARS = 24
# Each extra index read is a tool call and a turn: the split weighs it like this many tokens, so it
# prefers fuller leaf-level indexes (and fewer files) to a marginally cheaper but deeper path.
_READ_TOKENS = 150
_STOPWORDS = frozenset(
    "about after again also among around before being between could does during each every from have "
    "into just more most notes other over same should since some such than that their them then there "
    "these they this those through under until very were what when where which while with would your".split()
)
_KIND = re.compile(r"\s*([^\W\d_][\w'’-]{1,23})\s*(?:[:：]|\s+#?\d)")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_WORD = re.compile(r"[^\W\d_][\w'’-]{3,}")
_SLUG_JUNK = re.compile(r"[^\w]+")


@dataclass(frozen=True, slots=True)
class BranchLeaf:
    """One leaf as an index lists it: its name in the domain folder (posix, `.md`), heading, tokens, summary."""

    name: str
    heading: str
    tokens: int
    summary: str


class _Entry:
    """One entry of an index (a leaf or a sub-branch).  A plain slotted class, never compared nor
    changed after it is made: a frozen dataclass costs ~1 ms to define and twice as much to make
    (1,600 per large domain, at every hook run that renders one)."""

    __slots__ = ("name", "text", "heading", "leaves", "leaf_tokens", "first", "last", "tokens", "quarters")

    def __init__(self, name: str, text: str, heading: str, leaves: int, leaf_tokens: int, first: str, last: str,
                 tokens: int, quarters: int) -> None:
        self.name = name  # sort name, relative to the folder: "alice.md" or "seo/"
        self.text = text  # the entry's lines, no final newline
        self.heading = heading  # the leaf's heading (sub-branch keys); "" for a sub-folder
        self.leaves = leaves
        self.leaf_tokens = leaf_tokens
        self.first = first  # first and last leaf names under it (descriptions of ranges)
        self.last = last
        self.tokens = tokens  # the entry's own tokens in an index (its lines and the blank line before it)
        self.quarters = quarters  # the same in quarter-tokens, exact: an index's estimate is the sum of its parts'


def _entry(name: str, text: str, heading: str, leaves: int, leaf_tokens: int, first: str, last: str) -> _Entry:
    quarters = estimate_quarters(text + "\n\n")
    return _Entry(name, text, heading, leaves, leaf_tokens, first, last, -(-quarters // 4), quarters)


def heading_text(leaf_text: str) -> str:
    """The heading of a leaf's text (str): its first line without `#` marks; "" when blank."""
    end = leaf_text.find("\n")
    first = (leaf_text if end < 0 else leaf_text[:end]).lstrip("\ufeff").strip()
    return first.lstrip("#").strip()


class LayoutMemo:
    """The sub-branches of an earlier rendering of a domain, reused where their inputs are the same.

    `calls` {key: (paths, child keys)}: each sub-branch laid out then, by a digest of everything
    its files depend on (folder, slug, labels, entries, keys, bound); `texts` {path: text} that
    rendering's files.  A sub-branch with the same key gives the same files (the layout is a pure
    function of those inputs), so they are taken from `texts` without laying it out again.  After
    a rendering, `made` holds its own calls (those taken included) and `taken` counts the reuses.
    The hook keeps one per domain in its incremental snapshot (incremental.py); the code version
    is part of that snapshot's key.
    """

    def __init__(self, calls: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] | None = None,
                 texts: Mapping[str, str] | None = None) -> None:
        """An empty memo, or one of an earlier rendering's `calls` and `texts`."""
        self.calls = calls or {}
        self.texts = texts or {}
        self.made: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.taken = 0

    def take(self, key: str, out: dict[str, str]) -> tuple[str, ...] | None:
        """Copy the files of the earlier sub-branch `key` into `out` and return their paths; None when unknown."""
        found = self.calls.get(key)
        if found is None or not all(path in self.texts for path in found[0]):
            return None
        stack = [key]
        while stack:  # the sub-branches below it are part of this rendering too: the next one may need them
            k = stack.pop()
            entry = self.calls.get(k)
            if entry is not None and k not in self.made:
                self.made[k] = entry
                stack.extend(entry[1])
        for path in found[0]:
            out[path] = self.texts[path]
        self.taken += 1
        return found[0]


def _layout_key(folder: str, slug: str, labels: list[str], entries: list[_Entry], keys: tuple[str, ...],
                bound: int) -> str | None:
    """A digest of a `_layout` call's inputs (None when a NUL in the text would make the join ambiguous)."""
    fields = [folder, slug, *labels, *keys, str(bound), str(len(labels))]
    for e in entries:
        fields += (e.name, e.text, e.heading, e.first, e.last, str(e.leaves), str(e.leaf_tokens))
    joined = "\0".join(fields)
    if joined.count("\0") != len(fields) - 1:
        return None
    return blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def render_domain_indexes(
    domain: str, title: str, leaves: Sequence[BranchLeaf], branch_tokens: int, folder: str,
    memo: LayoutMemo | None = None,
) -> dict[str, str]:
    """Every index file of one domain: {workspace-relative path: text}, sorted.

    `folder` is the domain's folder (`memory/domains/<domain>`), `title` its display name,
    `leaves` its leaves (any order), `branch_tokens` the bound on each file (tokens).  `memo`:
    an earlier rendering's sub-branches, reused where unchanged (the same bytes, less work).
    """
    by_folder: dict[str, list[BranchLeaf]] = {"": []}
    subfolders: dict[str, set[str]] = {}
    for leaf in leaves:
        parent = leaf.name.rsplit("/", 1)[0] if "/" in leaf.name else ""
        by_folder.setdefault(parent, []).append(leaf)
        while parent:  # every ancestor folder exists as a node, even one without direct leaves
            up = parent.rsplit("/", 1)[0] if "/" in parent else ""
            subfolders.setdefault(up, set()).add(parent)
            by_folder.setdefault(parent, [])
            parent = up
    out: dict[str, str] = {}
    summaries: dict[str, _Entry] = {}
    keys = ("year", "kind", "word") if domain == "log" else ("kind", "year", "word")
    for sub in sorted(by_folder, key=lambda f: (-f.count("/") if f else 1, f)):
        entries = [_leaf_entry(leaf) for leaf in by_folder[sub]]
        entries += [summaries[child] for child in sorted(subfolders.get(sub, ()))]
        path = f"{folder}/{sub}" if sub else folder
        labels = [title, *mask_name(sub).split("/")] if sub else [title]
        # The domain folder's own index changes with any change in the domain: not worth a key.
        _layout(path, "", labels, sorted(entries, key=_sort_key), keys, branch_tokens, out, memo, keyed=bool(sub))
        if sub:
            summaries[sub] = _group_entry(sub.rsplit("/", 1)[-1] + "/", f"{sub.rsplit('/', 1)[-1]}/{INDEX_PREFIX}.md",
                                          entries, name=sub.rsplit("/", 1)[-1] + "/")
    return dict(sorted(out.items()))


def is_index_name(name: str) -> bool:
    """True for a generated index file name: `_index.md` or `_index.<key>.md` (bonsai-git owns them)."""
    return name == f"{INDEX_PREFIX}.md" or (name.startswith(f"{INDEX_PREFIX}.") and name.endswith(".md") and len(name) > 10)


def index_file_name(slug: str) -> str:
    """The file name of an index in its folder: `_index.md` for the folder's own, `_index.<slug>.md` below."""
    return f"{INDEX_PREFIX}.md" if not slug else f"{INDEX_PREFIX}.{slug}.md"


def _layout(folder: str, slug: str, labels: list[str], entries: list[_Entry], keys: tuple[str, ...],
            bound: int, out: dict[str, str], memo: LayoutMemo | None = None,
            keyed: bool = True) -> tuple[str | None, tuple[str, ...]]:
    """Write the index `folder/index_file_name(slug)` for `entries`, splitting it while it exceeds `bound`.

    Returns (the call's `_layout_key` when `memo` is given and `keyed`, the paths it wrote, its own last)."""
    key = _layout_key(folder, slug, labels, entries, keys, bound) if memo is not None and keyed else None
    if memo is not None and key is not None:
        taken = memo.take(key, out)
        if taken is not None:
            return key, taken
    path = f"{folder}/{index_file_name(slug)}"
    if len(entries) < 2 or sum(e.tokens for e in entries) <= bound:  # cheap pre-check before rendering
        head = _index_head(labels, entries, None)
        if len(entries) < 2 or _tokens_of(head, entries) <= bound:
            out[path] = _text_of(head, entries)
            if memo is not None and key is not None:
                memo.made[key] = ((path,), ())
            return key, (path,)
    cap = max(2, (bound - _HEAD_TOKENS) // _GROUP_TOKENS)
    while True:
        direct, others = _direct_entries(entries, cap)
        groups = _split(others, keys, bound, cap - len(direct))
        listing = direct + [
            _group_entry(label, index_file_name(_join(slug, gslug)), members, span=not _is_range_slug(gslug))
            for label, gslug, members, _rest in groups
        ]
        head = _index_head(labels, listing, entries)
        if _tokens_of(head, listing) <= bound or cap <= 2:
            break
        cap -= 1
    paths: list[str] = []
    children: list[str] = []
    for label, gslug, members, rest in groups:
        child, below = _layout(folder, _join(slug, gslug), [*labels, label], members, rest, bound, out, memo)
        paths += below
        if child is None:
            key = None  # a sub-branch without a key: this one cannot be reused either
        else:
            children.append(child)
    out[path] = _text_of(head, listing)
    paths.append(path)
    if memo is not None and key is not None:
        memo.made[key] = (tuple(paths), tuple(children))
    return key, tuple(paths)


def _direct_entries(entries: list[_Entry], cap: int) -> tuple[list[_Entry], list[_Entry]]:
    """(entries a split index lists as they are, the rest to group) for a listing of at most `cap` lines.

    A sub-folder (a `#` group heading's folder that migrate made, or one a person made) is a
    sub-branch already, with its own index: the split lists it directly, first, rather than
    hiding it inside an "Other" group or a name range, while the folders leave room for two
    sub-branches of the other entries.  Otherwise ([], entries): too many folders, or (at most
    one other entry) a listing no shorter than the flat one that did not fit.
    """
    folders = [e for e in entries if e.name.endswith("/")]
    rest = [e for e in entries if not e.name.endswith("/")]
    if folders and len(rest) >= 2 and len(folders) + 2 <= cap:
        return folders, rest
    return [], entries


def fits_one_index(title: str, leaves: Sequence[BranchLeaf], branch_tokens: int) -> bool:
    """True when `leaves`, listed flat under `title`, make one index of at most `branch_tokens` tokens.

    The test `migrate` and `regroup` apply before giving a domain's `#` groups sub-folders: a
    domain that fits one index stays flat (no folder nobody needs).  Leaf names are taken
    without their folders (as if flat).
    """
    if len(leaves) < 2:
        return True
    entries = sorted((_leaf_entry(leaf) for leaf in leaves), key=_sort_key)
    return _index_tokens([title], entries, None) <= branch_tokens


def group_folder_room(branch_tokens: int) -> int:
    """How many sub-folders one index can list beside two more sub-branches, under `branch_tokens` (>= 1)."""
    return max(1, (branch_tokens - _HEAD_TOKENS) // _GROUP_TOKENS - 2)


def _split(entries: list[_Entry], keys: tuple[str, ...], bound: int, cap: int
           ) -> list[tuple[str, str, list[_Entry], tuple[str, ...]]]:
    """Groups of `entries` (label, slug, members, keys left for them), at most `cap` of them.

    Each key in turn names groups among the entries no earlier key grouped; what no key groups
    is one "Other" group, or ranges of names when it is too large for one index and there is
    room.  Siblings rather than an "Other" chain: one level per key would make the path longer.
    """
    groups: list[tuple[str, str, list[_Entry], tuple[str, ...]]] = []
    remaining = entries
    for key in keys:
        room = cap - len(groups) - 1  # keep a slot for what stays ungrouped
        grouped = _group(remaining, key) if room > 0 and len(remaining) > 2 else None
        if grouped is None:
            continue
        named, rest = grouped
        ordered = sorted(named.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        kept = dict(ordered[:room])
        rest += [e for _, members in ordered[room:] for e in members]
        # Below a key's group only ranges of names: one meaningful level, then the cheapest path.
        groups += [(label, _slug(label), members, ()) for label, members in sorted(kept.items())]
        remaining = sorted(rest, key=_sort_key)
    if not groups:
        return _name_ranges(entries, bound, cap, "")
    if remaining:
        flat = _HEAD_TOKENS + sum(e.tokens for e in remaining)
        room = cap - len(groups)
        if flat > bound and room >= 2 and len(remaining) >= 2:
            groups += _name_ranges(remaining, bound, room, "Other ")
        else:
            groups.append(("Other", "other", remaining, ()))
    return _unique_slugs(groups)


def _unique_slugs(groups: list[tuple[str, str, list[_Entry], tuple[str, ...]]]
                  ) -> list[tuple[str, str, list[_Entry], tuple[str, ...]]]:
    """Groups whose slugs (file names) differ: `Person:` and a word `person`, `C++` and `C#`, get `-2`, `-3`."""
    seen: set[str] = set()
    out = []
    for label, slug, members, keys in groups:
        unique, n = slug, 1
        while unique in seen:
            n += 1
            unique = f"{slug}-{n}"
        seen.add(unique)
        out.append((label, unique, members, keys))
    return out


def _group(entries: list[_Entry], key: str) -> tuple[dict[str, list[_Entry]], list[_Entry]] | None:
    """Entries by `key` ("kind", "year", "word"): ({label: members of 2+}, the rest); None if it does not divide."""
    value_of: Callable[[_Entry], str | None]
    if key == "kind":
        value_of = _kind_of
    elif key == "year":
        value_of = _year_of
    else:
        value_of = _word_chooser(entries)
    labels: dict[str, str] = {}
    groups: dict[str, list[_Entry]] = {}
    for entry in entries:
        value = value_of(entry)
        if value is not None:
            fold = value.casefold()
            labels[fold] = min(labels.get(fold, value), value)
            groups.setdefault(fold, []).append(entry)
    named = {labels[k]: v for k, v in groups.items() if len(v) >= 2}
    if not named or (len(named) == 1 and sum(map(len, named.values())) == len(entries)):
        return None
    kept = {id(e) for members in named.values() for e in members}
    return named, [e for e in entries if id(e) not in kept]


def _kind_of(entry: _Entry) -> str | None:
    m = _KIND.match(entry.heading)
    return m.group(1) if m else None


def _year_of(entry: _Entry) -> str | None:
    m = _YEAR.search(entry.heading)
    return m.group(1) if m else None


def _word_chooser(entries: list[_Entry]) -> Callable[[_Entry], str | None]:
    """Each entry's most shared heading word (in 3+ headings, not all); ties alphabetical."""
    counts: dict[str, int] = {}
    words_of: dict[int, set[str]] = {}
    for entry in entries:
        heading = entry.heading
        # On ASCII, casefolding the heading first finds the same words, folded, without a loop.
        words = (set(_WORD.findall(heading.lower())) if heading.isascii()
                 else {w.casefold() for w in _WORD.findall(heading)}) - _STOPWORDS
        words_of[id(entry)] = words
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    useful = {w for w, c in counts.items() if 3 <= c < len(entries)}

    def choose(entry: _Entry) -> str | None:
        candidates = words_of[id(entry)] & useful
        return min(candidates, key=lambda w: (-counts[w], w)) if candidates else None

    return choose


def _name_ranges(entries: list[_Entry], bound: int, cap: int, prefix: str
                 ) -> list[tuple[str, str, list[_Entry], tuple[str, ...]]]:
    """Contiguous ranges of names, as many as make the path from here to a leaf's entry cheapest."""
    n = len(entries)
    mean = max(1.0, sum(e.tokens for e in entries) / n)
    k = _best_fanout(n, mean, bound, cap)
    chunks = [entries[i * n // k : (i + 1) * n // k] for i in range(k)]
    chunks = [c for c in chunks if c]
    labels = _range_labels([(c[0].name, c[-1].name) for c in chunks])
    slug = _slug(prefix) + "-" if prefix else ""
    return [(prefix + label, f"{slug}{i}", chunk, ()) for i, (label, chunk) in enumerate(zip(labels, chunks), 1)]


def _best_fanout(n: int, mean: float, bound: int, cap: int) -> int:
    """The number of ranges (2..cap) that minimises the tokens read from this index to a leaf's entry.

    A uniform model: an index of m entries costs HEAD + m * mean while it fits `bound`, else the
    cheapest listing of k sub-branches plus the cost of one of them (dynamic programming on m).
    """
    memo: dict[int, tuple[float, int]] = {}

    def cost(m: int) -> tuple[float, int]:
        if m in memo:
            return memo[m]
        flat = _HEAD_TOKENS + m * mean
        if flat <= bound or m < 2:
            memo[m] = (flat, 1)
            return memo[m]
        best = (math.inf, 2)
        for k in range(2, min(cap, m) + 1):
            listing = _HEAD_TOKENS + k * _GROUP_TOKENS
            if listing > bound and k > 2:
                break
            best = min(best, (listing + _READ_TOKENS + cost(math.ceil(m / k))[0], k))
        memo[m] = best
        return best

    flat_fits = _HEAD_TOKENS + n * mean <= bound
    return 2 if flat_fits else max(2, min(cost(n)[1], n))


def _range_labels(bounds: list[tuple[str, str]]) -> list[str]:
    """Guide-word labels `first–last` for contiguous name ranges, like a dictionary's: each end just
    long enough to tell it from the neighbouring range's (to the end of that word), the last
    without the words it shares with the first (`log-2026-02-19–24`, `deploy-notes-for-the-bramble–heron`)."""
    stems = [(_stem(a), _stem(b)) for a, b in bounds]
    labels = []
    for i, (first, last) in enumerate(stems):
        a = _guide_word(first, stems[i - 1][1] if i else last)  # the first range: told from its own last
        b = _guide_word(last, stems[i + 1][0] if i + 1 < len(stems) else first)
        a, b = mask_name(a), mask_name(b)
        labels.append(a if a == b else f"{a}–{b[len(_common_prefix([a, b])):] or b}")
    return labels


def _guide_word(name: str, neighbour: str) -> str:
    """The prefix of `name` that differs from `neighbour`, run on to the end of its word (+6 chars at most)."""
    n = _common_len(name, neighbour)
    end = name.find("-", n + 1)
    return name[: min(len(name) if end < 0 else end, n + 7)]


def _common_prefix(names: list[str]) -> str:
    """The longest prefix all `names` share, cut after its last `-` (a whole-word prefix)."""
    if not names:
        return ""
    low, high = min(names), max(names)
    n = _common_len(low, high)
    cut = low[:n].rfind("-")
    return low[: cut + 1] if cut >= 0 else ""


def _common_len(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b` (a binary search over slice compares)."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # a[:low] == b[:low] holds; a[:high + 1] == b[:high + 1] does not (or high is the end)
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _leaf_entry(leaf: BranchLeaf) -> _Entry:
    name = leaf.name.rsplit("/", 1)[-1]
    # mdformat's canonical form (issue 22): a blank line between the heading and its summary, user text escaped.
    text = f"### {heading_text_md(f'{mask_name(name)} ({format_tokens(leaf.tokens)} tokens)')}" + (
        f"\n\n{summary}" if (summary := inline_text(leaf.summary)) else "")
    return _entry(name, text, leaf.heading, 1, leaf.tokens, name, name)


def _group_entry(label: str, target: str, members: Sequence[_Entry], name: str | None = None,
                 span: bool = True) -> _Entry:
    leaves = sum(e.leaves for e in members)
    tokens = sum(e.leaf_tokens for e in members)
    first, last = min(e.first for e in members), max(e.last for e in members)
    what = f"{leaves} leaf" if leaves == 1 else f"{leaves} leaves"
    text = f"### [{inline_text(mask_name(label), False)}]({mask_name(target)})"
    if span:  # a name range's label already says what it holds: no second line
        # the guide words: the first and last names, the last without the words it shares with the first
        a, b = mask_name(_stem(first)), mask_name(_stem(last))
        common = _common_prefix([a, b])
        guide = f"{what}: {_short(a)}" + ("" if a == b else f" … {_short(b[len(common):] or b)}")
        text += f"\n\n{inline_text(guide)}"  # one text, escaped as mdformat reads it (issue 22)
    return _entry(name or label, text, "", leaves, tokens, first, last)


def _index_text(labels: list[str], entries: Sequence[_Entry], split_from: Sequence[_Entry] | None) -> str:
    """An index file: title, a summary line, then the entries (leaves, or sub-branches when split)."""
    return _text_of(_index_head(labels, entries, split_from), entries)


def _text_of(head: tuple[str, str], entries: Sequence[_Entry]) -> str:
    lines = [head[0], "", head[1]]  # a blank line after the title: mdformat's canonical form
    for entry in entries:
        lines += ["", entry.text]
    return "\n".join(lines) + "\n"


def _index_tokens(labels: list[str], entries: Sequence[_Entry], split_from: Sequence[_Entry] | None) -> int:
    """`estimate_tokens(_index_text(labels, entries, split_from))`, from the entries' quarters, without rendering.

    The text is `title \n \n summary \n` then `\n entry \n` per entry: each entry is priced as its
    text plus two newlines (`_entry`), and no CRLF spans two parts (the head lines end in `Index`
    and `_`, and a char after an entry's text is a newline in both).
    """
    return _tokens_of(_index_head(labels, entries, split_from), entries)


def _tokens_of(head: tuple[str, str], entries: Sequence[_Entry]) -> int:
    quarters = estimate_quarters(head[0]) + estimate_quarters(head[1]) + 3 + sum(e.quarters for e in entries)
    return -(-quarters // 4)


def _index_head(labels: list[str], entries: Sequence[_Entry], split_from: Sequence[_Entry] | None) -> tuple[str, str]:
    """The title and summary lines of an index (`_index_text`)."""
    source = entries if split_from is None else split_from
    leaves = sum(e.leaves for e in source)
    tokens = sum(e.leaf_tokens for e in source)
    count = f"{leaves} leaf" if leaves == 1 else f"{leaves} leaves"
    title = f"# {heading_text_md(' › '.join(labels) + ' Index')}"
    if split_from is None:
        return title, f"_Estimated tokens: {format_tokens(tokens)} in {count}_"
    return title, f"_{format_tokens(tokens)} tokens in {count}; read the sub-branch that fits_"


def _sort_key(entry: _Entry) -> tuple[str, str]:
    return (entry.name.casefold(), entry.name)


def _stem(name: str) -> str:
    name = name.rstrip("/")
    return name[:-3] if name.endswith(".md") else name


def _short(name: str, chars: int = _NAME_CHARS) -> str:
    return name if len(name) <= chars else name[: chars - 1] + "…"


def _slug(label: str) -> str:
    slug = _SLUG_JUNK.sub("-", mask_name(label).casefold()).strip("-_")
    return slug or "x"


def _is_range_slug(slug: str) -> bool:
    """True for a name range's slug (`3`, `other-3`): its label already gives the guide words."""
    last = slug.rsplit("-", 1)[-1]
    return last.isdigit() and (slug == last or slug.startswith("other-")) and len(last) < 4


def _join(parent: str, child: str) -> str:
    return child if not parent else f"{parent}.{child}"
