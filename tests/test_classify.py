from __future__ import annotations

import pytest

from bonsai_git.classify import classify_heading, is_pinned, matches_keyword
from bonsai_git.config import Config, parse_config


@pytest.mark.parametrize(
    ("heading", "domain", "keyword"),
    [
        ("Seoul Garden Show Trip", "general", None),  # seo is not a prefix match
        ("Capital planning", "general", None),  # api inside capital
        ("APIs & Webhooks", "infrastructure", "api"),  # plural
        ("Agenda for Monday", "general", None),  # agent is not agenda
        ("Grouping rules", "general", None),
        ("Meetup Group", "community", "meetup"),
        ("Services", "infrastructure", "services"),
        ("Monthly SEO Performance Report — March", "business", "seo"),
        ("Sub-agents", "agents", "agent"),
        ("Professional Network", "identity", "network"),
        ("Important Dates", "dates", "dates"),
        ("Birthdays", "dates", "birthday"),
        ("重要日期", "dates", "日期"),
        ("Infrastructure 服务器", "infrastructure", "infrastructure"),
        ("⚙️ 系统与配置", "infrastructure", "配置"),
        ("Family & Business", "identity", "family"),  # first domain in table order wins
        ("Lessons Learned", "general", None),
        ("", "general", None),
    ],
)
def test_classify_heading_default_table(heading: str, domain: str, keyword: str | None) -> None:
    c = classify_heading(heading, Config())
    assert (c.domain, c.keyword) == (domain, keyword)


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
    assert classify_heading("Spring Campaign", cfg).domain == "marketing"
    assert classify_heading("Acme pricing", cfg).domain == "business"
    assert classify_heading("Pricing", cfg).domain == "general"  # business keywords were replaced
    assert [d for d, _ in cfg.domains][:3] == ["marketing", "business", "identity"]
