"""The pre-commit hook's logic in real git repositories (hook.py), and its light import path."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.hook import main as hook_main
from bonsai_git.transaction import migrate
from living_tree import (
    CRON, FAMILY, HOOK_SCRIPT, LIVING, PRICING, READING, MakeRepo, commit_all, migrated, rebuilt_from_scratch, run,
    tree_files, write,
)
from support import CORPUS_FILES, corpus_bytes, git


def hook(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the hook in-process in `repo`: (exit code, stdout, stderr)."""
    code = hook_main(["-C", str(repo), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def settle(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Stage everything, then the hook must find nothing to do and the tree must equal a rebuild."""
    git(repo, "add", "-A")
    assert hook(repo, capsys)[0] == 0
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0


def test_hook_exits_0_at_once_without_a_migrated_workspace(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert hook(make_repo("# Memory\n\n## Not migrated\n"), capsys) == (0, "", "")
    assert hook(make_repo(), capsys) == (0, "", "")


def test_hook_after_migrate_changes_nothing(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    before = tree_files(repo)
    assert hook(repo, capsys) == (0, "", "")
    assert tree_files(repo) == before


def test_hook_rewrites_indexes_after_an_edit_and_names_them(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale $20 from April.\n")
    code, out, err = hook(repo, capsys)
    assert code == 1
    assert out.splitlines() == [  # the trunk is quiet: a leaf edit never rewrites MEMORY.md
        "bonsai-git: wrote memory/_index.md", "bonsai-git: wrote memory/domains/business/_index.md",
    ]
    assert err.endswith("rewrote 2 file(s); stage them and commit again: git add -A -- memory/_index.md "
                        "memory/domains/business/_index.md\n")
    settle(repo, capsys)


def test_hook_indexes_a_new_tracked_leaf_but_only_warns_about_an_untracked_one(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = migrated(make_repo)
    write(repo, "memory/domains/business/suppliers.md", "## Suppliers\n\nHighwater Clays.\n")
    code, out, err = hook(repo, capsys)
    assert code == 0 and out == ""
    assert "memory/domains/business/suppliers.md: not tracked by git, so not indexed; git add it" in err
    git(repo, "add", "memory/domains/business/suppliers.md")
    code, out, err = hook(repo, capsys)
    assert code == 1 and "wrote memory/domains/business/_index.md" in out and "not tracked" not in err
    assert "suppliers.md" in (repo / "memory/domains/business/_index.md").read_text()
    settle(repo, capsys)


def test_hook_catches_a_commit_that_only_deletes_a_leaf(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    git(repo, "rm", "-q", READING)
    code, out, _err = hook(repo, capsys)
    assert code == 1 and "bonsai-git: removed memory/domains/personal/_index.md" in out
    settle(repo, capsys)


def test_hook_leaves_out_a_leaf_deleted_but_not_staged(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    (repo / FAMILY).unlink()
    code, _out, err = hook(repo, capsys)
    assert code == 1
    assert "memory/domains/identity/family.md: deleted but not staged, so left out of the indexes; git rm it" in err
    settle(repo, capsys)


def test_hook_follows_git_mv_to_another_domain_and_a_new_domain(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    (repo / "memory/domains/projects").mkdir(parents=True)
    git(repo, "mv", FAMILY, "memory/domains/projects/family.md")
    code, out, _err = hook(repo, capsys)
    assert code == 1
    assert "wrote memory/domains/projects/_index.md" in out  # new and untracked: still exit 1
    assert "removed memory/domains/identity/_index.md" in out
    assert not (repo / "memory/domains/identity").exists()
    settle(repo, capsys)


def test_hook_lists_nested_folders_under_their_domain(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, "memory/domains/infrastructure/hosts/kiln-pi.md", "## Kiln Pi\n\nRaspberry Pi logging kiln temps.\n")
    git(repo, "add", "-A")
    assert hook(repo, capsys)[0] == 1
    assert "### [hosts/](hosts/_index.md)" in (repo / "memory/domains/infrastructure/_index.md").read_text()
    assert "### kiln-pi.md (~" in (repo / "memory/domains/infrastructure/hosts/_index.md").read_text()
    settle(repo, capsys)


def test_hook_refuses_a_leaf_with_conflict_markers(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, CRON, "## Cron Jobs\n- a\n<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> other\n")
    before = tree_files(repo)
    code, out, err = hook(repo, capsys)
    assert (code, out) == (3, "")
    assert err == ("bonsai-git: memory/domains/infrastructure/cron-jobs.md:3: merge-conflict marker; "
                   "resolve the conflict, then commit again\n")
    assert tree_files(repo) == before


def test_hook_absorbs_sections_appended_to_memory_md(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln config\n\nElements replaced 2026-02.\n")
    code, out, _err = hook(repo, capsys)
    assert code == 1
    leaf = "memory/domains/infrastructure/kiln-config.md"
    assert f"absorbed 'Kiln config' from MEMORY.md into {leaf}" in out
    assert (repo / leaf).read_text() == "## Kiln config\n\nElements replaced 2026-02.\n"
    assert "Kiln config" not in (repo / "MEMORY.md").read_text()
    settle(repo, capsys)


def test_hook_with_absorb_off_warns_and_keeps_the_inbox(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, ".bonsai.toml", "absorb = false\n")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln maintenance service\n\nElements replaced.\n")
    code, out, err = hook(repo, capsys)
    assert (code, out) == (0, "")
    assert "MEMORY.md: 1 new section(s) after the end marker are not absorbed (absorb = false)" in err


def test_hook_handles_several_workspaces_in_one_repository(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo()
    for name in ("agents/alice", "agents/bob"):
        (repo / name).mkdir(parents=True)
        (repo / name / "MEMORY.md").write_text(LIVING, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two agents")
    migrate(repo / "agents/alice", force=True)
    migrate(repo / "agents/bob", force=True)
    assert hook(repo, capsys)[0] == 0
    write(repo / "agents/bob", PRICING, "## Pricing\n\nBob's prices.\n")
    code, out, err = hook(repo / "agents", capsys)  # from a subfolder too
    assert code == 1
    assert "wrote agents/bob/memory/domains/business/_index.md" in out and "alice" not in out
    assert err.endswith("git add -A -- agents/bob/memory/_index.md "
                        "agents/bob/memory/domains/business/_index.md\n")  # exactly the files written
    write(repo / "agents/alice", CRON, "## Cron\n<<<<<<< HEAD\n")
    assert hook(repo, capsys)[2].startswith("bonsai-git: agents/alice/memory/domains/infrastructure/cron-jobs.md:2:")


def test_hook_check_writes_nothing_and_exits_1_when_stale(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nNew.\n")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("## Kiln service\nDone.\n")
    before = tree_files(repo)
    code, out, err = hook(repo, capsys, "--check")
    assert code == 1
    assert "would absorb 'Kiln service'" in out and "stale memory/domains/business/_index.md" in out
    assert "stale; run bonsai-git reindex" in err
    assert tree_files(repo) == before


def test_hook_outside_a_repository_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = hook(tmp_path, capsys)
    assert (code, out) == (3, "") and "not inside a git work tree" in err


def test_hook_cache_gives_the_same_bytes_as_no_cache(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale $20; key sk-test-XXXXXXXXXXXXXXXXXXXXXXXX masked.\n")
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)
    assert run([str(HOOK_SCRIPT)], repo).returncode == 1  # fills the cache
    write(repo, PRICING, "## Pricing\n\nWholesale $21.\n")
    write(twin, PRICING, "## Pricing\n\nWholesale $21.\n")
    assert run([str(HOOK_SCRIPT)], repo).returncode == 1  # most facts now come from the cache
    assert run([str(HOOK_SCRIPT)], twin, {"BONSAI_GIT_NO_CACHE": "1"}).returncode == 1
    assert tree_files(repo) == tree_files(twin) == rebuilt_from_scratch(repo, tmp_path)
    assert (repo / ".git/bonsai-git/leaf-facts.jsonl").is_file()


def test_hook_script_and_cli_command_behave_the_same(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale $20.\n")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln service\nDone.\n")
    twin, triplet = tmp_path / "twin", tmp_path / "triplet"
    shutil.copytree(repo, twin)
    shutil.copytree(repo, triplet)
    script = run([str(HOOK_SCRIPT), "MEMORY.md"], repo)
    command = run(["bonsai-git", "hook", "MEMORY.md"], twin)
    module = run([sys.executable, "-m", "bonsai_git.hook", "MEMORY.md"], triplet)
    assert script.returncode == 1 and "absorbed 'Kiln service'" in script.stdout
    for other in (command, module):
        assert (other.returncode, other.stdout, other.stderr) == (script.returncode, script.stdout, script.stderr)
    assert tree_files(repo) == tree_files(twin) == tree_files(triplet)


def test_hook_refuses_while_a_crash_journal_is_present(make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("bonsai_git.journal")
    repo = migrated(make_repo)
    (repo / ".git/bonsai").mkdir()
    (repo / ".git/bonsai/journal.json").write_text("{}")
    code, _out, err = hook(repo, capsys)
    assert code == 3 and "migrate --recover" in err


def test_hook_runs_in_a_linked_worktree(make_repo: MakeRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True, capture_output=True)
    wt = tmp_path / "wt"
    write(wt, PRICING, "## Pricing\n\nWorktree prices.\n")
    assert hook(wt, capsys)[0] == 1
    assert "Worktree prices." in (wt / "memory/domains/business/_index.md").read_text()
    assert commit_all(wt).returncode == 0


def test_hook_never_follows_a_tracked_symlink_leaf(make_repo: MakeRepo, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo = migrated(make_repo)
    outside = tmp_path / "outside.md"
    outside.write_text("## Outside\n\nNot part of this memory.\n")
    (repo / "memory/domains/personal/link.md").symlink_to(outside)
    git(repo, "add", "-A")
    code, out, err = hook(repo, capsys)
    assert (code, out) == (0, "")
    assert "memory/domains/personal/link.md: not a regular file (a symlink?), so not indexed" in err
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0  # the disk walk agrees


def test_a_conflicted_merge_is_settled_by_reindex_and_the_merge_commit_passes_the_hook(
    make_repo: MakeRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = migrated(make_repo)
    assert run(["bonsai-git", "install-hook"], repo).returncode == 0
    git(repo, "checkout", "-q", "-b", "other")
    write(repo, "memory/domains/business/suppliers.md", "## Suppliers\n\nHighwater Clays.\n")
    assert commit_all(repo).returncode == 0  # the plain hook stages the indexes it regenerates
    git(repo, "checkout", "-q", "main")
    write(repo, "memory/domains/business/wholesale.md", "## Wholesale\n\nTwelve cafes.\n")
    assert commit_all(repo).returncode == 0
    merge = run(["git", "merge", "-q", "other", "-m", "merge"], repo)
    assert merge.returncode != 0 and "CONFLICT" in merge.stdout  # both sides regenerated the same indexes
    assert hook(repo, capsys)[0] == 1  # the generated files, conflicts and all, are rewritten whole
    git(repo, "add", "-A")
    done = run(["git", "commit", "-q", "--no-edit"], repo)
    assert done.returncode == 0, done.stderr
    index = (repo / "memory/domains/business/_index.md").read_text()
    assert "suppliers.md" in index and "wholesale.md" in index and "<<<<<<<" not in index
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_migrate_then_hook_changes_nothing_on_the_corpus(make_repo: MakeRepo, name: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(corpus_bytes(name))
    migrate(repo, force=True)
    before = tree_files(repo)
    assert hook(repo, capsys) == (0, "", "")
    assert tree_files(repo) == before


# --- a fleet's index listing, split once (issue 15) -----------------------------------------------

_SEGMENT = st.sampled_from(["a", "b", "agents", "memory", "x.md", "MEMORY.md"])


@given(prefixes=st.sets(st.lists(_SEGMENT, min_size=0, max_size=3).map(lambda parts: "".join(p + "/" for p in parts)),
                        min_size=1, max_size=5),
       paths=st.lists(st.lists(_SEGMENT, min_size=1, max_size=5).map("/".join), max_size=40))
def test_split_stage_gives_each_workspace_what_a_scan_per_workspace_gives(prefixes: set[str], paths: list[str]) -> None:
    """Nested workspaces and one at the top included: each holds exactly the index entries under
    its folder and under no workspace nested in it (issue 21 §5), relative to it, in git's order
    (a scan per workspace is the oracle)."""
    from bonsai_git.hook import Workspace, _split_stage

    stage_info = {path: f"100644 {n:040x}" for n, path in enumerate(paths)}
    workspaces = [Workspace(prefix) for prefix in sorted(prefixes)]
    _split_stage(workspaces, stage_info)
    for ws in workspaces:
        inner = [p for p in prefixes if p != ws.prefix and p.startswith(ws.prefix)]
        expected = {path[len(ws.prefix):]: value for path, value in stage_info.items()
                    if path.startswith(ws.prefix) and not any(path.startswith(p) for p in inner)}
        assert list(ws.stage.items()) == list(expected.items())
