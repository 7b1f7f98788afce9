"""What makes a commit a migration commit: its trailers, or its content.

A migration commit carries the `Bonsai-*` trailers `transaction.commit_message` writes.  A
commit-msg hook that normalises messages may drop them (issue 21), and a history rewritten by
hand (a squash, an edited message) may too, so a commit is also known by what it does: its
first parent's trunk is a flat `MEMORY.md` (no bonsai markers) and its own trunk has them.
Both tests live here, in one place: rollback and flatten find the migration with
`find_migration`; rollback's refusal of commits that hold more than a migration builds on
`is_migration_by_content` (issue 22).  Git runs through gitrun (no GitPython): one or two
processes per question.
"""

from __future__ import annotations

from pathlib import Path

from . import gitrun
from .core.layout import BEGIN_PREFIX, is_migrated

MIGRATION_TRAILER = "Bonsai-Migration"


def trailer_lines(message: str) -> tuple[str, ...]:
    """The lines of `message`'s last paragraph that look like `Key: value` trailers (the ones we wrote).

    `message` is one of ours (transaction.commit_message, the lifecycle messages): its last
    paragraph is its trailers, one per line.
    """
    body, gap, last = message.rstrip("\n").rpartition("\n\n")
    if not gap:
        return ()  # a subject alone carries no trailer
    return tuple(line for line in last.split("\n") if ":" in line and not line.startswith(" "))


def missing_trailers(committed: str, trailers: tuple[str, ...]) -> tuple[str, ...]:
    """The lines of `trailers` that the committed message `committed` no longer holds, each as a
    line of its own (which is how rollback's `--grep=^Bonsai-...` and flatten's Bonsai-Source
    search read them), in order."""
    lines = set(committed.replace("\r\n", "\n").split("\n"))
    return tuple(t for t in trailers if t not in lines)


def is_migration_by_content(top: Path, commit: str, trunk: str) -> bool:
    """True when `commit` turns a flat trunk into a migrated one: `trunk` (a path from the work
    tree's top) at its first parent exists without a bonsai marker pair, and at `commit` has one.

    A root commit, a commit without `trunk`, or an unreadable object is not a migration.  One
    `git cat-file --batch` for both blobs (through the work tree's filters when
    one is not UTF-8 as stored).
    """
    names = (f"{commit}^1:{trunk}", f"{commit}:{trunk}")
    proc = gitrun.run(top, "cat-file", "--batch", input="".join(f"{n}\n" for n in names).encode("utf-8"))
    if proc.returncode != 0:
        return False
    texts = _batch_texts(proc.stdout)
    if len(texts) != 2:
        return False
    for n, text in enumerate(texts):
        if text is None:  # missing, or not UTF-8 as stored (git-crypt-like filters): read as the user sees it
            shown = gitrun.run(top, "cat-file", "--filters", names[n])
            if shown.returncode != 0:
                return False
            try:
                texts[n] = shown.stdout.decode("utf-8")
            except UnicodeDecodeError:
                return False
    before, after = texts
    return before is not None and after is not None and not is_migrated(before) and is_migrated(after)


def _batch_texts(stream: bytes) -> list[str | None]:
    """The blobs of a `git cat-file --batch` answer as text, in order (None: missing or not UTF-8)."""
    out: list[str | None] = []
    at = 0
    while at < len(stream):
        end = stream.index(b"\n", at)
        header = stream[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            out.append(None)
            continue
        size = int(header[2])
        try:
            out.append(stream[at : at + size].decode("utf-8"))
        except UnicodeDecodeError:
            out.append(None)
        at += size + 1
    return out


def has_migration_trailer(top: Path, commit: str) -> bool:
    """True when `commit`'s message has a `Bonsai-Migration:` line."""
    body = gitrun.run(top, "log", "-1", "--format=%B", commit, check=True).stdout.decode("utf-8", "replace")
    return f"\n{MIGRATION_TRAILER}:" in "\n" + body


def is_migration_commit(top: Path, commit: str, trunk: str) -> bool:
    """True when `commit` is a migration commit of the workspace whose trunk is `trunk` (a path
    from the work tree's top): by its trailer, or else by its content (is_migration_by_content)."""
    return has_migration_trailer(top, commit) or is_migration_by_content(top, commit, trunk)


def find_migration(top: Path, trunk: str, start: str = "HEAD") -> str | None:
    """The newest migration commit of `trunk` (a path from the work tree's top) on `start`'s
    history, by trailer or by content; None when there is none.

    Candidates: the newest commit touching `trunk` with a `Bonsai-Migration:` line, and the
    newest commit where the count of bonsai begin markers in `trunk` changed (`git log -S`)
    and that is a migration by content.  When both exist, the newer one (the other is its ancestor).
    """
    by_trailer = gitrun.run(top, "log", "-1", "--format=%H", "-E", f"--grep=^{MIGRATION_TRAILER}:", start, "--",
                            trunk).stdout.decode().strip() or None
    by_content = None
    listed = gitrun.run(top, "log", "--format=%H", f"-S{BEGIN_PREFIX}", start, "--", trunk)
    for sha in listed.stdout.decode().split():
        if sha == by_trailer:
            break  # nothing newer than the trailer's commit is a migration by content
        if is_migration_by_content(top, sha, trunk):
            by_content = sha
            break
    if by_trailer is None or by_content is None:
        return by_trailer or by_content
    older = gitrun.run(top, "merge-base", "--is-ancestor", by_content, by_trailer).returncode == 0
    return by_trailer if older else by_content
