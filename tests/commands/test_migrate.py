"""`bonsai-git migrate` through the CLI: what it prints (text and --json).  The migration's guarantees are
tested in tests/test_transaction.py, test_safety.py, test_corpus.py and the others named after them."""

from __future__ import annotations

import json

from support import MakeRepo, bonsai, git


def test_migrate_reports_a_moved_preamble_on_its_own_line_with_the_config_line_that_keeps_it(make_repo: MakeRepo) -> None:
    preamble = "# Memory\n\n" + "Standing rule: the newer dated source wins over older notes. " * 12 + "\n\n"  # > 150
    repo = make_repo(preamble + "## Pricing\n\nMugs $18.\n")
    dry = bonsai("migrate", "-C", str(repo), "--force", "--dry-run", catch_exceptions=False)
    line = next(ln for ln in dry.stdout.splitlines() if ln.startswith("The preamble"))
    tokens = int(line.split("~", 1)[1].split(" ", 1)[0])
    assert line == (f"The preamble (text before the first ##, ~{tokens} tokens) moves to memory/domains/general/"
                    f"preamble.md, out of boot; to keep it in MEMORY.md, add this line to .bonsai.toml before "
                    f"migrating: preamble_tokens = {tokens}")
    as_json = bonsai("migrate", "-C", str(repo), "--force", "--dry-run", "--json")
    assert json.loads(as_json.stdout)["preamble_moved"] == {
        "path": "memory/domains/general/preamble.md", "tokens": tokens, "keep": f"preamble_tokens = {tokens}"}
    (repo / ".bonsai.toml").write_text(line.rsplit(": ", 1)[1] + "\n")  # the one line, as printed
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-qm", "keep the preamble")
    done = bonsai("migrate", "-C", str(repo), "--force", catch_exceptions=False)
    assert done.exit_code == 0 and "The preamble" not in done.stdout
    assert (repo / "MEMORY.md").read_text().startswith(preamble)
    assert not (repo / "memory/domains/general/preamble.md").exists()
