"""The hooks through the real pre-commit framework, as a workspace's `.pre-commit-config.yaml` uses them.

One session-wide PRE_COMMIT_HOME and one snapshot commit of this checkout (its working tree,
so uncommitted work is what gets tested: `repo:` only sees commits) mean the framework builds
the hook's virtualenv once (pip installs the package, ~20 s); every test reuses it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from click.testing import CliRunner

from bonsai_git.cli import main
from living_tree import SCENARIOS, MakeRepo, commit_all, edit_leaf, env, migrated, run, tree_files, write
from support import GIT_ENV, git

ROOT = Path(__file__).parent.parent
PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")
SNAPSHOT = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "bonsai_git", "hooks")


@pytest.fixture(scope="session")
def framework(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """{"home": PRE_COMMIT_HOME, "repo": snapshot repo path, "rev": its commit}, the hook env built once."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    source = tmp_path_factory.mktemp("bonsai-git-source")
    for name in SNAPSHOT:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    git_env = env() | GIT_ENV
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=source, env=git_env, check=True, capture_output=True)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True, check=True).stdout.strip()
    info = {"home": str(home), "repo": str(source), "rev": rev}
    warm = tmp_path_factory.mktemp("warm-up")
    git(warm, "init", "-q", "-b", "main")
    _configure(warm, info)
    proc = subprocess.run([PRE_COMMIT, "install-hooks"], cwd=warm, env=_env(info), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return info


def _env(info: dict[str, str]) -> dict[str, str]:
    return env({"PRE_COMMIT_HOME": info["home"], "PRE_COMMIT_COLOR": "never"})


def _configure(repo: Path, info: dict[str, str], hook_ids: tuple[str, ...] = ("bonsai-reindex", "bonsai-check")) -> None:
    hooks = "".join(f"      - id: {h}\n" for h in hook_ids)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {info['repo']}\n    rev: {info['rev']}\n    hooks:\n{hooks}", encoding="utf-8")


def consumer(make_repo: MakeRepo, info: dict[str, str]) -> Path:
    """A migrated workspace whose `.pre-commit-config.yaml` uses this repository's hooks, installed."""
    repo = migrated(make_repo)
    _configure(repo, info)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "use bonsai-git hooks")
    for stage in ("pre-commit", "pre-push"):
        proc = subprocess.run([PRE_COMMIT, "install", "--hook-type", stage], cwd=repo, env=_env(info),
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    return repo


def commit(repo: Path, info: dict[str, str]) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return run(["git", "commit", "-q", "-m", "change"], repo, {"PRE_COMMIT_HOME": info["home"], "PRE_COMMIT_COLOR": "never"})


@pytest.mark.parametrize("change", SCENARIOS, ids=lambda f: f.__name__)
def test_framework_stops_a_stale_commit_once(
    make_repo: MakeRepo, framework: dict[str, str], change: Callable[[Path], None]
) -> None:
    repo = consumer(make_repo, framework)
    change(repo)
    first = commit(repo, framework)
    output = first.stdout + first.stderr
    assert first.returncode != 0, output
    assert "bonsai-git reindex" in output and "Failed" in output and "bonsai-git: wrote" in output
    second = commit(repo, framework)
    assert second.returncode == 0, second.stdout + second.stderr
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0
    assert git(repo, "status", "--porcelain") == ""


def test_framework_lets_an_unrelated_commit_through_untouched(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    repo = consumer(make_repo, framework)
    write(repo, "notes/todo.txt", "buy clay\n")
    before = tree_files(repo)
    result = commit(repo, framework)
    assert result.returncode == 0, result.stdout + result.stderr
    assert tree_files(repo) == before


def test_framework_check_hook_fails_a_stale_tree_and_writes_nothing(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    repo = consumer(make_repo, framework)
    edit_leaf(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "stale on purpose")
    before = tree_files(repo)
    proc = subprocess.run([PRE_COMMIT, "run", "bonsai-check", "--hook-stage", "manual", "--all-files"], cwd=repo,
                          env=_env(framework), capture_output=True, text=True)
    assert proc.returncode == 1 and "stale memory/domains/business/_index.md" in proc.stdout
    assert tree_files(repo) == before
    assert git(repo, "status", "--porcelain") == ""


def test_framework_hook_and_plain_hook_give_the_same_tree(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    framed = consumer(make_repo, framework)
    plain = migrated(make_repo)
    assert CliRunner().invoke(main, ["install-hook", "-C", str(plain)]).exit_code == 0
    for repo in (framed, plain):
        edit_leaf(repo)
        with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
            fh.write("\n## Kiln config\n\nCone 6.\n")
    assert commit(framed, framework).returncode != 0  # the framework's convention: exit 1, re-add
    assert commit_all(plain).returncode == 0  # the plain hook stages what it regenerated (issue 22)
    assert tree_files(framed) == tree_files(plain)


def test_manifest_and_readme_agree() -> None:
    import re

    import yaml

    manifest = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    for hook_id in ("bonsai-reindex", "bonsai-check"):
        h = manifest[hook_id]
        assert (h["language"], h["always_run"], h["pass_filenames"], h["require_serial"]) == ("python", True, False, True)
        assert h["minimum_pre_commit_version"] == "3.2.0" and h["entry"].startswith("bonsai-git-hook")
    assert manifest["bonsai-reindex"]["stages"] == ["pre-commit", "pre-merge-commit", "manual"]
    assert manifest["bonsai-check"]["entry"] == "bonsai-git-hook --check"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    hooks_page = (ROOT / "docs" / "hooks-and-ci.md").read_text(encoding="utf-8")  # moved from the README (issue 20)
    section = hooks_page[hooks_page.index("## Use it as a pre-commit hook"):]
    snippet = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))  # type: ignore[union-attr]
    assert [h["id"] for h in snippet["repos"][0]["hooks"]] == ["bonsai-reindex", "bonsai-check"]
    for command in ("bonsai-git absorb", "bonsai-git hook", "bonsai-git install-hook"):
        assert f"| `{command} " in readme


def test_framework_hook_lets_bonsai_gits_own_commits_through(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    """migrate, move and archive commit while their own journal and lock exist: the hook must run, not refuse."""
    from support import corpus_bytes

    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    _configure(repo, framework, ("bonsai-reindex",))
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "use bonsai-git hooks")
    proc = subprocess.run([PRE_COMMIT, "install"], cwd=repo, env=_env(framework), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    bonsai = str(Path(sys.executable).parent / "bonsai-git")
    extra = {"PRE_COMMIT_HOME": framework["home"], "PRE_COMMIT_COLOR": "never"}
    for args in (["migrate"], ["move", "memory/domains/infrastructure/runbooks.md", "agents"],
                 ["archive", "memory/domains/infrastructure/incidents.md"]):
        done = run([bonsai, *args, "-C", str(repo)], repo, extra)
        assert done.returncode == 0, done.stderr
        assert git(repo, "status", "--porcelain") == ""
    assert "Bonsai-Op: archive" in git(repo, "log", "-1", "--format=%B")


def test_framework_indexes_what_is_staged_when_a_leaf_is_partly_staged(
    make_repo: MakeRepo, framework: dict[str, str], tmp_path: Path
) -> None:
    """pre-commit sets unstaged hunks aside before its hooks run, so the hook sees the commit's text;
    the advice names exactly the files it wrote, so staging them never takes the unstaged hunk along."""
    from living_tree import PRICING

    repo = consumer(make_repo, framework)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    git(repo, "add", PRICING)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n\nDraft: maybe $22 in the autumn, a long note.\n")
    extra = {"PRE_COMMIT_HOME": framework["home"], "PRE_COMMIT_COLOR": "never"}
    first = run(["git", "commit", "-q", "-m", "price"], repo, extra)
    assert first.returncode != 0, first.stdout + first.stderr
    advice = (first.stdout + first.stderr).split("git add -A -- ", 1)[1].split("\n", 1)[0]
    assert PRICING not in advice.split()
    git(repo, "add", "-A", "--", *advice.split())
    second = run(["git", "commit", "-q", "-m", "price"], repo, extra)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Draft: maybe $22" in (repo / PRICING).read_text()  # still there, unstaged
    clone = tmp_path / "clean-clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert run(["bonsai-git", "reindex", "--check"], clone).returncode == 0


def test_framework_leaves_memory_md_byte_identical_across_leaf_edit_add_and_delete(
    make_repo: MakeRepo, framework: dict[str, str]
) -> None:
    """The quiet trunk: an edit inside a leaf never rewrites MEMORY.md; adding or deleting a leaf rewrites
    only indexes while the topics the trunk shows stay the same (issue 24)."""
    deploy = "memory/domains/infrastructure/deploy-{}.md"

    def add_leaf(ws: Path) -> None:  # a third `deploy-` leaf: the topic `deploy` was shown already
        write(ws, deploy.format("cron"), "## Deploy cron\n\nThe cron jobs deploy from main.\n")

    def delete_leaf(ws: Path) -> None:
        (ws / deploy.format("cron")).unlink()

    repo = consumer(make_repo, framework)
    for name in ("api", "web"):  # two leaves sharing a word: a new topic, so the trunk changes once
        write(repo, deploy.format(name), f"## Deploy {name}\n\nThe {name} deploys from main.\n")
    assert commit(repo, framework).returncode != 0 and commit(repo, framework).returncode == 0
    assert "deploy" in (repo / "MEMORY.md").read_text()
    trunk = (repo / "MEMORY.md").read_bytes()
    for change in (edit_leaf, add_leaf, delete_leaf):
        change(repo)
        first = commit(repo, framework)  # the hook rewrites stale indexes and stops the commit once
        assert first.returncode != 0 and "bonsai-git: wrote" in first.stdout + first.stderr
        assert "MEMORY.md" not in (first.stdout + first.stderr).replace("git add -A -- MEMORY.md", "")
        second = commit(repo, framework)
        assert second.returncode == 0, second.stdout + second.stderr
        assert (repo / "MEMORY.md").read_bytes() == trunk, change.__name__
        assert git(repo, "diff", "HEAD~1", "--stat", "--", "MEMORY.md") == ""
    assert run(["bonsai-git", "reindex", "--check"], repo).returncode == 0


# --- issue 21: what the hook refuses, through the framework (each refusal leaves the tree as it was) ---

def _glued_end_marker(repo: Path) -> None:
    trunk = (repo / "MEMORY.md").read_bytes()
    (repo / "MEMORY.md").write_bytes(trunk.rstrip(b"\n") + b"## Dentist\n\nDr Lee, Tuesdays at 9.\n")


def _ignored_log_folder(repo: Path) -> None:
    write(repo, ".gitignore", "log/\ntmp/\nbuild/\n")
    with (repo / "MEMORY.md").open("a", encoding="utf-8") as fh:
        fh.write("\n## Daily log 2026-03-02\n\nShipped the new kiln program.\n")


def _nul_leaf(repo: Path) -> None:
    from living_tree import PRICING

    (repo / PRICING).write_bytes(b"## Pricing\n\nport 8080\x00 and more\n")


def _fifo_settings(repo: Path) -> None:
    import os

    from living_tree import PRICING

    os.mkfifo(repo / ".bonsai.toml")  # untracked: the hook must not block reading it
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")  # something to commit


def _dates_folder_leaf(repo: Path) -> None:
    write(repo, "memory/domains/dates/dentist.md", "## Dentist\n\nMarch 3, 9:00.\n")


REFUSALS = {  # scenario -> what stderr/stdout must say
    _ignored_log_folder: "ignored by .gitignore:1 (`log/`)",
    _nul_leaf: "memory/domains/business/pricing.md: holds a NUL byte",
    _fifo_settings: ".bonsai.toml: is not a regular file",
    _dates_folder_leaf: "a one-file domain (memory/dates.md)",
}


@pytest.mark.parametrize("change", list(REFUSALS), ids=lambda f: f.__name__.strip("_"))
def test_framework_refuses_and_leaves_the_tree_untouched(make_repo: MakeRepo, framework: dict[str, str],
                                                          change: Callable[[Path], None]) -> None:
    from support import snapshot

    repo = consumer(make_repo, framework)
    change(repo)
    if (repo / ".bonsai.toml").exists():  # a FIFO: `git add -A` would hang reading it too
        git(repo, "add", "--", *(p for p in ("MEMORY.md", "memory", ".gitignore") if (repo / p).exists()))
    else:
        git(repo, "add", "-A")
    before = snapshot(repo) if not (repo / ".bonsai.toml").exists() else None
    head = git(repo, "rev-parse", "HEAD")
    proc = subprocess.run(["git", "commit", "-q", "-m", "change"], cwd=repo, capture_output=True, text=True,
                          timeout=120, env=env({"PRE_COMMIT_HOME": framework["home"], "PRE_COMMIT_COLOR": "never"}))
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and REFUSALS[change] in output, output
    assert git(repo, "rev-parse", "HEAD") == head
    if before is not None:
        assert snapshot(repo) == before


def test_framework_absorbs_a_section_glued_to_the_end_marker(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    repo = consumer(make_repo, framework)
    _glued_end_marker(repo)
    first = commit(repo, framework)
    assert first.returncode != 0 and "absorbed 'Dentist'" in first.stdout + first.stderr
    second = commit(repo, framework)
    assert second.returncode == 0, second.stdout + second.stderr
    assert git(repo, "show", "HEAD:memory/domains/personal/dentist.md") == "## Dentist\n\nDr Lee, Tuesdays at 9.\n"


def test_framework_refuses_a_migration_staged_in_part(make_repo: MakeRepo, framework: dict[str, str]) -> None:
    from support import corpus_bytes, snapshot

    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    _configure(repo, framework, ("bonsai-reindex",))
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "use bonsai-git hooks")
    assert subprocess.run([PRE_COMMIT, "install"], cwd=repo, env=_env(framework), capture_output=True).returncode == 0
    assert run(["bonsai-git", "migrate", "--no-commit"], repo).returncode == 0
    git(repo, "add", "MEMORY.md")
    before = snapshot(repo)
    proc = run(["git", "commit", "-q", "-m", "part"], repo, {"PRE_COMMIT_HOME": framework["home"],
                                                             "PRE_COMMIT_COLOR": "never"})
    assert proc.returncode != 0 and "stage all of it: git add -A -- MEMORY.md memory" in proc.stdout + proc.stderr
    assert snapshot(repo) == before
