"""A fleet: nine agents' workspaces in one repository, `status --all`, and the README's CI recipe.

The CI test is the real thing: the `.pre-commit-config.yaml` block printed in README.md, byte for
byte, committed to a repository of 9 migrated workspaces, run by the real pre-commit framework
(`pre-commit run --all-files`) in a fresh `git clone`.  The only help it gets is where pip finds
`bonsai-git==0.1.0`: a wheel of this checkout, offered through PIP_FIND_LINKS (the package is
not on the index this machine uses), as a CI machine would get it from PyPI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.transaction import migrate
from living_tree import BONSAI, env
from support import GIT_ENV, git

ROOT = Path(__file__).parent.parent
PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")
AGENTS = 9
LEAVES = 20
TOPICS = ("Client {i} pricing", "Server {i} deploy", "Community event {i}", "Contract {i} review",
          "Agent {i} handoff", "Reading note {i}", "Project {i} milestones", "Family visit {i}")


def agent_memory(agent: int, sections: int = LEAVES) -> str:
    """A flat MEMORY.md for one agent: a preamble and `sections` `##` sections over several domains."""
    body = "".join(
        f"## {TOPICS[i % len(TOPICS)].format(i=i)}\n\nAgent {agent} learned fact {i}: keep the weekly cadence, "
        f"log decisions in the tracker and follow up before Friday.\n\n- detail {i}.a\n- detail {i}.b\n\n"
        for i in range(sections))
    return f"# Memory of agent {agent}\n\nBe brief.\n\n{body}"


def make_fleet(root: Path, agents: int = AGENTS, config: str | None = None) -> Path:
    """A repository holding `agents` workspaces `agents/agent-NN/`, each migrated by bonsai-git."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for n in range(agents):
        ws = root / "agents" / f"agent-{n:02d}"
        ws.mkdir(parents=True)
        (ws / "MEMORY.md").write_text(agent_memory(n), encoding="utf-8")
    if config is not None:
        (root / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "nine agents, flat memories")
    for n in range(agents):
        migrate(root / "agents" / f"agent-{n:02d}", force=True)
    return root


def readme_ci_config() -> str:
    """The `.pre-commit-config.yaml` block of README.md's fleet section (the `repo: local` one)."""
    readme = (ROOT / "docs" / "hooks-and-ci.md").read_text(encoding="utf-8")  # moved from the README (issue 20)
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    found = [b for b in blocks if "repo: local" in b and "additional_dependencies" in b]
    assert len(found) == 1, "docs/hooks-and-ci.md must hold exactly one `repo: local` bonsai-check config"
    return found[0]


# --------------------------------------------------------------------------- status --all


@pytest.fixture(autouse=True)
def now(monkeypatch: pytest.MonkeyPatch) -> None:
    """A day after the pinned commit date, so no leaf is old (status ages leaves by their commits)."""
    monkeypatch.setenv("BONSAI_NOW", "2026-03-02")


def test_status_all_one_line_per_workspace(tmp_path: Path) -> None:
    repo = make_fleet(tmp_path / "fleet", agents=3)
    flat = repo / "notes" / "MEMORY.md"  # a fourth workspace, not migrated: shown, not a warning
    flat.parent.mkdir()
    flat.write_text("# Flat\n\n## One\n\ntext\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "flat")
    result = CliRunner().invoke(main, ["status", "--all", "-C", str(repo / "agents")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["workspace", "boot", "leaves", "domains", "lookup", "warnings"]
    rows = [line.split()[0] for line in lines[1:5]]
    assert rows == ["agents/agent-00", "agents/agent-01", "agents/agent-02", "notes"]
    assert lines[1].split()[2] == str(LEAVES)
    assert lines[4].endswith("not migrated")
    assert lines[-1] == "4 workspace(s), all healthy."


def test_status_all_names_the_workspace_with_warnings_and_exits_1(tmp_path: Path) -> None:
    repo = make_fleet(tmp_path / "fleet", agents=3)
    leaf = sorted(p for p in (repo / "agents/agent-01/memory/domains").rglob("*.md") if p.name != "_index.md")[0]
    with leaf.open("a", encoding="utf-8") as fh:
        fh.write("- one more line\n")
    result = CliRunner().invoke(main, ["status", "--all", "-C", str(repo)], catch_exceptions=False)
    assert result.exit_code == 1
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("agents/agent-01"))
    assert "stale_index" in line
    assert all("none" in ln for ln in result.stdout.splitlines() if ln.startswith(("agents/agent-00", "agents/agent-02")))
    assert result.stdout.splitlines()[-1] == "3 workspace(s), 1 with warnings (bonsai-git status -C <workspace>)."


def test_status_all_json_is_a_sorted_list(tmp_path: Path) -> None:
    repo = make_fleet(tmp_path / "fleet", agents=3)
    with (repo / "agents/agent-02/MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## New idea\n\nwaiting\n")
    result = CliRunner().invoke(main, ["status", "--all", "--json", "-C", str(repo)], catch_exceptions=False)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [item["workspace"] for item in data] == ["agents/agent-00", "agents/agent-01", "agents/agent-02"]
    first = data[0]
    assert set(first) == {"workspace", "migrated", "healthy", "boot_tokens", "trunk_tokens", "leaves", "domains",
                          "leaf_tokens", "lookup_median", "stale", "warnings", "warning_kinds"}
    assert first["migrated"] and first["healthy"] and first["leaves"] == LEAVES and first["stale"] == 0
    assert data[2]["warning_kinds"] == {"inbox": 1} and not data[2]["healthy"]


def test_status_all_outside_a_repository_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["status", "--all", "-C", str(tmp_path)])
    assert result.exit_code == 3
    assert "not inside a git work tree" in result.stderr


def test_status_all_names_the_workspace_of_a_broken_config(tmp_path: Path) -> None:
    repo = make_fleet(tmp_path / "fleet", agents=2)
    (repo / "agents/agent-01/.bonsai.toml").write_text("min_tokens = [\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["status", "--all", "-C", str(repo)])
    assert result.exit_code == 3
    assert result.stderr.startswith("bonsai-git: agents/agent-01/")
    assert result.stdout == ""


# --------------------------------------------------------------------------- the CI recipe


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a wheel of this checkout (bonsai-git 0.1.0), built from a clean copy."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "bonsai_git"):
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    wheels = tmp_path_factory.mktemp("wheels")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return wheels


def _pre_commit(clone: Path, home: Path, wheels: Path) -> subprocess.CompletedProcess[str]:
    links = " ".join(filter(None, [os.environ.get("PIP_FIND_LINKS", ""), str(wheels)]))
    extra = {"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "PIP_FIND_LINKS": links}
    return subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=clone, env=env(extra) | GIT_ENV,
                          capture_output=True, text=True)


def test_readme_ci_config_checks_a_fresh_clone_of_nine_workspaces(
        tmp_path: Path, wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    config = readme_ci_config()
    origin = make_fleet(tmp_path / "origin", config=config)
    home = tmp_path_factory.mktemp("pre-commit-home")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert (clone / ".pre-commit-config.yaml").read_text(encoding="utf-8") == config

    fresh = _pre_commit(clone, home, wheelhouse)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert re.search(r"bonsai-git check \(every workspace\)\.+Passed", fresh.stdout), fresh.stdout

    # An agent edits a leaf and commits without the hook: the check names the stale index, writes nothing.
    leaf = sorted(p for p in (clone / "agents/agent-04/memory/domains").rglob("*.md") if p.name != "_index.md")[0]
    with leaf.open("a", encoding="utf-8") as fh:
        fh.write("- learned later: the cadence moved to Mondays\n")
    git(clone, "commit", "-q", "-am", "agent 4 learned something")
    stale = _pre_commit(clone, home, wheelhouse)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    index = leaf.parent.relative_to(clone).as_posix() + "/_index.md"
    assert f"stale {index}" in stale.stdout
    assert "agents/agent-0" not in stale.stdout.replace("agents/agent-04", "")  # the other eight are fresh
    assert git(clone, "status", "--porcelain") == ""

    # bonsai-git status --all agrees: one workspace with warnings.
    proc = subprocess.run([str(BONSAI), "status", "--all", "--json"], cwd=clone, capture_output=True, text=True)
    assert proc.returncode == 1
    unhealthy = [item["workspace"] for item in json.loads(proc.stdout) if not item["healthy"]]
    assert unhealthy == ["agents/agent-04"]


def test_status_all_after_the_hook_reports_the_same_with_and_without_its_memo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`status --all` takes each workspace's fresh verdict from the hook's memo (one listing for all): same output."""
    from bonsai_git.survey import _check_work_tree, hook_found_fresh

    repo = make_fleet(tmp_path / "fleet", agents=3)
    hook = subprocess.run([sys.executable, "-m", "bonsai_git.hook"], cwd=repo, capture_output=True, text=True)
    assert hook.returncode == 0, hook.stderr
    known: dict[tuple[Path, Path], frozenset[str]] = {}
    for n in range(3):
        ws = repo / "agents" / f"agent-{n:02d}"
        common_dir, top = _check_work_tree(ws)
        assert hook_found_fresh(ws, top, common_dir, known)
    assert len(known) == 1  # one listing served the three workspaces

    def both() -> tuple[str, str]:
        runner = CliRunner()
        return (runner.invoke(main, ["status", "--all", "-C", str(repo)]).stdout,
                runner.invoke(main, ["status", "--all", "--json", "-C", str(repo)]).stdout)

    with_memo = both()
    monkeypatch.setenv("BONSAI_GIT_NO_CACHE", "1")
    assert both() == with_memo
    assert with_memo[0].splitlines()[-1] == "3 workspace(s), all healthy."
