"""Silent surprises get a word (issue 20 "Say what you see"): a `##` section written above the generated
block, and a flatten whose MEMORY.md a boot cap would cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.core.absorb import sections_above_block
from bonsai_git.core.config import Config
from bonsai_git.core.layout import BEGIN
from living_tree import MakeRepo, migrated
from support import corpus_bytes, git


@pytest.mark.parametrize(("pinned", "expected"), [
    ("# Memory\n\nAnswer briefly.\n\n", ()),
    ("# Memory\n\n## 📌 Core rules\n\nNever spend money.\n\n", ()),
    ("# Memory\n\n## Identity (pinned)\n\nJuno.\n\n## Dentist\n\nCheck-up 2027-01-12.\n\n", ((7, "Dentist"),)),
    ("# Memory\n\nDentist\n-------\n\nCheck-up.\n\n", ((3, "Dentist"),)),
    ("# Memory\n\n```\n## not a heading\n```\n\n", ()),
])
def test_sections_above_block_finds_what_no_pin_rule_keeps(pinned: str, expected: tuple[tuple[int, str], ...]) -> None:
    assert sections_above_block(pinned, Config()) == expected


def test_a_pinned_rule_in_config_keeps_a_section_above_the_block() -> None:
    config = Config(pinned=("Dentist",))
    assert sections_above_block("# M\n\n## Dentist\n\nx\n", config) == ()


def _write_above_block(ws: Path, section: str) -> None:
    text = (ws / "MEMORY.md").read_text(encoding="utf-8")
    at = text.index(BEGIN)
    (ws / "MEMORY.md").write_text(text[:at] + section + text[at:], encoding="utf-8")


def test_status_warns_about_a_section_written_above_the_block(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    _write_above_block(ws, "## Dentist\n\nNext check-up on 2027-01-12.\n\n")
    result = CliRunner().invoke(main, ["status", "-C", str(ws)])
    assert result.exit_code == 1, result.output
    line = next(l for l in result.stdout.splitlines() if "Dentist" in l)
    assert line.strip().startswith("MEMORY.md:")
    assert "above the generated block" in line and "below the end marker" in line and "pin it" in line


def test_status_is_quiet_about_a_pinned_section_above_the_block(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    _write_above_block(ws, "## 📌 Dentist\n\nNext check-up on 2027-01-12.\n\n")
    result = CliRunner().invoke(main, ["status", "-C", str(ws), "--json"])
    assert "above the generated block" not in result.stdout


def test_flatten_warns_when_the_flat_memory_would_be_cut_at_boot(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo, corpus_bytes("23-long-running-agent-25k.md").decode("utf-8"))
    head = git(ws, "rev-parse", "HEAD")
    result = CliRunner().invoke(main, ["flatten", "-C", str(ws), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "warning: MEMORY.md would be" in result.stderr and "20,000" in result.stderr
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""


def test_flatten_says_nothing_of_boot_caps_when_the_flat_memory_fits(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    result = CliRunner().invoke(main, ["flatten", "-C", str(ws), "--dry-run"])
    assert result.exit_code == 0 and "would be" not in result.stderr
