from __future__ import annotations

import pytest

from bonsai_git.summary import MAX_SUMMARY_CHARS, summarize


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("## H\n\nFirst line.\nSecond.\n", "First line."),
        ("## H\n- **Bold** bullet with [a link](http://x.example)\n", "Bold bullet with a link"),
        ("## H\n<!-- hint: fill me -->\n\n> quoted text\n", "quoted text"),
        ("## H\n```bash\n# not this\n```\nAfter the fence\n", "After the fence"),
        ("## H\n| Host | IP |\n|---|---|\n| a | b |\n", "Host · IP"),
        ("## H\n1. numbered item\n", "numbered item"),
        ("## H\n- [ ] open task\n", "open task"),
        ("## H\nSee [[wiki page]] now\n", "See wiki page now"),
        ("## H\n\n", ""),
        ("---\ntitle: x\n---\n# Title\n", "Title"),
        ("## H\r\nCRLF body\r\n", "CRLF body"),
        ("## H\nkey sk-test-XXXXXXXXXXXXXXXXXXXXXXXX in use\n", "key sk-…[masked] in use"),
        ("## H\npassword: hunter2hunter2\n", "password: …[masked]"),
        ("## H\nNo API key in the build\n", "No API key in the build"),
        ("## H\nclose <!-- bonsai:end --> marker\n", "close marker"),
    ],
)
def test_summarize_table(text: str, summary: str) -> None:
    assert summarize(text) == summary


def test_summarize_cuts_on_a_word_boundary() -> None:
    text = "## H\n" + "word " * 60 + "\n"
    summary = summarize(text)
    assert len(summary) <= MAX_SUMMARY_CHARS
    assert summary.endswith("word…")


def test_summarize_never_emits_comment_markers() -> None:
    assert "<!--" not in summarize("## H\n<!-- a --> x <!-- b\n") and "-->" not in summarize("## H\nx --> y\n")
