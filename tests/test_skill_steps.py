"""SKILL.md works as written (issue 20): its steps, run as an agent would copy them on a fresh
workspace, install the hook, migrate, find a fact, commit a new memory with fresh indexes (with the
hook, and in the documented no-hook order), correct a placement and roll back."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from living_tree import MakeRepo, env
from support import git

ROOT = Path(__file__).resolve().parent.parent
SKILL = (ROOT / "SKILL.md").read_text(encoding="utf-8")
SAMPLE = "# Memory\n\nAnswer briefly.\n\n" + "".join(
    f"## {h}\n\n{b}\n\n" for h, b in [
        ("Business Overview", "Acme Pottery sells hand-thrown mugs to cafes in three cities. " * 20),
        ("Family", "Partner Sam; kids Ada (9) and Theo (6). School pickup on Thursdays. " * 20),
        ("Cron Jobs", "Nightly kiln temperature export to the shared sheet at 02:00. " * 20),
        ("Reading List", "The Unhurried Workshop, chapter 7. " * 20)])


def _step(name: str) -> list[str]:
    """The commands of the ```bash block SKILL.md marks `<!-- skill-step: NAME -->`."""
    found = re.search(rf"<!-- skill-step: {re.escape(name)} -->\n```bash\n(.*?)```", SKILL, re.S)
    assert found, f"SKILL.md has no step {name}"
    return [line.split("  #")[0].strip() for line in found.group(1).splitlines() if line.strip()]


def _sh(command: str, ws: Path) -> subprocess.CompletedProcess[str]:
    command = command.replace("<workspace>", str(ws)).replace("<what you learned>", "a new memory")
    return subprocess.run(["bash", "-c", command], cwd=ws, env=env(), capture_output=True, text=True)


def _fresh(ws: Path) -> None:
    check = subprocess.run(["bonsai-git", "check", "-C", str(ws)], env=env(), capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr  # the commit's own tree, not the work tree
    assert git(ws, "status", "--porcelain") == ""


def test_skill_install_step_installs_the_hook() -> None:
    assert "bonsai-git install-hook -C <workspace>" in SKILL


def test_skill_no_hook_order_commits_a_new_memory_with_fresh_indexes(make_repo: MakeRepo) -> None:
    ws = make_repo(SAMPLE)
    assert _sh("bonsai-git migrate -C <workspace>", ws).returncode == 0
    (ws / "memory/domains/personal/dentist.md").write_text("## Dentist\n\nCheck-up on 2027-01-12 at 8:30.\n")
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.write("\n## Vet\n\nThe cat's vaccination is due in March.\n")
    for command in _step("write-without-hook"):
        result = _sh(command, ws)
        assert result.returncode == 0, (command, result.stdout + result.stderr)
    _fresh(ws)
    assert "dentist.md" in (ws / "memory/domains/personal/_index.md").read_text(encoding="utf-8")


def test_skill_steps_with_the_hook_find_write_correct_and_roll_back(make_repo: MakeRepo) -> None:
    ws = make_repo(SAMPLE)
    assert _sh("bonsai-git install-hook -C <workspace>", ws).returncode == 0
    assert _sh("bonsai-git migrate -C <workspace> --dry-run", ws).returncode == 0
    assert _sh("bonsai-git migrate -C <workspace>", ws).returncode == 0
    # find a fact: trunk -> branch index -> leaf, as the trunk's first line says
    trunk = (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert "To find a fact, read" in trunk and "- infrastructure" in trunk
    index = (ws / "memory/domains/infrastructure/_index.md").read_text(encoding="utf-8")
    leaf = re.search(r"^### (\S+\.md) \(", index, re.M).group(1)  # type: ignore[union-attr]
    assert "kiln temperature" in (ws / "memory/domains/infrastructure" / leaf).read_text(encoding="utf-8")
    # write a new memory below the end marker, commit once: the hook files and indexes it
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.write("\n## Dentist\n\nCheck-up on 2027-01-12 at 8:30.\n")
    for command in ('git -C <workspace> add MEMORY.md memory',
                    'git -C <workspace> commit -m "memory: <what you learned>"'):
        result = _sh(command, ws)
        assert result.returncode == 0, (command, result.stdout + result.stderr)
    _fresh(ws)
    assert "## Dentist" not in (ws / "MEMORY.md").read_text(encoding="utf-8").split("bonsai:end")[1]
    # correct a placement
    moved = _sh("bonsai-git move -C <workspace> reading-list business", ws)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    _fresh(ws)
    # roll back the migration after reverting what came since, as the SKILL says: one revert each
    assert _sh("git -C <workspace> revert --no-edit HEAD HEAD~1", ws).returncode == 0
    rolled = _sh("bonsai-git rollback -C <workspace>", ws)
    assert rolled.returncode == 0, rolled.stdout + rolled.stderr
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == SAMPLE  # the flat file, byte for byte
