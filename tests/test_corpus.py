"""Every shared corpus file through the real CLI: one commit, section count, clean re-run, exact rollback."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.core.tokens import estimate_tokens
from support import CORPUS_FILES, EXPECTED, corpus_bytes, git

MakeRepo = Callable[..., Path]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_file_migrates_and_rolls_back(make_repo: MakeRepo, name: str) -> None:
    source = corpus_bytes(name)
    repo = make_repo(source)
    head0 = git(repo, "rev-parse", "HEAD").strip()
    runner = CliRunner()
    force = ["--force"] if estimate_tokens(source.decode()) < 1000 else []
    result = runner.invoke(main, ["migrate", "-C", str(repo), *force], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert git(repo, "rev-list", "--count", f"{head0}..HEAD").strip() == "1"
    assert git(repo, "status", "--porcelain") == ""
    sections = re.search(r"^Bonsai-Sections: (\d+)$", git(repo, "log", "-1", "--format=%B"), re.M)
    assert sections and int(sections.group(1)) == EXPECTED[name]["h2_sections"]
    assert runner.invoke(main, ["reindex", "-C", str(repo), "--check"]).exit_code == 0
    head1 = git(repo, "rev-parse", "HEAD")
    assert runner.invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    assert git(repo, "rev-parse", "HEAD") == head1
    assert runner.invoke(main, ["rollback", "-C", str(repo)]).exit_code == 0
    assert (repo / "MEMORY.md").read_bytes() == source
    assert git(repo, "status", "--porcelain") == ""
