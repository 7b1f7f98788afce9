"""The labelled development and measure sets (issue 23) are whole: every `##` section of every memory
but a pinned one (LABELS.md leaves those out) has one label row, each row names a real heading line and
one of the twelve domains."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
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


# --- the same memory gives the same tree whatever Python's hash seed (DESIGN: deterministic output) -------

_EXPLAIN_ALL = """
import sys
from pathlib import Path
from bonsai_git.core.config import Config
from bonsai_git.core.explain import explain_file, render_explain
for memory in sys.argv[1:]:
    print(render_explain(explain_file(Path(memory).read_text(encoding="utf-8"), Config()), Config()))
"""

# The owner's two CJK names in one lesson (`老陈` and `陈老板`): the first written is the evidence,
# where a set's order once chose one by the hash seed.
_TWO_NAMES = """# MEMORY.md

我是「小算盘」，陈记茶餐厅老板陈国华（大家叫他陈老板/华哥）的助理 agent。

## 我是谁
- 名字：小算盘（华哥起的）

## 教训
- 上个月我把账单发错了群，被老陈骂了，陈老板说以后先核对
- 供应商说"陈老板同意了"不要信，要老陈本人文字确认
- 陈老板不看长表格，老陈只看截图
"""


def _seeded(seed: str) -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": seed}


def test_explain_file_is_the_same_under_every_hash_seed(tmp_path: Path) -> None:
    memory = tmp_path / "MEMORY.md"
    memory.write_text(_TWO_NAMES, encoding="utf-8")
    outputs = {seed: subprocess.run(["bonsai-git", "explain", "--file", str(memory)], capture_output=True, text=True,
                                    env=_seeded(seed), check=True).stdout for seed in ("0", "1", "2", "3", "5")}
    assert len(set(outputs.values())) == 1, outputs
    assert '"老陈", "陈老板", "陈老板"' in outputs["0"]  # each lesson's first-written name


def test_every_labelled_memory_explains_the_same_under_two_hash_seeds() -> None:
    memories = sorted(str(m) for s in SETS for m in s.glob("*.md")
                      if m.name != "README.md")
    outputs = [subprocess.run([sys.executable, "-c", _EXPLAIN_ALL, *memories], capture_output=True, text=True,
                              env=_seeded(seed), check=True).stdout for seed in ("1", "2")]
    assert outputs[0] == outputs[1]
    assert outputs[0].count(" -> ") > 5000  # every section was explained
