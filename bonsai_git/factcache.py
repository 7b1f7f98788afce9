"""A cache of leaf facts (tokens, heading, summaries) keyed by the leaf's git blob id, for the hook.

The pre-commit hook re-renders every index at every commit, and summarizing 1,000 unchanged
leaves costs more than everything else in a run.  A leaf's LeafFacts depend only on its bytes,
the estimator and the code that derives them, so they are cached under `estimator:blob id`
(git's own SHA-1 of the bytes, `git hash-object` without conversion) in
`<git common dir>/bonsai-git/leaf-facts.jsonl`: content-addressed, so an edited leaf simply
misses.  The cache file also records a fingerprint of the deriving code (the source of
tokens.py, summary.py, secretscan.py, sections.py, indexes.py and branches.py, and the Python
version): after an upgrade, or another engineer's change to a rule, every entry misses and the
cache is rebuilt.  Nothing generated depends on the cache: with it or without it
(`BONSAI_GIT_NO_CACHE=1`) the indexes are the same bytes.

Because the key is git's blob id, a leaf git reports unchanged against its index entry (the
hook's `git ls-files -s -t --modified`) need not be read at all: its blob id is in the listing
(`known_blobs`).  An entry is taken for such a leaf only when it was computed from bytes that
hash to exactly that blob id and have the size the file has now (one lstat, which the leaf rule
makes anyway): a checkout that converts line endings (core.autocrlf, `text`/`eol` attributes) or
runs a filter holds other bytes than the blob, with another size, so it is read.

Each domain's index files are memoized too (`branches_of`): by a digest of everything they
depend on (`indexes.branch_inputs`), their paths and blob ids, so an unchanged domain is not
rendered, and in the hook (where git's listing says which files are unchanged) not read either.

The file is a header line (format, code fingerprint) and one JSON row per entry.  A run appends
the entries it made; once more than half the rows are unused in a run, the file is rewritten
with only the entries that run used, so it stays about the size of the tree.  A missing,
unreadable or corrupt cache is ignored (a damaged row alone is skipped); a cache that cannot be
written is skipped.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from .indexes import BranchesOf, DomainStats, FactsOf, LeafFacts, branch_inputs, domain_index_files, leaf_facts
from .tree import Leaf, OnDisk, _read_bytes, git_blob_id, write_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .config import Config

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

CACHE_PATH = "bonsai-git/leaf-facts.jsonl"
FORMAT = 4
_DERIVING_MODULES = ("tokens.py", "summary.py", "secretscan.py", "sections.py", "indexes.py", "branches.py")


class FactsCache:
    """LeafFacts by blob id and index files by their inputs: loaded once per run, saved once if anything changed."""

    def __init__(self, path: Path | None) -> None:
        """Open the cache at `path` (None: an in-memory cache that is never saved)."""
        self.path = path
        self.fingerprint = _code_fingerprint()
        self._stored: dict[str, list[object]] = {}
        self._stored_branches: dict[str, list[object]] = {}
        self._rows = 0  # entries in the file (a key appended twice counts twice)
        self._readable = path is not None and self._read()
        self._used: dict[str, list[object]] = {}
        self._used_branches: dict[str, list[object]] = {}
        self._new: list[list[object]] = []  # rows made in this run, appended on save
        self.misses = 0

    def known_blobs(self, estimator: str, candidates: Mapping[str, tuple[str, int]]) -> dict[str, str]:
        """{leaf path: blob id} of the `candidates` ({leaf path: (blob id in git's index, size on
        disk now)}, each a leaf git reports unchanged) whose facts are cached for `estimator` from
        bytes of that blob id and that size: those leaves need not be read."""
        out = {}
        stored = self._stored
        for path, (blob, size) in candidates.items():
            key = f"{estimator}:{blob}"
            entry = stored.get(key)
            if entry is not None and _is_entry(entry) and entry[4] == size:
                out[path] = blob
                self._used[key] = entry  # checked: _lookup takes it as it is
        return out

    def facts_of(self, estimator: str, blobs: Mapping[str, str] | None = None) -> FactsOf:
        """A function Leaf -> LeafFacts for `estimator` that reads and fills this cache.

        `blobs` ({leaf path: blob id}, from `known_blobs`) names the leaves left unread (their
        Leaf text is empty): their facts are the cached entries of those blob ids.
        """
        memo: dict[Leaf, LeafFacts] = {}
        known = blobs or {}

        def facts(leaf: Leaf) -> LeafFacts:
            found = memo.get(leaf)
            if found is None:
                blob = known.get(leaf.path) or git_blob_id(leaf.text.encode("utf-8", "surrogatepass"))
                found = memo[leaf] = self._lookup(leaf.text, estimator, blob)
            return found

        return facts

    def branches_of(self, root: Path, clean: Mapping[str, str] | None = None) -> BranchesOf:
        """A memo of `domain_index_files` for the workspace at `root`: the same bytes, less work.

        Keyed by a digest of everything a domain's index files depend on (`branch_inputs`, and
        the code fingerprint of the whole cache); the entry is the files' paths and git blob ids.
        On a hit, when `clean` ({path: blob id} of files git reports unchanged against its index)
        holds every file with its entry's blob id, each text is `OnDisk` (the file is the
        rendering, as git stores it; nothing is read: the hook's writer skips it); otherwise the
        files are read and, where each has its entry's blob id, their texts are the rendering.
        Anything else renders.
        """
        base = os.fspath(root)

        def branches(stats: DomainStats, config: Config, facts: FactsOf | None) -> dict[str, str]:
            key = _digest(branch_inputs(stats, config, facts))
            entry = self._stored_branches.get(key)
            if _is_branch_entry(entry):
                assert entry is not None
                paths, blobs = entry
                found = _fresh(paths, blobs, clean) if clean is not None else None  # type: ignore[arg-type]
                if found is None:
                    found = _verified(base, paths, blobs)  # type: ignore[arg-type]
                if found is not None:
                    self._used_branches[key] = entry
                    return found
            files = domain_index_files(stats, config, facts)
            paths = sorted(files)
            self._used_branches[key] = [paths, [git_blob_id(files[p].encode("utf-8")) for p in paths]]
            self._new.append(["b", key, self._used_branches[key]])
            self.misses += 1
            return files

        return branches

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
        used_stored = sum(1 for k in self._used if k in self._stored) + \
            sum(1 for k in self._used_branches if k in self._stored_branches)
        unused = self._rows - used_stored
        try:
            if not self._readable or unused > max(256, len(self._used) + len(self._used_branches)):
                rows: list[list[object]] = [["f", k, v] for k, v in self._used.items()]
                rows += [["b", k, v] for k, v in self._used_branches.items()]
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_durably(self.path, self._header() + _lines(rows), sync=False)
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
            os.write(fd, _lines(self._new))
        except OSError:
            pass
        finally:
            os.close(fd)

    def _header(self) -> bytes:
        return json.dumps({"format": FORMAT, "code": self.fingerprint}).encode("ascii") + b"\n"

    def _lookup(self, text: str, estimator: str, blob: str) -> LeafFacts:
        key = f"{estimator}:{blob}"
        entry = self._used.get(key)  # checked already (known_blobs, or made in this run)
        if entry is None:
            entry = self._stored.get(key)
        if entry is None or not _is_entry(entry):
            facts = leaf_facts(text, estimator)
            entry = [facts.tokens, facts.summary, facts.root_summary, facts.heading,
                     len(text.encode("utf-8", "surrogatepass"))]
            self._new.append(["f", key, entry])
            self.misses += 1
        assert entry is not None
        self._used[key] = entry
        tokens, summary, root_summary, heading, _size = entry
        return LeafFacts(tokens, summary, root_summary, heading)  # type: ignore[arg-type]

    def _read(self) -> bool:
        """Load the file's rows; False when it is missing, unreadable or of another format or code."""
        assert self.path is not None
        try:
            head, _, body = self.path.read_bytes().partition(b"\n")
            header = json.loads(head)
        except (OSError, ValueError):
            return False
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("code") != self.fingerprint:
            return False
        body = body.rstrip(b"\n")
        try:  # one parse for the whole file; rows never hold a raw newline (JSON escapes it)
            rows = json.loads(b"[" + body.replace(b"\n", b",") + b"]")
        except ValueError:  # a torn or damaged line (a crash mid-append): keep the lines that parse
            rows = []
            for line in body.split(b"\n"):
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    continue
        for row in rows:
            if isinstance(row, list) and len(row) == 3 and isinstance(row[1], str) and isinstance(row[2], list):
                if row[0] == "f":
                    self._stored[row[1]] = row[2]
                elif row[0] == "b":
                    self._stored_branches[row[1]] = row[2]
                self._rows += 1
        return True


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


def _lines(rows: list[list[object]]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for row in rows).encode("utf-8", "surrogatepass")


def _is_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 5 and isinstance(entry[0], int)
            and isinstance(entry[1], str) and isinstance(entry[2], str) and isinstance(entry[3], str)
            and isinstance(entry[4], int))


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
