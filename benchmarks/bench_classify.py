#!/usr/bin/env python3
"""Classifier benchmark (issue 10): agreement with a careful human's labels, and speed; not a test.

Prints, on the corpus's labels.csv (`file,line,heading,primary,alternates,basis`, LABELS.md):
- agreement on the primary label, and on the primary or a listed alternate (targets >= 80%, >= 90%);
- the share of sections placed in `general`, ours vs the human's (target: within 5 points);
- per-domain precision and recall against the primary label;
- the time to classify 1,000 sections (heading, body, group, document: target <= 30 ms) and to plan
  a 1,000-section file end to end (split, classify, name, render, verify: target <= 0.1 s).

Sections are classified as migrate places them (plan_migration: pinned sections are not labelled).

usage: python benchmarks/bench_classify.py [CORPUS_DIR]
  CORPUS_DIR defaults to ../shared/corpus beside the repository, else tests/corpus.
"""

from __future__ import annotations

import csv
import sys
import time
from collections import Counter
from pathlib import Path

from bonsai_git.core.classify import SectionInput, body_of, classify_document
from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.sections import split_sections

ROOT = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    """The labelled corpus: argv[1], ../shared/corpus beside the repo, or tests/corpus."""
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    shared = ROOT.parent / "shared" / "corpus"
    return shared if (shared / "labels.csv").is_file() else ROOT / "tests" / "corpus"


def predictions(corpus: Path, config: Config) -> dict[tuple[str, int], str]:
    """{(file, 1-based heading line): domain} for every `##` section migrate would place in a leaf."""
    out: dict[tuple[str, int], str] = {}
    for path in sorted(corpus.glob("*.md")):
        if path.name in ("README.md", "LABELS.md"):
            continue
        plan = plan_migration(path.read_bytes().decode("utf-8"), config)
        for placed in plan.placed:
            out[(path.name, placed.line)] = placed.domain
    return out


def main() -> int:
    corpus = corpus_dir()
    config = Config()
    with (corpus / "labels.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ours = predictions(corpus, config)
    primary = either = ours_general = human_general = missing = 0
    tp: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    actual: Counter[str] = Counter()
    for row in rows:
        got = ours.get((row["file"], int(row["line"])))
        if got is None:
            missing += 1
            continue
        alternates = {a for a in row["alternates"].split(";") if a}
        primary += got == row["primary"]
        either += got == row["primary"] or got in alternates
        ours_general += got == "general"
        human_general += row["primary"] == "general"
        predicted[got] += 1
        actual[row["primary"]] += 1
        tp[got] += got == row["primary"]
    n = len(rows) - missing
    print(f"corpus: {corpus}  labelled sections: {len(rows)}  unmatched: {missing}")
    print(f"primary agreement:              {100 * primary / n:5.1f}%   (target >= 80%)")
    print(f"primary-or-alternate agreement: {100 * either / n:5.1f}%   (target >= 90%)")
    print(f"share in general: ours {100 * ours_general / n:4.1f}%  human {100 * human_general / n:4.1f}%  "
          f"(target: within 5 points; off by {100 * abs(ours_general - human_general) / n:.1f})")
    print(f"{'domain':<16}{'precision':>10}{'recall':>8}{'ours':>6}{'human':>7}")
    for domain in [d for d, _ in config.domains] + ["general"] * all(d != "general" for d, _ in config.domains):
        p = tp[domain] / predicted[domain] if predicted[domain] else float("nan")
        r = tp[domain] / actual[domain] if actual[domain] else float("nan")
        print(f"{domain:<16}{100 * p:>9.0f}%{100 * r:>7.0f}%{predicted[domain]:>6}{actual[domain]:>7}")
    time_classify(corpus, config)
    time_plan(config)
    return 0


def _corpus_sections(corpus: Path) -> list[SectionInput]:
    out = []
    for path in sorted(corpus.glob("*.md")):
        for s in split_sections(path.read_bytes().decode("utf-8")).sections:
            out.append(SectionInput(s.heading, body_of(s.text), s.group))
    return out


def time_classify(corpus: Path, config: Config, runs: int = 7) -> None:
    """Best-of-`runs` time to classify 1,000 real corpus sections (repeated to 1,000), cache warm."""
    sections = _corpus_sections(corpus)
    batch = (sections * (1000 // len(sections) + 1))[:1000]
    classify_document(batch[:10], config)  # compile the keyword index once, as a long run would
    best = min(_timed(lambda: classify_document(batch, config)) for _ in range(runs))
    print(f"classify 1,000 sections: {best * 1000:.1f} ms   (target <= 30 ms)")


def time_plan(config: Config, runs: int = 5) -> None:
    """Best-of-`runs` time to plan a generated 1,000-section file end to end."""
    text = "# Memory\n\n" + "".join(
        f"## Section {i} about {('clients', 'servers', 'Person: Ann', 'notes', '2026-03-01')[i % 5]}\n\n"
        f"Body line {i} with some words about the topic and a link.\n\n" for i in range(1000))
    best = min(_timed(lambda: plan_migration(text, config)) for _ in range(runs))
    print(f"plan 1,000 sections end to end: {best:.3f} s   (target <= 0.1 s)")


def _timed(fn: object) -> float:
    assert callable(fn)
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
