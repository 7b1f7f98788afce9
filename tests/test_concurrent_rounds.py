"""A real-timing loop per command (issue 21, item 1): an agent process appends one line to the
files a command plans from, at a random moment while the real command runs, round after round;
no line is ever lost, and the exit code tells the truth (0, 1 naming another process's write,
3 a refusal before writing).

Each round is a fresh workspace, the command a real `bonsai-git` (or `bonsai-git-hook`) process and
the agent a real process (appender.py --once).  Rounds per command: BONSAI_CONCURRENT_ROUNDS
(default 20, for CI time; the report's figures used 100).  `BONSAI_CONCURRENT_EXE_DIR` runs another
installation's executables, and BONSAI_CONCURRENT_MEASURE=1 counts lost lines instead of failing at
the first (to measure a build before the fix).  Run with `-s` to see each
command's outcomes.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from living_tree import DATES, LIVING, PRICING, MakeRepo, migrated, write
from support import bonsai, commit, corpus_bytes, git
from test_concurrent import everything

ROUNDS = int(os.environ.get("BONSAI_CONCURRENT_ROUNDS", "20"))
MEASURE = bool(os.environ.get("BONSAI_CONCURRENT_MEASURE"))  # count losses instead of failing at the first
BIN = Path(os.environ.get("BONSAI_CONCURRENT_EXE_DIR") or Path(sys.executable).parent)
APPENDER = Path(__file__).with_name("appender.py")
SOURCE = corpus_bytes("03-chief-of-staff-6k.md")
GLAZE = "memory/domains/general/glaze-tests.md"
ARCHIVED = "memory/archive/business/pricing.md"
TALLY: dict[str, Counter[str]] = {}


def _stale(make_repo: MakeRepo) -> Path:
    """Migrated, with an inbox to absorb and a new domain folder (every generated file is stale)."""
    repo = migrated(make_repo)
    write(repo, "memory/domains/zzstress/note.md", "## Stress note\n\nA new domain makes the trunk block stale.\n")
    with open(repo / "MEMORY.md", "a") as fh:
        fh.write("\n## Pricing update\n\nMugs are $20 now.\n\n## Birthday: Theo\n\nTheo: June 2\n")
    git(repo, "add", "-A")
    return repo


def _regroupable(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo, LIVING + "\n## Glaze tests\n\nCeladon crawls on the tall mugs.\n")
    (repo / ".bonsai.toml").write_text('[domains.studio]\nkeywords = ["glaze"]\nscope = "the pottery studio"\n')
    commit(repo, "config: a studio domain", ".bonsai.toml")
    return repo


def _archived(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo)
    os.environ["BONSAI_NOW"] = "2026-01-01"
    try:
        assert bonsai("archive", PRICING, "-C", str(repo)).exit_code == 0
    finally:
        del os.environ["BONSAI_NOW"]
    return repo


# name: (setup, command, the files the agent appends to)
COMMANDS: dict[str, tuple[Callable[[MakeRepo], Path], list[str], list[str]]] = {
    "migrate": (lambda make_repo: make_repo(SOURCE), ["bonsai-git", "migrate"], ["MEMORY.md"]),
    "flatten": (migrated, ["bonsai-git", "flatten"], [PRICING, "MEMORY.md"]),
    "move": (migrated, ["bonsai-git", "move", PRICING, "projects"], [PRICING, "MEMORY.md"]),
    "archive": (migrated, ["bonsai-git", "archive", PRICING], [PRICING, "MEMORY.md"]),
    "regroup": (_regroupable, ["bonsai-git", "regroup"], [GLAZE, "MEMORY.md"]),
    "purge": (_archived, ["bonsai-git", "purge"], [ARCHIVED]),
    "reindex": (_stale, ["bonsai-git", "reindex"], ["MEMORY.md", DATES, PRICING]),
    "absorb": (_stale, ["bonsai-git", "absorb"], ["MEMORY.md", DATES, PRICING]),
    "hook": (_stale, ["bonsai-git-hook"], ["MEMORY.md", DATES, PRICING]),
}


def _duration(repo: Path, command: list[str]) -> float:
    """How long `command` takes here, undisturbed (s): the agent's moments are spread over it (the
    shared machine's load changes it by a factor of several)."""
    start = time.monotonic()
    subprocess.run([str(BIN / command[0]), *command[1:]], cwd=repo, env=dict(os.environ, BONSAI_NOW="2027-01-01"),
                   capture_output=True, timeout=120)
    return time.monotonic() - start


def one_round(repo: Path, command: list[str], targets: list[str], delay: float) -> tuple[int, str, list[str]]:
    """Run `command` in `repo` while an agent appends once to `targets` `delay` s after both start;
    return (exit code, stderr, the tokens the agent appended)."""
    log = repo.parent / f"{repo.name}.log"
    env = dict(os.environ, BONSAI_NOW="2027-01-01")  # purge: the archived file is due
    proc = subprocess.Popen([str(BIN / command[0]), *command[1:]], cwd=repo, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    agent = subprocess.Popen([sys.executable, str(APPENDER), f"--once={delay}", str(log),
                              *(str(repo / t) for t in targets)], stdout=subprocess.DEVNULL)
    _out, err = proc.communicate(timeout=120)
    agent.wait(timeout=60)
    return proc.returncode, err.decode("utf-8", "replace"), log.read_text().split()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_no_line_is_lost_while_the_command_runs(make_repo: MakeRepo, name: str) -> None:
    setup, command, targets = COMMANDS[name]
    rng = random.Random(f"issue-21-{name}")  # the same share of the command's life every run
    span = _duration(setup(make_repo), command)
    tally = TALLY.setdefault(name, Counter())
    for n in range(ROUNDS):
        repo = setup(make_repo)
        code, err, tokens = one_round(repo, command, targets, rng.uniform(0, span))
        concurrent = "by another process" in err or "read back differently" in err
        tally[f"exit {code}{' (caught)' if concurrent else ''}"] += 1
        found = set(re.findall(r"(cw-\d+-\d+) appended", everything(repo)))
        lost = [t for t in tokens if t not in found]
        tally["lost"] += bool(lost)
        if MEASURE:
            continue
        assert code in (0, 1, 3), err
        if code == 1 and not (name == "hook" and "bonsai-git: rewrote" in err):
            assert concurrent, err
        assert not lost, f"{name} round {n}: exit {code}, {len(lost)} appended line(s) lost: {err}"
        assert not (repo / ".git/bonsai/journal.json").exists(), err


def test_report_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """Not a check: each command's outcomes over its rounds (pytest -s), for the report's figures."""
    with capsys.disabled():
        for name, counts in sorted(TALLY.items()):
            print(f"\nconcurrent rounds: {name}: {sum(v for k, v in counts.items() if k != 'lost')} rounds, "
                  f"{counts['lost']} lost, {dict(sorted(counts.items()))}")
