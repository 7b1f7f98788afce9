"""Bounded branch indexes: a B-tree of index files over stable leaf paths (issues 11 and 24).

A domain's `_index.md` lists its leaves while that fits `branch_tokens`; past it, the index
lists *sub-branches* instead, each a line saying what it holds and a link to its own index,
and so on down: as many levels as the size needs (at 10,000 leaves, two below the domain index).

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

An index stays one file while a reader takes it in at a glance (`branch_tokens`, default 1,800:
about 40 leaves with their summaries, issue 24; config.py says how it was measured).  Past that it is split the way a person files
things.  Sub-branch keys, in this order (each names groups of 3+ among what the earlier ones left;
`log` tries the year first): a shared `Kind:` prefix of the headings (`Person:`, `Project:`,
`Incident 2024-…`), the year in the heading, then a heading word several entries share.  What no
key groups is listed as it is beside the groups when it fits, else one "Other" sub-branch; only
as the last resort are entries cut into chunks in name order.  Every sub-branch entry has a
line in words saying what it holds: its leaf count and the titles of its largest leaves, as
many as fit, each cut at a word boundary, then `+N more` (`_describe`); a label is a whole
word or title, never a range of names.  A topic group too large for one index that no key
below divides is listed as its chunks in the parent (`_hoist_chunks`: one read fewer).
The `#` group heading is a key of another kind, because leaf text does not carry it: when a
domain is too large for one index, `migrate` (and `regroup`) put the leaves of a shared `#`
group in a sub-folder named after it (plan.py), and a split index lists each sub-folder as a
sub-branch of its own, before the keyed groups of the other entries (`_direct_entries`).
Pure: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .mdtext import heading_text as heading_text_md, inline_text
from .secretscan import mask_name
from .summary import clean_title, cut_words

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b
from .tokens import estimate_quarters, format_tokens

INDEX_PREFIX = "_index"
# Tokens of an index's title and summary line, and of one sub-branch entry: the planning
# figures for the split; the rendered files are measured exactly afterwards.
_HEAD_TOKENS = 22
_GROUP_TOKENS = 40  # a link line and a description line of ~_DESCRIPTION_CHARS
_DESCRIPTION_CHARS = 110
_TITLE_CHARS = 48
_TOP_TITLES = 12  # titles an entry keeps for the description of the sub-branch above it
_MIN_GROUP = 3  # a sub-branch of fewer leaves costs a read and saves nothing
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

    __slots__ = ("name", "text", "heading", "leaves", "leaf_tokens", "titles", "tokens", "quarters")

    def __init__(self, name: str, text: str, heading: str, leaves: int, leaf_tokens: int,
                 titles: tuple[tuple[int, str], ...], tokens: int, quarters: int) -> None:
        self.name = name  # sort name, relative to the folder: "alice.md" or "seo/"
        self.text = text  # the entry's lines, no final newline
        self.heading = heading  # the leaf's heading (sub-branch keys); "" for a sub-folder
        self.leaves = leaves
        self.leaf_tokens = leaf_tokens
        self.titles = titles  # (-tokens, title) of its largest leaves, sorted: what a description names
        self.tokens = tokens  # the entry's own tokens in an index (its lines and the blank line before it)
        self.quarters = quarters  # the same in quarter-tokens, exact: an index's estimate is the sum of its parts'


def _entry(name: str, text: str, heading: str, leaves: int, leaf_tokens: int,
           titles: tuple[tuple[int, str], ...]) -> _Entry:
    quarters = estimate_quarters(text + "\n\n")
    return _Entry(name, text, heading, leaves, leaf_tokens, titles, -(-quarters // 4), quarters)


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
        fields += (e.name, e.text, e.heading, str(e.leaves), str(e.leaf_tokens), *(x for n, t in e.titles for x in (str(n), t)))
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


# The two head lines every index renderer has written (`_index_head`, and older releases'
# `_~850 tokens in 3 leaves_`): `# <labels> Index`, then (after the blank line mdformat's form puts
# there, issue 22) an italic line counting tokens and leaves.
_GENERATED_HEAD = re.compile(rb"# [^\r\n]* Index\r?\n(?:\r?\n)?_[^\r\n]* tokens[^\r\n]* in \d[\d,]* lea(?:f|ves)[^\r\n]*_\r?(?:\n|$)")


def is_generated_index(data: bytes) -> bool:
    """True when `data` (a file's bytes) opens with the head lines bonsai-git writes into an index.

    The only proof that a file named like an index (`_index.md`, `_index.<key>.md`) is ours to
    delete as stale: an agent copying the naming (`_index.notes.md`) wrote a note, and the hook
    once deleted it (issue 21 §3).  Whatever `_index_head` renders must match (tests/core/test_branches.py).
    """
    return _GENERATED_HEAD.match(data) is not None


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
        listing, groups = _plan_listing(slug, entries, keys, bound, cap)
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
    hiding it inside an "Other" group or a chunk of names, while the folders leave room for two
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


def _plan_listing(slug: str, entries: list[_Entry], keys: tuple[str, ...], bound: int, cap: int
                  ) -> tuple[list[_Entry], list[tuple[str, str, list[_Entry], tuple[str, ...]]]]:
    """(the entries a split index lists, its sub-branches (label, slug, members, keys left)) for `entries`.

    Sub-folders first (`_direct_entries`), then the keyed groups (`_split`), then what no key
    grouped: listed as it is when it fits beside them (one read fewer for those leaves), else one
    "Other" sub-branch, or, when that would not fit one index either, chunks in name order
    (the last resort, each still described by its titles).
    """
    direct, others = _direct_entries(entries, cap)
    groups, rest = _split(others, keys, cap - len(direct))
    loose: list[_Entry] = []
    if rest:
        used = _HEAD_TOKENS + sum(e.tokens for e in direct) + len(groups) * _GROUP_TOKENS
        if (direct or groups) and used + sum(e.tokens for e in rest) <= bound:
            loose = rest
        else:
            groups += _rest_groups(rest, bound, cap - len(direct) - len(groups), bool(direct or groups))
    groups = _unique_slugs(_hoist_chunks(groups, bound, cap - len(direct) - len(loose)))
    listing = direct + [_group_entry(label, index_file_name(_join(slug, gslug)), members)
                        for label, gslug, members, _ in groups]
    return listing + loose, groups


def _split(entries: list[_Entry], keys: tuple[str, ...], cap: int
           ) -> tuple[list[tuple[str, str, list[_Entry], tuple[str, ...]]], list[_Entry]]:
    """(groups of `entries` by topic (label, slug, members, keys left for them), the entries no key grouped).

    Each key in turn names groups of `_MIN_GROUP`+ among the entries no earlier key grouped, at
    most `cap - 1` groups in all (a slot stays for the rest), the largest kept.  Siblings rather
    than an "Other" chain: one level per key would make the path longer.  Below a group the
    other keys may divide it again.
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
        below = tuple(k for k in keys if k != key)
        groups += [(label, _slug(label), members, below) for label, members in sorted(kept.items())]
        remaining = sorted(rest, key=_sort_key)
    groups.sort(key=lambda g: (g[0].casefold(), g[0]))
    return groups, remaining


def _hoist_chunks(groups: list[tuple[str, str, list[_Entry], tuple[str, ...]]], bound: int, room: int
                  ) -> list[tuple[str, str, list[_Entry], tuple[str, ...]]]:
    """`groups` with each topic group too large for one index, that no key below divides, listed as
    its name-order chunks (`Client: Bramble, Cobalt …`) in this index, while they fit `room`: its
    own index would list nothing but those chunks, one read more on every path through it."""
    out: list[tuple[str, str, list[_Entry], tuple[str, ...]]] = []
    for i, (label, slug, members, keys) in enumerate(groups):
        left = room - len(out) - (len(groups) - i - 1)
        if _HEAD_TOKENS + sum(e.tokens for e in members) <= bound or _split(members, keys, left)[0] or left < 2:
            out.append((label, slug, members, keys))
            continue
        out += [(f"{label}: {chunk_label}", f"{slug}-{n}", chunk, ()) for chunk_label, n, chunk in
                ((c[0].split(": ", 1)[-1], j, c[2]) for j, c in enumerate(_rest_groups(members, bound, left, False), 1))]
    return out


def _rest_groups(rest: list[_Entry], bound: int, room: int, other: bool
                 ) -> list[tuple[str, str, list[_Entry], tuple[str, ...]]]:
    """Sub-branches for the entries no topic grouped: one "Other" (beside topic groups) when it fits
    one index or there is no room for more, else chunks in name order (the last resort), each
    labelled by the first words of its first titles: never a range of names."""
    total = _HEAD_TOKENS + sum(e.tokens for e in rest)
    if other and (total <= bound or room < 2 or len(rest) < 2 * _MIN_GROUP):
        return [("Other", "other", rest, ())]
    k = max(2, min(max(room, 2), len(rest), -(-total // max(1, (bound - _HEAD_TOKENS) * 17 // 20))))
    n = len(rest)
    chunks = [c for c in (rest[i * n // k: (i + 1) * n // k] for i in range(k)) if c]
    prefix = "Other: " if other else ""
    return [(prefix + _chunk_label(chunk), f"{'other-' if other else 'part-'}{i}", chunk, ())
            for i, chunk in enumerate(chunks, 1)]


def _chunk_label(chunk: list[_Entry]) -> str:
    """A name-order chunk's label: the first word of each of its first two titles, then `…`."""
    words: list[str] = []
    for title in _without_common_lead([clean_title(title) for entry in chunk[:8] for _, title in entry.titles[:1]]):
        first = title.split()[0].strip(",;:()[]\"'") if title.split() else ""
        if first and first.casefold() not in (w.casefold() for w in words):
            words.append(first)
        if len(words) == 2:
            break
    return ", ".join(words) + " …" if words else "…"


def _without_common_lead(titles: list[str]) -> list[str]:
    """`titles` without the leading words all of them share (`Person: Extra 1`, `Person: Extra 2` are
    `1`, `2`), when each keeps a word; else as they are."""
    split = [t.split() for t in titles]
    if len(split) < 2:
        return titles
    n = 0
    while all(len(words) > n + 1 for words in split) and len({words[n] for words in split}) == 1:
        n += 1
    return titles if n == 0 else [" ".join(words[n:]) for words in split]


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
    """Entries by `key` ("kind", "year", "word"): ({label: members of _MIN_GROUP+}, the rest); None if it does not divide."""
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
    named = {labels[k]: v for k, v in groups.items() if len(v) >= _MIN_GROUP}
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
    useful = {w for w, c in counts.items() if _MIN_GROUP <= c < len(entries)}

    def choose(entry: _Entry) -> str | None:
        candidates = words_of[id(entry)] & useful
        return min(candidates, key=lambda w: (-counts[w], w)) if candidates else None

    return choose


def _describe(leaves: int, titles: Sequence[tuple[int, str]], label: str) -> str:
    """A sub-branch's description line: `N leaves: title; title; +M more`, the largest leaves' titles
    first, as many as fit `_DESCRIPTION_CHARS`, each cut at a word boundary (summary.cut_words),
    without the group's own label in front (`Person: Ada` under `Person` is `Ada`)."""
    what = f"{leaves} leaf" if leaves == 1 else f"{leaves} leaves"
    shown: list[str] = []
    used = len(what) + 2
    for title in _without_common_lead([_without_label(clean_title(title) or "…", label) for _, title in titles]):
        text = cut_words(title, _TITLE_CHARS)
        if shown and used + len(text) + 2 + 12 > _DESCRIPTION_CHARS:
            break
        shown.append(text)
        used += len(text) + 2
    more = leaves - len(shown)
    return f"{what}: " + "; ".join(shown) + (f"; +{more} more" if more else "")


def _without_label(title: str, label: str) -> str:
    """`title` without a leading `label` and the `:`/space after it (case-insensitive); `title` when nothing is left."""
    if label and title[: len(label)].casefold() == label.casefold() and title[len(label): len(label) + 1] in (":", "：", " "):
        rest = title[len(label):].lstrip(":： ")
        return rest or title
    return title


def _top_titles(members: Sequence[_Entry]) -> tuple[tuple[int, str], ...]:
    """The `_TOP_TITLES` titles of the largest leaves under `members`, as (-tokens, title), sorted."""
    return tuple(sorted(t for e in members for t in e.titles)[:_TOP_TITLES])


def _leaf_entry(leaf: BranchLeaf) -> _Entry:
    """A leaf's entry: its name and tokens, then its summary, or its title when it has none (every
    entry has a line saying what it holds, issue 24)."""
    name = leaf.name.rsplit("/", 1)[-1]
    # The raw heading: cleaned and masked only where a description shows it (`_describe`), since
    # the secret scan would cost every leaf of a domain at every hook run that renders it.  The
    # name's stem stands in only for a missing heading or summary: masked only then.
    title = leaf.heading or _shown_stem(name)
    line = leaf.summary or cut_words(clean_title(leaf.heading) or _shown_stem(name), 120)
    # mdformat's canonical form (issue 22): a blank line between the heading and its line, user text escaped.
    text = f"### {heading_text_md(f'{mask_name(name)} ({format_tokens(leaf.tokens)} tokens)')}\n\n{inline_text(line)}"
    return _entry(name, text, leaf.heading, 1, leaf.tokens, ((-leaf.tokens, title),))


def _shown_stem(name: str) -> str:
    """A leaf's file name without `.md`, masked (`mask_name`): what stands in for its title."""
    return mask_name(name[:-3] if name.endswith(".md") else name)


def _group_entry(label: str, target: str, members: Sequence[_Entry], name: str | None = None) -> _Entry:
    """A sub-branch's entry: its link line, then the line saying what it holds (`_describe`)."""
    leaves = sum(e.leaves for e in members)
    tokens = sum(e.leaf_tokens for e in members)
    titles = _top_titles(members)
    # mdformat's canonical form (issue 22): a blank line between the link and its description, escaped.
    text = (f"### [{inline_text(mask_name(label), False)}]({mask_name(target)})\n\n"
            f"{inline_text(_describe(leaves, titles, label.rstrip('/')))}")
    return _entry(name or label, text, "", leaves, tokens, titles)


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


def _slug(label: str) -> str:
    slug = _SLUG_JUNK.sub("-", mask_name(label).casefold()).strip("-_")
    return slug or "x"


def _join(parent: str, child: str) -> str:
    return child if not parent else f"{parent}.{child}"
