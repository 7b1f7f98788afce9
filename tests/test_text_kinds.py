"""Text that is not what it seems: markers quoted in code, damaged markers, conflict regions, file
names that would become text, unclosed HTML comments, misplaced leaves; all on real repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git.cli import main
from bonsai_git.hook import main as hook_main
from bonsai_git.core.layout import BEGIN, END, is_migrated, parse_trunk
from living_tree import LIVING, PRICING, MakeRepo, commit_all, migrated, tree_files, write
from support import git, snapshot

QUOTED = f"```\n{BEGIN}\n{END}\n```\n"
MISSING = "MEMORY.md: its bonsai markers are missing but memory/domains/ exists; put the two marker lines back"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def hook(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = hook_main(["-C", str(repo), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# --- markers inside code or comments are text ---------------------------------------------------

def test_a_flat_memory_quoting_both_markers_in_a_fence_is_migrated(make_repo: MakeRepo,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    memory = LIVING.replace("## Reading List", "## Bonsai notes\n\nThe markers look like this:\n\n" + QUOTED
                            + "\n## Reading List")
    assert not is_migrated(memory)
    repo = make_repo(memory)
    result = cli("migrate", "--force", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert (repo / "memory/domains").is_dir()
    assert "bonsai-notes.md" in " ".join(str(p) for p in (repo / "memory").rglob("*.md"))
    assert hook(repo, capsys)[0] == 0  # nothing to rewrite, every commit passes
    assert hook(repo, capsys, "--check")[0] == 0


def test_a_pinned_section_quoting_the_markers_does_not_break_commits(make_repo: MakeRepo,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text("## 📌 How the block looks\n\n" + QUOTED + "\n" + trunk)
    git(repo, "add", "-A")
    assert commit_all(repo).returncode == 0
    parts = parse_trunk((repo / "MEMORY.md").read_text())
    assert parts is not None and QUOTED in parts.pinned
    code, _out, err = hook(repo, capsys)
    assert code == 0, err
    assert cli("reindex", "--check", "-C", str(repo)).exit_code == 0


def test_markers_inside_an_html_comment_are_text() -> None:
    text = f"# M\n\n<!--\n{BEGIN}\n{END}\n-->\n\n## A\nx\n"
    assert parse_trunk(text) is None
    real = text + f"{BEGIN}\n- a\n{END}\n"
    parts = parse_trunk(real)
    assert parts is not None and parts.pinned == text


# --- missing or damaged markers after a migration ---------------------------------------------

@pytest.mark.parametrize("damage", ["end deleted", "case changed", "agent rewrite", "begin deleted"])
def test_damaged_markers_are_refused_by_the_hook_check_and_status(make_repo: MakeRepo, damage: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text()
    damaged = {
        "end deleted": trunk.replace(END + "\n", ""),
        "case changed": trunk.replace(END, END.upper()),
        "agent rewrite": "# Memory\n\nI rewrote this whole file.\n\n## Notes\n\n- keep it short\n",
        "begin deleted": "".join(ln for ln in trunk.splitlines(keepends=True) if not ln.startswith(BEGIN)),
    }[damage]
    (repo / "MEMORY.md").write_text(damaged)
    before = snapshot(repo)
    reindex = cli("reindex", "--check", "-C", str(repo))
    assert reindex.exit_code == 3 and MISSING in reindex.stderr
    for args in ((), ("--check",)):
        code, out, err = hook(repo, capsys, *args)
        assert code == 3 and out == ""
        assert err == f"bonsai-git: {reindex.stderr.removeprefix('bonsai-git: ')}"
    status = cli("status", "-C", str(repo))
    assert status.exit_code == 3 and MISSING in status.stderr
    assert snapshot(repo) == before


# --- merge conflicts ----------------------------------------------------------------------------

def test_a_conflict_spanning_the_block_and_the_text_after_it_is_refused(make_repo: MakeRepo,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text()
    parts = parse_trunk(trunk)
    assert parts is not None
    block_lines = parts.block.splitlines(keepends=True)
    conflicted = (parts.pinned + "".join(block_lines[:-1]) + "<<<<<<< HEAD\n" + block_lines[-1]
                  + "## Ours\n- ours\n=======\n- theirs\n" + END + "\n## Theirs\n- theirs\n>>>>>>> other\n")
    (repo / "MEMORY.md").write_text(conflicted)
    before = snapshot(repo)
    line = conflicted[: conflicted.index("<<<<<<<")].count("\n") + 1
    for result in (cli("reindex", "-C", str(repo)), cli("absorb", "-C", str(repo))):
        assert result.exit_code == 3, result.stderr
        assert f"MEMORY.md:{line}: merge-conflict marker" in result.stderr
    code, _out, err = hook(repo, capsys)
    assert code == 3 and f"MEMORY.md:{line}: merge-conflict marker" in err
    assert snapshot(repo) == before


def test_a_conflict_wholly_inside_the_block_is_regenerated(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    fresh = (repo / "MEMORY.md").read_text()
    conflicted = fresh.replace(BEGIN + "\n", BEGIN + "\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\n")
    (repo / "MEMORY.md").write_text(conflicted)
    assert cli("reindex", "-C", str(repo)).exit_code == 0
    assert (repo / "MEMORY.md").read_text() == fresh


def test_conflict_lines_in_a_leaf_are_refused_but_a_setext_underline_is_text(make_repo: MakeRepo,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "Pricing\n=======\n\nWholesale $18.\n")  # a setext heading: ordinary Markdown
    git(repo, "add", "-A")
    assert hook(repo, capsys)[0] in (0, 1)
    write(repo, PRICING, "Pricing\n=======\n<<<<<<< HEAD\n$18\n||||||| base\n$17\n=======\n$20\n>>>>>>> b\n")
    code, _out, err = hook(repo, capsys)
    assert code == 3 and f"{PRICING}:3: merge-conflict marker" in err


# --- file names that would become text ------------------------------------------------------------

@pytest.mark.parametrize(("name", "shown", "kind"), [
    (b"fake\n<!-- bonsai:end -->\n## Injected.md", "fake\\n<!-- bonsai:end -->\\n## Injected.md", "control characters"),
    (b"bell\x07.md", "bell\\x07.md", "control characters"),
    (b"caf\xe9.md", "caf\\xe9.md", "bytes that are not UTF-8"),
])
def test_a_leaf_name_that_would_become_text_is_refused_before_any_write(
        make_repo: MakeRepo, capsys: pytest.CaptureFixture[str], name: bytes, shown: str, kind: str) -> None:
    repo = migrated(make_repo)
    domain = sorted(p.name for p in (repo / "memory/domains").iterdir() if p.is_dir())[0]
    folder = os.fsencode(repo / "memory/domains" / domain)
    with open(folder + b"/" + name, "wb") as fh:
        fh.write(b"## A note\n\nbody\n")
    git(repo, "add", "-A")
    before = snapshot(repo)
    code, _out, err = hook(repo, capsys)
    assert code == 3, err
    assert err.startswith(f"bonsai-git: memory/domains/{domain}/{shown}: its name holds {kind}")
    assert err.count("\n") == 1
    result = cli("reindex", "-C", str(repo))
    assert result.exit_code == 3 and kind in result.stderr
    assert snapshot(repo) == before  # nothing written: the trunk is untouched


# --- an unclosed HTML comment swallowing later sections ------------------------------------------

UNCLOSED = LIVING.replace("## Family", "<!-- TODO: tidy this up later\n\n## Family")


def test_migrate_and_its_dry_run_warn_about_an_unclosed_comment(make_repo: MakeRepo) -> None:
    line = UNCLOSED[: UNCLOSED.index("<!-- TODO")].count("\n") + 1
    for args in (("--dry-run",), ()):
        repo = make_repo(UNCLOSED)
        result = cli("migrate", "--force", *args, "-C", str(repo))
        assert result.exit_code == 0, result.stderr
        assert f"warning: MEMORY.md:{line}: an HTML comment opened here is never closed" in result.stderr
        assert "'Family', 'Cron Jobs', 'Birthdays to remember', 'Reading List'" in result.stderr


def test_status_warns_about_an_unclosed_comment(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text(trunk + "\n<!-- never closed\n## 📌 Rules\n- be brief\n")
    line = trunk.count("\n") + 2
    result = cli("status", "-C", str(repo))
    assert result.exit_code == 1
    assert f"MEMORY.md:{line}" in result.stdout and "never closed" in result.stdout and "'📌 Rules'" in result.stdout


def test_a_comment_left_open_above_the_markers_is_named(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    """Markdown reads the begin marker as the end of that comment: the refusal names the comment's line."""
    repo = migrated(make_repo)
    trunk = (repo / "MEMORY.md").read_text()
    (repo / "MEMORY.md").write_text("# Memory\n<!-- never closed\n## 📌 Rules\n- be brief\n" + trunk)
    expected = "MEMORY.md:2: an HTML comment or code fence opened here is not closed before the bonsai markers"
    for result in (cli("status", "-C", str(repo)), cli("reindex", "--check", "-C", str(repo))):
        assert result.exit_code == 3 and expected in result.stderr
    code, _out, err = hook(repo, capsys)
    assert code == 3 and expected in err


# --- leaves where the indexes never look ---------------------------------------------------------

def test_hook_and_status_warn_about_a_leaf_directly_in_domains_and_a_bad_folder_name(
        make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, "memory/domains/stray.md", "## Stray\n\nnever indexed\n")
    write(repo, "memory/domains/My Stuff/note.md", "## Note\n\nin a folder move would reject\n")
    git(repo, "add", "-A")
    _code, _out, err = hook(repo, capsys)
    assert "memory/domains/stray.md: directly in memory/domains/, not in a domain folder" in err
    assert "memory/domains/My Stuff/: domain folder 'My Stuff' is not a name bonsai-git move accepts" in err
    git(repo, "add", "-A")
    result = cli("status", "-C", str(repo))
    assert result.exit_code == 1
    assert "memory/domains/stray.md" in result.stdout and "never indexed" in result.stdout
    assert "'My Stuff' is not a name bonsai-git move accepts" in result.stdout
    assert tree_files(repo)["memory/domains/stray.md"] == b"## Stray\n\nnever indexed\n"
