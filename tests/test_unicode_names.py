"""One name per leaf whatever its Unicode form, and same-topic absorb that keeps meaningful punctuation
(slugs.name_key, absorb.same_topic; issue 22 item 8)."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.absorb import _INLINE_MARKUP, _inline_parser, _shown_text, same_topic
from bonsai_git.core.slugs import name_key, unique_leaf_names
from living_tree import MakeRepo, migrated
from support import bonsai, bonsai_untouched, commit, git

NFC = unicodedata.normalize("NFC", "résumé")
NFD = unicodedata.normalize("NFD", "résumé")


def test_name_key_equates_unicode_forms_and_case() -> None:
    assert NFC != NFD and name_key(NFC) == name_key(NFD) == name_key(NFD.upper())
    assert name_key("travel") != name_key("travels")


def test_unique_leaf_names_counts_an_nfd_name_as_taken() -> None:
    assert unique_leaf_names(["Résumé", "RÉSUMÉ"], taken=[NFD]) == (f"{NFC}-2", f"{NFC}-3")


@pytest.mark.parametrize("group", [("Tool: C#", "Tool: C++", "Tool: C"), ("F#", "F*", "F"), (".NET", "NET"),
                                   ("Node.js", "Node js")])
def test_same_topic_keeps_meaningful_punctuation(group: tuple[str, ...]) -> None:
    assert len({same_topic(h) for h in group}) == len(group)


@pytest.mark.parametrize(("a", "b"), [("Tool: C#", "tool: c#"), ("`C#`", "C#"), ("*C++*", "C++"), ("(.NET)", ".NET"),
                                      ("📌 Travel", "Travel"), ("Travel...", "travel"), ("follow-up", "follow up")])
def test_same_topic_still_folds_what_carries_no_meaning(a: str, b: str) -> None:
    assert same_topic(a) == same_topic(b)


@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n\r"), max_size=30).filter(lambda t: not _INLINE_MARKUP.search(t)))
def test_shown_text_shortcut_is_markdown_its_text(heading: str) -> None:
    tokens = _inline_parser().parseInline(heading)
    shown = "".join(c.content for t in tokens for c in (t.children or ()) if c.type in ("text", "code_inline"))
    assert _shown_text(heading) == heading
    assert same_topic(shown) == same_topic(heading)


def nfd_leaf(make_repo: MakeRepo) -> tuple[os.PathLike[str], str]:
    """A migrated workspace with a committed general/ leaf whose file name is NFD (as macOS tools write it)."""
    ws = migrated(make_repo)
    leaf = f"memory/domains/general/{NFD}.md"
    (ws / leaf).parent.mkdir(parents=True, exist_ok=True)
    (ws / leaf).write_text("## Résumé tips\n\nOne page.\n", encoding="utf-8")
    assert bonsai("reindex", "-C", str(ws)).exit_code == 0
    commit(ws, "a leaf named on a Mac")
    return ws, leaf


def test_absorb_never_makes_a_second_leaf_beside_an_nfd_name(make_repo: MakeRepo) -> None:
    ws, leaf = nfd_leaf(make_repo)
    trunk = ws / "MEMORY.md"  # type: ignore[operator]
    trunk.write_bytes(trunk.read_bytes() + "\n## Résumé\n\nUpdated in May.\n".encode())
    result = bonsai("absorb", "-C", str(ws))
    assert result.exit_code == 0, result.stderr
    names = sorted(p.name for p in (ws / "memory/domains/general").iterdir())  # type: ignore[operator]
    visible = [unicodedata.normalize("NFC", n) for n in names]
    assert len(visible) == len(set(visible)), names
    assert f"{NFC}-2.md" in names and f"{NFD}.md" in names


def test_move_refuses_a_same_name_leaf_in_another_form(make_repo: MakeRepo) -> None:
    ws, leaf = nfd_leaf(make_repo)
    other = ws / f"memory/domains/personal/{NFC}.md"  # type: ignore[operator]
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text("## Résumé\n\nPersonal one.\n", encoding="utf-8")
    assert bonsai("reindex", "-C", str(ws)).exit_code == 0
    commit(ws, "another")
    result = bonsai_untouched(ws, "move", "-C", str(ws), leaf, "personal")  # type: ignore[arg-type]
    assert result.exit_code == 3
    assert "already exists; rename one of the two leaves" in result.stderr
    assert git(ws, "status", "--porcelain") == ""  # type: ignore[arg-type]
