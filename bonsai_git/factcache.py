"""A cache of leaf facts (tokens, heading, summaries) keyed by the leaf's git blob id, for the hook.

The pre-commit hook re-renders every index at every commit, and summarizing 1,000 unchanged
leaves costs more than everything else in a run.  A leaf's LeafFacts depend only on its bytes,
the estimator and the code that derives them, so they are cached under `estimator:blob id`
(git's own SHA-1 of the bytes, `git hash-object` without conversion) in
`<git common dir>/bonsai-git/leaf-facts.jsonl`: content-addressed, so an edited leaf simply
misses.  The cache file also records a fingerprint of the deriving code (the source of
core/indexes.py, tokens.py, summary.py, secretscan.py, sections.py, branches.py and
core/config.py, and the Python version): after an upgrade, or another engineer's change to a rule,
every entry misses and the cache is rebuilt.  Nothing generated depends on the cache: with it or without it
(`BONSAI_GIT_NO_CACHE=1`) the indexes are the same bytes.

Because the key is git's blob id, a leaf git reports unchanged against its index entry (the
hook's `git ls-files -s -t --modified`) need not be read at all: its blob id is in the listing
(`plan_unread`).  An entry is taken for such a leaf only when it was computed from bytes that
hash to exactly that blob id and have the size the file has now (one lstat, which the leaf rule
makes anyway): a checkout that converts line endings (core.autocrlf, `text`/`eol` attributes) or
runs a filter holds other bytes than the blob, with another size, so it is read.

Each domain's index files are memoized twice.  By a digest of everything they depend on
(`indexes.branch_inputs`): their paths and blob ids, so an unchanged domain is not rendered
(`branches_of`, every caller).  And, for the hook, by the domain's content alone: a digest of
the domain's name, the estimator, `branch_tokens` and each leaf's (name, blob id, size).  Such
an entry holds what the rest of the tree needs from the domain (each leaf's tokens in name
order, the largest leaf's root-index summary) and its index files' paths and blob ids.  When
every leaf of a domain is one git reports unchanged and every index file git reports unchanged
with its entry's blob id, the domain is done: no leaf fact of it is looked up, nothing of it is
read or rendered.  After one edit, only the edited domain's leaves are looked up.

The file is a JSON header line (format, code fingerprint) and one row per entry: `f`, `b` or
`d`, a tab, the key, a tab, then (for `f` the byte size, a tab, then) the entry as JSON.
Loading splits the rows by key and parses only the rows a run uses.  A run appends the entries
it made; once more than half the rows are unused in a run, the file is rewritten with only the
rows that run used, so it stays about the size of the tree.  A missing, unreadable or corrupt
cache is ignored (a damaged row alone is skipped); a cache that cannot be written is skipped.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .core.config import SINGLE_FILE_DOMAINS
from .core.errors import BonsaiError
from .core.branches import LayoutMemo
from .core.indexes import BranchesOf, DomainStats, FactsOf, LeafFacts, branch_inputs, domain_index_files, leaf_facts
from .core.layout import DOMAINS_DIR, Leaf, OnDisk, git_blob_id, leaf_location
from .tree import _read_bytes, write_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core.config import Config

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

CACHE_PATH = "bonsai-git/leaf-facts.jsonl"
FORMAT = 5
# Package-relative paths of the code the cached facts and index files derive from.  A path that
# is missing is a bug (a module moved: tests/test_factcache.py checks each exists), never a silent
# fingerprint that no longer changes with the code.
_DERIVING_MODULES = ("core/tokens.py", "core/summary.py", "core/secretscan.py", "core/sections.py", "core/indexes.py",
                     "core/branches.py", "core/config.py")


@dataclass(frozen=True, slots=True)
class DomainHit:
    """A domain the hook need not look at: its leaves' tokens by name, its largest leaf's name and
    root-index summary, and its index files (each on disk as rendered: git reports it unchanged)."""

    tokens: dict[str, int]
    top: str
    top_root_summary: str
    paths: tuple[str, ...]
    quiet: bool  # no leaf path of the domain holds a secret-looking run


@dataclass(frozen=True, slots=True)
class Unread:
    """What `plan_unread` found for one workspace: `blobs` {leaf path: (blob id, size)} of the leaves
    not to read, and `domains` {domain: DomainHit} of the domains done without looking at them."""

    blobs: dict[str, tuple[str, int]]
    domains: dict[str, DomainHit]

    @property
    def quiet(self) -> frozenset[str]:
        """The done domains none of whose leaf paths holds a secret-looking run (secretscan.name_secret_kinds)."""
        return frozenset(name for name, hit in self.domains.items() if hit.quiet)


class FactsCache:
    """LeafFacts by blob id and index files by their inputs: loaded once per run, saved once if anything changed."""

    def __init__(self, path: Path | None) -> None:
        """Open the cache at `path` (None: an in-memory cache that is never saved)."""
        self.path = path
        self.fingerprint = _code_fingerprint()
        self._rows: dict[bytes, bytes] = {}  # b"kind\tkey" -> the row's rest, unparsed until used
        self._bytes = 0  # the rows' bytes in the file (a key appended twice counts twice)
        self._f_bytes = self._f_count = 0  # the facts rows' bytes and number, for an average
        self._readable = path is not None and self._read()
        self._keep: dict[bytes, bytes] = {}  # rows used in this run (whole lines), the ones a compaction keeps
        self._kept_bytes = 0  # the bytes of those that came from the file
        self._parsed: dict[str, list[object]] = {}  # facts entries parsed or made in this run, by key
        self._new: list[bytes] = []  # rows made in this run, appended on save
        self._seen: dict[str, tuple[str, int]] = {}  # leaf path -> (blob id, size) of the facts given
        self._done_facts: list[tuple[str, list[str]]] = []  # (estimator, blob ids) of the leaves of done domains
        self.misses = 0

    def plan_unread(self, config: Config, root: Path, leaves: Iterable[str],
                    candidates: Mapping[str, tuple[str, int]], clean: Mapping[str, str]) -> Unread:
        """The leaves of one workspace (at `root`) the hook need not read, and the domains it need not render.

        `leaves`: the workspace's indexed leaf paths; `candidates` {leaf path: (blob id in git's
        index, size on disk now)}, each a leaf git reports unchanged; `clean` {path: blob id} of
        every file git reports unchanged (index files included).  A domain is done when its
        content key (the candidates' blob ids and sizes; the other leaves, few, are read and
        hashed) has an entry whose index files each have the entry's blob id (in `clean`, or read
        and hashed); the other candidates are left unread when their facts are cached for
        `config.estimator` from bytes of that blob id and that size.
        """
        estimator = config.estimator
        by_domain: dict[str, list[tuple[str, str]]] = {}
        folder = DOMAINS_DIR + "/"
        for path in leaves:
            if path.startswith(folder) and "/." not in path and "/_" not in path:  # leaf_location, inlined (hot)
                domain, _, name = path[len(folder):].partition("/")
                location: tuple[str, str] | None = (domain, name) if name else leaf_location(path)
            else:
                location = leaf_location(path)
            if location is not None:
                by_domain.setdefault(location[0], []).append((location[1], path))
        blobs: dict[str, tuple[str, int]] = {}
        domains: dict[str, DomainHit] = {}
        rows = self._rows
        base = os.fspath(root)
        for domain, items in by_domain.items():
            found = [] if domain in SINGLE_FILE_DOMAINS else [candidates.get(path) for _, path in items]
            if found and found.count(None) <= max(8, len(found) // 8):  # edited leaves: read a few to key the domain
                items.sort()
                found = [candidates.get(path) or _blob_and_size(base, path) for _, path in items]
            if found and None not in found:
                row = b"d\t" + _domain_key(domain, estimator, config.branch_tokens,
                                             [(name, *blob_size) for (name, _), blob_size in zip(items, found)
                                              if blob_size is not None]).encode()
                hit = _domain_hit(rows.get(row), [name for name, _ in items], clean, base)
                if hit is not None:
                    domains[domain] = hit
                    self._use(row, rows[row])
                    done_blobs = [blob_size for blob_size in found if blob_size is not None]
                    blobs.update(zip([path for _, path in items], done_blobs))
                    self._done_facts.append((estimator, [blob for blob, _ in done_blobs]))  # kept by a compaction
                    continue
            for _, path in items:
                candidate = candidates.get(path)
                if candidate is not None and self._stored_facts(f"{estimator}:{candidate[0]}", candidate[1]):
                    blobs[path] = candidate
        return Unread(blobs, domains)

    def facts_of(self, estimator: str, unread: Unread | None = None) -> FactsOf:
        """A function Leaf -> LeafFacts for `estimator` that reads and fills this cache.

        `unread` (from `plan_unread`) names the leaves left unread (their Leaf text is empty):
        their facts are the cached entries of their blob ids, or, in a domain it found done, the
        tokens (and for the largest leaf the root summary) its entry holds: summaries and headings
        are then empty, which is all a done domain needs (its index files are not rendered).
        """
        memo: dict[Leaf, LeafFacts] = {}
        known = unread.blobs if unread is not None else {}
        done = unread.domains if unread is not None else {}
        seen = self._seen
        bare: dict[int, LeafFacts] = {}  # LeafFacts(tokens, "", "", ""), one per token count (immutable, shared)

        def facts(leaf: Leaf) -> LeafFacts:
            if not leaf.text:  # unread (or empty: a done domain's entry then holds the facts of "")
                hit = done.get(leaf.domain)
                if hit is not None:
                    tokens = hit.tokens.get(leaf.name)
                    if tokens is not None:
                        if leaf.name == hit.top:
                            return LeafFacts(tokens, "", hit.top_root_summary, "")
                        found = bare.get(tokens)
                        if found is None:
                            found = bare[tokens] = LeafFacts(tokens, "", "", "")
                        return found
            found = memo.get(leaf)
            if found is None:
                path = leaf.path
                blob_size = known.get(path) if not leaf.text else None  # a leaf read (absorbing) is hashed
                if blob_size is None:
                    data = leaf.text.encode("utf-8", "surrogatepass")
                    blob_size = (git_blob_id(data), len(data))
                seen[path] = blob_size
                found = memo[leaf] = self._lookup(leaf.text, estimator, blob_size[0])
            return found

        return facts

    def branches_of(self, root: Path, clean: Mapping[str, str] | None = None,
                    unread: Unread | None = None, layouts: dict[str, Any] | None = None) -> BranchesOf:
        """A memo of `domain_index_files` for the workspace at `root`: the same bytes, less work.

        A domain `unread` found done gives its entry's files, each `OnDisk` (git reports each
        unchanged with the blob id of its rendering; the hook's writer skips them).  Otherwise the
        key is a digest of everything a domain's index files depend on (`branch_inputs`, and
        the code fingerprint of the whole cache); the entry is the files' paths and git blob ids.
        On a hit, when `clean` ({path: blob id} of files git reports unchanged against its index)
        holds every file with its entry's blob id, each text is `OnDisk`; otherwise the files are
        read and, where each has its entry's blob id, their texts are the rendering.
        Anything else renders.  With `clean` (the hook), the domain's content entry is recorded
        for the next run.  `layouts`, when given, receives each rendered domain's layout
        ({domain: (LayoutMemo.made, files)}: the hook's incremental snapshot keeps it).
        """
        base = os.fspath(root)
        done = unread.domains if unread is not None else {}

        def branches(stats: DomainStats, config: Config, facts: FactsOf | None) -> dict[str, str]:
            hit = done.get(stats.name)
            if hit is not None and len(hit.tokens) == len(stats.leaves) and \
                    all(not leaf.text and leaf.name in hit.tokens for leaf, _ in stats.leaves):  # none read: absorbing
                return {path: OnDisk() for path in hit.paths}
            row = b"b\t" + _digest(branch_inputs(stats, config, facts)).encode()
            entry = _branch_entry(self._rows.get(row))
            found = None
            if entry is not None:
                paths, blobs = entry
                found = _fresh(paths, blobs, clean) if clean is not None else None
                if found is None:
                    found = _verified(base, paths, blobs)
            if found is not None:
                self._use(row, self._rows[row])
                files = found
            else:
                memo = LayoutMemo() if layouts is not None else None
                files = domain_index_files(stats, config, facts, memo)
                if layouts is not None and memo is not None:
                    layouts[stats.name] = (memo.made, files)
                paths = sorted(files)
                blobs = [git_blob_id(files[p].encode("utf-8")) for p in paths]
                self._add(row, _json([paths, blobs]))
                self.misses += 1
            if clean is not None and facts is not None and stats.name not in SINGLE_FILE_DOMAINS:
                self._record_domain(stats, config, facts, files, clean)
            return files

        return branches

    def _record_domain(self, stats: DomainStats, config: Config, facts: FactsOf, files: Mapping[str, str],
                       clean: Mapping[str, str]) -> None:
        """Add the domain's content entry (module docstring), when each of its leaves' facts came with a blob id."""
        items = []
        for leaf, tokens in stats.leaves:
            blob_size = self._seen.get(leaf.path)
            if blob_size is None:
                return
            items.append((leaf.name, blob_size[0], blob_size[1], tokens))
        items.sort()
        paths = sorted(files)
        blobs = []
        for path in paths:
            text = files[path]  # OnDisk: the file git reports unchanged is the rendering, with that blob id
            blob = clean.get(path) if isinstance(text, OnDisk) else git_blob_id(text.encode("utf-8"))
            if blob is None:
                return
            blobs.append(blob)
        top = stats.leaves[0][0] if stats.leaves else None
        from .core.secretscan import name_secret_kinds  # loaded by the indexes already

        quiet = not name_secret_kinds("/".join(leaf.path for leaf, _ in stats.leaves))  # as hook._warn_secret_names
        entry = [[t for *_, t in items], "" if top is None else top.name,
                 "" if top is None else facts(top).root_summary, paths, blobs, quiet]
        row = b"d\t" + _domain_key(stats.name, config.estimator, config.branch_tokens,
                                     [(n, b, s) for n, b, s, _ in items]).encode()
        if row not in self._keep:
            self._add(row, _json(entry))

    def leaf_rows(self, estimator: str, paths: Iterable[str],
                  unread: Unread | None = None) -> dict[str, tuple[str, int, str, str, str]] | None:
        """{leaf path: (blob id, tokens, summary, root summary, heading)} for `paths`, from the facts
        this run gave or left unread (`unread`), for the hook's incremental snapshot; None when one
        is not known (its facts were never given by blob id)."""
        known = unread.blobs if unread is not None else {}
        out = {}
        for path in paths:
            blob_size = self._seen.get(path) or known.get(path)
            if blob_size is None or not self._stored_facts(f"{estimator}:{blob_size[0]}", blob_size[1]):
                return None
            tokens, summary, root_summary, heading = self._parsed[f"{estimator}:{blob_size[0]}"]
            out[path] = (blob_size[0], tokens, summary, root_summary, heading)
        return out  # type: ignore[return-value]

    def save(self, compact: bool = True) -> None:
        """Append the entries made in this run, or rewrite the file with only the entries used in
        this run once more than half of it is unused (or it was unreadable); never raises OSError.

        Appending keeps an edit run's save to a line or two: rewriting the whole file (3 MB at
        10,000 leaves) cost more than the rest of such a run.  `compact=False` (a hook run that
        skipped workspaces known fresh: their entries went unused, not stale) only appends.
        """
        if self.path is None:
            return
        if not compact and self._readable:
            self._append()
            return
        # Compact when the rows no run uses any more outweigh a quarter of those it does, by bytes:
        # one domain's entry is ~40 KB at 10,000 leaves, and each edit appends a new one.
        done = sum(len(blobs) for _estimator, blobs in self._done_facts)  # used, unparsed: sized by the average
        live = self._kept_bytes + done * self._f_bytes // max(1, self._f_count)
        dead = self._bytes - live
        try:
            if not self._readable or dead > max(1 << 16, live // 4):
                for estimator, blobs in self._done_facts:
                    for blob in blobs:
                        row = b"f\t%s:%s" % (estimator.encode(), blob.encode())
                        if row in self._rows:
                            self._use(row, self._rows[row])
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_durably(self.path, self._header() + b"".join(self._keep.values()), sync=False)
            else:
                self._append()
        except OSError:
            pass  # a read-only git dir: the next run recomputes, nothing else changes

    def _append(self) -> None:
        if not self._new:
            return
        assert self.path is not None
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT: a file removed meanwhile stays removed
        except OSError:
            return
        try:
            os.write(fd, b"".join(self._new))
        except OSError:
            pass
        finally:
            os.close(fd)

    def _header(self) -> bytes:
        return json.dumps({"format": FORMAT, "code": self.fingerprint}).encode("ascii") + b"\n"

    def _use(self, row: bytes, rest: bytes) -> None:
        """Mark a row of the file as used in this run (kept by a compaction)."""
        if row not in self._keep:
            line = self._keep[row] = row + b"\t" + rest + b"\n"
            self._kept_bytes += len(line)

    def _add(self, row: bytes, rest: bytes) -> None:
        """A row made in this run: appended on save, kept by a compaction."""
        line = row + b"\t" + rest + b"\n"
        self._keep[row] = line
        self._rows[row] = rest  # found again in this run, never counted as stored
        self._new.append(line)

    def _stored_facts(self, key: str, size: int) -> bool:
        """True when the stored facts entry `key` is well formed and was made from bytes of `size`
        (then parsed, for `_lookup`, and kept)."""
        if key in self._parsed:
            return True
        row = b"f\t" + key.encode()
        rest = self._rows.get(row)
        if rest is None:
            return False
        stored, sep, data = rest.partition(b"\t")
        if not (sep and stored.isdigit() and int(stored) == size):
            return False
        entry = _facts_entry(data)
        if entry is None:
            return False
        self._parsed[key] = entry
        self._use(row, rest)
        return True

    def _lookup(self, text: str, estimator: str, blob: str) -> LeafFacts:
        key = f"{estimator}:{blob}"
        entry = self._parsed.get(key)
        if entry is None:
            row = b"f\t" + key.encode()
            rest = self._rows.get(row)
            if rest is not None:
                entry = _facts_entry(rest.partition(b"\t")[2])
                if entry is not None:
                    self._use(row, rest)
            if entry is None:
                facts = leaf_facts(text, estimator)
                entry = [facts.tokens, facts.summary, facts.root_summary, facts.heading]
                self._add(row, b"%d\t%s" % (len(text.encode("utf-8", "surrogatepass")), _json(entry)))
                self.misses += 1
            self._parsed[key] = entry
        tokens, summary, root_summary, heading = entry
        return LeafFacts(tokens, summary, root_summary, heading)  # type: ignore[arg-type]

    def _read(self) -> bool:
        """Split the file's rows by key (parsed only when used); False when it is missing, unreadable
        or of another format or code."""
        assert self.path is not None
        try:
            lines = self.path.read_bytes().split(b"\n")  # no partition: a copy of 3 MB costs more than the split
            header = json.loads(lines[0])
        except (OSError, ValueError):
            return False
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("code") != self.fingerprint:
            return False
        rows = self._rows
        size = f_bytes = f_count = 0
        for number, line in enumerate(lines):  # rows never hold a raw newline (JSON escapes it)
            end = line.find(b"\t", 2)
            if end > 0 and number:  # a torn last row (a crash mid-append) fails to parse when used, and is redone
                rows[line[:end]] = line[end + 1 :]
                size += len(line) + 1
                if line[0] == 102:  # b"f"
                    f_bytes += len(line) + 1
                    f_count += 1
        self._bytes, self._f_bytes, self._f_count = size, f_bytes, f_count
        return True


def _domain_key(domain: str, estimator: str, branch_tokens: int, items: Iterable[tuple[str, str, int]]) -> str:
    """The content key of a domain: its name, the estimator, `branch_tokens` and each leaf's
    (name, blob id, size), sorted by name."""
    return _digest(f"{domain}\0{estimator}\0{branch_tokens}\n" + "\n".join(f"{n}\0{b}\0{s}" for n, b, s in items))


def _blob_and_size(base: str, path: str) -> tuple[str, int] | None:
    """(git blob id, size) of the file's bytes, or None when it cannot be read as a regular file."""
    try:
        data = _read_bytes(os.path.join(base, path))
    except (OSError, BonsaiError):  # missing, a folder, a FIFO...: the domain is rendered, which says why
        return None
    return git_blob_id(data), len(data)


def _domain_hit(rest: bytes | None, names: list[str], clean: Mapping[str, str], base: str) -> DomainHit | None:
    """The DomainHit a `d` row's entry gives for leaves `names` (sorted), when well formed and each of
    its index files has the entry's blob id (in `clean`, else read under `base` and hashed); else None."""
    entry = _loads(rest)
    if not (isinstance(entry, list) and len(entry) == 6):
        return None
    tokens, top, top_root, paths, blobs, quiet = entry
    if not (isinstance(tokens, list) and len(tokens) == len(names) and all(type(t) is int for t in tokens)
            and isinstance(top, str) and top in names and isinstance(top_root, str)
            and _is_branch_entry([paths, blobs]) and type(quiet) is bool):
        return None
    for path, blob in zip(paths, blobs):  # a file the hook rewrote and left unstaged is read (a few)
        if clean.get(path) != blob and (_blob_and_size(base, path) or ("",))[0] != blob:
            return None
    return DomainHit(dict(zip(names, tokens)), top, top_root, tuple(paths), quiet)


def _facts_entry(data: bytes) -> list[object] | None:
    """A stored facts entry [tokens, summary, root summary, heading] (JSON), or None when damaged."""
    entry = _loads(data)
    if (isinstance(entry, list) and len(entry) == 4 and type(entry[0]) is int and isinstance(entry[1], str)
            and isinstance(entry[2], str) and isinstance(entry[3], str)):
        return entry
    return None


def _branch_entry(rest: bytes | None) -> tuple[list[str], list[str]] | None:
    entry = _loads(rest)
    return (entry[0], entry[1]) if _is_branch_entry(entry) else None


def _loads(data: bytes | None) -> Any:
    """The JSON value a cache line's `data` holds, or None when absent or not JSON (a damaged line)."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def open_cache(git_common_dir: Path | None) -> FactsCache:
    """The hook's cache under `git_common_dir`, or an unsaved one when None or disabled by env."""
    if git_common_dir is None or os.environ.get("BONSAI_GIT_NO_CACHE"):
        return FactsCache(None)
    return FactsCache(git_common_dir / CACHE_PATH)


def _code_fingerprint() -> str:
    h = blake2b(digest_size=16)
    h.update(sys.version.encode())
    here = Path(__file__).parent
    for name in _DERIVING_MODULES:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(b"missing " + name.encode())
    return h.hexdigest()


def _digest(text: str) -> str:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _fresh(paths: list[str], blobs: list[str], clean: Mapping[str, str]) -> dict[str, str] | None:
    """{path: OnDisk} when git reports every file unchanged with its entry's blob id, else None."""
    if all(clean.get(path) == blob for path, blob in zip(paths, blobs)):
        return {path: OnDisk() for path in paths}
    return None


def _verified(base: str, paths: list[str], blobs: list[str]) -> dict[str, str] | None:
    """{path: text} read under `base` when each file has its entry's blob id, else None."""
    out = {}
    for path, blob in zip(paths, blobs):
        try:
            data = _read_bytes(os.path.join(base, path))
            if git_blob_id(data) != blob:
                return None
            out[path] = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    return out


def _is_branch_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)
            and isinstance(entry[1], list) and len(entry[0]) == len(entry[1])
            and all(isinstance(p, str) for p in entry[0]) and all(isinstance(t, str) for t in entry[1]))
