"""`bonsai-git reindex` through the CLI: --check names stale files and exits 1, a plain run fixes them, an
unmigrated workspace is refused.  The reindexing itself (every shape of the tree) is tests/test_reindex.py."""

from __future__ import annotations

from support import MakeRepo, bonsai, corpus_bytes, git


def test_reindex_is_clean_after_migrate_and_fixes_a_stale_index(make_repo: MakeRepo) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert bonsai("migrate", "-C", str(repo)).exit_code == 0
    check = bonsai("reindex", "-C", str(repo), "--check")
    assert (check.exit_code, check.stdout) == (0, "")
    index = repo / "memory" / "domains" / "infrastructure" / "_index.md"
    index.write_text("stale\n")
    check = bonsai("reindex", "-C", str(repo), "--check")
    assert check.exit_code == 1
    assert check.stdout == "stale memory/domains/infrastructure/_index.md\n"
    assert "run bonsai-git reindex" in check.stderr
    fix = bonsai("reindex", "-C", str(repo))
    assert (fix.exit_code, fix.stdout) == (0, "wrote memory/domains/infrastructure/_index.md\n")
    assert git(repo, "status", "--porcelain") == ""
    assert bonsai("reindex", "-C", str(repo)).stdout == ""


def test_reindex_refuses_an_unmigrated_workspace(make_repo: MakeRepo) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    result = bonsai("reindex", "-C", str(repo))
    assert result.exit_code == 3 and "no bonsai markers" in result.stderr
