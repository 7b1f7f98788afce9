"""`bonsai-git secrets-audit`: which past commits of memory hold secret-looking values (issue 25).

Once a key reached a commit, every clone holds it; the secrets hook only guards what comes next.
The audit reads the history of every `MEMORY.md` and everything under a `memory/` folder, at
any depth of the repository, on every ref (`git log --all`): one streamed `git log -p -U0` over
the pathspecs `:(glob)**/MEMORY.md` and `:(glob)**/memory/**`, so git computes the diffs in C
and only the lines each commit added reach Python.  A finding is a value a commit added that
the lines it removed (in any of its files) did not already hold, as often (the secrets hook's
rule, `secretscan.new_secret_findings`, over the whole commit): a key is listed at the commit
that brought it in, not again at each later edit of its line, nor where a commit only moved it
(a migration moving sections from MEMORY.md into leaves).  Values are never kept: a finding is
its commit, path, line, kind and fingerprint.

The rules are the reports' (`find_secrets`): a value whose fingerprint the workspace's
`.bonsai.toml` `[secrets] allow` lists (read from the work tree), or whose line ends with the
allow marker, is not listed.  Not read: a merge commit's own changes (git log shows no diff for
a merge; what either side brought in is found in that side's commits).  Renames are followed
(`--find-renames`), so a moved file adds nothing.  Every file is read as text (`--text`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import gitrun
from .core.secretscan import find_secrets, fingerprint

PATHSPECS = (":(glob)**/MEMORY.md", ":(glob)**/memory/**")
_COMMIT = b"\0"  # `--format=%x00%H`: a line that starts with NUL opens a commit
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_QUOTED_ESCAPES = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\", b"a": b"\a", b"b": b"\b", b"f": b"\f",
                   b"r": b"\r", b"v": b"\v"}


@dataclass(frozen=True, slots=True)
class HistoryFinding:
    """A secret-looking value a commit added: commit id (40 hex), repo-relative path, 1-based line
    in that commit's version of the file, kind, and `fingerprint` (never the value)."""

    commit: str
    path: str
    line: int
    kind: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What `audit_history` found: the findings in git log order, and how many commits it read."""

    findings: tuple[HistoryFinding, ...]
    commits: int


def audit_history(top: Path, allow_for: Callable[[str], Collection[str]]) -> AuditResult:
    """Read the memory history of the repository at `top` (its work tree's top folder).

    `allow_for(path)` gives the `[secrets] allow` fingerprints that apply to a repo-relative path.
    Raises GitFailed when git log fails (a repository with no commits reads as empty).
    """
    if gitrun.run(top, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0 and not _has_refs(top):
        return AuditResult((), 0)
    log = gitrun.start(top, "log", "--all", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--text",
                       "--find-renames", "--format=%x00%H", "--", *PATHSPECS, literal=False)
    findings: list[HistoryFinding] = []
    commits = 0
    batch = _Batch()
    for commit, path, removed, added in file_changes(log.records(b"\n")):
        if path is not None:
            batch.add(commit, path, removed, added)
            continue
        commits += 1
        if batch.size > _BATCH_BYTES:  # between commits: a commit's files are always scanned together
            findings += batch.findings(allow_for)
            batch = _Batch()
    findings += batch.findings(allow_for)
    return AuditResult(tuple(findings), commits)


def _has_refs(top: Path) -> bool:
    return bool(gitrun.run(top, "for-each-ref", "--count=1").stdout.strip())


def file_changes(lines: Iterable[bytes]) -> Iterator[tuple[str, str | None, list[bytes], list[tuple[int, bytes]]]]:
    """Parse `git log -p -U0 --format=%x00%H` output (lines without their `\\n`).

    Yields `(commit, None, [], [])` once per commit, then per changed file `(commit, path,
    removed lines, [(new line number, added line)])`; a deleted file yields nothing.  Hunks
    are read by their line counts, so an added line that looks like a header (`+++ b/x`) is
    content.  Paths git quoted (a control character, a quote or a backslash in the name) are
    unquoted to their bytes (decoded as UTF-8, surrogateescape).
    """
    commit = ""
    path: str | None = None
    removed: list[bytes] = []
    added: list[tuple[int, bytes]] = []
    it = iter(lines)
    for line in it:
        if line.startswith(_COMMIT) or line.startswith(b"diff --git "):
            if path is not None and added:
                yield commit, path, removed, added
            path, removed, added = None, [], []
            if line.startswith(_COMMIT):
                commit = line[1:].decode("ascii", "replace")
                yield commit, None, [], []
        elif line.startswith(b"+++ "):
            # git ends a name holding a space with a tab (as GNU diff does); a real tab would be quoted
            target = line[4:-1] if line.endswith(b"\t") else line[4:]
            path = None if target == b"/dev/null" else _unquote(target)[2:].decode("utf-8", "surrogateescape")
        elif line.startswith(b"@@ ") and path is not None:
            m = _HUNK.match(line)
            if m is None:
                continue
            minus = 1 if m.group(1) is None else int(m.group(1))
            start, plus = int(m.group(2)), 1 if m.group(3) is None else int(m.group(3))
            while minus or plus:
                body = next(it, None)
                if body is None:
                    break
                if body.startswith(b"-") and minus:
                    removed.append(body[1:])
                    minus -= 1
                elif body.startswith(b"+") and plus:
                    added.append((start, body[1:]))
                    start += 1
                    plus -= 1
                # `\ No newline at end of file` counts for neither
    if path is not None and added:
        yield commit, path, removed, added


def _unquote(name: bytes) -> bytes:
    """A path as git printed it: as is, or C-quoted (`"b/a\\nb.md"`, octal `\\303\\251` bytes)."""
    if not name.startswith(b'"') or not name.endswith(b'"'):
        return name
    out = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        c = body[i : i + 1]
        if c != b"\\":
            out += c
            i += 1
        elif body[i + 1 : i + 2].isdigit():
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += _QUOTED_ESCAPES.get(body[i + 1 : i + 2], body[i + 1 : i + 2])
            i += 2
    return bytes(out)


_BATCH_BYTES = 1 << 20  # added text scanned at once: one pass of the rules per MB, not one per file


class _Batch:
    """The lines some commits added, scanned as one text: the rules cost a pass per text, so
    20,000 small scans (one per changed file) took ~10x longer than one scan of their join."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.owners: list[tuple[int, int]] = []  # per line of the joined text: (change, line number in the file)
        self.changes: list[tuple[str, str, list[bytes]]] = []  # (commit, path, removed lines)
        self.size = 0

    def add(self, commit: str, path: str, removed: list[bytes], added: list[tuple[int, bytes]]) -> None:
        """Take one commit's added lines of one file (`file_changes`)."""
        index = len(self.changes)
        self.changes.append((commit, path, removed))
        for number, line in added:
            self.lines.append(line)
            self.owners.append((index, number))
            self.size += len(line) + 1

    def findings(self, allow_for: Callable[[str], Collection[str]]) -> list[HistoryFinding]:
        """The values each change added that its removed lines did not already hold, in order."""
        if not self.lines:
            return []
        # One decode: `replace` never swallows a newline (ASCII), so line numbers stay exact.
        text = b"\n".join(self.lines).decode("utf-8", "replace")
        held: dict[str, Counter[tuple[str, str]]] = {}
        out = []
        for f in find_secrets(text):
            index, number = self.owners[f.line - 1]
            commit, path, _removed = self.changes[index]
            value = text[f.start : f.end]
            print_ = fingerprint(value)
            if print_ in allow_for(path):
                continue
            if commit not in held:
                held[commit] = self._removed_values(commit)
            if held[commit][(f.kind, value)] > 0:  # the commit only moved or re-wrote a line holding it
                held[commit][(f.kind, value)] -= 1
                continue
            out.append(HistoryFinding(commit, path, number, f.kind, print_))
        return out

    def _removed_values(self, commit: str) -> Counter[tuple[str, str]]:
        """(kind, value) of every finding in the lines `commit` removed, in any of its files."""
        lines = [line for c, _path, removed in self.changes if c == commit for line in removed + [b""]]
        old = b"\n".join(lines).decode("utf-8", "replace")
        return Counter((g.kind, old[g.start : g.end]) for g in find_secrets(old))
