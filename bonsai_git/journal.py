"""The crash journal: what a killed run needs so `bonsai-git migrate --recover` can undo or finish it.

A tree-changing run (transaction.apply_changes, and absorb: reindex.py) records, before its first
write, a journal at `$(git rev-parse --git-path bonsai)/` (`.git/bonsai/` in a plain clone):

- `prior/<path>`: the bytes every listed path held before the run (so the original MEMORY.md
  is always among them when a migration rewrites it);
- `journal.json`: HEAD, the workspace folder, the commit subject and trailers, whether the run
  stages (absorb does not: its restore leaves git's index alone), and per path whether it
  existed, its index entry (`mode sha stage`) and the blob id of the bytes the run will write
  (none for a deletion), plus the folders the run will create.

`journal.json` is written last and durably (temp file, fsync, rename, fsync folder): a journal
exists exactly when that file does, and it is complete.  It is removed first when the run ends,
so a crash at any instant leaves either no journal (nothing written yet, or everything done) or
a complete one.  While it exists every command refuses (JournalPresent, exit 3) and points to
`bonsai-git migrate --recover`, which restores the listed paths (or, when the run's commit
already exists, keeps it) and removes the journal.

Only paths the journal lists are ever touched, plus the temp files `tree.write_durably` may have
left next to them (`.bonsai-XXXXXXXX`): never `git clean`, `reset --hard` or `stash`.  A restore
yields a whole state (see `restore`): bytes it cannot leave in place (a commit hook's fix of our
files) are copied to `bonsai-rescued/` beside the journal folder first, never dropped.

Light on purpose: the hook path calls `refuse_if_journaled`, so git runs through gitrun and
GitPython is never imported here.  Recovery's decisions (`migrate --recover`, finishing a run
whose commit exists) live in recovery.py; this module records, finds and restores.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from . import gitrun
from .core.errors import ConcurrentWrite, JournalPresent, LockHeld
from .tree import CheckedWriter, Fingerprint, copy_durably, fsync_folder, write_durably

JOURNAL_DIR = "bonsai"
LOCK_NAME = "bonsai.lock"  # gitrepo.workspace_lock's file, next to the journal folder
JOURNAL_FILE = "journal.json"
# Set (to the journal folder) in the environment of bonsai-git's own `git commit`: the pre-commit
# hook it triggers then knows the journal and lock belong to the run that is committing, not to
# a crash (without it, every bonsai-git commit in a repo using our hook was refused).
OWN_COMMIT_ENV = "BONSAI_GIT_OWN_COMMIT"
PRIOR_DIR = "prior"
PLANNED_DIR = "planned"  # the new bytes of paths that existed: recovery carries an append made after ours
COMMITTING_FILE = "committing"  # present once `git commit` (and so the user's commit hooks) may have run
RESCUE_DIR = "bonsai-rescued"  # next to the journal folder: bytes recovery could not leave in place
JOURNAL_FORMAT = 1
RECOVER_COMMAND = "bonsai-git migrate --recover"
# tree.write_durably's temp files: tempfile.mkstemp(prefix=".bonsai-") adds 8 chars of this alphabet.
_TEMP_FILE = re.compile(r"^\.bonsai-[a-z0-9_]{8}$")


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One path a run writes: workspace-relative posix `path`; `existed` (a regular file before);
    `index` its index entry before ("mode sha stage", None: not in the index); `planned` the blob
    id of the bytes the run writes (None: the run deletes it)."""

    path: str
    existed: bool
    index: str | None
    planned: str | None


@dataclass(frozen=True, slots=True)
class Journal:
    """A run's journal: HEAD before it (None: unborn), the workspace's folder from the work tree
    root (`prefix`, "" or "sub/"), the commit subject (None: --no-commit), git's object format,
    the entries (sorted by path) and the folders the run creates (workspace-relative, parents first)."""

    head: str | None
    prefix: str
    subject: str | None
    object_format: str
    entries: tuple[JournalEntry, ...]
    created_dirs: tuple[str, ...]
    trailers: tuple[str, ...] = ()  # the commit's trailer lines: a commit without them is not the run's whole
    staged: bool = True  # False: the run never touches git's index (absorb), so a restore leaves it alone

    def repo_path(self, path: str) -> str:
        """A workspace-relative path as a path from the work tree root."""
        return self.prefix + path


# --- finding the journal (the light check every command runs) ---------------------------------

# A process asks once per folder: the CLI's journal check and the run both need it.  Each value is
# (journal folder, git common dir), both absolute.
_JOURNAL_DIRS: dict[str, tuple[Path, Path]] = {}


def remember_journal_dir(cwd: Path, folder: Path, common_dir: Path) -> None:
    """Record that `journal_dir(cwd)` is `folder` and `git_common_dir(cwd)` is `common_dir`
    (gitrepo.open_workspace knows both for the work tree's top: a workspace in a sub-folder then
    costs no second rev-parse)."""
    _JOURNAL_DIRS[gitrun.repo_key(cwd)] = (folder, common_dir)


def journal_dir(cwd: Path) -> Path | None:
    """`$(git rev-parse --git-path bonsai)` as an absolute path, or None when `cwd` is in no repository."""
    dirs = _git_dirs(cwd)
    return None if dirs is None else dirs[0]


def git_common_dir(cwd: Path) -> Path | None:
    """`$(git rev-parse --git-common-dir)` as an absolute path, or None when `cwd` is in no repository:
    asked in `journal_dir`'s rev-parse (one git process for both; reindex needs the facts cache's folder)."""
    dirs = _git_dirs(cwd)
    return None if dirs is None else dirs[1]


def _git_dirs(cwd: Path) -> tuple[Path, Path] | None:
    key = gitrun.repo_key(cwd)
    if key in _JOURNAL_DIRS:
        return _JOURNAL_DIRS[key]
    # The run's own facts in the same rev-parse (gitrun.repo_facts), so open_workspace asks no second one.
    facts = gitrun.repo_facts(cwd)
    if facts is not None:
        lines = [facts[len(gitrun.FACT_QUESTIONS) + gitrun.FACT_GIT_PATHS.index(JOURNAL_DIR)],
                 facts[gitrun.FACT_QUESTIONS.index("--git-common-dir")]]
    else:  # a bare repository, a git dir, a newline in a path: one question at a time
        lines = []
        for args in (("--git-path", JOURNAL_DIR), ("--git-common-dir",)):
            proc = gitrun.run(cwd, "rev-parse", *args)
            if proc.returncode != 0:
                return None  # not remembered: a repository may be made here later in this process (tests)
            lines.append(proc.stdout.decode("utf-8", "surrogateescape").strip())
    found = _JOURNAL_DIRS[key] = ((cwd / lines[0]).resolve(), (cwd / lines[1]).resolve())
    return found


def find_journal(cwd: Path) -> Path | None:
    """The journal folder of the repository holding `cwd` when a complete journal is there, else None."""
    folder = journal_dir(cwd) if cwd.is_dir() else None
    return folder if folder is not None and (folder / JOURNAL_FILE).is_file() else None


def refuse_if_journaled(cwd: Path) -> None:
    """Raise JournalPresent (exit 3) when an interrupted run left its journal in `cwd`'s repository.

    Every command but `migrate --recover` calls this before doing anything.  A journal whose
    run is still alive (it holds `bonsai.lock`) is not interrupted: LockHeld (exit 3) says to
    wait instead.  Costs one `git rev-parse`; imports nothing heavy (filelock only when a
    journal is there).  Outside a repository it returns (others report that).
    """
    folder = find_journal(cwd)
    if folder is not None and os.environ.get(OWN_COMMIT_ENV) == str(folder.resolve()):
        return  # a hook run by our own `git commit`: that journal is the committing run's, not a crash
    if folder is not None:
        if _lock_is_held(folder.with_name(LOCK_NAME)):
            raise LockHeld(f"{_shown(folder.with_name(LOCK_NAME), cwd)}: another bonsai-git run is in progress and "
                           f"holds this lock; wait for it to finish")
        raise JournalPresent(
            f"{_shown(folder, cwd)}: an interrupted bonsai-git run left its journal here; run "
            f"`{RECOVER_COMMAND}` to restore (or finish) it before anything else"
        )


# --- writing, reading and removing it ---------------------------------------------------------

def write_journal(folder: Path, journal: Journal, prior: Mapping[str, bytes | Path],
                  planned: Mapping[str, bytes] | None = None) -> dict[str, Fingerprint]:
    """Record `journal` and the prior bytes of the paths that existed, durably, in `folder`.

    `prior` maps workspace-relative paths to their bytes, or to the file to copy them from (a
    large file, copied 1 MiB at a time: tree.copy_durably); the Fingerprint of each copied file's
    bytes is returned ({path: Fingerprint}), for the run to check the file against without holding
    them (issue 15), and `read_prior` gives them back.  `planned` (optional) the new bytes of
    the paths that existed and are rewritten, so recovery can tell "ours + an agent's append"
    from anything else.  A leftover folder without
    `journal.json` (a crash while recording, before any write) is replaced.  Raises
    JournalPresent when a complete journal is already there; OSError when the disk refuses.
    """
    if (folder / JOURNAL_FILE).is_file():
        raise JournalPresent(f"{folder.name}: a journal is already present; run `{RECOVER_COMMAND}` first")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    # The copies go straight into the new folder (O_EXCL, fsynced; no temp file, rename and
    # folder fsync each): until journal.json exists below, a half-written copy is never read
    # (the folder is replaced), and the folder fsyncs that follow make every entry durable.
    copied: dict[str, Fingerprint] = {}
    for path in sorted(prior):
        target = folder / PRIOR_DIR / safe_relative(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = prior[path]
        if isinstance(data, Path):
            copied[path] = copy_durably(data, target)
        else:
            write_durably(target, data, exclusive=True)
    for path in sorted(planned or {}):
        target = folder / PLANNED_DIR / safe_relative(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_durably(target, (planned or {})[path], exclusive=True)
    for sub in sorted({p for p in folder.rglob("*") if p.is_dir()}, key=lambda p: len(p.parts), reverse=True):
        fsync_folder(sub)
    _write_journal_file(folder / JOURNAL_FILE, _encoded_chunks(journal))
    fsync_folder(folder.parent)
    return copied


def read_journal(folder: Path) -> Journal | None:
    """The journal recorded in `folder`, or None when there is no complete one."""
    try:
        raw = json.loads((folder / JOURNAL_FILE).read_bytes())
    except FileNotFoundError:
        return None
    entries = tuple(JournalEntry(e["path"], e["existed"], e["index"], e["planned"]) for e in raw["entries"])
    return Journal(raw["head"], raw["prefix"], raw["subject"], raw["object_format"], entries,
                   tuple(raw["created_dirs"]), tuple(raw.get("trailers", ())), bool(raw.get("staged", True)))


def read_prior(folder: Path, path: str) -> bytes:
    """The bytes `path` (workspace-relative) held before the journaled run."""
    return (folder / PRIOR_DIR / safe_relative(path)).read_bytes()


def read_planned(folder: Path, path: str) -> bytes | None:
    """The new bytes the journaled run planned for `path` (recorded for paths that existed), or None."""
    try:
        return (folder / PLANNED_DIR / safe_relative(path)).read_bytes()
    except FileNotFoundError:
        return None


def mark_committing(folder: Path, *, sync: bool = True) -> None:
    """Record, durably, that the run is about to run `git commit`: from now on the user's commit
    hooks (a trailing-whitespace fixer...) may rewrite our files, so recovery treats bytes that are
    neither ours nor the original as possibly a fixer's, not as an agent's write to keep in place.
    `sync=False`: the caller makes it durable (tree.sync_barrier) before `git commit` runs."""
    write_durably(folder / COMMITTING_FILE, b"1\n", sync=sync)


def hooks_may_have_run(folder: Path) -> bool:
    """True when the journaled run reached `git commit` (see mark_committing)."""
    return (folder / COMMITTING_FILE).is_file()


def remove_journal(folder: Path) -> None:
    """Remove the journal: `journal.json` first (atomically: from then on there is no journal), then the rest."""
    marker = folder / JOURNAL_FILE
    if marker.exists():
        marker.unlink()
        fsync_folder(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _encode(journal: Journal) -> bytes:
    """journal.json's bytes (see _encoded_chunks)."""
    return b"".join(_encoded_chunks(journal))


def _encoded_chunks(journal: Journal) -> Iterator[bytes]:
    """journal.json's bytes, chunk by chunk: the header fields one per line, then one line per entry.

    json.dumps with `indent` runs the pure-Python encoder, which held millions of small strings
    for a 100,000-file run (2.5x the input at the migration's peak, issue 15); each entry's line
    comes from the C encoder instead, and goes to the file as it is made (joining the lines held
    them twice, ~0.9x the input at 100,000 files).  Same JSON, one entry per line for a human to read.
    """
    head = {
        "format": JOURNAL_FORMAT,
        "tool": "bonsai-git",
        "head": journal.head,
        "prefix": journal.prefix,
        "subject": journal.subject,
        "object_format": journal.object_format,
        "created_dirs": list(journal.created_dirs),
        "trailers": list(journal.trailers),
        "staged": journal.staged,
        "recover": RECOVER_COMMAND,
    }
    yield json.dumps(head, indent=1, ensure_ascii=False)[: -len("\n}")].encode("utf-8") + b',\n "entries": [\n'
    for n, e in enumerate(journal.entries):
        line = json.dumps({"path": e.path, "existed": e.existed, "index": e.index, "planned": e.planned},
                          ensure_ascii=False).encode("utf-8")
        yield b",\n" + line if n else line
    yield b"\n ]\n}\n"


def _write_journal_file(path: Path, chunks: Iterable[bytes]) -> None:
    """Write journal.json durably and atomically from `chunks`: a temp file beside it (in the
    journal's own new folder, which a crash before the rename leaves without journal.json, so
    it is replaced), fsync, rename, fsync the folder."""
    temp = path.with_name(path.name + ".tmp")
    with open(temp, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temp, path)
    fsync_folder(path.parent)


# --- blob ids ----------------------------------------------------------------------------------

def blob_id(data: bytes, object_format: str = "sha1") -> str:
    """The id git gives a blob holding `data` (`git hash-object`), in `object_format` (sha1 or sha256)."""
    import hashlib  # here, not at import: it loads OpenSSL (~5 ms), and reindex and the hook load this module for its lock

    digest = hashlib.new(object_format, b"blob %d\0" % len(data))
    digest.update(data)  # not `header + data`: that copied every file once more (issue 15)
    return digest.hexdigest()


# --- restoring ----------------------------------------------------------------------------------

def restore(top: Path, journal: Journal, prior: Callable[[str], bytes], *,
            planned: Callable[[str], bytes | None] = lambda path: None,
            undo_commit: str | None = None, keep_foreign: bool = True,
            rescue_dir: Path | None = None, rescued: list[str] | None = None,
            unwritten: Collection[str] = ()) -> list[str]:
    """Put HEAD, the index entries and the bytes of exactly the journaled paths back as they were.

    The result is a whole state: the pre-run bytes of every path, plus what another process
    wrote meanwhile, never a mix of ours and the original.  Per path (`prior(path)` gives its
    prior bytes, `planned(path)` the run's new bytes when recorded):

    - our bytes, or gone: the prior bytes are put back (a file the run created is deleted);
    - our bytes + appended text (an agent appended after we wrote): prior bytes + that text
      (unless it is only whitespace and commit hooks ran: a fixer's, so just the prior bytes);
    - prior bytes + appended text: kept as it is;
    - anything else was written by someone else.  `keep_foreign` (before any commit hook ran):
      kept in place, since no hook of ours could have made it.  Otherwise (a fixer hook may
      have rewritten our bytes): the prior bytes are put back and the bytes found are copied
      to `rescue_dir/<path>` (named in a warning), so nothing is lost either way.  A file the
      run created that holds other bytes than ours is copied there too, then deleted, unless
      the run never wrote it (`unwritten`: another process created it), then it is kept.

    `rescued`: when given, the copies' paths (relative to `rescue_dir`) are appended to it instead
    of printed.  `undo_commit`: the run's own commit, to be undone by moving HEAD back to the journal's HEAD
    (only if HEAD still points to it); when git refuses to move HEAD (a stale lock), nothing else is
    put back, so HEAD and the index never disagree (recovery then settles on the commit).  A journal
    whose run never staged (`staged` False: absorb) leaves git's index alone.  Idempotent: running it twice (a crash during a restore)
    gives the same result.  Returns what could not be put back (empty when all was restored);
    never raises for one path's failure.
    """
    errors: list[str] = []
    quiet = rescued is not None  # the caller reports the copies (in its own error line)
    rescued = [] if rescued is None else rescued
    if undo_commit is not None and journal.head is not None:
        proc = gitrun.run(top, "update-ref", "-m", "bonsai-git: undo the interrupted run", "HEAD", journal.head,
                          undo_commit)
        if proc.returncode != 0:
            # HEAD still holds the run's commit (a crash inside `git commit` can leave a stale
            # HEAD.lock): putting the index and the files back now would leave HEAD at the new tree
            # and the index at the old one.  Leave the whole new state; recovery settles it.
            return [f"HEAD: could not be moved back ({gitrun.first_line(proc.stderr)}); the run's commit and "
                    "its files were left as they are"]
    if journal.staged:
        errors += _restore_index(top, journal)
    workspace = top / journal.prefix if journal.prefix else top
    writer = CheckedWriter(workspace)
    try:
        for n, entry in enumerate(journal.entries, 1):
            shown = journal.repo_path(entry.path)
            try:
                _restore_entry(workspace, writer, entry, shown, prior, planned, journal.object_format, keep_foreign,
                               rescue_dir or top, rescued, unwritten)
            except (OSError, ConcurrentWrite) as exc:
                errors.append(f"{shown}: {exc.strerror or exc}" if isinstance(exc, OSError) else exc.message)
            if n == 1:
                crash_point("restore")
        try:
            writer.finish()  # an append that landed in a file as we put it back: carried
        except ConcurrentWrite as exc:
            errors.append(exc.message)
    finally:
        writer.close()
    if rescued and not quiet:
        print(f"bonsai-git: warning: {len(rescued)} file(s) held bytes that are neither the original nor bonsai-git's "
              f"(a commit hook's fix, or another writer), e.g. {rescued[0]}; the original state was restored and a "
              f"copy of those bytes kept under {rescue_dir or top}", file=sys.stderr)
    _remove_temp_files(workspace, journal)
    for folder in sorted(journal.created_dirs, key=lambda d: d.count("/"), reverse=True):
        try:
            (workspace / safe_relative(folder)).rmdir()
        except OSError:
            pass  # not empty (the user put something there) or already gone: leave it
    return errors


def _restore_entry(workspace: Path, writer: CheckedWriter, entry: JournalEntry, shown: str,
                   prior: Callable[[str], bytes], planned: Callable[[str], bytes | None], object_format: str,
                   keep_foreign: bool, rescue_dir: Path, rescued: list[str], unwritten: Collection[str] = ()) -> None:
    """Restore one path (see `restore`), replacing it only while it holds the bytes just judged:
    an agent appending meanwhile makes it judge again (up to 100 times), so the append is kept too."""
    target = workspace / safe_relative(entry.path)
    old = prior(entry.path) if entry.existed else None
    for _attempt in range(100):
        current = current_bytes(target)
        wanted = _restored_bytes(current, entry, old, planned(entry.path), object_format, keep_foreign,
                                 entry.path in unwritten)
        if isinstance(wanted, _Keep):
            print(f"bonsai-git: warning: {shown} changed while bonsai-git was running; {wanted.why}", file=sys.stderr)
            return
        if isinstance(wanted, _Rescue):
            rescued.append(rescue(rescue_dir, shown, wanted.data))
            wanted = old
        if wanted == current:
            return
        try:
            if current is not None and target.is_symlink():
                target.unlink()
                current = None
            if wanted is None:
                if current is not None:
                    writer.delete(entry.path, current)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                writer.write(entry.path, wanted, current, carry_appends=True)  # appended meanwhile: carried
            return
        except ConcurrentWrite:
            continue
    raise ConcurrentWrite(f"{shown}: kept changing while bonsai-git restored it; left as it is")


def current_bytes(target: Path) -> bytes | None:
    try:
        return None if target.is_symlink() or not target.is_file() else target.read_bytes()
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class _Keep:
    why: str


@dataclass(frozen=True, slots=True)
class _Rescue:
    data: bytes


def _restored_bytes(current: bytes | None, entry: JournalEntry, old: bytes | None, new: bytes | None,
                    object_format: str, keep_foreign: bool, unwritten: bool = False) -> bytes | None | _Keep | _Rescue:
    """What a path holding `current` must hold after the restore (None: absent), or keep it, or rescue its bytes first."""
    if current is None or current == old or blob_id(current, object_format) == entry.planned:
        return old
    if new and current.startswith(new) and old is not None:
        extra = current[len(new):]
        # An append made after our write: carried onto the original.  Only whitespace, once commit
        # hooks ran, is a fixer's (`printf ' \n' >>`), not a memory: the original comes back exactly.
        return old if not keep_foreign and not extra.strip() else old + extra
    if old is not None and current.startswith(old):
        return _Keep("kept as it is now: the original with text appended")
    if keep_foreign and old is not None:
        return _Keep("kept as it is now (its earlier bytes are in git's HEAD)")
    if unwritten:  # the run never wrote this path: another process created it
        return _Keep("kept as it is now: another process created it")
    return _Rescue(current)


def rescue(folder: Path, shown: str, data: bytes) -> str:
    """Copy `data` to `folder/<shown>` (a free name: `.1`, `.2`... appended); return `shown` as written."""
    target = folder / safe_relative(shown)
    n = 0
    while target.exists():
        n += 1
        target = folder / f"{safe_relative(shown)}.{n}"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_durably(target, data)
    return target.relative_to(folder).as_posix()


def _restore_index(top: Path, journal: Journal) -> list[str]:
    wanted = {journal.repo_path(e.path): e.index for e in journal.entries}
    current = gitrun.index_entries(top, wanted)
    zero = "0" * (64 if journal.object_format == "sha256" else 40)
    lines = []
    for path, entry in sorted(wanted.items()):
        if current.get(path) == entry:
            continue
        lines.append(f"{entry}\t{path}" if entry is not None else f"0 {zero}\t{path}")
    if not lines:
        return []
    proc = gitrun.run_retrying(top, "update-index", "-z", "--index-info", input="\0".join(lines).encode() + b"\0")
    if proc.returncode != 0:
        return [f"the index: {gitrun.first_line(proc.stderr)}"]
    gitrun.run_retrying(top, "update-index", "-q", "--refresh")  # stat data only, so `git diff` stays quiet
    return []


def _remove_temp_files(workspace: Path, journal: Journal) -> None:
    """Delete temp files a killed `write_durably` left next to the journaled paths (ours by name)."""
    folders = {(workspace / safe_relative(e.path)).parent for e in journal.entries}
    for folder in sorted(folders):
        if not folder.is_dir():
            continue
        for child in folder.iterdir():
            if _TEMP_FILE.match(child.name) and child.is_file() and not child.is_symlink():
                child.unlink()


# --- test-only crash points ---------------------------------------------------------------------

def crash_points_armed() -> bool:
    """TEST ONLY: True when BONSAI_TEST_CRASH_AT names a crash point (a loop then asks once, not per file)."""
    return bool(os.environ.get("BONSAI_TEST_CRASH_AT"))


def crash_point(name: str) -> None:
    """TEST ONLY: die (SIGKILL) or pause at the named point when BONSAI_TEST_CRASH_AT names it.

    Points: "journal" (journal written, nothing else), "write:N" (after the N-th file written),
    "verified", "staged", "committed" (the commit exists, the journal not yet removed),
    "restore" (a failed run restored its first path).  BONSAI_TEST_CRASH_MODE="pause" prints
    "bonsai-git: test pause at NAME" on stderr and sleeps 60 s so a test can kill the process
    from outside; any other value (default "kill") sends SIGKILL to this process, as a power cut
    would stop it: no cleanup, no finally blocks.  Unset (always, in real use) this does nothing.
    """
    if os.environ.get("BONSAI_TEST_CRASH_AT") != name:
        return
    if os.environ.get("BONSAI_TEST_CRASH_MODE") == "pause":
        print(f"bonsai-git: test pause at {name}", file=sys.stderr, flush=True)
        time.sleep(60)
        return
    os.kill(os.getpid(), signal.SIGKILL)


# --- small helpers ------------------------------------------------------------------------------

def safe_relative(path: str) -> str:
    """`path` checked to be a relative posix path that stays inside its root (no `..`, not absolute)."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise ValueError(f"{path!r}: not a workspace-relative path")
    return path


@contextlib.contextmanager
def holding_lock(cwd: Path) -> Iterator[None]:
    """Hold the worktree's `bonsai.lock` (as every writing command does) while the body runs.

    For the commands and the hook that write without GitPython (reindex, absorb).  Outside a
    repository there is nothing to lock.  Inside bonsai-git's own commit (OWN_COMMIT_ENV) the
    committing run already holds it.  Raises LockHeld when another run holds it.
    """
    folder = journal_dir(cwd) if cwd.is_dir() else None
    if folder is None or os.environ.get(OWN_COMMIT_ENV) == str(folder.resolve()):
        yield
        return
    held = LockHeld(f"{_shown(folder.with_name(LOCK_NAME), cwd)}: another bonsai-git run holds this lock; "
                    f"wait for it to finish")
    if os.name != "posix":  # pragma: no cover - filelock knows each platform's lock
        import filelock

        lock = filelock.FileLock(str(folder.with_name(LOCK_NAME)), timeout=0)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise held from None
        try:
            yield
        finally:
            lock.release()
        return
    # On POSIX the flock filelock's UnixFileLock takes (as gitrepo.workspace_lock and the hook do on
    # this file), taken with fcntl directly: importing filelock cost ~17 ms of every `reindex`.
    import fcntl

    fd = os.open(folder.with_name(LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise held from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _lock_is_held(lock: Path) -> bool:
    """True when another process holds the flock on `lock` (probed without waiting, then released)."""
    import filelock  # only when a journal exists: keeps the usual check light

    probe = filelock.FileLock(str(lock), timeout=0)
    try:
        probe.acquire()
    except filelock.Timeout:
        return True
    probe.release()
    return False



def _shown(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd)
    except ValueError:  # pragma: no cover - another drive on Windows
        return os.fspath(path)
