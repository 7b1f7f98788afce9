from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.classify import (
    SectionInput,
    classify_document,
    classify_heading,
    classify_section,
    dominant_domain,
    is_pinned,
    matches_keyword,
    stem,
)
from bonsai_git.core.config import DEFAULT_DOMAINS, DOMAIN_SCOPES, Config, parse_config


@pytest.mark.parametrize(
    ("heading", "domain"),
    [
        # the seed's keyword table still decides what it decided
        ("APIs & Webhooks", "infrastructure"),
        ("Services", "infrastructure"),
        ("Meetup Group", "community"),
        ("Sub-agents", "agents"),
        ("Professional Network", "identity"),
        ("Important Dates", "dates"),
        ("Birthdays", "dates"),
        ("Family & Business", "identity"),  # a tie breaks by table order
        ("Infrastructure 服务器", "infrastructure"),
        ("⚙️ 系统与配置", "infrastructure"),
        ("Legal & Contracts", "legal"),
        ("Pricing & Revenue", "business"),
        # traps stay right
        ("Capital planning", "general"),
        ("Agenda for Q3", "general"),
        ("Lessons Learned", "general"),
        ("", "general"),
        # the four new domains
        ("Leadership Team", "people"),
        ("Contacts", "people"),
        ("Roadmap & Milestones", "projects"),
        ("Health & Fitness", "personal"),
        ("Personal Finance", "personal"),  # the phrase wins over identity's `personal`
        ("Upcoming Trips", "personal"),
        ("Decisions Log", "log"),
        ("Weekly Review 2025-W44", "log"),
        ("Changelog", "log"),
        # ambiguous words narrowed by sense
        ("Monitoring & Alerts", "infrastructure"),
        ("Known Issues", "infrastructure"),
        ("Technical SEO Issues", "business"),  # the weak `issues` loses to a full match
        ("Archive", "general"),
    ],
)
def test_classify_heading_default_table(heading: str, domain: str) -> None:
    assert classify_heading(heading, Config()).domain == domain


@pytest.mark.parametrize(
    ("heading", "not_domain"),
    [("Seoul trip", "business"), ("Capital planning", "infrastructure"), ("Agenda for Q3", "agents"),
     ("Grouping rules", "community"), ("Logging", "log"), ("Apiary notes", "infrastructure")],
)
def test_classify_heading_keeps_traps(heading: str, not_domain: str) -> None:
    assert classify_heading(heading, Config()).domain != not_domain


@pytest.mark.parametrize(
    ("heading", "domain", "decided_by"),
    [
        ("Person: Tamsin Greaves", "people", "prefix"),
        ("Project: Larch", "projects", "prefix"),
        ("Tool: Issue tracker", "infrastructure", "prefix"),
        ("Incident 2025-08-12: a missing receipt for the accountant", "infrastructure", "prefix"),
        ("2026-05-14 shipped the invoices", "log", "prefix"),
        ("2026-03-12 — release prep", "log", "prefix"),
        ("Mar 3, 2026", "log", "prefix"),
        ("2026/02/27", "log", "prefix"),
        ("📅 14 March 2026 — clients", "log", "prefix"),
        ("2026年3月1日", "log", "prefix"),
        ("Monthly SEO Performance Report — February 2026", "log", "heading"),  # a date later adds to log
        ("Project Overview", "projects", "heading"),
    ],
)
def test_classify_heading_prefixes_and_dates(heading: str, domain: str, decided_by: str) -> None:
    c = classify_heading(heading, Config())
    assert (c.domain, c.decided_by) == (domain, decided_by)


def test_kind_prefix_counts_double_against_a_full_match() -> None:
    c = classify_heading("Person: our SEO expert", Config())
    assert (c.domain, c.score, c.runner_up, c.runner_up_score) == ("people", 2.0, "business", 1.0)


@pytest.mark.parametrize(
    ("heading", "domain"),
    [
        ("客户名单", "business"), ("客戶名單", "business"), ("顧客リスト", "business"), ("고객 목록", "business"),
        ("项目进展", "projects"), ("專案進度", "projects"), ("プロジェクト", "projects"), ("프로젝트 현황", "projects"),
        ("健身计划", "personal"), ("旅行の記録", "personal"), ("여행 계획", "personal"),
        ("团队成员", "people"), ("團隊", "people"), ("連絡先", "people"), ("연락처", "people"),
        ("合同注意事项", "legal"), ("契約", "legal"), ("계약서", "legal"),
        ("工作日志", "log"), ("振り返り", "log"), ("회고", "log"), ("議事録", "log"), ("会议记录", "log"),
        ("メンバー", "people"), ("团队成员", "people"), ("멤버 목록", "people"),
        ("🎂 重要日期", "dates"), ("誕生日", "dates"), ("생일", "dates"),
        ("サーバー設定", "infrastructure"), ("서버", "infrastructure"),
    ],
)
def test_classify_heading_cjk_keywords(heading: str, domain: str) -> None:
    assert classify_heading(heading, Config()).domain == domain


@pytest.mark.parametrize(
    ("word", "other"),
    [("service", "Services"), ("policies", "policy"), ("class", "Classes"), ("Kwame's", "kwame"),
     ("monitor", "monitoring"), ("review", "reviewed"), ("api", "APIs")],
)
def test_stem_joins_plural_possessive_and_suffix_forms(word: str, other: str) -> None:
    assert stem(word) == stem(other)


@pytest.mark.parametrize(("word", "other"), [("seo", "seoul"), ("agent", "agenda"), ("api", "capital"),
                                             ("api", "apiary"), ("task", "tasker"), ("brand", "brandywine"),
                                             ("personal", "personalised")])
def test_stem_keeps_different_words_apart(word: str, other: str) -> None:
    assert stem(word) != stem(other)


@pytest.mark.parametrize(("heading", "not_domain"), [("Grouping rules", "community"), ("Logging", "log"),
                                                     ("Personality quiz results", "people")])
def test_an_exact_form_keyword_does_not_match_the_words_its_stem_shares(heading: str, not_domain: str) -> None:
    # snowball gives "grouping" the stem of "group" and "personality" that of "person": `=group`,
    # `=log` and `=person` match those forms (and plurals) only
    assert classify_heading(heading, Config()).domain != not_domain


def test_body_decides_when_the_heading_says_nothing() -> None:
    body = "- Router: 10.0.0.1, VLANs for IoT\n- DNS on the NAS; VPN via WireGuard\n- backups nightly\n"
    c = classify_section(SectionInput("Odds and ends", body), Config())
    assert (c.domain, c.decided_by) == ("infrastructure", "body")
    assert {"DNS", "VPN", "backups"} <= set(c.words)


def test_body_narrows_a_weak_heading_word_by_sense() -> None:
    routers = "- Router on the shelf, VLAN 20 for cameras\n- DNS via Pi-hole, VPN for remote access\n"
    assert classify_section(SectionInput("Network", routers), Config()).domain == "infrastructure"
    assert classify_heading("Network", Config()).domain == "identity"  # a person's network
    people = "- Priya Shah: ex-colleague at Acme, great contacts; intro via the team\n- Leo: mentor\n"
    assert classify_section(SectionInput("Network", people), Config()).domain == "people"


def test_body_too_thin_falls_back_to_the_weak_heading_word() -> None:
    c = classify_section(SectionInput("Recent Issues", "Issue 41 went out late.\n"), Config())
    assert (c.domain, c.decided_by) == ("infrastructure", "heading")


def test_heading_beats_body() -> None:
    body = "client client client revenue pricing invoices\n"
    c = classify_section(SectionInput("Servers", body), Config())
    assert (c.domain, c.decided_by) == ("infrastructure", "heading")


def test_body_reads_only_the_first_800_chars() -> None:
    body = "x " * 500 + "servers dns backups vpn\n"
    assert classify_section(SectionInput("Odds and ends", body), Config()).decided_by == "fallback"


def test_long_sentence_heading_needs_the_body_threshold() -> None:
    heading = "We agreed with the whole team that the quarterly numbers go out on Friday before lunch at the latest"
    c = classify_section(SectionInput(heading, "Servers: app1, app2; DNS and backups on the NAS.\n"), Config())
    assert c.domain == "infrastructure"


def test_group_heading_decides_after_body() -> None:
    c = classify_section(SectionInput("Odds and ends", "nothing to see\n", "Travel"), Config())
    assert (c.domain, c.decided_by, c.words) == ("personal", "group", ("Travel",))


def test_document_dominant_domain_places_the_rest() -> None:
    sections = [SectionInput(f"Person: P{i}") for i in range(3)] + [SectionInput("Ana Ruiz"), SectionInput("Clients")]
    out = classify_document(sections, Config())
    assert [c.domain for c in out] == ["people", "people", "people", "people", "business"]
    assert out[3].decided_by == "document"


@pytest.mark.parametrize(
    ("domains", "others", "expected"),
    [
        (["people", "people", "business"], 0, None),  # fewer than three
        (["people"] * 3 + ["business"] * 3, 0, "business"),  # half is enough; a tie goes to the first name
        (["people"] * 3 + ["business"] * 4, 5, "business"),
        (["people"] * 3 + ["business"] * 2 + ["legal"] * 2, 0, None),  # under half
        (["people"] * 3 + ["business"] * 2 + ["log"] * 2, 0, "people"),  # dated entries are a form, not a topic
        (["log"] * 6, 0, None),
        (["business"] * 3, 7, None),  # under a third of all sections: three placed sections do not speak for ten
    ],
)
def test_dominant_domain_needs_half_three_and_a_third(domains: list[str], others: int, expected: str | None) -> None:
    from bonsai_git.core.classify import Classification

    weak = [Classification("log", "heading", 0.5), Classification("log", "body", 1.5)]  # not confident
    decisions = [Classification(d, "heading", 1.0) for d in domains] + (weak * others)[:others]
    assert dominant_domain(decisions) == expected


def test_a_body_with_body_min_points_is_confident_for_the_document() -> None:
    from bonsai_git.core.classify import Classification

    assert dominant_domain([Classification("business", "body", 2.0)] * 3) == "business"


def test_runner_up_and_words_are_reported() -> None:
    c = classify_heading("Clients & Servers & Hosting", Config())
    assert (c.domain, c.score, c.runner_up, c.runner_up_score) == ("infrastructure", 2.0, "business", 1.0)
    assert c.words == ("Servers", "Hosting")


def test_classification_is_deterministic_and_total() -> None:
    weird = ["\x00", "## ##", "💥" * 50, "a" * 5000, "Person:", "2026-13-45", ":"]
    for heading in weird:
        assert classify_heading(heading, Config()) == classify_heading(heading, Config())


def test_every_default_domain_has_a_scope() -> None:
    assert [d for d, _ in DEFAULT_DOMAINS] == list(DOMAIN_SCOPES)  # one table order everywhere


@pytest.mark.parametrize(
    ("heading", "keyword", "expected"),
    [
        ("Professional network notes", "professional network", True),
        ("Professional  Network", "professional network", True),
        ("Network professional", "professional network", False),
        ("api_keys", "api", False),  # underscore joins words
        ("API-keys", "api", True),
        ("Classes", "class", True),  # -es plural
        ("Tools", "tools", True),
    ],
)
def test_matches_keyword_rules(heading: str, keyword: str, expected: bool) -> None:
    assert matches_keyword(heading, keyword) is expected


@pytest.mark.parametrize(
    ("heading", "pinned"),
    [
        ("📌 Core Rules (always loaded)", True),
        ("Pinned: Security Hygiene", True),
        ("Identity & Tone (pinned)", True),
        ("Always Loaded", True),
        ("Pinnedness", False),
        ("Core Rules", False),
    ],
)
def test_is_pinned_default_rules(heading: str, pinned: bool) -> None:
    assert is_pinned(heading, Config()) is pinned


def test_config_adds_pin_rules_and_domains_in_priority_order() -> None:
    cfg = parse_config('pinned = ["Core Rules"]\n[domains]\nmarketing = ["campaign"]\nbusiness = ["acme"]\n')
    assert is_pinned("Core Rules", cfg)
    c = classify_heading("Spring Campaign", cfg)
    assert (c.domain, c.decided_by) == ("marketing", "config")
    assert classify_heading("Acme pricing", cfg).domain == "business"
    assert classify_heading("Pricing", cfg).domain == "general"  # business keywords were replaced
    assert [d for d, _ in cfg.domains][:3] == ["marketing", "business", "identity"]


def test_config_weak_keyword_and_table_shape() -> None:
    cfg = parse_config('[domains.research]\nkeywords = ["paper", "~study"]\nscope = "papers and studies"\n')
    assert classify_heading("Key Papers", cfg).domain == "research"
    assert classify_heading("Study", cfg).score == 0.5
    assert cfg.scopes == {"research": "papers and studies"}
    assert cfg.configured == ("research",)


def test_heading_only_keywords_do_not_count_in_a_body() -> None:
    assert classify_heading("About Kai", Config()).domain == "identity"
    body = "All about who does what; kids' drawings about the history of the board.\n"
    assert classify_section(SectionInput("Odds and ends", body), Config()).decided_by == "fallback"
    cfg = parse_config('[domains.reading]\nkeywords = ["^reading", "novel"]\n')
    assert classify_section(SectionInput("Shelf", "reading reading reading\n"), cfg).domain == "general"
    assert classify_section(SectionInput("Shelf", "a novel, another novel\n"), cfg).domain == "reading"


def test_a_configured_keyword_without_letters_matches_as_a_substring() -> None:
    cfg = parse_config('[domains]\nlaunches = ["🚀", "-"]\n')
    assert classify_heading("🚀 Q3", cfg).domain == "launches"
    assert classify_heading("Plain", cfg).domain == "general"


@given(st.text(max_size=200), st.text(max_size=1200), st.text(max_size=80))
def test_classify_section_is_total_and_deterministic(heading: str, body: str, group: str) -> None:
    section = SectionInput(heading, body, group)
    c = classify_section(section, Config())
    assert c == classify_section(section, Config())
    assert c.domain in {d for d, _ in DEFAULT_DOMAINS}
    assert c.decided_by in {"heading", "prefix", "body", "group", "fallback"}
    assert c.score >= c.runner_up_score >= 0.0
