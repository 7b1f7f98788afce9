from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core.slugs import MAX_LEAF_NAME, leaf_name, unique_leaf_names


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("Company Overview", "company-overview"),
        ("../../etc", "etc"),
        ("../../../etc/passwd", "etc-passwd"),
        ("/etc/passwd", "etc-passwd"),
        ("C:\\x", "c-x"),
        ("con", "con-section"),
        ("CON", "con-section"),
        ("LPT1", "lpt1-section"),
        (".git", "git"),
        ("_index", "index"),
        ("🚀🔥✨", "section"),
        ("", "section"),
        ("\u200b", "section"),
        ("重要日期", "重要日期"),
        ("Café Crème", "café-crème"),
        ("2026-03-14", "log-2026-03-14"),
        ("2026-03-12 — release prep", "log-2026-03-12-release-prep"),
        ("2026/02/27", "log-2026-02-27"),
        ("Mar 3, 2026", "mar-3-2026"),
        ("Keys sk-test-XXXXXXXXXXXXXXXXXXXXXXXX rotated", "keys-rotated"),
    ],
)
def test_leaf_name_table(heading: str, name: str) -> None:
    assert leaf_name(heading) == name


def test_leaf_name_is_nfc_normalised() -> None:
    decomposed = "Cafe\u0301"
    assert leaf_name(decomposed) == "café"


def test_leaf_name_cuts_long_headings_on_a_word_boundary() -> None:
    name = leaf_name("Decision (2026-02-14): we will migrate the customer system from the old database to the new one")
    assert len(name) <= MAX_LEAF_NAME
    assert not name.endswith("-")
    assert "the-customer-system" in name


def test_unique_leaf_names_deduplicates_case_insensitively_in_order() -> None:
    names = unique_leaf_names(["Notes", "Updates", "notes", "Notes!", "Updates"])
    assert names == ("notes", "updates", "notes-2", "notes-3", "updates-2")


def test_unique_leaf_names_avoids_taken_names() -> None:
    assert unique_leaf_names(["Preamble"], taken=["preamble"]) == ("preamble-2",)


_SAFE = re.compile(r"^[^\W_][\w-]*$")


@given(st.lists(st.text(max_size=80), max_size=12))
def test_unique_leaf_names_are_safe_and_unique(headings: list[str]) -> None:
    names = unique_leaf_names(headings)
    assert len({n.casefold() for n in names}) == len(names)
    for n in names:
        assert _SAFE.match(n), n
        assert "/" not in n and "\\" not in n and not n.startswith((".", "_"))
        assert not re.match(r"^\d{4}-\d{2}-\d{2}", n)
        assert len(n.encode("utf-8")) < 255


# Words of ASCII letters and digits around the fast path's edges: single and double spaces, 59-61
# chars, `1,000`, quotes, entities, an underscore, a tab, non-ASCII letters.
SLUG_PIECES = st.sampled_from(["Business", "notes", "12", "A", "z9", " ", "  ", "\t", "1,000", "it's", "&amp;",
                               "_", "-", "Café", "ﬁ", "x" * 20, "Y" * 29, "重要"])


@given(st.lists(SLUG_PIECES, max_size=12).map("".join) | st.lists(SLUG_PIECES, max_size=8).map(" ".join)
       | st.text(max_size=70))
@example("1,000 notes")
@example("Its Acme " + "x" * 50)
@example("a" * 30 + " " + "b" * 30)  # 61 chars: slugify cuts it
@settings(max_examples=600)
def test_the_plain_slug_path_equals_python_slugify(text: str) -> None:
    from slugify import slugify

    from bonsai_git.core.slugs import _plain_slug

    fast = _plain_slug(text)
    if fast is not None:
        assert fast == slugify(text, allow_unicode=True, max_length=MAX_LEAF_NAME, word_boundary=True,
                               separator="-", lowercase=True)


def test_the_plain_slug_path_takes_plain_headings_only() -> None:
    from bonsai_git.core.slugs import _plain_slug

    assert _plain_slug("Business notes 12") == "business-notes-12"
    assert _plain_slug("x" * 59) == "x" * 59
    assert _plain_slug("x" * 60) is None  # slugify may cut it
    assert _plain_slug("Café") is None and _plain_slug("a  b") is None and _plain_slug("1,000") is None
