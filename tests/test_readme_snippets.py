"""The README's setup snippets work as a new user copies them: the `repo: local` pre-commit config
through the real pre-commit framework, the same text `install-hook` prints, no placeholders, no
paths outside the repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bonsai_git.githook import PRE_COMMIT_SNIPPET
from living_tree import PRICING, MakeRepo, env, migrated, run
from support import git

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKILL = (ROOT / "SKILL.md").read_text(encoding="utf-8")
PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def _local_block() -> str:
    # the installed-bonsai-git block (language: system); the fleet's CI block builds its own environment
    blocks = [b for b in _yaml_blocks(README) if "repo: local" in b and "language: system" in b]
    assert len(blocks) == 1
    return blocks[0]


def test_install_hook_prints_the_readmes_local_snippet() -> None:
    assert PRE_COMMIT_SNIPPET.split("\n", 1)[1] == _local_block()


def test_readme_and_skill_have_no_placeholder_repository_and_no_path_outside_the_repository() -> None:
    for text in (README, SKILL):
        assert "<owner>" not in text and "../shared" not in text and "../" + "corpus" not in text
    install = SKILL.split("## Install", 1)[1].split("```", 2)[1]
    assert "\npipx install .  " in install and "pip install --user .\n" in install  # from the clone's folder
    assert "pipx install bonsai-git" not in install  # that needs a package index; a clone is what users have
    assert "`bonsai-git explain [-C DIR] [HEADING...]" in README


def test_readme_local_pre_commit_config_works_with_the_real_framework(make_repo: MakeRepo, tmp_path: Path) -> None:
    ws = migrated(make_repo)
    (ws / ".pre-commit-config.yaml").write_text(_local_block(), encoding="utf-8")
    git(ws, "add", ".pre-commit-config.yaml")
    git(ws, "commit", "-q", "-m", "use the bonsai-git hook")
    hook_env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    for stage in ("pre-commit", "pre-push"):
        proc = subprocess.run([PRE_COMMIT, "install", "--hook-type", stage], cwd=ws, env=env(hook_env),
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    (ws / PRICING).write_text("## Pricing\n\nWholesale mugs $20 from April.\n", encoding="utf-8")
    git(ws, "add", "-A")
    first = run(["git", "commit", "-q", "-m", "price"], ws, hook_env)
    out = first.stdout + first.stderr  # git relays the hook's output on stderr
    assert first.returncode != 0 and "bonsai-git reindex" in out and "Failed" in out
    assert "wrote memory/domains/business/_index.md" in out
    git(ws, "add", "-A")
    second = run(["git", "commit", "-q", "-m", "price"], ws, hook_env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "$20 from April" in git(ws, "show", "HEAD:memory/domains/business/_index.md")
    check = subprocess.run([PRE_COMMIT, "run", "bonsai-check", "--hook-stage", "manual", "--all-files"], cwd=ws,
                           env=env(hook_env), capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
