"""`bonsai-git connect RUNTIME`: the Codex projection, the Claude import, the OpenClaw check, undo,
and the projection kept fresh by reindex, absorb and the hook (real git repositories, the real CLI).

The real runtimes themselves are driven by the opt-in suite, tests/clients/ (BONSAI_CLIENTS=1)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.connect import (
    CLAUDE_BEGIN,
    CLAUDE_END,
    CODEX_BEGIN,
    CODEX_END,
    codex_fit,
    find_block,
    foreign_line,
    imports_memory,
    insert_block,
    remove_block,
    render_claude_block,
    render_codex_block,
)
from bonsai_git.core.errors import BadInput, ConcurrentWrite
from bonsai_git.core.layout import parse_trunk
from living_tree import LIVING, PRICING, MakeRepo, append_to_memory, commit_all, edit_leaf, migrated, run, write
from support import bonsai, bonsai_untouched, git, snapshot

TRUNK_BLOCK = "<!-- bonsai:begin generated #00000000 -->\nLook up: x\n- a: scope\n<!-- bonsai:end -->\n"


# ----------------------------------------------------------------------------- core (pure)

@given(st.text(st.characters(blacklist_categories=("Cs",))), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.sampled_from(["codex-block", "codex-pointer", "claude"]))
def test_insert_then_remove_gives_back_the_text_byte_for_byte(user: str, nl: str, created: bool, kind: str) -> None:
    if created:
        user = ""
    block = (render_claude_block(nl, created) if kind == "claude" else
             render_codex_block(TRUNK_BLOCK, kind.split("-")[1], nl, created))
    begin, end = (CLAUDE_BEGIN, CLAUDE_END) if kind == "claude" else (CODEX_BEGIN, CODEX_END)
    if begin in user:
        return  # a second block in the user's text is refused (tested below)
    text = insert_block(user if not created else None, block)
    span = find_block(text, begin, end, "X.md")
    assert span is not None and text[span.start:span.end] == block and span.created == created
    assert remove_block(text, span) == (None if created else user)
    if kind != "claude":
        assert foreign_line(text, span) is None


def test_codex_block_is_the_trunk_block_lines_with_the_file_line_ending() -> None:
    block = render_codex_block(TRUNK_BLOCK.replace("\n", "\r\n"), "block", "\n")
    lines = block.split("\n")
    assert lines[0].startswith(CODEX_BEGIN + " generated block #") and lines[-2] == CODEX_END
    assert lines[2:4] == ["Look up: x", "- a: scope"] and "\r" not in block


def test_foreign_line_finds_text_typed_inside_the_codex_block() -> None:
    text = "# mine\n" + render_codex_block(TRUNK_BLOCK, "block")
    typed = text.replace("- a: scope\n", "- a: scope\nmy note\n")
    span = find_block(typed, CODEX_BEGIN, CODEX_END, "AGENTS.md")
    assert span is not None and foreign_line(typed, span) == 3


def test_find_block_refuses_an_unpaired_begin_and_a_second_block() -> None:
    block = render_codex_block(TRUNK_BLOCK, "block")
    with pytest.raises(BadInput, match=r"AGENTS.md:2: bonsai-git's begin marker has no end marker"):
        find_block("x\n" + block.replace(CODEX_END, "gone"), CODEX_BEGIN, CODEX_END, "AGENTS.md")
    with pytest.raises(BadInput, match="a second bonsai-git block"):
        find_block(block + block, CODEX_BEGIN, CODEX_END, "AGENTS.md")


@pytest.mark.parametrize(("text", "line"), [
    ("@MEMORY.md\n", 1), ("# rules\nsee @./MEMORY.md for memory\n", 2), ("```\n@MEMORY.md\n```\n", None),
    ("<!-- @MEMORY.md -->\n", None), ("write `@MEMORY.md` by hand\n", None), ("@MEMORY.md.bak\n", None),
    ("email me@MEMORY.md\n", None),
])
def test_imports_memory(text: str, line: int | None) -> None:
    assert imports_memory(text) == line


def test_codex_fit_counts_bytes_root_first() -> None:
    fit = codex_fit({"AGENTS.md": "a" * 30_000}, "b" * 3_000, "c" * 1_000, 32_768)
    assert (fit.fits, fit.before, fit.user_lost_before, fit.user_lost) == (True, 30_000, 232, 1_232)
    assert not codex_fit({"AGENTS.md": "é" * 16_000}, "", "c" * 1_000, 32_768).fits  # 32,000 bytes above


# ----------------------------------------------------------------------------- codex

def _connected(make_repo: MakeRepo, agents: bytes | None = None) -> Path:
    repo = migrated(make_repo)
    if agents is not None:
        (repo / "AGENTS.md").write_bytes(agents)
        commit_all(repo, "agents")
    return repo


@pytest.mark.parametrize("agents", [None, b"", b"# Rules\n\nBe brief.\n", b"# Rules\r\nBe brief.\r\n",
                                    b"no final newline", "– ünïcode rules\n".encode()])
def test_connect_codex_then_undo_is_byte_identical(make_repo: MakeRepo, agents: bytes | None) -> None:
    repo = _connected(make_repo, agents)
    before = snapshot(repo)
    result = bonsai("connect", "codex", "-C", str(repo), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "wrote bonsai-git's Codex block into AGENTS.md (block:" in result.stdout
    data = (repo / "AGENTS.md").read_bytes()
    assert data.endswith(agents or b"") and data.startswith(CODEX_BEGIN.encode())
    assert b"To find a fact, read `memory/domains/<domain>/_index.md`" in data and b"- business" in data
    if agents and b"\r\n" in agents:
        assert data.count(b"\n") == data.count(b"\r\n")  # the file's own line ending
    assert bonsai("connect", "codex", "-C", str(repo)).stdout == "AGENTS.md: up to date; nothing to write\n"
    assert bonsai("connect", "codex", "--undo", "-C", str(repo)).exit_code == 0
    assert snapshot(repo) == before  # AGENTS.md byte for byte (or absent again), nothing else touched


def test_connect_codex_dry_run_prints_the_diff_and_writes_nothing(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    result = bonsai_untouched(repo, "connect", "codex", "--dry-run", "-C", str(repo))
    assert result.exit_code == 0
    assert result.stdout.startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")
    assert f"+{CODEX_BEGIN} generated block #" in result.stdout and "\n # Rules\n" in result.stdout
    assert "dry run: would write bonsai-git's Codex block" in result.stdout
    bonsai("connect", "codex", "-C", str(repo))
    undo = bonsai_untouched(repo, "connect", "codex", "--undo", "--dry-run", "-C", str(repo))
    assert undo.stdout.count("\n-") >= 5 and "dry run: would remove" in undo.stdout


def test_connect_codex_refuses_an_unmigrated_workspace(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    result = bonsai_untouched(repo, "connect", "codex", "-C", str(repo))
    assert result.exit_code == 3 and "MEMORY.md: no bonsai markers (not migrated yet)" in result.stderr


def test_connect_codex_writes_into_the_override_codex_picks(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# plain\n")
    write(repo, "AGENTS.override.md", "# override wins\n")
    bonsai("connect", "codex", "-C", str(repo))
    assert (repo / "AGENTS.md").read_bytes() == b"# plain\n"
    assert (repo / "AGENTS.override.md").read_bytes().startswith(CODEX_BEGIN.encode())


def test_connect_codex_refuses_a_symlinked_agents_md(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, None)
    write(repo, "CLAUDE.md", "# shared rules\n")
    (repo / "AGENTS.md").symlink_to("CLAUDE.md")
    result = bonsai_untouched(repo, "connect", "codex", "-C", str(repo))
    assert result.exit_code == 3 and "AGENTS.md: is a symlink" in result.stderr


def _fleet(make_repo: MakeRepo, root_agents: str) -> tuple[Path, Path]:
    repo = make_repo(None)
    write(repo, "AGENTS.md", root_agents)
    ws = repo / "agent"
    ws.mkdir()
    write(ws, "MEMORY.md", LIVING)
    commit_all(repo, "fleet")
    assert bonsai("migrate", "--force", "-C", str(ws)).exit_code == 0
    return repo, ws


def test_connect_codex_in_a_fleet_uses_the_workspace_folder_and_counts_the_root_file(make_repo: MakeRepo) -> None:
    repo, ws = _fleet(make_repo, "root rules\n")
    result = bonsai("connect", "codex", "-C", str(ws))
    assert result.exit_code == 0 and (ws / "AGENTS.md").read_bytes().startswith(CODEX_BEGIN.encode())
    assert (repo / "AGENTS.md").read_text() == "root rules\n"
    size = len((ws / "AGENTS.md").read_bytes())
    assert f"ending at byte {11 + size:,} of Codex's 32,768-byte chain budget" in result.stdout


def test_connect_codex_falls_back_to_the_pointer_then_refuses(make_repo: MakeRepo) -> None:
    repo, ws = _fleet(make_repo, "r" * 32_300 + "\n")  # the block (~700 bytes) would be cut; the pointer fits
    result = bonsai("connect", "codex", "-C", str(ws))
    assert result.exit_code == 0 and "writing the one-line pointer to MEMORY.md instead" in result.stderr
    text = (ws / "AGENTS.md").read_text()
    assert "generated pointer" in text and "read MEMORY.md" in text and "- business" not in text
    forced = bonsai_untouched(repo, "connect", "codex", "--mode", "block", "-C", str(ws))
    assert forced.exit_code == 3 and "would be cut; shorten those files or raise project_doc_max_bytes" in forced.stderr
    bonsai("connect", "codex", "--undo", "-C", str(ws))
    write(repo, "AGENTS.md", "r" * 32_700 + "\n")
    commit_all(repo, "longer")
    refused = bonsai_untouched(repo, "connect", "codex", "-C", str(ws))
    assert refused.exit_code == 3 and "spends 32,701 of its 32,768 bytes above this folder (AGENTS.md)" in refused.stderr


def test_connect_codex_warns_when_the_users_own_text_gets_cut(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, ("u" * 32_500 + "\n").encode())
    result = bonsai("connect", "codex", "-C", str(repo))
    assert result.exit_code == 0
    assert "warning: AGENTS.md: with the memory block Codex cuts" in result.stderr and "(before: 0)" in result.stderr


def test_connect_codex_reads_the_budget_from_codex_config(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, None)
    home = Path(os.environ["CODEX_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("project_doc_max_bytes = 450\n")
    result = bonsai("connect", "codex", "-C", str(repo))
    assert "of Codex's 450-byte chain budget" in result.stdout and "generated pointer" in (repo / "AGENTS.md").read_text()


def test_text_typed_inside_the_codex_block_is_refused_by_connect_reindex_and_the_hook(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    commit_all(repo, "connect")
    text = (repo / "AGENTS.md").read_text()
    (repo / "AGENTS.md").write_text(text.replace(CODEX_END, "my own line\n" + CODEX_END))
    edit_leaf(repo)
    for args in (["connect", "codex"], ["reindex"]):
        result = bonsai_untouched(repo, *args, "-C", str(repo))
        assert result.exit_code == 3 and "AGENTS.md:" in result.stderr and "would be overwritten" in result.stderr
    before = snapshot(repo)
    hook = run(["bonsai-git", "hook"], repo)
    assert hook.returncode == 3 and "AGENTS.md:" in hook.stderr and snapshot(repo) == before


def test_reindex_regenerates_a_stale_projection_and_check_names_it(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    fresh = (repo / "AGENTS.md").read_bytes()
    commit_all(repo, "connect")
    write(repo, "memory/domains/gardening/roses.md", "## Roses\n\nPrune in March.\n")  # a new domain
    git(repo, "add", "-A")
    check = bonsai("reindex", "--check", "-C", str(repo))
    assert check.exit_code == 1 and "stale AGENTS.md" in check.stdout
    assert bonsai("reindex", "-C", str(repo)).exit_code == 0
    new = (repo / "AGENTS.md").read_bytes()
    assert new != fresh and b"- gardening" in new and new.endswith(b"# Rules\n")
    parts = parse_trunk((repo / "MEMORY.md").read_text())
    assert parts is not None and render_codex_block(parts.block, "block", created=False).encode() in new


def test_hook_leaf_edit_leaves_agents_md_and_claude_md_unchanged_a_new_domain_updates_the_block(
        make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    bonsai("connect", "claude", "-C", str(repo))
    assert run(["bonsai-git", "install-hook"], repo).returncode == 0
    assert commit_all(repo, "connect").returncode == 0
    agents, claude = (repo / "AGENTS.md").read_bytes(), (repo / "CLAUDE.md").read_bytes()
    edit_leaf(repo)
    first = commit_all(repo, "leaf edit")  # the hook rewrites and stages the indexes, not AGENTS.md: one commit
    assert first.returncode == 0 and "AGENTS.md" not in first.stderr
    assert (repo / "AGENTS.md").read_bytes() == agents and (repo / "CLAUDE.md").read_bytes() == claude
    write(repo, "memory/domains/gardening/roses.md", "## Roses\n\nPrune in March.\n")
    new_domain = commit_all(repo, "new domain")  # the plain hook regenerates and stages AGENTS.md too (issue 22)
    assert new_domain.returncode == 0 and "staged them: AGENTS.md MEMORY.md" in new_domain.stderr
    assert b"- gardening" in (repo / "AGENTS.md").read_bytes() and git(repo, "status", "--porcelain") == ""
    assert (repo / "CLAUDE.md").read_bytes() == claude


def test_absorb_with_a_new_domain_refreshes_the_projection(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, None)
    bonsai("connect", "codex", "-C", str(repo))
    commit_all(repo, "connect")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Contract with Highwater Clays\n\nSigned NDA and supply contract, renewal clause.\n")
    result = bonsai("absorb", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert b"- legal" in (repo / "AGENTS.md").read_bytes()
    parts = parse_trunk((repo / "MEMORY.md").read_text())
    assert parts is not None and render_codex_block(parts.block, "block", created=True) in (repo / "AGENTS.md").read_text()


def test_absorb_into_existing_domains_leaves_the_projection_alone(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, None)
    bonsai("connect", "codex", "-C", str(repo))
    commit_all(repo, "connect")
    before = (repo / "AGENTS.md").read_bytes()
    append_to_memory(repo)
    assert bonsai("absorb", "-C", str(repo)).exit_code == 0
    # The block shows each domain's topics (issue 24): the projection follows the trunk's block exactly,
    # and changes only when those topics do.
    block = (repo / "MEMORY.md").read_text(encoding="utf-8").split("-->", 1)[1].split("<!-- bonsai:end", 1)[0]
    after = (repo / "AGENTS.md").read_bytes()
    assert after == before or all(line.encode() in after for line in block.splitlines() if line.startswith("- "))


def test_an_agent_write_to_agents_md_meanwhile_is_kept_never_overwritten(make_repo: MakeRepo) -> None:
    from bonsai_git.projection import add_codex_projection
    from bonsai_git.reindex import read_trunk, sync_rendered

    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    write(repo, "memory/domains/gardening/roses.md", "## Roses\n\nPrune in March.\n")
    from bonsai_git.core.indexes import render_block

    trunk_bytes, parts = read_trunk(repo)
    rendered: dict[str, str | None] = {"MEMORY.md": parts.pinned + render_block(["business", "gardening"]) + parts.inbox}
    known: dict[str, bytes] = {}
    add_codex_projection(repo, rendered, known)  # the run read AGENTS.md here ...
    theirs = (repo / "AGENTS.md").read_bytes() + b"agent's new rule\n"
    (repo / "AGENTS.md").write_bytes(theirs)  # ... and the agent wrote to it before the run's write
    with pytest.raises(ConcurrentWrite):
        sync_rendered(repo, {"AGENTS.md": rendered["AGENTS.md"]}, trunk_bytes, False, known)
    assert (repo / "AGENTS.md").read_bytes() == theirs


def test_pointer_block_is_left_alone_by_reindex(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, None)
    bonsai("connect", "codex", "--mode", "pointer", "-C", str(repo))
    before = (repo / "AGENTS.md").read_bytes()
    write(repo, "memory/domains/gardening/roses.md", "## Roses\n\nPrune in March.\n")
    git(repo, "add", "-A")
    result = bonsai("reindex", "-C", str(repo))
    assert result.exit_code == 0 and "AGENTS.md" not in result.stdout and (repo / "AGENTS.md").read_bytes() == before


# ----------------------------------------------------------------------------- claude

@pytest.mark.parametrize("claude", [None, b"# Project\n\nUse pnpm.\n", b"# Project\r\nUse pnpm.\r\n", b"x"])
def test_connect_claude_then_undo_is_byte_identical(make_repo: MakeRepo, claude: bytes | None) -> None:
    repo = migrated(make_repo)
    if claude is not None:
        (repo / "CLAUDE.md").write_bytes(claude)
        commit_all(repo, "claude")
    before = snapshot(repo)
    result = bonsai("connect", "claude", "-C", str(repo), catch_exceptions=False)
    assert result.exit_code == 0 and "wrote the @MEMORY.md import into CLAUDE.md" in result.stdout
    data = (repo / "CLAUDE.md").read_bytes()
    assert data.endswith(claude or b"") and imports_memory(data.decode()) == 2
    again = bonsai("connect", "claude", "-C", str(repo))
    assert "already connected (CLAUDE.md:2 imports MEMORY.md)" in again.stdout
    assert (repo / "CLAUDE.md").read_bytes() == data  # never a second import
    assert bonsai("connect", "claude", "--undo", "-C", str(repo)).exit_code == 0
    assert snapshot(repo) == before


def test_connect_claude_keeps_the_users_own_import(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    write(repo, "CLAUDE.md", "# Project\nMemory: @MEMORY.md\n")
    result = bonsai_untouched(repo, "connect", "claude", "-C", str(repo))
    assert "already connected: CLAUDE.md:2 imports MEMORY.md (your line; nothing to write)" in result.stdout
    undo = bonsai_untouched(repo, "connect", "claude", "--undo", "-C", str(repo))
    assert "nothing to undo" in undo.stdout  # the user's line is theirs


def test_connect_claude_works_on_a_flat_memory_too(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    assert bonsai("connect", "claude", "-C", str(repo)).exit_code == 0
    assert (repo / "CLAUDE.md").read_text().splitlines()[1] == "@MEMORY.md"


def test_connect_claude_auto_memory_prints_then_writes_the_user_setting(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    printed = bonsai_untouched(repo, "connect", "claude", "--auto-memory", "-C", str(repo))
    value = str(repo.resolve())
    assert json.dumps({"autoMemoryDirectory": value}) in printed.stdout
    settings = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    assert not settings.exists()  # nothing outside the repository unless asked
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark"}\n')
    before = snapshot(repo)
    assert bonsai("connect", "claude", "--auto-memory", "--write-settings", "-C", str(repo)).exit_code == 0
    assert json.loads(settings.read_text()) == {"theme": "dark", "autoMemoryDirectory": value}
    assert snapshot(repo) == before
    status = json.loads(bonsai("status", "--profile", "claude", "--json", "-C", str(repo)).stdout)
    assert status["boot"]["loaded"]["by"].startswith(f"autoMemoryDirectory in {settings}")
    assert bonsai("connect", "claude", "--auto-memory", "--write-settings", "--undo", "-C", str(repo)).exit_code == 0
    assert json.loads(settings.read_text()) == {"theme": "dark"}


def test_connect_usage_errors() -> None:
    assert bonsai("connect", "codex", "--auto-memory").exit_code == 2
    assert bonsai("connect", "claude", "--write-settings").exit_code == 2
    assert bonsai("connect", "claude", "--mode", "pointer").exit_code == 2
    assert bonsai("connect", "vim").exit_code == 2


# ----------------------------------------------------------------------------- openclaw

def test_connect_openclaw_writes_nothing_and_checks_the_workspace_setting(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    missing = bonsai_untouched(repo, "connect", "openclaw", "-C", str(repo))
    assert missing.exit_code == 1 and "OpenClaw: nothing to write" in missing.stdout
    assert f"no OpenClaw config at {state / 'openclaw.json'}" in missing.stderr
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": str(repo)}}}))
    ok = bonsai_untouched(repo, "connect", "openclaw", "-C", str(repo))
    assert ok.exit_code == 0 and "names this folder: connected" in ok.stdout
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"workspace": "/elsewhere"}}}))
    other = bonsai_untouched(repo, "connect", "openclaw", "-C", str(repo))
    assert other.exit_code == 1 and "names /elsewhere, not" in other.stderr
    status = json.loads(bonsai("status", "--json", "-C", str(repo)).stdout)
    assert status["boot"]["loaded"]["loaded"] is False
    assert [w["message"] for w in status["warnings"] if w["kind"] == "not_loaded"][0].endswith(
        "run bonsai-git connect openclaw")


# ----------------------------------------------------------------------------- status, rollback, flatten

def test_status_says_whether_each_runtime_loads_the_memory(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    codex = bonsai("status", "--profile", "codex", "-C", str(repo))
    assert codex.exit_code == 1 and "Codex: Loaded at boot: no: nothing: Codex never reads MEMORY.md" in codex.stdout
    assert "MEMORY.md: Codex does not load it at boot" in codex.stdout and "run bonsai-git connect codex" in codex.stdout
    claude = bonsai("status", "--profile", "claude", "-C", str(repo))
    assert "Claude Code: Loaded at boot: no" in claude.stdout and "run bonsai-git connect claude" in claude.stdout
    bonsai("connect", "codex", "-C", str(repo))
    bonsai("connect", "claude", "-C", str(repo))
    commit_all(repo, "connect")
    codex_json = json.loads(bonsai("status", "--profile", "codex", "--json", "-C", str(repo)).stdout)
    assert codex_json["boot"]["loaded"] == {"loaded": True, "by": "bonsai-git's block in AGENTS.md"}
    assert codex_json["healthy"], codex_json["warnings"]
    claude_json = json.loads(bonsai("status", "--profile", "claude", "--json", "-C", str(repo)).stdout)
    assert claude_json["boot"]["loaded"] == {
        "loaded": True, "by": "the @MEMORY.md import in CLAUDE.md:2 (loaded whole, never cut)"}


def test_status_codex_warns_when_the_budget_cuts_the_block(make_repo: MakeRepo) -> None:
    repo, ws = _fleet(make_repo, "r\n")
    bonsai("connect", "codex", "-C", str(ws))
    write(repo, "AGENTS.md", "r" * 32_700 + "\n")  # grown after connect: the block no longer fits
    report = json.loads(bonsai("status", "--profile", "codex", "--json", "-C", str(ws)).stdout)
    assert report["boot"]["loaded"] == {"loaded": False, "by": "bonsai-git's block in agent/AGENTS.md, but Codex's "
                                                                "budget cuts it"}


@pytest.mark.parametrize("command", ["rollback", "flatten"])
def test_rollback_and_flatten_say_to_run_connect_undo(make_repo: MakeRepo, command: str) -> None:
    repo = migrated(make_repo)
    bonsai("connect", "codex", "-C", str(repo))
    bonsai("connect", "claude", "-C", str(repo))
    commit_all(repo, "connect")
    result = bonsai(command, "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "bonsai-git connect codex --undo" in result.stderr and "AGENTS.md" in result.stderr
    assert "CLAUDE.md still imports MEMORY.md" in result.stderr


def test_move_into_a_new_domain_updates_the_projection_in_the_same_commit(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    commit_all(repo, "connect")
    result = bonsai("move", PRICING, "sales", "--new-domain", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert "AGENTS.md" in git(repo, "show", "--name-only", "--format=", "HEAD").split()
    assert b"- sales" in (repo / "AGENTS.md").read_bytes() and (repo / "AGENTS.md").read_bytes().endswith(b"# Rules\n")
    assert git(repo, "status", "--porcelain") == ""
    assert bonsai("reindex", "--check", "-C", str(repo)).exit_code == 0


@pytest.mark.parametrize(("runtime", "file", "end"), [("codex", "AGENTS.md", CODEX_END), ("claude", "CLAUDE.md", CLAUDE_END)])
def test_undo_refuses_when_text_was_typed_inside_the_block(make_repo: MakeRepo, runtime: str, file: str,
                                                           end: str) -> None:
    repo = migrated(make_repo)
    bonsai("connect", runtime, "-C", str(repo))
    (repo / file).write_text((repo / file).read_text().replace(end, "my own line\n" + end))
    result = bonsai_untouched(repo, "connect", runtime, "--undo", "-C", str(repo))
    assert result.exit_code == 3 and f"{file}:" in result.stderr and "undo again" in result.stderr


def test_hook_refuses_to_rewrite_the_block_of_an_agents_md_with_unstaged_changes(make_repo: MakeRepo) -> None:
    repo = _connected(make_repo, b"# Rules\n")
    bonsai("connect", "codex", "-C", str(repo))
    assert run(["bonsai-git", "install-hook"], repo).returncode == 0
    assert commit_all(repo, "connect").returncode == 0
    write(repo, "memory/domains/gardening/roses.md", "## Roses\n\nPrune in March.\n")
    git(repo, "add", "memory")
    with (repo / "AGENTS.md").open("a") as fh:
        fh.write("A rule not meant for this commit.\n")  # unstaged
    before = snapshot(repo)
    refused = run(["git", "commit", "-q", "-m", "new domain"], repo)
    assert refused.returncode != 0 and "AGENTS.md: has changes that are not staged" in refused.stderr
    assert snapshot(repo) == before
    git(repo, "stash", "push", "--keep-index", "-q")  # the user sets the edit aside: the commit goes through
    first = run(["git", "commit", "-q", "-m", "new domain"], repo)  # regenerated and staged: one commit (issue 22)
    assert first.returncode == 0 and "AGENTS.md" in first.stdout + first.stderr
