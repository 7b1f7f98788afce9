"""Every relative link and `#anchor` in the README, SKILL.md and docs/ resolves (issue 20: docs that
cannot go stale; sections moved from the README to docs/ left links to where they used to be).

Links are markdown-it's tokens and anchors GitHub's, by the one rule the package already has for
leaves (bonsai_git/core/links.py: `find_links`, `heading_anchors`): a link in a code span or fence
is not a link, and an anchor is the heading's text lowercased, punctuation dropped, spaces as `-`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bonsai_git.core.links import anchor_of, find_links, heading_anchors, is_relative_file_link
from docs_examples import ROOT, doc_pages

PAGES = [page for page in doc_pages() if page.exists()]


def broken_links(page: Path) -> list[str]:
    """`line: href: why` for each link of `page` whose file or `#anchor` does not exist."""
    out = []
    for link in find_links(page.read_text(encoding="utf-8")):
        href = link.href
        if href.startswith("#"):
            target = page
        elif is_relative_file_link(href):
            target = (page.parent / href.split("#", 1)[0].split("?", 1)[0]).resolve()
            if ROOT not in (target, *target.parents):
                out.append(f"{link.line}: {href}: leads out of the repository")
                continue
            if not target.exists():
                out.append(f"{link.line}: {href}: no such file")
                continue
        else:
            continue  # https:, mailto:, an absolute path: not this repository's to check
        anchor = href.split("#", 1)[1] if "#" in href else ""
        if anchor and target.suffix != ".md":
            out.append(f"{link.line}: {href}: an anchor into a file that is not Markdown")
        elif anchor and anchor.lower() not in {a for a, _line in heading_anchors(target.read_text(encoding="utf-8"))}:
            out.append(f"{link.line}: {href}: {target.relative_to(ROOT)} has no heading with that anchor")
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == [], f"{page.relative_to(ROOT)}: broken links"


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Use it on your workspace", "use-it-on-your-workspace"),
    ("What `status` shows", "what-status-shows"),
    ("Hooks, CI & fleets: one page", "hooks-ci--fleets-one-page"),
    ("📌 Core rules", "-core-rules"),
    ("snake_case and dash-es", "snake_case-and-dash-es"),
])
def test_anchor_of_is_githubs_slug(heading: str, anchor: str) -> None:
    assert anchor_of(heading) == anchor


def test_broken_links_finds_a_missing_file_a_missing_anchor_and_skips_code(tmp_path: Path) -> None:
    page = ROOT / "docs" / "_links_probe.md"  # inside the repository, so `../README.md` resolves
    page.write_text("# Probe\n\n## Here\n\n[a](#here) [b](#gone) [c](../README.md) [d](nope.md)\n"
                    "[e](../README.md#no-such-heading) [f](https://example.com/x#y) `[g](#in-code)`\n\n"
                    "```\n[h](#in-fence)\n```\n", encoding="utf-8")
    try:
        found = broken_links(page)
    finally:
        page.unlink()
    assert [line.split(": ")[1] for line in found] == ["#gone", "nope.md", "../README.md#no-such-heading"]
