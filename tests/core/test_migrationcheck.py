"""migration_surplus: a commit is exactly a migration by its content (every corpus file's plan is one)."""

from __future__ import annotations

import pytest

from bonsai_git.core.config import parse_config
from bonsai_git.core.migrationcheck import describe_surplus, migration_surplus
from bonsai_git.core.plan import plan_migration
from support import CORPUS_FILES, corpus_bytes


def planned(name: str) -> tuple[str, dict[str, str]]:
    original = corpus_bytes(name).decode("utf-8")
    return original, plan_migration(original, parse_config("")).file_map()


def additions(files: dict[str, str]) -> list[tuple[str, str]]:
    return [("M" if path == "MEMORY.md" else "A", path) for path in sorted(files)]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_migration_surplus_of_every_corpus_plan_is_empty(name: str) -> None:
    original, files = planned(name)
    assert migration_surplus(original, additions(files), files) == ()


def test_migration_surplus_names_an_unrelated_file() -> None:
    original, files = planned(CORPUS_FILES[0])
    changes = [*additions(files), ("M", "AGENTS.md"), ("A", "../outside.txt")]
    assert migration_surplus(original, changes, files) == (
        "AGENTS.md changed (not a file migrate writes)", "../outside.txt added (not a file migrate writes)")


def test_migration_surplus_names_an_edited_leaf() -> None:
    original, files = planned(CORPUS_FILES[0])
    leaf = next(p for p in sorted(files) if p.startswith("memory/domains/") and "/_index" not in p)
    files[leaf] += "a later edit\n"
    reasons = migration_surplus(original, additions(files), files)
    assert any(leaf in r and "not a section of the original" in r for r in reasons), reasons


def test_migration_surplus_names_a_changed_daily_note_and_an_inbox() -> None:
    original, files = planned(CORPUS_FILES[0])
    files["MEMORY.md"] += "## Later\nnew memory\n"
    reasons = migration_surplus(original, [*additions(files), ("M", "memory/2026-01-01.md")], files)
    assert reasons == ("memory/2026-01-01.md changed (not a file migrate writes)",
                       "MEMORY.md holds text after the end marker")


def test_migration_surplus_names_a_changed_index_and_pinned_text() -> None:
    original, files = planned(CORPUS_FILES[0])
    files["MEMORY.md"] = files["MEMORY.md"].replace("<!-- bonsai:begin", "typed later\n\n<!-- bonsai:begin", 1)
    changes = [("M", "memory/_index.md") if path == "memory/_index.md" else change for change in additions(files)
               for path in [change[1]]]
    reasons = migration_surplus(original, changes, files)
    assert "memory/_index.md changed (a migration only adds files under memory/)" in reasons
    assert "MEMORY.md holds pinned text the original did not have" in reasons


def test_describe_surplus_counts_beyond_three() -> None:
    assert describe_surplus(["a", "b", "c", "d", "e"]) == "a; b; c (+2 more)"
