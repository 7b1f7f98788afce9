"""Correcting placements after a migration: multi-leaf `move` and `regroup [--all]`, on real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bonsai_git.core.config import Config
from bonsai_git.lifecycle import regroup_moves
from bonsai_git.core.layout import Leaf
from support import BONSAI, MakeRepo, bonsai, commit, git, snapshot

MEMORY = (
    "# Memory\n\n"
    "## Clients\n\nAcme pays net 30; Birch Cafe pays on delivery.\n\n"
    "## Client pricing\n\nMugs $18 wholesale, $32 retail.\n\n"
    "## Glaze tests\n\nCeladon crawls on the tall mugs.\n\n"
    "## Firing schedule\n\nBisque on Mondays, glaze firing on Thursdays.\n\n"
    "## Odds and ends\n\nThe blue tile cracked.\n"
)
GLAZE = "memory/domains/general/glaze-tests.md"
KILN = "memory/domains/general/firing-schedule.md"


def migrated(make_repo: MakeRepo) -> Path:
    repo = make_repo(MEMORY)
    result = bonsai("migrate", "-C", str(repo), "--force")
    assert result.exit_code == 0, result.output
    return repo


def memory_files(repo: Path) -> dict[str, bytes]:
    files = {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted((repo / "memory").rglob("*")) if p.is_file()}
    return files | {"MEMORY.md": (repo / "MEMORY.md").read_bytes()}


def test_move_takes_several_leaves_in_one_commit(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    glaze, kiln = (repo / GLAZE).read_bytes(), (repo / KILN).read_bytes()
    result = bonsai("move", "-C", str(repo), "glaze-tests", KILN, "glaze-tests.md", "studio", "--new-domain")
    assert result.exit_code == 0, result.output
    assert (repo / "memory/domains/studio/glaze-tests.md").read_bytes() == glaze
    assert (repo / "memory/domains/studio/firing-schedule.md").read_bytes() == kiln
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("bonsai: move 2 leaves to studio\n") and message.rstrip().endswith("Bonsai-Op: move")
    assert f"{GLAZE} -> memory/domains/studio/glaze-tests.md" in message
    assert git(repo, "status", "--porcelain") == "" and bonsai("reindex", "-C", str(repo), "--check").exit_code == 0
    assert git(repo, "rev-list", "--count", "HEAD") == "3\n"


def test_move_of_several_leaves_refuses_a_bad_one_and_writes_nothing(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    result = bonsai("move", "-C", str(repo), "glaze-tests", "no-such-leaf", "studio", "--new-domain")
    assert result.exit_code == 3 and "no-such-leaf: no such leaf" in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize(("domain", "hint"), [("peple", "did you mean 'people'? "), ("famiy", ""),
                                             ("sales", "")])
def test_move_to_an_unknown_domain_is_refused_as_a_typo_and_writes_nothing(make_repo: MakeRepo, domain: str,
                                                                           hint: str) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    result = bonsai("move", "-C", str(repo), "glaze-tests", domain)
    assert result.exit_code == 3
    assert result.stderr == (f"bonsai-git: {domain!r}: unknown domain; {hint}known: agents, business, community, "
                             "general, identity, infrastructure, legal, log, people, personal, projects; "
                             "pass --new-domain to create it\n")
    assert snapshot(repo) == before


def test_a_domain_made_with_new_domain_or_declared_in_bonsai_toml_is_known_after(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    assert bonsai("move", "-C", str(repo), "glaze-tests", "studio", "--new-domain").exit_code == 0
    result = bonsai("move", "-C", str(repo), "firing-schedule", "studio")  # the folder exists now
    assert result.exit_code == 0, result.stderr
    assert (repo / "memory/domains/studio/firing-schedule.md").is_file()
    (repo / ".bonsai.toml").write_text('[domains.shop]\nkeywords = ["mugs"]\nscope = "the shop"\n')
    commit(repo, "declare shop")
    result = bonsai("move", "-C", str(repo), "client-pricing", "shop")  # declared, no folder yet
    assert result.exit_code == 0, result.stderr
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(("domain", "message"), [
    ("ｐeople", "'ｐeople': not a domain name"),  # fullwidth: a folder that only looks like people
    ("Infrastructure", "'Infrastructure': not a domain name; use lowercase letters, digits and '-', not starting "
                       "with '-'; did you mean 'infrastructure'?"),
    ("dates", "'dates': not a domain name for a leaf: dates is the one file memory/dates.md, not a folder"),
    ("infrästructure", "'infrästructure': unknown domain; did you mean 'infrastructure'?"),
])
def test_move_refuses_lookalike_and_reserved_names_with_new_domain_too(make_repo: MakeRepo, domain: str,
                                                                         message: str) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    extra = () if domain == "infrästructure" else ("--new-domain",)
    result = bonsai("move", "-C", str(repo), "glaze-tests", domain, *extra)
    assert result.exit_code == 3 and message in result.stderr and len(result.stderr.splitlines()) == 1
    assert snapshot(repo) == before


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_move_refuses_a_file_in_the_new_domains_place_before_writing(make_repo: MakeRepo, dry_run: tuple[str, ...]) -> None:
    repo = migrated(make_repo)
    (repo / "memory/domains/studio").write_text("not a folder\n")
    commit(repo, "a file where the domain would go")
    before = snapshot(repo)
    result = bonsai("move", "-C", str(repo), "glaze-tests", "studio", "--new-domain", *dry_run)
    assert result.exit_code == 3
    assert result.stderr == ("bonsai-git: memory/domains/studio: not a folder (a file or a link is in the domain's "
                             "place); move or rename it first\n")
    assert snapshot(repo) == before


def test_regroup_dry_run_then_nothing_to_do_on_a_fresh_tree(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    before = snapshot(repo)
    result = bonsai("regroup", "-C", str(repo))
    assert (result.exit_code, result.stdout) == (0, "Nothing to regroup: the current rules place every candidate "
                                                     "leaf where it is.\n")
    assert snapshot(repo) == before


def test_regroup_after_a_config_change_then_git_revert(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / ".bonsai.toml").write_text('[domains.studio]\nkeywords = ["glaze", "firing"]\nscope = "the pottery studio"\n')
    commit(repo, "config: a studio domain", ".bonsai.toml")
    before, head = memory_files(repo), git(repo, "rev-parse", "HEAD")
    dry = bonsai("regroup", "-C", str(repo), "--dry-run")
    assert dry.exit_code == 0 and f"  {GLAZE} -> memory/domains/studio/glaze-tests.md" in dry.stdout.splitlines()
    assert memory_files(repo) == before and git(repo, "rev-parse", "HEAD") == head
    proc = subprocess.run([BONSAI, "regroup", "-C", str(repo)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("bonsai: regroup 2 leaves (general/, current rules)\n")
    assert f"{KILN} -> memory/domains/studio/firing-schedule.md (config: Firing)" in message
    assert message.rstrip().endswith("Bonsai-Op: regroup")
    assert (repo / "memory/domains/studio/glaze-tests.md").read_bytes() == before[GLAZE]  # bytes untouched
    assert (repo / "memory/domains/general/odds-and-ends.md").is_file()  # nothing places it elsewhere
    assert "business" not in message  # only general/ leaves move by default
    assert bonsai("reindex", "-C", str(repo), "--check").exit_code == 0 and git(repo, "status", "--porcelain") == ""
    git(repo, "revert", "--no-edit", "HEAD")
    assert memory_files(repo) == before
    assert bonsai("reindex", "-C", str(repo), "--check").exit_code == 0


def test_regroup_all_resorts_every_leaf_except_those_a_move_placed(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    assert bonsai("move", "-C", str(repo), "clients", "people").exit_code == 0  # the user's own choice
    (repo / ".bonsai.toml").write_text('[domains]\nwholesale = ["client pricing"]\n')
    commit(repo, "config", ".bonsai.toml")
    assert bonsai("regroup", "-C", str(repo)).stdout.startswith("Nothing to regroup")  # general/ has no client leaf
    result = bonsai("regroup", "-C", str(repo), "--all")
    assert result.exit_code == 0, result.output
    assert (repo / "memory/domains/wholesale/client-pricing.md").is_file()
    assert (repo / "memory/domains/people/clients.md").is_file()  # placed by `move`: stays
    assert "Bonsai-Op: regroup" in git(repo, "log", "-1", "--format=%B")


def test_regroup_refuses_uncommitted_memory_changes(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    (repo / KILN).write_text("## Firing schedule\n\nchanged\n")
    before = snapshot(repo)
    result = bonsai("regroup", "-C", str(repo))
    assert result.exit_code == 3 and f"{KILN}: has uncommitted changes" in result.stderr
    assert snapshot(repo) == before


def test_regroup_moves_renames_a_taken_name_and_skips_single_file_domains() -> None:
    leaves = (
        Leaf("general", "servers.md", "## Servers\n\nnas, pi\n"),
        Leaf("infrastructure", "Servers.md", "## Servers\n\nold\n"),
        Leaf("general", "birthdays.md", "## Birthdays\n\n- Sam: May 3\n"),
        Leaf("business", "pricing.md", "## Pricing\n\n$18\n"),
    )
    moves = regroup_moves(leaves, Config())
    assert {old: new for old, (new, _) in moves.items()} == {
        "memory/domains/general/servers.md": "memory/domains/infrastructure/servers-2.md"}
    assert regroup_moves(leaves, Config(), all_leaves=True, keep=["memory/domains/general/servers.md"]) == {}


def test_regroup_needs_a_leafs_own_words_not_only_the_dominant_domain() -> None:
    leaves = tuple(Leaf("people", f"p{i}.md", f"## Person: P{i}\n\nfriend\n") for i in range(4))
    leaves += (Leaf("general", "ana-ruiz.md", "## Ana Ruiz\n\nmet at the fair\n"),)
    assert regroup_moves(leaves, Config()) == {}


def test_move_prints_the_bonsai_toml_line_that_would_have_placed_the_leaf(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    result = bonsai("move", "-C", str(repo), "glaze-tests", "business")
    assert result.exit_code == 0, result.output
    line = 'domains.business.extend = ["glaze"]'
    assert f"note: to place glaze-tests.md in business next time, add to .bonsai.toml: {line}\n" in result.stderr
    assert not (repo / ".bonsai.toml").exists()  # never edited silently
    (repo / ".bonsai.toml").write_text(line + "\n")  # adopted: the rules now agree, nothing more to teach
    commit(repo, "config: glaze is business", ".bonsai.toml")
    back = bonsai("move", "-C", str(repo), "memory/domains/business/glaze-tests.md", "general")
    assert back.exit_code == 0 and "add to .bonsai.toml" not in back.output
    again = bonsai("move", "-C", str(repo), "memory/domains/general/glaze-tests.md", "business")
    assert again.exit_code == 0 and "add to .bonsai.toml" not in again.output


def test_a_placement_chosen_in_an_edited_plan_is_kept_by_regroup_all(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(MEMORY)
    plan = tmp_path / "plan.toml"
    assert bonsai("migrate", "-C", str(repo), "--force", "--dry-run", "--plan-out", str(plan)).exit_code == 0
    text = plan.read_text(encoding="utf-8")
    start = text.index('heading = "Clients"\n')
    entry = text[start:text.index("[[section]]", start)]
    plan.write_text(text[:start] + entry.replace('domain = "business"', 'domain = "people"') +
                    text[start + len(entry):], encoding="utf-8")
    result = bonsai("migrate", "-C", str(repo), "--force", "--plan", str(plan))
    assert result.exit_code == 0, result.output
    assert ("You placed 'Clients' in memory/domains/people/clients.md (the rules put it elsewhere); to teach the "
            'rules, add to .bonsai.toml: domains.people.extend = ["clients"]') in result.stdout
    message = git(repo, "log", "-1", "--format=%B")
    assert "Bonsai-Chosen: memory/domains/people/clients.md" in message.splitlines()
    leaf = Leaf("people", "clients.md", (repo / "memory/domains/people/clients.md").read_text(encoding="utf-8"))
    assert "memory/domains/people/clients.md" in regroup_moves((leaf,), Config(), all_leaves=True)  # the rules differ
    before = snapshot(repo)
    regroup = bonsai("regroup", "-C", str(repo), "--all", "--dry-run")
    assert regroup.exit_code == 0 and "clients.md" not in regroup.stdout  # the choice stays, as a move would
    assert snapshot(repo) == before
