"""absorb: new `##` sections after MEMORY.md's end marker move into leaves, byte for byte, and nothing is lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git import reindex as reindex_module
from bonsai_git.core.absorb import AbsorbPlan, may_hold_sections, plan_absorb, verify_absorbed
from bonsai_git.cli import main
from bonsai_git.core.config import Config, parse_config
from bonsai_git.core.errors import Failed
from bonsai_git.reindex import reindex_workspace
from living_tree import DATES, MakeRepo, migrated, rebuilt_from_scratch, tree_files, write
from support import git

CONFIG = Config()


def plan(inbox: str, taken: dict[str, tuple[str, ...]] | None = None, dates: str | None = None) -> AbsorbPlan:
    return plan_absorb(inbox, CONFIG, taken or {}, {"memory/dates.md": dates})


def test_plan_absorb_moves_each_section_into_a_new_leaf_of_its_domain() -> None:
    p = plan("\n## Pricing update\n\nMugs are $20 now.\n\n## Reading notes\n\nChapter 8.\n")
    assert p.files == (
        ("memory/domains/business/pricing-update.md", "## Pricing update\n\nMugs are $20 now.\n\n"),
        ("memory/domains/general/reading-notes.md", "## Reading notes\n\nChapter 8.\n"),
    )
    assert p.inbox == ""  # the blank line before the sections goes with them: no blank line left at the end (issue 22)
    assert [(s.heading, s.domain) for s in p.sections] == [("Pricing update", "business"), ("Reading notes", "general")]


def test_plan_absorb_never_reuses_a_taken_name() -> None:
    p = plan("## Pricing\nA\n## Pricing list\nB\n", taken={"business": ("Pricing", "pricing-2", "PRICING-LIST")})
    assert [path for path, _ in p.files] == ["memory/domains/business/pricing-3.md",
                                             "memory/domains/business/pricing-list-2.md"]


def test_plan_absorb_appends_dates_in_order() -> None:
    p = plan("## Birthday: Ada\nOct 12\n## Anniversary\nJune 1\n", dates="## Dates to remember\n- Sam: May 3\n")
    assert p.files == (("memory/dates.md",
                        "## Dates to remember\n- Sam: May 3\n## Birthday: Ada\nOct 12\n## Anniversary\nJune 1\n"),)


@pytest.mark.parametrize(("existing", "expected"), [
    ("## Dates\n- a", "## Dates\n- a\n## Birthday\nx\n"),            # no final newline: one inserted
    ("## Dates\r\n- a", "## Dates\r\n- a\r\n## Birthday\nx\n"),      # in the file's own style
    (None, "## Birthday\nx\n"),                                       # created
    ("", "## Birthday\nx\n"),
])
def test_plan_absorb_keeps_an_appended_heading_a_heading(existing: str | None, expected: str) -> None:
    assert plan("## Birthday\nx\n", dates=existing).files == (("memory/dates.md", expected),)


def test_plan_absorb_leaves_pinned_sections_and_loose_text_in_the_trunk() -> None:
    inbox = "Loose note before any heading.\n\n## 📌 New hard rule\nNever email Bob.\n## Cron jobs\n- nightly\n"
    p = plan(inbox)
    assert p.inbox == "Loose note before any heading.\n\n## 📌 New hard rule\nNever email Bob.\n"
    assert p.files == (("memory/domains/infrastructure/cron-jobs.md", "## Cron jobs\n- nightly\n"),)


def test_plan_absorb_splits_as_migrate_does() -> None:
    inbox = "```\n## not a heading\n```\nSetext Family\n-------------\nKids\n"
    p = plan(inbox)
    assert p.inbox == "```\n## not a heading\n```\n"
    assert p.files == (("memory/domains/identity/setext-family.md", "Setext Family\n-------------\nKids\n"),)


def test_plan_absorb_without_sections_changes_nothing() -> None:
    p = plan("\nJust a trailing note.\n")
    assert (p.files, p.sections, p.inbox) == ((), (), "\nJust a trailing note.\n")
    assert not may_hold_sections("\nJust a trailing note.\n") and may_hold_sections("x\n## y\n")


def test_verify_absorbed_names_a_section_that_is_not_on_disk() -> None:
    inbox = "## Pricing update\nMugs $20.\n"
    p = plan(inbox)
    verify_absorbed(inbox, p, dict(p.files))
    with pytest.raises(Failed, match=r"^memory/domains/business/pricing-update\.md: the absorbed section 'Pricing update'"):
        verify_absorbed(inbox, p, {"memory/domains/business/pricing-update.md": "## Pricing"})
    with pytest.raises(Failed, match="do not reproduce the inbox"):
        verify_absorbed(inbox, p, {"memory/domains/business/pricing-update.md": "## Pricing update\nMugs $21.\n"})


PIECES = st.sampled_from([
    "## Pricing\n", "## 📌 Rule\n", "## Birthday\n", "## 家庭\n", "## Cron\r\n", "text line\n", "\n", "```\n",
    "## Pricing", "Setext\n---\n", "- item\n", "<!-- c -->\n", "## \n",
])


@given(st.lists(PIECES, max_size=12), st.sampled_from([None, "", "## Dates\n", "## Dates"]))
def test_plan_absorb_loses_nothing(pieces: list[str], dates: str | None) -> None:
    inbox = "".join(pieces)
    p = plan(inbox, taken={"business": ("pricing",)}, dates=dates)
    verify_absorbed(inbox, p, dict(p.files))
    for s in p.sections:
        assert dict(p.files)[s.path][s.offset : s.offset + s.length] in inbox
    if dates is not None and "memory/dates.md" in dict(p.files):
        assert dict(p.files)["memory/dates.md"].startswith(dates)


# --- absorbing in a workspace ---------------------------------------------------------------------

NEW = "\n## Pricing update\n\nMugs are $20 from April.\n\n## Birthday: Theo\n\nJune 9.\n"


def append(ws: Path, text: str) -> None:
    with (ws / "MEMORY.md").open("ab") as fh:
        fh.write(text.encode("utf-8"))


def test_absorb_command_moves_the_sections_and_reindexes(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    trunk_before = (ws / "MEMORY.md").read_bytes()
    dates_before = (ws / DATES).read_bytes()
    append(ws, NEW)
    result = CliRunner().invoke(main, ["absorb", "-C", str(ws)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "absorbed 'Pricing update' -> memory/domains/business/pricing-update.md" in result.stdout
    assert "absorbed 'Birthday: Theo' -> memory/dates.md" in result.stdout
    assert (ws / "memory/domains/business/pricing-update.md").read_bytes() == b"## Pricing update\n\nMugs are $20 from April.\n\n"
    assert (ws / DATES).read_bytes() == dates_before + b"## Birthday: Theo\n\nJune 9.\n"
    trunk = (ws / "MEMORY.md").read_bytes()
    # the sections and the blank line before them left: MEMORY.md's own text is as it was (the block may
    # name a new topic, issue 24)
    from bonsai_git.core.layout import parse_trunk
    now, then = parse_trunk(trunk.decode("utf-8")), parse_trunk(trunk_before.decode("utf-8"))
    assert now is not None and then is not None and (now.pinned, now.inbox) == (then.pinned, then.inbox)
    assert "pricing-update.md" in (ws / "memory/domains/business/_index.md").read_text()
    assert tree_files(ws) == rebuilt_from_scratch(ws, tmp_path)
    assert "git add -- memory/domains/business/pricing-update.md" in result.stderr  # indexed once git tracks it
    git(ws, "add", "--", "memory/domains/business/pricing-update.md")
    again = CliRunner().invoke(main, ["absorb", "-C", str(ws)], catch_exceptions=False)
    assert "nothing to absorb" in again.stdout and "wrote" not in again.stdout


def test_absorb_dry_run_writes_nothing(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    append(ws, NEW)
    before = tree_files(ws)
    result = CliRunner().invoke(main, ["absorb", "-C", str(ws), "--dry-run"], catch_exceptions=False)
    assert "would absorb 'Pricing update' -> memory/domains/business/pricing-update.md" in result.stdout
    assert tree_files(ws) == before


def test_absorb_keeps_crlf_and_never_overwrites_a_file_on_disk(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    write(ws, "memory/domains/business/pricing-update.md", "untracked note with the same name\n")
    append(ws, "## Pricing update\r\nMugs $20.\r\n")
    reindex_workspace(ws, absorb=True)
    assert (ws / "memory/domains/business/pricing-update.md").read_text() == "untracked note with the same name\n"
    assert (ws / "memory/domains/business/pricing-update-2.md").read_bytes() == b"## Pricing update\r\nMugs $20.\r\n"


def test_absorb_off_leaves_the_inbox_and_counts_it(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo)
    append(ws, NEW)
    result = reindex_workspace(ws, absorb=False)
    assert result.inbox_sections == 2 and result.absorbed == ()
    assert (ws / "MEMORY.md").read_bytes().endswith(NEW.encode())


def test_absorb_failed_verification_leaves_memory_md_and_removes_new_leaves(
    make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = migrated(make_repo)
    append(ws, NEW)
    before = tree_files(ws)
    import bonsai_git.core.absorb as absorb_module

    def corrupt(old_inbox: str, p: AbsorbPlan, files: dict[str, str]) -> None:
        raise Failed("memory/domains/business/pricing-update.md: injected; MEMORY.md was left unchanged")

    monkeypatch.setattr(absorb_module, "verify_absorbed", corrupt)
    with pytest.raises(Failed, match="injected"):
        reindex_workspace(ws, absorb=True)
    assert tree_files(ws) == before


def test_absorb_refuses_to_rewrite_a_trunk_that_changed_meanwhile(
    make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = migrated(make_repo)
    append(ws, NEW)
    real = reindex_module._write_absorbed

    def agent_writes_too(workspace: Path, *args: object) -> dict[str, bytes]:
        written: dict[str, bytes] = real(workspace, *args)  # type: ignore[arg-type]
        append(ws, "## Written by the agent meanwhile\n")
        return written

    monkeypatch.setattr(reindex_module, "_write_absorbed", agent_writes_too)
    with pytest.raises(Failed, match=r"^MEMORY\.md: changed by another process while bonsai-git was running"):
        reindex_workspace(ws, absorb=True)
    assert (ws / "MEMORY.md").read_bytes().endswith(b"## Written by the agent meanwhile\n")
    assert not (ws / "memory/domains/business/pricing-update.md").exists()
    assert b"Birthday: Theo" not in (ws / DATES).read_bytes()


def test_absorb_config_switch_is_parsed() -> None:
    assert parse_config("absorb = false").absorb is False and Config().absorb is True


# ----------------------------------------------------------------------------- same topic, same leaf

TRAVEL_LEAF = "memory/domains/personal/travel.md"  # Travel classifies to personal


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Travel", "travel", True), ("Travel", "  TRAVEL:  ", True), ("Travel", "**Travel**!", True),
    ("Travel plans", "travel — plans", True), ("Ｔｒａｖｅｌ", "travel", True), ("Straße", "STRASSE", True),
    ("Travel", "Travel plans", False), ("Travel", "Travels", False), ("旅行", "旅行：", True),
])
def test_same_topic_folds_case_whitespace_and_punctuation(a: str, b: str, same: bool) -> None:
    from bonsai_git.core.absorb import same_topic

    assert (same_topic(a) == same_topic(b)) is same


def test_plan_absorb_extends_the_same_topic_leaf_after_a_blank_line() -> None:
    old = "## Travel\n\nAisle seat.\n"
    p = plan_absorb("## travel:\nWindow at night.\n", CONFIG, {"personal": ("travel",)}, {"memory/dates.md": None},
                    {TRAVEL_LEAF: old, "memory/domains/general/reading.md": "## Reading\nx\n"})
    assert p.files == ((TRAVEL_LEAF, old + "\n## travel:\nWindow at night.\n"),)
    assert p.sections[0].extends and p.bases == ((TRAVEL_LEAF, old),)
    verify_absorbed("## travel:\nWindow at night.\n", p, dict(p.files))


@pytest.mark.parametrize(("old", "joined"), [
    ("## Travel\r\n\r\nAisle.\r\n", "## Travel\r\n\r\nAisle.\r\n\r\n"),   # CRLF leaf: its own line breaks
    ("## Travel\n\nAisle.", "## Travel\n\nAisle.\n\n"),                    # no final newline: two
    ("## Travel\n\nAisle.\n\n", "## Travel\n\nAisle.\n\n"),                # already a blank line: none
])
def test_plan_absorb_same_topic_blank_line_in_the_leafs_style(old: str, joined: str) -> None:
    p = plan_absorb("## Travel\nnew\n", CONFIG, {"personal": ("travel",)}, {}, {TRAVEL_LEAF: old})
    assert p.files == ((TRAVEL_LEAF, joined + "## Travel\nnew\n"),)


def test_plan_absorb_same_topic_only_within_the_domain_and_twice_in_one_inbox_is_one_leaf() -> None:
    existing = {"memory/domains/business/travel.md": "## Travel\nbusiness trips\n"}  # Travel classifies to personal
    p = plan_absorb("## Travel\nA\n## TRAVEL\nB\n", CONFIG, {"business": ("travel",)}, {}, existing)
    assert p.files == ((TRAVEL_LEAF, "## Travel\nA\n\n## TRAVEL\nB\n"),)
    assert [s.extends for s in p.sections] == [False, False] and p.bases == ()


@given(st.lists(st.sampled_from(["Travel", "travel!", "Reading", "Pricing", "Birthday"]), max_size=6),
       st.sampled_from(["\n", "\r\n", ""]))
def test_plan_absorb_same_topic_keeps_every_byte(headings: list[str], end: str) -> None:
    existing = {TRAVEL_LEAF: "## Travel\n\nAisle" + end, "memory/domains/business/pricing.md": "## Pricing\n$18" + end}
    inbox = "".join(f"## {h}\nnote {i}\n" for i, h in enumerate(headings))
    p = plan_absorb(inbox, CONFIG, {"personal": ("travel",), "business": ("pricing",)}, {}, existing)
    verify_absorbed(inbox, p, dict(p.files))
    for path, text in p.files:
        assert text.startswith(existing.get(path, ""))


def test_absorb_cli_and_hook_extend_the_same_topic_leaf(make_repo: MakeRepo) -> None:
    from living_tree import HOOK_SCRIPT, run as run_in
    from support import git

    ws = migrated(make_repo)
    reading = "memory/domains/personal/reading-list.md"
    old = (ws / reading).read_bytes()
    trunk = ws / "MEMORY.md"
    trunk.write_bytes(trunk.read_bytes() + b"\n## Reading list:\n\nChapter 8 next.\n")
    dry = CliRunner().invoke(main, ["absorb", "-C", str(ws), "--dry-run"], catch_exceptions=False)
    assert f"would absorb 'Reading list:' -> {reading} (same topic: extends that leaf)" in dry.stdout
    assert (ws / reading).read_bytes() == old
    result = CliRunner().invoke(main, ["absorb", "-C", str(ws)], catch_exceptions=False)
    assert result.exit_code == 0
    assert (ws / reading).read_bytes() == old + b"\n## Reading list:\n\nChapter 8 next.\n"
    assert not (ws / "memory/domains/personal/reading-list-2.md").exists()
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "absorbed")
    trunk.write_bytes(trunk.read_bytes() + b"\n## READING LIST\n\nChapter 9.\n")
    git(ws, "add", "MEMORY.md")
    hook = run_in([str(HOOK_SCRIPT)], ws)
    assert hook.returncode == 1
    assert f"into {reading} (same topic: extends that leaf)" in hook.stdout
    assert (ws / reading).read_bytes().endswith(b"Chapter 8 next.\n\n## READING LIST\n\nChapter 9.\n")


def test_absorb_refuses_a_same_topic_leaf_edited_while_it_runs(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = migrated(make_repo)
    reading = ws / "memory/domains/personal/reading-list.md"
    trunk = ws / "MEMORY.md"
    trunk.write_bytes(trunk.read_bytes() + b"\n## Reading list\n\nnew\n")
    before_trunk = trunk.read_bytes()
    real = reindex_module._plan_absorb

    def plan_then_edit(*args: object) -> AbsorbPlan:
        out = real(*args)  # type: ignore[arg-type]
        reading.write_bytes(reading.read_bytes() + b"the agent's own edit\n")
        return out

    monkeypatch.setattr(reindex_module, "_plan_absorb", plan_then_edit)
    with pytest.raises(Failed, match="reading-list.md: changed by another process while bonsai-git was running"):
        reindex_workspace(ws, absorb=True)
    assert reading.read_bytes().endswith(b"the agent's own edit\n") and trunk.read_bytes() == before_trunk
