"""Golden trees: tests/golden/<case>/MEMORY.md -> the whole planned tree, byte for byte.

Regenerate with `pytest tests/test_golden.py --update-goldens`, then read the diff like code.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "MEMORY.md").is_file())


@pytest.mark.parametrize("case", CASES)
def test_plan_migration_matches_golden_tree(case: str, request: pytest.FixtureRequest) -> None:
    source = (GOLDEN / case / "MEMORY.md").read_bytes().decode("utf-8")
    planned = {path: text.encode("utf-8") for path, text in plan_migration(source, Config()).files}
    expected_dir = GOLDEN / case / "expected"
    if request.config.getoption("--update-goldens"):
        shutil.rmtree(expected_dir, ignore_errors=True)
        for path, data in planned.items():
            (expected_dir / path).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / path).write_bytes(data)
    expected = {p.relative_to(expected_dir).as_posix(): p.read_bytes() for p in expected_dir.rglob("*") if p.is_file()}
    assert sorted(planned) == sorted(expected)
    for path in planned:
        assert planned[path] == expected[path], f"{case}: {path} differs from its golden file"


def test_golden_cases_cover_at_least_six_shapes() -> None:
    assert len(CASES) >= 6
