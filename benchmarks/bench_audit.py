#!/usr/bin/env python3
"""History audit benchmark (issue 25): `bonsai-git secrets-audit` over 10,000 commits of memory, target < 10 s.

Builds a repository with `git fast-import` (seconds, not the minutes 10,000 `git commit` runs
take): a migrated-looking workspace (MEMORY.md, 200 leaves in 8 domains under memory/domains/,
their indexes) and a second workspace in a sub-folder (`team/MEMORY.md`, `team/memory/…`: any
depth); each commit appends a line to one leaf and rewrites its domain's index, every 50th
edits MEMORY.md, every 25th touches a file outside memory (not read), and every 1,000th adds a
secret-looking value (a new leaf holds it; a later edit of that leaf must not list it again).
Then times the real command as a process (median of 3 runs) and checks it lists exactly the
planted values and exits 1.

usage: python benchmarks/bench_audit.py [--commits N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
DOMAINS = ("business", "infrastructure", "community", "agents", "legal", "people", "projects", "personal")
WORDS = ("deploy", "review", "customer", "roadmap", "invoice", "meeting", "release", "cron", "backup", "launch",
         "contract", "budget", "hiring", "agent", "prompt", "latency", "pricing", "support", "search", "tokens")


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def fast_import_stream(commits: int, rng: random.Random) -> tuple[bytes, int]:
    """The fast-import stream of `commits` commits, and how many secret-looking values it plants."""
    leaves = {f"{ws}memory/domains/{DOMAINS[i % 8]}/leaf-{i:03d}.md": f"## Leaf {i}\nAbout {WORDS[i % 20]}.\n"
              for ws in ("", "team/") for i in range(100)}
    names = sorted(leaves)
    out: list[bytes] = []
    planted = 0
    memory = "# Memory\n\nPinned rules.\n"
    for n in range(1, commits + 1):
        out.append(b"commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.org> %d +0000\n"
                   % (n, 1_700_000_000 + n * 60))
        out.append(_data(f"edit {n}"))
        if n > 1:
            out.append(b"from :%d\n" % (n - 1))
        changed: dict[str, str] = {}
        if n == 1:
            changed.update(leaves)
            changed["MEMORY.md"] = memory
            changed["team/MEMORY.md"] = memory
            changed["README.md"] = "# Project\n"
        leaf = names[rng.randrange(len(names))]
        line = " ".join(rng.choice(WORDS) for _ in range(12)) + f" ({n}).\n"
        if n % 1000 == 0:
            token = "ghp_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
                                     for _ in range(36))
            leaf = f"memory/domains/infrastructure/keys-{n}.md"
            leaves[leaf] = f"## Keys {n}\nThe deploy token is {token}\n"
            planted += 1
        else:
            leaves[leaf] += line
        changed[leaf] = leaves[leaf]
        index = leaf.rsplit("/", 1)[0] + "/_index.md"
        changed[index] = f"# Index\n_~{n} tokens_\n\n### {leaf.rsplit('/', 1)[1]}\n{line}"
        if n % 50 == 0:
            memory += f"- note {n}: {line}"
            changed["MEMORY.md"] = memory
        if n % 25 == 0:
            changed["README.md"] = f"# Project\nBuild {n}.\n"
        for path, text in sorted(changed.items()):
            out.append(f"M 100644 inline {path}\n".encode() + _data(text))
        out.append(b"\n")
    return b"".join(out), planted


def build(repo: Path, commits: int) -> tuple[float, int]:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    stream, planted = fast_import_stream(commits, random.Random(25))
    start = time.perf_counter()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    return time.perf_counter() - start, planted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "ws"
        built, planted = build(repo, args.commits)
        print(f"built {args.commits:,} commits with git fast-import in {built:.1f} s ({planted} planted values)")
        times, cpu = [], []
        for _ in range(3):
            start, used = time.perf_counter(), _children_cpu()
            proc = subprocess.run([str(BIN / "bonsai-git"), "secrets-audit", "-C", str(repo)], capture_output=True,
                                  text=True)
            times.append(time.perf_counter() - start)
            cpu.append(_children_cpu() - used)
        listed = proc.stdout.splitlines()
        ok = proc.returncode == 1 and len(listed) == planted and all("github token" in row for row in listed)
        print(f"secrets-audit: exit {proc.returncode}, {len(listed)} finding(s) listed "
              f"({'as planted' if ok else 'NOT as planted'})")
        median = statistics.median(times)
        print(f"secrets-audit over {args.commits:,} commits: {median:.2f} s median of 3 "
              f"(target < 10 s: {'ok' if median < 10 else 'OVER'}); CPU (bonsai-git and git) "
              f"{statistics.median(cpu):.2f} s, what the wall time is on an idle machine")


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (bonsai-git and its git)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
