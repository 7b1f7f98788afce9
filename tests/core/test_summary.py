from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.summary import MAX_SUMMARY_CHARS, _cluster_start, summarize


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("## H\n\nFirst line.\nSecond.\n", "First line."),
        ("## H\n- **Bold** bullet with [a link](http://x.example)\n", "Bold bullet with a link"),
        ("## H\n<!-- hint: fill me -->\n\n> quoted text\n", "quoted text"),
        ("## H\n```bash\n# not this\n```\nAfter the fence\n", "After the fence"),
        ("## H\n| Host | IP |\n|---|---|\n| a | b |\n", "a · b"),
        ("## H\n| Host | IP |\n|---|---|\n", ""),
        ("## People\n\n### Dana\n\nDesigner in *Lisbon*, prefers _async_ notes.\n", "Dana: Designer in Lisbon, prefers async notes."),
        ("## W\n\n**Wins**\n- Documented the macros.\n", "Wins: Documented the macros."),
        ("## W\n\n**Wins:**\n- Wins came early.\n", "Wins came early."),
        ("## R\n**Never share the admin password.**\nMore.\n", "Never share the admin password."),
        ("## H\n### Only headings\n#### here\n", "Only headings"),
        ("## H\n### Team\n| name | role |\n| --- | --- |\n| Dana | designer |\n", "Team: Dana · designer"),
        ("## H\n---\n\n- item after a rule\n\n---\n", "item after a rule"),
        ("## H\nuse snake_case_names and 2*3*4\n", "use snake_case_names and 2*3*4"),
        ("## H\n<!--\nmulti-line comment\n-->\n***Strong*** words\n", "Strong words"),
        ("# Title\n\nStanding rule: newer source wins.\n", "Standing rule: newer source wins."),
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


CLUSTERS = ["👩‍👩‍👧‍👦", "🇺🇸", "🇯🇵", "👍🏽", "❤️", "é", "e\u0301", "1\ufe0f\u20e3", "\u1100\u1161\u11a8", "한", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", "a", "字"]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_summarize_never_cuts_inside_a_grapheme_cluster(cluster: str) -> None:
    for pad in range(6):
        text = "## H\n" + "x" * (MAX_SUMMARY_CHARS - 3 + pad) + cluster * 5 + "\n"
        summary = summarize(text)
        body = summary.removesuffix("…").lstrip("x")
        assert len(summary) <= MAX_SUMMARY_CHARS
        assert body == cluster * (len(body) // len(cluster)) if body else True


def test_summarize_cuts_a_long_line_at_a_word_boundary_between_clusters() -> None:
    text = "## H\n" + "trip 🇳🇴 " * 30 + "\n"
    summary = summarize(text)
    assert summary.endswith(" trip…") and len(summary) <= MAX_SUMMARY_CHARS
    assert summary.count("🇳🇴") * 2 == sum(1 for ch in summary if 0x1F1E6 <= ord(ch) <= 0x1F1FF)


regex = pytest.importorskip("regex")  # the reference UAX #29 implementation (test extra only)

PARTS = st.sampled_from(["a", " ", "字", "\u200d", "\ufe0f", "\u0301", "\u20e3", "\U0001F1FA", "\U0001F1F8",
                         "\U0001F3FD", "👩", "👍", "❤", "\u1100", "\u1161", "\u11a8", "한", "가", "\U000e0067",
                         "🏴", "\u0600", "\n", "\r"])


def _true_starts(text: str) -> set[int]:
    starts, at = set(), 0
    for m in regex.finditer(r"\X", text):
        starts.add(at)
        at = m.end()
    return starts - {0}


@given(st.lists(PARTS, max_size=24).map("".join))
def test_cluster_start_never_claims_a_boundary_uax29_does_not_have(text: str) -> None:
    mine = {i for i in range(1, len(text)) if _cluster_start(text, i)}
    assert mine <= _true_starts(text)


@given(st.lists(st.sampled_from(CLUSTERS + [" ", "x"]), max_size=12))
def test_cluster_start_finds_every_boundary_between_whole_clusters(clusters: list[str]) -> None:
    text = "".join(clusters)
    assert {i for i in range(1, len(text)) if _cluster_start(text, i)} == _true_starts(text)


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("## Host\n\nThe database server.\n\n- host: db1.example.com\n- owner: Dana Reyes\n- since 2024-03-01\n",
         "The database server. · db1.example.com, Dana Reyes, 2024-03-01"),
        ("## Passport\n\nRenewal is due soon.\n\nNumber X1234567, expires 2026-06-30 at the Lisbon office.\n",
         "Renewal is due soon. · X1234567, 2026-06-30, Lisbon"),
        ("## Plain\n\nnothing here stands out.\nand nothing here either, all lowercase words.\n",
         "nothing here stands out."),
        ("## Key\n\nThe deploy key lives in the vault.\n\ntoken: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
         "The deploy key lives in the vault."),
        ("## 客户\n\n主要客户是知味书店。\n\n联系人：王经理，电话 138-0000-0000，每年 2025 年中秋。\n",
         "主要客户是知味书店。 · 138-0000-0000, 2025"),
    ],
)
def test_summarize_adds_the_distinctive_words_of_the_first_lines(text: str, summary: str) -> None:
    assert summarize(text) == summary


def test_summary_details_fit_the_budget_whole() -> None:
    first = ("Amara", "Bilal", "Chen", "Dana", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kenji", "Lena")
    last = ("Quist", "Okafor", "Lindqvist", "Moreau", "Haddad", "Novak", "Sato", "Alvarez", "Brennan", "Kowalski",
            "Mensah", "Iverson")
    names = "we met " + ", ".join(f"{a} {b}" for a, b in zip(first, last))
    got = summarize(f"## People\n\nWho we met at the fair.\n\n{names}.\n")
    assert len(got) <= MAX_SUMMARY_CHARS and got.startswith("Who we met at the fair. · Amara Quist, Bilal Okafor, ")
    assert all(f"{a} {b}" in got or f"{a} " not in got for a, b in zip(first, last))  # whole names, never half


def test_an_aside_in_parentheses_or_quotes_starts_a_new_name() -> None:
    """A new user's finding: `Ana Marés (Teams)` read as one name `Ana Marés Teams`."""
    from bonsai_git.core.summary import _distinctive

    assert _distinctive(["We meet with Ana Marés (Teams) and Bob Li on \"Project Kite\" days."]) == [
        "Ana Marés", "Teams", "Bob Li", "Project Kite"]
