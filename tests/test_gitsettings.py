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
from living_tree import (
    LIVING, PRICING, MakeRepo, assert_commit_lands_at_once, env, migrated, run, tree_files, write,
)
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


# --- GIT_DIR / GIT_WORK_TREE ---------------------------------------------------------------------

def test_migrate_refuses_when_git_dir_names_another_repository(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    here = make_repo(LIVING, name="here")
    other = make_repo(LIVING, name="other")
    before = (git(here, "rev-parse", "HEAD"), git(other, "rev-parse", "HEAD"))
    monkeypatch.setenv("GIT_DIR", str(here / ".git"))
    for command in (["migrate", "--force"], ["migrate", "--force", "--dry-run"], ["status"], ["reindex"],
                    ["rollback"], ["install-hook"]):
        code, out, err = cli(*command, "-C", str(other))
        assert code == 3, (command, out, err)
        assert "GIT_DIR" in err and "unset" in err
    monkeypatch.delenv("GIT_DIR")
    assert (git(here, "rev-parse", "HEAD"), git(other, "rev-parse", "HEAD")) == before
    assert git(other, "status", "--porcelain") == "" and git(here, "status", "--porcelain") == ""
    assert (other / "MEMORY.md").read_text() == LIVING


def test_hook_refuses_when_git_work_tree_names_another_folder(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run(["bonsai-git-hook"], repo, {"GIT_WORK_TREE": str(elsewhere)})
    assert proc.returncode == 3, proc.stderr
    assert "GIT_WORK_TREE" in proc.stderr


def test_git_dir_set_by_git_for_a_linked_worktree_hook_is_accepted(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    assert cli("install-hook", "-C", str(linked))[0] == 0
    write(linked, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    assert_commit_lands_at_once(linked)


def test_matching_git_dir_and_work_tree_are_accepted(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(LIVING)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    code, out, err = cli("migrate", "--force", "-C", str(repo))
    assert code == 0, err


# --- a shared core.hooksPath ---------------------------------------------------------------------

def test_install_hook_refuses_a_global_hooks_path_unless_asked(make_repo: MakeRepo, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(LIVING)
    shared = tmp_path / "global-hooks"
    shared.mkdir()
    (shared / "pre-commit").write_bytes(b"#!/bin/sh\nexit 0\n")
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {shared}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    before = sorted(p.name for p in shared.iterdir()), (shared / "pre-commit").read_bytes()
    for args in ([], ["--uninstall"]):
        code, out, err = cli("install-hook", *args, "-C", str(repo))
        assert code == 3, out + err
        assert "global git config" in err and "--shared-hooks-path" in err
    assert (sorted(p.name for p in shared.iterdir()), (shared / "pre-commit").read_bytes()) == before
    code, out, err = cli("install-hook", "--shared-hooks-path", "-C", str(repo))
    assert code == 0, err
    assert (shared / "pre-commit.bonsai-chained").read_bytes() == b"#!/bin/sh\nexit 0\n"
    assert cli("install-hook", "--uninstall", "--shared-hooks-path", "-C", str(repo))[0] == 0
    assert (sorted(p.name for p in shared.iterdir()), (shared / "pre-commit").read_bytes()) == before


def test_install_hook_refuses_a_local_hooks_path_outside_the_repository(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(LIVING)
    git(repo, "config", "core.hooksPath", str(tmp_path / "team-hooks"))
    code, out, err = cli("install-hook", "-C", str(repo))
    assert code == 3 and "outside this repository" in err
    assert not (tmp_path / "team-hooks").exists()


# --- purge ages in seconds -----------------------------------------------------------------------

@pytest.mark.parametrize(("older_than", "age_hours", "purged"),
                         [("0d", 1, True), ("0d", 0, False), ("180d", 180 * 24 + 12, True), ("180d", 180 * 24 - 1, False),
                          ("1w", 7 * 24 + 1, True)])
def test_purge_compares_ages_in_seconds(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch, older_than: str,
                                        age_hours: int, purged: bool) -> None:
    from datetime import datetime, timedelta

    repo = migrated(make_repo)
    assert cli("archive", "-C", str(repo), "reading-list")[0] == 0
    archived = next((repo / "memory/archive").rglob("reading-list.md")).relative_to(repo).as_posix()
    archived_at = git(repo, "log", "-1", "--format=%cI").strip()
    monkeypatch.setenv("BONSAI_NOW", (datetime.fromisoformat(archived_at) + timedelta(hours=age_hours)).isoformat())
    report = json.loads(cli("status", "--json", "-C", str(repo))[1])
    due = [d["path"] for d in report["archive"]["due_for_purge"]]
    code, out, err = cli("purge", "--older-than", older_than, "-C", str(repo))
    assert code == 0, err
    gone = not (repo / archived).exists()
    assert gone is purged
    if older_than == "180d":  # status's purge-due is the same rule (its grace is 180 days)
        assert due == ([archived] if purged else [])


# --- the OpenClaw provenance record: valid JSON, not an object -----------------------------------

@pytest.mark.parametrize("value", ["[1, 2]", "\"agent\"", "42", "null", "true"])
def test_a_provenance_record_that_is_not_an_object_is_unknown(make_repo: MakeRepo, tmp_path: Path, value: str) -> None:
    import sqlite3

    from bonsai_git.provenance import NAMESPACE, PLUGIN_ID, read_provenance, record_key

    repo = make_repo(LIVING)
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    (state / "state").mkdir(parents=True)
    con = sqlite3.connect(state / "state" / "openclaw.sqlite")
    con.execute("create table plugin_state_entries (plugin_id text, namespace text, entry_key text, value_json text)")
    con.execute("insert into plugin_state_entries values (?, ?, ?, ?)",
                (PLUGIN_ID, NAMESPACE, record_key(repo.resolve()), value))
    con.commit()
    con.close()
    assert read_provenance(repo) == "unknown"
    code, out, err = cli("status", "--json", "-C", str(repo))
    assert json.loads(out)["openclaw_provenance"] == "unknown", err
    code, out, err = cli("migrate", "--force", "-C", str(repo))
    assert code == 0, err


# --- MEMORY.md or a leaf that is not a regular file ----------------------------------------------

def _fifo_trunk(repo: Path) -> None:
    (repo / "MEMORY.md").unlink()
    os.mkfifo(repo / "MEMORY.md")


def test_hook_status_reindex_refuse_a_fifo_memory_without_hanging(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    _fifo_trunk(repo)
    for args in (["bonsai-git-hook"], ["bonsai-git-hook", "--check"], ["bonsai-git", "reindex"],
                 ["bonsai-git", "absorb"], ["bonsai-git", "move", "pricing", "identity"]):
        proc = subprocess.run(args, cwd=repo, env=env(), capture_output=True, text=True, timeout=30)
        assert proc.returncode == 3, (args, proc.stderr)
        assert "move" in args or "MEMORY.md: is not a regular file" in proc.stderr, (args, proc.stderr)
    proc = subprocess.run(["bonsai-git", "status"], cwd=repo, env=env(), capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "MEMORY.md: is not a regular file" in proc.stdout, proc.stdout + proc.stderr


def test_migrate_refuses_memory_that_is_a_symlink_to_a_device(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    (repo / "MEMORY.md").unlink()
    (repo / "MEMORY.md").symlink_to("/dev/zero")
    proc = subprocess.run(["bonsai-git", "status"], cwd=repo, env=env(), capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1, proc.stderr
    proc = subprocess.run(["bonsai-git", "migrate", "--force"], cwd=repo, env=env(), capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 3, proc.stderr


def test_a_leaf_replaced_by_a_fifo_is_refused_or_skipped_never_read(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / PRICING).unlink()
    os.mkfifo(repo / PRICING)
    for args in (["bonsai-git-hook", "--check"], ["bonsai-git", "reindex", "--check"], ["bonsai-git", "status"]):
        proc = subprocess.run(args, cwd=repo, env=env(), capture_output=True, text=True, timeout=30)
        assert proc.returncode in (1, 3), (args, proc.stderr)
    from bonsai_git.tree import NotRegularFile, read_leaves

    with pytest.raises(NotRegularFile, match="pricing.md: is not a regular file"):
        read_leaves(repo, [PRICING])


# --- the workspace, found from a subfolder -------------------------------------------------------

def test_commands_find_the_workspace_from_a_subfolder(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    (repo / "notes/deep").mkdir(parents=True)
    code, out, err = cli("migrate", "--force", "--dry-run", cwd=repo / "notes/deep")
    assert code == 0, err
    code, out, err = cli("migrate", "--force", cwd=repo / "notes/deep")
    assert code == 0, err
    assert err.startswith(f"note: the workspace is {repo}")
    sub = repo / "memory/domains/business"
    for args in (["reindex", "--check"], ["absorb", "--dry-run"]):
        code, out, err = cli(*args, cwd=sub)
        assert code == 0, (args, err)
    report = json.loads(cli("status", "--json", cwd=sub)[1])
    assert report["migrated"] and report["stale"] == []
    code, out, err = cli("reindex", "--check", "-C", str(sub))
    assert code == 0, err


def test_the_walk_up_stops_at_the_repository_top(tmp_path: Path) -> None:
    write(tmp_path, "MEMORY.md", LIVING)  # above the repository: never taken
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    code, out, err = cli("reindex", "--check", cwd=repo / "sub")
    assert code == 3 and "MEMORY.md: not found" in err


# --- attributes: an encryption filter on MEMORY.md that the leaves would not get ---------------------

def _crypt_repo(make_repo: MakeRepo, attributes: str) -> Path:
    """A workspace whose .gitattributes gives MEMORY.md a (fake, `cat`) encryption filter, committed."""
    repo = make_repo(name="crypt")
    for key, value in (("filter.crypt.clean", "cat"), ("filter.crypt.smudge", "cat"), ("filter.crypt.required", "true")):
        git(repo, "config", key, value)
    write(repo, ".gitattributes", attributes)
    write(repo, "MEMORY.md", LIVING)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "encrypted memory")
    return repo


@pytest.mark.parametrize("dry_run", [False, True])
def test_migrate_refuses_when_memory_has_a_filter_the_leaves_would_not_get(make_repo: MakeRepo, dry_run: bool) -> None:
    repo = _crypt_repo(make_repo, "MEMORY.md filter=crypt diff=crypt\n")
    before = tree_files(repo), git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    code, out, err = cli("migrate", "--force", *(["--dry-run"] if dry_run else []), "-C", str(repo))
    assert code == 3, out + err
    assert "MEMORY.md: has git attributes (diff, filter)" in err and "plain text" in err
    assert "`memory/** diff=crypt filter=crypt` to .gitattributes" in err
    assert err.count("\n") == 1
    assert (tree_files(repo), git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")) == before


def test_the_named_attribute_line_lets_migrate_run_and_is_then_checked_everywhere(make_repo: MakeRepo) -> None:
    repo = _crypt_repo(make_repo, "MEMORY.md filter=crypt diff=crypt\nmemory/** filter=crypt diff=crypt\n")
    code, out, err = cli("migrate", "--force", "-C", str(repo))
    assert code == 0, err
    leaf_attrs = git(repo, "check-attr", "filter", "--", PRICING)
    assert leaf_attrs.strip().endswith("filter: crypt")
    # the line is dropped later: every command that writes under memory/ refuses, status flags it
    write(repo, ".gitattributes", "MEMORY.md filter=crypt diff=crypt\n")
    git(repo, "commit", "-qam", "drop the memory line", "--no-verify")
    for args in (["move", "pricing", "identity"], ["archive", "pricing"]):  # on a clean tree
        code, out, err = cli(*args, "-C", str(repo))
        assert code == 3 and "memory/** diff=crypt filter=crypt" in err, (args, out, err)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    before = tree_files(repo)
    for args in (["reindex"], ["reindex", "--check"], ["absorb"]):
        code, out, err = cli(*args, "-C", str(repo))
        assert code == 3 and "memory/** diff=crypt filter=crypt" in err, (args, out, err)
    for args in (["bonsai-git-hook"], ["bonsai-git-hook", "--check"]):
        proc = run(args, repo)
        assert proc.returncode == 3 and "memory/** diff=crypt filter=crypt" in proc.stderr, (args, proc.stderr)
    assert tree_files(repo) == before
    report = json.loads(cli("status", "--json", "-C", str(repo))[1])
    assert [w["path"] for w in report["warnings"] if w["kind"] == "attributes"] == ["MEMORY.md"]


def test_attributes_every_path_gets_are_no_reason_to_refuse(make_repo: MakeRepo) -> None:
    repo = _crypt_repo(make_repo, "* text=auto\n*.md diff=markdown\n")
    code, out, err = cli("migrate", "--force", "-C", str(repo))
    assert code == 0, err
    assert "attributes" not in [w["kind"] for w in json.loads(cli("status", "--json", "-C", str(repo))[1])["warnings"]]


def test_a_workspace_in_a_subfolder_is_told_its_own_attributes_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    write(repo, "agent/MEMORY.md", LIVING)
    write(repo, ".gitattributes", "agent/MEMORY.md filter=crypt\n")
    git(repo, "config", "filter.crypt.clean", "cat")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "m")
    code, out, err = cli("migrate", "--force", "-C", str(repo / "agent"))
    assert code == 3 and "add the line `memory/** filter=crypt` to agent/.gitattributes" in err, err
    write(repo, "agent/.gitattributes", "memory/** filter=crypt\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "attrs")
    code, out, err = cli("migrate", "--force", "-C", str(repo / "agent"))
    assert code == 0, err


# --- line endings: core.autocrlf=true -----------------------------------------------------------------

def _crlf_clone(origin: Path, tmp_path: Path, name: str = "crlf") -> Path:
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", "-c", "core.autocrlf=true", str(origin), str(clone))
    return clone


def test_a_fresh_autocrlf_clone_is_fresh_everywhere(make_repo: MakeRepo, tmp_path: Path) -> None:
    origin = migrated(make_repo)
    clone = _crlf_clone(origin, tmp_path)
    assert b"\r\n" in (clone / PRICING).read_bytes()  # the checkout really is CRLF
    assert cli("reindex", "--check", "-C", str(clone))[:2] == (0, "")
    assert run(["bonsai-git-hook", "--check"], clone).returncode == 0
    assert json.loads(cli("status", "--json", "-C", str(clone))[1])["stale"] == []
    before = tree_files(clone)
    assert cli("reindex", "-C", str(clone))[:2] == (0, "")
    assert tree_files(clone) == before


def test_crlf_and_lf_checkouts_agree_on_the_figures(make_repo: MakeRepo, tmp_path: Path) -> None:
    origin = migrated(make_repo)
    git(origin, "config", "receive.denyCurrentBranch", "updateInstead")
    clone = _crlf_clone(origin, tmp_path)
    assert cli("install-hook", "-C", str(clone))[0] == 0
    write(clone, PRICING, "## Pricing\r\n\r\nWholesale mugs are $20 from April; retail stays $32.\r\n")
    assert_commit_lands_at_once(clone)
    git(clone, "push", "-q", "origin", "main")
    # the LF checkout finds nothing to rewrite, and neither does a second CRLF clone
    assert cli("reindex", "--check", "-C", str(origin))[:2] == (0, "")
    assert cli("reindex", "--check", "-C", str(_crlf_clone(origin, tmp_path, "crlf2")))[:2] == (0, "")
    index = (origin / "memory/domains/business/_index.md").read_text()
    lf_leaf = (origin / PRICING).read_text()
    from bonsai_git.core.tokens import estimate_tokens

    assert f"pricing.md (~{estimate_tokens(lf_leaf)} tokens)" in index


def test_stale_means_stale_even_in_a_crlf_checkout(make_repo: MakeRepo, tmp_path: Path) -> None:
    clone = _crlf_clone(migrated(make_repo), tmp_path)
    write(clone, PRICING, "## Pricing\r\n\r\nMuch longer text about wholesale and retail prices now.\r\n")
    code, out, err = cli("reindex", "--check", "-C", str(clone))
    assert code == 1 and "stale memory/domains/business/_index.md" in out


def test_line_endings_matter_where_git_keeps_them(make_repo: MakeRepo) -> None:
    """Without a conversion (no autocrlf, no text attribute) CRLF bytes are what git stores: stale."""
    from bonsai_git.gitsettings import stored_alike

    repo = migrated(make_repo)
    assert not stored_alike(repo, "memory/_index.md", b"a\r\nb\r\n", b"a\nb\n")
    git(repo, "config", "core.autocrlf", "true")
    assert stored_alike(repo, "memory/_index.md", b"a\r\nb\r\n", b"a\nb\n")
    assert not stored_alike(repo, "memory/_index.md", b"a\r\nc\r\n", b"a\nb\n")


# --- untracked leaves: one rule everywhere --------------------------------------------------------

def test_every_command_agrees_an_untracked_leaf_is_not_indexed_until_git_tracks_it(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    new = "memory/domains/business/suppliers.md"
    write(repo, new, "## Suppliers\n\nClay from Highwater Clays.\n")
    code, out, err = cli("reindex", "--check", "-C", str(repo))
    assert (code, out) == (0, "") and f"{new}: not tracked by git, so not indexed" in err
    assert run(["bonsai-git-hook", "--check"], repo).returncode == 0  # the pre-push check
    report = json.loads(cli("status", "--json", "-C", str(repo))[1])
    assert report["stale"] == [] and [w["path"] for w in report["warnings"] if w["kind"] == "untracked_leaf"] == [new]
    before = tree_files(repo)
    assert cli("reindex", "-C", str(repo))[:2] == (0, "")
    assert tree_files(repo) == before
    git(repo, "add", new)  # tracked now: every command sees it the same way
    assert cli("reindex", "--check", "-C", str(repo))[0] == 1
    assert run(["bonsai-git-hook", "--check"], repo).returncode == 1
    assert "memory/domains/business/_index.md" in json.loads(cli("status", "--json", "-C", str(repo))[1])["stale"]


def test_a_glob_named_workspace_is_still_refused_when_gitignore_hides_memory(tmp_path: Path) -> None:
    repo = two_workspaces(tmp_path, ("ws[1]", "ws1"))
    write(repo, ".gitignore", "memory/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    code, out, err = cli("migrate", "--force", "-C", str(repo / "ws[1]"))
    assert code == 3 and "ignored by .gitignore" in err


def test_demo_refuses_a_git_dir_in_the_environment(make_repo: MakeRepo, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(LIVING)
    head = git(repo, "rev-parse", "HEAD")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    code, out, err = cli("demo", str(tmp_path / "demo"))
    assert code == 3 and "GIT_DIR" in err
    monkeypatch.delenv("GIT_DIR")
    assert git(repo, "rev-parse", "HEAD") == head and not (tmp_path / "demo").exists()


def test_migrating_a_crlf_checkout_gives_the_tree_an_lf_checkout_finds_fresh(make_repo: MakeRepo,
                                                                            tmp_path: Path) -> None:
    origin = make_repo(LIVING)
    git(origin, "config", "receive.denyCurrentBranch", "updateInstead")
    clone = _crlf_clone(origin, tmp_path)
    assert b"\r\n" in (clone / "MEMORY.md").read_bytes()
    code, out, err = cli("migrate", "--force", "-C", str(clone))
    assert code == 0, err
    assert git(clone, "status", "--porcelain") == ""
    assert cli("reindex", "--check", "-C", str(clone))[:2] == (0, "")
    git(clone, "push", "-q", "origin", "main")
    assert b"\r\n" not in (origin / "MEMORY.md").read_bytes()
    assert cli("reindex", "--check", "-C", str(origin))[:2] == (0, "")
    assert run(["bonsai-git-hook", "--check"], origin).returncode == 0


def test_migrate_no_commit_names_what_to_stage_and_then_every_command_agrees(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    write(repo, "memory/2026-03-01.md", "daily note\n")
    git(repo, "add", "memory/2026-03-01.md")
    git(repo, "commit", "-q", "-m", "daily")
    write(repo, "memory/2026-03-01.md", "daily note, edited by the agent\n")  # not ours to stage
    code, out, err = cli("migrate", "--force", "--no-commit", "-C", str(repo))
    assert code == 0, err
    paths = out.rsplit("git add -A -- ", 1)[1].split()
    assert paths == ["MEMORY.md", "memory/_index.md", "memory/domains", "memory/dates.md"]
    git(repo, "add", "-A", "--", *paths)
    assert cli("reindex", "--check", "-C", str(repo))[:2] == (0, "")
    assert run(["bonsai-git-hook", "--check"], repo).returncode == 0
    assert git(repo, "diff", "--name-only") == "memory/2026-03-01.md\n"  # the daily note stays unstaged


def test_a_bare_repository_with_a_separate_work_tree_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The "dotfiles" layout: GIT_DIR names a bare repository, GIT_WORK_TREE the folder that holds the workspace."""
    bare, home = tmp_path / "dotfiles.git", tmp_path / "home"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    write(home, "agent/MEMORY.md", LIVING)
    monkeypatch.setenv("GIT_DIR", str(bare))
    monkeypatch.setenv("GIT_WORK_TREE", str(home))
    git(home, "add", "agent/MEMORY.md")
    git(home, "commit", "-q", "-m", "memory")
    code, out, err = cli("status", "--json", "-C", str(home / "agent"))
    assert code in (0, 1) and "GIT_DIR" not in err, err
    assert json.loads(out)["migrated"] is False
