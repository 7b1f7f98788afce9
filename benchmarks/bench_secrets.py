#!/usr/bin/env python3
"""Secrets benchmark (issue 13): recall and false positives on the secrets table, and scan time
on a generated 5 MB memory; prints figures against the targets, not a test.

- Recall: of the table's positive lines (tests/secret_cases.py), each alone and with each of 10
  scripts glued to both ends, how many `find_secrets` reports with the right kind.
- False positives: of the negative lines (pointers, placeholders, documented examples, words,
  ids, allowed lines), same variants, how many get any finding.  Generated text's masking is
  stricter on purpose and not counted here.
- Scan time: `find_secrets` (what status and the hooks run) and `mask_secrets` (what the indexes
  run) on a 5 MB MEMORY.md made of the shared corpus (English, Chinese, mixed) with the table's
  lines sprinkled in; median of 5 runs, target < 1 s; the findings must be exactly the
  sprinkled positives.

usage: python benchmarks/bench_secrets.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bonsai_git.core.secretscan import find_secrets, mask_secrets  # noqa: E402
from secret_cases import NEGATIVES, POSITIVES, SCRIPTS, variants  # noqa: E402

SIZE = 5_000_000


def table_figures() -> tuple[int, int, int, int, list[str]]:
    """(true positives, positive variants, false positives, negative variants, misses/false alarms)."""
    hits = total = false = negatives = 0
    problems = []
    for kind, line in POSITIVES:
        for label, text in variants(line):
            total += 1
            got = [f.kind for f in find_secrets(text)]
            if got == [kind]:
                hits += 1
            else:
                problems.append(f"missed ({label}): {kind} -> {got}")
    for line in NEGATIVES:
        for label, text in variants(line):
            negatives += 1
            if find_secrets(text):
                false += 1
                problems.append(f"false alarm ({label}): {[f.kind for f in find_secrets(text)]}")
    return hits, total, false, negatives, problems


def generated_memory() -> tuple[str, int]:
    """A ~5 MB MEMORY.md: corpus text with a table line after every ~40 lines; and how many
    positive variants it holds."""
    corpus = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "corpus").glob("[0-9]*.md"))]
    sprinkled = [text for _kind, line in POSITIVES for _label, text in variants(line)]
    sprinkled += [text for line in NEGATIVES for _label, text in variants(line)]
    lines = "\n".join(corpus).split("\n")
    out: list[str] = []
    size = positives = 0
    i = j = 0
    while size < SIZE:
        chunk = "\n".join(lines[i % len(lines) : i % len(lines) + 40]) + "\n"
        extra = sprinkled[j % len(sprinkled)]
        if j % len(sprinkled) < len(POSITIVES) * (len(SCRIPTS) + 1):
            positives += 1
        out += [chunk, "\n", extra, "\n\n"]
        size += len(chunk) + len(extra) + 3
        i += 40
        j += 1
    return "".join(out), positives


def median_seconds(fn: object, text: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(text)  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    hits, total, false, negatives, problems = table_figures()
    print("== secrets table (tests/secret_cases.py) ==")
    print(f"cases: {len(POSITIVES)} positive, {len(NEGATIVES)} negative lines x {len(SCRIPTS) + 1} variants "
          f"(alone + {len(SCRIPTS)} scripts touching both ends)")
    print(f"recall:          {hits}/{total} = {hits / total:.3f}   (target 1.000)")
    print(f"false positives: {false}/{negatives} = {false / negatives:.3f}   (target 0.000)")
    for problem in problems[:20]:
        print("  " + problem)
    text, positives = generated_memory()
    found = find_secrets(text)
    print(f"\n== scan of a generated memory: {len(text.encode('utf-8')) / 1e6:.1f} MB, {len(text):,} chars, "
          f"{text.count(chr(10)):,} lines ==")
    print(f"findings: {len(found)} (positives sprinkled: {positives})")
    report = median_seconds(find_secrets, text)
    masked = median_seconds(mask_secrets, text)
    print(f"find_secrets (status, hooks): {report:.3f} s   (target < 1 s: {'ok' if report < 1 else 'OVER'})")
    print(f"mask_secrets (generated text): {masked:.3f} s")


if __name__ == "__main__":
    main()
