"""The labelled development and measure sets (issue 23) are whole: every `##` section of every memory
but a pinned one (LABELS.md leaves those out) has one label row, each row names a real heading line and
one of the twelve domains."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bonsai_git.core.classify import is_pinned
from bonsai_git.core.config import DEFAULT_DOMAIN_NAMES, Config
from bonsai_git.core.sections import split_sections

DATA = Path(__file__).parent / "classify_data"
SETS = sorted(p for p in DATA.iterdir() if (p / "labels.csv").is_file())


@pytest.mark.parametrize("labelled", SETS, ids=[p.name for p in SETS])
def test_every_section_has_one_label_on_its_heading_line(labelled: Path) -> None:
    with (labelled / "labels.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    labelled_lines = {(r["file"], int(r["line"])) for r in rows}
    assert len(labelled_lines) == len(rows), "a section is labelled twice"
    domains = set(DEFAULT_DOMAIN_NAMES) | {"general"}
    sections = set()
    for memory in sorted(labelled.glob("*.md")):
        if memory.name == "README.md":
            continue
        text = memory.read_text(encoding="utf-8")
        lines = text.splitlines()
        for s in split_sections(text).sections:
            if is_pinned(s.heading, Config()):
                continue  # LABELS.md: pinned sections are left out (they stay in the trunk)
            sections.add((memory.name, s.line))
            # `## #job …` keeps its tag; the heading's spaces are read as one (an ideographic space too)
            assert " ".join(lines[s.line - 1].removeprefix("##").split()) == " ".join(s.heading.split())
    assert labelled_lines == sections
    for r in rows:
        assert r["primary"] in domains and all(a in domains for a in filter(None, r["alternates"].split(";"))), r
