"""Render the generated files of a memory tree: branch indexes, the root index, the trunk block.

One renderer serves migrate, reindex, absorb and the hook, so "migrate, then reindex" never
changes a byte.  Everything is derived from the leaves alone (their domain, name and text),
in sorted orders, with no clock, host or absolute path: same leaves, same bytes.

Formats (DESIGN.md §3):
- branch indexes `memory/domains/<d>/_index.md`: a title, the domain's token total, then one
  `### <name>.md (~N tokens)` entry per leaf (sorted by name) with its one-line summary (or its
  title when it has none); past
  `branch_tokens` the index lists sub-branches instead (branches.py: a B-tree of index files);
- root index `memory/_index.md` (not loaded at boot): one line per domain with its tokens, leaf
  count and largest leaves, and a summary line;
- the trunk block (between MEMORY.md's markers) is *quiet*: it depends only on the set of
  domains, their scope lines, their topics (`domain_topics`: from leaf *names* only) and the
  line ending, never on tokens, counts or leaf text, so an edit inside a leaf never rewrites
  MEMORY.md, and adding, removing or renaming a leaf does only when the topics shown change
  (issue 24).  It holds one line on how to find a fact, one on where new memories go, and each
  domain with its scope and topics; the index path is `memory/domains/<domain>/_index.md`, said
  once, and a single-file domain names its file.  At most 380 tokens (`_BLOCK_LEVELS`): the
  topic lists are shortened first, then the scopes, then the last domains are folded into one line.
Names (domains, leaves, sub-folders, sub-branch labels) are shown through
`secretscan.mask_name`, whoever made the file: an agent-made `notes-akia….md` must not carry its
key into always-loaded text (branches.py masks what it shows and the index file names it makes).
The block's begin line carries a CRC-32 of what the block's body says (`#1a2b3c4d`,
`mdtext.formatting_key`): "is this block what the renderer wrote" is then an exact check
(`foreign_block_line`) that a Markdown formatter's reflowing does not fail, and text typed
between the markers is refused rather than overwritten.  Every file is written in mdformat's
canonical form (core/mdtext.py), and a file a formatter rewrote anyway is fresh (`formatted_alike`).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .branches import BranchLeaf, LayoutMemo, fits_one_index, heading_text, render_domain_indexes
from .config import DEFAULT_BRANCH_TOKENS, SINGLE_FILE_DOMAINS, Config, domain_scope
from .mdtext import formatting_key, inline_text
from .layout import BEGIN, DOMAINS_DIR, END, INDEX_NAME, ROOT_INDEX, TRUNK, Leaf, TrunkParts, parse_trunk
from .secretscan import mask_name
from .summary import cut_words, summarize
from .tokens import estimate_tokens, format_tokens

BLOCK_CAP_TOKENS = 380
TOPIC_CHARS = 64  # the most chars of topics a domain line shows while the block fits
ROOT_SUMMARY_CHARS = 80
ROOT_LEAF_NAMES = 5
# Paths in code spans: `<domain>` read as an HTML tag and `_index` as emphasis (mdformat escaped them; issue 22).
LOOKUP_LINE = (f"To find a fact, read `{DOMAINS_DIR}/<domain>/{INDEX_NAME}` of its domain below, then the leaf it "
               "names (or `memory_search` / `grep memory/`).")
WRITE_LINE = "New memories: a `## Heading` section below the end marker."



@dataclass(frozen=True, slots=True)
class LeafFacts:
    """What the indexes say about one leaf, all derived from its text alone.

    `tokens` (estimated, for the configured estimator), `summary` (branch index, <= 120 chars),
    `root_summary` (root index, <= 80 chars, shown for each domain's largest leaf only; None when
    not worked out: the root index then summarises that leaf's text itself) and `heading`
    (branches.heading_text).  The renderers compute them from the leaf's text unless a caller
    passes a `facts` function (the hook's cache of unchanged leaves, which then need not be read:
    their Leaf text is empty; a plan's leaves, summarised once for nesting and rendering).
    """

    tokens: int
    summary: str
    root_summary: str | None
    heading: str


FactsOf = Callable[[Leaf], LeafFacts]
# Renders one domain's index files ({path: text}) from its stats, the config and the facts; the
# hook passes a memo of `render_branch_indexes` (factcache.py) that gives the same bytes.
BranchesOf = Callable[["DomainStats", Config, "FactsOf | None"], dict[str, str]]


def leaf_facts(text: str, estimator: str) -> LeafFacts:
    """The LeafFacts of a leaf's text (str) for `estimator` ("script-aware" or "chars4")."""
    return LeafFacts(estimate_tokens(text, estimator), summarize(text), summarize(text, ROOT_SUMMARY_CHARS),
                     heading_text(text))


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


def render_branch_indexes(
    stats: DomainStats, estimator: str = "script-aware", facts: FactsOf | None = None,
    branch_tokens: int = DEFAULT_BRANCH_TOKENS, memo: LayoutMemo | None = None,
) -> dict[str, str]:
    """Every index file of one domain ({workspace-relative path: text, LF endings}), none over `branch_tokens`.

    The domain's `_index.md`, plus sub-branch and sub-folder indexes when it is large or has
    sub-folders (branches.py).  `facts`, when given, supplies each leaf's summary (it must agree
    with `leaf_facts`).  `memo` (branches.LayoutMemo): an earlier rendering's sub-branches, reused.
    """
    leaves = [
        BranchLeaf(leaf.name, heading_text(leaf.text), tokens, summarize(leaf.text)) if facts is None
        else BranchLeaf(leaf.name, (found := facts(leaf)).heading, tokens, found.summary)
        for leaf, tokens in stats.leaves
    ]
    return render_domain_indexes(stats.name, mask_name(_title(stats.name)), leaves, branch_tokens,
                                 f"{DOMAINS_DIR}/{stats.name}", memo)


def domain_fits_one_index(stats: DomainStats, config: Config, facts: FactsOf | None = None) -> bool:
    """True when the domain's leaves, listed flat (sub-folders ignored), fit one index of
    `config.branch_tokens` tokens (branches.fits_one_index): such a domain needs no sub-folders."""
    title = mask_name(_title(stats.name))
    # Entries with the shortest line first ("x": every entry has a line, a summary or the file name's
    # stem): a listing that is too long with them is too long with the real lines (estimates only grow
    # as text is added), and summarising a large domain costs time.  (With no line, an entry would show
    # its file name's stem, which can be longer than its summary: the check would refuse a domain that fits.)
    if not fits_one_index(title, [BranchLeaf(leaf.name, "", tokens, "x") for leaf, tokens in stats.leaves],
                          config.branch_tokens):
        return False
    leaves = [
        BranchLeaf(leaf.name, "", tokens, summarize(leaf.text) if facts is None else facts(leaf).summary)
        for leaf, tokens in stats.leaves
    ]
    return fits_one_index(title, leaves, config.branch_tokens)


def render_branch_index(stats: DomainStats, estimator: str = "script-aware", facts: FactsOf | None = None,
                        branch_tokens: int = DEFAULT_BRANCH_TOKENS) -> str:
    """The domain's own `_index.md` (str) among `render_branch_indexes`."""
    return render_branch_indexes(stats, estimator, facts, branch_tokens)[branch_index_path(stats.name)]


def render_root_index(stats: tuple[DomainStats, ...], newline: str = "\n", facts: FactsOf | None = None) -> str:
    """Render `memory/_index.md` (not loaded at boot): every domain with its tokens, leaf count, index
    path, largest leaves and a summary line; ends with `newline`."""
    return assemble_root_index([root_domain_entry(s, facts) for s in stats], newline)


# A domain's (tokens, leaves, lines) in the root index, and its topics for the trunk (`domain_topics`).
RootEntry = tuple[int, int, list[str], tuple[str, ...]]


def root_domain_entry(stats: DomainStats, facts: FactsOf | None = None) -> RootEntry:
    """One domain's part of `memory/_index.md`: (its tokens, its leaf count, its lines without newlines,
    its `domain_topics`).

    The hook's incremental run keeps these per domain and renders only the edited domains' again
    (`assemble_root_index` joins them, `render_trunk` takes the topics): the same bytes as a full run.
    """
    top = None if facts is None or not stats.leaves else facts(stats.leaves[0][0]).root_summary
    summaries = {} if top is None else {stats.name: top}
    return (stats.tokens, len(stats.leaves), _domain_lines(stats, ROOT_LEAF_NAMES, True, summaries),
            domain_topics(stats.name, (leaf.name for leaf, _ in stats.leaves)))


# Words of leaf names that name no topic (stop words, and words every memory uses), in the lexicon's
# Western languages too: `Kunden und Aufträge` must not make `und` a business topic.
_NAME_STOPWORDS = frozenset(
    "and the for with from into about notes note our my your their his her its this that how what when why "
    "who new old misc general other stuff things info "
    "und der die das den dem des ein eine einen mit für von vom zum zur bei aus auf über unter oder "
    "les des une aux avec pour par sur dans ses nos vos leur "
    "los las del una con para por sus nuestro nuestra "
    "dos das uma com para pelo pela nos nas seu sua".split()
)
TOPICS_SHOWN = 12  # the most topics a domain line can show


def domain_topics(domain: str, names: Iterable[str]) -> tuple[str, ...]:
    """The topics the trunk shows for a domain (most important first), from its leaf names alone.

    `names` are leaf names in the domain folder (`passport-renewal.md`, `seo/audit.md`).  A word
    (3+ letters, or a year) shared by 2+ names not yet covered is a topic, the word that covers
    the most names first (ties alphabetical); a sub-folder counts as a word of its leaves; then
    each name no shared word covers, as words (`passport renewal`), alphabetical; at most
    TOPICS_SHOWN.  A word in every name (`person` in people/) says nothing and is left out.
    Names only, never the leaves' text: an edit inside a leaf cannot change them (quiet trunk,
    issue 24), adding, removing or renaming a leaf only when these topics change.  A
    single-file domain has none.
    """
    if domain in SINGLE_FILE_DOMAINS:
        return ()
    words_of: dict[str, list[str]] = {}
    shown: dict[str, str] = {}  # name -> its last part (`_stem`) masked: its words, and its topic when no shared word covers it
    for name in sorted(set(names)):
        parts = (name[:-3] if name.endswith(".md") else name).split("/")
        shown[name] = mask_name(parts[-1])
        words = [mask_name(folder) for folder in parts[:-1]]
        words += [w for w in shown[name].split("-") if (len(w) >= 3 and not w.isdigit()) or _is_year(w)]
        words_of[name] = [w for w in dict.fromkeys(words) if w.casefold() not in _NAME_STOPWORDS]
    names_of: dict[str, set[str]] = {}
    for name, words in words_of.items():
        for word in words:
            names_of.setdefault(word, set()).add(name)
    counts = {word: len(found) for word, found in names_of.items()}
    everywhere = {w for w, c in counts.items() if c == len(words_of) and c > 2}
    topics: list[str] = []
    left = set(words_of)
    for word in sorted((w for w, c in counts.items() if c >= 2 and w not in everywhere), key=lambda w: (-counts[w], w)):
        covered = names_of[word] & left
        if len(covered) >= 2:
            topics.append(word)
            left -= covered
        if len(topics) >= TOPICS_SHOWN:
            return tuple(topics)
    singles = sorted(" ".join(w for w in shown[n].split("-") if w and w not in everywhere) or _stem(n) for n in left)
    return tuple((topics + [t for t in singles if t])[:TOPICS_SHOWN])


def _stem(name: str) -> str:
    last = name.rsplit("/", 1)[-1]
    return last[:-3] if last.endswith(".md") else last


def _is_year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and word[:2] in ("19", "20")


def assemble_root_index(entries: Sequence[RootEntry], newline: str = "\n") -> str:
    """`memory/_index.md` from each domain's `root_domain_entry`, in domain-name order."""
    leaves = sum(entry[1] for entry in entries)
    total = sum(entry[0] for entry in entries)
    lines = [
        "# Memory Index",
        "",
        f"{format_tokens(total)} tokens in {leaves} leaves. Before a task, read the index of its domain:"
        f" `{DOMAINS_DIR}/<domain>/{INDEX_NAME}`",
    ]
    if entries:
        lines.append("")  # a blank line before the list: mdformat's canonical form (issue 22)
    for entry in entries:
        lines += entry[2]
    return newline.join(lines) + newline


# (scope level, topic chars per domain) tried in turn until the block fits BLOCK_CAP_TOKENS: the
# topic lists are shortened first, then the scopes (0 whole, 1 first clause, 2 none).
_BLOCK_LEVELS = ((0, TOPIC_CHARS), (0, 60), (0, 40), (1, 60), (1, 40), (2, 60), (2, 40), (1, 24), (2, 24), (2, 0))


def render_block(domains: Iterable[str], newline: str = "\n", scopes: Mapping[str, str] | None = None,
                 topics: Mapping[str, Sequence[str]] | None = None) -> str:
    """The trunk's quiet generated block for the domain names `domains`: markers included, each line
    `newline`-ended, at most BLOCK_CAP_TOKENS tokens.  `scopes` are configured scope lines
    (`.bonsai.toml`); the others come from `config.DOMAIN_SCOPES`.  `topics` {domain: its
    `domain_topics`}, shown after the scope, as many as fit TOPIC_CHARS (then `…`).  Depends on
    nothing else: the domains' names, scopes and topics, never tokens, counts or leaf text."""
    names = sorted(set(domains))
    shown = {name: tuple((topics or {}).get(name, ())) for name in names}
    for level, chars in _BLOCK_LEVELS:
        body = _block_body(names, names, level, newline, scopes, shown, chars)
        if estimate_tokens(_wrap(body, newline)) <= BLOCK_CAP_TOKENS:
            return _wrap(body, newline)
    low, high = 1, len(names)  # the most domains shown, without scopes, that fit (at least one)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(_wrap(_block_body(names[:mid], names, 2, newline, scopes, shown, 0), newline)) <= BLOCK_CAP_TOKENS:
            low = mid
        else:
            high = mid - 1
    return _wrap(_block_body(names[:low], names, 2, newline, scopes, shown, 0), newline)


def config_scopes(config: Config) -> dict[str, str]:
    """The scope lines configured in `.bonsai.toml` ({domain: scope}); {} when none (or unsupported)."""
    scopes = getattr(config, "scopes", None)
    return dict(scopes) if scopes else {}


def render_trunk(parts: TrunkParts, domains: Iterable[str], scopes: Mapping[str, str] | None = None,
                 topics: Mapping[str, Sequence[str]] | None = None) -> str:
    """The trunk with its block regenerated (`render_block`); the user's text before and after is kept as is."""
    return parts.pinned + render_block(domains, parts.newline, scopes, topics) + parts.inbox


def stats_topics(stats: Iterable[DomainStats]) -> dict[str, tuple[str, ...]]:
    """{domain: `domain_topics`} of each domain's leaves: what `render_trunk` shows."""
    return {s.name: domain_topics(s.name, (leaf.name for leaf, _ in s.leaves)) for s in stats}


def render_tree(
    leaves: Iterable[Leaf],
    trunk: TrunkParts,
    config: Config,
    existing_indexes: Iterable[str] = (),
    facts: FactsOf | None = None,
    branches: BranchesOf | None = None,
) -> dict[str, str | None]:
    """Every generated file of the tree: {workspace-relative path: text, or None to delete}.

    `existing_indexes` are index paths present now (any `_index*.md` under memory/domains/);
    one that is no longer rendered maps to None.  The trunk maps to its full new text.  `facts`
    (optional) supplies each leaf's LeafFacts, e.g. from a cache, and `branches` each domain's
    index files (a memo of `domain_index_files`); the bytes are the same as without them.
    """
    stats = domain_stats(leaves, config.estimator, facts)
    files: dict[str, str | None] = {}
    files.update(render_index_files(stats, config, facts, branches))
    for path in sorted(existing_indexes):
        files.setdefault(path, None)
    roots = [root_domain_entry(s, facts) for s in stats]  # their topics are the trunk's: computed once
    files[ROOT_INDEX] = assemble_root_index(roots)
    files[TRUNK] = render_trunk(trunk, (s.name for s in stats), config_scopes(config),
                                {s.name: entry[3] for s, entry in zip(stats, roots)})
    return dict(sorted(files.items()))


def render_index_files(stats: Iterable[DomainStats], config: Config, facts: FactsOf | None = None,
                       branches: BranchesOf | None = None) -> dict[str, str]:
    """Every branch index file of every folder domain, {path: text}."""
    files: dict[str, str] = {}
    for s in stats:
        if s.name not in SINGLE_FILE_DOMAINS:
            files.update((branches or domain_index_files)(s, config, facts))
    return files


def domain_index_files(stats: DomainStats, config: Config, facts: FactsOf | None = None,
                       memo: LayoutMemo | None = None) -> dict[str, str]:
    """`render_branch_indexes` for a domain under `config` (the default BranchesOf)."""
    return render_branch_indexes(stats, config.estimator, facts, config.branch_tokens, memo)


def branch_inputs(stats: DomainStats, config: Config, facts: FactsOf | None = None) -> str:
    """Everything a domain's index files depend on, as one string (a cache key's source)."""
    rows = [f"{stats.name}\0{config.branch_tokens}\0{config.estimator}"]
    for leaf, tokens in stats.leaves:
        if facts is None:
            summary, heading = summarize(leaf.text), heading_text(leaf.text)
        else:
            found = facts(leaf)
            summary, heading = found.summary, found.heading
        rows.append(f"{leaf.name}\0{tokens}\0{summary}\0{heading}")
    return "\n".join(rows)


def stale_files(rendered: Mapping[str, str | None], current: Mapping[str, str | None]) -> tuple[str, ...]:
    """Paths whose rendered text differs from `current` (None = absent), sorted."""
    return tuple(sorted(p for p, text in rendered.items() if current.get(p) != text))


def _block_body(shown: Sequence[str], names: Sequence[str], level: int, nl: str,
                scopes: Mapping[str, str] | None, topics: Mapping[str, Sequence[str]], chars: int) -> str:
    """The block's lines between the markers; `level` 0 full scopes, 1 first clause, 2 none;
    `chars` the topic chars per domain line (`_topic_list`)."""
    # mdformat's canonical form (issue 22): blank lines after the begin marker, around the list
    # and before the end marker; user text (names, scopes, topics) escaped as mdformat escapes it.
    lines = ["", LOOKUP_LINE, WRITE_LINE, ""]
    for name in shown:
        scope = domain_scope(name, dict(scopes) if scopes else None)
        if level == 1:
            scope = re.split(r"[:,;(]", scope, maxsplit=1)[0].strip()
        single = SINGLE_FILE_DOMAINS.get(name)
        head = mask_name(name) + (f" ({single})" if single else "")
        listed = _topic_list(topics.get(name, ()), chars)
        text = " — ".join(part for part in (scope if level < 2 else "", listed) if part)
        lines.append("- " + inline_text(f"{head}: {text}" if text else head))
    hidden = len(names) - len(shown)
    if hidden:
        lines.append(f"- +{hidden} more domains: see `{ROOT_INDEX}`")
    lines.append("")
    return nl.join(lines) + nl


def _topic_list(topics: Sequence[str], chars: int) -> str:
    """As many of `topics` as fit `chars` (each cut at a word boundary to 32), `, `-joined, then `, …`
    when some are left out; "" when none fits."""
    shown: list[str] = []
    used = 0
    for topic in topics:
        text = cut_words(topic, 32)
        if used + len(text) + 2 > chars:
            break
        shown.append(text)
        used += len(text) + 2
    if not shown:
        return ""
    return ", ".join(shown) + (", …" if len(shown) < len(topics) else "")


def _domain_lines(s: DomainStats, names: int, with_summary: bool, summaries: dict[str, str]) -> list[str]:
    single = SINGLE_FILE_DOMAINS.get(s.name)
    count = len(s.leaves)
    head = f"{mask_name(s.name)} ({format_tokens(s.tokens)} tokens"
    if single is not None:
        head += f"): {single}"
    else:
        head += f", {_leaves(count)})"
        if names:
            listed = [mask_name(leaf.stem) for leaf, _ in s.leaves[:names]]
            more = count - len(listed)
            head += ": " + ", ".join(listed) + (f", +{more} more" if more else "")
    lines = ["- " + inline_text(head)]  # escaped as one text, as mdformat reads it (issue 22)
    if with_summary:
        if s.name not in summaries:
            summaries[s.name] = next((summarize(leaf.text, ROOT_SUMMARY_CHARS) for leaf, _ in s.leaves), "")
        summary = inline_text(summaries[s.name])
        if summary:
            lines.append(f"  {summary}")
    return lines


# A block written before the block carried its CRC (the old renderer): every line shape it wrote.
_LEGACY_LINE = re.compile(
    r"(?:<!-- bonsai:(?:begin\b.*|end -->)|# Memory Index|~[\d,]+ tokens in .*|- .*|  .*|)\r?"
)
_CRC = re.compile(r" #([0-9a-f]{8}) -->\r?$")


def foreign_block_line(block: str) -> int | None:
    """1-based line of the trunk block where text the renderer did not write sits, else None.

    Exact for blocks this renderer wrote: the begin line carries the CRC-32 of the body, so any
    byte typed, changed or removed between the markers is caught; the line named is the first
    that is neither a fixed line nor shaped like a domain line (line 2 when every line looks
    generated: a generated line was edited or removed).
    A block without a CRC (an older bonsai-git's, or a bare begin/end pair) is checked by the
    line shapes the old renderer wrote.  A block holding a git conflict (a merge of two
    generated blocks) is regenerated whole: None.  Reindex and the hook refuse (exit 3) on a
    foreign line: regenerating the block would lose it.
    """
    if "\n<<<<<<<" in block or block.startswith("<<<<<<<"):
        return None
    first, _, rest = block.partition("\n")
    crc = _CRC.search(first)
    if crc is None:
        for number, line in enumerate(block.split("\n"), 1):
            if not _LEGACY_LINE.fullmatch(line):
                return number
        return None
    end = rest.rfind(END)
    body = rest[:end] if end >= 0 else rest
    if crc.group(1) in (_crc(body), _crc_exact(body)):  # the second: a block written before issue 22
        return None
    nl = "\r\n" if first.endswith("\r") else "\n"
    lines = body.split(nl)
    for number, line in enumerate(lines, 2):
        if line and line not in (LOOKUP_LINE, WRITE_LINE) and not re.fullmatch(r"- [^\s:(]+(?: \([^)]*\))?(?:: .*)?", line):
            return number
    return 2


def _crc(body: str) -> str:
    # Over what the body says (mdtext.formatting_key): the block a Markdown formatter reflowed,
    # re-bulleted or re-escaped is still the renderer's own, not text typed into it (issue 22),
    # and so is the block checked out with CRLF (core.autocrlf=true, issue 12 §4).
    return f"{zlib.crc32(formatting_key(body).encode('utf-8', 'surrogatepass')):08x}"


def _crc_exact(body: str) -> str:
    # The CRC blocks carried before issue 22: over the body's exact text, read with LF endings.
    return f"{zlib.crc32(body.replace(chr(13) + chr(10), chr(10)).encode('utf-8', 'surrogatepass')):08x}"


def formatted_alike(path: str, current: bytes, wanted: bytes) -> bool:
    """True when the generated file at `path` holds `current` where the renderer gives `wanted`, and
    the two differ only in what a Markdown formatter changes (mdtext.formatting_key): the
    formatter's version is fresh, never rewritten back (issue 22: commits never settled).

    For MEMORY.md the user's text before and after the block must be equal, byte for byte.
    """
    try:
        now, then = current.decode("utf-8"), wanted.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if path == TRUNK:
        a, b = parse_trunk(now), parse_trunk(then)
        if a is None or b is None or (a.pinned, a.inbox) != (b.pinned, b.inbox):
            return False
        now, then = a.block, b.block
    return formatting_key(now) == formatting_key(then)


def _wrap(body: str, nl: str) -> str:
    return f"{BEGIN} #{_crc(body)} -->{nl}{body}{END}{nl}"


def _title(domain: str) -> str:
    return domain.replace("-", " ").title()


def _leaves(count: int) -> str:
    return f"{count} leaf" if count == 1 else f"{count} leaves"
