"""The memory tree of a workspace: where things live, the trunk's markers, and reading leaves.

Layout (DESIGN.md §2): the trunk `MEMORY.md`; leaves `memory/domains/<domain>/<name>.md`, where
<name> may hold sub-folders (`projects/alpha.md` is a leaf of domain `projects`'s parent, never a
domain of its own); branch indexes `memory/domains/<domain>/_index.md`; the root index
`memory/_index.md`; single-file domains such as `memory/dates.md`.  Files under `memory/archive/`,
daily notes `memory/YYYY-MM-DD.md`, non-`.md` files and names starting with `_` or `.` are not
leaves.  The pure helpers parse paths and the trunk; `read_leaves` is the only I/O.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .config import SINGLE_FILE_DOMAINS
from .errors import BadInput

TRUNK = "MEMORY.md"
MEMORY_DIR = "memory"
DOMAINS_DIR = "memory/domains"
ROOT_INDEX = "memory/_index.md"
INDEX_NAME = "_index.md"
BEGIN_PREFIX = "<!-- bonsai:begin"
# The rendered begin line is BEGIN + " #<crc32 of the block body> -->" (indexes.py); any line
# starting with BEGIN_PREFIX is read as a begin marker, so older trunks' longer line still pairs.
BEGIN = "<!-- bonsai:begin generated"
END = "<!-- bonsai:end -->"
_BEGIN_LINE = re.compile(r"^<!-- bonsai:begin\b[^\n]*$", re.M)
_END_LINE = re.compile(r"^<!-- bonsai:end -->[ \t]*\r?$", re.M)
_CONFLICT_START = re.compile(r"^<{7}(?: |\r?$)", re.M)


@dataclass(frozen=True, slots=True)
class Leaf:
    """A leaf: its domain, its name inside the domain folder (posix, with `.md`), and its text.

    For a single-file domain (`dates`) the name is the file's path under `memory/`.
    """

    domain: str
    name: str
    text: str

    @property
    def path(self) -> str:
        """Workspace-relative posix path of the leaf file."""
        single = SINGLE_FILE_DOMAINS.get(self.domain)
        if single is not None and self.name == PurePosixPath(single).name:
            return single
        return f"{DOMAINS_DIR}/{self.domain}/{self.name}"

    @property
    def stem(self) -> str:
        """The leaf's name without `.md` (sub-folders kept)."""
        return self.name[:-3] if self.name.endswith(".md") else self.name


@dataclass(frozen=True, slots=True)
class TrunkParts:
    """The trunk cut at its markers: user text before, generated block, inbox after.

    `pinned + block + inbox == trunk text`.  `newline` is the block's line ending.
    """

    pinned: str
    block: str
    inbox: str
    newline: str


def parse_trunk(text: str) -> TrunkParts | None:
    """Cut trunk text at the bonsai markers; None when it has no complete marker pair.

    The block is the first end-marker line that has a begin-marker line before it, paired with
    the *last* begin line before it: a begin-like line quoted in the user's pinned text (in a
    code fence, say) therefore never swallows the text after it.
    """
    begins = [m for m in _BEGIN_LINE.finditer(text)]
    if not begins:
        return None
    begin = end = None
    for candidate in _END_LINE.finditer(text):
        before = [b for b in begins if b.end() <= candidate.start()]
        if before:
            begin, end = before[-1], candidate
            break
    if begin is None or end is None:
        return None
    stop = end.end()
    if text.startswith("\r\n", stop):
        stop += 2
    elif text.startswith("\n", stop):
        stop += 1
    newline = "\r\n" if text[begin.start() : begin.end()].endswith("\r") else "\n"
    return TrunkParts(text[: begin.start()], text[begin.start() : stop], text[stop:], newline)


def is_migrated(text: str) -> bool:
    """True when the trunk text already carries a bonsai begin/end marker pair."""
    return parse_trunk(text) is not None


@functools.lru_cache(maxsize=1 << 17)  # pure, and asked several times per leaf by status (60,000 leaves)
def leaf_location(path: str) -> tuple[str, str] | None:
    """(domain, name) for a workspace-relative path that is a leaf, else None.

    Not leaves: index files, non-`.md` files, names or folders starting with `_` or `.`,
    anything outside `memory/domains/` except the single-file domains.
    """
    for domain, single in SINGLE_FILE_DOMAINS.items():
        if path == single:
            return domain, PurePosixPath(single).name
    if not path.endswith(".md") or path.startswith("/"):
        return None
    # str.split, not PurePosixPath: this runs for every leaf at every commit (the hook's hot path).
    parts = path.split("/")
    if "" in parts or "." in parts:
        parts = [p for p in parts if p and p != "."]
    if len(parts) < 4 or parts[0] != "memory" or parts[1] != "domains":
        return None
    for part in parts[2:]:
        if part.startswith((".", "_")):
            return None
    return parts[2], "/".join(parts[3:])


def leaf_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """The leaf paths among workspace-relative paths, sorted."""
    return tuple(sorted(p for p in set(paths) if leaf_location(p) is not None))


def find_conflict_marker(text: str) -> int | None:
    """1-based line of the first git merge-conflict start line (`<<<<<<< ...`) in `text`, or None.

    Only the start line counts: a lone `=======` is a setext underline and a `>>>>>>>` line a
    deeply nested quote, both ordinary Markdown; `<<<<<<<` at a line start is never written by hand.
    """
    if "<<<<<<<" not in text:
        return None  # the common case, found without running the line regex (hook's hot path)
    m = _CONFLICT_START.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def remove_empty_folders(folder: Path, stop: Path) -> None:
    """Remove `folder` and then its parents while they are empty, never `stop` or anything above it."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone): leave it and everything above
            return
        folder = folder.parent


def has_symlink_between(root: Path, path: str) -> str | None:
    """The first component of workspace-relative `path` (parents and the file) that is a symlink, else None.

    Writing through a symlinked folder would put memory outside the repository (or where git
    cannot add it), so writers refuse such paths.
    """
    current = root
    for part in PurePosixPath(path).parts:
        current = current / part
        if current.is_symlink():
            return current.relative_to(root).as_posix()
    return None


def decode_utf8(data: bytes, name: str) -> str:
    """Decode `data` as strict UTF-8; BadInput names `name` and the first bad byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{name}: not valid UTF-8 at byte offset {exc.start}; save it as UTF-8 and retry") from None


def read_leaves(workspace: Path, paths: Iterable[str]) -> tuple[Leaf, ...]:
    """Read the given leaf paths (workspace-relative) into Leaf records, sorted by path.

    Raises BadInput for a leaf that is not UTF-8 or holds merge-conflict markers.
    """
    root = os.fspath(workspace)
    wanted = sorted(p for p in set(paths) if leaf_location(p) is not None)
    return leaves_from_bytes((path, _read_bytes(os.path.join(root, path), path)) for path in wanted)


def leaves_from_bytes(files: Iterable[tuple[str, bytes]]) -> tuple[Leaf, ...]:
    """Leaf records of `(workspace-relative leaf path, bytes)` pairs already read, in the given order.

    Raises BadInput for a leaf that is not UTF-8 or holds merge-conflict markers (as read_leaves).
    """
    leaves = []
    for path, data in files:
        location = leaf_location(path)
        if location is None:
            continue
        text = decode_utf8(data, path)
        line = find_conflict_marker(text)
        if line is not None:
            raise BadInput(f"{path}:{line}: merge-conflict marker; resolve the conflict, then commit again")
        leaves.append(Leaf(location[0], location[1], text))
    return tuple(leaves)


class NotRegularFile(BadInput):
    """A path to read is a FIFO, a device, a socket or a folder (exit 3): reading it could hang or never end."""


def read_regular(path: Path | str, name: str | None = None) -> bytes:
    """The bytes of the regular file at `path` (a symlink to one is followed).

    Anything else is refused before a byte is read: NotRegularFile (BadInput, exit 3) naming
    `name` (default: the path); a folder raises IsADirectoryError, as open() does.  Opened with
    O_NONBLOCK, so a FIFO never blocks the open, and checked with fstat on the open descriptor,
    so nothing can swap the file in between (a FIFO for MEMORY.md made the hook and status
    hang).  FileNotFoundError when absent.
    """
    return _read_bytes(os.fspath(path), name)


def read_regular_or_none(path: Path | str) -> bytes | None:
    """`read_regular`'s bytes, or None when the path is absent, not a regular file or unreadable."""
    try:
        return _read_bytes(os.fspath(path))
    except (OSError, BadInput):
        return None


def _read_bytes(path: str, name: str | None = None) -> bytes:
    """A file's bytes through os.open/os.read: 3x cheaper than open() per small file (the hook reads every leaf).

    Refuses anything but a regular file (see read_regular).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):  # as open() would say: callers treat a folder like a missing file
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{name or path}: is not a regular file (a FIFO, device, socket or folder); "
                                 "bonsai-git reads regular files only. Replace it with a file")
        data = os.read(fd, 1 << 16)
        if len(data) < 1 << 16:  # a short read of a regular file is its end
            return data
        chunks = [data]
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def walk_leaf_paths(workspace: Path) -> tuple[str, ...]:
    """Every leaf path on disk under the workspace's memory/ folder (not following symlinks)."""
    root = workspace / MEMORY_DIR
    if not root.is_dir():
        return ()
    found = (p.relative_to(workspace).as_posix() for p in root.rglob("*.md") if p.is_file() and not p.is_symlink())
    return leaf_paths(found)


def write_durably(path: Path, data: bytes, *, sync: bool = True, exclusive: bool = False) -> None:
    """Write `data` to `path` atomically: temp file in the same folder, then os.replace.

    A reader never sees a half-written file; after a crash the file is either old or new.  The
    file keeps its permission bits (a new one gets 0o666 less the umask, as open() would give).
    With `sync` (default) the file and its folder are fsynced too; a caller writing many files
    passes sync=False and makes one `sync_barrier()` after the last (352 fsyncs cost 1.1 s on
    the 25k-token corpus file; one barrier costs ~25 ms).  `exclusive`: `path` must not exist
    and is created in place (FileExistsError otherwise), ~5x cheaper than temp file + rename
    (10,000 new leaves: 0.3 s instead of 1.6 s); only for a caller whose crash journal lists
    the new path, since a crash can leave it half-written (recovery deletes it).
    """
    if exclusive:
        with open(path, "xb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        return
    import tempfile  # not at import time: a no-op pre-commit hook run never writes

    fd, tmp = tempfile.mkstemp(prefix=".bonsai-", dir=path.parent)
    try:
        os.fchmod(fd, _mode_for(path))  # mkstemp makes 0600: MEMORY.md must keep its own mode
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if sync:
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _mode_for(path: Path) -> int:
    """The permission bits `path` has now, or a new file's (0o666 less the umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


def sync_barrier() -> None:
    """Flush every file written so far to stable storage (one os.sync for a batch of writes)."""
    os.sync()
