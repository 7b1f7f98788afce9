"""Silent surprises get a word (issue 20 "Say what you see"): a `##` section written above the generated
block, and a flatten whose MEMORY.md a boot cap would cut (flatten says so, and status says so before)."""

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


def _flatten_cut(ws: Path, *args: str) -> list[str]:
    """status --json's flatten_cut notes (a note, not a warning: the workspace stays healthy)."""
    import json

    result = CliRunner().invoke(main, ["status", "-C", str(ws), "--json", *args])
    return [n for n in json.loads(result.stdout)["notes"] if n.startswith("flatten_cut: ")]


def test_status_notes_when_flattening_now_would_be_cut_at_boot(make_repo: MakeRepo) -> None:
    """A 99 KB memory, migrated: the trunk fits, but the flat file flatten would write does not; status
    says so with flatten's own figures, under the profile chosen, and touches nothing."""
    ws = migrated(make_repo, corpus_bytes("23-long-running-agent-25k.md").decode("utf-8"))
    head = git(ws, "rev-parse", "HEAD")
    text = CliRunner().invoke(main, ["status", "-C", str(ws)])
    line = next(l for l in text.stdout.splitlines() if "if flattened now" in l)
    flat = CliRunner().invoke(main, ["flatten", "-C", str(ws), "--dry-run"])
    said = flat.stderr.removeprefix("warning: ").split(";")[0].strip()  # "MEMORY.md would be N chars: ... other M"
    assert line == f"note: flatten_cut: if flattened now, {said}; keep the tree, or archive or trim memories " \
                   "before you flatten"
    assert "OpenClaw 2026.9 loads 20,000 at boot" in line
    assert "flatten_cut" not in "".join(l for l in text.stdout.splitlines() if not l.startswith("note: "))
    claude = _flatten_cut(ws, "--profile", "claude")
    assert len(claude) == 1 and "Claude Code loads" in claude[0]
    assert _flatten_cut(ws, "--file-cap", "200000", "--total-cap", "200000") == []  # caps that fit it: no word
    assert git(ws, "rev-parse", "HEAD") == head and git(ws, "status", "--porcelain") == ""


def test_status_counts_later_memories_in_the_flatten_cut(make_repo: MakeRepo) -> None:
    """Memories written after the migration are part of what flatten would write: a small workspace
    grows past the cap by a leaf, and status says so, with flatten's figure; it stays healthy."""
    ws = migrated(make_repo)
    assert _flatten_cut(ws) == []
    big = "## Field notes\n\n" + "".join(f"- note {i}: the kiln ran at cone 6 for nine hours, then cooled.\n"
                                           for i in range(400))
    (ws / "memory/domains/general").mkdir(parents=True, exist_ok=True)
    (ws / "memory/domains/general/field-notes.md").write_text(big, encoding="utf-8")
    git(ws, "add", "-A")
    CliRunner().invoke(main, ["reindex", "-C", str(ws)])  # the new leaf indexed
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--no-verify", "-m", "a long leaf")
    (note,) = _flatten_cut(ws)
    status = CliRunner().invoke(main, ["status", "-C", str(ws)])
    flat = CliRunner().invoke(main, ["flatten", "-C", str(ws), "--dry-run"])
    assert flat.exit_code == 0, flat.output
    assert note.split(";")[0] == "flatten_cut: if flattened now, " + flat.stderr.removeprefix("warning: ").split(";")[0]
    assert "note: flatten_cut: if flattened now" in status.stdout
    assert "flatten_cut" not in status.stdout.split("Warnings (", 1)[-1]  # a note, never one of the warnings


@pytest.mark.parametrize("state", ["not-migrated", "migrated"])
def test_status_names_a_memory_md_that_is_not_utf8_and_touches_nothing(make_repo: MakeRepo, state: str) -> None:
    """A MEMORY.md saved in another encoding (a Latin-1 byte) is bad input for every command: status
    says so in one line naming the file and the byte offset, exits non-zero, and the tree stays as it is
    (it said "Healthy." before migration, and after it only counted the section, silently)."""
    if state == "migrated":
        ws = migrated(make_repo)
        data = (ws / "MEMORY.md").read_bytes() + b"\n## Caf\xe9 orders\n\nTwo crates a week.\n"
    else:
        data = b"# Memory\n\n## Caf\xe9 orders\n\nTwo crates a week.\n"
        ws = make_repo(data)
    (ws / "MEMORY.md").write_bytes(data)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--no-verify", "--allow-empty", "-m", "latin-1")
    head = git(ws, "rev-parse", "HEAD")
    result = CliRunner().invoke(main, ["status", "-C", str(ws)])
    offset = data.index(b"\xe9")
    lines = [l for l in result.stdout.splitlines() if "not valid UTF-8" in l]
    assert result.exit_code != 0 and "Healthy." not in result.stdout
    assert lines == [f"  MEMORY.md: not valid UTF-8 at byte offset {offset}; save it as UTF-8 and retry"], result.stdout
    assert git(ws, "status", "--porcelain") == "" and git(ws, "rev-parse", "HEAD") == head
    assert (ws / "MEMORY.md").read_bytes() == data
