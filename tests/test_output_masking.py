"""One masking rule for everything bonsai-git prints or writes outside the leaves (issue 25).

A memory full of secrets, one of each kind of the secrets table, in headings, in bodies, in file
names and in folder names; then every command runs on it (through click's CliRunner and as real
processes, the console scripts included), and its stdout, stderr, JSON, the plan file it wrote,
every commit message, and every generated file (indexes, the trunk's block) are searched for
every value: none may show.  The leaves keep the values byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.cli import main
from bonsai_git.core.secretscan import MASK, _keep, find_secrets, mask_output
from secret_cases import POSITIVES
from support import git

MakeRepo = Callable[..., Path]
BIN = Path(sys.executable).parent


def _one_per_kind() -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for kind, line in POSITIVES:
        seen.setdefault(kind, line)
    return sorted(seen.items())


KINDS = _one_per_kind()
SINGLE = [(kind, line) for kind, line in KINDS if "\n" not in line]
# a token for a folder name and one for a file name, as an agent might make them (lowercased)
FOLDER_TOKEN = next(line for kind, line in KINDS if kind == "github token").lower()
FILE_TOKEN = next(line for kind, line in KINDS if kind == "aws access key").lower()


def _value(line: str) -> str:
    """The secret part of a table line (a PEM key: its body, not the `-----BEGIN …-----` words)."""
    found = find_secrets(line)
    assert len(found) == 1, line
    value = line[found[0].start + _keep(found[0].kind) : found[0].end]
    return "".join(value.split("\n")[1:-1]) if found[0].kind == "private key" else value


VALUES = [_value(line) for _kind, line in KINDS] + [FOLDER_TOKEN[4:], FILE_TOKEN[4:]]


def _windows(value: str) -> set[str]:
    """Every 10-char piece of a value, lowercased: none may show anywhere, in any case."""
    value = value.lower()
    return {value[i : i + 10] for i in range(max(1, len(value) - 9))}


WINDOWS = set().union(*(_windows(v) for v in VALUES))


def _leaks(text: str) -> list[str]:
    lowered = text.lower()
    return sorted(w for w in WINDOWS if w in lowered)


def _memory() -> str:
    parts = ["# Memory\n\nThe agent's notes.\n"]
    for n, (kind, line) in enumerate(SINGLE):
        parts.append(f"\n## Note {n} {line}\n{kind}: kept here for the test.\n")  # in the heading
    for n, (kind, line) in enumerate(KINDS):
        parts.append(f"\n## Credentials {n}\nThe value is below.\n{line}\n")  # in the body
    parts.append("\n## Plain notes\n" + "The team meets on Tuesdays to review the roadmap. " * 200 + "\n")
    return "".join(parts)


class Walk:
    """Runs commands in one workspace and keeps everything they printed, by command line."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.printed: dict[str, str] = {}

    def cli(self, *args: str, codes: Iterable[int] = (0, 1)) -> str:
        result = CliRunner().invoke(main, list(args))
        label = "bonsai-git " + " ".join(args)
        assert result.exit_code in set(codes), (label, result.exit_code, result.stderr, result.exception)
        self.printed[label] = result.stdout + result.stderr
        return result.stdout

    def process(self, *argv: str, codes: Iterable[int] = (0, 1)) -> str:
        proc = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=self.repo, capture_output=True, text=True)
        label = " ".join(argv)
        assert proc.returncode in set(codes), (label, proc.returncode, proc.stderr)
        self.printed[label] = proc.stdout + proc.stderr
        return proc.stdout

    def leaks(self) -> dict[str, list[str]]:
        return {label: found for label, text in self.printed.items() if (found := _leaks(text))}


def _generated(repo: Path) -> dict[str, str]:
    """Every file bonsai-git generates (indexes, the trunk's block), by path."""
    out = {str(p.relative_to(repo)): p.read_text() for p in sorted((repo / "memory").rglob("_index*.md"))}
    trunk = (repo / "MEMORY.md").read_text()
    if "<!-- bonsai:begin" in trunk:
        out["MEMORY.md block"] = trunk[trunk.index("<!-- bonsai:begin") :]
    return out


def _messages(repo: Path) -> str:
    return git(repo, "log", "--all", "--format=%H%n%B")


@pytest.fixture
def secret_workspace(make_repo: MakeRepo) -> Path:
    return make_repo(_memory())


def test_every_command_shows_none_of_the_values(secret_workspace: Path, tmp_path: Path) -> None:
    repo, ws = secret_workspace, str(secret_workspace)
    walk = Walk(repo)
    memory = (repo / "MEMORY.md").read_bytes()

    # before the migration: the dry run, its JSON, the plan file, explain
    walk.cli("migrate", "-C", ws, "--dry-run")
    data = json.loads(walk.cli("migrate", "-C", ws, "--dry-run", "--json"))
    assert data["sections"] and all(MASK in s["heading"] for s in data["sections"] if s["heading"].startswith("Note"))
    plan = tmp_path / "plan.toml"
    walk.cli("migrate", "-C", ws, "--dry-run", "--plan-out", str(plan))
    walk.printed["plan file"] = plan.read_text()
    walk.cli("explain", "-C", ws, *[f"Note {line}" for _kind, line in SINGLE])
    walk.cli("explain", "-C", ws, "--file", "MEMORY.md")
    json.loads(walk.cli("explain", "-C", ws, "--file", "MEMORY.md", "--json"))
    walk.cli("status", "-C", ws)

    # the migration, through the edited plan (a heading read back masked still matches its section)
    walk.cli("migrate", "-C", ws, "--plan", str(plan))
    assert git(repo, "status", "--porcelain") == ""
    leaves = "".join(p.read_text() for p in sorted((repo / "memory/domains").rglob("*.md")) if p.name[0] != "_")
    for _kind, line in KINDS:
        assert line in leaves or line in (repo / "MEMORY.md").read_text()  # the leaves keep every value verbatim
    assert memory  # the source was read, not changed before the commit

    # the agent makes a folder and a file named with a token
    for path, text in ((f"memory/domains/{FOLDER_TOKEN}/deploy-notes.md", "## Deploy notes\nRotated monthly.\n"),
                       (f"memory/domains/infrastructure/notes-{FILE_TOKEN}.md", "## Notes\nThe key was rotated.\n")):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    walk.process("bonsai-git-secrets")
    walk.process("bonsai-git-hook")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "agent notes")

    # every command on the migrated tree
    walk.cli("status", "-C", ws)
    json.loads(walk.cli("status", "-C", ws, "--json"))
    walk.cli("status", "-C", ws, "--all")
    walk.cli("reflect", "-C", ws)
    json.loads(walk.cli("reflect", "-C", ws, "--json"))
    walk.cli("reindex", "-C", ws, "--check")
    walk.cli("reindex", "-C", ws)
    walk.cli("hook", "-C", ws)
    walk.cli("hook", "-C", ws, "--check")
    walk.cli("check", "-C", ws, codes=(0, 1))  # the push gate's check of HEAD's own tree
    walk.process("bonsai-git", "status", "-C", ws)
    walk.process("bonsai-git-hook", "--check")
    walk.cli("explain", "-C", ws, f"Deploy {FOLDER_TOKEN}")
    walk.cli("connect", "codex", "-C", ws, "--dry-run")  # the Codex block copies the trunk block's (masked) domains
    walk.cli("connect", "codex", "-C", ws)
    walk.cli("connect", "claude", "-C", ws)
    walk.cli("connect", "openclaw", "-C", ws)
    walk.cli("status", "-C", ws, "--profile", "codex")
    walk.printed["AGENTS.md"] = (repo / "AGENTS.md").read_text()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "connect")
    token_leaf = f"memory/domains/{FOLDER_TOKEN}/deploy-notes.md"
    walk.cli("move", "-C", ws, token_leaf, "infrastructure", "--dry-run")
    walk.cli("move", "-C", ws, token_leaf, "infrastructure")
    walk.cli("regroup", "-C", ws, "--dry-run")
    walk.cli("archive", "-C", ws, f"memory/domains/infrastructure/notes-{FILE_TOKEN}.md",
             "--reason", f"rotated {KINDS[0][1].splitlines()[0]} and {FOLDER_TOKEN}")
    walk.cli("purge", "-C", ws, "--dry-run", "--older-than", "0d")
    walk.cli("absorb", "-C", ws, "--dry-run")
    walk.cli("flatten", "-C", ws, "--dry-run")
    index = repo / "memory/domains/infrastructure/_index.md"
    sides = []
    for side in ("ancestor", "ours", "theirs"):
        sides.append(tmp_path / f"{side}.md")
        sides[-1].write_bytes(index.read_bytes())
    walk.cli("merge-driver", *map(str, sides), "memory/domains/infrastructure/_index.md")  # no GITHEAD_: keeps ours
    walk.printed["merge driver result"] = sides[1].read_text()
    walk.cli("install-hook", "-C", ws, codes=(0, 3))
    walk.cli("install-hook", "-C", ws, "--uninstall", codes=(0, 3))
    walk.cli("demo", str(tmp_path / "demo"))
    walk.cli("secrets-audit", "-C", ws, codes=(1,))
    assert json.loads(walk.cli("secrets-audit", "-C", ws, "--json", codes=(1,)))["findings"]
    walk.process("bonsai-git", "secrets-audit", "-C", ws, codes=(1,))
    walk.cli("rollback", "-C", ws, codes=(0, 3))

    # refusals and errors naming what the user typed
    walk.cli("move", "-C", ws, f"notes-{FILE_TOKEN}", "general", codes=(3,))
    walk.cli("move", "-C", ws, "deploy-notes", FOLDER_TOKEN, codes=(3,))
    walk.cli("explain", "-C", ws, "--file", f"missing-{FOLDER_TOKEN}.md", codes=(3,))
    walk.cli("status", "-C", ws, f"--bogus={FOLDER_TOKEN}", codes=(2,))
    walk.cli("migrate", "-C", ws, "--plan", str(tmp_path / f"{FOLDER_TOKEN}.toml"), codes=(3,))

    # every command the CLI has was walked: a new one must be added above
    walked = {label.split()[1] for label in walk.printed if label.startswith("bonsai-git ")}
    assert set(main.commands) <= walked, sorted(set(main.commands) - walked)
    assert walk.leaks() == {}
    assert {path: found for path, text in _generated(repo).items() if (found := _leaks(text))} == {}
    assert _leaks(_messages(repo)) == []
    ours = git(repo, "log", "--all", "--format=", "--name-only", "--grep=^Bonsai-", "--diff-filter=A").split("\n")
    assert _leaks("\n".join(p for p in ours if FOLDER_TOKEN not in p and FILE_TOKEN not in p)) == []


def test_a_merge_through_the_merge_driver_shows_none_of_the_values(make_repo: MakeRepo) -> None:
    import os

    repo = make_repo(_memory())
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    assert CliRunner().invoke(main, ["install-hook", "-C", str(repo), "--merge-driver"]).exit_code == 0
    (repo / ".gitattributes").write_text("MEMORY.md merge=bonsai\nmemory/**/_index*.md merge=bonsai\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "merge driver", "--no-verify")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    for branch, (kind, line) in (("side", SINGLE[0]), ("main", SINGLE[1])):
        git(repo, "checkout", "-q", *(["-b", "side"] if branch == "side" else ["main"]))
        leaf = repo / f"memory/domains/infrastructure/{branch}-{kind.replace(' ', '-')}.md"
        leaf.write_text(f"## {kind} on {branch} {line}\nWritten on {branch}.\n")
        git(repo, "add", str(leaf))  # reindex indexes tracked leaves
        assert CliRunner().invoke(main, ["reindex", "-C", str(repo)]).exit_code == 0
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"a leaf on {branch}", "--no-verify")
    merge = subprocess.run(["git", "merge", "--no-edit", "--no-verify", "side"], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert _leaks(merge.stdout + merge.stderr) == []
    # The driver regenerated every file both sides changed; git leaves a file one side alone changed as that
    # side wrote it (here MEMORY.md: only main's topic list changed), so a reindex after the merge settles it.
    check = CliRunner().invoke(main, ["reindex", "-C", str(repo), "--check"])
    assert check.exit_code == 0 or set(check.stdout.split()) <= {"stale", "MEMORY.md", "stale:", "would", "write"}, check.stdout
    assert CliRunner().invoke(main, ["reindex", "-C", str(repo)]).exit_code == 0
    assert {path: found for path, text in _generated(repo).items() if (found := _leaks(text))} == {}
    assert _leaks(_messages(repo)) == []


def test_status_names_a_token_folder_masked_in_its_table_and_advice(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\n## Services\nThe cron runner restarts nightly.\n\n## Notes\n" + "Words. " * 900)
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    leaf = repo / f"memory/domains/{FOLDER_TOKEN}/notes.md"
    leaf.parent.mkdir(parents=True)
    leaf.write_text("## Notes\n" + "Plain words about the deploy. " * 2000 + "\n")  # large: status advises on it
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "agent")
    for args in (["status", "-C", str(repo)], ["status", "-C", str(repo), "--json"], ["reflect", "-C", str(repo)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code in (0, 1), result.stderr
        assert "ghp_" + MASK in result.stdout + result.stderr or "ghp_" not in result.stdout, args
        assert _leaks(result.stdout + result.stderr) == [], args


# --- the rule itself --------------------------------------------------------------------------------------

def test_mask_output_keeps_object_ids_fingerprints_and_plain_text() -> None:
    for text in ("commit 3f2a9c1e7b6d5a4f3e2d1c0b9a8f7e6d5c4b3a29 done", "Bonsai-Source: MEMORY.md " + "ab12" * 10,
                 "memory/domains/infrastructure/cron-jobs.md:3: github token (sha256:9f86d081884c7d65)",
                 "note: the workspace is memory/ (2 leaves, ~1,200 tokens)", "密钥轮换.md", ""):
        assert mask_output(text) == text


def test_mask_output_masks_names_in_any_case() -> None:
    assert mask_output(f"memory/domains/{FILE_TOKEN}/x.md") == f"memory/domains/akia{MASK}/x.md"
    assert mask_output(f"- {FOLDER_TOKEN}  3 leaves") == f"- ghp_{MASK}  3 leaves"


SECRET_LINES = [line for _kind, line in SINGLE]


@given(st.text(max_size=30), st.sampled_from(SECRET_LINES), st.text(max_size=30))
def test_mask_output_keeps_json_valid_and_hides_the_value(before: str, line: str, after: str) -> None:
    heading = before + line + after
    dumped = json.dumps({"heading": heading, "path": f"memory/{heading}.md"}, ensure_ascii=False)
    masked = mask_output(dumped)
    loaded = json.loads(masked)  # still JSON: no span starts inside or ends on an escape
    assert set(loaded) == {"heading", "path"}
    assert mask_output(masked) == masked
    value = _value(line)
    assert value not in masked and value[-10:] not in masked


@given(st.text(max_size=30), st.sampled_from(SECRET_LINES), st.text(max_size=30))
def test_mask_output_keeps_toml_plan_strings_valid(before: str, line: str, after: str) -> None:
    import tomllib

    from bonsai_git.core.planfile import toml_string

    masked = mask_output(f"heading = {toml_string(before + line + after)}\n")
    assert set(tomllib.loads(masked)) == {"heading"}
