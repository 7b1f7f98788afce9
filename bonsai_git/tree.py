"""Reading and writing the memory tree's files: leaves, regular files only, durable and checked writes.

The layout itself (names, markers, leaf paths, Leaf records) is pure and lives in core/layout.py;
this module does the I/O: `read_leaves`, `read_regular`, `walk_leaf_paths`, `write_durably`,
`CheckedWriter` (replacing files another process may be writing), fsync helpers.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .core.errors import BadInput, ConcurrentWrite
from .core.layout import MEMORY_DIR, TRUNK as MEMORY_FILE, Leaf, is_migrated, leaf_location, leaf_paths, leaves_from_bytes

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


def read_leaves(workspace: Path, paths: Iterable[str], reads: Reads | None = None) -> tuple[Leaf, ...]:
    """Read the given leaf paths (workspace-relative) into Leaf records, sorted by path.

    `reads`: the run's one read of the truth (Reads), which records each leaf's bytes.  Raises
    BadInput for a leaf whose name could not be written into an index (check_file_name), that
    is not UTF-8, or that holds merge-conflict markers.
    """
    root = os.fspath(workspace)
    wanted = sorted(p for p in set(paths) if leaf_location(p) is not None)
    if reads is not None:
        return leaves_from_bytes((path, reads.read(path, path)) for path in wanted)
    return leaves_from_bytes((path, _read_bytes(os.path.join(root, path), path)) for path in wanted)


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


# The most a settings file (`.bonsai.toml`, `.gitattributes`, a git config) or a plan file may hold:
# far above any real one, and a bound on what a file swapped for something huge makes us read.
SETTINGS_LIMIT = 1 << 20  # bytes
PLAN_LIMIT = 64 << 20  # bytes: a plan lists one short entry per section


class TooLarge(BadInput):
    """An input file is larger than its documented bound (exit 3): never read to its end."""


def read_bounded(path: Path | str, name: str, limit: int) -> bytes:
    """The bytes of the regular file at `path`, refused unless it holds at most `limit` bytes.

    As read_regular (a FIFO, a device such as a symlink to /dev/zero, a socket: NotRegularFile,
    exit 3, before a byte is read; FileNotFoundError when absent), and TooLarge (exit 3) naming
    `name` when fstat or the read itself finds more than `limit` bytes: a file that grows while
    it is read is never read without end (issue 21 §5).
    """
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{name}: is not a regular file (a FIFO, device, socket or folder); "
                                 "bonsai-git reads regular files only. Replace it with a file")
        chunks: list[bytes] = []
        size = 0
        while size <= limit and st.st_size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise TooLarge(f"{name}: larger than {limit:,} bytes, more than such a file ever holds; replace it with "
                       "the real file")
    finally:
        os.close(fd)


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
    """Every leaf path on disk under the workspace's memory/ folder (walk_files: no symlink followed,
    no submodule, nested repository or nested workspace entered)."""
    found = (p for p in walk_files(workspace, MEMORY_DIR, symlinks=False) if p.endswith(".md"))
    return leaf_paths(found)


def is_foreign_folder(folder: str) -> bool:
    """True when the folder at path `folder` belongs to someone else: it holds `.git` (a submodule,
    whose `.git` is a file, or a nested repository) or a migrated `MEMORY.md` (a nested workspace:
    its tree is its own, never the outer workspace's leaves or indexes).

    Every walk of a memory tree stops there: flatten once took a submodule's `.md` files for
    leaves and deleted them from its work tree (issue 21 §3, §5).
    """
    if os.path.lexists(os.path.join(folder, ".git")):
        return True
    trunk = os.path.join(folder, MEMORY_FILE)
    if not os.path.lexists(trunk):
        return False
    data = read_regular_or_none(trunk)
    return data is not None and is_migrated(data.decode("utf-8", "replace"))


def walk_files(workspace: Path, folder: str, *, symlinks: bool = True) -> list[str]:
    """Workspace-relative paths of the regular files (and, with `symlinks`, the symlinks) under
    `folder` (workspace-relative), sorted.  Symlinked folders are not followed; foreign folders
    (is_foreign_folder) are not entered."""
    found: list[str] = []
    base = os.path.join(os.fspath(workspace), folder)
    if os.path.isdir(base) and not os.path.islink(base):
        _walk_into(base, folder, found, symlinks)
    return sorted(found)


def _walk_into(folder: str, relative: str, found: list[str], symlinks: bool) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if not is_foreign_folder(entry.path):
                _walk_into(entry.path, f"{relative}/{entry.name}", found, symlinks)
        elif entry.is_file(follow_symlinks=False) or (symlinks and entry.is_symlink()):
            found.append(f"{relative}/{entry.name}")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A file's former bytes known by their length and SHA-256, not held: CheckedWriter's `expected`
    for a large file (a 50 MB MEMORY.md's bytes were 1x the input on top of the migration's peak,
    issue 15).  Comparing a file with it reads the file 1 MiB at a time."""

    length: int
    digest: bytes

    @classmethod
    def of(cls, data: bytes | memoryview) -> Fingerprint:
        """The fingerprint of `data`."""
        return cls(len(data), hashlib.sha256(data).digest())


_CHUNK = 1 << 20  # reads of large files, 1 MiB at a time


def copy_durably(source: Path, target: Path) -> Fingerprint:
    """Copy the regular file `source` to the new file `target` (O_EXCL, fsynced), 1 MiB at a time,
    and return the Fingerprint of exactly the bytes copied (one read: a writer changing `source`
    meanwhile cannot make the copy and the fingerprint disagree).  NotRegularFile when `source` is
    not a regular file (a symlink is not followed); FileExistsError when `target` exists."""
    fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{source}: is not a regular file; bonsai-git replaces regular files only")
        digest, length = hashlib.sha256(), 0
        with open(target, "xb") as out:
            while chunk := os.read(fd, _CHUNK):
                out.write(chunk)
                digest.update(chunk)
                length += len(chunk)
            out.flush()
            os.fsync(out.fileno())
    finally:
        os.close(fd)
    return Fingerprint(length, digest.digest())


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
    fd, tmp = _temp_beside(path)
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


# --- one read of the truth per run -------------------------------------------------------------

class Reads:
    """The bytes one run read, by workspace-relative path: the one read its plan is made from and
    its checked writer later compares each file with (issue 21).

    Reading a file to plan and then again as the "prior bytes" to check against leaves a window:
    an agent's append landing between the two reads is in neither the plan nor the check, and is
    lost with exit 0.  So a command reads every file it plans from through one Reads (`read`,
    `read_or_none`; `note` records what it read by other means, e.g. a Fingerprint of a large
    file), and transaction.apply_changes takes each changed path's prior bytes from it (`prior`):
    anything written since the plan's read is caught at the swap (ConcurrentWrite, exit 1) or
    carried, never overwritten.  A path is read once: asking again gives the same answer.
    `others_absent`: every path not read is known to be absent (migrate: the preconditions proved
    nothing sits where the plan writes); otherwise `prior` of a path never read is a bug.
    """

    def __init__(self, root: Path, *, others_absent: bool = False) -> None:
        self.root = root
        self.others_absent = others_absent
        self._seen: dict[str, bytes | Fingerprint | None] = {}

    def read(self, rel: str, name: str | None = None) -> bytes:
        """The bytes of the regular file at `rel` (read_regular's rules; `name` for its messages), read
        once; FileNotFoundError (recorded as absent) when there is none."""
        if rel in self._seen:
            data = self._seen[rel]
            if data is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(self.root / rel))
            if isinstance(data, Fingerprint):
                raise ValueError(f"{rel}: only its fingerprint was kept")  # a bug: the caller read it whole before
            return data
        try:
            data = _read_bytes(os.path.join(os.fspath(self.root), rel), name)
        except (FileNotFoundError, NotADirectoryError):
            self._seen[rel] = None
            raise
        self._seen[rel] = data
        return data

    def read_or_none(self, rel: str) -> bytes | None:
        """`read`'s bytes, or None (recorded as absent) when `rel` is absent or a folder."""
        try:
            return self.read(rel)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            self._seen[rel] = None
            return None

    def note(self, rel: str, data: bytes | Fingerprint | None) -> None:
        """Record what the run read at `rel` by other means (None: absent); the first record stands."""
        self._seen.setdefault(rel, data)

    def knows(self, rel: str) -> bool:
        """True when the run read (or noted) `rel`."""
        return rel in self._seen

    def prior(self, rel: str) -> bytes | Fingerprint | None:
        """What `rel` held when the run read it (None: absent).  A path never read is absent under
        `others_absent`, else LookupError: the plan would be checked against bytes it was not made from."""
        if rel in self._seen:
            return self._seen[rel]
        if self.others_absent:
            return None
        raise LookupError(f"{rel}: changed by a plan that never read it (a bug)")


# --- replacing files another process may be writing --------------------------------------------

RESCUE_SUFFIX = ".bonsai-kept"


@dataclass
class _Watch:
    """A file this run replaced or deleted: an open fd on the inode it replaced, and what it held."""

    path: Path
    name: str
    fd: int
    expected: bytes | Fingerprint
    data: bytes | None  # what we put at `path` (None: deleted)


class CheckedWriter:
    """Replace files only while they still hold the bytes the run read, and prove it afterwards.

    An agent may write MEMORY.md, a leaf or an index at any instant.  Comparing the file with
    what the run read and then renaming a temp file over it leaves a window between the two in
    which an append would be thrown away.  So each replacement (`write`, `delete`):

    1. writes the new bytes to a temp file first (the slow part), then opens the file being
       replaced and compares its bytes with `expected` right before the rename: a difference
       raises ConcurrentWrite (exit 1) naming the file, which is left as the other writer left it;
    2. keeps that open fd on the replaced inode: a writer that opened the file before the rename
       still writes into that inode, not into ours.  Right after the rename, and again in
       `finish()` (after the rest of the run, which gives a late writer time to land), the old
       inode is read back.  Bytes appended to it (old bytes + X) are carried: X is appended to
       the file we wrote (for MEMORY.md that is after the end marker, where new memories go).
       Any other change to it (a rewrite) is put back in place of ours, or when ours is gone
       too, kept next to it as `<name>.bonsai-kept`, and ConcurrentWrite is raised.

    The swap itself is an atomic exchange (renameat2 RENAME_EXCHANGE, where Linux offers it),
    so a writer that replaced the file by a rename of its own (an editor's atomic save) between
    the check and the swap gets its file put back, and ConcurrentWrite.  Paths are given
    relative to `root` and shown as given.  Always call `close()` (or `finish()`), e.g. in a
    finally block.  A writer that opens a file and writes to it only after `finish()` ran is
    beyond reach (it writes into a file no longer in the tree; no tool that replaces files
    atomically can see that): the README states the guarantee for writes that complete before
    the command ends.
    """

    WRITER_WAIT = 2.0  # seconds finish() waits for writers still holding a replaced file open

    def __init__(self, root: Path) -> None:
        self.root = root
        self.watches: list[_Watch] = []
        self.carried: list[str] = []

    def write(self, rel: str, data: bytes, expected: bytes | Fingerprint | None, *, sync: bool = True,
              carry_appends: bool = False) -> None:
        """Write `data` at workspace-relative `rel`, which must hold `expected` now (None: must not exist;
        a Fingerprint: bytes of that length and SHA-256, so a large file's old bytes need not be held).

        `carry_appends`: a file that holds `expected` + more (text appended since it was read) is
        replaced too, and that text carried after `data` (a restore uses this: a writer appending
        in a tight loop would otherwise make every attempt fail).
        """
        path = self.root / rel
        if expected is None and not sync:
            self._create(path, rel, data)
            return
        fd, tmp = _temp_beside(path)
        try:
            os.fchmod(fd, _mode_for(path))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if sync:
                    fh.flush()
                    os.fsync(fh.fileno())
            if expected is None:
                try:
                    os.link(tmp, path)  # atomic and exclusive: never over a file someone just made
                except FileExistsError:
                    raise self._changed(rel, "was created") from None
            else:
                self._replace(path, rel, tmp, expected, data, carry_appends)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if sync:
            fsync_folder(path.parent)

    def _create(self, path: Path, rel: str, data: bytes) -> None:
        """A new file that needs no durability (a generated index: rebuilt from the leaves at any
        time), created in place: O_CREAT|O_EXCL is as exclusive as the temp file + link (a file
        someone just made, or a symlink, is never written through: ConcurrentWrite), at one open
        instead of a temp file, a link and an unlink.  A crash mid-write leaves a short index,
        which the next run finds stale and rewrites."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags, 0o666)  # the umask applies, as open() gives a new file
        except FileExistsError:
            raise self._changed(rel, "was created") from None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)  # ours alone: created exclusively a moment ago
            raise
        os.close(fd)

    def _replace(self, path: Path, rel: str, tmp: str, expected: bytes | Fingerprint, data: bytes,
                 carry_appends: bool) -> None:
        with self._watched(path, rel, expected, data, carry_appends) as old:
            if _exchange(tmp, path):
                # `tmp` now names the file that was at `path` at the instant of the swap.  If it
                # is not the one we checked, another writer put a new file there meanwhile (an
                # editor's atomic save): swap theirs back and stop.
                if os.stat(tmp).st_ino != os.fstat(old).st_ino:
                    _exchange(tmp, path)
                    raise self._changed(rel, "was replaced")
                os.unlink(tmp)
            else:  # no renameat2 here: the inode check narrows the window to the rename itself
                if os.stat(path).st_ino != os.fstat(old).st_ino:
                    raise self._changed(rel, "was replaced")
                os.replace(tmp, path)

    def delete(self, rel: str, expected: bytes | Fingerprint) -> None:
        """Delete workspace-relative `rel`, which must hold `expected` (bytes or their Fingerprint) now."""
        path = self.root / rel
        with self._watched(path, rel, expected, None):
            path.unlink()

    @contextlib.contextmanager
    def _watched(self, path: Path, rel: str, expected: bytes | Fingerprint, data: bytes | None,
                 carry_appends: bool = False) -> Iterator[int]:
        """Open the file at `path` if it holds `expected` (else ConcurrentWrite), give its descriptor
        to the caller's block, which replaces or deletes the file, then watch the old inode for
        late writes (`data`: what `path` holds now, None once deleted).  The descriptor is closed
        when the block fails."""
        old = self._open_if_same(path, rel, expected, carry_appends)
        try:
            yield old
        except BaseException:
            os.close(old)
            raise
        watch = _Watch(path, rel, old, expected, data)
        self.watches.append(watch)
        self._settle(watch)

    def finish(self) -> None:
        """Read every replaced inode once more (late writes), then close; ConcurrentWrite as above.

        Before that last read, wait (up to WRITER_WAIT seconds) until no process holds a replaced
        file open for writing: on Linux a read lease (F_SETLEASE) can be taken only then, and
        since the replaced file has no name any more nobody can open it anew, so the read is
        final.  Where leases are unavailable the read happens at once.
        """
        try:
            deadline = time.monotonic() + self.WRITER_WAIT
            for watch in self.watches:
                _wait_for_writers(watch.fd, deadline)
                self._settle(watch)
        finally:
            self.close()

    def drain(self) -> None:
        """`finish()` for a run that is failing anyway (before its restore): late appends are
        carried onto our files, so the restore carries them onto the original; errors are
        swallowed (the run reports its own)."""
        with contextlib.suppress(ConcurrentWrite, OSError):
            self.finish()
        self.close()

    def close(self) -> None:
        """Close the fds held on replaced files (idempotent)."""
        for watch in self.watches:
            with contextlib.suppress(OSError):
                os.close(watch.fd)
        self.watches = []

    def _open_if_same(self, path: Path, rel: str, expected: bytes | Fingerprint, carry_appends: bool = False) -> int:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            raise self._changed(rel, "was deleted") from None
        except OSError:
            raise self._changed(rel, "is no longer a regular file") from None
        if _fd_holds(fd, expected):
            return fd
        current = _pread_all(fd)
        if not _same(current, expected) and not (carry_appends and _starts_with(current, expected)):
            os.close(fd)
            raise self._changed(rel, "changed")
        return fd

    def _settle(self, watch: _Watch) -> None:
        """Act on bytes written into the replaced inode after the check (see the class docstring)."""
        if _fd_holds(watch.fd, watch.expected):  # the usual case, without reading the file into memory
            return
        late = _pread_all(watch.fd)
        if _same(late, watch.expected):
            return
        before, watch.expected = watch.expected, late  # each late write is handled once
        if _starts_with(late, before) and watch.data is not None:
            _append(watch.path, late[_length(before):])  # carried: lands after our bytes
            self.carried.append(watch.name)
            return
        if watch.data is None:
            try:
                with open(watch.path, "xb") as fh:  # deleted by us: put their file back
                    fh.write(late)
            except FileExistsError:
                self._keep_aside(watch, late)
        elif _holds(watch.path, watch.data):
            write_durably(watch.path, late)  # their rewrite replaces ours
        else:
            self._keep_aside(watch, late)
        raise self._changed(watch.name, "was rewritten")

    @staticmethod
    def _keep_aside(watch: _Watch, late: bytes) -> None:
        aside = watch.path.with_name(watch.path.name + RESCUE_SUFFIX)
        write_durably(aside, late)
        watch.name = f"{watch.name} (their bytes are in {aside.name})"

    @staticmethod
    def _changed(rel: str, how: str) -> ConcurrentWrite:
        return ConcurrentWrite(f"{rel}: {how} by another process while bonsai-git was running; that write was kept "
                               f"and the run was undone. Run the command again")


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temp file (fd, path) in `path`'s folder, mode 0600, named `.bonsai-` + 8 of [a-z0-9]
    as tempfile.mkstemp names them (journal.py's recovery knows the shape), without importing
    tempfile (random, shutil: ~5 ms of a hook run)."""
    folder = os.fspath(path.parent)
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        _TEMP_COUNTER[0] += 1
        name = os.path.join(folder, f".bonsai-{(os.getpid() * 7919 + _TEMP_COUNTER[0] * 104729) & 0xFFFFFFFF:08x}")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no free temp file name")


_TEMP_COUNTER = [int.from_bytes(os.urandom(2), "big")]
_RENAME_EXCHANGE = 2  # linux/fs.h
_renameat2: list[Callable[..., int] | None] = []  # [libc's renameat2] once looked up, [None] when unavailable


def _exchange(a: str | Path, b: str | Path) -> bool:
    """Atomically swap the files at `a` and `b` (Linux renameat2 RENAME_EXCHANGE); False when the
    system or file system cannot (the caller falls back to a rename)."""
    if not _renameat2:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            found = libc.renameat2
            found.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            _renameat2.append(found)
        except (OSError, AttributeError):
            _renameat2.append(None)
    func = _renameat2[0]
    if func is None:
        return False
    at_fdcwd = -100
    if func(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not supported here
        return False
    raise OSError(err, os.strerror(err), os.fspath(b))


_F_SETLEASE = 1024  # linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 0


def _wait_for_writers(fd: int, deadline: float) -> None:
    """Return once no process holds the file behind `fd` open for writing (a read lease can be
    taken: Linux), or at `deadline`, or at once where leases are not supported."""
    import errno
    import fcntl

    while True:
        try:
            fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EBUSY) or time.monotonic() >= deadline:
                return  # unsupported here (or a writer holds it past the deadline): read now
            time.sleep(0.002)
            continue
        fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)
        return


def _pread_all(fd: int) -> bytes:
    # One read of the size fstat gives (+1 shows a file that grew), then the rest if any: 1 MiB
    # chunks joined held a 50 MB MEMORY.md twice at the migration's end (issue 15).
    chunks = [os.pread(fd, os.fstat(fd).st_size + 1, 0)]
    offset = len(chunks[0])
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _length(expected: bytes | Fingerprint) -> int:
    return expected.length if isinstance(expected, Fingerprint) else len(expected)


def _same(data: bytes, expected: bytes | Fingerprint) -> bool:
    """True when `data` is `expected` (bytes), or has its length and digest (a Fingerprint)."""
    if isinstance(expected, Fingerprint):
        return len(data) == expected.length and Fingerprint.of(data) == expected
    return data == expected


def _starts_with(data: bytes, expected: bytes | Fingerprint) -> bool:
    """True when `data` begins with `expected` (bytes, or the bytes a Fingerprint stands for)."""
    if isinstance(expected, Fingerprint):
        return len(data) >= expected.length and Fingerprint.of(memoryview(data)[: expected.length]) == expected
    return data.startswith(expected)


def _fd_holds(fd: int, expected: bytes | Fingerprint) -> bool:
    """True when the file open at `fd` holds exactly `expected` (bytes or their Fingerprint), read
    1 MiB at a time (no copy of the file)."""
    if os.fstat(fd).st_size != _length(expected):
        return False
    if isinstance(expected, Fingerprint):
        digest, offset = hashlib.sha256(), 0
        while chunk := os.pread(fd, _CHUNK, offset):
            digest.update(chunk)
            offset += len(chunk)
        return offset == expected.length and digest.digest() == expected.digest
    view, offset = memoryview(expected), 0
    while chunk := os.pread(fd, 1 << 20, offset):
        if view[offset : offset + len(chunk)] != chunk:
            return False
        offset += len(chunk)
    return offset == len(expected)


def _append(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def fsync_folder(folder: Path) -> None:
    """fsync a folder (so a rename or a new entry in it survives a power cut)."""
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
