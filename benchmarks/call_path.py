#!/usr/bin/env python3
"""Follow `bonsai-git migrate` from the CLI to the commit and count its module crossings (issue 9).

Runs the real CLI (click's CliRunner) on one corpus file in a fresh git repository, with a
profiler hook that sees every Python call.  Only calls from one bonsai_git module into another
count; calls into the standard library or other packages are not crossings.  Prints:

- modules: how many bonsai_git modules the run enters;
- crossings: calls whose caller and callee are in different bonsai_git modules;
- back-and-forth: for each pair of modules {A, B}, the times control moved A -> B after it had
  moved B -> A (a return to a module that called out, then called in again); the sum over pairs,
  and the pairs with the most;
- switches: along the run, the times a module's outgoing calls go to a different module than its
  previous outgoing call (transaction -> gitrepo -> journal -> gitrepo counts 3), per caller, with
  the folded sequence of the busiest orchestrator so a reader can see the path.

usage: python benchmarks/call_path.py [corpus-file] [--top N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"
PACKAGE = "bonsai_git"


def _module_of(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        return name[len(PACKAGE) + 1:] or "__init__"
    return None


def trace_migrate(memory: Path, top: int, show: str) -> None:
    """Migrate *memory* (a Markdown file) in a fresh repository under the profiler; print the counts."""
    from click.testing import CliRunner

    from bonsai_git.cli import main

    work = Path(tempfile.mkdtemp(prefix="bonsai-callpath-"))
    try:
        env = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com",
                   GIT_COMMITTER_NAME="B", GIT_COMMITTER_EMAIL="b@example.com",
                   GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
        os.environ.update(env)
        subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
        shutil.copyfile(memory, work / "MEMORY.md")
        subprocess.run(["git", "-C", str(work), "add", "MEMORY.md"], check=True)
        subprocess.run(["git", "-C", str(work), "commit", "-q", "-m", "seed"], check=True)

        modules: set[str] = set()
        crossings: Counter[tuple[str, str]] = Counter()
        last_direction: dict[frozenset[str], tuple[str, str]] = {}
        back_and_forth: Counter[frozenset[str]] = Counter()
        path: list[str] = []
        outgoing: dict[str, list[str]] = {}

        def profile(frame: FrameType, event: str, arg: Any) -> None:
            if event != "call":
                return
            callee = _module_of(frame)
            if callee is None:
                return
            modules.add(callee)
            back = frame.f_back
            caller = _module_of(back) if back is not None else None
            if caller is None or caller == callee:
                return
            crossings[(caller, callee)] += 1
            pair = frozenset((caller, callee))
            previous = last_direction.get(pair)
            if previous is not None and previous != (caller, callee):
                back_and_forth[pair] += 1
            last_direction[pair] = (caller, callee)
            if not path or path[-1] != callee:
                path.append(callee)
            calls = outgoing.setdefault(caller, [])
            if not calls or calls[-1] != callee:
                calls.append(callee)

        sys.setprofile(profile)
        try:
            result = CliRunner().invoke(main, ["migrate", "-C", str(work)])
        finally:
            sys.setprofile(None)
        if result.exit_code != 0:
            raise SystemExit(f"migrate failed ({result.exit_code}): {result.output}")
        print(f"migrate {memory.name}")
        print(f"  modules entered: {len(modules)}")
        print(f"  cross-module calls: {sum(crossings.values())} over {len(crossings)} distinct caller->callee edges")
        print(f"  back-and-forth (direction changes between a pair): {sum(back_and_forth.values())}")
        for pair, count in back_and_forth.most_common(top):
            print(f"    {count:5d}  {' <-> '.join(sorted(pair))}")
        switches = {caller: len(calls) - 1 for caller, calls in outgoing.items()}
        print(f"  switches (a module's next outgoing call goes to another module): {sum(switches.values())}")
        for caller, count in sorted(switches.items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
            print(f"    {count:5d}  from {caller}")
        for name in dict.fromkeys([show, max(switches, key=lambda c: (switches[c], c))]):
            calls = outgoing.get(name, [])
            shown = calls[:40]
            more = f" ... (+{len(calls) - len(shown)})" if len(calls) > len(shown) else ""
            print(f"  {name}'s outgoing path ({max(len(calls) - 1, 0)} switches): {' > '.join(shown)}{more}")
        print(f"  modules in order of first entry: {', '.join(dict.fromkeys(path))}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("memory", nargs="?", default=str(CORPUS / "03-chief-of-staff-6k.md"))
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--show", default="transaction", help="also print this module's outgoing path")
    args = parser.parse_args()
    trace_migrate(Path(args.memory), args.top, args.show)


if __name__ == "__main__":
    main()
