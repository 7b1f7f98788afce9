"""`bonsai-git status` and `reflect`: golden JSON, ages from commit history, never writing, exit codes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.boot import profile_named
from bonsai_git.core.health import KINDS, assess
from bonsai_git.core.health_report import status_json, status_text
from bonsai_git.survey import parse_now, survey_workspace
from support import git, snapshot
from memory_samples import CRON, DAY0, READING, SAMPLE, TRAVEL, MakeRepo, at, commit_all, migrated, run

GOLDEN = Path(__file__).parent.parent / "golden" / "status"
README = Path(__file__).parent.parent.parent / "README.md"
BONSAI = str(Path(sys.executable).with_name("bonsai-git"))


def _plus_days(n: int) -> str:
    return (datetime.fromisoformat(DAY0) + timedelta(days=n)).isoformat()


def _aged(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Migrated at day 0; travel-notes edited at day 20; AGENTS.md near its cap, USER.md over its own."""
    repo = migrated(make_repo)
    at(monkeypatch, _plus_days(20))
    (repo / TRAVEL).write_text((repo / TRAVEL).read_text() + "Window seat on night trains.\n")
    (repo / "AGENTS.md").write_text("Follow the rules.\n" * 1000)  # 18,000 chars: 90% of 20,000
    (repo / "USER.md").write_text("Mari, ceramicist.\n" * 230)  # 4,140 chars: over USER.md's 4,000
    assert run("reindex", "-C", str(repo)).exit_code == 0
    commit_all(repo, "edit travel notes; add bootstrap files")
    monkeypatch.setenv("BONSAI_NOW", _plus_days(45))
    return repo


def _flat(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Not migrated: a flat MEMORY.md of 250 lines and ~22,000 chars."""
    body = "".join(f"- fact {i:03d}: the kiln at the studio runs hot on humid days, so vent it before every glaze firing.\n" for i in range(250))
    monkeypatch.setenv("BONSAI_NOW", _plus_days(1))
    return make_repo("# Memory\n\n## Facts\n\n" + body)


def _untidy(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Migrated; reading-list archived at day 1; then uncommitted: a new leaf, a deleted leaf, an inbox section."""
    repo = migrated(make_repo)
    at(monkeypatch, _plus_days(1))
    assert run("archive", "-C", str(repo), "reading-list", "--reason", "read", ok=True).exit_code == 0
    (repo / "memory/domains/general/new-idea.md").write_text("## New Idea\n\nGlaze test tiles for every batch.\n")
    (repo / "memory/domains/business/pricing.md").unlink()
    with open(repo / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.write("\n## Kiln Schedule\n\nFiring every Thursday.\n")
    monkeypatch.setenv("BONSAI_NOW", _plus_days(200))
    return repo


CASES = {"aged": _aged, "flat": _flat, "untidy": _untidy}


@pytest.mark.parametrize("case", sorted(CASES))
def test_status_json_matches_golden(case: str, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
                                    request: pytest.FixtureRequest) -> None:
    repo = CASES[case](make_repo, monkeypatch)
    result = run("status", "-C", str(repo), "--json", ok=True)
    got = json.loads(result.stdout)
    path = GOLDEN / f"{case}.json"
    if request.config.getoption("--update-goldens"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert got == json.loads(path.read_text(encoding="utf-8"))
    assert result.exit_code == (0 if got["healthy"] else 1)
    assert result.stderr == ""


def test_status_aged_warns_by_last_commit_date_not_mtime(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _aged(make_repo, monkeypatch)
    got = json.loads(run("status", "-C", str(repo), "--json").stdout)
    old = [w["path"] for w in got["warnings"] if w["kind"] == "old_general_leaf"]
    assert old == [READING]  # 45 days; travel-notes was committed 25 days ago, whatever its mtime
    assert {w["kind"] for w in got["warnings"]} >= {"oversized_leaf", "secret", "boot_truncated", "boot_near_limit"}
    user = next(f for f in got["boot"]["files"] if f["name"] == "USER.md")
    assert (user["cap"], user["lost_chars"], user["truncated"]) == (4_000, 140, True)


def test_status_secret_warning_names_file_line_kind_never_the_value(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    result = run("status", "-C", str(repo))
    assert "memory/domains/infrastructure/services.md:3: aws access key" in result.stdout
    assert "BONSAITESTKEY" not in result.stdout + run("status", "-C", str(repo), "--json").stdout


def test_status_healthy_workspace_exits_0(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = SAMPLE.split("## Cron Jobs")[0]  # no oversized leaf, no secret
    repo = migrated(make_repo, memory)
    monkeypatch.setenv("BONSAI_NOW", _plus_days(30))  # general/ leaves exactly 30 days old: not over
    result = run("status", "-C", str(repo), ok=True)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.rstrip().endswith("Healthy.")
    assert "headroom" in result.stdout and "indexes: fresh" in result.stdout and "\x1b[" not in result.stdout


def test_status_not_migrated_still_reports_the_boot_budget(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _flat(make_repo, monkeypatch)
    out = run("status", "-C", str(repo)).stdout
    assert "note: MEMORY.md: not migrated: run bonsai-git migrate --dry-run" in out
    assert "CUT: loses" in out and "would not load" in out


def test_status_small_unmigrated_file_is_healthy(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nShort.\n")
    result = run("status", "-C", str(repo))
    assert result.exit_code == 0 and "not migrated" in result.stdout


def test_status_never_writes_even_on_an_untidy_tree(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _untidy(make_repo, monkeypatch)
    before, git_before = snapshot(repo), _git_dir_digest(repo)
    assert run("status", "-C", str(repo)).exit_code == 1
    assert run("status", "-C", str(repo), "--json").exit_code == 1
    assert run("reflect", "-C", str(repo)).exit_code == 0
    assert snapshot(repo) == before and _git_dir_digest(repo) == git_before


def test_status_untidy_lists_each_problem_kind(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _untidy(make_repo, monkeypatch)
    out = run("status", "-C", str(repo)).stdout
    for line in (
        "memory/domains/general/new-idea.md: not tracked by git",
        "memory/domains/business/_index.md:",  # the entry of the deleted pricing.md
        "memory/archive/general/reading-list.md: archived 199 days ago",
        "MEMORY.md: 1 section(s) waiting after the end marker",
        "memory/_index.md: stale; run bonsai-git reindex",
    ):
        assert line in out
    # one rule (README): an untracked leaf is not indexed until git tracks it, so no "run reindex" for it
    assert "new-idea.md: not listed" not in out and "general/_index.md: stale" not in out


def test_status_outside_a_repository_is_refused(tmp_path: Path) -> None:
    result = run("status", "-C", str(tmp_path))
    assert result.exit_code == 3 and "not inside a git work tree" in result.stderr and result.stdout == ""


def test_status_profile_and_cap_options(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _flat(make_repo, monkeypatch)
    old = json.loads(run("status", "-C", str(repo), "--json", "--profile", "openclaw-2026.1").stdout)
    assert old["boot"]["profile"] == "openclaw-2026.1" and old["boot"]["total_cap"] is None
    roomy = json.loads(run("status", "-C", str(repo), "--json", "--file-cap", "100000").stdout)
    assert not roomy["boot"]["files"][0]["truncated"] and roomy["boot"]["headroom_chars"] > 0
    assert run("status", "-C", str(repo), "--profile", "nope").exit_code == 2


def test_status_text_colours_only_when_asked(make_repo: MakeRepo) -> None:
    report = assess(survey_workspace(migrated(make_repo)), profile_named("openclaw-2026.9"))
    assert "\x1b[33m" in status_text(report, color=True)
    assert "\x1b[" not in status_text(report, color=False)


def test_status_warning_kinds_are_documented_in_order() -> None:
    doc = (Path(__file__).parent.parent.parent / "bonsai_git" / "core" / "health.py").read_text(encoding="utf-8")
    positions = [doc.index(f"| `{kind}` |") for kind in KINDS]
    assert positions == sorted(positions)


def test_status_json_top_level_keys_are_documented_in_readme(make_repo: MakeRepo) -> None:
    data = status_json(assess(survey_workspace(migrated(make_repo)), profile_named("openclaw-2026.9")))
    readme = (README.parent / "docs" / "status.md").read_text(encoding="utf-8")  # moved from the README (issue 20)
    assert data["schema_version"] == 1
    for key in data:
        assert f"`{key}`" in readme or f'"{key}"' in readme, f"README does not document status --json key {key!r}"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("2026-03-01", 1772323200), ("2026-03-01T12:00:00+00:00", 1772366400), ("@1772366400", 1772366400)],
)
def test_parse_now_accepts_dates_and_unix_seconds(value: str, seconds: int) -> None:
    assert parse_now(value) == seconds


def test_parse_now_rejects_garbage_with_the_variable_name(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BONSAI_NOW", "yesterday")
    result = run("status", "-C", str(make_repo("# M\n")))
    assert result.exit_code == 3 and "BONSAI_NOW='yesterday'" in result.stderr


def test_reflect_lists_general_leaves_older_than_15_days_with_reasons(make_repo: MakeRepo,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    monkeypatch.setenv("BONSAI_NOW", _plus_days(10))
    assert [c["path"] for c in json.loads(run("reflect", "-C", str(repo), "--json").stdout)["candidates"]] == [CRON]
    monkeypatch.setenv("BONSAI_NOW", _plus_days(16))
    data = json.loads(run("reflect", "-C", str(repo), "--json", ok=True).stdout)
    assert [(c["kind"], c["path"], c["age_days"]) for c in data["candidates"]] == [
        ("general_leaf", READING, 16), ("general_leaf", TRAVEL, 16), ("oversized_leaf", CRON, None)]
    assert all(c["reason"] for c in data["candidates"]) and data["now"] == "2026-03-17T12:00:00Z"
    text = run("reflect", "-C", str(repo)).stdout
    assert text.startswith("3 candidate(s) to review:") and f"{READING}: in general/ for 16 days" in text


def test_status_and_reflect_run_as_real_processes(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _aged(make_repo, monkeypatch)
    proc = subprocess.run([BONSAI, "status", "-C", str(repo), "--json"], capture_output=True, text=True)
    assert proc.returncode == 1 and json.loads(proc.stdout)["schema_version"] == 1
    proc = subprocess.run([BONSAI, "reflect", "-C", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 0 and READING in proc.stdout


def _git_dir_digest(repo: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted((repo / ".git").rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(repo).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_git_log_dates_follow_the_commit_not_the_clock(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = migrated(make_repo)
    monkeypatch.setenv("BONSAI_NOW", _plus_days(31))
    (repo / READING).touch()  # a fresh mtime changes nothing
    survey = survey_workspace(repo)
    dates = {f.path: f.committed_at for f in survey.leaves}
    assert dates[READING] == parse_now(DAY0) and git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(("name", "padded"), [("agents", "agents    "), ("项目", "项目      "), ("longer-than-ten", "longer-than-ten")])
def test_domain_column_pads_by_terminal_width(name: str, padded: str) -> None:
    from bonsai_git.core.health_report import _pad

    assert _pad(name, 10) == padded


@pytest.mark.parametrize(("seconds", "due"), [(None, False), (0, False), (180 * 86_400, False),
                                              (180 * 86_400 + 1, True), (180 * 86_400 + 43_200, True),
                                              (181 * 86_400, True)])
def test_is_due_for_purge_compares_seconds(seconds: int | None, due: bool) -> None:
    from bonsai_git.lifecycle import due_for_purge
    from bonsai_git.core.health import is_due_for_purge

    committed_at = 1_000_000
    now = committed_at + (seconds or 0)
    assert is_due_for_purge(None if seconds is None else committed_at, now, 180) is due
    added = {} if seconds is None else {"memory/archive/a.md": committed_at}
    assert bool(due_for_purge(added, ["memory/archive/a.md"], now, 180)) is due  # purge asks the same question


def test_status_reads_the_inbox_sections_once(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from bonsai_git.core import health as status

    repo = _untidy(make_repo, monkeypatch)
    survey = survey_workspace(repo)
    calls: list[str] = []
    real = status.absorbable_sections
    monkeypatch.setattr(status, "absorbable_sections", lambda inbox, config: calls.append(inbox) or real(inbox, config))
    report = assess(survey, profile_named("openclaw-2026.9"))
    assert len(calls) == 1 and report.inbox_sections == 1
    assert [f.message for f in report.findings if f.kind == "inbox"] == [
        "1 section(s) waiting after the end marker; run bonsai-git absorb (or commit: the hook absorbs them)"]


def test_status_codex_profile_names_the_cut_in_the_agents_md_chain(make_repo: MakeRepo) -> None:
    repo = make_repo(SAMPLE)
    (repo / "AGENTS.md").write_text("Rule.\n" * 6_000)  # 36,000 bytes: over Codex's 32 KiB alone
    commit_all(repo, "agents")
    result = run("status", "-C", str(repo), "--profile", "codex")
    assert result.exit_code == 1
    assert "Boot budget (Codex: 32,768 bytes across AGENTS.override.md / AGENTS.md, root folder first" in result.stdout
    assert "Codex: Loaded at boot: no: nothing: Codex never reads MEMORY.md" in result.stdout
    assert "MEMORY.md: Codex does not load it at boot" in result.stdout and "run bonsai-git connect codex" in result.stdout
    assert "CUT at byte 32,768: the last 3,232 bytes are never loaded" in result.stdout
    assert "MEMORY.md is not in Codex's chain: a folder's AGENTS.md comes first" in result.stdout
    report = json.loads(run("status", "-C", str(repo), "--profile", "codex", "--json").stdout)
    assert report["boot"]["profile"] == "codex" and report["boot"]["total_cap"] == 32_768  # counts bytes
    assert [(f["name"], f["lost_chars"]) for f in report["boot"]["files"]] == [("AGENTS.md", 3_232)]
    help_text = run("status", "--help").stdout
    assert "codex: Codex, 32,768 bytes across the AGENTS.md chain" in " ".join(help_text.split())


def test_status_codex_profile_reads_the_chain_from_the_repository_root(make_repo: MakeRepo) -> None:
    repo = make_repo(None)
    (repo / "AGENTS.md").write_text("root rules\n")
    ws = repo / "agent"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(SAMPLE)
    commit_all(repo, "workspace in a subfolder")
    report = json.loads(run("status", "-C", str(ws), "--profile", "codex", "--json").stdout)
    assert [f["name"] for f in report["boot"]["files"]] == ["AGENTS.md"]  # Codex never reads MEMORY.md by itself
    assert report["boot"]["loaded"]["loaded"] is False
    codex_home = Path(os.environ["CODEX_HOME"])  # conftest: a scratch ~/.codex
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text('project_doc_fallback_filenames = ["MEMORY.md"]\n')
    report = json.loads(run("status", "-C", str(ws), "--profile", "codex", "--json").stdout)
    assert [f["name"] for f in report["boot"]["files"]] == ["AGENTS.md", "agent/MEMORY.md"]
    assert report["boot"]["loaded"] == {"loaded": True, "by": "agent/MEMORY.md itself (project_doc_fallback_filenames "
                                                              "lists it)"}
    assert "not in Codex's chain" not in run("status", "-C", str(ws), "--profile", "codex").stdout


# --- the hook's fresh verdict (issue 15: status need not render a tree the hook found fresh) -----

HOOK = [sys.executable, "-m", "bonsai_git.hook"]


def _reports(repo: Path, *extra: str) -> tuple[str, str]:
    """`status` as text and as JSON, each as a real process."""
    text = subprocess.run([BONSAI, "status", "-C", str(repo), *extra], capture_output=True, text=True)
    data = subprocess.run([BONSAI, "status", "-C", str(repo), "--json", *extra], capture_output=True, text=True)
    return text.stdout, data.stdout


def test_status_takes_the_hooks_fresh_verdict_and_reports_the_same_bytes(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from bonsai_git.survey import _check_work_tree, hook_found_fresh

    repo = migrated(make_repo)
    monkeypatch.setenv("BONSAI_NOW", _plus_days(3))
    common_dir, top = _check_work_tree(repo)
    assert not hook_found_fresh(repo, top, common_dir, {})  # no hook run yet: no memo
    cold = _reports(repo)
    assert subprocess.run(HOOK, cwd=repo, capture_output=True).returncode == 0
    assert hook_found_fresh(repo, top, common_dir, {})  # the hook remembered this input as fresh
    before = snapshot(repo)
    assert _reports(repo) == cold  # the same bytes, text and JSON, without rendering the tree
    assert snapshot(repo) == before  # status still writes nothing
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")
    assert not hook_found_fresh(repo, top, common_dir, {})
    assert _reports(repo) == cold
    monkeypatch.delenv("BONSAI_GIT_NO_CACHE")
    # An edited leaf is new input: no verdict for it, status renders and names the stale index.
    leaf = repo / TRAVEL
    leaf.write_text(leaf.read_text(encoding="utf-8") + "\nAisle seat on day trains.\n", encoding="utf-8")
    assert not hook_found_fresh(repo, top, common_dir, {})
    text, data = _reports(repo)
    assert json.loads(data)["stale"] == ["memory/_index.md", str(Path(TRAVEL).parent / "_index.md")]
    assert "indexes: 2 stale" in text


@given(st.lists(st.sampled_from(["### a.md (~12 tokens)", "### b c.md (~1,200 tokens)", "### x (~", "tokens)", "\n",
                                 "\r\n", "\r", " ", "## h", "### [s](_index.s.md)", "#### d.md (~3 tokens)", "x"]),
                max_size=20).map("".join))
def test_index_entries_scan_equals_the_line_by_line_reading(text: str) -> None:
    from bonsai_git.core.health import _ENTRY, _index_entries

    expected = [(n, m.group(1)) for n, line in enumerate(text.split("\n"), start=1) if (m := _ENTRY.match(line))]
    assert _index_entries(text) == expected


def test_the_one_walk_finds_the_index_files_reindex_finds(make_repo: MakeRepo, tmp_path: Path) -> None:
    from bonsai_git.reindex import existing_index_paths
    from bonsai_git.survey import _MemoryFiles

    repo = migrated(make_repo)
    domains = repo / "memory" / "domains"
    for extra in ("general/sub/_index.md", "general/_index.k.md", "_drafts/_index.md", "general/.hidden/_index.md",
                  "_index.md", "general/not-an-index.md"):
        (domains / extra).parent.mkdir(parents=True, exist_ok=True)
        (domains / extra).write_text("x\n", encoding="utf-8")
    (domains / "linked").symlink_to(domains / "general", target_is_directory=True)  # never followed
    assert _MemoryFiles(repo).index_paths(repo) == existing_index_paths(repo)
    assert "memory/domains/general/sub/_index.md" in existing_index_paths(repo)
    # memory/domains itself a symlink: reindex's walk enters it, so the one walk defers to it.
    moved = tmp_path / "elsewhere"
    domains.rename(moved)
    domains.symlink_to(moved, target_is_directory=True)
    assert _MemoryFiles(repo).index_paths(repo) == existing_index_paths(repo) != ()


def test_one_history_walk_dates_leaves_and_archived_files_as_the_two_logs_did(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from bonsai_git.survey import _log_dates, archive_dates, history_dates

    repo = migrated(make_repo)
    (repo / "memory/archive").mkdir(exist_ok=True)
    steps = [  # (day, change): edits, an archive move, a deletion, a re-add, names with spaces and accents
        (2, lambda: (repo / TRAVEL).write_text("## Travel\n\nAisle seat.\n", encoding="utf-8")),
        (4, lambda: git(repo, "mv", READING, "memory/archive/reading list é.md")),
        (6, lambda: (repo / CRON).unlink()),
        (8, lambda: (repo / "memory/archive/reading list é.md").write_text("## Reading\n\nDone.\n", encoding="utf-8")),
        (9, lambda: git(repo, "mv", "memory/archive/reading list é.md", "memory/domains/general/back.md")),
        (11, lambda: git(repo, "mv", "memory/domains/general/back.md", "memory/archive/reading list é.md")),
    ]
    for day, change in steps:
        at(monkeypatch, _plus_days(day))
        change()
        commit_all(repo, f"day {day}")
    git(repo, "checkout", "-q", "-b", "side", "HEAD~2")
    at(monkeypatch, _plus_days(12))
    (repo / TRAVEL).write_text("## Travel\n\nWindow seat.\n", encoding="utf-8")
    commit_all(repo, "side edit")
    git(repo, "checkout", "-q", "-")
    git(repo, "merge", "-q", "--no-edit", "-X", "theirs", "side")  # a merge commit: shown with no files
    both = history_dates(repo)
    assert both == (_log_dates(repo), archive_dates(repo))
    assert set(both[1]) == {"memory/archive/reading list é.md"}
    assert CRON in both[0] and len(set(both[0].values())) >= 4
