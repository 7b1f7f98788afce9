"""Links a split breaks: migrate --dry-run warns, status reports, leaves stay byte-exact (core/links.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.links import find_links, heading_anchors, is_relative_file_link, leaf_links, resolve_from, Link
from living_tree import MakeRepo
from support import bonsai, commit, git

MEMORY = """# Memory

Pinned: see [backups](#backups) first.

## Backups

Nightly to the NAS. Runbook: [runbook](docs/runbook.md). Not a link: `[x](#incidents)`.

## Incidents

The March outage, see [backups](#backups) and [the runbook][rb].
Second line [web](https://example.com) and ![diagram](img/a.png).

```
[fenced](#backups)
```

## Clients

[rb]: docs/runbook.md
Acme pays net 30; see [incidents](#incidents) below... [self](#clients).
"""
BACKUPS = "memory/domains/infrastructure/backups.md"
INCIDENTS = "memory/domains/infrastructure/incidents.md"


def test_find_links_uses_markdown_tokens_with_lines() -> None:
    assert find_links("a [x](#y)\nb `[no](#z)` c [img](p.png)\n\n```\n[no](#q)\n```\n[r][d]\n\n[d]: u.md\n") == (
        Link(1, "#y"), Link(2, "p.png"), Link(7, "u.md"))
    assert find_links("plain text, no link at all") == ()


def test_heading_anchors_follow_github() -> None:
    assert heading_anchors("# A B!\n## a b\n### C++ & co\n") == (("a-b", 1), ("a-b-1", 2), ("c--co", 3))


@pytest.mark.parametrize(("href", "relative"), [("docs/a.md", True), ("../x.md#y", True), ("#a", False),
                                                ("https://x.org", False), ("mailto:a@b", False), ("/abs", False)])
def test_is_relative_file_link(href: str, relative: bool) -> None:
    assert is_relative_file_link(href) is relative


def test_resolve_from() -> None:
    assert resolve_from("memory/domains/x", "../../../docs/a.md#top") == "docs/a.md"
    assert resolve_from("", "docs/a.md?x") == "docs/a.md" and resolve_from("", "../up.md") is None


def test_leaf_links_keeps_anchors_it_holds() -> None:
    links = leaf_links("## Backups\n\n[me](#backups) [other](#incidents) [f](notes.md)\n")
    assert links.missing_anchors == (Link(3, "#incidents"),) and [k.href for k, _ in links.relative] == ["notes.md"]


def test_migrate_dry_run_names_every_link_the_split_breaks(make_repo: MakeRepo) -> None:
    ws = make_repo(MEMORY)
    result = bonsai("migrate", "-C", str(ws), "--dry-run", "--force")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "link `" in line]
    assert warnings == [
        f"warning: MEMORY.md:3: link `#backups` points at a heading that goes to {BACKUPS}; it breaks once split (link the file instead)",
        f"warning: {BACKUPS}:3: relative link `docs/runbook.md` will resolve from memory/domains/infrastructure/, not from MEMORY.md's folder",
        f"warning: {INCIDENTS}:3: link `#backups` points at a heading that goes to {BACKUPS}; it breaks once split (link the file instead)",
        f"warning: {INCIDENTS}:3: link `docs/runbook.md` is a reference defined in another section; it stops being a link once that section is in another file",
        f"warning: {INCIDENTS}:4: relative link `img/a.png` will resolve from memory/domains/infrastructure/, not from MEMORY.md's folder",
        "warning: memory/domains/business/clients.md:4: link `#incidents` points at a heading that goes to "
        f"{INCIDENTS}; it breaks once split (link the file instead)",
    ]
    assert git(ws, "status", "--porcelain") == ""


def test_status_names_broken_links_and_leaves_stay_byte_exact(make_repo: MakeRepo) -> None:
    ws = make_repo(MEMORY)
    (ws / "docs").mkdir()
    (ws / "docs/runbook.md").write_text("# Runbook\n")
    commit(ws, "runbook", "docs/runbook.md")
    assert bonsai("migrate", "-C", str(ws), "--force").exit_code == 0
    assert (ws / BACKUPS).read_text() == MEMORY[MEMORY.index("## Backups"):MEMORY.index("## Incidents")]
    status = bonsai("status", "-C", str(ws), "--json")
    assert status.exit_code == 1
    links = [(f["path"], f["line"], f["message"]) for f in json.loads(status.stdout)["warnings"] if f["kind"] == "broken_link"]
    assert (BACKUPS, 3, "relative link `docs/runbook.md` names no file from memory/domains/infrastructure/; from "
            "MEMORY.md's folder it named docs/runbook.md (write `../../../docs/runbook.md`)") in links
    assert ("MEMORY.md", 3, f"link `#backups` leads nowhere: its heading is in {BACKUPS} (a link across files needs "
            "the file's path)") in links
    assert (INCIDENTS, 4, "relative link `img/a.png` names no file from memory/domains/infrastructure/") in links
    assert not any(path.endswith("clients.md") and "#clients" in message for path, _l, message in links)
    text = bonsai("status", "-C", str(ws)).stdout
    assert f"{INCIDENTS}:3: link `#backups` leads nowhere" in text


@given(st.text(st.sampled_from(list("[]():#<>!`ab \n-*")), max_size=40))
def test_may_have_links_shortcut_never_hides_a_relative_or_anchor_link(text: str) -> None:
    from bonsai_git.core.links import _parser, may_have_links

    if may_have_links(text):
        return
    hrefs = [c.attrGet("href") or c.attrGet("src") for t in _parser().parse(text) if t.type == "inline"
             for c in t.children or () if c.type in ("link_open", "image")]
    assert not [h for h in hrefs if isinstance(h, str) and (h.startswith("#") or is_relative_file_link(h))]


ACCENTED = """# Memory

## Café

Opens at 8. Menu: [menu](<menu card.md>). See [prix](#prix-été) and [here](#café).

## Prix été

Summer prices.
"""


def test_links_compare_decoded_destinations(make_repo: MakeRepo) -> None:
    """markdown-it percent-encodes destinations (`#café` -> `#caf%C3%A9`, `<menu card.md>` ->
    `menu%20card.md`): compared as encoded, an accented heading's anchor was never found, so the
    split of a link to it was not warned of and status called a link to the leaf's own heading broken."""
    assert find_links("[x](#café) [y](<a b.md>)\n") == (Link(1, "#café"), Link(1, "a b.md"))
    assert leaf_links("## Café\n\n[here](#café)\n").missing_anchors == ()
    ws = make_repo(ACCENTED)
    (ws / "menu card.md").write_text("# Menu\n")
    commit(ws, "menu", "menu card.md")
    dry = bonsai("migrate", "-C", str(ws), "--dry-run", "--force")
    assert dry.exit_code == 0, dry.stderr
    assert any("link `#prix-été` points at a heading that goes to" in line for line in dry.stderr.splitlines()), dry.stderr
    assert bonsai("migrate", "-C", str(ws), "--force").exit_code == 0
    status = bonsai("status", "-C", str(ws), "--json")
    links = [f["message"] for f in json.loads(status.stdout)["warnings"] if f["kind"] == "broken_link"]
    assert not any("#café" in m or "caf%" in m for m in links), links
    assert any("relative link `menu card.md` names no file from" in m and "it named menu card.md" in m for m in links), links
