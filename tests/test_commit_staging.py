"""The plain git hook inside real commits: one attempt, indexes of exactly the committed bytes (issue 22).

`git commit -am`, `git commit -- <leaf>` (git's temporary index) in the main worktree and in a
linked one, a `git add -p` partial commit (`printf 'y\\nn\\n' | git add -p`), an unrelated
commit beside an unstaged leaf edit: each lands at the first attempt, a clean clone of the
result is fresh, the work tree's leaves keep what was not committed, and `git status` shows
nothing of ours.  The hook also works on an index git names by a relative path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from living_tree import FAMILY, PRICING, MakeRepo, env, migrated, run, write
from support import BONSAI, git


def _with_plain_hook(make_repo: MakeRepo) -> Path:
    repo = migrated(make_repo)
    assert run([BONSAI, "install-hook"], repo).returncode == 0
    return repo


def _clean_clone_is_fresh(repo: Path, tmp_path: Path, name: str = "clean-clone") -> bool:
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    proc = run([BONSAI, "reindex", "--check"], clone)
    return proc.returncode == 0 and proc.stdout == ""


def _one_attempt(repo: Path, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(["git", "commit", "-q", *args], cwd=repo, env=env(), capture_output=True, text=True,
                          input=stdin)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line for line in (proc.stdout + proc.stderr).splitlines()
             if line.startswith("bonsai-git") and not line.startswith("bonsai-git: absorbed ")]
    assert len(lines) == 1 and "regenerated" in lines[0] and "staged them" in lines[0], lines  # one line
    return lines[0]


def test_commit_am_after_a_leaf_edit_lands_in_one_attempt_with_fresh_indexes(make_repo: MakeRepo,
                                                                               tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April; the agent's save.\n")
    line = _one_attempt(repo, "-am", "memory write")
    assert line.endswith("staged them: memory/_index.md memory/domains/business/_index.md")
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [
        "memory/_index.md", "memory/domains/business/_index.md", PRICING]
    assert _clean_clone_is_fresh(repo, tmp_path)


def test_an_absorbed_section_lands_in_one_attempt(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln config\n\nCone 6 program, hold 10 minutes.\n")
    _one_attempt(repo, "-am", "new section")
    assert git(repo, "status", "--porcelain") == ""
    assert "Kiln config" not in (repo / "MEMORY.md").read_text(encoding="utf-8")
    assert _clean_clone_is_fresh(repo, tmp_path)


def _pathspec_commit(ws: Path) -> None:
    """`git commit -m msg -- <leaf>` beside another leaf's unstaged edit: only the named leaf is committed."""
    write(ws, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    family = (ws / FAMILY).read_text(encoding="utf-8")
    write(ws, FAMILY, family + "\nAn unstaged note about the family, long enough to change its tokens a lot.\n")
    _one_attempt(ws, "-m", "price", "--", PRICING)
    assert git(ws, "status", "--porcelain") == f" M {FAMILY}\n"  # the index and the real index agree with HEAD
    assert "An unstaged note" in (ws / FAMILY).read_text(encoding="utf-8")
    assert "An unstaged note" not in git(ws, "show", f"HEAD:{FAMILY}")


def test_pathspec_commit_lands_in_one_attempt_in_the_main_worktree(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    _pathspec_commit(repo)
    assert _clean_clone_is_fresh(repo, tmp_path)


def test_pathspec_commit_lands_in_one_attempt_in_a_linked_worktree(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    _pathspec_commit(linked)
    clone = tmp_path / "side-clone"
    git(tmp_path, "clone", "-q", "-b", "side", str(repo), str(clone))
    assert run([BONSAI, "reindex", "--check"], clone).returncode == 0


@pytest.mark.parametrize("how", ["add -p", "apply --cached"])
def test_a_partial_commit_gets_indexes_of_exactly_what_it_commits(make_repo: MakeRepo, tmp_path: Path,
                                                                    how: str) -> None:
    repo = _with_plain_hook(make_repo)
    write(repo, PRICING, "## Pricing\n\n" + "".join(f"- price line {n}\n" for n in range(12)))
    _one_attempt(repo, "-am", "a longer leaf")
    old = (repo / PRICING).read_text(encoding="utf-8")
    lines = old.split("\n")
    staged = "\n".join([lines[0], "First hunk: the committed change.", *lines[1:]])
    full = staged + "\n\n\n\nSecond hunk far below: a long draft that stays unstaged and changes the tokens.\n"
    write(repo, PRICING, full)
    if how == "add -p":
        proc = subprocess.run(["git", "add", "-p", PRICING], cwd=repo, env=env(), input="y\nn\n",
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    else:
        write(repo, PRICING, staged)
        patch = git(repo, "diff", "--", PRICING)
        write(repo, PRICING, full)
        subprocess.run(["git", "apply", "--cached"], cwd=repo, input=patch, text=True, check=True)
    assert git(repo, "show", f":{PRICING}") == staged
    _one_attempt(repo, "-m", "first hunk")
    assert git(repo, "show", f"HEAD:{PRICING}") == staged
    assert (repo / PRICING).read_text(encoding="utf-8") == full  # the work tree keeps the second hunk
    assert git(repo, "status", "--porcelain") == f" M {PRICING}\n"
    assert _clean_clone_is_fresh(repo, tmp_path)


@pytest.mark.parametrize("unstaged", ["edit", "delete"])
def test_an_unrelated_commit_beside_an_unstaged_leaf_change_goes_through_untouched(make_repo: MakeRepo,
                                                                                   tmp_path: Path,
                                                                                   unstaged: str) -> None:
    repo = _with_plain_hook(make_repo)
    if unstaged == "edit":
        write(repo, PRICING, "## Pricing\n\nAn agent's unstaged note about a much higher price.\n")
    else:
        (repo / PRICING).unlink()
    before = (repo / "memory/domains/business/_index.md").read_bytes()
    write(repo, "notes/todo.txt", "buy clay\n")
    git(repo, "add", "notes/todo.txt")
    proc = run(["git", "commit", "-q", "-m", "todo"], repo)
    assert proc.returncode == 0 and "bonsai-git" not in proc.stdout + proc.stderr, proc.stderr
    assert (repo / "memory/domains/business/_index.md").read_bytes() == before
    assert _clean_clone_is_fresh(repo, tmp_path)


def test_an_unstaged_append_to_memory_md_is_neither_absorbed_nor_committed(make_repo: MakeRepo,
                                                                             tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln config\n\nCone 6, hold 10 minutes.\n")  # the agent's append, not staged
    trunk = (repo / "MEMORY.md").read_bytes()
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    git(repo, "add", PRICING)
    _one_attempt(repo, "-m", "price")
    assert (repo / "MEMORY.md").read_bytes() == trunk  # untouched, still waiting for its own commit
    assert git(repo, "status", "--porcelain") == " M MEMORY.md\n"
    assert _clean_clone_is_fresh(repo, tmp_path)


def test_a_staged_section_under_unstaged_memory_md_changes_is_refused_untouched(make_repo: MakeRepo) -> None:
    repo = _with_plain_hook(make_repo)
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Kiln config\n\nCone 6, hold 10 minutes.\n")
    git(repo, "add", "MEMORY.md")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\nMore typed, not staged.\n")
    head, status = git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    trunk, index = (repo / "MEMORY.md").read_bytes(), git(repo, "ls-files", "-s")
    proc = run(["git", "commit", "-q", "-m", "section"], repo)
    assert proc.returncode != 0 and "MEMORY.md: has changes that are not staged" in proc.stderr, proc.stderr
    assert "git stash push --keep-index" in proc.stderr
    assert (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")) == (head, status)
    assert (repo / "MEMORY.md").read_bytes() == trunk and git(repo, "ls-files", "-s") == index


def test_an_earlier_runs_unstaged_index_is_staged_with_the_commit(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = _with_plain_hook(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    assert run([BONSAI, "reindex"], repo).returncode == 0  # by hand: the work tree's indexes, not staged
    git(repo, "add", PRICING)
    _one_attempt(repo, "-m", "price")
    assert git(repo, "status", "--porcelain") == ""
    assert _clean_clone_is_fresh(repo, tmp_path)


def test_the_hook_uses_the_index_git_names_by_a_relative_path(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    alt = {"GIT_INDEX_FILE": ".git/alt-index"}  # relative to the top, as git passes `.git/index`
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo, env=env(alt), check=True)
    subprocess.run(["git", "update-index", "--add", "--", PRICING], cwd=repo, env=env(alt), check=True)
    real = git(repo, "ls-files", "-s")
    (repo / "notes").mkdir()
    proc = run([BONSAI + "-hook", "-C", ".."], repo / "notes", {"GIT_INDEX_FILE": "../.git/alt-index"})
    assert proc.returncode == 0 and "staged them" in proc.stdout, proc.stdout + proc.stderr
    assert git(repo, "ls-files", "-s") == real  # the real index is not the one being committed
    staged = subprocess.run(["git", "ls-files", "-s", "memory/domains/business/_index.md"], cwd=repo,
                            env=env(alt), capture_output=True, text=True, check=True).stdout
    blob = staged.split()[1]
    assert git(repo, "cat-file", "blob", blob).encode() == (repo / "memory/domains/business/_index.md").read_bytes()


def test_plain_hook_commits_keep_the_tree_what_a_full_rebuild_gives(make_repo: MakeRepo, tmp_path: Path) -> None:
    """Edits, a new leaf, a pathspec commit and a partial commit in a row, each through the hook's
    incremental run or the staged view: every commit's tree is the from-scratch rebuild of its leaves."""
    from living_tree import add_leaf, rebuilt_from_scratch, tree_files

    repo = _with_plain_hook(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    _one_attempt(repo, "-am", "edit")
    add_leaf(repo)
    git(repo, "add", "-A")
    _one_attempt(repo, "-m", "add")
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $22 from May.\n")
    write(repo, FAMILY, "## Family\n\nAn unstaged family note that stays out of the next commits.\n")
    _one_attempt(repo, "-m", "pathspec", "--", PRICING)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert tree_files(clone) == rebuilt_from_scratch(clone, tmp_path / "scratch-clone")
    git(repo, "stash", "-q")  # the unstaged note set aside: the work tree is the commit's
    assert tree_files(repo) == rebuilt_from_scratch(repo, tmp_path / "scratch-repo")


def test_a_stale_staged_index_is_refused_in_the_words_of_every_concurrent_write(make_repo: MakeRepo) -> None:
    """verify_staged's refusal says "by another process", as every concurrent-write refusal does (the
    concurrency tests read that phrase): a staged leaf whose staged index does not describe it is what
    an agent's write in the middle of a commit leaves."""
    from bonsai_git.commitstage import verify_staged
    from bonsai_git.core.errors import Refused

    repo = migrated(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    git(repo, "add", "--", PRICING)  # the leaf staged, its index not regenerated: stale
    with pytest.raises(Refused) as caught:
        verify_staged(repo, "", git(repo, "ls-files").split(), [])
    assert str(caught.value).startswith("memory/_index.md: changed by another process while this commit was being made")
    assert "nothing was committed and nothing was lost" in str(caught.value)
