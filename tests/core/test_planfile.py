"""The editable migration plan: --plan-out writes it, --plan applies it with every guarantee, bad plans refused."""

from __future__ import annotations

import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.config import Config
from bonsai_git.core.errors import BadInput
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.planfile import read_plan, render_plan, toml_string
from bonsai_git.core.sections import split_sections
from support import BONSAI, MakeRepo, bonsai, commit, corpus_bytes, git, snapshot

MEMORY = (
    "# Memory\n\n"
    "## Clients\n\nAcme pays net 30.\n\n"
    "## Odds and ends\n\nGlaze tiles; the blue one cracked.\n\n"
    '## Quote "this" \\ that\n\nA heading TOML must escape.\n\n'
    "## Birthdays\n\n- Sam: May 3\n"
)


def write_plan(repo: Path, out: Path) -> str:
    result = bonsai("migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote the plan to {out}" in result.stderr
    return out.read_text(encoding="utf-8")


def edit(text: str, heading: str, key: str, old: str, new: str) -> str:
    """Change one key of the entry for `heading` (the entry's lines follow its heading line)."""
    start = text.index(f"heading = {toml_string(heading)}\n")
    end = text.find("[[section]]", start)
    end = len(text) if end < 0 else end
    entry = text[start:end]
    assert f'{key} = "{old}"' in entry
    return text[:start] + entry.replace(f'{key} = "{old}"', f'{key} = "{new}"') + text[end:]


@given(st.text())
def test_toml_string_round_trips_through_tomllib(text: str) -> None:
    assert tomllib.loads(f"a = {toml_string(text)}\n")["a"] == text


def test_render_plan_is_deterministic_and_lists_every_section() -> None:
    plan = plan_migration(MEMORY, Config())
    text = render_plan(plan, Config())
    assert text == render_plan(plan_migration(MEMORY, Config()), Config())
    data = tomllib.loads(text)
    assert [(s["heading"], s["line"], s["domain"], s["leaf"], s["decided_by"]) for s in data["section"]] == [
        ("Clients", 3, "business", "clients", "heading"),
        ("Odds and ends", 7, "general", "odds-and-ends", "fallback"),
        ('Quote "this" \\ that', 11, "business", "quote-this-that", "heading"),  # a weak `~quotes`: a price quote
        ("Birthdays", 15, "dates", "", "heading"),
    ]


def test_an_unedited_plan_gives_the_same_tree_as_the_classifier() -> None:
    for name in ("03-chief-of-staff-6k.md", "10-zh-chinese-headings.md", "17-crlf-line-endings.md"):
        original = corpus_bytes(name).decode("utf-8")
        plan = plan_migration(original, Config())
        edited = read_plan(render_plan(plan, Config()), split_sections(original).sections, Config())
        assert plan_migration(original, edited.config, edited.choices).files == plan.files


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: edit(t, "Clients", "domain", "business", "sales"),
         "plan.toml: entry 1 ('Clients'): unknown domain 'sales'; use one of the table"),
        (lambda t: edit(t, "Odds and ends", "leaf", "odds-and-ends", "../escape"),
         "plan.toml: entry 2 ('Odds and ends'): unsafe leaf name '../escape'"),
        (lambda t: edit(t, "Odds and ends", "leaf", "odds-and-ends", "_index"),
         "unsafe leaf name '_index'"),
        (lambda t: edit(t, "Odds and ends", "leaf", "odds-and-ends", "Odds"), "unsafe leaf name 'Odds'"),
        (lambda t: edit(edit(t, "Clients", "domain", "business", "general"), "Clients", "leaf", "clients",
                        "odds-and-ends"),
         "entry 2 ('Odds and ends'): leaf 'odds-and-ends' is already used in general by entry 1"),
        (lambda t: t.replace("line = 7\n", "line = 8\n"), "entry 2 ('Odds and ends'): no longer matches MEMORY.md"),
        (lambda t: t[: t.rindex("[[section]]")], "entry 4: the plan lists 3 sections, MEMORY.md has 4"),
        (lambda t: t.replace("version = 1", "version = 2"), "plan.toml: version must be 1"),
        (lambda t: t + "oops = [", "plan.toml: not valid TOML"),
        (lambda t: t.replace("version = 1", "version = 1\nmode = 2"), "plan.toml: unknown key 'mode'"),
        (lambda t: t.replace('decided_by = "heading"\n', 'decided_by = "heading"\ncolour = "red"\n', 1),
         "entry 1 ('Clients'): unknown key 'colour'"),
    ],
)
def test_read_plan_refuses_the_first_bad_entry(change: Callable[[str], str], message: str) -> None:
    text = change(render_plan(plan_migration(MEMORY, Config()), Config()))
    with pytest.raises(BadInput, match=None) as info:
        read_plan(text, split_sections(MEMORY).sections, Config())
    assert message in info.value.message


def test_a_plan_may_define_a_domain_and_pin_a_section() -> None:
    text = render_plan(plan_migration(MEMORY, Config()), Config())
    text = text.replace("[domains]\n", '[domains]\nstudio = "the pottery studio"\n')
    text = edit(text, "Odds and ends", "domain", "general", "studio")
    text = edit(text, "Clients", "domain", "business", "pinned")
    edited = read_plan(text, split_sections(MEMORY).sections, Config())
    plan = plan_migration(MEMORY, edited.config, edited.choices)
    files = plan.file_map()
    assert files["memory/domains/studio/odds-and-ends.md"] == "## Odds and ends\n\nGlaze tiles; the blue one cracked.\n\n"
    assert files["MEMORY.md"].startswith("# Memory\n\n## Clients\n\nAcme pays net 30.\n\n")
    assert edited.config.scopes["studio"] == "the pottery studio"
    assert [p.decided_by for p in plan.placed] == ["plan"] * 4


def test_migrate_with_an_edited_plan_moves_a_section_out_of_general(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(MEMORY)
    out = tmp_path / "plan.toml"
    text = edit(write_plan(repo, out), "Odds and ends", "domain", "general", "business")
    out.write_text(edit(text, "Odds and ends", "leaf", "odds-and-ends", "studio-notes"), encoding="utf-8")
    result = bonsai("migrate", "-C", str(repo), "--force", "--plan", str(out))
    assert result.exit_code == 0, result.output
    leaf = repo / "memory/domains/business/studio-notes.md"
    assert leaf.read_text() == "## Odds and ends\n\nGlaze tiles; the blue one cracked.\n\n"
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "-1", "--format=%B").count("Bonsai-Migration: 1") == 1
    assert "studio-notes.md" in (repo / "memory/domains/business/_index.md").read_text()
    assert bonsai("rollback", "-C", str(repo)).exit_code == 0
    assert (repo / "MEMORY.md").read_text() == MEMORY  # lossless both ways


def test_a_stale_plan_is_refused_and_nothing_changes(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(MEMORY)
    out = tmp_path / "plan.toml"
    write_plan(repo, out)
    (repo / "MEMORY.md").write_text(MEMORY.replace("## Clients\n", "## Clients\n\nNew line.\n"))
    commit(repo, "agent wrote more", "MEMORY.md")
    before = snapshot(repo)
    proc = subprocess.run([BONSAI, "migrate", "-C", str(repo), "--force", "--plan", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 3 and proc.stdout == ""
    assert f"{out}: entry 2 ('Odds and ends'): no longer matches MEMORY.md (line 9 is 'Odds and ends')" in proc.stderr
    assert snapshot(repo) == before


def test_plan_out_needs_dry_run_and_a_missing_plan_is_refused(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(MEMORY)
    result = bonsai("migrate", "-C", str(repo), "--plan-out", str(tmp_path / "p.toml"))
    assert result.exit_code == 2 and "--plan-out needs --dry-run" in result.stderr
    result = bonsai("migrate", "-C", str(repo), "--plan", str(tmp_path / "nope.toml"))
    assert result.exit_code == 3 and "nope.toml: no such plan file" in result.stderr
    assert git(repo, "status", "--porcelain") == ""


def test_migrate_dry_run_lists_sections_and_json_adds_them(make_repo: MakeRepo) -> None:
    repo = make_repo(MEMORY)
    result = bonsai("migrate", "-C", str(repo), "--dry-run", "--force")
    assert "  Odds and ends -> memory/domains/general/odds-and-ends.md (fallback)" in result.stdout.splitlines()
    assert "  Birthdays -> memory/dates.md (heading)" in result.stdout.splitlines()
    import json

    data = json.loads(bonsai("migrate", "-C", str(repo), "--dry-run", "--force", "--json").stdout)
    assert data["section_count"] == 4
    assert data["sections"][0] == {"heading": "Clients", "line": 3, "domain": "business",
                                   "path": "memory/domains/business/clients.md", "decided_by": "heading", "score": 1.0}


from test_properties import markdown  # noqa: E402 - the shared Markdown strategy


@given(markdown())
def test_an_unedited_plan_round_trips_for_any_markdown(text: str) -> None:
    """render -> tomllib -> read_plan -> plan_migration gives the classifier's tree, byte for byte."""
    try:
        plan = plan_migration(text, Config())
    except BadInput:  # marker look-alikes in the trunk: migrate refuses those with or without a plan
        return
    edited = read_plan(render_plan(plan, Config()), split_sections(text).sections, Config())
    assert plan_migration(text, edited.config, edited.choices).files == plan.files
