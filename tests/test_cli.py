"""The CLI contract (DESIGN.md §6): explain, reindex, demo, exit codes, stdout vs stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bonsai_git import cli
from bonsai_git.cli import main
from support import corpus_bytes, git

MakeRepo = Callable[..., Path]
BONSAI = str(Path(sys.executable).with_name("bonsai-git"))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("heading", "line"),
    [
        ("Capital planning", "'Capital planning' -> general: decided by fallback (no keyword in the heading, body or group)"),
        ("APIs", "'APIs' -> infrastructure: decided by heading, score 1 (words: \"APIs\"); runner-up: none"),
        ("📌 Core Rules", "'📌 Core Rules' -> pinned: pinned by a pin rule, stays verbatim in the trunk"),
    ],
)
def test_explain_prints_domain_and_keyword(heading: str, line: str) -> None:
    result = CliRunner().invoke(main, ["explain", heading], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == line


def test_reindex_is_clean_after_migrate_and_fixes_a_stale_index(make_repo: MakeRepo) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert run("migrate", "-C", str(repo)).exit_code == 0
    check = run("reindex", "-C", str(repo), "--check")
    assert (check.exit_code, check.stdout) == (0, "")
    index = repo / "memory" / "domains" / "infrastructure" / "_index.md"
    index.write_text("stale\n")
    check = run("reindex", "-C", str(repo), "--check")
    assert check.exit_code == 1
    assert check.stdout == "stale memory/domains/infrastructure/_index.md\n"
    assert "run bonsai-git reindex" in check.stderr
    fix = run("reindex", "-C", str(repo))
    assert (fix.exit_code, fix.stdout) == (0, "wrote memory/domains/infrastructure/_index.md\n")
    assert git(repo, "status", "--porcelain") == ""
    assert run("reindex", "-C", str(repo)).stdout == ""


def test_reindex_refuses_an_unmigrated_workspace(make_repo: MakeRepo) -> None:
    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    result = run("reindex", "-C", str(repo))
    assert result.exit_code == 3 and "no bonsai markers" in result.stderr


def test_demo_works_without_any_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.gitconfig either
    target = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", str(target)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "Boot tokens (loaded at every session start): 6,084 -> " in result.stdout
    assert "bonsai-git rollback -C" in result.stdout
    assert git(target, "log", "--format=%an", "-1").strip() == "bonsai-git demo"
    assert git(target, "status", "--porcelain") == ""
    assert run("rollback", "-C", str(target)).exit_code == 0


def test_demo_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("mine\n")
    result = run("demo", str(tmp_path))
    assert result.exit_code == 3 and "exists and is not empty" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["x"]


def test_usage_error_exits_2() -> None:
    assert run("migrate", "--no-such-flag").exit_code == 2


def test_unexpected_exception_exits_4_with_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("bonsai_git.demo.run_demo", boom)
    result = run("demo")
    assert result.exit_code == 4
    assert "RuntimeError: a bug" in result.stderr and "internal error" in result.stderr


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("bonsai_git.demo.run_demo", interrupted)
    result = run("demo")
    assert result.exit_code == 130 and "interrupted" in result.stderr


def test_cli_as_a_subprocess_migrate_then_rollback(make_repo: MakeRepo) -> None:
    source = corpus_bytes("18-utf8-bom.md")
    repo = make_repo(source)
    env = dict(os.environ)
    refused = subprocess.run([BONSAI, "migrate", "-C", str(repo)], capture_output=True, text=True, env=env)
    assert refused.returncode == 3 and "Use --force" in refused.stderr and refused.stdout == ""
    done = subprocess.run([BONSAI, "migrate", "-C", str(repo), "--force"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    back = subprocess.run([BONSAI, "rollback", "-C", str(repo)], capture_output=True, text=True, env=env)
    assert back.returncode == 0, back.stderr
    assert (repo / "MEMORY.md").read_bytes() == source


def test_version_option() -> None:
    assert cli.__version__ in run("--version").stdout


def test_migrate_reports_a_moved_preamble_on_its_own_line_with_the_config_line_that_keeps_it(make_repo: Callable[..., Path]) -> None:
    import json

    preamble = "# Memory\n\n" + "Standing rule: the newer dated source wins over older notes. " * 8 + "\n\n"
    repo = make_repo(preamble + "## Pricing\n\nMugs $18.\n")
    dry = CliRunner().invoke(main, ["migrate", "-C", str(repo), "--force", "--dry-run"], catch_exceptions=False)
    line = next(ln for ln in dry.stdout.splitlines() if ln.startswith("The preamble"))
    tokens = int(line.split("~", 1)[1].split(" ", 1)[0])
    assert line == (f"The preamble (text before the first ##, ~{tokens} tokens) moves to memory/domains/general/"
                    f"preamble.md, out of boot; to keep it in MEMORY.md, add this line to .bonsai.toml before "
                    f"migrating: preamble_tokens = {tokens}")
    as_json = CliRunner().invoke(main, ["migrate", "-C", str(repo), "--force", "--dry-run", "--json"])
    assert json.loads(as_json.stdout)["preamble_moved"] == {
        "path": "memory/domains/general/preamble.md", "tokens": tokens, "keep": f"preamble_tokens = {tokens}"}
    (repo / ".bonsai.toml").write_text(line.rsplit(": ", 1)[1] + "\n")  # the one line, as printed
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-qm", "keep the preamble")
    done = CliRunner().invoke(main, ["migrate", "-C", str(repo), "--force"], catch_exceptions=False)
    assert done.exit_code == 0 and "The preamble" not in done.stdout
    assert (repo / "MEMORY.md").read_text().startswith(preamble)
    assert not (repo / "memory/domains/general/preamble.md").exists()
