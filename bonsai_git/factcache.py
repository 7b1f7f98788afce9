"""A cache of leaf facts (tokens, heading, summaries) keyed by the leaf's git blob id, for the hook.

The pre-commit hook re-renders every index at every commit, and summarizing 1,000 unchanged
leaves costs more than everything else in a run.  A leaf's LeafFacts depend only on its bytes,
the estimator and the code that derives them, so they are cached under `estimator:blob id`
(git's own SHA-1 of the bytes, `git hash-object` without conversion) in
`<git common dir>/bonsai-git/leaf-facts.json`: content-addressed, so an edited leaf simply
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
depend on (`indexes.branch_inputs`), the rendered texts themselves, so an unchanged domain is
neither rendered nor read from disk.

On save only the entries used in this run are kept, so the file stays the size of the tree.
A missing, unreadable or corrupt cache is ignored; a cache that cannot be written is skipped.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from .indexes import BranchesOf, DomainStats, FactsOf, LeafFacts, branch_inputs, domain_index_files, leaf_facts
from .tree import Leaf, git_blob_id, write_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .config import Config

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

CACHE_PATH = "bonsai-git/leaf-facts.json"
FORMAT = 3
_DERIVING_MODULES = ("tokens.py", "summary.py", "secretscan.py", "sections.py", "indexes.py", "branches.py")


class FactsCache:
    """LeafFacts by blob id and index files by their inputs: loaded once per run, saved once if anything changed."""

    def __init__(self, path: Path | None) -> None:
        """Open the cache at `path` (None: an in-memory cache that is never saved)."""
        self.path = path
        self.fingerprint = _code_fingerprint()
        self._data: dict[str, object] = self._read() if path is not None else {}
        self._stored: dict[str, list[object]] = _section(self._data, "facts")
        self._used: dict[str, list[object]] = {}
        self._stored_branches: dict[str, list[object]] = _section(self._data, "branches")
        self._used_branches: dict[str, list[object]] = {}
        self.misses = 0

    def known_blobs(self, estimator: str, candidates: Mapping[str, tuple[str, int]]) -> dict[str, str]:
        """{leaf path: blob id} of the `candidates` ({leaf path: (blob id in git's index, size on
        disk now)}, each a leaf git reports unchanged) whose facts are cached for `estimator` from
        bytes of that blob id and that size: those leaves need not be read."""
        out = {}
        for path, (blob, size) in candidates.items():
            entry = self._stored.get(f"{estimator}:{blob}")
            if _is_entry(entry) and entry[4] == size:  # type: ignore[index]
                out[path] = blob
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

    def branches_of(self, root: Path) -> BranchesOf:
        """A memo of `domain_index_files` (for the workspace at `root`): the same texts, less work.

        Keyed by a digest of everything a domain's index files depend on (`branch_inputs`, and
        the code fingerprint of the whole cache); the entry is the files' paths and texts.
        """
        def branches(stats: DomainStats, config: Config, facts: FactsOf | None) -> dict[str, str]:
            key = _digest(branch_inputs(stats, config, facts))
            entry = self._stored_branches.get(key)
            if _is_branch_entry(entry):
                assert entry is not None
                self._used_branches[key] = entry
                return dict(zip(entry[0], entry[1]))  # type: ignore[call-overload]
            files = domain_index_files(stats, config, facts)
            paths = sorted(files)
            self._used_branches[key] = [paths, [files[p] for p in paths]]
            self.misses += 1
            return files

        return branches

    def save(self) -> None:
        """Write the used entries back when the run added or dropped any; never raises OSError."""
        if self.path is None or (not self.misses and len(self._used) == len(self._stored)
                                 and len(self._used_branches) == len(self._stored_branches)):
            return
        data = json.dumps({"format": FORMAT, "code": self.fingerprint, "facts": self._used,
                           "branches": self._used_branches}, ensure_ascii=False, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, data.encode("utf-8", "surrogatepass"), sync=False)
        except OSError:
            pass  # a read-only git dir: the next run recomputes, nothing else changes

    def _lookup(self, text: str, estimator: str, blob: str) -> LeafFacts:
        key = f"{estimator}:{blob}"
        entry = self._stored.get(key) or self._used.get(key)
        if not _is_entry(entry):
            facts = leaf_facts(text, estimator)
            entry = [facts.tokens, facts.summary, facts.root_summary, facts.heading,
                     len(text.encode("utf-8", "surrogatepass"))]
            self.misses += 1
        assert entry is not None
        self._used[key] = entry
        tokens, summary, root_summary, heading, _size = entry
        return LeafFacts(tokens, summary, root_summary, heading)  # type: ignore[arg-type]

    def _read(self) -> dict[str, object]:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("code") != self.fingerprint:
            return {}
        return data


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


def _section(data: dict[str, object], name: str) -> dict[str, list[object]]:
    found = data.get(name)
    return found if isinstance(found, dict) else {}


def _is_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 5 and isinstance(entry[0], int)
            and isinstance(entry[1], str) and isinstance(entry[2], str) and isinstance(entry[3], str)
            and isinstance(entry[4], int))


def _digest(text: str) -> str:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _is_branch_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)
            and isinstance(entry[1], list) and len(entry[0]) == len(entry[1])
            and all(isinstance(p, str) for p in entry[0]) and all(isinstance(t, str) for t in entry[1]))
