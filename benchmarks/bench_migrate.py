#!/usr/bin/env python3
"""Migration benchmarks (migrate issue): prints figures and ratios against the targets; not a test.

- wall time of `bonsai-git migrate` end to end (a subprocess, commit included) on the corpus's
  ~6,400-token and ~25,000-token files (targets <= 0.3 s and <= 0.6 s; median of 5 runs);
- planning alone (split, classify, name, render, verify) on a generated 1,000-section file (<= 0.1 s);
- the boot-token reduction per corpus file and the mean over files of >= 1,000 tokens (>= 90%).

usage: python benchmarks/bench_migrate.py   (with bonsai-git installed in the running Python's env)
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.tokens import estimate_tokens

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
BONSAI = shutil.which("bonsai-git", path=str(Path(sys.executable).parent)) or "bonsai-git"
ENV = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
           GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
           PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "bonsai-bench-pycache"))
# As an installed package runs (pip compiles it): bytecode cached, one warm-up run first.
ENV.pop("PYTHONDONTWRITEBYTECODE", None)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def time_migrate(source: bytes, runs: int = 5) -> float:
    """Median wall seconds of `bonsai-git migrate` (subprocess) in fresh repos holding `source`."""
    times = []
    for i in range(runs + 1):
        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp)
            _git(ws, "init", "-q", "-b", "main")
            (ws / "MEMORY.md").write_bytes(source)
            _git(ws, "add", "MEMORY.md")
            _git(ws, "commit", "-qm", "memory")
            start = time.perf_counter()
            subprocess.run([BONSAI, "migrate", "-C", str(ws), "--force"], env=ENV, check=True, capture_output=True)
            if i:  # run 0 warms the bytecode cache
                times.append(time.perf_counter() - start)
    return statistics.median(times)


def generated_memory(sections: int) -> str:
    """A MEMORY.md with `sections` `##` sections across the default domains' keywords."""
    heads = ["Business notes", "Family", "Cron jobs", "Meetup group", "Agent tasks", "Contract", "Birthdays", "Misc"]
    parts = ["# MEMORY\n\n"]
    for i in range(sections):
        parts.append(f"## {heads[i % len(heads)]} {i}\n\n- fact {i}: " + "lorem ipsum dolor sit amet " * 6 + "\n\n")
    return "".join(parts)


def time_plan(text: str, runs: int = 5) -> float:
    """Median seconds of plan_migration on `text` (pure, in process)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        plan_migration(text, Config())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print("== migrate end to end (subprocess, incl. commit; median of 5) ==")
    for name, target in (("03-chief-of-staff-6k.md", 0.3), ("23-long-running-agent-25k.md", 0.6)):
        source = (CORPUS / name).read_bytes()
        secs = time_migrate(source)
        print(f"{name:34} {estimate_tokens(source.decode()):>6} tokens  {secs:.3f} s  target <= {target} s  "
              f"{'ok' if secs <= target else 'MISSED'} ({secs / target:.2f}x of budget)")
    text = generated_memory(1000)
    secs = time_plan(text)
    print(f"\n== planning alone: generated 1,000 sections, {len(text):,} chars ==\n{secs:.3f} s  target <= 0.1 s  "
          f"{'ok' if secs <= 0.1 else 'MISSED'}")
    print("\n== boot tokens per corpus file (ceil(chars/4) of MEMORY.md before -> trunk after) ==")
    reductions = []
    for path in sorted(CORPUS.glob("[0-9]*.md")):
        text = path.read_bytes().decode("utf-8")
        trunk = plan_migration(text, Config()).file_map()["MEMORY.md"]
        before, after = math.ceil(len(text) / 4), math.ceil(len(trunk) / 4)
        cut = 1 - after / before
        if before >= 1000:
            reductions.append(cut)
        print(f"{path.name:38} {before:>6} -> {after:>4}  {100 * cut:5.1f}%{'' if before >= 1000 else '  (< 1,000)'}")
    mean = 100 * sum(reductions) / len(reductions)
    print(f"mean reduction over {len(reductions)} files >= 1,000 tokens: {mean:.1f}%  target >= 90%  "
          f"{'ok' if mean >= 90 else 'MISSED'}  (the seed's own table averages 81%)")


if __name__ == "__main__":
    main()
