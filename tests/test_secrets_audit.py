"""`bonsai-git secrets-audit`: the secret-looking values the history of memory holds (issue 25).

Real repositories with real commits; the command through CliRunner and as a process.  It lists
commit, path, line, kind and fingerprint, never the value; names the two fix steps (rotate, then
`git filter-repo`) without running anything; exits 1 when it finds any.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.audit import file_changes
from bonsai_git.cli import main
from bonsai_git.core.secretscan import ALLOW_MARKER, fingerprint
from secret_cases import POSITIVES
from support import git, put

MakeRepo = Callable[..., Path]
GITHUB = next(line for kind, line in POSITIVES if kind == "github token")
STRIPE = next(line for kind, line in POSITIVES if kind == "stripe key")
AZURE = next(line for kind, line in POSITIVES if kind == "azure storage key")
ROW = r"[0-9a-f]{12} (.+):(\d+): (.+) \((sha256:[0-9a-f]{16})\)"


def audit(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["secrets-audit", "-C", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def rows(out: str) -> list[tuple[str, int, str]]:
    import re

    found = []
    for line in out.splitlines():
        m = re.fullmatch(ROW, line)
        assert m is not None, line
        found.append((m.group(1), int(m.group(2)), m.group(3)))
    return found


def _refs(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(refname) %(objectname)")


def test_it_lists_each_commit_path_and_kind_never_the_value(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\n## Notes\nPlain words.\n")
    put(repo, {"MEMORY.md": f"# Memory\n\n## Notes\nPlain words.\n{GITHUB}\n"}, "a key in the trunk")
    put(repo, {"memory/domains/infrastructure/azure.md": f"## Azure\n{AZURE}\n"}, "a leaf")
    put(repo, {"team/MEMORY.md": "# Team\n", "team/memory/2026-03-01.md": f"daily {STRIPE}\n"}, "a workspace deeper down")
    put(repo, {"docs/notes.md": f"{GITHUB}x\n"}, "not memory: not read")
    before = _refs(repo)
    code, out, err = audit(repo)
    assert code == 1, err
    assert sorted(rows(out)) == [("MEMORY.md", 5, "github token"),
                                 ("memory/domains/infrastructure/azure.md", 2, "azure storage key"),
                                 ("team/memory/2026-03-01.md", 1, "stripe key")]
    assert f"({fingerprint(GITHUB)})" in out
    for value in (GITHUB, STRIPE[8:], AZURE.split("AccountKey=")[1][:40]):
        assert value not in out + err
    assert "1. Rotate each key first" in err and "2. Then rewrite history with git filter-repo" in err
    assert "git filter-repo --replace-text" in err
    assert _refs(repo) == before and git(repo, "status", "--porcelain") == ""  # named, never run


def test_a_key_is_listed_where_it_came_in_not_at_every_later_edit(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {"MEMORY.md": f"# Memory\n\nNotes.\n{GITHUB}\n"}, "key")
    put(repo, {"MEMORY.md": f"# Memory\n\nNotes, edited.\nmoved: {GITHUB}\n"}, "edit the line holding it")
    put(repo, {"memory/a.md": f"## A\n{GITHUB}\n"}, "a copy in another file")
    code, out, _err = audit(repo)
    commits = [line.split()[0] for line in out.splitlines()]
    assert code == 1 and len(commits) == 2 and len(set(commits)) == 2, out
    assert sorted(r[0] for r in rows(out)) == ["MEMORY.md", "memory/a.md"]


def test_a_migration_moving_a_key_into_a_leaf_does_not_list_it_again(make_repo: MakeRepo) -> None:
    memory = f"# Memory\n\n## Keys\n{GITHUB}\n\n## Notes\n" + "Plain words about the roadmap. " * 300 + "\n"
    repo = make_repo(memory)
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    code, out, _err = audit(repo)
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    assert code == 1 and [line.split()[0] for line in out.splitlines()] == [first[:12]]
    assert rows(out) == [("MEMORY.md", 4, "github token")]


def test_a_key_since_deleted_and_a_key_on_another_branch_are_found(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {"memory/old.md": f"## Old\n{STRIPE}\n"}, "key")
    git(repo, "rm", "-q", "memory/old.md")
    git(repo, "commit", "-qm", "removed again: history still holds it")
    git(repo, "checkout", "-q", "-b", "side")
    put(repo, {"memory/side.md": f"## Side\n{GITHUB}\n"}, "on a branch")
    git(repo, "checkout", "-q", "main")
    code, out, _err = audit(repo)
    assert code == 1 and sorted(rows(out)) == [("memory/old.md", 2, "stripe key"), ("memory/side.md", 2, "github token")]


def test_allowed_values_are_not_listed(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {"memory/a.md": f"## A\n{GITHUB}\n{STRIPE} {ALLOW_MARKER}\n"}, "keys")
    put(repo, {".bonsai.toml": f'[secrets]\nallow = ["{fingerprint(GITHUB)}"]\n'})  # in the work tree: read as is
    code, out, _err = audit(repo)
    assert (code, out.splitlines()[0]) == (0, "No secret-looking values in the history of MEMORY.md and memory/ "
                                              "(2 commits read).")


def test_a_file_whose_name_holds_a_newline_is_listed_on_one_line(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {'memory/notes\nfrom "the" agent.md': f"## N\n{GITHUB}\n"}, "odd name")
    code, out, _err = audit(repo)
    assert code == 1 and rows(out) == [('memory/notes\\nfrom "the" agent.md', 2, "github token")]
    data = json.loads(audit(repo, "--json")[1])
    assert [f["path"] for f in data["findings"]] == ['memory/notes\nfrom "the" agent.md']


def test_json_lists_the_findings_and_the_fix(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {"memory/a.md": f"## A\n{GITHUB}\n"}, "key")
    code, out, _err = audit(repo, "--json")
    data = json.loads(out)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert code == 1 and data["schema_version"] == 1 and data["commits_read"] == 2
    assert data["findings"] == [{"commit": head, "path": "memory/a.md", "line": 2, "kind": "github token",
                                 "fingerprint": fingerprint(GITHUB)}]
    assert len(data["fix"]) == 2 and "filter-repo" in data["fix"][1] and GITHUB not in out


def test_a_clean_history_and_an_empty_repository_exit_0(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo("# Memory\n\nNo keys here; the token lives in the vault.\n")
    assert audit(repo)[:2] == (0, "No secret-looking values in the history of MEMORY.md and memory/ "
                                  "(1 commits read).\n")
    empty = make_repo("# Memory\n", commit=False)
    assert audit(empty)[0] == 0


def test_outside_a_repository_it_refuses(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    code, out, err = audit(tmp_path)
    assert code == 3 and out == "" and err.count("\n") == 1


def test_the_console_script_exits_1_on_findings(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    put(repo, {"memory/a.md": f"## A\n{GITHUB}\n"}, "key")
    proc = subprocess.run([str(Path(sys.executable).with_name("bonsai-git")), "secrets-audit"], cwd=repo,
                          capture_output=True, text=True)
    assert proc.returncode == 1 and len(proc.stdout.splitlines()) == 1 and GITHUB not in proc.stdout + proc.stderr


@pytest.mark.parametrize(("lines", "expected"), [
    ([b"\0" + b"a" * 40, b"", b"diff --git a/m.md b/m.md", b"--- a/m.md", b"+++ b/m.md", b"@@ -1 +1,2 @@", b"-old",
      b"++++ b/x.md", b"+new"],
     [("a" * 40, None, [], []), ("a" * 40, "m.md", [b"old"], [(1, b"+++ b/x.md"), (2, b"new")])]),
    ([b"\0" + b"b" * 40, b"diff --git a/x b/x", b"deleted file mode 100644", b"--- a/x", b"+++ /dev/null",
      b"@@ -1 +0,0 @@", b"-gone"],
     [("b" * 40, None, [], [])]),
    ([b"\0" + b"c" * 40, b'diff --git "a/a\\nb" "b/a\\nb"', b"--- /dev/null", b'+++ "b/a\\nb\\303\\251 x"\t',
      b"@@ -0,0 +3 @@", b"+x", b"\\ No newline at end of file"],
     [("c" * 40, None, [], []), ("c" * 40, "a\nbé x", [], [(3, b"x")])]),
])
def test_file_changes_reads_hunks_by_their_counts(lines: list[bytes],
                                                 expected: list[tuple[str, str | None, list[bytes], list[object]]]) -> None:
    assert list(file_changes(lines)) == expected
