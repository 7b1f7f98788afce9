"""mdtext's shortcuts give what its full rules give (the rules themselves: tests/test_formatters.py)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core.mdtext import _escape_line_start, _line_start_rules

LINE = st.lists(st.sampled_from(["#", "##", ">", "-", "---", "*", "+", "=", "==", "~", "~~~", " ", "\t", "1", "12",
                                 ".", ")", "a", "Body", "é", "\u3000", "\xa0", "١", "²", "_", "`", "|", "[x]"]),
                max_size=6).map("".join)


@given(LINE)
@example("")
@example("   ")
@example("²nd")
@example("١. item")
@settings(max_examples=500)
def test_a_line_start_that_skips_the_rules_gets_what_the_rules_give(line: str) -> None:
    assert _escape_line_start(line) == _line_start_rules(line)
