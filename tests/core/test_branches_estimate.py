"""Fast paths of the sub-branch layout, proven equal to the general code with hypothesis: the split
prices an index from its entries' quarter-tokens (branches._index_tokens) instead of rendering it,
heading words of an ASCII heading lowered first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core import branches
from bonsai_git.core.branches import BranchLeaf
from bonsai_git.core.tokens import estimate_tokens

# Names, headings and summaries with the chars that change an estimate: CR/LF (a CRLF between
# parts would be counted once), the indexes' own punctuation, CJK, other non-ASCII, surrogates.
_CHARS = st.sampled_from("ab-.7 \r\n…–›·中한，ñ\ufeff\U00020001\ud800/")
_TEXT = st.text(_CHARS, max_size=30) | st.text(max_size=30)
_LEAF = st.builds(BranchLeaf, name=_TEXT.map(lambda s: s + ".md"), heading=_TEXT,
                  tokens=st.integers(0, 10**7), summary=_TEXT)


@given(st.lists(_LEAF, max_size=8), st.lists(_TEXT, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_index_tokens_equal_the_estimate_of_the_rendered_index(leaves: list[BranchLeaf], labels: list[str],
                                                              split: bool, grouped: bool) -> None:
    entries = [branches._leaf_entry(leaf) for leaf in leaves]
    if grouped and entries:  # sub-branch entries, with their description lines
        entries = [branches._group_entry(labels[i % len(labels)], f"{labels[-1]}.md", entries[: i + 1])
                   for i in range(len(entries))] + entries
    split_from = entries if split else None
    text = branches._index_text(labels, entries, split_from)
    assert branches._index_tokens(labels, entries, split_from) == estimate_tokens(text)
    for entry in entries:
        assert entry.tokens == estimate_tokens(entry.text + "\n\n")


@given(st.text(st.characters(max_codepoint=127), max_size=40))
def test_heading_words_of_ascii_lowered_first_are_the_casefolded_words(heading: str) -> None:
    # the sub-branch word key lowers an ASCII heading before finding its words (_word_chooser)
    assert set(branches._WORD.findall(heading.lower())) == {w.casefold() for w in branches._WORD.findall(heading)}
