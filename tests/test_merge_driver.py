"""`bonsai-git merge-driver`: two real branches that each absorbed sections, moved a leaf and added a
domain merge with no conflict and fresh indexes (mergedriver.py, issue 22 item 6)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bonsai_git.mergedriver import ATTRIBUTE_LINES, generated_kind
from living_tree import BONSAI, CRON, FAMILY, LIVING, MakeRepo, READING, migrated
from support import bonsai, bonsai_untouched, commit, git

PRICING_LINE = "\nAlways ask before spending money.\n"


def with_driver(ws: Path) -> Path:
    """The documented setup: two .gitattributes lines and one git config line."""
    (ws / ".gitattributes").write_text("\n".join(ATTRIBUTE_LINES) + "\n")
    commit(ws, "merge driver", ".gitattributes")
    git(ws, "config", "merge.bonsai.driver", f"{BONSAI} merge-driver %O %A %B %P")
    return ws


def absorb_move_and_add(ws: Path, branch: str, section: str, leaf: str, to: str, domain: str) -> None:
    """On a new `branch` from main: absorb `section`, move `leaf` to domain `to`, add domain `domain`; three commits."""
    git(ws, "checkout", "-q", "-b", branch, "main")
    trunk = ws / "MEMORY.md"
    trunk.write_bytes(trunk.read_bytes() + f"\n## {section}\n\nNoted on {branch}.\n".encode())
    assert bonsai("absorb", "-C", str(ws)).exit_code == 0
    commit(ws, f"absorb {section}")
    assert bonsai("move", "-C", str(ws), leaf, to).exit_code == 0  # commits itself
    new = ws / f"memory/domains/{domain}/first-{domain}.md"
    new.parent.mkdir(parents=True)
    new.write_text(f"## First {domain}\n\nA leaf in a new domain.\n")
    git(ws, "add", "--", str(new))  # reindex indexes the leaves git tracks
    assert bonsai("reindex", "-C", str(ws)).exit_code == 0
    commit(ws, f"domain {domain}")


def two_branches(make_repo: MakeRepo, driver: bool) -> Path:
    ws = migrated(make_repo, LIVING)
    if driver:
        with_driver(ws)
    absorb_move_and_add(ws, "agent-a", "Supplier Contacts", FAMILY, "people", "hobbies")
    absorb_move_and_add(ws, "agent-b", "Kiln Maintenance", READING, "general", "garden")
    return ws


def test_two_branches_conflict_without_the_driver(make_repo: MakeRepo) -> None:
    ws = two_branches(make_repo, driver=False)
    proc = subprocess.run(["git", "merge", "--no-edit", "agent-a"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout  # what the driver is for
    git(ws, "merge", "--abort")


def test_two_branches_merge_with_the_driver_without_conflict_and_fresh(make_repo: MakeRepo) -> None:
    ws = two_branches(make_repo, driver=True)
    proc = subprocess.run(["git", "merge", "--no-edit", "agent-a"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(ws, "status", "--porcelain") == ""
    assert len(git(ws, "rev-list", "--parents", "-n1", "HEAD").split()) == 3  # a real merge commit
    check = bonsai("reindex", "-C", str(ws), "--check")
    assert check.exit_code == 0, check.stdout + check.stderr
    for path in ("memory/domains/hobbies/_index.md", "memory/domains/garden/_index.md",
                 "memory/domains/people/family.md", "memory/domains/general/reading-list.md"):
        assert (ws / path).is_file(), path
    trunk = (ws / "MEMORY.md").read_text()
    assert trunk.count("<!-- bonsai:begin") == 1 and "hobbies" in trunk and "garden" in trunk
    assert (ws / CRON).is_file()


def test_the_driver_merges_pinned_text_as_text_and_marks_a_real_conflict(make_repo: MakeRepo) -> None:
    ws = with_driver(migrated(make_repo, LIVING))
    for branch, line in (("a", "Pinned: reply in English."), ("b", "Pinned: reply in German.")):
        git(ws, "checkout", "-q", "-b", branch, "main")
        trunk = ws / "MEMORY.md"
        trunk.write_text(trunk.read_text().replace("Pinned: answer briefly", line, 1))
        commit(ws, f"pinned {branch}")
    proc = subprocess.run(["git", "merge", "--no-edit", "a"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 1 and "CONFLICT (content): Merge conflict in MEMORY.md" in proc.stdout
    text = (ws / "MEMORY.md").read_text()
    begin = text.index("<!-- bonsai:begin")
    assert "<<<<<<< ours" in text[:begin] and ">>>>>>> theirs" in text[:begin]  # only the user's text conflicts
    assert "<<<<<<<" not in text[begin:]
    git(ws, "merge", "--abort")


def test_the_driver_merges_separate_pinned_and_inbox_edits_cleanly(make_repo: MakeRepo) -> None:
    ws = with_driver(migrated(make_repo, LIVING))
    git(ws, "checkout", "-q", "-b", "a", "main")
    trunk = ws / "MEMORY.md"
    trunk.write_text(trunk.read_text().replace("# Memory\n", "# Memory\n\nPinned: a second rule.\n", 1))
    commit(ws, "pinned a")
    git(ws, "checkout", "-q", "-b", "b", "main")
    trunk.write_text(trunk.read_text() + "\nloose note in the inbox\n")
    commit(ws, "inbox b")
    proc = subprocess.run(["git", "merge", "--no-edit", "a"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
    text = trunk.read_text()
    assert "Pinned: a second rule." in text and text.endswith("\nloose note in the inbox\n")


@pytest.mark.parametrize(("path", "kind"), [
    ("MEMORY.md", ("", "MEMORY.md")), ("agent/MEMORY.md", ("agent/", "MEMORY.md")),
    ("memory/_index.md", ("", "memory/_index.md")), ("a/memory/domains/x/_index.y.md", ("a/", "memory/domains/x/_index.y.md")),
    ("memory/domains/x/leaf.md", None), ("notes/memory/domainsx/_index.md", None), ("README.md", None),
])
def test_generated_kind(path: str, kind: tuple[str, str] | None) -> None:
    assert generated_kind(path) == kind


UNION = "memory/** merge=union"


@pytest.mark.parametrize("args", [("migrate", "--dry-run"), ("reindex",), ("absorb",)])
def test_merge_union_on_memory_is_refused_naming_the_line(make_repo: MakeRepo, args: tuple[str, ...]) -> None:
    ws = make_repo(LIVING) if args[0] == "migrate" else migrated(make_repo, LIVING)
    (ws / ".gitattributes").write_text(f"*.png binary\n{UNION}\n")
    commit(ws, "union", ".gitattributes")
    result = bonsai_untouched(ws, *args, "-C", str(ws), *(["--force"] if args[0] == "migrate" else []))
    assert result.exit_code == 3, result.output
    assert f".gitattributes:2: {UNION}: gives memory/" in result.stderr and "`merge=union`" in result.stderr
    assert "remove that line" in result.stderr


def test_status_and_the_hook_name_a_union_line(make_repo: MakeRepo) -> None:
    ws = migrated(make_repo, LIVING)
    (ws / ".gitattributes").write_text("MEMORY.md merge=union\n")
    commit(ws, "union", ".gitattributes")
    status = bonsai("status", "-C", str(ws))
    assert status.exit_code == 1 and ".gitattributes:1: MEMORY.md merge=union" in status.stdout
    hook = subprocess.run([f"{BONSAI}-hook"], cwd=ws, capture_output=True, text=True)
    assert hook.returncode == 3 and ".gitattributes:1: MEMORY.md merge=union" in hook.stderr


def test_merge_bonsai_attributes_are_not_a_gap(make_repo: MakeRepo) -> None:
    ws = with_driver(migrated(make_repo, LIVING))
    assert bonsai("reindex", "-C", str(ws), "--check").exit_code == 0
    assert bonsai("status", "-C", str(ws)).exit_code == 0


def test_a_leaf_deleted_here_and_edited_there_counts_as_deleted_until_resolved(make_repo: MakeRepo) -> None:
    """modify/delete: our side deleted the leaf, so the indexes the driver writes leave it out (it was
    counted as an empty leaf); resolving by keeping the deletion leaves nothing to reindex."""
    ws = with_driver(migrated(make_repo, LIVING))
    git(ws, "checkout", "-q", "-b", "edit", "main")
    (ws / READING).write_text((ws / READING).read_text() + "\nOne more book.\n")
    trunk = ws / "MEMORY.md"
    trunk.write_bytes(trunk.read_bytes() + b"\n## Kiln Notes\n\nRuns hot.\n")
    assert bonsai("absorb", "-C", str(ws)).exit_code == 0
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "edit the reading list, absorb kiln notes")
    git(ws, "checkout", "-q", "-b", "delete", "main")
    git(ws, "rm", "-q", READING)
    assert bonsai("reindex", "-C", str(ws)).exit_code == 0
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "delete the reading list")
    proc = subprocess.run(["git", "merge", "--no-edit", "edit"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 1 and "CONFLICT (modify/delete)" in proc.stdout, proc.stdout + proc.stderr
    git(ws, "rm", "-q", "--", READING, "memory/domains/personal/_index.md")  # keep our deletion
    check = bonsai("reindex", "-C", str(ws), "--check")
    assert check.exit_code == 0, check.stdout + check.stderr


def test_a_rebase_through_the_driver_commits_fresh_indexes(make_repo: MakeRepo) -> None:
    """A rebase commits each pick without the pre-commit hook: the driver must regenerate from the pick
    (`rebase-merge/done` names it), else every rewritten commit holds stale indexes (a push gate refuses them)."""
    ws = with_driver(migrated(make_repo, LIVING))
    for branch, section in (("a", "Kiln Notes"), ("b", "Glaze Recipes")):
        git(ws, "checkout", "-q", "-b", branch, "main")
        trunk = ws / "MEMORY.md"
        trunk.write_bytes(trunk.read_bytes() + f"\n## {section}\n\nNoted on {branch}.\n".encode())
        assert bonsai("absorb", "-C", str(ws)).exit_code == 0
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", f"absorb {section}")
        (ws / READING).write_text((ws / READING).read_text() + f"\nA book from {branch}: {branch * 3}.\n"
                                  if branch == "b" else (ws / READING).read_text())
        if branch == "b":
            assert bonsai("reindex", "-C", str(ws)).exit_code == 0
            git(ws, "commit", "-qam", "one more book")
    proc = subprocess.run(["git", "rebase", "a"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unknown" not in proc.stderr, proc.stderr
    for rev in ("HEAD~1", "HEAD"):  # both rewritten commits
        git(ws, "checkout", "-q", rev)
        check = bonsai("reindex", "-C", str(ws), "--check")
        assert check.exit_code == 0, (rev, check.stdout + check.stderr)
    # in whichever domain the classifier files it (kilns are equipment: infrastructure, issue 23)
    assert any("kiln-notes.md" in p.read_text() for p in (ws / "memory/domains").glob("*/_index*.md"))
