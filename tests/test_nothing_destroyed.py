"""Issue 21 (items 3, 4, 5, 7, 8, 9, 10): no command destroys what it was not asked to touch.

Each refusal is one line on stderr naming the file, a non-zero exit, and an untouched tree
(`snapshot`: HEAD, index, status, every file's bytes).  Everything runs on real git: a real
submodule, a real sparse checkout, a real FIFO, the real hook as a process and, for the hook
paths, the real pre-commit framework (test_hook_precommit.py's session fixture).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from living_tree import LIVING, PRICING, MakeRepo, migrated, run, write
from support import bonsai, bonsai_untouched, git, put, snapshot

HOOK = ["bonsai-git-hook"]


def hook_process(repo: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The installed hook as a real process (a hang fails the test instead of blocking it)."""
    return subprocess.run([*HOOK, *args], cwd=repo, env=_env(), capture_output=True, text=True, timeout=timeout)


def _env() -> dict[str, str]:
    from living_tree import env

    return env()


def assert_one_line_refusal(stderr: str, *needles: str) -> None:
    lines = stderr.strip().splitlines()
    refusal = [line for line in lines if not line.startswith(("bonsai-git: warning:", "warning:", "note:"))]
    assert len(refusal) == 1, stderr
    for needle in needles:
        assert needle in refusal[0], stderr


# --- §3: --plan-out never writes over a file ------------------------------------------------------

@pytest.mark.parametrize("target", ["MEMORY.md", "AGENTS.md", "notes.toml"])
def test_plan_out_refuses_memory_md_a_tracked_file_and_an_existing_one(make_repo: MakeRepo, target: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo = put(make_repo(LIVING * 3), {"AGENTS.md": "# Agents\n"}, "agents")
    (repo / "notes.toml").write_text("mine = 1\n")  # untracked, but existing
    monkeypatch.chdir(repo)  # the path as typed (a temporary folder's random name may be shown masked)
    result = bonsai_untouched(repo, "migrate", "--dry-run", "--plan-out", target)
    assert result.exit_code == 3, result.stderr
    assert_one_line_refusal(result.stderr, target)


@pytest.mark.parametrize("target", ["MEMORY.md", "AGENTS.md"])
def test_plan_out_refuses_memory_md_and_tracked_files_even_with_force(make_repo: MakeRepo, target: str) -> None:
    repo = put(make_repo(LIVING * 3), {"AGENTS.md": "# Agents\n"}, "agents")
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out",
                              str(repo / target))
    assert result.exit_code == 3 and "never writes over" in result.stderr, result.stderr


def test_plan_out_refuses_a_link_to_memory_md_and_replaces_an_untracked_file_only_with_force(
        make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING * 3)
    (repo / "plan-link.toml").symlink_to(repo / "MEMORY.md")
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out",
                              str(repo / "plan-link.toml"))
    assert result.exit_code == 3 and "is MEMORY.md" in result.stderr
    (repo / "plan.toml").write_text("old\n")
    ok = bonsai("migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out", str(repo / "plan.toml"))
    assert ok.exit_code == 0, ok.stderr
    assert (repo / "plan.toml").read_text().startswith("# bonsai-git migration plan")
    assert git(repo, "status", "--porcelain") == "?? plan-link.toml\n?? plan.toml\n"


# --- §3: only generated files are deleted as stale ---------------------------------------------------

def test_reindex_and_hook_keep_a_note_named_like_an_index_and_warn(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    note = "memory/domains/business/_index.suppliers.md"
    write(repo, note, "# Suppliers\n\nClay from Highwater Clays.\n")
    for args in (["bonsai-git", "reindex"], HOOK):
        proc = run(args, repo)
        assert proc.returncode == 0, proc.stderr
        assert (repo / note).read_text() == "# Suppliers\n\nClay from Highwater Clays.\n"
        assert f"{note}: named like a generated index but not written by bonsai-git, so kept" in proc.stderr
    assert git(repo, "status", "--porcelain") == f"?? {note}\n"


def test_a_stale_generated_sub_branch_index_is_still_deleted(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    stale = "memory/domains/business/_index.old.md"
    write(repo, stale, "# Business › Old Index\n_~40 tokens in 2 leaves; read the sub-branch that fits_\n")
    proc = run(["bonsai-git", "reindex"], repo)
    assert proc.returncode == 0 and not (repo / stale).exists(), proc.stderr


def test_every_index_the_renderer_writes_is_recognised_as_generated(make_repo: MakeRepo) -> None:
    from bonsai_git.core.branches import is_generated_index

    big = "# M\n\n" + "".join(f"## Client {n}\n\nInvoice for client {n}, business customer in city {n % 7}.\n\n"
                              for n in range(400))
    repo = migrated(make_repo, big)
    indexes = list((repo / "memory" / "domains").rglob("_index*.md"))
    assert len(indexes) > 3  # sub-branches too
    for path in indexes:
        assert is_generated_index(path.read_bytes()), path


# --- §7: one line ------------------------------------------------------------------------------------

@pytest.mark.parametrize("brk", ["\r", "\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"])
def test_a_scope_with_any_line_break_is_refused_in_bonsai_toml_and_in_a_plan(make_repo: MakeRepo, brk: str) -> None:
    escaped = brk.encode("unicode_escape").decode().replace("\\x", "\\u00")
    repo = put(make_repo(LIVING * 3), {".bonsai.toml": f'[domains.research]\nscope = "papers{escaped}<!-- bonsai:end -->"\n'},
               "settings")
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--force")
    assert result.exit_code == 3 and ".bonsai.toml: domains.research.scope must be a one-line string" in result.stderr
    (repo / ".bonsai.toml").unlink()
    git(repo, "commit", "-qam", "no settings")
    assert bonsai("migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out", str(repo.parent / "p.toml")).exit_code == 0
    plan = (repo.parent / "p.toml").read_text()
    (repo.parent / "p.toml").write_text(plan.replace("\n[domains]\n", f'\n[domains]\nlab = "a{escaped}b"\n', 1))
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--force", "--plan", str(repo.parent / "p.toml"))
    assert result.exit_code == 3 and "domains.lab must be a one-line scope string" in result.stderr


# --- §4: a plan that would make a name ambiguous ------------------------------------------------------

def test_a_plan_giving_one_leaf_name_to_two_folders_of_a_domain_is_refused(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING * 3)
    plan = repo.parent / "p.toml"
    assert bonsai("migrate", "-C", str(repo), "--dry-run", "--force", "--plan-out", str(plan)).exit_code == 0
    text = plan.read_text()
    text = text.replace('leaf = "pricing"', 'leaf = "a/pricing"', 1).replace('leaf = "business-overview"',
                                                                             'leaf = "b/pricing"', 1)
    plan.write_text(text)
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--force", "--plan", str(plan))
    assert result.exit_code == 3
    assert "leaf name 'pricing' is already used in business by entry" in result.stderr


# --- §5: regular files of bounded size, everywhere ---------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "huge"])
def test_an_unreadable_bonsai_toml_is_refused_by_every_entry_point_without_hanging(make_repo: MakeRepo,
                                                                                 kind: str) -> None:
    repo = migrated(make_repo)
    settings = repo / ".bonsai.toml"
    if kind == "fifo":
        os.mkfifo(settings)
    elif kind == "dev-zero":
        settings.symlink_to("/dev/zero")
    else:
        settings.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")  # something to do
    git(repo, "add", PRICING)
    before = snapshot(repo) if kind == "huge" else None
    for args in (HOOK, [*HOOK, "--check"], ["bonsai-git", "reindex"], ["bonsai-git", "status"],
                 ["bonsai-git", "absorb"]):
        proc = subprocess.run(args, cwd=repo, env=_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 3, (args, proc.stderr)
        assert ".bonsai.toml: " in proc.stderr and ("not a regular file" in proc.stderr or "larger than" in proc.stderr)
    if before is not None:
        assert snapshot(repo) == before
    # and a commit through the plain git hook stops, naming the file, instead of blocking
    assert bonsai("install-hook", "-C", str(repo)).exit_code == 0
    proc = subprocess.run(["git", "commit", "-qm", "x"], cwd=repo, env=_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and ".bonsai.toml" in proc.stderr


def test_a_plan_file_that_is_a_fifo_is_refused_without_hanging(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING * 3)
    os.mkfifo(repo.parent / "plan.toml")
    proc = subprocess.run(["bonsai-git", "migrate", "--force", "--plan", str(repo.parent / "plan.toml")], cwd=repo,
                          env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and "plan.toml: is not a regular file" in proc.stderr


# --- §9: new memory glued to the end marker -----------------------------------------------------------

def test_a_section_glued_to_the_end_marker_is_absorbed_by_absorb_and_the_hook(make_repo: MakeRepo) -> None:
    for args in (["bonsai-git", "absorb"], HOOK):
        repo = migrated(make_repo)
        trunk = (repo / "MEMORY.md").read_bytes()
        assert trunk.endswith(b"<!-- bonsai:end -->\n")
        (repo / "MEMORY.md").write_bytes(trunk[:-1] + b"## Dentist\n\nDr Lee, Tuesdays at 9.\n")
        proc = run(args, repo)
        assert proc.returncode in (0, 1), proc.stderr
        leaf = next((repo / "memory" / "domains").rglob("dentist.md"))
        assert leaf.read_bytes() == b"## Dentist\n\nDr Lee, Tuesdays at 9.\n"
        # the text around the block is the user's, byte for byte; the block may name the new topic (issue 24)
        after = (repo / "MEMORY.md").read_bytes()
        assert after[: after.index(b"<!-- bonsai:begin")] == trunk[: trunk.index(b"<!-- bonsai:begin")]
        assert after.endswith(b"<!-- bonsai:end -->\n") and b"## Dentist" not in after


def test_no_message_advises_a_command_that_discards_memory_md() -> None:
    import re

    package = Path(__file__).parent.parent / "bonsai_git"
    text = "\n".join(p.read_text() for p in package.rglob("*.py"))
    for advice in (r"checkout\s+(?:-f\s+)?--\s", r"git restore\b(?!.*--staged)", r"git reset --hard",
                   r"git stash drop", r"git clean -"):
        hits = [m.group() for m in re.finditer(r"f?\"[^\"\n]*" + advice + r"[^\"\n]*\"", text)]
        assert not hits, hits


# --- §3, §5: submodules, nested repositories and nested workspaces are someone else's ------------------

def _with_submodule(make_repo: MakeRepo, where: str = "memory/domains/agents/helper") -> tuple[Path, Path]:
    inner = put(make_repo(None, name="helper-src"), {"notes.md": "## Helper notes\n\nkeep me\n",
                                                     "deep/more.md": "## More\n\nme too\n"}, "helper")
    repo = migrated(make_repo)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), where)
    git(repo, "commit", "-qm", "the helper agent as a submodule")
    return repo, repo / where


def test_flatten_leaves_a_submodule_under_memory_alone(make_repo: MakeRepo) -> None:
    repo, sub = _with_submodule(make_repo)
    files = {p.relative_to(sub).as_posix(): p.read_bytes() for p in sub.rglob("*.md")}
    result = bonsai("flatten", "-C", str(repo))
    assert result.exit_code == 0, result.stderr
    assert {p.relative_to(sub).as_posix(): p.read_bytes() for p in sub.rglob("*.md")} == files
    assert git(sub, "status", "--porcelain") == ""
    assert b"keep me" not in (repo / "MEMORY.md").read_bytes()


def test_reindex_and_status_do_not_index_a_nested_repository(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    nested = repo / "memory" / "domains" / "agents" / "scratch"
    nested.mkdir(parents=True)
    git(nested, "init", "-q", "-b", "main")
    write(nested, "idea.md", "## Idea\n\nnot the outer agent's\n")
    proc = run(["bonsai-git", "reindex"], repo)
    assert proc.returncode == 0, proc.stderr
    assert not (repo / "memory" / "domains" / "agents" / "_index.md").exists()
    assert "idea" not in (repo / "memory" / "_index.md").read_text()


def _nested_workspace(make_repo: MakeRepo) -> tuple[Path, str]:
    """An outer migrated workspace whose memory tree holds a helper agent's own migrated workspace."""
    from bonsai_git.transaction import migrate

    repo = migrated(make_repo)
    prefix = "memory/domains/agents/helper"
    helper = repo / prefix
    helper.mkdir(parents=True)
    (helper / "MEMORY.md").write_text(LIVING.replace("Acme Pottery", "Helper Pottery"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "helper agent")
    migrate(helper, force=True)  # the helper's own migration commit, in the same repository
    return repo, prefix


def test_hook_and_reindex_leave_a_nested_workspace_to_itself(make_repo: MakeRepo) -> None:
    repo, prefix = _nested_workspace(make_repo)
    before = snapshot(repo)
    for args in (HOOK, HOOK, ["bonsai-git", "reindex"], ["bonsai-git", "reindex", "-C", prefix], HOOK):
        proc = run(args, repo)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    assert snapshot(repo) == before
    assert "helper" not in (repo / "memory" / "_index.md").read_text()
    status = run(["bonsai-git", "status", "--json"], repo, {"BONSAI_GIT_NO_CACHE": "1"})  # no memo: rendered
    assert status.returncode == 0 and "helper" not in status.stdout, status.stdout + status.stderr
    # an edit inside the helper's tree is the helper's: only its indexes change
    write(repo, f"{prefix}/{PRICING}", "## Pricing\n\nHelper mugs $9.\n")
    git(repo, "add", "-A")
    proc = run(HOOK, repo)
    assert proc.returncode == 1, proc.stderr
    changed = {line[3:] for line in git(repo, "status", "--porcelain").splitlines()}
    assert changed and all(p.startswith(prefix + "/") for p in changed), changed
    git(repo, "add", "-A")
    assert run(HOOK, repo).returncode == 0


# --- §8: what the hook accepts, flatten and migrate read back ----------------------------------------

@pytest.mark.parametrize("bad", [b"port 8080\x00 and more\n", b"caf\xe9 au lait\n"], ids=["nul", "latin-1"])
def test_the_hook_refuses_a_leaf_migrate_could_not_read_back_naming_it(make_repo: MakeRepo, bad: bytes) -> None:
    repo = migrated(make_repo)
    (repo / PRICING).write_bytes(b"## Pricing\n\n" + bad)
    git(repo, "add", "-A")
    before = snapshot(repo)
    assert bonsai("install-hook", "-C", str(repo)).exit_code == 0
    proc = subprocess.run(["git", "commit", "-qm", "binary leaf"], cwd=repo, env=_env(), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0
    assert f"bonsai-git: {PRICING}: " in proc.stderr and ("NUL byte" in proc.stderr or "UTF-8" in proc.stderr)
    assert snapshot(repo) == before
    for args in (["bonsai-git", "reindex"], ["bonsai-git", "flatten"]):
        refused = run(args, repo)
        assert refused.returncode == 3 and PRICING in refused.stderr, refused.stderr


def test_the_hook_refuses_a_nul_in_memory_md(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    with (repo / "MEMORY.md").open("ab") as fh:
        fh.write(b"\n## Raw\n\nbytes\x00here\n")
    before = snapshot(repo)
    proc = run(HOOK, repo)
    assert proc.returncode == 3 and "MEMORY.md: holds a NUL byte" in proc.stderr
    assert snapshot(repo) == before


# --- §10: a .gitignore rule hiding a domain folder ---------------------------------------------------

TEMPLATE_IGNORE = "# build output\nlog/\ntmp/\nbuild/\n"
LOG = "\n## Daily log 2026-03-02\n\nShipped the new kiln program.\n"


@pytest.mark.parametrize("args", [["bonsai-git", "absorb"], HOOK, [*HOOK, "--check"]], ids=["absorb", "hook", "check"])
def test_absorb_into_an_ignored_domain_folder_is_refused_naming_the_rule(make_repo: MakeRepo, args: list[str]) -> None:
    repo = put(migrated(make_repo), {".gitignore": TEMPLATE_IGNORE}, "template ignore")
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write(LOG)
    before = snapshot(repo)
    proc = run(args, repo)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert_one_line_refusal(proc.stderr, "memory/domains/log/", "ignored by .gitignore:2 (`log/`)", "`!memory/**`")
    assert snapshot(repo) == before


def test_the_advised_negation_lets_the_same_absorb_through(make_repo: MakeRepo) -> None:
    repo = put(migrated(make_repo), {".gitignore": TEMPLATE_IGNORE + "!memory/**\n"}, "template ignore, fixed")
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write(LOG)
    proc = run(["bonsai-git", "absorb"], repo)
    assert proc.returncode == 0, proc.stderr
    git(repo, "add", "-A")
    assert "memory/domains/log/daily-log-2026-03-02.md" in git(repo, "diff", "--cached", "--name-only")


def test_migrate_refuses_a_tree_a_rule_would_hide(make_repo: MakeRepo) -> None:
    repo = put(make_repo(LIVING * 2 + LOG), {".gitignore": TEMPLATE_IGNORE}, "template ignore")
    result = bonsai_untouched(repo, "migrate", "-C", str(repo), "--force")
    assert result.exit_code == 3
    assert_one_line_refusal(result.stderr, "memory/domains/log/", "ignored by .gitignore:2 (`log/`)", "!memory/**")


def test_a_commit_through_the_plain_git_hook_stops_before_memory_goes_into_an_ignored_file(
        make_repo: MakeRepo) -> None:
    repo = put(migrated(make_repo), {".gitignore": TEMPLATE_IGNORE}, "template ignore")
    assert bonsai("install-hook", "-C", str(repo)).exit_code == 0
    with (repo / "MEMORY.md").open("a") as fh:
        fh.write(LOG)
    git(repo, "add", "MEMORY.md")
    head = git(repo, "rev-parse", "HEAD")
    proc = subprocess.run(["git", "commit", "-qm", "log"], cwd=repo, env=_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and "!memory/**" in proc.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    assert not (repo / "memory" / "domains" / "log").exists()


# --- §4: half-visible trees ---------------------------------------------------------------------------

def _sparse(make_repo: MakeRepo) -> Path:
    """A migrated workspace in a real (cone-mode) sparse checkout that leaves out the identity domain."""
    repo = migrated(make_repo)
    git(repo, "sparse-checkout", "set", "memory/domains/business", "memory/domains/infrastructure",
        "memory/domains/personal")
    assert not (repo / "memory/domains/identity").exists()
    return repo


@pytest.mark.parametrize("args", [HOOK, [*HOOK, "--check"], ["bonsai-git", "reindex"], ["bonsai-git", "reindex", "--check"],
                                  ["bonsai-git", "absorb"]], ids=lambda a: " ".join(a))
def test_a_sparse_checkout_leaving_out_a_domain_is_refused_not_rewritten(make_repo: MakeRepo, args: list[str]) -> None:
    repo = _sparse(make_repo)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")  # something that would be rewritten
    git(repo, "add", PRICING)
    before = snapshot(repo)
    proc = run(args, repo)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert_one_line_refusal(proc.stderr, "memory/domains/identity/", "outside the sparse checkout",
                            "git sparse-checkout add memory/domains/identity")
    assert snapshot(repo) == before
    assert "identity" in (repo / "MEMORY.md").read_text()


def test_a_sparse_checkout_holding_the_whole_tree_is_indexed_as_usual(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    put(repo, {"docs/big.txt": "x\n"}, "docs")
    git(repo, "sparse-checkout", "set", "memory")
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $20 from April.\n")
    git(repo, "add", PRICING)
    proc = run(HOOK, repo)
    assert proc.returncode == 1 and "wrote memory/domains/business/_index.md" in proc.stdout, proc.stderr


@pytest.mark.parametrize("args", [HOOK, ["bonsai-git", "reindex"]], ids=["hook", "reindex"])
def test_a_leaf_in_a_one_file_domains_folder_is_refused_where_it_arrives(make_repo: MakeRepo, args: list[str]) -> None:
    repo = migrated(make_repo)
    assert run(HOOK, repo).returncode == 0  # the incremental snapshot is in place: the fast path must refuse too
    write(repo, "memory/domains/dates/dentist.md", "## Dentist\n\nMarch 3, 9:00.\n")
    git(repo, "add", "-A")
    before = snapshot(repo)
    proc = run(args, repo)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert_one_line_refusal(proc.stderr, "memory/domains/dates/dentist.md: a leaf in a folder of dates, a one-file "
                                         "domain (memory/dates.md)")
    assert snapshot(repo) == before


# --- §3: a migration staged in part --------------------------------------------------------------------

def test_committing_part_of_a_fresh_migration_is_refused_with_the_command_that_stages_all(
        make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    assert bonsai("migrate", "-C", str(repo), "--force", "--no-commit").exit_code == 0
    assert bonsai("install-hook", "-C", str(repo)).exit_code == 0
    git(repo, "add", "MEMORY.md")  # the agent stages the trunk only
    before = snapshot(repo)
    proc = subprocess.run(["git", "commit", "-qm", "part"], cwd=repo, env=_env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0
    assert "a migration staged in part?); stage all of it: git add -A -- MEMORY.md memory" in proc.stderr, proc.stderr
    assert snapshot(repo) == before
    for args in (["bonsai-git", "reindex"], ["bonsai-git", "absorb"]):
        refused = run(args, repo)
        assert refused.returncode == 3 and "stage all of it" in refused.stderr
    assert snapshot(repo) == before
    git(repo, "add", "-A", "--", "MEMORY.md", "memory")  # the advised command
    done = subprocess.run(["git", "commit", "-qm", "all"], cwd=repo, env=_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert git(repo, "status", "--porcelain") == ""
