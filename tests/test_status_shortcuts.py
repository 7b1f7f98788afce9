"""`bonsai-git status`'s shortcuts at scale (issue 15) give the report the long way gives.

- In a fresh clone (no facts cache) the staleness check computes each leaf's facts once and the
  root-index summary only for each domain's largest leaf (`survey._facts_without_cache`): the
  rendering equals the plain one, and the report equals the one made with the hook's cache.
- Each path is masked once; a name mask_name leaves unchanged has no name finding.
- lookup's join of a plain leaf name equals the general rule.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bonsai_git.core.config import Config
from bonsai_git.core.indexes import render_tree
from bonsai_git.core.layout import Leaf, TrunkParts, parse_trunk
from bonsai_git.core.lookup import _join, _join_general
from bonsai_git.core.secretscan import mask_name, name_secret_kinds
from bonsai_git.survey import _facts_without_cache
from memory_samples import TRAVEL, MakeRepo, migrated

BONSAI = str(Path(sys.executable).with_name("bonsai-git"))
HOOK = [sys.executable, "-m", "bonsai_git.hook"]
TRUNK = "# MEMORY\n\n<!-- bonsai:begin -->\n<!-- bonsai:end -->\n"

_WORDS = ["Deploy", "notes", "the kiln", "Person: Dana", "2024", "**Wins**", "- item", "`code`", "café", "密码",
          "token: abc", "\n", "\n\n", "## h", "### sub", "x" * 30]
_LEAF = st.tuples(
    st.sampled_from(["business", "general", "infrastructure", "log"]),
    st.from_regex(r"[a-z]{1,6}(/[a-z]{1,4})?\.md", fullmatch=True),
    st.lists(st.sampled_from(_WORDS), max_size=12).map(lambda ws: "## " + " ".join(ws) + "\n"),
)


def _trunk() -> TrunkParts:
    parts = parse_trunk(TRUNK)
    assert parts is not None
    return parts


@settings(max_examples=150, deadline=None)
@given(st.lists(_LEAF, min_size=1, max_size=40, unique_by=lambda leaf: (leaf[0], leaf[1])),
       st.integers(min_value=40, max_value=400))
def test_facts_without_a_cache_render_the_same_bytes(items: list[tuple[str, str, str]], branch_tokens: int) -> None:
    leaves = tuple(Leaf(domain, name, text) for domain, name, text in items)  # ties in tokens: ties by name
    config = Config(branch_tokens=branch_tokens)
    plain = render_tree(leaves, _trunk(), config)
    assert render_tree(leaves, _trunk(), config, facts=_facts_without_cache(leaves, config.estimator)) == plain


def _status_json(repo: Path) -> dict[str, object]:
    proc = subprocess.run([BONSAI, "status", "-C", str(repo), "--json"], capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def test_status_without_the_facts_cache_reports_what_it_reports_with_it(
        make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BONSAI_NOW", "2026-05-01")
    repo = migrated(make_repo)
    assert subprocess.run(HOOK, cwd=repo, capture_output=True).returncode == 0  # the cache and the memo exist
    leaf = repo / TRAVEL  # now the largest leaf of general/: the root index's summary line changes
    leaf.write_text("## Travel Notes\n\nAisle seats on day trains, always.\n\n" + "- a long note on trains\n" * 40,
                    encoding="utf-8")
    with_cache = _status_json(repo)
    assert "memory/_index.md" in with_cache["stale"]  # type: ignore[operator]
    shutil.rmtree(repo / ".git" / "bonsai-git")  # as in a fresh clone
    assert _status_json(repo) == with_cache


_NAME_PIECES = ["notes", "-", "/", "akia", "AKIA", "1234567890abcdef", "ghp_", "x" * 20, "a1b2c3d4e5f6g7h8i9j0k1",
                "sk-", "token", "=", ":", ".md", "2024", "Q4", "eyj", "xoxb-", "_", "0"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_NAME_PIECES), max_size=10).map("".join))
def test_a_name_mask_name_leaves_unchanged_has_no_secret_kind(name: str) -> None:
    assert (mask_name(name) != name) == bool(name_secret_kinds(name))  # health._secret_findings relies on it


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_NAME_PIECES), max_size=8).map("".join),
       st.lists(st.sampled_from(_NAME_PIECES), max_size=8).map("".join))
def test_mask_name_masks_each_path_component_on_its_own(folder: str, name: str) -> None:
    assert mask_name(f"{folder}/{name}") == f"{mask_name(folder)}/{mask_name(name)}"  # health._path_masker


@given(st.text(alphabet="ab/._", max_size=12), st.text(alphabet="ab/._", max_size=8))
def test_lookup_join_fast_path_equals_the_general_rule(folder: str, relative: str) -> None:
    assert _join(folder, relative) == _join_general(folder, relative)


def test_one_git_question_gives_the_journal_folder_and_the_common_dir_of_a_linked_worktree(
        make_repo: MakeRepo, tmp_path: Path) -> None:
    from bonsai_git import journal

    repo = make_repo("# M\n")
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", str(linked)], cwd=repo, check=True, capture_output=True)
    folder, common = journal.journal_dir(linked), journal.git_common_dir(linked)
    assert common == (repo / ".git").resolve()  # reindex's facts cache lives with the shared objects
    assert folder is not None and folder.parent == (repo / ".git" / "worktrees" / "linked").resolve()  # the lock: per worktree
    assert journal.git_common_dir(tmp_path) is None  # no repository: nothing to lock, no cache
