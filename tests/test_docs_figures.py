"""Every figure the README and docs/ quote as `<!-- fig:NAME -->VALUE<!-- /fig -->` is what
benchmarks/figures.py computes from today's code (issue 20); `--update-docs` rewrites them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from docs_examples import ROOT, doc_pages

_FIG = re.compile(r"<!-- fig:([\w-]+) -->(.*?)<!-- /fig -->")


def _figures() -> dict[str, object]:
    spec = importlib.util.spec_from_file_location("bonsai_figures", ROOT / "benchmarks" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.FIGURES)


FIGURES = _figures()
PAGES = [page for page in doc_pages() if page.exists()]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_quoted_figures_are_what_the_benchmark_computes(page: Path, request: pytest.FixtureRequest) -> None:
    text = page.read_text(encoding="utf-8")
    unknown = sorted({name for name, _ in _FIG.findall(text) if name not in FIGURES})
    assert unknown == [], f"{page.name}: no such figure in benchmarks/figures.py"
    if request.config.getoption("--update-docs"):
        new = _FIG.sub(lambda m: f"<!-- fig:{m.group(1)} -->{FIGURES[m.group(1)]()}<!-- /fig -->", text)  # type: ignore[operator]
        if new != text:
            page.write_text(new, encoding="utf-8")
        return
    stale = [(name, shown, FIGURES[name]()) for name, shown in _FIG.findall(text)  # type: ignore[operator]
             if shown != FIGURES[name]()]  # type: ignore[operator]
    assert stale == [], f"{page.name}: (figure, shown, computed); run pytest {Path(__file__).name} --update-docs"


def test_the_readme_quotes_its_headline_figures() -> None:
    names = set(_FIG.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    assert {"corpus-mean-reduction"} <= {name for name, _ in names}
