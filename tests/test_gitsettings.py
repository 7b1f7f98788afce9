"""git's own settings and environment (issue 12 §4) and inputs that are not what they seem (§5),
on real repositories: literal pathspecs, GIT_DIR/GIT_WORK_TREE, attributes, line endings,
partial staging, untracked leaves, a global core.hooksPath, non-regular files, provenance
records, workspace discovery from a subfolder, purge ages in seconds."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from living_tree import LIVING, PRICING, MakeRepo, env, migrated, run, tree_files, write
from support import git


def cli(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run `bonsai-git ARGS` through click's runner (from `cwd` when given)."""
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def two_workspaces(tmp_path: Path, names: tuple[str, str]) -> Path:
    """One repository holding a flat workspace in each of the folders `names`, committed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name in names:
        write(repo, f"{name}/MEMORY.md", LIVING)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    return repo


# --- literal pathspecs ---------------------------------------------------------------------------

def test_rollback_reverts_its_own_workspace_when_the_folder_name_is_a_glob(tmp_path: Path) -> None:
    repo = two_workspaces(tmp_path, ("ws[1]", "ws1"))
    assert cli("migrate", "--force", "-C", str(repo / "ws[1]"))[0] == 0
    assert cli("migrate", "--force", "-C", str(repo / "ws1"))[0] == 0
    code, out, err = cli("rollback", "-C", str(repo / "ws[1]"))
    assert code == 0, err
    assert (repo / "ws[1]/MEMORY.md").read_text() == LIVING
    assert not (repo / "ws[1]/memory").exists()
    assert (repo / "ws1/MEMORY.md").read_text() != LIVING
    assert (repo / "ws1/memory/domains").is_dir()


@pytest.mark.parametrize("names", [("notes*", "notes-old"), ("a?c", "abc")])
def test_status_and_reindex_see_only_their_workspace_when_names_are_globs(tmp_path: Path,
                                                                         names: tuple[str, str]) -> None:
    repo = two_workspaces(tmp_path, names)
    for name in names:
        assert cli("migrate", "--force", "-C", str(repo / name))[0] == 0
    write(repo, f"{names[1]}/memory/domains/business/new.md", "## New\n\nnot tracked\n")
    code, out, err = cli("reindex", "--check", "-C", str(repo / names[0]))
    assert (code, out) == (0, ""), err
    report = json.loads(cli("status", "--json", "-C", str(repo / names[0]))[1])
    assert report["stale"] == []
    assert not [w for w in report["warnings"] if w["kind"] == "untracked_leaf"]
