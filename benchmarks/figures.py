#!/usr/bin/env python3
"""The deterministic figures the README and docs/ quote, computed from the code (issue 20).

A page quotes a figure as `<!-- fig:NAME -->VALUE<!-- /fig -->` (the comment is invisible when rendered);
tests/test_docs_figures.py checks every such VALUE against FIGURES[NAME]() and
`pytest tests/test_docs_figures.py --update-docs` rewrites them.  Timing figures are not here: they vary
by machine, so docs/performance.md gives them with the command that printed them, its date and machine.

usage: python benchmarks/figures.py     (prints every figure)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


@cache
def boot_chars4(name: str) -> tuple[int, int]:
    """ceil(chars/4) of a corpus file's MEMORY.md before, and of the trunk a migration leaves."""
    text = (CORPUS / name).read_bytes().decode("utf-8")
    trunk = plan_migration(text, Config()).file_map()["MEMORY.md"]
    return math.ceil(len(text) / 4), math.ceil(len(trunk) / 4)


@cache
def corpus_reductions() -> tuple[float, ...]:
    """The boot-token cut (0..1) of every corpus file of >= 1,000 tokens, in file order."""
    pairs = [boot_chars4(p.name) for p in sorted(CORPUS.glob("[0-9]*.md"))]
    return tuple(1 - after / before for before, after in pairs if before >= 1000)


@cache
def demo_plan() -> tuple[int, int, int]:
    """Boot tokens before and after, and the number of domains, of the bundled demo sample."""
    from bonsai_git.demo import sample_memory

    plan = plan_migration(sample_memory().decode("utf-8"), Config())
    return plan.boot_tokens_before, plan.boot_tokens_after, len(plan.domains)


@cache
def corpus_23_flatten_cut() -> str:
    """What flatten (and status' flatten_cut) says of corpus 23 right after its migration, up to the advice:
    the flat file is the original byte for byte then, so it is boot_cut_warning of the original."""
    from bonsai_git.core.boot import DEFAULT_PROFILE, boot_cut_warning, profile_named

    text = (CORPUS / "23-long-running-agent-25k.md").read_bytes().decode("utf-8")
    warning = boot_cut_warning(text, profile_named(DEFAULT_PROFILE))
    assert warning is not None
    return warning.split(";")[0]


def _pair(name: str) -> str:
    before, after = boot_chars4(name)
    return f"{before:,} → {after:,}"


FIGURES: dict[str, Callable[[], str]] = {
    "corpus-mean-reduction": lambda: f"{100 * sum(corpus_reductions()) / len(corpus_reductions()):.1f}%",
    "corpus-files-over-1000": lambda: str(len(corpus_reductions())),
    "corpus-03-boot": lambda: _pair("03-chief-of-staff-6k.md"),
    "corpus-23-boot": lambda: _pair("23-long-running-agent-25k.md"),
    "demo-boot-before": lambda: f"{demo_plan()[0]:,}",
    "demo-boot-after": lambda: f"{demo_plan()[1]:,}",
    "demo-domains": lambda: str(demo_plan()[2]),
    "corpus-23-flatten-cut": corpus_23_flatten_cut,
}


if __name__ == "__main__":
    for key, figure in FIGURES.items():
        print(f"{key:28} {figure()}")
