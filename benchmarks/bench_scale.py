#!/usr/bin/env python3
"""Close to the floor (issue 15): prints every figure and its ratio against the target; not a test.

Each command runs as a process, as a user waits for it (bytecode cached, one warm-up run,
median of RUNS).  Parts (all by default; pick some with --parts):

- `hook`: the floor, measured in the same run — the interpreter, `git rev-parse`, `git ls-files`
  and reading every tracked memory file, nothing else — then the no-op hook (target <= 1.4x the
  floor) and the hook after one leaf edit (<= 1.2x the no-op), at 1,000 and 10,000 leaves;
- `reindex`: `bonsai-git reindex` rebuilding 1,000 leaves from nothing vs the anchor's bash
  (benchmarks/anchor/bonsai-reindex.sh) in the same run (target >= 150x);
- `fleet`: the no-op hook in a repository of 9 workspaces x 1,000 leaves (target <= 2x the
  1-workspace figure) and of 100 workspaces x 100 leaves; `status --all` on both;
- `status`: `bonsai-git status` at 1,000 leaves (<= 0.3 s) and 60,000 (<= 3 s; `--big`);
- `plan`: planning alone at 1,000 (<= 50 ms) and 10,000 sections (<= 0.5 s), and its growth to
  100,000 sections (`--big`);
- `migrate`: end to end, commit included: corpus 03 (<= 0.2 s) and 23 (<= 0.3 s), and its growth
  from 1,000 to 10,000 generated sections (to 100,000 with `--big`: linear is the target);
- `memory`: peak resident memory of `bonsai-git migrate` on a 50 MB memory of 100,000 sections
  (<= 5x the input; `--big`).

usage: python benchmarks/bench_scale.py [--parts hook,reindex,fleet,status,plan,migrate,memory] [--big]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration
from bonsai_git.reindex import reindex_workspace
from bonsai_git.core.layout import BEGIN, END

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_hook import DOMAINS, leaf_text  # noqa: E402  (the same leaves as bench_hook)

BIN = Path(sys.executable).parent
HOOK = str(BIN / "bonsai-git-hook")
BONSAI = str(BIN / "bonsai-git")
ANCHOR = HERE / "anchor" / "bonsai-reindex.sh"
CORPUS = HERE.parent / "tests" / "corpus"
ENV = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
           GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
           BONSAI_NOW="2026-03-02")
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
RUNS = 7

# The floor of a hook run: what any hook must do to know the tree is fresh.
FLOOR = """\
import os, subprocess, sys
top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True).stdout.decode().strip()
out = subprocess.run(["git", "ls-files", "-z", "--", ":(glob)**/MEMORY.md", ":(glob)**/memory/**"],
                     cwd=top, capture_output=True).stdout
for path in out.decode("utf-8", "surrogateescape").split("\\0"):
    if path:
        fd = os.open(os.path.join(top, path), os.O_RDONLY)
        os.read(fd, 1 << 20)
        os.close(fd)
"""


def git(cwd: Path, *args: str) -> None:
    """Run git quietly in `cwd` (raises on failure)."""
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def write_workspace(ws: Path, leaves: int, title: str = "MEMORY") -> None:
    """Write a migrated workspace of `leaves` leaves (bench_hook's shapes) into folder `ws`."""
    for i in range(leaves):
        sub = "archive-notes/" if i % 25 == 3 else ""
        path = ws / "memory" / "domains" / DOMAINS[i % len(DOMAINS)] / f"{sub}topic-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(leaf_text(i), encoding="utf-8")
    (ws / "MEMORY.md").write_text(f"# {title}\n\nPinned: be brief.\n\n{BEGIN}\n{END}\n", encoding="utf-8")
    reindex_workspace(ws)


def make_repo(root: Path, workspaces: int, leaves: int) -> Path:
    """A committed repository: one workspace at the top, or `workspaces` under agents/."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    if workspaces == 1:
        write_workspace(root, leaves)
    else:
        for n in range(workspaces):
            write_workspace(root / "agents" / f"agent-{n:03d}", leaves, f"Agent {n}")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tree")
    return root


def timed(args: Sequence[str], cwd: Path, expect: int | None = 0) -> float:
    """Wall seconds of one subprocess run (its exit code checked unless `expect` is None)."""
    start = time.perf_counter()
    proc = subprocess.run(list(args), cwd=cwd, env=ENV, capture_output=True)
    seconds = time.perf_counter() - start
    if expect is not None and proc.returncode != expect:
        raise SystemExit(f"{' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
    return seconds


def cpu_timed(cpu: list[float], args: Sequence[str], cwd: Path, expect: int | None = 0) -> float:
    """`timed`, also appending the CPU seconds (user + system) of the process and its children to `cpu`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = timed(args, cwd, expect)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return seconds


def median_of(run: Callable[[], float], runs: int = RUNS, warm: int = 1) -> float:
    """Median of `runs` calls after `warm` unmeasured ones."""
    for _ in range(warm):
        run()
    return statistics.median(run() for _ in range(runs))


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def part_hook(tmp: Path, big: bool) -> dict[str, float]:
    """Floor, no-op hook and edit hook at 1,000 and 10,000 leaves."""
    print("== hook: floor (python + git rev-parse + git ls-files + read every tracked memory file) ==")
    print(f"{'leaves':>7} | {'floor':>7} | {'no-op':>7} | {'no-op/floor':>11} | {'edit':>7} | {'edit/no-op':>10}")
    out: dict[str, float] = {}
    cpu_lines: list[str] = []
    for n in (1000, 10000):
        repo = make_repo(tmp / f"hook{n}", 1, n)
        floor = median_of(lambda: timed([sys.executable, "-c", FLOOR], repo))
        cpu: dict[str, list[float]] = {"noop": [], "edit": []}
        noop = median_of(lambda: cpu_timed(cpu["noop"], [HOOK], repo))
        leaves = sorted((repo / "memory" / "domains").rglob("topic-*.md"))
        count = iter(range(10_000))

        def edit() -> float:
            k = next(count)
            with leaves[(k * 37) % len(leaves)].open("a", encoding="utf-8") as fh:
                fh.write(f"- edited in run {k}\n")
            return cpu_timed(cpu["edit"], [HOOK], repo, expect=1)

        edited = median_of(edit)
        out[f"noop{n}"] = noop
        print(f"{n:>7,} | {floor * 1000:>4.0f} ms | {noop * 1000:>4.0f} ms | {noop / floor:>6.2f}x {verdict(noop / floor <= 1.4):>4} |"
              f" {edited * 1000:>4.0f} ms | {edited / noop:>5.2f}x {verdict(edited / noop <= 1.2):>4}")
        cpu_noop, cpu_edit = statistics.median(cpu["noop"][1:]), statistics.median(cpu["edit"][1:])
        cpu_lines.append(f"{n:>7,} | cpu (user+sys, hook and its git processes): no-op {cpu_noop * 1000:.0f} ms, "
                         f"edit {cpu_edit * 1000:.0f} ms = {cpu_edit / cpu_noop:.2f}x")
    print("\n".join(cpu_lines))
    print("targets: no-op <= 1.4x the floor; edit <= 1.2x the no-op (the cpu lines: the same runs, steadier on a "
          "shared machine)\n")
    return out


# The floor of a full rebuild, as one Python process: the interpreter (site and the install's
# path hooks included, as for bonsai-git), reading every leaf and writing every generated file
# whose bytes are known in advance (argv[1]: a file of NUL-separated path/bytes pairs), nothing else:
# no imports, no git, no rendering.  What no Python reindex can beat.
REINDEX_FLOOR = """\
import os, sys
for folder, _, names in os.walk("memory"):
    for name in names:
        if name.endswith(".md") and not name.startswith("_"):
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            os.read(fd, 1 << 20)
            os.close(fd)
with open(sys.argv[1], "rb") as fh:
    items = fh.read().split(b"\\0")
for path, data in zip(items[::2], items[1::2]):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    os.write(fd, data)
    os.close(fd)
"""


# What `bonsai-git reindex` imports before it does anything (its import time, measured apart).
REINDEX_IMPORTS = ("import bonsai_git.cli, bonsai_git.commands.reindex, bonsai_git.workspace, bonsai_git.factcache, "
                   "bonsai_git.journal, bonsai_git.reindex, bonsai_git.gitsettings, bonsai_git.provenance")


def part_reindex(tmp: Path, big: bool) -> None:
    """`bonsai-git reindex` (full rebuild) vs the anchor's bash, 1,000 leaves, same run; and the floor
    (interpreter + reading the leaves + writing the generated files) that bounds any Python reindex."""
    repo = make_repo(tmp / "reindex", 1, 1000)
    trunk = (repo / "MEMORY.md").read_bytes()
    generated = sorted((repo / "memory").rglob("_index*.md"))
    blob = tmp / "reindex-floor.bin"
    blob.write_bytes(b"\0".join(part for p in [*generated, repo / "MEMORY.md"]
                                 for part in (str(p.relative_to(repo)).encode(), p.read_bytes())))

    def clear() -> None:
        for index in (repo / "memory").rglob("_index*.md"):
            index.unlink()
        (repo / "MEMORY.md").write_text(f"# MEMORY\n\nPinned: be brief.\n\n{BEGIN}\n{END}\n", encoding="utf-8")

    def ours() -> float:
        clear()
        return timed([BONSAI, "reindex"], repo)

    def anchor() -> float:
        clear()
        return timed(["bash", str(ANCHOR), str(repo)], repo)

    def floor() -> float:
        clear()
        return timed([sys.executable, "-c", REINDEX_FLOOR, str(blob)], repo)

    fast = median_of(ours)
    assert (repo / "MEMORY.md").read_bytes() == trunk, "reindex must rebuild the same trunk"
    least = median_of(floor)
    python = median_of(lambda: timed([sys.executable, "-c", "pass"], repo))
    bare = median_of(lambda: timed([sys.executable, "-S", "-c", "pass"], repo))
    loaded = median_of(lambda: timed([sys.executable, "-c", REINDEX_IMPORTS], repo))
    slow = median_of(anchor, runs=1, warm=0)
    print("== reindex: full rebuild of 1,000 leaves, as processes, same run ==")
    print(f"bonsai-git reindex {fast * 1000:.0f} ms; anchor bash {slow:.2f} s; {slow / fast:.0f}x faster "
          f"(target >= 150x) {verdict(slow / fast >= 150)}")
    print(f"floor {least * 1000:.0f} ms (python {python * 1000:.0f} ms, of which site and path hooks "
          f"{(python - bare) * 1000:.0f} ms; + read {1000} leaves, write {len(generated) + 1} files): "
          f"reindex = {fast / least:.2f}x the floor; the floor itself is {slow / least:.0f}x the anchor "
          f"(150x needs reindex <= {slow / 150 * 1000:.0f} ms)")
    print(f"of bonsai-git reindex: python {python * 1000:.0f} ms, the modules it loads {(loaded - python) * 1000:.0f} ms "
          f"(click, the renderer and its rules, git's runner), the run itself {(fast - loaded) * 1000:.0f} ms "
          f"(git processes, reading, rendering, writing)\n")


def part_fleet(tmp: Path, big: bool, single: float | None) -> None:
    """No-op hook and status --all over 9 x 1,000 and 100 x 100 workspaces."""
    print("== fleet: one repository, several workspaces ==")
    if single is None:
        repo = make_repo(tmp / "fleet-single", 1, 1000)
        single = median_of(lambda: timed([HOOK], repo))
    print(f"1 workspace x 1,000 leaves: no-op hook {single * 1000:.0f} ms")
    for workspaces, leaves in ((9, 1000), (100, 100)):
        repo = make_repo(tmp / f"fleet{workspaces}", workspaces, leaves)
        noop = median_of(lambda: timed([HOOK], repo))
        status = median_of(lambda: timed([BONSAI, "status", "--all"], repo, expect=None), runs=3)
        target = f" (target <= 2x: {verdict(noop / single <= 2)})" if (workspaces, leaves) == (9, 1000) else ""
        print(f"{workspaces} workspaces x {leaves:,} leaves: no-op hook {noop * 1000:.0f} ms = {noop / single:.2f}x the "
              f"1-workspace figure{target}; status --all {status:.2f} s")
    print()


def part_status(tmp: Path, big: bool) -> None:
    """`bonsai-git status` at 1,000 (and 60,000) leaves: cold (a fresh clone: no facts cache) and warm
    (the hook ran since the last change, as it does at every commit)."""
    print("== status (cold: no facts cache, as in a fresh clone; warm: after a hook run) ==")
    for n, target in ((1000, 0.3), (60000, 3.0)) if big else ((1000, 0.3),):
        repo = make_repo(tmp / f"status{n}", 1, n)
        runs = 3 if n > 10000 else RUNS

        def cold() -> float:
            shutil.rmtree(repo / ".git" / "bonsai-git", ignore_errors=True)
            return timed([BONSAI, "status"], repo, expect=None)

        cold_s = median_of(cold, runs=runs)
        timed([HOOK], repo)
        warm_s = median_of(lambda: timed([BONSAI, "status"], repo, expect=None), runs=runs)
        print(f"{n:>7,} leaves: cold {cold_s:.3f} s, warm {warm_s:.3f} s (target <= {target} s) "
              f"cold {verdict(cold_s <= target)}, warm {verdict(warm_s <= target)}")
    print()


def generated_memory(sections: int, body_words: int = 6) -> str:
    """A MEMORY.md with `sections` `##` sections across the default domains' keywords (bench_migrate's)."""
    heads = ["Business notes", "Family", "Cron jobs", "Meetup group", "Agent tasks", "Contract", "Birthdays", "Misc"]
    parts = ["# MEMORY\n\n"]
    for i in range(sections):
        parts.append(f"## {heads[i % len(heads)]} {i}\n\n- fact {i}: " + "lorem ipsum dolor sit amet " * body_words
                     + "\n\n")
    return "".join(parts)


def part_plan(tmp: Path, big: bool) -> None:
    """Planning alone (split, classify, name, render, verify), in process."""
    print("== planning alone (in process, median of 5) ==")
    sizes = (1000, 10000, 100000) if big else (1000, 10000)
    per: dict[int, float] = {}
    for n in sizes:
        text = generated_memory(n)
        seconds = median_of(lambda: _time(lambda: plan_migration(text, Config())), runs=5 if n < 100000 else 1)
        per[n] = seconds / n
        target = {1000: 0.05, 10000: 0.5}.get(n)
        goal = f" (target <= {target} s) {verdict(seconds <= target)}" if target else ""
        print(f"{n:>7,} sections ({len(text) / 1e6:.1f} MB): {seconds:.3f} s, {per[n] * 1e6:.0f} µs per section{goal}")
    if len(per) > 1:
        first, last = min(per), max(per)
        print(f"growth: per-section cost at {last:,} is {per[last] / per[first]:.2f}x that at {first:,} (1.0 = linear)")
    print()


def _time(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _migrate_once(source: bytes, tmp: Path, tag: str) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one `bonsai-git migrate` in a fresh repo holding `source`."""
    ws = tmp / tag
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    (ws / "MEMORY.md").write_bytes(source)
    git(ws, "add", "MEMORY.md")
    git(ws, "commit", "-qm", "memory")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    seconds = timed([BONSAI, "migrate", "--force"], ws)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    shutil.rmtree(ws)
    return seconds, (peak if peak > before else float("nan")) / 1024


def part_migrate(tmp: Path, big: bool) -> None:
    """Migrate end to end on corpus 03 and 23."""
    print("== migrate end to end (process, commit included, median of 5) ==")
    for name, target in (("03-chief-of-staff-6k.md", 0.2), ("23-long-running-agent-25k.md", 0.3)):
        source = (CORPUS / name).read_bytes()
        count = iter(range(100))
        seconds = median_of(lambda: _migrate_once(source, tmp, f"m{next(count)}")[0], runs=5)
        print(f"{name:32} {seconds:.3f} s (target <= {target} s) {verdict(seconds <= target)}")
    # Growth: the issue asks for time linear in sections up to 100,000 (`--big`; 50 s or so).
    per: dict[int, float] = {}
    for n in (1000, 10000, 100000) if big else (1000, 10000):
        source = generated_memory(n).encode("utf-8")
        seconds = _migrate_once(source, tmp, f"grow{n}")[0]
        per[n] = seconds / n
        print(f"{n:>7,} generated sections ({len(source) / 1e6:.1f} MB): {seconds:.2f} s, {per[n] * 1e6:.0f} µs per section")
    first, last = min(per), max(per)
    print(f"growth: per-section cost at {last:,} is {per[last] / per[first]:.2f}x that at {first:,} "
          "(1.0 = linear; below 1, the fixed start-up cost spread thinner)")
    print()


def part_memory(tmp: Path, big: bool) -> None:
    """Peak RSS of migrate on a ~50 MB memory of 100,000 sections (run this part alone: RSS is per process tree)."""
    sections, words = (100000, 16) if big else (10000, 16)
    text = generated_memory(sections, words).encode("utf-8")
    seconds, peak = _migrate_once(text, tmp, "memory")
    size = len(text) / 2**20
    print("== peak memory of bonsai-git migrate ==")
    print(f"{sections:,} sections, {size:.1f} MiB: {seconds:.1f} s, peak RSS {peak:.0f} MiB = {peak / size:.1f}x the input "
          f"(target <= 5x) {verdict(peak / size <= 5)}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--parts", default="hook,reindex,fleet,status,plan,migrate,memory")
    parser.add_argument("--big", action="store_true", help="Also the 60,000-leaf status, 100,000-section plan and 50 MB memory.")
    parser.add_argument("--bin", type=Path, help="Folder of the bonsai-git and bonsai-git-hook scripts to time (default: this "
                        "interpreter's, an editable install in a checkout; a user's `pip install .` has no editable finder)")
    args = parser.parse_args()
    if args.bin is not None:
        global HOOK, BONSAI
        HOOK, BONSAI = str(args.bin / "bonsai-git-hook"), str(args.bin / "bonsai-git")
        print(f"timing the scripts in {args.bin}\n")
    parts = args.parts.split(",")
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as name:  # git gc may still write in .git
        tmp = Path(name)
        ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        hook = part_hook(tmp, args.big) if "hook" in parts else {}
        if "reindex" in parts:
            part_reindex(tmp, args.big)
        if "fleet" in parts:
            part_fleet(tmp, args.big, hook.get("noop1000"))
        for part, run in (("status", part_status), ("plan", part_plan), ("migrate", part_migrate),
                          ("memory", part_memory)):
            if part in parts:
                run(tmp, args.big)


if __name__ == "__main__":
    main()
