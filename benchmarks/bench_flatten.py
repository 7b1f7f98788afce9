"""How long `bonsai-git flatten` takes on trees of 1,000 and 10,000 leaves, against `migrate`.

Each size: a fresh git workspace whose MEMORY.md has N `##` sections, migrated, one leaf edited and
one added (committed), then flattened (one commit).  Prints wall seconds of the console scripts and
checks the flat file holds the edit.  usage: python benchmarks/bench_flatten.py [N ...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "bonsai-git"
ENV = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
           GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")


def sh(cwd: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - start


def run(n: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-flatten-"))
    try:
        memory = "# Memory\n\n" + "".join(f"## Topic {i}\n\nFact number {i} about project {i % 97}.\n\n" for i in range(n))
        (folder / "MEMORY.md").write_text(memory)
        sh(folder, "git", "init", "-q", "-b", "main")
        sh(folder, "git", "add", "MEMORY.md")
        sh(folder, "git", "commit", "-q", "-m", "memory")
        migrate = sh(folder, str(BIN), "migrate", "--force")
        leaf = next((folder / "memory" / "domains").rglob("topic-1.md"))
        leaf.write_text(leaf.read_text() + "Learned later.\n")
        (leaf.parent / "new-leaf.md").write_text("## New Leaf\n\nAdded after the migration.\n")
        sh(folder, str(BIN), "reindex")
        sh(folder, "git", "add", "-A")
        sh(folder, "git", "commit", "-q", "-m", "later")
        flatten = sh(folder, str(BIN), "flatten")
        flat = (folder / "MEMORY.md").read_text()
        assert "Learned later." in flat and "Added after the migration." in flat
        print(f"{n:>6} leaves: migrate {migrate:6.2f} s   flatten {flatten:6.2f} s   ratio {flatten / migrate:4.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [1_000, 10_000]:
        run(size)
