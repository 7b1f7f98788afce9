"""A cache of leaf facts (token estimate, summaries) keyed by the leaf's bytes, for the hook.

The pre-commit hook re-renders every index at every commit, and summarizing 1,000 unchanged
leaves costs more than everything else in a run.  A leaf's LeafFacts depend only on its text,
the estimator and the code that derives them, so they are cached under
`blake2b(estimator, text)` in `<git common dir>/bonsai-git/leaf-facts.json`: content-addressed,
so an edited leaf simply misses, and no stat or clock is trusted.  The cache file also records
a fingerprint of the deriving code (the source of tokens.py, summary.py, secretscan.py,
sections.py and indexes.py, and the Python version): after an upgrade, or another engineer's
change to a rule, every entry misses and the cache is rebuilt.  Nothing generated depends on
the cache: with it or without it (`BONSAI_GIT_NO_CACHE=1`) the indexes are the same bytes.

On save only the entries used in this run are kept, so the file stays the size of the tree.
A missing, unreadable or corrupt cache is ignored; a cache that cannot be written is skipped.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .indexes import BranchesOf, DomainStats, FactsOf, LeafFacts, branch_inputs, domain_index_files, leaf_facts
from .tree import Leaf, _read_bytes, write_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .config import Config

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

CACHE_PATH = "bonsai-git/leaf-facts.json"
FORMAT = 2
_DERIVING_MODULES = ("tokens.py", "summary.py", "secretscan.py", "sections.py", "indexes.py", "branches.py")


class FactsCache:
    """LeafFacts by content digest: loaded once per hook run, saved once if anything changed."""

    def __init__(self, path: Path | None) -> None:
        """Open the cache at `path` (None: an in-memory cache that is never saved)."""
        self.path = path
        self.fingerprint = _code_fingerprint()
        self._stored: dict[str, list[object]] = self._load() if path is not None else {}
        self._used: dict[str, list[object]] = {}
        self._stored_branches: dict[str, list[object]] = self._load_branches() if path is not None else {}
        self._used_branches: dict[str, list[object]] = {}
        # {absolute path: bytes} of the index files a memo hit read and verified, so the writer
        # need not read them again (2,700 files at 10,000 leaves).
        self.on_disk: dict[str, bytes] = {}
        self.misses = 0

    def facts_of(self, estimator: str) -> FactsOf:
        """A function Leaf -> LeafFacts for `estimator` that reads and fills this cache."""
        memo: dict[Leaf, LeafFacts] = {}

        def facts(leaf: Leaf) -> LeafFacts:
            found = memo.get(leaf)
            if found is None:
                found = memo[leaf] = self._lookup(leaf.text, estimator)
            return found

        return facts

    def branches_of(self, root: Path) -> BranchesOf:
        """A memo of `domain_index_files` for the workspace at `root`: same bytes, less work.

        Keyed by a digest of everything a domain's index files depend on (`branch_inputs`, and
        the code fingerprint of the whole cache); the entry is the files' paths and a digest of
        their bytes.  On a hit whose files on disk still have that digest, the disk's texts are
        the rendering (they are what this code renders from these inputs); otherwise it renders.
        """
        def branches(stats: DomainStats, config: Config, facts: FactsOf | None) -> dict[str, str]:
            key = _digest(branch_inputs(stats, config, facts))
            entry = self._stored_branches.get(key)
            if _is_branch_entry(entry):
                assert entry is not None
                raw = _read_all(root, entry[0])  # type: ignore[arg-type]
                texts = None if raw is None else {p: data.decode("utf-8") for p, data in raw.items()}
                if texts is not None and _digest("\0".join(f"{p}\0{t}" for p, t in texts.items())) == entry[1]:
                    assert raw is not None
                    self._used_branches[key] = entry
                    base = os.fspath(root)
                    self.on_disk.update((os.path.join(base, p), data) for p, data in raw.items())
                    return texts
            files = domain_index_files(stats, config, facts)
            self._used_branches[key] = [sorted(files), _digest("\0".join(f"{p}\0{files[p]}" for p in sorted(files)))]
            self.misses += 1
            return files

        return branches

    def save(self) -> None:
        """Write the used entries back when the run added or dropped any; never raises OSError."""
        if self.path is None or (not self.misses and len(self._used) == len(self._stored)
                                 and len(self._used_branches) == len(self._stored_branches)):
            return
        data = json.dumps({"format": FORMAT, "code": self.fingerprint, "facts": self._used,
                           "branches": self._used_branches},
                          ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, data.encode("utf-8"), sync=False)
        except OSError:
            pass  # a read-only git dir: the next run recomputes, nothing else changes

    def _lookup(self, text: str, estimator: str) -> LeafFacts:
        key = blake2b(f"{estimator}\0{text}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        entry = self._stored.get(key)
        if not _is_entry(entry):
            facts = leaf_facts(text, estimator)
            entry = [facts.tokens, facts.summary, facts.root_summary]
            self.misses += 1
        assert entry is not None
        self._used[key] = entry
        tokens, summary, root_summary = entry
        return LeafFacts(tokens, summary, root_summary)  # type: ignore[arg-type]

    def _load(self) -> dict[str, list[object]]:
        self._data = self._read()
        facts = self._data.get("facts")
        return facts if isinstance(facts, dict) else {}

    def _load_branches(self) -> dict[str, list[object]]:
        branches = self._data.get("branches")
        return branches if isinstance(branches, dict) else {}

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


def _is_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int)
            and isinstance(entry[1], str) and isinstance(entry[2], str))


def _digest(text: str) -> str:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _is_branch_entry(entry: object) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)
            and all(isinstance(p, str) for p in entry[0]) and isinstance(entry[1], str))


def _read_all(root: Path, paths: list[str]) -> dict[str, bytes] | None:
    """{path: bytes} of workspace-relative `paths` under `root` (UTF-8), or None if one is missing or not UTF-8."""
    out = {}
    base = os.fspath(root)
    for path in paths:
        try:
            data = _read_bytes(os.path.join(base, path))
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        out[path] = data
    return out
