#!/usr/bin/env python3
"""Living-tree benchmarks (reindex / pre-commit hook issue): prints figures against the targets; not a test.

On generated, committed workspaces of 100, 1,000 and 10,000 leaves (8 domains, nested folders,
~10% of leaves in Chinese):
- full reindex in-process, every `_index.md` and the trunk block deleted first (1,000 leaves: <= 0.1 s);
- a no-op hook run: wall time of the `bonsai-git-hook` console script as a subprocess,
  interpreter start-up included (1,000 leaves: <= 0.1 s; 10,000 leaves: <= 0.5 s);
- a hook run after editing one leaf (1,000 leaves: <= 0.15 s);
- the plain git hook's no-op run (the POSIX sh script `install-hook` writes), both ways it finds
  bonsai-git: through the interpreter install-hook recorded (`BONSAI_PYTHON=`, PATH without the
  environment's scripts) and through `bonsai-git-hook` on PATH (the shipped copy, line left empty),
  with their ratio;
and the per-leaf cost at each size, to show growth is linear; then, for each tree, its index
files (branch indexes split into sub-branches past `branch_tokens`), the deepest lookup path and
the lookup cost (issue 11), and that editing a leaf left MEMORY.md byte for byte (the quiet
trunk).  Each figure is the median of 7 runs.  The reference bash implementation takes ~12 s for 1,000 leaves.

Subprocesses run with bytecode caching on (PYTHONDONTWRITEBYTECODE unset, .pyc files in a temp
PYTHONPYCACHEPREFIX, one warm-up run), as an installed package runs: pip and pre-commit
compile it at install time; from an editable checkout with PYTHONDONTWRITEBYTECODE=1 every run
would recompile the package (~15 ms more).  The hook's facts cache is warm after the first run.

usage: python benchmarks/bench_hook.py [--sizes 100,1000,10000]
       (with bonsai-git installed in the running Python's environment)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bonsai_git.core.lookup import lookup_cost
from bonsai_git.reindex import reindex_workspace
from bonsai_git.core.tokens import estimate_tokens
from bonsai_git.core.layout import BEGIN, END

HOME_BIN = Path(sys.executable).parent
HOOK = shutil.which("bonsai-git-hook", path=str(HOME_BIN)) or "bonsai-git-hook"
ENV = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
           GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
RUNS = 7
DOMAINS = ("identity", "business", "infrastructure", "community", "agents", "legal", "general", "projects")
REFERENCE_BASH_SECONDS_1000 = 12.0
TARGETS = {("full", 1000): 0.1, ("noop", 1000): 0.1, ("edit", 1000): 0.15, ("noop", 10000): 0.5}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def leaf_text(i: int) -> str:
    """A realistic leaf: a `##` heading, a sentence, a few bullets (~450 chars); every 10th in Chinese."""
    if i % 10 == 7:
        return f"## 项目笔记 {i}\n\n这是第 {i} 条长期记忆：客户偏好、部署步骤和注意事项。\n\n- 负责人：小满\n- 状态：进行中\n"
    return (
        f"## Topic {i}: notes on the weekly sync\n\n"
        f"Fact {i}: the team meets on Tuesdays; decisions are logged in the tracker and summarised here.\n\n"
        + "".join(f"- item {i}.{k}: follow up with the owner before Friday, keep the thread short\n" for k in range(4))
    )


def make_workspace(root: Path, leaves: int) -> Path:
    """Create and commit a migrated workspace with `leaves` leaves; return its folder."""
    ws = root / f"ws{leaves}"
    ws.mkdir()
    _git(ws, "init", "-q", "-b", "main")
    for i in range(leaves):
        domain = DOMAINS[i % len(DOMAINS)]
        sub = "archive-notes/" if i % 25 == 3 else ""  # some nested folders inside a domain
        path = ws / "memory" / "domains" / domain / f"{sub}topic-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(leaf_text(i), encoding="utf-8")
    (ws / "MEMORY.md").write_text(f"# MEMORY\n\nPinned: be brief.\n\n{BEGIN}\n{END}\n", encoding="utf-8")
    reindex_workspace(ws)
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "tree")
    return ws


def _median(values: list[float]) -> float:
    return statistics.median(values)


def time_full_reindex(ws: Path, runs: int = RUNS) -> float:
    """Median seconds of an in-process reindex after deleting every generated file's content."""
    times = []
    trunk = (ws / "MEMORY.md").read_bytes()
    for _ in range(runs):
        for index in (ws / "memory").rglob("_index.md"):
            index.unlink()
        (ws / "MEMORY.md").write_text(f"# MEMORY\n\nPinned: be brief.\n\n{BEGIN}\n{END}\n", encoding="utf-8")
        start = time.perf_counter()
        reindex_workspace(ws)
        times.append(time.perf_counter() - start)
    assert (ws / "MEMORY.md").read_bytes() == trunk
    return _median(times)


def _hook(ws: Path) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run([HOOK], cwd=ws, env=ENV, capture_output=True)
    return time.perf_counter() - start, proc.returncode


def time_noop_hook(ws: Path, runs: int = RUNS) -> float:
    """Median wall seconds of `bonsai-git-hook` when every index is fresh (exit 0 required)."""
    _hook(ws)  # warm-up: .pyc files and the facts cache
    times = []
    for _ in range(runs):
        seconds, code = _hook(ws)
        assert code == 0, "the tree should be fresh"
        times.append(seconds)
    return _median(times)


def time_edit_hook(ws: Path, runs: int = RUNS) -> float:
    """Median wall seconds of `bonsai-git-hook` after appending a line to one leaf (exit 1 required)."""
    times = []
    leaves = sorted((ws / "memory" / "domains").rglob("topic-*.md"))
    for n in range(runs):
        with (leaves[(n * 37) % len(leaves)]).open("a", encoding="utf-8") as fh:
            fh.write(f"- edited in run {n}: one more line of memory\n")
        seconds, code = _hook(ws)
        assert code == 1, "the hook should rewrite the stale indexes"
        times.append(seconds)
    return _median(times)


def time_plain_hooks(ws: Path, runs: int = 3 * RUNS) -> tuple[float, float]:
    """Median wall seconds of the plain pre-commit hook's no-op run: (recorded interpreter, PATH lookup).

    The installed form (githook.hook_script with this interpreter) runs with the environment's
    scripts off PATH; the shipped copy (its BONSAI_PYTHON= line empty) with them first on PATH.  The
    two alternate run by run, so a busy machine's noise falls on both alike."""
    from bonsai_git.githook import SCRIPT, hook_script

    bare = os.pathsep.join(p for p in ENV.get("PATH", "").split(os.pathsep) if p and Path(p) != HOME_BIN)
    forms = ((hook_script(SCRIPT.read_bytes(), sys.executable), bare),
             (SCRIPT.read_bytes(), f"{HOME_BIN}{os.pathsep}{bare}"))
    hooks = []
    for n, (script, path) in enumerate(forms):
        hook = ws / ".git" / f"bench-plain-hook-{n}"
        hook.write_bytes(script)
        hook.chmod(0o755)
        hooks.append((hook, dict(ENV, PATH=path)))
        subprocess.run([str(hook)], cwd=ws, env=hooks[-1][1], check=True, capture_output=True)  # warm-up
    times: list[list[float]] = [[], []]
    for _ in range(runs):
        for n, (hook, env) in enumerate(hooks):
            start = time.perf_counter()
            proc = subprocess.run([str(hook)], cwd=ws, env=env, capture_output=True)
            times[n].append(time.perf_counter() - start)
            assert proc.returncode == 0, proc.stderr
    for hook, _env in hooks:
        hook.unlink()
    return _median(times[0]), _median(times[1])


def tree_shape(ws: Path) -> str:
    """Index files, the largest one, the lookup cost over all leaves, as one line."""
    domains = ws / "memory" / "domains"
    files = {p.relative_to(ws).as_posix(): p.read_text(encoding="utf-8") for p in domains.rglob("_index*.md")}
    files["MEMORY.md"] = (ws / "MEMORY.md").read_text(encoding="utf-8")
    cost = lookup_cost(files)
    sub = sum(1 for p in files if p.rsplit("/", 1)[-1].startswith("_index.") and not p.endswith("/_index.md"))
    largest = max(estimate_tokens(t) for p, t in files.items() if p != "MEMORY.md")
    return (f"{len(files) - 1} index files ({sub} sub-branch files), largest ~{largest} tokens; lookup cost "
            f"median {cost.median}, p95 {cost.p95}, max {cost.max} over {cost.leaves} leaves")


def interpreter_startup(runs: int = RUNS) -> float:
    """Median wall seconds of `python -c pass` in this environment (the floor of any hook run)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=ENV, check=True)
        times.append(time.perf_counter() - start)
    return _median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="Comma-separated leaf counts.")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(f"hook: {HOOK}")
    results: dict[tuple[str, int], float] = {}
    shapes: list[str] = []
    plain: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        print(f"interpreter start-up (python -c pass): {interpreter_startup() * 1000:.0f} ms\n")
        print(f"{'leaves':>7} | {'full reindex':>12} | {'no-op hook':>10} | {'edit hook':>9} | {'full/leaf':>9} |"
              f" {'no-op/leaf':>10}")
        print("-" * 74)
        for n in sizes:
            ws = make_workspace(Path(tmp), n)
            trunk = (ws / "MEMORY.md").read_bytes()
            full, noop, edit = time_full_reindex(ws), time_noop_hook(ws), time_edit_hook(ws)
            shapes.append(f"{n:>7,} leaves: {tree_shape(ws)}; MEMORY.md after {RUNS} leaf edits: "
                          f"{'unchanged' if (ws / 'MEMORY.md').read_bytes() == trunk else 'REWRITTEN'}")
            results |= {("full", n): full, ("noop", n): noop, ("edit", n): edit}
            recorded, on_path = time_plain_hooks(ws)
            plain.append(f"{n:>7,} leaves: {recorded * 1000:.0f} ms through the recorded interpreter, "
                         f"{on_path * 1000:.0f} ms through bonsai-git-hook on PATH (ratio {recorded / on_path:.2f})")
            print(f"{n:>7,} | {full * 1000:>9.0f} ms | {noop * 1000:>7.0f} ms | {edit * 1000:>6.0f} ms |"
                  f" {full / n * 1e6:>6.0f} µs | {noop / n * 1e6:>7.0f} µs")
    for a, b in zip(sizes, sizes[1:]):
        marginal = (results[("noop", b)] - results[("noop", a)]) / (b - a)
        print(f"no-op hook, {a:,} -> {b:,} leaves: {marginal * 1e6:.0f} µs per extra leaf (fixed cost excluded)")
    print("\nplain git hook, no-op run (the sh script install-hook writes):")
    for line in plain:
        print(f"  {line}")
    print("\ntrees (bounded branch indexes):")
    for line in shapes:
        print(f"  {line}")
    print("\ntargets:")
    for (kind, n), target in TARGETS.items():
        if (kind, n) in results:
            got = results[(kind, n)]
            print(f"  {kind:<5} {n:>6,} leaves: {got:.3f} s (target <= {target} s) {'ok' if got <= target else 'MISSED'}")
    if ("full", 1000) in results:
        ratio = REFERENCE_BASH_SECONDS_1000 / results[("full", 1000)]
        hook_ratio = REFERENCE_BASH_SECONDS_1000 / results[("noop", 1000)]
        print(f"\nvs the reference bash implementation (~{REFERENCE_BASH_SECONDS_1000:.0f} s for 1,000 leaves): "
              f"full reindex {ratio:,.0f}x faster, whole no-op hook run {hook_ratio:,.0f}x faster")


if __name__ == "__main__":
    main()
