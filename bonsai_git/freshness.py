"""Remember the trees the hook found fresh, by what git's index says about them, so a no-op
hook run reads no leaf at all.

The hook's `git ls-files -s -t --modified` already names, for every tracked path under a
workspace, its blob id in git's index, and tags the paths whose work tree differs from it (`C`)
after git's own stat check (racy entries are re-hashed by git).  When no path of a workspace
differs, its memory tree is exactly what those blob ids say, so a digest of (the listing of the
workspace's paths with their blob ids and modes, its `.bonsai.toml` bytes, the code version) names
its whole input (with the `.gitattributes` files above the workspace and the repository's and the
user's git config, read whole: they decide attribute refusals and line-ending comparisons; the
system config is not covered).  After a full run that found the workspace fresh and printed nothing, the hook
remembers that digest; a later run with the same digest skips the workspace: same input, same
(fresh) verdict.  At 1,000 leaves this saves reading them (the floor of any hook that reads
them); in a fleet of 9 x 1,000 leaves it saves reading 9,000.

Not eligible (always a full run): a workspace with a path whose work tree differs from the index
(`C`, deletions included), an unmerged or skip-worktree path, or an untracked file where it
would be a leaf or a generated file (`memory/domains/`, `memory/_index.md`, a single-file domain).
Untracked files elsewhere under `memory/` (daily notes) are named in the digest, not read.
`BONSAI_GIT_NO_CACHE=1` turns the memo off.  The memo lives in `<git common dir>/bonsai-git/fresh`
(one hex digest per line, the newest 512 kept); a missing or unreadable file means a full run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

MEMO_PATH = "bonsai-git/fresh"
KEEP = 512
CONFIG_NAME = ".bonsai.toml"
# Workspace-relative places where an untracked file would change what the hook writes.
_UNTRACKED_MATTERS = ("memory/domains/", "memory/_index.md", "memory/dates.md")


class FreshMemo:
    """Digests of workspaces a full hook run found fresh; loaded once, saved once if it grew."""

    def __init__(self, path: Path | None) -> None:
        """Open the memo at `path` (None: remember nothing)."""
        self.path = path
        self._known: dict[str, None] = {}  # insertion-ordered set: oldest first
        self._added = False
        if path is not None:
            try:
                self._known = dict.fromkeys(path.read_text(encoding="ascii").split())
            except (OSError, ValueError):
                pass

    def holds(self, digest: str | None) -> bool:
        """True when `digest` names a tree already found fresh."""
        return digest is not None and digest in self._known

    def remember(self, digest: str | None) -> None:
        """Record `digest` (a tree just found fresh); None is ignored."""
        if digest is None or self.path is None or digest in self._known:
            return
        self._known[digest] = None
        self._added = True

    def save(self) -> None:
        """Write the memo back if it grew; never raises OSError (a read-only git dir skips it)."""
        if not self._added or self.path is None:
            return
        from .tree import write_durably

        text = "".join(f"{d}\n" for d in list(self._known)[-KEEP:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_durably(self.path, text.encode("ascii"), sync=False)
        except OSError:
            pass


def open_memo(git_common_dir: Path | None) -> FreshMemo:
    """The hook's memo under `git_common_dir`, or one that remembers nothing when None or disabled by env."""
    if git_common_dir is None or os.environ.get("BONSAI_GIT_NO_CACHE"):
        return FreshMemo(None)
    return FreshMemo(git_common_dir / MEMO_PATH)


def workspace_digest(root: Path, tracked: Iterable[str], untracked: Iterable[str], dirty: Iterable[str],
                     stage_info: Mapping[str, str], settings: Iterable[Path] = ()) -> str | None:
    """The digest naming a workspace's whole input, or None when it is not eligible (module docstring).

    Paths are workspace-relative: `tracked` (index entries, tag `H`), `untracked`, `dirty` (work
    tree differs from the index, or an unmerged/skip-worktree entry); `stage_info` maps each
    tracked path to "mode blob-id" as `git ls-files -s` prints it.  `settings`: files outside the
    listing whose bytes bear on the verdict (`.gitattributes` above the workspace, git config);
    each one's bytes, or its absence, enter the digest.
    """
    if any(True for _ in dirty):
        return None
    h = blake2b(digest_size=16)
    if not _hash_settings(h, root, settings):
        return None
    for path in sorted(set(tracked)):
        info = stage_info.get(path)
        if info is None:
            return None
        h.update(f"H {info} {path}\0".encode("utf-8", "surrogateescape"))
    for path in sorted(set(untracked)):
        if path.startswith(_UNTRACKED_MATTERS):
            return None
        h.update(f"? {path}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def settings_digest(root: Path, settings: Iterable[Path] = ()) -> str | None:
    """A digest of everything but the listing that `workspace_digest` covers: the code version,
    `.bonsai.toml` and the `settings` files' bytes (or absence); None when one is unreadable."""
    h = blake2b(digest_size=16)
    return h.hexdigest() if _hash_settings(h, root, settings) else None


def _hash_settings(h: "blake2b", root: Path, settings: Iterable[Path]) -> bool:
    from .core.errors import BadInput
    from .tree import SETTINGS_LIMIT, NotRegularFile, read_bounded

    h.update(_code_version().encode())
    # Regular files of bounded size only: a FIFO or a symlink to /dev/zero as `.bonsai.toml` made the
    # hook block or read without end (issue 21 §5).  Such a file is no verdict here: load_config refuses it.
    try:
        h.update(b"config\0" + read_bounded(root / CONFIG_NAME, CONFIG_NAME, SETTINGS_LIMIT) + b"\0")
    except FileNotFoundError:
        h.update(b"no config\0")
    except (OSError, BadInput):
        return False
    for number, setting in enumerate(settings):  # by position: the same file may be named by another path
        try:
            h.update(b"%d\0%s\0" % (number, read_bounded(setting, str(setting), SETTINGS_LIMIT)))
        except FileNotFoundError:
            h.update(b"%d\0absent\0" % number)
        except NotRegularFile:  # GIT_CONFIG_GLOBAL=/dev/null, say: git reads nothing there, nor do we
            h.update(b"%d\0not a file\0" % number)
        except (OSError, BadInput):
            return False
    return True


_VERSION: list[str] = []


def _code_version() -> str:
    """The Python version and each module's (name, size, mtime) of this package: any code change misses."""
    if not _VERSION:
        parts = [sys.version]
        here = os.path.dirname(__file__)
        for folder in (here, os.path.join(here, "core")):  # the pure modules (rules, renderers) live in core/
            with os.scandir(folder) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        parts.append(f"{os.path.relpath(entry.path, here)}:{st.st_size}:{st.st_mtime_ns}")
        _VERSION.append("|".join(parts))
    return _VERSION[0]
