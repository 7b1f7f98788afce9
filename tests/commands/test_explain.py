"""`bonsai-git explain`: headings, --body, --file in context, --json, -C, and the scope table."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.core.config import DOMAIN_SCOPES
from support import bonsai, corpus_bytes

BONSAI = str(Path(sys.executable).parent / "bonsai-git")


def explain(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["explain", *args])
    return result.exit_code, result.stdout, result.stderr


def test_explain_shows_step_words_runner_up_and_the_scope_table() -> None:
    code, out, err = explain("Clients & Servers & Hosting")
    assert (code, err) == (0, "")
    first = out.splitlines()[0]
    assert first == ("'Clients & Servers & Hosting' -> infrastructure: decided by heading, score 2 "
                     "(words: \"Servers\", \"Hosting\"); runner-up: business 1")
    for name, scope in DOMAIN_SCOPES.items():
        assert f"  {name:<15} {scope}" in out.splitlines()


def test_explain_body_decides_when_the_heading_does_not() -> None:
    code, out, _ = explain("Odds and ends", "--body", "Router and DNS on the NAS; VPN for remote access.")
    assert code == 0 and out.startswith("'Odds and ends' -> infrastructure: decided by body, score 5")
    code, out, _ = explain("Odds and ends")
    assert out.startswith("'Odds and ends' -> general: decided by fallback")


def test_explain_json_has_records_and_domains() -> None:
    code, out, _ = explain("--json", "Person: Ann Lee", "Seoul trip")
    data = json.loads(out)
    assert code == 0
    assert data["sections"][0] == {"heading": "Person: Ann Lee", "line": None, "domain": "people", "decided_by": "prefix",
                                   "score": 2.0, "words": ["Person:"], "runner_up": None, "runner_up_score": 0.0,
                                   "document": None}
    assert data["sections"][1]["domain"] == "personal"
    assert [d["name"] for d in data["domains"]] == list(DOMAIN_SCOPES)


def test_explain_file_in_context_with_a_workspace_config(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_bytes(corpus_bytes("23-long-running-agent-25k.md"))
    (ws / ".bonsai.toml").write_text('[domains.research]\nkeywords = ["research notes", "sizing"]\nscope = "market research"\n')
    code, out, _ = explain("-C", str(ws), "--file", "MEMORY.md", "--json")
    data = json.loads(out)
    by_heading = {s["heading"]: s for s in data["sections"]}
    assert code == 0 and len(data["sections"]) == 168
    sizing = by_heading["Research Notes: Market Sizing for the Sensor Product"]
    assert (sizing["domain"], sizing["decided_by"], sizing["runner_up"]) == ("research", "config", "business")
    assert by_heading["Weekly Review 2025-W44"]["domain"] == "log"
    assert by_heading["Person: Tamsin Greaves"]["path"] == "memory/domains/people/person-tamsin-greaves.md"
    assert by_heading["Person: Tamsin Greaves"]["line"] == 145
    assert {"name": "research", "scope": "market research"} == data["domains"][0]


def test_explain_file_missing_or_not_utf8_is_refused(tmp_path: Path) -> None:
    code, _, err = explain("-C", str(tmp_path), "--file", "nope.md")
    assert code == 3 and "nope.md: no such file" in err
    (tmp_path / "bad.md").write_bytes(b"## H\n\xff\n")
    code, _, err = explain("--file", str(tmp_path / "bad.md"))
    assert code == 3 and "not UTF-8 (byte 5)" in err


def test_explain_runs_as_a_real_process() -> None:
    proc = subprocess.run([BONSAI, "explain", "2026-05-14 shipped v2"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.startswith("'2026-05-14 shipped v2' -> log: decided by prefix, score 2 (words: \"2026-05-14\")")


def test_explain_file_on_a_migrated_trunk_explains_what_follows_the_block(make_repo: Callable[..., Path]) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write("\n## Servers added later\n\nnas2 at 10.0.0.9\n")
    code, out, err = explain("-C", str(repo), "--file", "MEMORY.md", "--json")
    assert (code, err) == (0, "")
    sections = json.loads(out)["sections"]
    assert sections[-1]["heading"] == "Servers added later" and sections[-1]["domain"] == "infrastructure"


def test_explain_file_without_leaf_paths_when_migrate_would_refuse(tmp_path: Path) -> None:
    marker_text = "# T\n\n<!-- bonsai:begin x -->\n<!-- bonsai:end -->\n\n## 📌 Pinned\n\nkeep\n\n## Servers\n\nnas\n"
    (tmp_path / "m.md").write_text(marker_text)
    code, out, err = explain("--file", str(tmp_path / "m.md"), "--json")
    sections = json.loads(out)["sections"]
    assert (code, err) == (0, "") and [s["domain"] for s in sections] == ["pinned", "infrastructure"]
    assert all("path" not in s for s in sections)


def test_explain_without_headings_prints_the_domain_table() -> None:
    code, out, _ = explain()
    assert code == 0 and out.startswith("Domains (table order: an equal score goes to the earlier one):\n")
    assert len(out.splitlines()) == 1 + len(DOMAIN_SCOPES)


@pytest.mark.parametrize(
    ("heading", "line"),
    [
        ("Capital planning", "'Capital planning' -> general: decided by fallback (no keyword in the heading, body or group)"),
        ("APIs", "'APIs' -> infrastructure: decided by heading, score 1 (words: \"APIs\"); runner-up: none"),
        ("📌 Core Rules", "'📌 Core Rules' -> pinned: pinned by a pin rule, stays verbatim in the trunk"),
    ],
)
def test_explain_prints_domain_and_keyword(heading: str, line: str) -> None:
    result = bonsai("explain", heading, catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == line


def test_explain_file_with_no_section_says_so_and_how_to_explain_a_migrated_memory(tmp_path: Path) -> None:
    """A new user's finding: `explain --file MEMORY.md` after migrating printed only the domain table."""
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nJust a preamble.\n", encoding="utf-8")
    code, out, err = explain("-C", str(tmp_path), "--file", "MEMORY.md")
    assert (code, err) == (0, "")
    assert out.splitlines()[0].startswith("explain: the file has no ## section to explain; a migrated MEMORY.md")
    code, out, _ = explain("-C", str(tmp_path), "--file", "MEMORY.md", "--json")
    assert json.loads(out)["sections"] == []


def test_a_relative_is_explained_as_a_kin_word_not_an_honorific(tmp_path: Path) -> None:
    """A new user's finding: `## Mamá` was 'decided by name … (an honorific)'; it is a kin word."""
    (tmp_path / "m.md").write_text("## Mamá\n- toma la pastilla a las 8\n", encoding="utf-8")
    code, out, _ = explain("--file", str(tmp_path / "m.md"))
    assert code == 0 and "decided by name: the heading names a relative ('Mamá': a kin word)" in out.splitlines()[0]


def test_an_organisations_name_is_explained_as_one_not_as_a_persons(tmp_path: Path) -> None:
    """`Grupo Arrieta` is decided by name, but it names a company: explain says which word told it."""
    (tmp_path / "m.md").write_text("## Grupo Arrieta\n- pedidos cada lunes\n\n## Bayside Runners Club\n- sundays\n",
                                   encoding="utf-8")
    code, out, _ = explain("--file", str(tmp_path / "m.md"))
    lines = out.splitlines()
    assert code == 0
    assert lines[0].endswith("decided by name: the heading is an organisation's name ('Grupo Arrieta': 'Grupo' names a company)")
    assert lines[1].endswith("decided by name: the heading is an organisation's name ('Bayside Runners Club': 'Club' names a group)")


HOUSEHOLD = ("# Memory\n\n## Thursday\n\nDentist at 9:40, then the pharmacy for the prescription refill.\n\n"
             "## Clients\n\nAcme pays net 30.\n\n## Invoices\n\nSend invoices on the 1st.\n")


def test_explain_a_heading_of_the_workspace_reads_its_section_as_migrate_does(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(HOUSEHOLD)
    code, out, _ = explain("-C", str(tmp_path), "THURSDAY", "--json")
    in_context = json.loads(explain("-C", str(tmp_path), "--file", "MEMORY.md", "--json")[1])["sections"][0]
    assert code == 0 and json.loads(out)["sections"] == [in_context]
    assert in_context["line"] == 3 and in_context["domain"] == "personal"  # the body decided, not the bare word
    code, out, _ = explain("-C", str(tmp_path), "Thursday", "--body", "")  # no body given: still in context
    assert out.startswith("line 3: 'Thursday' -> personal (memory/domains/personal/thursday.md)")
    code, out, _ = explain("-C", str(tmp_path), "Odds and ends")  # not a heading of this memory: the words alone
    assert out.startswith("'Odds and ends' -> general: decided by fallback")


def test_explain_a_heading_after_migration_judges_the_leaf_and_says_where_it_is(make_repo: Callable[..., Path]) -> None:
    repo = make_repo(HOUSEHOLD)
    assert bonsai("migrate", "-C", str(repo), "--force").exit_code == 0
    assert bonsai("move", "-C", str(repo), "thursday", "business").exit_code == 0
    code, out, _ = explain("-C", str(repo), "thursday")
    assert code == 0
    assert out.splitlines()[0].startswith("'Thursday' -> personal (the rules today; it is in business: "
                                          "memory/domains/business/thursday.md): decided by body")
    code, out, _ = explain("-C", str(repo), "Clients")
    assert out.splitlines()[0].startswith("'Clients' -> business (memory/domains/business/clients.md): decided by")


@pytest.mark.parametrize("damage", ["latin-1", "folder"])
def test_explain_says_when_it_cannot_read_the_memory_and_judges_the_words(tmp_path: Path, damage: str) -> None:
    if damage == "latin-1":
        (tmp_path / "MEMORY.md").write_bytes(HOUSEHOLD.replace("Dentist", "Dentïst").encode("latin-1"))
    else:
        (tmp_path / "MEMORY.md").mkdir()
    result = CliRunner().invoke(main, ["explain", "-C", str(tmp_path), "Thursday"])
    reason = "MEMORY.md: not UTF-8 (byte 27)" if damage == "latin-1" else "MEMORY.md: not a regular file"
    assert result.exit_code == 0 and result.stderr == f"note: {reason}; explaining the words alone\n"
    assert result.stdout.startswith("'Thursday' -> general: decided by fallback")
    result = CliRunner().invoke(main, ["explain", "-C", str(tmp_path), "--file", "MEMORY.md"])
    assert result.exit_code == 3 and result.stderr.startswith("bonsai-git: MEMORY.md: ")


def test_explain_notes_a_heading_the_memory_lacks_and_refuses_a_missing_workspace(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(HOUSEHOLD)
    result = CliRunner().invoke(main, ["explain", "-C", str(tmp_path), "Nope"])
    assert result.stderr == "note: no section of this memory is headed 'Nope'; explaining the words alone\n"
    result = CliRunner().invoke(main, ["explain", "-C", str(tmp_path / "missing"), "Nope"])
    assert result.exit_code == 3 and result.stderr == f"bonsai-git: {tmp_path / 'missing'}: no such directory\n"


def test_explain_file_of_another_workspace_reads_that_workspaces_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attack pass: `explain --file ws/MEMORY.md` run from outside `ws` ignored ws's .bonsai.toml,
    so it disagreed with `migrate -C ws`.  Now it reads the settings of the workspace holding the file
    (a note says so); `-C` still chooses."""
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".bonsai.toml").write_text('pinned = ["Thursday"]\n\n[domains.studio]\nkeywords = ["glaze"]\nscope = "the pottery studio"\n')
    (ws / "MEMORY.md").write_text("## Glaze notes\n- cone 6\n## Family\n- mum\n## Thursday\n- x\n")
    monkeypatch.chdir(tmp_path)
    proc = subprocess.run([BONSAI, "explain", "--file", "ws/MEMORY.md", "--json"], capture_output=True, text=True)
    placed = {s["heading"]: s["domain"] for s in json.loads(proc.stdout)["sections"]}
    assert proc.returncode == 0 and placed == {"Glaze notes": "studio", "Family": "identity", "Thursday": "pinned"}
    assert f"note: reading {ws / '.bonsai.toml'}" in proc.stderr
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(ws), "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "m"], check=True)
    plan = subprocess.run([BONSAI, "migrate", "-C", str(ws), "--force", "--dry-run"], capture_output=True, text=True)
    assert "Glaze notes -> memory/domains/studio/glaze-notes.md" in plan.stdout, plan.stdout + plan.stderr
    code, out, _ = explain("-C", str(tmp_path), "--file", "ws/MEMORY.md", "--json")  # -C chooses: no settings there
    assert code == 0 and {s["heading"]: s["domain"] for s in json.loads(out)["sections"]}["Glaze notes"] == "general"


def test_explain_file_names_the_preamble_leaf_migrate_writes(tmp_path: Path) -> None:
    """A preamble over `preamble_tokens` becomes a leaf: explain names it, as migrate writes it; a file
    of only such a preamble is no migrated trunk."""
    long = "Owner: Helena Silva. " + "She runs a ceramics studio and likes long walks by the sea. " * 80 + "\n\n"
    (tmp_path / "MEMORY.md").write_text(long + "## Family\n- mum\n## Servers\n- hetzner\n")
    code, out, _ = explain("-C", str(tmp_path), "--file", "MEMORY.md")
    assert code == 0 and out.splitlines()[0].startswith("preamble (the text before the first ##, ~")
    assert "-> memory/domains/general/preamble.md, out of boot" in out.splitlines()[0]
    code, out, _ = explain("-C", str(tmp_path), "--file", "MEMORY.md", "--json")
    assert json.loads(out)["preamble"]["path"] == "memory/domains/general/preamble.md"
    (tmp_path / "notes.md").write_text("Some notes. " * 600)
    code, out, _ = explain("-C", str(tmp_path), "--file", "notes.md")
    assert code == 0 and "migrated" not in out.splitlines()[0] and "preamble.md" in out.splitlines()[0]


def test_explain_file_refuses_a_nul_byte_as_migrate_does(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_bytes(b"## a\x00b\nx\n")
    code, out, err = explain("-C", str(tmp_path), "--file", "MEMORY.md")
    assert code == 3 and out == "" and "MEMORY.md: holds a NUL byte at byte offset 4" in err


def test_explain_a_pinned_heading_after_migration_says_it_stays_in_the_trunk(make_repo: Callable[..., Path]) -> None:
    """A new user's finding: after migrating, `explain "📌 Core Rules"` said no section had that heading;
    the pinned section is in the trunk, before the block, and explain says so."""
    repo = make_repo(corpus_bytes("22-pinned-core-rules.md"))
    assert bonsai("migrate", "-C", str(repo), "--force").exit_code == 0
    pinned = next(line[3:].strip() for line in (repo / "MEMORY.md").read_text(encoding="utf-8").splitlines()
                  if line.startswith("## ") and "📌" in line)
    code, out, err = explain("-C", str(repo), pinned)
    assert (code, err) == (0, "")
    assert out.splitlines()[0].endswith(f"{pinned!r} -> pinned (MEMORY.md): pinned by a pin rule, stays verbatim in the trunk")
