"""flatten: the way back that keeps later memories (one flat MEMORY.md from today's tree, as one commit)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bonsai_git.core.config import Config
from bonsai_git.core.flatplan import PINNED, original_slots, plan_flatten, strip_separator
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.layout import Leaf, leaf_location, parse_trunk
from memory_samples import CRON, PRICING, READING, SAMPLE, TRAVEL, MakeRepo, commit_all, migrated, run
from support import CORPUS_FILES, bonsai_untouched, corpus_bytes, git, snapshot
from test_properties import markdown

BONSAI = str(Path(sys.executable).with_name("bonsai-git"))
DAILY = "memory/2026-02-28.md"


def _flat_in_memory(original: str, config: Config = Config()) -> str:
    """Migrate `original` in memory and flatten the planned tree at once (no git)."""
    plan = plan_migration(original, config)
    files = plan.file_map()
    slots = original_slots(original, files)
    parts = parse_trunk(files["MEMORY.md"])
    assert parts is not None
    pinned = strip_separator(parts.pinned, parts.pinned, "".join(s.text for s in slots if s.source == PINNED))
    leaves = [Leaf(*loc, text) for path, text in files.items() if (loc := leaf_location(path)) is not None]
    return plan_flatten(slots, pinned, leaves, parts.inbox, {}, parts.newline).text


@given(markdown())
def test_flatten_right_after_migrate_gives_any_markdown_back(text: str) -> None:
    if text.strip():
        assert _flat_in_memory(text) == text


@given(markdown())
@settings(max_examples=30)
def test_flatten_round_trip_holds_with_pin_rules_and_a_kept_preamble(text: str) -> None:
    if text.strip():
        assert _flat_in_memory(text, Config(pinned=("x", "a"), preamble_tokens=5)) == text


def _flatten(repo: Path, *args: str) -> str:
    result = run("flatten", "-C", str(repo), *args, ok=True)
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_flatten_right_after_migrate_gives_every_corpus_file_back(make_repo: MakeRepo, name: str) -> None:
    original = corpus_bytes(name)
    repo = make_repo(original)
    assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
    _flatten(repo)
    assert (repo / "MEMORY.md").read_bytes() == original
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(repo, "ls-files") == "MEMORY.md\n"
    assert not (repo / "memory").exists()
    assert git(repo, "log", "-1", "--format=%(trailers:only,unfold)").strip() == "Bonsai-Op: flatten"
    assert git(repo, "diff", "HEAD~2", "HEAD") == ""  # the tree is the one before the migration


def test_flatten_after_edits_new_leaves_moves_and_archives_keeps_every_later_memory(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / DAILY).write_text("daily note, not a leaf\n")
    commit_all(repo, "daily note")
    travel = repo / TRAVEL
    travel.write_text(travel.read_text() + "Window seat on night flights (learned later).\n")
    nested = repo / "memory/domains/projects/kiln/firing-log.md"
    nested.parent.mkdir(parents=True)
    nested.write_text("## Firing Log\n\nCone 6 firing took 9 hours on May 3.\n")
    (repo / "memory/domains/business/suppliers.md").write_text("## Suppliers\n\nClay from Laguna, no final newline")
    commit_all(repo, "learned things")
    assert run("move", "-C", str(repo), READING, "personal", ok=True).exit_code == 0
    assert run("archive", "-C", str(repo), CRON, "--reason", "old", ok=True).exit_code == 0
    trunk = repo / "MEMORY.md"
    trunk.write_text(trunk.read_text() + "\nloose inbox line\n")
    commit_all(repo, "inbox")
    cron = (repo / "memory/archive/infrastructure/cron-jobs.md").read_bytes()

    _flatten(repo)

    flat = trunk.read_text()
    assert "bonsai:begin" not in flat and "bonsai:end" not in flat
    order = ["# Memory", "## Business Overview", "## Pricing", "## Travel Notes", "Window seat on night flights",
             "## Reading List", "## Services", "## Suppliers", "Clay from Laguna, no final newline\n## Firing Log",
             "loose inbox line"]
    positions = [flat.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert "## Cron Jobs" not in flat  # archived on purpose: it stays in memory/archive/
    assert (repo / "memory/archive/infrastructure/cron-jobs.md").read_bytes() == cron
    assert (repo / DAILY).read_text() == "daily note, not a leaf\n"
    assert not (repo / "memory/domains").exists() and not (repo / "memory/_index.md").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    # and the flat file migrates again, with every later memory in its leaves
    assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
    again = next((repo / "memory/domains").rglob("travel-notes.md"))  # its domain is the classifier's call
    assert "Window seat" in again.read_text()
    assert run("reindex", "-C", str(repo), "--check").exit_code == 0


def test_flatten_puts_pinned_sections_and_dates_back_where_they_were(make_repo: MakeRepo) -> None:
    original = ("# Memory\n\n## 📌 Core Rules\n\nNewer dated source wins.\n\n## Pricing\n\nMugs $18.\n\n"
                "## 2026 Dates\n\nMarch 3: kiln delivery.\n\n## Travel Notes\n\nAisle seat.\n\n"
                "## Key Dates\n\nApril 1: fair.\n")
    repo = make_repo(original)
    assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
    dates = repo / "memory/dates.md"
    assert "March 3" in dates.read_text() and "April 1" in dates.read_text()
    dates.write_text(dates.read_text() + "\n## Deadlines Dates\n\nMay 9: tax.\n")
    commit_all(repo, "a date")
    _flatten(repo)
    flat = (repo / "MEMORY.md").read_text()
    assert flat == original + "\n## Deadlines Dates\n\nMay 9: tax.\n"


def test_flatten_dry_run_writes_nothing_and_lists_the_added_leaves(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / "memory/domains/general/new-thing.md").write_text("## New Thing\n\nx\n")
    commit_all(repo, "new leaf")
    before = snapshot(repo)
    out = _flatten(repo, "--dry-run")
    assert "Would flatten" in out and "+ memory/domains/general/new-thing.md (added since the migration)" in out
    assert snapshot(repo) == before


def test_flatten_refuses_uncommitted_leaf_changes_and_touches_nothing(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / PRICING).write_text("## Pricing\n\nchanged, not committed\n")
    result = bonsai_untouched(repo, "flatten", "-C", str(repo))
    assert result.exit_code == 3
    assert f"{PRICING}: has uncommitted changes" in result.stderr and result.stderr.count("\n") == 1


def test_flatten_refuses_an_unmigrated_workspace(make_repo: MakeRepo) -> None:
    repo = make_repo(SAMPLE)
    result = bonsai_untouched(repo, "flatten", "-C", str(repo))
    assert result.exit_code == 3 and "no bonsai markers" in result.stderr


def test_flatten_restores_the_tree_when_a_commit_hook_rejects(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho no >&2\nexit 1\n")
    hook.chmod(0o755)
    result = bonsai_untouched(repo, "flatten", "-C", str(repo))
    assert result.exit_code == 1 and "git commit failed" in result.stderr


def test_flatten_from_a_subprocess_and_rollback_advice(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / PRICING).write_text((repo / PRICING).read_text() + "Retail now $34.\n")
    commit_all(repo, "price rise")
    refused = run("rollback", "-C", str(repo))
    assert refused.exit_code == 3 and "`bonsai-git flatten`" in refused.stderr
    proc = subprocess.run([BONSAI, "flatten", "-C", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Retail now $34." in (repo / "MEMORY.md").read_text()
    assert (repo / "MEMORY.md").read_text().replace("Retail now $34.\n", "") == SAMPLE


def test_flatten_in_a_workspace_below_the_repository_top(make_repo: MakeRepo, tmp_path: Path) -> None:
    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    ws = top / "agent"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(SAMPLE)
    commit_all(top, "memory")
    assert run("migrate", "-C", str(ws), "--force", ok=True).exit_code == 0
    travel = next((ws / "memory/domains").rglob("travel-notes.md")).relative_to(ws).as_posix()
    assert run("move", "-C", str(ws), travel, "identity", ok=True).exit_code == 0
    _flatten(ws)
    assert (ws / "MEMORY.md").read_text() == SAMPLE


def _migrated_in_memory(original: str) -> tuple[tuple, dict[str, str]]:  # type: ignore[type-arg]
    files = plan_migration(original, Config()).file_map()
    return original_slots(original, files), files


def test_flatten_puts_edited_pinned_text_and_dates_back_by_heading() -> None:
    original = ("# Me\n\n## 📌 Core Rules\nNever X.\n## Pricing\n$18\n## Birthdays\nSam: May 3\n"
                "## Travel\nAisle\n## Anniversary\nJune 1\n")
    slots, files = _migrated_in_memory(original)
    pinned = "# Me\n\n## 📌 Core Rules\nNever X or Y.\n## 📌 New Rule\nAsk first.\n"
    dates = "## Birthdays\nSam: May 3\nAda: Oct 12\n## Anniversary\nJune 1\n"
    leaves = [Leaf(*leaf_location(p), t) for p, t in files.items()  # type: ignore[misc]
              if leaf_location(p) is not None and p != "memory/dates.md"] + [Leaf("dates", "dates.md", dates)]
    flat = plan_flatten(slots, pinned, leaves, "", {}).text
    assert flat == ("# Me\n\n## 📌 Core Rules\nNever X or Y.\n## 📌 New Rule\nAsk first.\n## Pricing\n$18\n"
                    "## Birthdays\nSam: May 3\nAda: Oct 12\n## Travel\nAisle\n## Anniversary\nJune 1\n")


@given(markdown(), st.lists(st.tuples(st.integers(0, 50), st.sampled_from(["", "more\n", "no newline", "## x\n"])),
                            max_size=6), st.booleans())
def test_flatten_after_random_edits_holds_every_leaf_whole(text: str, edits: list[tuple[int, str]], new: bool) -> None:
    if not text.strip():
        return
    slots, files = _migrated_in_memory(text)
    today = {p: t for p, t in files.items() if leaf_location(p) is not None}
    paths = sorted(today)
    for index, added in edits:
        if paths:
            path = paths[index % len(paths)]
            today[path] = "" if added == "" else today[path] + added
    if new:
        today["memory/domains/projects/sub/new.md"] = "## New\nlearned later"
    parts = parse_trunk(files["MEMORY.md"])
    assert parts is not None
    leaves = [Leaf(*leaf_location(p), t) for p, t in today.items()]  # type: ignore[misc]
    plan = plan_flatten(slots, parts.pinned, leaves, "inbox line\n", {}, parts.newline)  # verifies itself
    for t in today.values():
        assert t in plan.text


def test_flatten_commits_through_bonsai_gits_own_plain_git_hook(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    assert run("install-hook", "-C", str(repo), ok=True).exit_code == 0
    (repo / PRICING).write_text((repo / PRICING).read_text() + "Retail now $34.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "price rise")  # the hook regenerates and stages the indexes: one attempt
    assert git(repo, "status", "--porcelain") == ""
    _flatten(repo)
    assert "Retail now $34." in (repo / "MEMORY.md").read_text()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_flatten_finds_a_migration_committed_by_hand_by_its_content(make_repo: MakeRepo) -> None:
    """No trailers (committed by hand): the commit that made the flat trunk migrated is the migration."""
    repo = make_repo(SAMPLE)
    assert run("migrate", "-C", str(repo), "--force", "--no-commit", ok=True).exit_code == 0
    commit_all(repo, "tree committed by hand, no trailers")
    out = _flatten(repo)
    assert "note: no usable migration commit" not in out
    assert (repo / "MEMORY.md").read_text() == SAMPLE


def test_flatten_without_a_migration_commit_keeps_everything_in_domain_order(make_repo: MakeRepo,
                                                                              tmp_path: Path) -> None:
    """A history that starts migrated (the tree copied into a new repository) holds no migration commit."""
    donor = make_repo(SAMPLE)
    assert run("migrate", "-C", str(donor), "--force", "--no-commit", ok=True).exit_code == 0
    repo = make_repo(None)
    for path in [donor / "MEMORY.md", *(p for p in (donor / "memory").rglob("*") if p.is_file())]:
        target = repo / path.relative_to(donor)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    commit_all(repo, "tree copied in, no trailers")
    leaves = {p.relative_to(repo).as_posix(): p.read_text() for p in (repo / "memory/domains").rglob("[!_]*.md")}
    out = _flatten(repo)
    assert "note: no usable migration commit" in out
    flat = (repo / "MEMORY.md").read_text()
    assert flat.startswith("# Memory\n\n## Business Overview")  # pinned text, then business/ first
    positions = [flat.index(text) for _path, text in sorted(leaves.items())]
    assert positions == sorted(positions) and len(flat) >= len(SAMPLE)


@pytest.mark.parametrize("name", ["16-yaml-front-matter.md", "17-crlf-line-endings.md", "18-utf8-bom.md",
                                  "22-pinned-core-rules.md", "24-daily-log-dated-sections.md", "14-setext-headings.md"])
def test_flatten_after_editing_every_leaf_of_a_corpus_file_then_migrate_again(make_repo: MakeRepo, name: str) -> None:
    repo = make_repo(corpus_bytes(name))
    assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
    edited = {}
    for path in sorted((repo / "memory").rglob("*.md")):
        rel = path.relative_to(repo).as_posix()
        if leaf_location(rel) is not None:
            path.write_bytes(path.read_bytes() + f"Edited {rel} later.\n".encode())
            edited[rel] = path.read_bytes()
    assert run("reindex", "-C", str(repo), ok=True).exit_code == 0
    commit_all(repo, "edit every leaf")
    _flatten(repo)
    flat = (repo / "MEMORY.md").read_bytes()
    for rel, data in edited.items():
        assert data in flat, rel
    assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
    assert run("reindex", "-C", str(repo), "--check").exit_code == 0


@given(markdown())
@settings(max_examples=5)  # each example is a real repository, migration and flatten (~2 s)
def test_flatten_right_after_a_real_migrate_gives_any_markdown_back(text: str) -> None:
    import tempfile

    if not text.strip() or "\0" in text:
        return
    with tempfile.TemporaryDirectory(prefix="bonsai-flatten-") as tmp:
        repo = Path(tmp)
        git(repo, "init", "-q", "-b", "main")
        (repo / "MEMORY.md").write_bytes(text.encode("utf-8"))
        commit_all(repo, "memory")
        assert run("migrate", "-C", str(repo), "--force", ok=True).exit_code == 0
        _flatten(repo)
        assert (repo / "MEMORY.md").read_bytes() == text.encode("utf-8")
        assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_flatten_leaves_non_leaf_files_in_place_and_says_so(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / "memory/domains/general/photo.png").write_bytes(b"\x89PNG not a leaf")
    commit_all(repo, "a picture")
    out = _flatten(repo)
    assert "left in place (not leaves): memory/domains/general/photo.png" in out
    assert (repo / "memory/domains/general/photo.png").read_bytes() == b"\x89PNG not a leaf"
    assert (repo / "MEMORY.md").read_text() == SAMPLE
