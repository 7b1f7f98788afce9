"""What migrate does to hold less memory (issue 15) keeps every format and answer the same: the
crash journal's JSON, git's blob ids, the checked writer's read of a replaced file."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from hypothesis import given, strategies as st

from bonsai_git import journal, tree
from bonsai_git.journal import Journal, JournalEntry


def test_the_journal_reads_back_as_recorded_one_entry_per_line(tmp_path: Path) -> None:
    entries = (JournalEntry("MEMORY.md", True, "100644 " + "a" * 40 + " 0", "b" * 40),
               JournalEntry("memory/domains/général/café \"x\".md", False, None, "c" * 40),
               JournalEntry("memory/old.md", True, "100755 " + "d" * 40 + " 0", None))
    for record in (Journal("e" * 40, "ws/", "Migrate", "sha1", entries, ("memory", "memory/domains")),
                   Journal(None, "", None, "sha256", (), ())):
        folder = tmp_path / f"j{len(record.entries)}"
        journal.write_journal(folder, record, {})
        assert journal.read_journal(folder) == record
        raw = (folder / journal.JOURNAL_FILE).read_bytes()
        assert json.loads(raw)["format"] == journal.JOURNAL_FORMAT
        lines = raw.decode("utf-8").splitlines()
        assert sum(1 for line in lines if line.startswith('{"path": ')) == len(record.entries)


@given(st.binary(max_size=3000))
def test_blob_ids_are_gits(data: bytes) -> None:
    for algo in ("sha1", "sha256"):
        header = b"blob %d\0" % len(data)
        assert journal.blob_id(data, algo) == hashlib.new(algo, header + data).hexdigest()


def test_blob_id_matches_git_hash_object(tmp_path: Path) -> None:
    data = "é\r\n".encode() * 1000
    out = subprocess.run(["git", "hash-object", "--stdin", "--no-filters"], input=data, capture_output=True,
                         check=True).stdout.decode().strip()
    assert journal.blob_id(data) == out


def test_a_replaced_file_is_read_whole_and_compared_without_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "f"
    data = os.urandom(3 << 20) + b"tail"  # more than one 1 MiB chunk
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert tree._pread_all(fd) == data
        assert tree._fd_holds(fd, data)
        assert not tree._fd_holds(fd, data[:-1] + b"X")
        assert not tree._fd_holds(fd, data + b"more")
        with path.open("ab") as fh:  # the file grows after the size was taken
            fh.write(b"appended")
        assert tree._pread_all(fd) == data + b"appended"
        assert not tree._fd_holds(fd, data)
    finally:
        os.close(fd)
    empty = tmp_path / "e"
    empty.write_bytes(b"")
    fd = os.open(empty, os.O_RDONLY)
    try:
        assert tree._pread_all(fd) == b"" and tree._fd_holds(fd, b"")
    finally:
        os.close(fd)
