"""Issue 23: the lexicon as data in eight languages, names from the document, the body in its own
language, the document signal only when it helps, structure, fiction, and corrections that teach."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.classify import (
    Classification,
    SectionInput,
    classify_document,
    classify_heading,
    classify_section,
    document_context,
    dominant_domain,
)
from bonsai_git.core.config import DEFAULT_DOMAIN_NAMES, Config, parse_config
from bonsai_git.core.errors import BadInput
from bonsai_git.core.explain import explain_file, render_explain
from bonsai_git.core.lexicon import LANGUAGES, SPECIAL_KEYS, bundled, parse_lexicon
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.sections import split_sections
from bonsai_git.core.teach import teaching_line

LEXICON = Path(__file__).parent.parent.parent / "bonsai_git" / "data" / "lexicon"
# Preambles that show the document's language (its stopwords): the stems of a language are read then.
PT = "Responde em português, por defeito. A casa é da família e o carro também; não partilhar dados.\n\n"
ES = "Eres la asistente de la tienda. Los pedidos y las devoluciones son para el equipo, con cuidado.\n\n"
DE = "Du bist der Assistent der Arbeitsgruppe. Die Lehre und das Labor sind nicht immer einfach, auch mit dem Team.\n\n"
FR = "Tu es l'assistante de la boutique. Les clients et les commandes sont pour nous, avec soin, dans une semaine.\n\n"


def document(preamble: str, *sections: tuple[str, str]) -> dict[str, str]:
    """{heading: domain} as migrate places the sections of a document with this preamble."""
    text = preamble + "".join(f"## {h}\n{b}\n\n" for h, b in sections)
    return {p.heading: p.domain for p in plan_migration(text, Config()).placed}


def test_every_language_file_parses_and_holds_every_domain() -> None:
    assert sorted(p.stem for p in LEXICON.glob("*.toml")) == sorted(LANGUAGES)
    for path in sorted(LEXICON.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert set(data) <= set(DEFAULT_DOMAIN_NAMES) | set(SPECIAL_KEYS), path.name
        assert {"identity", "people", "business", "projects", "infrastructure", "agents", "legal", "personal",
                "log", "dates"} <= set(data), path.name
    assert [lang.code for lang in bundled()] == list(LANGUAGES)


def test_a_bad_lexicon_file_is_refused_naming_it() -> None:
    with pytest.raises(BadInput, match=r"^xx.toml: unknown key 'finance'"):
        parse_lexicon('finance = ["x"]\n', "xx", DEFAULT_DOMAIN_NAMES, "xx.toml")
    with pytest.raises(BadInput, match=r"^xx.toml: people must be a list of non-empty strings"):
        parse_lexicon('people = ["", "x"]\n', "xx", DEFAULT_DOMAIN_NAMES, "xx.toml")


@pytest.mark.parametrize(
    ("preamble", "heading", "body", "domain"),
    [
        (PT, "Medicação", "- metformina 2x/dia com o jantar\n", "personal"),
        (PT, "Consultas marcadas", "- 12/03 às 9h30 no hospital\n", "personal"),
        (PT, "Testamento", "Cópia no cofre do escritório.\n", "legal"),
        (ES, "Devoluciones", "14 días desde la entrega.\n", "business"),
        (DE, "Laufgruppe", "Dienstags 10 km.\n", "community"),  # a compound matches by its last part (`Gruppe`)
        (FR, "Revendeurs", "Commandes chaque trimestre.\n", "business"),
        ("", "ランブック: キュー詰まり", "1. キューを確認\n", "infrastructure"),
        ("", "コンプライアンス", "輸出管理の確認。\n", "legal"),
        ("", "大纲（第三版）", "第一部：码头。\n", "projects"),
        ("", "한국어판 번역", "번역 계약 진행 중.\n", "business"),
    ],
)
def test_other_languages_are_read_in_their_own_words(preamble: str, heading: str, body: str, domain: str) -> None:
    assert document(preamble, (heading, body))[heading] == domain


def test_a_language_is_only_stemmed_when_the_document_shows_it() -> None:
    # Portuguese stems `datas` (dates) to `dat`; an English memory's "Data" must not read as dates
    assert classify_heading("Data pipeline", Config()).domain != "dates"
    english = "The pipeline for the data is on the server and we run it at night.\n"
    assert document("", ("Data", english), ("Hosts", english), ("Servers", english))["Data"] != "dates"


@pytest.mark.parametrize(
    ("preamble", "owner", "agent"),
    [
        ("You are Ada, the assistant of Miriam Cole.\n", {"miriam", "cole"}, {"ada"}),
        ("Eres Brisa, la asistente de Lola Ferrer.\n", {"lola", "ferrer"}, {"brisa"}),
        ("Du bist Kobold, ein Helfer. Owner: Prof. Dr. Anja Keller\n", {"anja", "keller"}, {"kobold"}),
        ("Você é a Cotovia, assistente da Helena.\n", {"helena"}, {"cotovia"}),
        ("你是墨童，周雨桐的写作助手。\n", {"周雨桐", "雨桐", "周总", "周老板", "周董", "老周", "周老师", "周老師", "阿桐"}, {"墨童"}),
    ],
)
def test_the_preamble_names_the_owner_and_the_agent(preamble: str, owner: set[str], agent: set[str]) -> None:
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


def test_headings_naming_the_owner_or_the_agent() -> None:
    placed = document(
        "You are Ada, the assistant of Miriam Cole.\n\n",
        ("How Miriam Likes Things Done", "Short answers first.\n"),
        ("Ada's Routines", "Check the inbox at 8.\n"),
        ("Miriam's health", "Physio on Thursdays.\n"),  # a topic word beats the name
        ("Daniela (me)", "I write this myself.\n"),
    )
    assert placed == {"How Miriam Likes Things Done": "identity", "Ada's Routines": "agents",
                      "Miriam's health": "personal", "Daniela (me)": "identity"}
    zh = document("你是墨童，周雨桐的写作助手。\n\n", ("关于雨桐", "前财经记者。\n"), ("墨童的工作方式", "每晚汇总。\n"))
    assert zh == {"关于雨桐": "identity", "墨童的工作方式": "agents"}


@pytest.mark.parametrize(
    ("heading", "body"),
    [
        ("Jonah Feld", "He runs the print shop; his wife Ana does the books.\n"),
        ("Sr. Amadeu (empreiteiro)", "Faz obras desde 1990.\n"),
        ("Dr. Jonas Brandt", "Postdoc seit 2023.\n"),
        ("Tía Rosario", "Vive sola en Xàtiva.\n"),
        ("田中 健さん", "インフラ担当。\n"),
        ("林老师", "雨桐的责任编辑。\n"),
        ("김서연 선생님", "번역가. 서울 거주.\n"),
        ("森 大地", "彼は庭師です。\n"),
        ("Noé", "Neto. Alergia a frutos secos; gosta de comboios.\n"),  # one word: the body opens on who he is
    ],
)
def test_a_heading_that_is_a_persons_name_goes_to_people(heading: str, body: str) -> None:
    c = classify_section(SectionInput(heading, body), Config())
    # a foreign role word in the description decides first (`empreiteiro` is a pt people word): still people
    assert (c.domain, c.decided_by) == ("people", "heading" if "empreiteiro" in heading else "name")


@pytest.mark.parametrize(
    ("heading", "body"),
    [
        ("Lessons Learned", "We learned that lessons stick. She said so.\n"),  # lowercase in the document
        ("Open Loops", "Open items: he owes the invoice; open loops are tracked weekly.\n"),
        ("Harbourview Dental", "Trial of the booking widget; pricing at $40 a seat.\n"),  # no person in the body
    ],
)
def test_title_case_words_are_not_a_name(heading: str, body: str) -> None:
    assert classify_section(SectionInput(heading, body), Config()).decided_by != "name"


def test_traps_are_not_decided_by_the_substring_they_hide() -> None:
    hidden = {"Seoul trip": "business", "Capital planning": "infrastructure", "Agenda for Q3": "agents",
              "Grouping rules": "community", "Brandywine": "business", "Tasker": "agents", "Apiary": "infrastructure",
              "Personalised": "identity"}
    for heading, wrong in hidden.items():
        assert classify_heading(heading, Config()).domain != wrong, heading


def test_the_document_signal_does_not_swallow_an_outlier() -> None:
    shop = [(f"{w} orders", "Customers pay on delivery; invoices monthly.\n") for w in ("Wholesale", "Retail", "Web")]
    placed = document("", *shop, ("Brandywine hike", "Six miles with the dog.\n"), ("Apiary visits", "Two hives.\n"),
                      ("Thursday", "Nothing of note.\n"))
    assert placed["Brandywine hike"] == placed["Apiary visits"] == "personal"
    assert placed["Thursday"] == "business"  # no signal of its own, nothing contradicts: the document's domain


def test_explain_says_when_the_document_decided_or_was_not_used() -> None:
    shop = "".join(f"## {w} orders\nCustomers pay on delivery; invoices monthly.\n\n" for w in ("Wholesale", "Retail",
                                                                                                 "Web"))
    text = shop + "## Thursday\nNothing of note.\n\n## Odds\nThe gym and the doctor: hiking plans.\n"
    out = render_explain(explain_file(text, Config()), Config())
    assert "'Thursday' -> business (memory/domains/business/thursday.md): decided by document: no signal of its own" in out
    odds = [r for r in explain_file(text, Config()) if r["heading"] == "Odds"][0]
    assert odds["domain"] == "personal"
    assert [r["domain"] for r in explain_file(text, Config())] == [p.domain for p in plan_migration(text, Config()).placed]


def test_structure_title_misc_group_and_dreaming_block() -> None:
    text = ("# Assistant memory\n\nNotes.\n\n## Familie\nOma und Opa.\n\n# Misc\n\n## Dies und das\nKaffee.\n\n"
            "## Promoted From Short-Term Memory (2026-03-04)\n- the owner likes tea\n")
    sections = split_sections(text).sections
    assert [s.group for s in sections] == ["", "Misc", "Misc"]  # the first `#` is the file's title
    decisions = classify_document([SectionInput(s.heading, s.text, s.group) for s in sections], Config())
    assert decisions[0].domain != "agents" and decisions[1].decided_by != "group"
    assert (decisions[2].domain, decisions[2].decided_by) == ("log", "prefix")


def test_a_novels_characters_and_settings_are_projects() -> None:
    novel = "你是墨童，周雨桐的写作助手。雨桐是悬疑小说作家。\n\n"
    placed = document(novel, ("人物：陆青禾", "女主角，28 岁。\n"), ("设定：雾港城", "虚构的港口城市。\n"))
    assert placed == {"人物：陆青禾": "projects", "设定：雾港城": "projects"}
    assert document("", ("人物：陆青禾", "公司的客户。\n"))["人物：陆青禾"] == "people"


def test_bonsai_toml_extends_a_domain_or_replaces_its_words() -> None:
    extended = parse_config('[domains.personal]\nextend = ["allotment"]\n')
    assert classify_heading("Allotment", extended).domain == "personal"
    assert classify_heading("Medications", extended).domain == "personal"  # the lexicon's words stay
    dotted = parse_config('domains.personal.extend = ["allotment"]\n')
    assert dotted.domains == extended.domains
    with pytest.raises(BadInput, match="takes keywords .* or extend"):
        parse_config('[domains.personal]\nkeywords = ["a"]\nextend = ["b"]\n')


@pytest.mark.parametrize(
    ("heading", "body", "domain"),
    [("Apiary visits", "Two hives at the farm.\n", "community"), ("Glaze tests", "Celadon crawls.\n", "business"),
     ("Odds and ends", "The blue tile cracked.\n", "identity")],
)
def test_the_taught_line_would_have_placed_the_section(heading: str, body: str, domain: str) -> None:
    line = teaching_line(heading, body, domain, Config())
    assert line is not None and line.startswith(f"domains.{domain}.extend = [")
    assert classify_section(SectionInput(heading, body), parse_config(line + "\n")).domain == domain


def test_nothing_to_teach_when_the_rules_agree_or_a_date_decides() -> None:
    assert teaching_line("Pricing", "", "business", Config()) is None
    assert teaching_line("2026-03-01 call", "", "business", Config()) is None
    configured = parse_config('[domains]\nstudio = ["kiln"]\n')
    assert teaching_line("Glaze tests", "", "studio", configured) == 'add "glaze" to [domains.studio] keywords'


def test_a_heading_that_only_says_misc_lets_a_clear_body_decide() -> None:
    body = "- Zahnarzt am Dienstag, 9 Uhr\n- Rezept für die Apotheke abholen; Physiotherapie verschoben\n"
    c = classify_section(SectionInput("Verschiedenes", body), Config(), context=document_context(DE, [], Config()))
    assert (c.domain, c.decided_by) == ("personal", "body")
    assert classify_section(SectionInput("Misc", "Nothing much here.\n"), Config()).domain == "general"


@pytest.mark.parametrize(
    ("preamble", "heading", "domain"),
    [
        (FR, "Association des voisins", "community"),  # not the neighbours (people): the association
        (ES, "Microscopio del huerto", "infrastructure"),  # the microscope, not the garden
        (ES, "Huerto del microscopio", "personal"),
    ],
)
def test_a_romance_headings_first_noun_settles_a_tie(preamble: str, heading: str, domain: str) -> None:
    config = parse_config('[domains.infrastructure]\nextend = ["microscopio"]\n'
                          '[domains.personal]\nextend = ["huerto"]\n')
    c = classify_section(SectionInput(heading), config, context=document_context(preamble, [], config))
    assert c.domain == domain and c.runner_up_score == c.score
    english = classify_section(SectionInput("Garden microscope"), parse_config(
        '[domains.infrastructure]\nextend = ["microscope"]\n[domains.personal]\nextend = ["garden"]\n'))
    assert english.domain == "infrastructure"  # no Romance preposition: table order


def test_another_given_name_before_the_owners_surname_is_a_relative() -> None:
    placed = document(
        "Owner: Paulo Teixeira\n\n",
        ("Sobre o Paulo Teixeira", "Reformado.\n"),
        ("Inês Teixeira", "A irmã do Paulo; vive em Braga, trabalha como enfermeira.\n"),
    )
    assert placed == {"Sobre o Paulo Teixeira": "identity", "Inês Teixeira": "people"}


def test_a_role_word_before_a_titled_name_is_a_person() -> None:
    c = classify_section(SectionInput("Steuerberater Dr. Hofmann", "Er macht die Buchhaltung seit 2019.\n"),
                         Config())
    assert c.domain in ("people", "business")
    c = classify_section(SectionInput("담당 Dr. Weiss", "She reviews the chapters every month.\n"), Config())
    assert (c.domain, c.decided_by) == ("people", "name")


def test_a_short_keyword_outside_english_matches_only_itself() -> None:
    # French `^moi` (identity) has a stem of three letters: `mois` (month) is another word
    assert classify_heading("Bilan du mois", Config()).domain != "identity"


@pytest.mark.parametrize(
    "heading",
    ["12 mars 2026 — appel avec la banque", "3. März 2026: Release", "15 de marzo de 2026 - reunión",
     "1er avril 2026", "9 de junho de 2026 — consulta", "Okt 4, 2026 sync"],
)
def test_a_heading_that_starts_with_a_date_in_another_language_is_a_log_entry(heading: str) -> None:
    c = classify_heading(heading, Config())
    assert (c.domain, c.decided_by) == ("log", "prefix")


@pytest.mark.parametrize("heading", ["Mars rover 2026", "Marketing 2026", "Mayo"])
def test_month_like_words_are_not_dates(heading: str) -> None:
    assert classify_heading(heading, Config()).decided_by != "prefix"


def test_a_hangul_phrase_with_a_space_is_not_a_name() -> None:
    # 배 is a family name, but `배운 것` ("things learned") is two words; a Korean name has no space
    assert classify_section(SectionInput("배운 것", "교수님 말씀: 먼저 그림부터.\n"), Config()).decided_by != "name"
    assert classify_section(SectionInput("박지훈", "연구실 선배, 교수님 조교. 그는 통계 담당.\n"), Config()).domain == "people"


def test_the_topic_before_a_dash_settles_a_tie() -> None:
    config = parse_config('[domains.infrastructure]\nextend = ["microscope"]\n[domains.personal]\nextend = ["garden"]\n')
    assert classify_heading("Garden — microscope", config).domain == "personal"
    assert classify_heading("Microscope: garden", config).domain == "infrastructure"


def test_the_c_stemmer_and_the_pure_python_stemmer_give_the_same_stems() -> None:
    """snowballstemmer stems with PyStemmer's C code when it is installed (a dependency on CPython) and
    in pure Python otherwise: the same memory must give the same tree either way."""
    import re

    from snowballstemmer import (  # type: ignore[import-untyped]
        english_stemmer,
        french_stemmer,
        german_stemmer,
        portuguese_stemmer,
        spanish_stemmer,
    )

    stemmer_c = pytest.importorskip("Stemmer")
    words = set()
    for path in [*LEXICON.glob("*.toml"), *(Path(__file__).parent.parent / "corpus").glob("*.md")]:
        words |= {w.casefold() for w in re.findall(r"[^\W_]+", path.read_text(encoding="utf-8"))}
    assert len(words) > 5000
    pure = {"english": english_stemmer.EnglishStemmer, "german": german_stemmer.GermanStemmer,
            "spanish": spanish_stemmer.SpanishStemmer, "french": french_stemmer.FrenchStemmer,
            "portuguese": portuguese_stemmer.PortugueseStemmer}
    for language, make in pure.items():
        python, c = make(), stemmer_c.Stemmer(language)
        assert [w for w in sorted(words) if python.stemWord(w) != c.stemWord(w)] == [], language


def test_a_heading_in_none_of_the_documents_languages_is_read_in_all() -> None:
    """A French aside in a Spanish memory: its heading matches no Spanish or English word and shows
    another language (a letter outside ASCII, or another language's stopword), so it is read in
    every lexicon language; the body is not (English "these" would read as French thèse)."""
    placed = document(ES, ("Revendeurs à l'étranger", "- Terre & Lumière (Montpellier)\n"),
                      ("Legacy Wiki Export", "- Convert these to fenced blocks when touching a page.\n"))
    assert placed == {"Revendeurs à l'étranger": "business", "Legacy Wiki Export": "general"}
    assert document("", ("Fournisseurs à Lyon", "- Terre & Lumière\n"))["Fournisseurs à Lyon"] == "business"
    assert document("", ("Glaze tests", "- Celadon crawls.\n"))["Glaze tests"] == "general"  # German writes `tests` too


@pytest.mark.parametrize("heading", [
    "Mar 3", "jan 15", "Feb 3 (snow day)", "2/14", "1/22 tournament", "Apr 9 — Easter orders", "Sept 12",
    "3 mars — réunion chez la notaire", "Lunes 9 de marzo — inspección", "15. März: Termin", "14.3. Treffen",
    "3月28日 会议", "3월 28일 통화", "Monday, March 3", "Mar 3, 2026",
])
def test_a_heading_that_starts_with_a_date_without_its_year_is_log(heading: str) -> None:
    """LABELS.md: "a heading that starts with a date, in any format -> log"; a journal drops the year."""
    assert (classify_heading(heading, Config()).domain, classify_heading(heading, Config()).decided_by) == ("log", "prefix")


@pytest.mark.parametrize("heading", ["24/7 support", "3 marketing ideas", "Marketing", "v1.2 release", "March 2026 plans"])
def test_numbers_that_are_not_a_leading_date(heading: str) -> None:
    assert classify_heading(heading, Config()).decided_by != "prefix"


def test_a_numbered_heading_is_read_without_its_number() -> None:
    """`1. Suppliers`, `10) Money`: the number orders the sections and says nothing about the topic."""
    placed = document("I am Crumb, the assistant of Rosalind (\"Roz\") Achterberg.\n\n",
                      ("1. Roz", "- 44, lives above the shop.\n"), ("2. Suppliers", "- flour from the mill\n"),
                      ("10) Money", "- savings\n"))
    assert placed == {"1. Roz": "identity", "2. Suppliers": "business", "10) Money": "personal"}


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("# MEMORY — Tern (platform agent, Larkspur)\n\nPrimary human: **Maren Østby**, Head of Platform.\n",
     {"maren", "østby"}, {"tern"}),
    ("---\nagent: hachi\nowner: 森下 遥 (Haruka Morishita)\n---\n遥さん（個人ゲーム開発者）の専属アシスタント。\n",
     {"haruka", "morishita", "森下遥", "遥さん"}, {"hachi"}),
    ("> Agent: **토리** · Owner: 김서연 (Kim Seoyeon)\n", {"김서연", "서연", "kim", "seoyeon"}, {"토리"}),
    ('나는 "누리", 프리랜서 번역가 정하윤 님의 개인 비서 에이전트다.\n', {"정하윤", "하윤"}, {"누리"}),
    ("# MEMORY.md — Jabuti 🐢\n\nAssistente pessoal e de operação do **Rafael Nogueira** (\"Rafa\").\n",
     {"rafael", "nogueira", "rafa"}, {"jabuti"}),
])
def test_names_from_field_lines_titles_and_emphasis(preamble: str, owner: set[str], agent: set[str]) -> None:
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


def test_who_i_am_is_the_agent_when_the_agent_speaks_as_i() -> None:
    """LABELS.md: the agent's own identity goes to agents even when the heading says Identity."""
    agent_voice = "Ich bin Fidi, der Assistent von Katrin. Ich lese die Post.\n\n"
    assert document(agent_voice, ("Wer ich bin", "- Assistenz seit 2025\n"))["Wer ich bin"] == "agents"
    owner_voice = "You are Ada, my assistant. I run a bakery.\n\n"
    assert document(owner_voice, ("About me", "- I bake bread.\n"))["About me"] == "identity"
    titled = "# MEMORY.md — Jabuti\n\nAssistente do Rafael.\n\n"
    assert document(titled, ("Jabuti (eu)", "- assistente\n"))["Jabuti (eu)"] == "agents"  # "(me)" naming the agent
    assert document("", ("Daniela (me)", "- likes tea\n"))["Daniela (me)"] == "identity"


@pytest.mark.parametrize(("heading", "body", "domain"), [
    ("My cron jobs", "| 06:30 | Morning sweep → DM Maren |\n| Fri | Chase overdue action items |\n", "agents"),
    ("Cron & Scheduled Jobs", "- 02:00 nightly backup of the NAS\n- Sunday: prune docker images\n", "infrastructure"),
    ("Recurring", "- Monday: pipeline digest to Dana\n- Thursday: chase unpaid invoices (draft only)\n", "agents"),
    ("Tareas semanales", "- Lunes: recordar el pedido de café.\n- Martes: resumen de reseñas.\n", "agents"),
    ("定时任务", "- 每周一 9:00 汇总周报发给老板\n", "agents"),
    ("Cron", "- every 5 min: node exporter scrape\n", "infrastructure"),  # no job cue: the heading decides
])
def test_recurring_work_goes_to_whoever_does_the_jobs(heading: str, body: str, domain: str) -> None:
    """LABELS.md: the agent's own recurring work (briefings, reports, reminders, chasing) -> agents;
    system jobs on hosts (backups, pruning) -> infrastructure; the topic the jobs touch does not decide."""
    c = classify_section(SectionInput(heading, body), Config())
    assert c.domain == domain


def test_a_katakana_keyword_inside_a_longer_katakana_word_does_not_match() -> None:
    assert classify_heading("住宅ローン", Config()).domain == "personal"  # the mortgage
    assert classify_heading("ローンチ計画", Config()).domain != "personal"  # the launch, not a loan


def test_a_two_syllable_hangul_word_is_not_a_persons_name() -> None:
    """Korean full names have three syllables (`박지훈`); `조교` (a TA) starts with the surname 조 too."""
    assert document("", ("박지훈", "- 연구실 선배, 박사과정\n"))["박지훈"] == "people"
    assert classify_section(SectionInput("조교 (TA)", "- 학부 수업 조교, 주 10시간\n"), Config()).decided_by != "name"


@pytest.mark.parametrize("heading", ["Papa", "My mom", "Oma Helga", "Mãe (Rosa)", "老公", "妈妈", "엄마", "Grand-mère"])
def test_a_heading_that_is_one_relative_goes_to_people(heading: str) -> None:
    """LABELS.md: a section about one other person -> people; a relative is named by the kin word."""
    c = classify_section(SectionInput(heading, "- 67, retired, lives nearby.\n"), Config())
    assert (c.domain, c.decided_by) == ("people", "name")


def test_a_company_suffix_names_a_company() -> None:
    assert classify_heading("Canary Ventures", Config()).domain == "business"
    assert classify_heading("Brightside Ltd", Config()).domain == "business"


@pytest.mark.parametrize(("heading", "body"), [
    ("!!!", "never book anything for the morning after a night shift. not the dentist. ever.\n"),
    ("IMPORTANT", "Never send anything to a student. Draft it, I send it. No texts to players.\n"),
    ("Ce que je ne dois jamais faire", "- Appeler Papa directement.\n- Supprimer un mail de la notaire.\n"),
    ("Ojo", "- Nunca confirmar una reserva sin preguntar.\n- Siempre en español con los proveedores.\n"),
    ("注意", "不要替她回复客户。\n"),
])
def test_a_vague_heading_over_rules_for_the_agent_is_agents(heading: str, body: str) -> None:
    """LABELS.md: operating rules for the agent -> agents; the rule is told by how its sentences open."""
    c = classify_section(SectionInput(heading, body), Config())
    assert (c.domain, c.decided_by) == ("agents", "body")


@pytest.mark.parametrize(("heading", "body"), [
    ("Notes", "- Normal week. No news from the bank.\n- The plumber came on Tuesday.\n- Bought paint.\n"),
    ("NIE y residencia", "Cita en extranjería el martes.\n"),
    ("Lessons learned", "- Always get the quote signed before the sketch.\n"),  # lessons go by their topic
])
def test_words_that_only_look_like_a_rule(heading: str, body: str) -> None:
    assert classify_section(SectionInput(heading, body), Config()).domain != "agents"


def test_an_english_capital_do_is_not_a_portuguese_preposition() -> None:
    # `outreach` (community) and `rules` (agents) tie: table order decides, as for any English heading
    assert classify_heading("Outreach rules (DO NOT BREAK)", Config()).domain == "agents"


def test_a_journals_undated_section_is_not_put_in_log_by_the_document() -> None:
    """Log and dates are told by a heading's form (a date), so they never stand for the document."""
    entries = [(f"2026-03-0{i} — practice", "- drills, scrimmage\n") for i in range(1, 7)]
    placed = document("", *entries, ("the basics", "- 38, teaches chemistry\n"))
    assert placed["the basics"] != "log"
    assert dominant_domain([Classification("log", "prefix", 2.0)] * 6) is None


@pytest.mark.parametrize(("heading", "body", "domain"), [
    ("KubeCon trip", "- Conference passes bought.\n- Dario's talk proposal submitted.\n", "business"),
    ("Bogotá — vuelos/hotel", "- Hotel paid on company card, 4 nights.\n", "business"),
    ("Viaje a Lisboa", "- Con mis hermanas y los primos, para el puente de mayo.\n", "personal"),  # Spanish `con` is "with"
    ("Trip to Porto", "- Anniversary weekend, the old hotel by the river.\n", "personal"),
])
def test_a_work_trip_is_business_and_a_private_one_personal(heading: str, body: str, domain: str) -> None:
    """LABELS.md: the owner's private trips -> personal; work trips (trade shows, conference talks,
    client visits) -> business."""
    assert classify_section(SectionInput(heading, body), Config()).domain == domain


def test_how_i_work_is_the_agent_when_it_speaks_as_i() -> None:
    assert document("I am Crumb, the assistant of Roz.\n\n", ("8. How I work", "- short answers\n"))["8. How I work"] == "agents"


def test_a_name_heading_whose_body_opens_on_the_owner_is_identity() -> None:
    """Issue 23: a heading naming the owner is identity, also under a nickname the preamble does not
    give, when the body opens on the owner's name; another person's body opening on a possessive
    ("Claire's brother", "雨桐的责任编辑") stays people."""
    fm = "---\nagente: Muela\ndueña: Dra. Valeria Sosa\n---\n# Memoria de Muela\n\n"
    placed = document(fm, ("Vale", 'Valeria "Vale" Sosa, 44, odontóloga general.\n'),
                      ("Carla", "Secretaria desde 2022. Estudia enfermería. Cumple el 17 de mayo.\n"))
    assert placed == {"Vale": "identity", "Carla": "people"}
    owner = "You are Pip, the assistant of Claire Dubois.\n\n"
    assert document(owner, ("Olivier", "Claire's brother, lives in Lyon, he is a nurse.\n"))["Olivier"] == "people"
    zh = "你是墨童，周雨桐的写作助手。\n\n"
    assert document(zh, ("林老师", "雨桐的责任编辑林婉清，在上海的出版社工作。\n"))["林老师"] == "people"


def test_a_chat_memory_where_the_owner_says_i_keeps_about_me_for_the_owner() -> None:
    """The agent speaks as "I" only when it introduces itself ("I am Tern", "Soy Muela"); an owner's
    "anything I say goes in here" does not make `about me` the agent's."""
    chat = ('owner: Sam Whitfield · assistant: "Pip"\n\n[2026-01-04 21:12] me: ok pip, keep a memory file. '
            'anything I say "remember" goes in here\n\n')
    assert document(chat, ("about me", "Sam, 38, chemistry teacher in Leeds.\n"))["about me"] == "identity"
    assert document("Soy Muela, la asistente de Valeria.\n\n", ("Sobre mí", "- asistente\n"))["Sobre mí"] == "agents"


@pytest.mark.parametrize(("heading", "body"), [
    ("Tom", "Tom Vance — associate since 2024. Wants hearing binders 5 days ahead.\n"),
    ("jo", "Jo Marsh, my partner. Nurse at LGI, nights rota alternate weeks.\n"),
    ("who is Ravi?", "Ravi Sandhu — freelance audio editor, does the mix. Partner just had a baby.\n"),
    ("阿凯", "郑凯，湖南人，跟陈总 5 年。能力强。生日 4 月 2 日。\n"),
    ("jess", "dana's sister. lives in york, two kids. does the pickup on wednesdays.\n"),
    ("Valentina", "Marketing lead at Farmacias Quetzal. Speaks fast, likes bullet points.\n"),
])
def test_a_name_heading_over_a_body_about_that_person_is_people(heading: str, body: str) -> None:
    """A body that opens on the heading's name with a surname (`## Tom` / "Tom Vance — …"), a role
    word (associate, editor), a lowercase heading the body writes as a full name, a question frame
    (`who is …?`) and a Chinese nickname (阿凯) all tell a person."""
    assert document("I keep notes for the owner.\n\n", (heading, body))[heading] == "people"


def test_a_korean_agent_named_with_its_romanisation_is_the_agent() -> None:
    pre = "너는 모모(Momo)야. 김서연(Seoyeon Kim)의 비서.\n\n"
    assert document_context(pre, [], Config()).agent >= {"모모"}
    assert document(pre, ("모모 할 일 (매주)", "- 월요일: 주간 실험 일정 정리\n"))["모모 할 일 (매주)"] == "agents"


@pytest.mark.parametrize(("preamble", "owner"), [
    ("owner: Priyanka & Tom Ellery\n", {"priyanka", "tom", "ellery"}),
    ("You are Sabiá, the assistant of Chidi Okonkwo and Hannah Bell.\n", {"chidi", "okonkwo", "hannah", "bell"}),
    ("You are Sabiá. Owner: Helena Silva, retired architect. Her husband is Luc Moreau.\n",
     {"helena", "silva", "luc", "moreau"}),
])
def test_a_couple_are_both_owners(preamble: str, owner: set[str]) -> None:
    """LABELS.md: facts of the human(s) the agent serves go to identity, the couple in h09 too: a second
    name after "and"/"&", or the owner's spouse named so in the opening, is an owner."""
    assert set(document_context(preamble, [], Config()).owner) == owner


def test_a_heading_that_says_mixed_needs_a_body_clearly_about_one_thing() -> None:
    """`Misc`, `Divers`, `メモ`: the writer says the section is mixed (LABELS.md: mixed notes -> general),
    so the body decides only with three times the runner-up's points."""
    mixed = "- the customer order for Fenwick\n- printer on the second floor jams\n- dentist on Friday\n"
    clear = "- dentist on Friday\n- physio Tuesday\n- blood test results due\n"
    placed = document("", ("Misc", mixed), ("Stuff to remember", clear))
    assert placed == {"Misc": "general", "Stuff to remember": "personal"}


def test_a_day_or_a_month_is_not_a_name() -> None:
    pre = "You are Sabiá. Owner: Helena Silva. Her husband is Luc Moreau.\n\n"
    assert document(pre, ("Thursday", "Luc has physio at 10, then the market.\n"))["Thursday"] != "identity"


@pytest.mark.parametrize(("heading", "body"), [
    ("JR", "Jamal Reyes, charge nurse on nights. fair but strict on breaks.\n"),
    ("M.", "Marguerite, Dee's mum. lives in Swindon.\n"),
    ("Pedro & Sofia", "Amigos de Lisboa: ele é médico, ela é professora.\n"),
    ("liam", "apprentice 2nd year at the college on thursdays so he is not on site\n"),
])
def test_initials_a_pair_of_names_and_a_lowercase_apprentice_are_people(heading: str, body: str) -> None:
    assert document("", (heading, body))[heading] == "people"


@pytest.mark.parametrize(("heading", "domain"), [
    ("Never book me before 9 on Mondays", "agents"), ("Don't accept calendar invites from recruiters", "agents"),
    ("NIE y residencia", "personal"),  # an acronym, not German "nie" (never)
])
def test_a_heading_that_is_a_rule_sentence_is_for_the_agent(heading: str, domain: str) -> None:
    assert document(ES if "NIE" in heading else "", (heading, "- ver abajo\n"))[heading] == domain


@pytest.mark.parametrize("heading", ["wk 6", "Week 12", "KW 12", "2026-W07"])
def test_a_week_number_is_a_date(heading: str) -> None:
    assert document("", (heading, "- moved the sofa, cooked for six\n"))[heading] == "log"


def test_a_german_shaped_heading_in_an_english_memory_is_read_in_german() -> None:
    placed = document("Owner: Julien.\n\n", ("Anmeldung & Ummeldung", "- KVR appointment on 3 March\n"),
                      ("Versicherungen", "- see folder\n"))
    assert placed == {"Anmeldung & Ummeldung": "legal", "Versicherungen": "personal"}


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("# MEMÓRIA — Casa Ferreira Antunes\n\nSou o assistente da casa. Sirvo a **Joana Ferreira** (mãe) e o "
     "**Miguel Antunes** (pai).\n", {"joana", "ferreira", "miguel", "antunes"}, set()),
    ("# Mémoire — Julien\n\nOwner: Julien Marchetti. Agent: \"Hugo\".\n", {"julien", "marchetti"}, {"hugo"}),
    ("나는 스튜디오의 프로듀서 에이전트다. 주인은 대표 겸 PD **정다은**님.\n", {"정다은", "다은"}, set()),
])
def test_who_is_served_and_who_serves(preamble: str, owner: set[str], agent: set[str]) -> None:
    """A title names a household (`Casa …`) or the owner, not the agent, when the opening says so;
    "Sirvo a A e o B" names two owners; `주인은 … 정다은님` names the owner."""
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


@pytest.mark.parametrize(("heading", "domain"), [("the job", "business"), ("#job Costa shifts", "business"),
                                                 ("Cron jobs", "infrastructure"), ("Termine", "dates")])
def test_job_is_work_and_jobs_are_a_hosts(heading: str, domain: str) -> None:
    assert document(DE if heading == "Termine" else "", (heading, "- see below\n"))[heading] == domain


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("---\nowners: Sam Whitfield, Priya Raman\nagent: Hearth\n---\n", {"sam", "whitfield", "priya", "raman"}, {"hearth"}),
    ("I'm Pip, Hannah's assistant on OpenClaw.\n", {"hannah"}, {"pip"}),
    ("you are robin, assistant for frank delaney (72). retired machinist.\n", {"frank", "delaney"}, {"robin"}),
    ('Soy "Chencha", la asistente de la familia. Sirvo sobre todo a Lupita (Guadalupe) y a Toño (Antonio).\n',
     {"lupita", "toño"}, {"chencha"}),
    ('Sou a "Cida", assistente digital do casal Lúcia Cavalcanti (71) e Evandro Cavalcanti (74).\n',
     {"lúcia", "evandro", "cavalcanti"}, {"cida"}),
    ("我是「小辣椒」，蜀香阁火锅的老板王建国（大家喊他王总/老王）的私人助理。\n",
     {"王建国", "建国", "王总", "王老板", "王董", "老王", "王老师", "王老師", "阿国"}, {"小辣椒", "辣椒"}),
    ("나는 '모루'. 서하린 작가(필명 하린)의 작업 비서 에이전트다.\n", {"서하린", "하린", "작가님"}, {"모루"}),
    ("---\nagent: kaze-ops\nowner: 株式会社ソラノート SRE チーム\n---\n", set(), {"kaze", "ops"}),
    ("Ich bin der Assistent von Jonas Behrendt (GitHub: @jbehr), Berlin-Neukölln.\n", {"jonas", "behrendt"}, set()),
])
def test_owners_and_agents_as_memories_name_them(preamble: str, owner: set[str], agent: set[str]) -> None:
    """A field line's list, `X's assistant`, an all-lowercase memory, quoted agent names, `Sirvo sobre
    todo a A y a B`, `do casal A e B`, `老板王建国`, `서하린 작가의 … 비서`; a company is no owner, and a
    comma after a name does not add the town."""
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


def test_where_the_agent_speaks_as_i_a_first_person_heading_is_the_agents() -> None:
    pre = 'Sou a Cida, assistente do casal Lúcia e Evandro. ' + PT
    assert document(pre, ("Lembretes que eu mando", "- remédios às 8h\n"))["Lembretes que eu mando"] == "agents"


@pytest.mark.parametrize(("heading", "body"), [("Canelo", "Our dog, a 6-year-old mix. Vet is Dr. Ruiz, he hates baths.\n"),
                                               ("Biscuit", "the cat. 12, thyroid pills, she bites the vet.\n")])
def test_a_pet_is_personal(heading: str, body: str) -> None:
    assert document("", (heading, body))[heading] == "personal"


@pytest.mark.parametrize(("heading", "owners"), [("About us", True), ("Quiénes somos", True), ("Amazon US", False),
                                                 ("US taxes", False)])
def test_who_we_are_is_the_owners(heading: str, owners: bool) -> None:
    placed = document(ES if "Qui" in heading else "", (heading, "- Lupita, 41, contadora; Toño, 44\n"),
                      ("Shop", "- orders and clients\n"))
    assert (placed[heading] == "identity") == owners  # `US` there is the country


def test_a_bare_name_in_a_novelists_memory_is_a_character() -> None:
    """Issue 23: a careful human files the novel's characters under projects; an editor with a title
    stays people."""
    pre = "I am Quill, the assistant of novelist Mara Voss. She is writing her third novel.\n\n"
    placed = document(pre, ("Elena Varga", "The heroine, 22, a lighthouse keeper; she lies to protect her brother.\n"),
                      ("Ms. Okafor", "Her editor at Halcyon Press; she wants chapter 12 by Friday.\n"))
    assert placed == {"Elena Varga": "projects", "Ms. Okafor": "people"}


@pytest.mark.parametrize("heading", ["Santé", "12/ene/2026", "dez/2025"])
def test_a_foreign_word_is_read_before_a_name_and_dates_with_month_names(heading: str) -> None:
    placed = document("I keep notes for Lucía.\n\n", (heading, "- her GP, Dr. Soler; she has a check-up in May\n"))
    assert placed[heading] == ("personal" if heading == "Santé" else "log")


def test_a_long_word_only_another_lexicon_writes_shows_that_language() -> None:
    """`Impuestos` in an English memory is Spanish (a word of six letters or more that only the Spanish
    lexicon writes so); `Glaze tests` stays English though German writes `tests`."""
    placed = document("I keep notes for Lucía, a translator.\n\n", ("Impuestos", "- quarterly forms\n"),
                      ("Glaze tests", "- cone 6 on Friday\n"))
    assert placed["Impuestos"] != "general" and placed["Glaze tests"] != "infrastructure"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("---\nagent: Otto\nowners: [Amara Nwosu, Lukas Feld]\n---\n", {"amara", "nwosu", "lukas", "feld"}, {"otto"}),
    ("You are 다람이, 한서윤(Seoyun Han)님의 개인 assistant.\n", {"한서윤", "서윤"}, {"다람이", "람이"}),
    ('Sos "Mate", el asistente de Facundo Iriarte (CEO de Cobrix).\n', {"facundo", "iriarte"}, {"mate"}),
    ("Je suis Mouette, l'assistante d'Yvonne (71 ans) et de Jean-Pierre (74 ans).\n", {"yvonne", "jean", "pierre"}, {"mouette"}),
])
def test_more_ways_memories_name_owners_and_agents(preamble: str, owner: set[str], agent: set[str]) -> None:
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


def test_nouvelles_de_la_famille_is_news_not_fiction() -> None:
    """A retired couple's memory that keeps "les nouvelles de la famille" is no novelist's: their
    children stay people, not characters."""
    pre = "Je suis Mouette, l'assistante d'Yvonne et de Jean-Pierre. Je garde les nouvelles de la famille. " + FR
    placed = document(pre, ("Gaëlle", "Leur fille, 45 ans, vit à Rennes.\n"))
    assert placed["Gaëlle"] == "people"


@pytest.mark.parametrize(("heading", "domain"), [
    ("what you do for me every week", "agents"), ("Quién sos", "agents"), ("Dr. P", "people"),
    ("Inc 07.04. — Suche leer", "infrastructure"), ("04/02/26 — memory clinic", "log"), ("朵朵", "people"),
])
def test_second_person_headings_initial_titles_incidents_and_short_dates(heading: str, domain: str) -> None:
    body = {"Dr. P": "Her cardiologist; he sees her every 3 months.\n", "朵朵": "女儿，5 岁，上幼儿园。\n"}.get(heading, "- see below\n")
    assert document("I keep notes for Denise.\n\n", (heading, body))[heading] == domain


def test_an_unnamed_agent_that_speaks_as_i_and_chinese_i_am_xs_assistant() -> None:
    """"Soy el asistente de Lucía": the agent speaks as I though unnamed; "我是陈晓峰的销售助理" names the
    owner (陈晓峰), not the agent."""
    es = document_context("Soy el asistente de Lucía Ferrer (doctoranda). Escribo en español.\n", [], Config())
    assert es.agent_voice and set(es.owner) == {"lucía", "ferrer"}
    zh = document_context("我是陈晓峰的销售助理（小助）。晓峰在杭州做大客户销售。\n", [], Config())
    assert "陈晓峰" in zh.owner and "陈晓峰" not in zh.agent


def test_capitalised_german_nouns_are_not_a_name() -> None:
    assert document(DE, ("Jeden Morgen", "- Enkel anrufen, Tabletten erinnern\n"))["Jeden Morgen"] != "people"


@pytest.mark.parametrize(("heading", "body", "wrong"), [
    ("Always-on VPN setup", "- WireGuard on the router\n", "agents"),
    ("Never again: the 2024 outage", "- DNS expired\n", "agents"),
    ("Never Split the Difference", "- a book on negotiation, reading it in May\n", "agents"),
    ("Avoid list for restaurants", "- shellfish, peanuts\n", "agents"),
    ("Carlos", "Dog walker, Tuesdays and Fridays, he has a key.\n", "personal"),
    ("UK", "United Kingdom tax residency: my accountant says 183 days.\n", "people"),
    ("Johnson & Johnson", "Client since 2023; the brand team wants a quarterly report.\n", "people"),
    ('"Project Phoenix" status', "- phase 2 starts in June\n", "general"),
    ("Romance", "Priya and Tom met in 2019 at a friend's wedding.\n", "identity"),
    ("Cookies", "- the recipe: 200 g butter, bake 12 minutes\n", "legal"),
])
def test_the_new_rules_keep_their_place(heading: str, body: str, wrong: str) -> None:
    """An adversarial pass: a rule opener in a compound, a label or a title; a pet word before a role;
    an acronym spelled out; a company with `&`; a quoted name before the topic; the owner's name
    opening a body that is not about the owner; an English word French also writes."""
    assert document("You are Ada, the assistant of Priya Raman.\n\n", (heading, body))[heading] != wrong


def test_lowercase_and_possessive_preambles_make_no_junk_names() -> None:
    for pre in ("i'm here to help. i work for acme corp and keep notes\n", "Unlike Siri's assistant, I remember.\n"):
        context = document_context(pre, [], Config())
        assert not ({"here", "to", "help", "acme", "corp", "and"} & set(context.owner | context.agent))
    assert document_context("给老板打电话。老板很忙。\n", [], Config()).owner == frozenset()


def test_wikilinks_and_months_as_names() -> None:
    placed = document("", ("[[Ravi Shah|Ravi]]", "Ravi Shah, cofounder, married to Mina.\n"),
                      ("April", "April Jones, my cousin; she lives in Leeds.\n"))
    assert placed == {"[[Ravi Shah|Ravi]]": "people", "April": "people"}


def test_a_question_heading_is_read_without_its_frame() -> None:
    placed = document("", ("what about the contract with Loomcraft?", "- signed 2026-03-01\n"),
                      ("who am I working for?", "- Noor, the host\n"))
    assert placed == {"what about the contract with Loomcraft?": "legal", "who am I working for?": "identity"}


def test_a_chinese_owner_is_named_by_surname_and_title() -> None:
    """陈志远 is 陈总 or 陈老板 to the people around him: a heading so named is the owner (identity)."""
    pre = "我是小跨，跨境电商团队的 AI 运营助理，服务老板陈志远。\n\n"
    assert document(pre, ("陈总", "46 岁，潮汕人，做决定很快。\n"))["陈总"] == "identity"


@pytest.mark.parametrize(("heading", "domain"), [("Kirchenchor", "community"), ("Heizungstausch?", "personal")])
def test_a_german_compound_is_read_by_its_head_or_its_marked_modifier(heading: str, domain: str) -> None:
    """`Kirchen|chor`: a four-letter head counts; `Heizungs|tausch`: a modifier marked by a linking s
    (-ungs, -heits) counts when the head says nothing."""
    assert document(DE, (heading, "- siehe unten\n"))[heading] == domain


@pytest.mark.parametrize("heading", ["Obra: Moradia em Cascais", "Campaign: spring launch", "캠페인: B2B 파일럿"])
def test_a_works_or_campaign_prefix_names_a_project(heading: str) -> None:
    assert document("", (heading, "- status\n"))[heading] == "projects"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    (PT, "Grana pessoal", "personal"), (PT, "Bacen / regulatório", "legal"), (PT, "Remédios", "personal"),
    (PT, "Cartório", "legal"), ("", "Service catalog", "infrastructure"), (ES, "Gestoría & impuestos", "business"),
    ("", "Dana prefs", "identity"), ("", 'When I say "ship it"', "agents"),
])
def test_words_are_filed_under_the_domain_they_name(preamble: str, heading: str, domain: str) -> None:
    """Seventeen Portuguese words (grana, remédios, cartório ...) had been filed under log by a slip;
    a person's `gestor` is not the firm `gestoría` (es, pt: exact)."""
    assert document(preamble, (heading, "- ver abaixo\n"))[heading] == domain


_PIECES = ["Papa", "老公", "엄마", "My", "mom", "who is", "what about", "?", "阿凯", "陈总", "Tom Vance", "Sam", "1.", "10)", "Mar 3", "3月28日", "2/14", "24/7", "Never", "nunca",
           "不要", "jobs", "Cron", "定时任务", "trip", "viaje", "conference", "client", "remind", "backup", "(me)",
           "（私）", "Who I am", "Ventures", "ローンチ", "조교", "!!!", "IMPORTANT", "—", ":", " ", "\n", "**", "é", "ß"]


@given(st.lists(st.sampled_from(_PIECES), max_size=6).map(" ".join),
       st.lists(st.sampled_from(_PIECES + [". ", "- "]), max_size=20).map("".join),
       st.sampled_from(["", "I am Crumb, the assistant of Roz.\n", "agent: hachi\nowner: 森下 遥\n",
                        "Du bist Kobold. Ich bin Anja.\n"]))
def test_the_rules_are_total_deterministic_and_explained(heading: str, body: str, preamble: str) -> None:
    """Any mix of the pieces the new rules read: classification never raises, repeats itself, and
    `explain --file` says what migrate does."""
    text = f"{preamble}\n## {heading or 'x'}\n{body}\n\n## Other\nText.\n"
    sections = split_sections(text).sections
    inputs = [SectionInput(s.heading, s.text.split("\n", 1)[-1], s.group) for s in sections]
    first = classify_document(inputs, Config(), split_sections(text).preamble)
    assert first == classify_document(inputs, Config(), split_sections(text).preamble)
    for c in first:
        assert c.score >= c.runner_up_score >= 0.0
    placed = {p.line: p.domain for p in plan_migration(text, Config()).placed}
    explained = {e["line"]: e["domain"] for e in explain_file(text, Config())}
    assert placed == {line: explained[line] for line in placed}


# --- the kinds of miss read in measure6 (now tune9): invented examples of the same shapes -------------


@pytest.mark.parametrize(("heading", "body"), [
    ("💞 Ana & Rui Costa", "Ana wants a small ceremony; Rui handles the budget. Venue still open.\n"),
    ("maya and leo", "the twins. maya is 9, leo is 9 too. she does ballet on sat, he has chess.\n"),
])
def test_a_pair_of_names_is_two_people_behind_an_emoji_or_in_lowercase(heading: str, body: str) -> None:
    """The two given names written again in the body are cues that it describes them."""
    assert document("", (heading, body))[heading] == "people"


def test_a_lowercase_pair_of_topic_words_is_not_two_people() -> None:
    placed = document("", ("fuel and tolls", "fuel is ~£200 a month, tolls on the m6 toll. he pays by card.\n"))
    assert placed["fuel and tolls"] != "people"


@pytest.mark.parametrize("heading", ["NF-e", "CT-e"])
def test_an_acronym_with_a_hyphen_is_not_a_name(heading: str) -> None:
    placed = document(PT, (heading, "- emitir pelo Bling; a contadora confere o CFOP.\n"))
    assert placed[heading] != "people"


def test_a_chinese_owner_with_a_title_and_a_given_name_the_family_writes_in_full() -> None:
    """王淑芬老师的助手: the owner is 王老师 too; `## 子轩` is the grandson the document calls 王子轩."""
    pre = "我是王淑芬老师的手机助手\u201c小竹\u201d。王老师，退休语文老师。\n\n"
    placed = document(pre, ("王老师", "- 1957年生，一个人住。\n"), ("王磊一家", "- 儿子王磊；孙子王子轩，12岁。\n"),
                      ("子轩", "- 喜欢打篮球，要提醒他少看手机。\n"))
    assert (placed["王老师"], placed["子轩"]) == ("identity", "people")


def test_a_quoted_agent_name_after_the_word_for_agent() -> None:
    pre = "私は株式会社ソラの on-call 補助エージェント「ヨル」。利用者: 森本さん。\n\n"
    assert document(pre, ("ヨルについて", "- 口調: 丁寧語、結論から。\n"))["ヨルについて"] == "agents"


def test_a_korean_couple_are_both_owners_and_a_childs_given_name_is_a_person() -> None:
    pre = "나는 두리, 박정훈(아빠, 44)·김소연(엄마, 41) 부부의 가족 비서다. 아이들: 박도현(초4, 11).\n\n"
    placed = document(pre, ("정훈 씨", "- 회사원, 야근 많음.\n"), ("소연 씨", "- 간호사, 3교대.\n"),
                      ("도현이", "- 피아노 학원 화·목, 담임 선생님은 이지은.\n"))
    assert placed == {"정훈 씨": "identity", "소연 씨": "identity", "도현이": "people"}


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    (DE, "Do, 06.02.", "log"), (FR, "jeu. 3 mars", "log"), ("", "Wed 3/4", "log"),
    ("", "Shifts", "business"), ("", "Opposing counsel notes", "people"), (FR, "Conventions et contrats", "legal"),
])
def test_short_weekdays_before_a_date_and_word_senses(preamble: str, heading: str, domain: str) -> None:
    """`Wed` is Wednesday, not a form of `wedding`; `counsel` is not `counselling`; French `conventions`
    are agreements."""
    assert document(preamble, (heading, "- see below\n"))[heading] == domain


def test_a_weekday_abbreviation_in_a_body_is_not_a_wedding() -> None:
    placed = document("", ("Weekly plan", "school run wed and fri, swimming sat, airport sun.\n"))
    assert placed["Weekly plan"] == "personal"
    record = explain_file("## Weekly plan\nmon wed fri, the gym.\n", Config())[0]
    assert "wed" not in str(record).casefold().replace("weekly", "")


@pytest.mark.parametrize(("preamble", "heading", "body"), [
    ("I help the on-call team. My contact: Nadia Okoro (team lead).\n\n", "Nadia",
     "Likes short status notes. Not before 8 unless SEV1; she is off in August.\n"),
    ("", "Fer", "Fernanda Ruiz, 31. Great at demos, slow to close.\n"),
    ("나는 누리, 서윤님의 비서. 배우자 박준호, 딸 하린(6살).\n\n", "하린", "알레르기: 땅콩. 어린이집 상담 6/20.\n"),
])
def test_a_given_name_the_memory_writes_in_full_or_as_a_relative_is_a_person(preamble: str, heading: str, body: str) -> None:
    """`## Nadia` and "Nadia Okoro (team lead)" in the preamble; `## Fer` over "Fernanda Ruiz"; `## 하린`
    and "딸 하린": the memory says who the name is, though the section's body is about the person's habits."""
    placed = document(preamble, (heading, body), ("Servers", "- web1, web2\n"))
    assert placed[heading] == "people"


def test_a_city_heading_is_not_a_name_for_a_station_written_after_it() -> None:
    placed = document("", ("Lisbon", "- flights via Lisbon Portela; the hotel is booked for 3 nights.\n"))
    assert placed["Lisbon"] != "people"


def test_lessons_about_how_the_agent_behaves_are_the_agents_and_others_keep_their_topic() -> None:
    """LABELS.md: lessons about the agent's communication, approvals and scheduling go to agents; lessons
    about the work go to the domain most of them are about."""
    pre = "I am Wren, the assistant of Mira Lindgren.\n\n"
    placed = document(pre, ("Lessons", "- Mira skims long messages: five lines at most.\n"
                                       "- Remind her twice about dentist visits; once is not enough.\n"
                                       "- When Mira says \"later\", ask again the next morning.\n"),
                      ("Lessons learned", "- Pin the Terraform provider version; the upgrade broke the VPC module.\n"
                                          "- Rotate the deploy key before it expires, not after.\n"
                                          "- Alerts without a runbook link get ignored.\n"))
    assert placed == {"Lessons": "agents", "Lessons learned": "infrastructure"}


@pytest.mark.parametrize(("preamble", "heading"), [("", "Doctors"), (ES, "Doctores"), (PT, "Médicos"), (DE, "Ärzte")])
def test_a_heading_naming_people_by_their_role_is_a_contact_list(preamble: str, heading: str) -> None:
    """LABELS.md: a directory or contacts goes to people; `Doctor visits` stays personal."""
    placed = document(preamble, (heading, "- Dr. Lima, GP; Dr. Vaz, cardiology\n"), ("Doctor visits", "- 3 May\n"))
    assert (placed[heading], placed["Doctor visits"]) == ("people", "personal")


def test_bare_taxes_are_the_business_in_a_working_memory_and_personal_in_a_household() -> None:
    """A freelancer's `Taxes` are the business's (LABELS.md: the owner's work); a family's stay personal."""
    work = document("", ("Clients", "- Acme, invoices monthly\n"), ("Pricing", "- day rate 600\n"),
                    ("Taxes", "- quarterly returns\n"))
    home = document("", ("Health", "- GP in May\n"), ("Home", "- boiler service\n"), ("Taxes", "- quarterly returns\n"))
    assert (work["Taxes"], home["Taxes"]) == ("business", "personal")


@pytest.mark.parametrize(("preamble", "owner"), [
    ("依頼主は 森本拓也（父・42）と 森本由紀（母・39）。\n", {"森本拓也", "拓也", "森本由紀", "由紀"}),
    ("私は「こまり」、主に佐藤美穂さん（母）から依頼を受けています。\n", {"佐藤美穂", "美穂"}),
    ("나는 '모루'. 서하린 작가(필명 하린)의 작업 비서 에이전트다.\n", {"서하린", "하린", "작가님"}),
])
def test_japanese_requesters_and_a_korean_title_name_the_owner(preamble: str, owner: set[str]) -> None:
    """`依頼主は …`, `…さんから依頼`: the owners; a Japanese name of a two-character family name is
    also its given name (`拓也さん`); the title the agent uses with 님 is the owner's (`작가님`)."""
    assert set(document_context(preamble, [], Config()).owner) == owner


@pytest.mark.parametrize(("preamble", "heading", "domain"), [(FR, "Perso", "identity"), (DE, "Privat", "identity"),
                                                             (DE, "Finanzen privat", "personal")])
def test_a_private_heading_is_the_owners(preamble: str, heading: str, domain: str) -> None:
    assert document(preamble, (heading, "- voir plus bas\n"))[heading] == domain


def test_a_name_the_memory_gives_an_age_is_a_person() -> None:
    """"Éloïse (9 ans, 4e année)" in the family overview: `## Éloïse` is the child, whatever its body says."""
    placed = document(FR, ("Famille", "- Éloïse (9 ans, 4e année), Hugo (4 ans)\n"),
                      ("Éloïse", "- Hockey le samedi; adore les BD; orthophonie le jeudi\n"))
    assert placed["Éloïse"] == "people"


@pytest.mark.parametrize(("preamble", "owner"), [
    ("저는 \"귤이\"입니다. 감귤 농사를 지으시는 고영수 님과 부순자 님 내외분을 돕는 비서예요.\n", {"고영수", "영수", "부순자", "순자"}),
    ("Moi c'est Mouette, l'assistante (Claude) de Julie Tremblay pis Marc-André Nguyen.\n",
     {"julie", "tremblay", "marc", "andré", "nguyen"}),
])
def test_more_couples_as_memories_name_them(preamble: str, owner: set[str]) -> None:
    assert set(document_context(preamble, [], Config()).owner) == owner


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("", "ELD (Motive)", None), ("", "Brokers we like", None), (FR, "Impôts 2024 (Revenu Québec)", "personal"),
    (DE, "Öffnungszeiten", "business"), ("", "Zotero / refs.bib", "infrastructure"),
])
def test_stems_that_fold_other_words_and_opening_hours_in_every_language(preamble: str, heading: str,
                                                                          domain: str | None) -> None:
    """`Motive` is not `motivations`, `we like` not `likes` (neither is the owner's: None), French
    `Revenu` not `revenue`."""
    placed = document(preamble, (heading, "- see below\n"))
    assert placed[heading] == domain if domain else placed[heading] != "identity"


def test_a_correction_never_teaches_a_stopword_and_the_trunk_never_shows_one() -> None:
    """A new user's finding: moving `Die Werkstatt` taught `domains.business.extend = ["die"]`, and the
    trunk named business by `und` (Kunden und Aufträge, Preise und Kalkulation, Steuern und Buchhaltung)."""
    from bonsai_git.core.indexes import domain_topics

    line = teaching_line("Die Werkstatt", "- Schreinerei, 4 Mitarbeiter, Kunden aus Nürnberg\n", "business", Config())
    assert line is None or '"die"' not in line
    names = ["kunden-und-auftraege.md", "preise-und-kalkulation.md", "steuern-und-buchhaltung.md"]
    assert "und" not in domain_topics("business", names)


# --- the kinds of miss read in measure8 (now tune11): invented examples of the same shapes ------------

TW = "我是「小助」，陳建宏(阿宏)的 AI 助理，幫忙管理東港陳家魚塭的客人、訂單和雜事。\n\n"


@pytest.mark.parametrize("heading", ["爸爸 建國", "阿嬤 陳玉蘭", "姊姊"])
def test_a_traditional_chinese_kin_word_and_a_name_is_a_relative(heading: str) -> None:
    """Taiwan writes 爸爸, 阿嬤, 姊姊: the kin words are in both scripts, so a health body does not decide."""
    assert document(TW, (heading, "- 血壓高，每天早上吃藥，星期四回診。\n"))[heading] == "people"


def test_a_two_character_heading_that_ends_as_an_organisation_is_no_given_name() -> None:
    """詩社 follows 林 (a family name) in "鹿港林詩社": the poetry club, not a person called 詩社."""
    placed = document(TW, ("詩社", "- 鹿港林詩社每月聚會一次，她負責點心。\n"))
    assert placed["詩社"] != "people"


def test_a_chinese_a_not_a_question_is_no_prohibition() -> None:
    """要不要做 asks whether to do it: the 不要做 inside it is no rule for the agent."""
    placed = document(TW, ("網站改版要不要做?", "- 報價 8 萬，阿宏還在考慮。\n"), ("不可以做的事", "- 不可以私下給客人打折。\n"))
    assert placed["網站改版要不要做?"] != "agents"
    assert placed["不可以做的事"] == "agents"


def test_moi_cest_names_the_agent() -> None:
    pre = "Moi c'est Perle, l'agent OpenClaw de Sophie Lambert. Je gère ses notes et son agenda.\n\n"
    assert document(pre, ("Moi (Perle)", "- Je tutoie Sophie, je signe « Perle ».\n"))["Moi (Perle)"] == "agents"
    assert "perle" in document_context(pre, [], Config()).agent


def test_a_private_tax_heading_stays_personal_in_a_working_memory() -> None:
    """In a shop's memory bare `Impôts` is the business's taxes; `Impôts — déclaration perso` says it is not."""
    work = [("Clients", "- 40 clients réguliers\n"), ("Commandes", "- 12 par semaine\n"), ("Fournisseurs", "- 3\n"),
            ("Tarifs", "- 45 € la séance\n")]
    placed = document(FR, *work, ("Impôts", "- TVA trimestrielle\n"), ("Impôts 2025 — déclaration perso", "- avant juin\n"),
                      ("Assurances", "- RC pro chez Hiscox\n"))
    assert (placed["Impôts"], placed["Impôts 2025 — déclaration perso"]) == ("business", "personal")
    assert placed["Assurances"] == "business"


def test_bookings_are_the_business_in_a_working_memory() -> None:
    """A groomer's `bookings` are her clients'; in a household's memory they stay personal (travel)."""
    work = [("clients", "- 60 regulars\n"), ("pricing", "- £45 small dog\n"), ("suppliers", "- shampoo from Kent\n")]
    assert document("", *work, ("bookings", "- tues/thurs full till july\n"))["bookings"] == "business"
    home = [("health", "- physio on mon\n"), ("budget", "- £300 food\n"), ("garden", "- roses\n")]
    assert document("", *home, ("bookings", "- flights to Faro booked\n"))["bookings"] == "personal"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    (ES, "SAT", "personal"), (DE, "Finanzamt", "personal"), ("", "HMRC", "personal"),
    (ES, "Prevención de lavado de dinero", "legal"), (FR, "Blanchiment : vérifications", "legal"),
    (FR, "Modératrices", "community"), (FR, "Boulot", "business"),
    ("", "why does the generator keep cutting out?", "infrastructure"), ("", "dreaming", "agents"),
])
def test_tax_offices_money_laundering_moderators_work_generators_and_dreaming(preamble: str, heading: str,
                                                                             domain: str) -> None:
    """A tax office is the taxes (personal finance, the business's in a working memory), money
    laundering rules are legal, moderators a community's, `boulot` is French for work."""
    assert document(preamble, (heading, "- voir plus bas\n"))[heading] == domain


# --- the kinds of miss read in measure9 (now tune12): invented examples of the same shapes ------------


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("Oi, eu sou a Bia, a assistente virtual da **Clínica Boa Vista**. Trabalho pra Dra. Renata Lopes, dona da clínica.\n",
     {"renata", "lopes"}, {"bia"}),
    ("# MEMORY – Büro Hausarztpraxis Lindenhof\n\nIch bin „Greta\", die Büro-KI. Ich arbeite für Jonas Brandt.\n",
     {"jonas", "brandt"}, {"greta"}),
    ("im Spark, kev's openclaw. kev = Moss Plumbing, sole trader. keep it SHORT.\n", {"kev"}, set()),
    ("Claude Code 用のメモ。高橋ユウキ（個人開発、福岡）のアプリ開発を手伝っている。\n", {"高橋ユウキ", "ユウキ"}, set()),
    ("나는 **Miro** — 이하은님의 개인 에이전트.\n", {"이하은", "하은"}, {"miro"}),
    ("i'm Wren, the assistant Joan's daughter set up for her.\nJoan Pike, 78, retired nurse. lives alone.\n",
     {"joan", "pike"}, {"wren"}),
])
def test_more_owners_and_agents_as_memories_name_them(preamble: str, owner: set[str], agent: set[str]) -> None:
    """A workplace (`Clínica …`, `Büro …`) is neither the owner nor the agent; `Trabalho pra`, a lowercase
    `kev's openclaw`, `…の開発を手伝っている`, a Latin name after 나는, German quotes and an adult's
    full name with an age at the start of a line name them."""
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("", "the grandkids", "people"), (PT, "Paciente: Seu Geraldo Prado", "people"),
    ("", "rules for me", "agents"), ("", "weekly stuff i do", "agents"), ("", "Hartley Lettings", "business"),
    ("", "her phone", "infrastructure"), (DE, "Klienten", "business"), (DE, "Dienstwagen", "infrastructure"),
    (FR, "Vendanges 2025", "business"), ("Claude Code 用のメモ。\n\n", "やらないこと", "agents"),
])
def test_kin_with_an_article_patients_rules_for_me_weekly_work_and_words(preamble: str, heading: str,
                                                                          domain: str) -> None:
    body = "- remind her on monday\n- draft the text\n" if "weekly" in heading else "- see below\n"
    assert document(preamble, (heading, body))[heading] == domain


def test_mistakes_about_how_the_agent_behaves_are_the_agents() -> None:
    pre = "i'm Wren, the assistant Joan's daughter set up for her.\nJoan Pike, 78, retired nurse.\n\n"
    body = "- read joan a whole email out loud. summarize first.\n- reminded joan 3 days in a row. once a week.\n"
    assert document(pre, ("things i got wrong", body))["things i got wrong"] == "agents"


# --- a document with no main domain still leans one way ---------------------------------------------

OTHERS = [("Servers", "- the NAS in the loft\n"), ("Family", "- Ann, 9\n"), ("Backups", "- nightly\n"),
          ("Agent rules", "- ask first\n"), ("Contracts", "- the lease\n")]
WORKING = [("Clients", "- 12 regulars\n"), ("Pricing", "- £40 an hour\n"), ("Health", "- physio on mon\n"),
           ("Invoices", "- net 30\n"), *OTHERS]  # business 3 of 9: no main domain, but more than personal
HOUSEHOLD = [("Health", "- physio on mon\n"), ("Meal planning", "- soup on fridays\n"), ("Clients", "- two, part time\n"),
             ("Garden", "- roses\n"), *OTHERS]


def test_a_section_that_says_nothing_takes_what_the_document_leans_to() -> None:
    """No domain holds half the sections, but more went to business (a working memory) or to personal
    (a household's) than to any other: `Thursday` follows, unless its body points elsewhere (then
    `general`); on a tie the document leans nowhere."""
    assert document("", *WORKING, ("Thursday", "- call back before 5\n"))["Thursday"] == "business"
    assert document("", *HOUSEHOLD, ("Thursday", "- call back before 5\n"))["Thursday"] == "personal"
    elsewhere = document("", *WORKING, ("Thursday", "- the contract and the NDA, the lawyer signs\n"))
    assert elsewhere["Thursday"] != "business"
    tie = document("", *WORKING, ("Hosting", "- the VPS\n"), ("Thursday", "- call back before 5\n"))
    assert tie["Thursday"] == "general"  # business 3, infrastructure 3


def test_explain_says_which_way_the_document_leans() -> None:
    text = "".join(f"## {h}\n{b}\n" for h, b in [*WORKING, ("Thursday", "- call back before 5\n")])
    decision = classify_document([SectionInput(h, b) for h, b in [*WORKING, ("Thursday", "- call back\n")]], Config())[-1]
    assert (decision.domain, decision.decided_by, decision.words) == ("business", "document", ("(a working memory)",))
    report = render_explain(explain_file(text, Config()), Config())
    line = [e for e in report.splitlines() if "Thursday" in e][0]
    assert "the domain the document leans to, a working memory" in line and "more went to business than to any other" in line


# --- the kinds of miss read in measure10 (now tune13): invented examples of the same shapes -----------


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("Ich bin der Claude-Code-Agent von Lena Vogt, CTO bei Feldwerk.\n", {"lena", "vogt"}, set()),
    ("わたしは「すずめ」。佐藤家のおうちアシスタントです。\n", set(), {"すずめ"}),
    ("我是「小帮」，跑在 OpenClaw 上的私人助理，服务对象是林悦（Lin Yue），杭州的插画师。\n", {"林悦"}, {"小帮"}),
])
def test_a_product_is_no_agent_name_and_more_self_introductions(preamble: str, owner: set[str], agent: set[str]) -> None:
    """`der Claude-Code-Agent` names a product (no heading with `Code` is the agent's); わたしは「…」
    and 服务对象是 name the agent and the owner."""
    context = document_context(preamble, [], Config())
    assert (set(context.owner), set(context.agent)) == (owner, agent)


def test_an_all_caps_heading_names_the_agent() -> None:
    """In `HOW WREN SHOULD TALK` every word is capitalised: `HOW` is no given name before a surname."""
    pre = "I'm Wren, a Claude Code based assistant. I work for Dan Kowalski.\n\n"
    assert document(pre, ("HOW WREN SHOULD TALK", "- short, no emoji\n"))["HOW WREN SHOULD TALK"] == "agents"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("私は「こまち」です。\n\n", "節子ばあば", "people"),
    (TW, "爸媽", "people"), ("", "Patients — ongoing (initials only)", "business"), ("", "New initiative", "projects"),
    (ES, "Obra social", "personal"), (ES, "Expensas y el depto", "personal"), (TW, "催款", "business"),
    (FR, "Qu'est-ce que je peux faire sans demander ?", "agents"), ("", "What can I do without asking?", "agents"),
])
def test_japanese_pairs_and_kin_after_a_name_patients_initials_and_words(preamble: str, heading: str, domain: str) -> None:
    """`initials` is no `initiative` (one English stem): `initiative` matches only as written."""
    assert document(preamble, (heading, "- voir plus bas\n"))[heading] == domain


def test_two_names_joined_by_a_middle_dot_are_two_people() -> None:
    placed = document("私は「こまち」です。\n\n", ("正男さん・和子さん", "- 健一さんの両親。熱田区に住んでいる。\n"))
    assert placed["正男さん・和子さん"] == "people"


@pytest.mark.parametrize("heading", ["👧 Maya", "👵 Rosa"])
def test_a_person_emoji_and_a_body_that_opens_on_an_age_are_cues_of_a_person(heading: str) -> None:
    """A one-word name needs two cues: the emoji of a person, and a body opening on an age ("- 9, Year 4")."""
    body = "- 9, Year 4, Mr Patel\n- swimming thursdays 5pm\n- penicillin allergy\n"
    assert document("", (heading, body))[heading] == "people"


def test_a_to_do_list_takes_the_documents_main_domain() -> None:
    """A shop's `À faire` is its business, a household's `Pendientes` personal, a devops memory's
    `TODO` infrastructure, with agents the alternate; a memory with no main domain keeps it in agents."""
    shop = document(FR, ("Clients", "- 40\n"), ("Commandes", "- 12\n"), ("Fournisseurs", "- 3\n"), ("À faire", "- relancer\n"))
    assert shop["À faire"] == "business"
    home = document(ES, ("Salud", "- médico\n"), ("Presupuesto familiar", "- 300\n"), ("Jardín", "- rosas\n"),
                    ("Pendientes", "- llamar\n"))
    assert home["Pendientes"] == "personal"
    ops = document("", ("Servers", "- nas\n"), ("Backups", "- nightly\n"), ("Deploys", "- fridays\n"), ("TODO", "- rotate\n"))
    assert ops["TODO"] == "infrastructure"
    assert document("", ("TODO", "- rotate\n"))["TODO"] == "agents"
    decision = classify_document([SectionInput(h, b) for h, b in [("Servers", "x"), ("Backups", "y"), ("Deploys", "z"),
                                                                   ("TODO", "- rotate\n")]], Config())[-1]
    assert (decision.domain, decision.runner_up) == ("infrastructure", "agents")


# --- the kinds of miss read in measure11 (now tune14): invented examples of the same shapes -----------


@pytest.mark.parametrize(("preamble", "heading", "body", "domain"), [
    ("", "Landlord — Mr. Abernathy", "Colin Abernathy, owns the unit.\n- rent due on the 1st\n", "people"),
    (PT, "O Rui (contabilista)", "Rui Antunes, contabilista certificado.\n- trata do IVA trimestral\n", "people"),
    (PT, "A Marta (assistente de loja)", "Marta Pires, part-time, sábados.\n- faz as embalagens\n", "people"),
    ("", "Maya (7) - swimming", "lessons tuesdays at the rec centre. she hates the cold pool.\n", "people"),
    ("", "The Lindqvists (renters)", "Anders and Britt Lindqvist, lease until June.\n- pay by transfer\n", "people"),
    ("I'm Pip, the assistant for Sam Ortiz.\n\n", "민준 (drums)", "- 최민준, 드럼. 대학 동기\n- 평일 저녁만 가능\n", "people"),
])
def test_a_name_before_its_description_a_titled_name_after_a_role_and_a_family(preamble: str, heading: str, body: str,
                                                                              domain: str) -> None:
    """A role, then a titled name; an article before a given name; a name whose description scores
    (`assistente`, `swimming`) over a body that opens on the full name or after an age; `The <name>s`
    over a body that writes the family name; a Korean given name over a body opening on the full name."""
    assert document(preamble, (heading, body))[heading] == domain


@pytest.mark.parametrize(("heading", "body"), [
    ("Incidents (2024)", "- 2024-03-02 db failover\n- 2024-07-19 cert expiry\n"),
    ("Kestrel Ltd (main client)", "- retainer 20h/month\n- invoices net 30\n"),
])
def test_a_description_does_not_make_a_name_of_a_topic(heading: str, body: str) -> None:
    """A year is no age, and a heading whose scoring word is the "name" is a topic."""
    assert document("", (heading, body))[heading] != "people"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("", "Weekly routine for me", "agents"), (PT, "O que faço todas as semanas", "agents"),
    (ES, "Lo que hago todas las semanas", "agents"), (DE, "Jeden Freitag", "agents"),
    ("", "audit logs", "infrastructure"), ("", "money stuff (personal)", "personal"),
    ("", "soccer schedule", "personal"), ("", "Family trip to Maine", "personal"),
    ("我是小助，幫忙管理家裡的雜事。\n\n", "北海道家族旅行（寒假）", "personal"),
    ("我是小助，幫忙管理家裡的雜事。\n\n", "112/09/01 開學日", "log"),
    (ES, "Juzgados de Valencia", "legal"),
])
def test_weekly_work_audit_logs_sports_family_trips_roc_dates_and_words(preamble: str, heading: str, domain: str) -> None:
    """Work done every week is the agent's when its items are; `personal` as a qualifier; ROC dates."""
    body = "- lunes: resumen de pedidos para Ana\n- viernes: recordar a Ana las facturas\n" if preamble == ES else (
        "- Montag: Zusammenfassung schicken\n- Freitag: an die Rechnungen erinnern\n" if preamble == DE else
        "- segunda: lembrar a Ana das encomendas\n- sexta: resumo para a Ana\n" if preamble == PT else
        "- mon: send Dana the summary of new listings\n- fri: remind Dana about receipts\n")
    assert document(preamble, (heading, body))[heading] == domain


def test_a_japanese_owner_written_with_a_space_is_named_by_the_given_name() -> None:
    pre = "Claude Code のメモリ。オーナーは 山田 健太 (やまだ けんた)、SRE リード。\n\n"
    context = document_context(pre, [], Config())
    assert "健太" in context.owner
    assert document(pre, ("健太について", "- Terraform と Go が得意\n- 朝型\n"))["健太について"] == "identity"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("", "Lakeshore Keys Realty", "business"), ("", "Bluefin Ventures", "business"), (ES, "Grupo Arrieta", "business"),
    (FR, "Maison Delorme (négociant)", "business"), (DE, "Kranich Logistik GmbH", "business"),
    ("", "Hillside Physio Network", "community"), (ES, "Colegio de Arquitectos", "community"),
    (PT, "Associação de Pescadores da Nazaré", "community"), (ES, "Grupo de WhatsApp de la cuadra", "community"),
    ("", "Meetup Braga.rb", "community"),
])
def test_an_organisations_name_is_a_company_or_a_group(preamble: str, heading: str, domain: str) -> None:
    """A company's name ends in `Realty`, `Ventures`, `GmbH` or opens with `Grupo`, `Maison`; a group's
    ends in `Network` or opens with `Colegio de`, `Grupo de`, `Meetup`: never a person, never a home."""
    assert document(preamble, (heading, "- ver abajo / see below\n"))[heading] == domain


@pytest.mark.parametrize("heading", ["Public Records Requests", "Publishing Workflow", "Company Snapshot"])
def test_title_case_headings_are_not_organisations(heading: str) -> None:
    """Every word of an English title is capitalised: only a company's or a group's word at its end (or
    opening a proper name) makes it an organisation's name."""
    (placed,) = plan_migration(f"## {heading}\n- see below\n", Config()).placed
    assert placed.decided_by != "name"


def test_a_body_that_opens_on_a_full_name_and_an_age_describes_a_person() -> None:
    """`## Schorsch` over "Georg Feldmeier, 61." is a nickname over a person's card."""
    body = "Georg Feldmeier, 61. Seit 1988 im Betrieb.\n- Rente geplant 2027\n"
    placed = document(DE, ("Aufträge", "- 12 offen\n"), ("Kunden", "- 40\n"), ("Lieferanten", "- 3\n"), ("Schorsch", body))
    assert placed["Schorsch"] == "people"


def test_the_name_rules_words_are_lexicon_data() -> None:
    """Honorifics, workplaces, households, private words, companies and groups are read from the
    lexicon files (issue 23: the words as data, not in code): each file may hold them, and the rules
    read every language's."""
    from bonsai_git.core.lexicon import SPECIAL_KEYS, parse_lexicon

    keys = ("honorifics", "workplaces", "households", "private", "companies", "groups")
    assert set(keys) <= set(SPECIAL_KEYS)
    text = "\n".join(f'{k} = ["w-{k}"]' for k in keys)
    lang = parse_lexicon(text, "en", DEFAULT_DOMAIN_NAMES, "test.toml")
    assert [getattr(lang, k) for k in keys] == [(f"w-{k}",) for k in keys]
    for code, key, word in (("es", "companies", "<grupo"), ("fr", "private", "perso"), ("ja", "honorifics", "さん"),
                            ("de", "workplaces", "kanzlei"), ("pt", "households", "lar"), ("en", "groups", "network")):
        data = tomllib.loads((LEXICON / f"{code}.toml").read_text(encoding="utf-8"))
        assert word in data[key], (code, key)


@pytest.mark.parametrize(("preamble", "heading", "body"), [
    ("", "큰딸 수아네", "- 서울 마포 거주, 사위는 회사원\n- 명절엔 토요일에 옴\n"),
    ("", "손주 하윤, 도윤", "- 하윤 7살, 도윤 4살\n- 주말마다 놀러 옴\n"),
    (PT, "Rita e o Duarte", "- a Rita tem 9 anos, o Duarte 6\n- escola às 8h30\n"),
    ("", "田中さんメモ", "- インフラ担当。金曜は早上がり\n"),
])
def test_kin_compounds_a_pair_with_an_article_and_notes_about_someone(preamble: str, heading: str, body: str) -> None:
    """큰딸 (the eldest daughter) and 손주 (grandchildren) are kin words; `o Duarte` is a name after its
    article; `田中さんメモ` holds notes about 田中さん."""
    assert document(preamble, (heading, body))[heading] == "people"


@pytest.mark.parametrize("heading", ["Misc", "misc", "Divers", "Sonstiges", "Imp", "IMPORTANT"])
def test_a_vague_heading_is_no_name(heading: str) -> None:
    """A vague heading over a body about a person is no one's name (it stays the body's or general)."""
    body = "- she is 9, he is 12; her teacher is Mr Lee\n- his birthday in May\n"
    (placed,) = plan_migration(f"{DE if heading == 'Sonstiges' else ''}## {heading}\n{body}", Config()).placed
    assert placed.decided_by != "name"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("Notes kept by me, Wren, for Sam Okonkwo: freelance data engineer in Leeds.\n", set(), {"wren"}),
    ("Memória de longo prazo do Rabelo (assistente IA) para a Maria Teixeira, dona da quinta.\n", set(), {"rabelo"}),
    ("這份檔案是我（小燈，AI 助理）替林雨萱整理的長期記憶。\n", set(), {"小燈"}),
    ("ハル（アシスタント）が森さんのために書くメモ。\n", set(), {"ハル"}),
    ("Priya (assistant professor) shares the lab with Tom.\n", set(), set()),  # a job title, not the agent
    ("Memoria a largo plazo de Nora, la asistente de Begoña Fernández. La escribo yo, Nora.\n",
     {"begoña", "fernández"}, {"nora"}),
    ("Mémoire longue de Loupiote (l'agent IA, c'est moi) pour Théo Marchand, dev solo.\n", {"théo", "marchand"},
     {"loupiote"}),
])
def test_the_agent_named_in_apposition_or_with_its_role_in_brackets(preamble: str, owner: set[str],
                                                                     agent: set[str]) -> None:
    """"kept by me, Wren, for …", "do Rabelo (assistente IA)", `我（小燈，AI 助理）`, `ハル（アシスタント）`
    name the agent; a bracketed job title that only starts with "assistant" does not."""
    context = document_context(preamble, [], Config())
    assert set(context.agent) == agent
    assert owner <= set(context.owner)


@pytest.mark.parametrize(("heading", "domain"), [("Website", "infrastructure"), ("Site web", "infrastructure"),
                                                 ("Website + Buchungstool", "infrastructure"), ("官網", "infrastructure"),
                                                 ("산악회", "community"), ("A dona", "identity"), ("抱石", "personal")])
def test_everyday_words_of_the_held_out_memories(heading: str, domain: str) -> None:
    preamble = {"Site web": FR, "A dona": PT}.get(heading, "")
    assert document(preamble, (heading, "- see below\n"))[heading] == domain


def test_a_place_and_a_date_range_is_no_persons_card_and_with_keeps_the_head() -> None:
    """"São Miguel, 12 a 19 de maio" opens a trip, not a card of someone aged 12; in `Skifahren mit den
    Kids` the head (skiing) wins the tie with the kids."""
    placed = document(PT, ("Açores", "- São Miguel, 12 a 19 de maio, com a irmã. Voo já pago.\n"))
    assert placed["Açores"] != "people"
    assert document(DE, ("Skifahren mit den Kids", "- Samstags am Patscherkofel.\n"))["Skifahren mit den Kids"] == "personal"
    assert document("", ("Margit", "Margit Huber, 61, Sekretärin im Büro.\n"))["Margit"] == "people"


def test_a_memory_whose_opening_names_a_workplace_is_a_working_one() -> None:
    """A clinic's memory: the trade's health words are the work's when the body names the work too (in a
    household's memory the same body is private life); the owner's own health stays personal."""
    sections = (("Front desk", "- Physio and massage sessions, 45 min; the dentist next door refers patients; "
                               "invoices weekly.\n"),
                ("Her back", "- Ana's own physio on Fridays; ibuprofen only after meals.\n"))
    clinic = "# Memory\n\nYou are Mica, the assistant of Dr. Ana Ruiz, who runs a small physiotherapy clinic in Leeds.\n\n"
    household = "# Memory\n\nYou are Mica, the assistant of Ana Ruiz and her family in Leeds.\n\n"
    assert document(clinic, *sections) == {"Front desk": "business", "Her back": "personal"}
    assert document(household, *sections) == {"Front desk": "personal", "Her back": "personal"}


@pytest.mark.parametrize(("heading", "body"), [
    ("Tuesday", "- Tuesday is shipping day: print the labels by 6:30am.\n"),
    ("周五", "- 周五下午不坐诊，整理病历。\n"), ("金曜", "- 金曜は午後に請求書を出す。\n"), ("금요일", "- 금요일 오후 회고.\n"),
])
def test_a_weekday_heading_is_no_name_unless_the_body_opens_on_a_full_name(heading: str, body: str) -> None:
    """`周五` is no Mr Zhou and "Tuesday is shipping day" no Tuesday Smith: a calendar word in any
    language needs a surname after it in the body to be a person."""
    assert document("", (heading, body))[heading] != "people"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("I'm Chhaya, the assistant Aniket Joshi set up to help him run his wedding studio in Pune.\n",
     {"aniket", "joshi"}, {"chhaya"}),
    ("Soy Canela, la asistente que Luz Adriana Gómez armó para su peluquería canina.\n",
     {"luz", "adriana", "gómez"}, {"canela"}),
    ("Familie Lüdemann hat mich eingerichtet. Ich heiße Hummel und führe hier die Notizen.\n", set(), {"hummel"}),
    ("Anotações da Gaivota, a assistente que cuida da agenda do casal.\n", set(), {"gaivota"}),
    ("한도윤 작가의 기억 파일. 정리 담당은 보조 에이전트 '잉크'(나).\n", {"한도윤"}, {"잉크"}),
    ("这是我（小瓷）替周蔓记的长期笔记。\n", {"周蔓"}, {"小瓷"}),
    ("I'm Wren, the assistant Monday mornings are hard for.\n", set(), {"wren"}),  # no verb of setting up: no owner
])
def test_the_owner_who_set_the_agent_up_and_the_agent_named_before_and(preamble: str, owner: set[str],
                                                                        agent: set[str]) -> None:
    """"the assistant X set up", "la asistente que X armó" name the owner; "Ich heiße Hummel und …",
    "da Gaivota, a assistente que …", `에이전트 '잉크'` and `我（小瓷）替周蔓` name the agent."""
    context = document_context(preamble, [], Config())
    assert set(context.agent) == agent
    assert owner <= set(context.owner)
    assert not set(context.owner) & {"monday", "mornings"}


@pytest.mark.parametrize(("preamble", "heading"), [
    (DE, "Wir"), (PT, "Nós"), (ES, "Nosotros"), (FR, "Nous"), ("", "Us"), ("", "About us"), (DE, "Über uns"),
    ("", "我们"), ("", "私たち"), ("", "우리"),
])
def test_a_heading_that_is_only_we_is_the_owners(preamble: str, heading: str) -> None:
    """LABELS.md: the household or couple the agent serves is the owner (identity)."""
    body = "- Jana (38), Architektin; Tobias (41), Entwickler; two kids, Mats (6) and Frieda (1).\n"
    assert document(preamble, (heading, body))[heading] == "identity"
    # only a heading that is nothing but "we": `Wir Eltern und die Kita` is about the nursery
    assert document(DE, ("Wir Eltern und die Kita", "- Abholung um 16 Uhr, Kita-Gebühren im Januar.\n")) == {
        "Wir Eltern und die Kita": "personal"}


@pytest.mark.parametrize(("preamble", "heading", "body"), [
    ("", "Meenakshi aunty", "- Our editor. Retired colour technician, works from home; call her after 11 am.\n"),
    ("", "최지현 PD님", "- 플랫폼 담당 PD. 연락은 업무용 카톡, 급한 건 전화.\n"),
    ("", "여친 서연", "- 출판사 다니는 회사원. 주말에 만남. 생일 5월.\n"),
])
def test_an_honorific_after_the_name_and_a_korean_title_name_a_person(preamble: str, heading: str, body: str) -> None:
    """`Meenakshi aunty` (an honorific written after the name), `최지현 PD님` (a family name, a title and
    님), `여친 서연` (girlfriend, then her name): another person."""
    assert document(preamble, (heading, body))[heading] == "people"


def test_a_trip_whose_work_words_are_negated_stays_private() -> None:
    """"No client calls that week" says the trip is a holiday; a client visit makes it a work trip."""
    holiday = "- Break with college friends; flights booked.\n- No client calls that week.\n"
    work = "- Client visit in Panaji, then the venue recce.\n"
    assert document("", ("Goa trip", holiday))["Goa trip"] == "personal"
    assert document("", ("Goa trip", work))["Goa trip"] == "business"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("", "Sunday cricket", "personal"), ("", "Badminton", "personal"), ("", "Insta", "business"), ("", "인스타 / 유튜브", "business"),
    (ES, "Insumos", "business"), ("", "Cardboard boxes", "general"),
])
def test_sports_and_everyday_business_words(preamble: str, heading: str, domain: str) -> None:
    """Sports are hobbies; `Insta` is Instagram; `insumos` are a business's supplies; "boxing" is written
    as this form only, so `boxes` is no sport."""
    assert document(preamble, (heading, "- see the sheet\n"))[heading] == domain


def test_in_a_working_memory_a_hobby_heading_stays_private_whatever_its_body_names() -> None:
    """A potter's `Reading List` of books about pricing and shops is still her reading (the demo memory):
    a heading's private word is not outvoted by the trade's words in its body."""
    body = '- Queue: "Pricing for People Who Hate Pricing", "Small Shop, Long Game"; saved: wholesale terms.\n'
    shop = "# Memory\n\nYou are Maré, the assistant of Rita Sousa, who runs a pottery shop in Ericeira.\n\n"
    assert document(shop, ("Reading List", body)) == {"Reading List": "personal"}


@pytest.mark.parametrize(("heading", "domain"), [
    ("Python 한국 사용자 모임", "community"), ("客户微信群", "community"), ("출판사 계약", "legal"),
    ("报价规则", "business"),  # the rules' words do not take a tie: pricing rules are the business's
])
def test_a_tie_in_a_cjk_heading_goes_to_its_last_word_the_compounds_head(heading: str, domain: str) -> None:
    """CJK noun compounds put the head last (a users' meetup, the clients' WeChat group, the publisher's
    contract); two topics joined by 与, 和, ・ or / are no compound and keep the table's order."""
    assert document("", (heading, "- see below\n"))[heading] == domain
    assert classify_heading("身份与角色", Config()).domain == "identity"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("# MEMORY.md\n\nこのファイルは Claude Code が佐伯 美咲（Misaki Saeki）さんのために保持している長期メモ。\n", {"美咲"}, set()),
    ("# MEMORY.md\n\n森下ゆかり（ペンネーム「もりゆ」）の長期メモリ。私はアシスタントAIの「ハル」。\n", {"森下ゆかり"}, {"ハル"}),
    ("# 메모리 — 박정호 선생\n\n부산 동래구에 사는 박정호. 비서 에이전트 이름은 \"누리\".\n", {"박정호"}, {"누리"}),
    ("# 长期记忆 · 林素秋\n\n这份记忆由她的助理 agent「阿蒲」维护。\n", {"林素秋"}, {"阿蒲"}),
    ("# 장기 메모리\n\n이 파일은 윤하은(Ha-eun Yoon)의 AI 비서 다온(Daon)이 기억해야 할 내용이다.\n", {"윤하은"}, {"다온"}),
    ("나는 핏루프의 마케팅 리드 한지원 님을 돕는 어시스턴트다.\n", {"한지원"}, set()),
    ("# CLAUDE.md — memory\n\nNotes Claude keeps for Theo Brandt (freelance full-stack dev, Leipzig).\n", {"theo", "brandt"}, set()),
    ("# MEMORY — 新项目\n\n项目笔记。\n", set(), set()),  # no family name: a title, not the owner
])
def test_owners_and_agents_named_the_cjk_way_and_by_whose_notes(preamble: str, owner: set[str], agent: set[str]) -> None:
    """`…さんのために`, `…の長期メモリ`, `アシスタントAIの「ハル」`, a CJK title's name, `agent「阿蒲」`,
    `…의 AI 비서 다온이`, `…님을 돕는`, "Notes Claude keeps for …"."""
    context = document_context(preamble, [], Config())
    assert set(context.agent) == agent
    assert owner <= set(context.owner)
    if not owner:
        assert not context.owner


def test_inventario_is_weak_in_portuguese_and_ape_is_home() -> None:
    """Brazilian `inventário` is as often the probate of an estate as a shop's stock: weak, so the body
    or a legal word beside it decides; `apê` is the flat."""
    estate = "- Herança do pai: inventário no cartório, advogada Dra. Sílvia; testamento registrado.\n"
    assert document(PT, ("Inventário — dúvidas", estate))["Inventário — dúvidas"] == "legal"
    assert document(PT, ("Inventário e testamento", "- ver pasta\n"))["Inventário e testamento"] == "legal"
    assert document(PT, ("Apê", "- condomínio R$ 900, portaria 24h.\n"))["Apê"] == "personal"


def test_a_hosts_airbnb_crash_headings_and_game_jams() -> None:
    """A guesthouse's `Booking y Airbnb` is its business (Airbnb is a working word: a traveller's stay in a
    household's memory); `crashs` heads a section about crashes, though "crash" in a body (a style guide's
    "use 'crash'") says nothing; a game jam is a community event."""
    host = ("# Memoria\n\nSoy Nube, la asistente de Marta Gil, que lleva una casa rural en Teruel.\n\n"
            "## Clientes\n- reservas, facturas y precios\n\n## Facturas\n- clientes y ventas del trimestre\n\n")
    text = host + "## Booking y Airbnb\n- ver panel\n\n"
    placed = {p.heading: p.domain for p in plan_migration(text, Config()).placed}
    assert placed["Booking y Airbnb"] == "business"
    assert document("", ("crashs", "- voir Sentry\n"))["crashs"] == "infrastructure"
    assert document("", ("game jam", "- 48 h, en février\n"))["game jam"] == "community"
    style = "- Words to avoid: \"accident\" (use \"crash\"), \"cyclist vs driver\".\n"
    assert document("", ("Word choices", style))["Word choices"] != "infrastructure"


def test_a_french_ag_is_an_associations_general_meeting() -> None:
    """`AG du 8 mars` in a French memory: the assemblée générale of a club or association."""
    assert document(FR, ("AG du 8 mars", "- salle des fêtes, 18h\n"))["AG du 8 mars"] == "community"


# --- the kinds of miss read in measure18 (now tune18): invented examples of the same shapes ------------


def test_word_senses_a_trades_roster_a_realtors_brokerage_and_a_quebec_depannage() -> None:
    """`roster`, `brokerage` and French `dépannage` are weak: a nurse's roster of shifts is the work (its
    body says so), a team roster its people; a brokerage is a realtor's firm or an investment account; a
    Québec `dépannage` is food aid (or a corner shop), in France a repair."""
    shifts = "- 3 early shifts, 2 lates; swaps need the ward manager's approval; annual leave in May\n"
    assert document("", ("Roster", shifts))["Roster"] == "business"
    firm = "- managing broker: Ana Ruiz; commission split 70/30; desk fee $200; clients and listings\n"
    assert document("", ("brokerage", firm))["brokerage"] == "business"
    assert document(FR, ("Horaire du dépannage", "- distribution aux bénévoles et aux clients, mardi\n")
                    )["Horaire du dépannage"] != "infrastructure"


@pytest.mark.parametrize(("preamble", "heading", "body", "domain"), [
    ("", "How I like things", "- short answers, metric units, 24h time\n", "identity"),
    ("", "Footy", "- Saturday games, training Thursday at the oval\n", "personal"),
    ("", "Google Workspace", "- admin: me; shared drives for the board\n", "infrastructure"),
    (DE, "🏠 WG", "- drei Mitbewohner, Putzplan am Kühlschrank\n", "personal"),
    (FR, "Finances perso", "- hypothèque, REER et budget familial\n", "personal"),
    (FR, "RGPD / renseignements personnels", "- registre des incidents\n", "legal"),
    ("", "父の三回忌", "- お寺で、家族だけで\n", "personal"),
    ("", "周末小聚", "- 每月一次，咖啡店\n", "community"),
    ("", "burnout", "- warning signs: replying after 10pm, skipping runs\n", "personal"),
    ("", "RFC-0031", "- draft API for streaming; open questions; comment period to May\n", "projects"),
    ("", "クライミング", "- ボルダリングのジムに日曜\n", "personal"),
    ("", "Faculty Committee", "- meets monthly; reviews pilot-fund applications and the research strategy\n", "business"),
    ("", "Porto — Family Week", "- fly out on the 9th, a rented flat, keep the receipts apart\n", "personal"),
    ("", "B-012｜西屯 三房", "- 委託：專任，到期 08/31\n- 開價 1,280 萬，帶看 6 組\n", "business"),
    ("", "小孩", "- 哥哥 國小三年級\n- 妹妹 幼兒園\n", "people"),
    ("", "福德宮", "- 家附近的廟，每年遶境當志工\n", "community"),
    (ES, "9. Plata", "- ahorro en dólares, el plazo fijo vence el 10\n", "personal"),
    (ES, "Historias clínicas y secreto profesional", "- nunca por WhatsApp\n", "legal"),
    ("", "自分", "- 朝型。返信は短めで\n", "identity"),
    ("", "💰 국가장학금", "- 성적 기준 3.0 이상, 신청 기간 확인\n", "personal"),
    ("", "🎸 밴드", "- 토요일 합주\n", "personal"),
    ("", "Scholarship renewal", "- GPA 3.2 needed, essay due in May\n", "personal"),
    ("", "apps n logins", "- xero, the bank app, tradify\n", "infrastructure"),
    ("", "How do I like things written?", "- short, no emoji, metric\n", "identity"),
    ("", "春茶", "- 採收從四月初開始，茶廠要先清\n", "business"),
])
def test_words_a_careful_reader_files_by(preamble: str, heading: str, body: str, domain: str) -> None:
    """Everyday words the table lacked: a way the owner likes things (identity), Australian football, an
    office suite, a German flat-share (`WG`), personal finances in French, personal information in a
    privacy law, a Buddhist memorial (`回忌`), a small get-together (`小聚`); from tune19: burnout is health, an
    RFC a project, climbing a hobby, a committee the owner sits on the work (the word is weak), a family week
    away private life; from tune20: a realtor's listing words (委託, 開價, 帶看), kids as one relative word, a
    temple and its procession, Argentine `plata`, professional secrecy, `自分`, a student's scholarship, a
    guitar; from tune21: logins and apps are the tools, how the owner likes things (asked as a question), a
    tea farm's harvest."""
    assert document(preamble, (heading, body))[heading] == domain


def test_a_monthly_heading_over_the_agents_reminders_is_the_agents() -> None:
    """`毎月の…` over what the agent does each month ("声をかけて", "知らせて"): the agent's recurring work."""
    body = "- 1日：家計簿のまとめ\n- 10日：薬のことを声をかけて\n- 25日：お便りの下書きを知らせて\n"
    assert document("", ("毎月の段取り", body))["毎月の段取り"] == "agents"


def test_a_name_over_a_loan_officers_card_is_a_person() -> None:
    """"loan officer", "broker", "cell" describe a contact: `Maria Delgado` over one is a person."""
    card = "- loan officer at Pacific Crest Lending. cell 555-0100\n- fast with pre-approvals\n"
    assert document("", ("Maria Delgado", card))["Maria Delgado"] == "people"


@pytest.mark.parametrize("opening", [
    "Nora Lind, freelance illustrator in Malmö.\n\n", "Nora Lind ist freiberufliche Illustratorin in Malmö.\n\n",
    "Nora Lind, autónoma, ilustradora en Málaga.\n\n", "ノラ・リンド、フリーランスのイラストレーター。\n\n",
])
def test_a_freelancers_opening_makes_a_working_memory(opening: str) -> None:
    """The owner works for themselves (the lexicons' `self_employed`): what says nothing of itself goes to
    the work even when private life has as many sections (a freelancer's flat, health, climbing)."""
    sections = (("Clients", "- publishers and agencies\n"), ("Invoices", "- send on the 1st\n"),
                ("Flat", "- rent and the landlord\n"), ("Health", "- GP on Tuesdays\n"), ("Climbing", "- bouldering gym\n"),
                ("Linework", "- inking brushes, 600 dpi scans\n"))
    assert document(opening, *sections)["Linework"] == "business"
    assert document("Nora Lind lives in Malmö.\n\n", *sections)["Linework"] == "personal"


def test_a_workplaces_memory_whose_work_ties_for_the_most_sections_leans_to_the_work() -> None:
    """A realtor's office memory with as many business sections as personal ones: a section with no signal
    of its own goes to business, not to `general`."""
    opening = "Dana Cho — realtor, Harbor Realty (downtown office).\n\n"
    sections = (("Clients", "- buyers and sellers\n"), ("Listings", "- three active\n"), ("Commission", "- 2.5%\n"),
                ("Mortgage", "- refinance in May\n"), ("Groceries", "- Saturday\n"), ("Gym", "- 6am\n"),
                ("Wi-Fi", "- router in the hall\n"), ("Backups", "- nightly to the NAS\n"), ("Lease", "- the contract, 2 years\n"),
                ("Lockbox", "- code in the blue box by the side door\n"))
    assert document(opening, *sections)["Lockbox"] == "business"
    assert document("Dana Cho lives downtown.\n\n", *sections)["Lockbox"] == "general"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("# memory\n\nmara voss — freelance sound editor, leipzig.\ni'm kit, her assistant.\n", {"mara", "voss"}, {"kit"}),
    ("# MEMORY\n\nOwen Pryce — charge nurse, Cardiff. Pip keeps these notes.\n", {"owen", "pryce"}, set()),
    ("# MEMORY\n\nWeekly Review — every Friday.\n", set(), set()),  # lexicon words: a title, not a name
    ("나는 Dori, Mina 비서. 카톡으로 대화함.\n", {"mina"}, {"dori"}),
    ("저는 다람, 수진 님의 AI 비서입니다.\n", {"수진"}, {"다람"}),
])
def test_the_owner_on_the_openings_first_line_and_a_korean_whose_assistant(preamble: str, owner: set[str],
                                                                           agent: set[str]) -> None:
    """The opening's first line is a full name, a dash and who they are (when nothing else names the
    owner); Korean "나는 X, NAME 비서": the agent, a comma, then whose assistant it is."""
    context = document_context(preamble, [], Config())
    assert owner <= set(context.owner) and (owner or not context.owner)
    assert set(context.agent) == agent


def test_a_me_heading_over_the_owners_card_is_the_owner_though_the_agent_wrote_the_opening() -> None:
    """In a memory whose opening the agent speaks ("i'm kit, her assistant"), `## me` over a body that
    opens on the owner's name is the owner's (identity); over the agent's own words it stays the agent's."""
    pre = "# memory\n\nmara voss — freelance sound editor, leipzig.\ni'm kit, her assistant.\n\n"
    assert document(pre, ("me", "- mara voss, 41, she/her\n- hates calls\n"))["me"] == "identity"
    assert document(pre, ("me", "- I draft, mara sends\n- I never call anyone\n"))["me"] == "agents"


def test_a_chinese_nickname_over_the_full_name_is_a_person() -> None:
    """`小安`, `阿哲`: 小 or 阿 and one character of the given name, over a body that opens on the full name."""
    body = "- 陳安琪，阿哲女朋友\n- 護理師，不吃香菜\n"
    assert document("", ("小安", body))["小安"] == "people"
    assert document("", ("小安", "- 每天早上九点\n"))["小安"] != "people"


def test_the_agents_own_sections_do_not_take_the_documents_leaning() -> None:
    """Every memory has sections for the agent (rules, tone, reminders): as many of them as of the work
    leave the document leaning to the work, as they do its main domain."""
    sections = [("Clients", "- 12 regulars\n"), ("Pricing", "- £40 an hour\n"), ("Invoices", "- net 30\n"),
                ("Health", "- physio on mon\n"), ("Servers", "- the NAS\n"), ("Contracts", "- the lease\n"),
                ("Agent rules", "- ask first\n"), ("Your rules", "- never call\n"), ("Agent: drafts", "- emails\n")]
    placed = document("", *sections, ("Thursday", "- call back before 5\n"))
    assert [placed[h] for h, _ in sections].count("agents") == 3 == [placed[h] for h, _ in sections].count("business")
    assert placed["Thursday"] == "business"


@pytest.mark.parametrize(("preamble", "heading"), [
    ("", "When to ask me first"), ("", "Don't touch"), (ES, "Cuándo preguntarme"), (PT, "Quando me perguntar"),
    (FR, "Quand me demander"), (FR, "Limites à ne pas franchir"), (DE, "Wann du fragen musst"),
    ("", "你可以直接做的事"), ("", "できること・できないこと"), ("", "허락 없이 해도 되는 것"),
])
def test_what_the_agent_may_do_and_when_it_asks_first_are_the_agents(preamble: str, heading: str) -> None:
    """LABELS.md files the agent's operating rules under agents: when to ask the owner first, what it may
    do unasked, its limits; "me" in such a heading is the owner speaking to the agent."""
    assert document(preamble, (heading, "- see below\n"))[heading] == "agents"


# --- the kinds of miss read in measure17 (now tune19): invented examples of the same shapes ------------


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("This is Tally's memory. Tally is the agent that helps Jonas Berg, who runs a bakery.\n", {"jonas", "berg"}, {"tally"}),
    ("Brisa es la asistente que ayuda a Nora Gil con la tienda.\n", {"nora", "gil"}, {"brisa"}),
    ("晓棠（笔名「青砚」）的事都记在这儿。记录人：阿福，她的 AI 助手。\n", {"晓棠"}, {"阿福"}),
    ("Ines Vidal (pen name I. V. Marsh) writes crime novels in Porto.\n", {"ines", "vidal"}, set()),
    ("우리집 메모. 정리 담당은 가족 비서 콩이.\n", set(), {"콩이"}),
])
def test_the_opening_names_whom_the_agent_helps_a_writers_pen_name_and_a_korean_agent(
        preamble: str, owner: set[str], agent: set[str]) -> None:
    """"X is the agent that helps NAME" names both; a name with its pen name in brackets is the writer, the
    owner; `…, 她的 AI 助手` names the agent; Korean "가족 비서 콩이." ends its sentence on the agent's name."""
    context = document_context(preamble, [], Config())
    assert owner <= set(context.owner) and (owner or not context.owner)
    assert agent <= set(context.agent) and (agent or not context.agent)


def test_a_lowercase_heading_naming_the_owner_and_one_naming_the_agent() -> None:
    pre = "# memory — jonas\n\nThis is Tally's memory. Tally is the agent that helps Jonas Berg.\n\n"
    placed = document(pre, ("jonas", "- early riser; wants drafts, not sent messages\n"),
                      ("Tally", "- plain tone; no emoji\n"))
    assert placed == {"jonas": "identity", "Tally": "agents"}


@pytest.mark.parametrize("heading", ["@mvoss", "kettle-dev", "rpatel"])
def test_a_handle_over_a_body_that_opens_on_a_full_name_is_a_person(heading: str) -> None:
    """An OSS maintainer's co-maintainers by handle: the body opens on who they are."""
    body = "Ravi Patel. Reviews the parser; Pune, so replies land overnight. Prefers PR comments to DMs.\n"
    assert document("", (heading, body))[heading] == "people"
    assert document("", (heading, "- nightly build, then the docs deploy\n"))[heading] != "people"


@pytest.mark.parametrize(("preamble", "heading"), [
    (FR, "Traductrice : Agathe Moreau"), ("", "Accountant — Mark Hill"), (ES, "Ing. Tomás Rivas (Grupo Norteño)"),
    ("", "Lucia さん"),
])
def test_a_role_and_a_full_name_a_titled_name_and_a_western_name_with_a_cjk_honorific_are_people(
        preamble: str, heading: str) -> None:
    """A card about one other person: `Role : Full Name`, a title before the name with the company in
    brackets, `Priya さん`; the role's or the company's word is not the topic."""
    body = "- depuis 2021; elle répond vite par mail\n" if preamble is FR else "- she replies fast; lives in Lyon\n"
    assert document(preamble, (heading, body))[heading] == "people"


def test_a_role_and_a_name_is_not_a_trip_nor_a_novels_character() -> None:
    assert document("", ("Trip — Costa Brava", "- flights booked, hotel in Tossa, her passport\n")
                    )["Trip — Costa Brava"] == "personal"
    novel = "I am Quill, the assistant of Ines Vidal, novelist in Porto.\n\n"
    assert document(novel, ("Character: Odile Ferrand", "- the heroine, 34; she lies to everyone\n")
                    )["Character: Odile Ferrand"] == "projects"


def test_a_novels_settings_are_projects() -> None:
    """LABELS.md and the issue: a novelist's characters and settings are working material for the book."""
    novel = ("Je suis Plume, l'assistante de Lise Caron, romancière à Brest. Le roman avance et les chapitres "
             "sont dans le dossier, avec les notes pour la suite de la semaine.\n\n")
    placed = document(novel, ("Lieux", "- le port, la rue Saint-Malo, la maison de la grand-mère\n"))
    assert placed["Lieux"] == "projects"


def test_a_date_in_brackets_qualifies_a_cjk_heading_it_does_not_head_it() -> None:
    assert document("", ("北海道旅行（2026年8月）", "- 札幌に3泊\n"))["北海道旅行（2026年8月）"] == "personal"
    assert document("", ("2026年8月3日 北海道", "- 札幌に3泊\n"))["2026年8月3日 北海道"] == "log"


def test_a_private_trip_in_a_working_memory_stays_personal() -> None:
    """A working memory moves a body's personal words to the work when its business words are close; a trip
    whose body names no work (no client, conference, meeting) is the owner's own."""
    work = [("Clients", "- 14 accounts\n"), ("Pipeline", "- 6 deals open\n"), ("Pricing", "- per seat\n"),
            ("Quotes", "- 3 sent\n")]
    trip = "- vuelo y hotel con Alejandro; los niños con la abuela; solo le aviso si firma Acerero\n"
    assert document(ES, *work, ("Mérida (puente)", trip))["Mérida (puente)"] == "personal"
    visit = "- vuelo y hotel; reuniones con inversores y dos clientes\n"
    assert document(ES, *work, ("Mérida (junio)", visit))["Mérida (junio)"] == "business"


@pytest.mark.parametrize(("preamble", "heading"), [("", "Notes"), (PT, "Notas"), (ES, "Notas"), (DE, "Notizen")])
def test_a_heading_that_only_says_notes_is_no_persons_name(preamble: str, heading: str) -> None:
    """The lexicons' `notes`: capitalised, `Notas` looked like a name over a body that mentions people."""
    body = "- Maggie wants the pottery classes in spring\n- Tom's mum asked about his cousin\n"
    assert document(preamble, (heading, body))[heading] != "people"


def test_a_mixed_heading_over_items_that_go_each_their_own_way_stays_general() -> None:
    """`Misc`, `その他`: the writer says the content is mixed; a body whose items each name another domain is
    mixed indeed (LABELS.md: mixed "Notes" -> general), though one item's many words add up; a body whose
    items mostly agree still decides."""
    mixed = ("- server backup: the NAS disk, the docker host, restart the proxy, rotate the certs\n"
             "- dentist on Tuesday\n- book club reads Middlemarch\n")
    assert document("", ("Misc", mixed))["Misc"] == "general"
    alike = "- server backup on the NAS\n- restart the docker host\n- rotate the proxy certs\n"
    assert document("", ("Misc", alike))["Misc"] == "infrastructure"


def test_a_date_later_in_the_heading_is_weak_the_body_speaks_first() -> None:
    """A heading that starts with a date is a dated entry (LABELS.md); a date after a place or a topic only
    dates it: the body tells a trip or a trade fair, and a heading that says nothing else stays log."""
    assert document(PT, ("Madeira — julho 2026", "- voo para o Funchal, hotel no Lido, férias com os miúdos, passaporte\n")
                    )["Madeira — julho 2026"] == "personal"
    assert document("", ("2026-07-03 Madeira", "- flights to Funchal, hotel in the Lido\n"))["2026-07-03 Madeira"] == "log"
    assert document("", ("Madeira — July 2026", "- see you\n"))["Madeira — July 2026"] == "log"
    assert document("", ("周记 2026-W09", "- 本周新书到货\n"))["周记 2026-W09"] == "log"


@pytest.mark.parametrize(("preamble", "heading", "body", "domain"), [
    ("", "🎂", "- Ana 3/14, Tom 9/2\n", "dates"),
    (DE, "⛵", "- Segelschein im Mai\n", "personal"),
    ("", "💊 doctors", "- Dr Patel for the knee\n", "personal"),
    ("", "🤖", "- short answers, no emoji in emails\n", "agents"),
    ("", "🩺 the practice", "- clients and invoices; the booking system; the staff rota and payroll\n", "business"),
])
def test_an_emoji_heading_is_a_weak_word_of_its_domain(preamble: str, heading: str, body: str, domain: str) -> None:
    """A bare emoji says what it holds (a cake: the birthdays); it is weak, so a body about a clinic's
    business outweighs the stethoscope's health."""
    assert document(preamble, (heading, body))[heading] == domain


def test_lessons_that_are_rules_for_the_agent_are_the_agents() -> None:
    """LABELS.md: lessons about how the agent behaves go to agents; an item that opens on a rule ("Ne jamais
    …", "Never …") is one, like an item naming the owner or one of the agent's jobs."""
    body = ("- Ne jamais écrire « urgent » dans un objet de mail, il panique.\n"
            "- Jamais deux rendez-vous le même matin.\n- Le serveur de sauvegarde redémarre le dimanche.\n")
    assert document(FR, ("Leçons apprises", body))["Leçons apprises"] == "agents"


# --- the kinds of miss read in tune20 (odd formats): invented examples of the same shapes ---------------


def test_a_numbered_heading_that_then_starts_with_a_date_is_a_dated_entry() -> None:
    assert document(ES, ("14. 03/02/2026 — reclamo a la prepaga", "- llamé, me dieron número de trámite\n")
                    )["14. 03/02/2026 — reclamo a la prepaga"] == "log"


@pytest.mark.parametrize(("preamble", "heading"), [
    (DE, "Du rufst keine Kunden an, bevor ich die Offerte gesehen habe"),
    ("", "You never book anything before 9 on a Monday"),
    (ES, "Tú no mandas nada a los pacientes sin que yo lo lea"),
])
def test_a_sentence_to_the_agent_that_states_a_rule_is_the_agents(preamble: str, heading: str) -> None:
    """A heading in the second person with a rule word anywhere in it is an operating rule for the agent."""
    assert document(preamble, (heading, "- gilt für Mails und Anrufe\n"))[heading] == "agents"


@pytest.mark.parametrize("heading", ["賣方｜林美玲 小姐", "買方｜張志豪 先生", "編集：森さん"])
def test_a_cjk_role_and_a_name_is_a_person(heading: str) -> None:
    """A CRM-like record: the role, a bar or colon, then a CJK person (a family name, an honorific)."""
    assert document("", (heading, "- 電話：0912-***-111\n- 下次跟進：週五\n"))[heading] == "people"


def test_a_novels_character_after_a_cjk_colon_stays_projects() -> None:
    novel = "我是墨童，周雨桐的写作助手。她在写一部长篇小说，连载中。\n\n"
    assert document(novel, ("人物：沈知秋", "- 女主，二十三岁\n"))["人物：沈知秋"] == "projects"


def test_in_a_memory_written_in_capitals_a_heading_in_capitals_may_be_a_name() -> None:
    """`POOJA` over a person's card in a file whose headings are all in capitals; elsewhere a word in
    capitals is an acronym (`IFTA`, `DIAN`), never a name."""
    card = "- 31, with me since 2017; getting married herself in Feb, block her dates\n"
    caps = [("ABOUT ME", "- planner\n"), ("TEAM", "- four\n"), ("GST", "- file monthly\n")]
    assert document("", *caps, ("POOJA", card))["POOJA"] == "people"
    plain = [("About me", "- planner\n"), ("Team", "- four\n"), ("Taxes", "- file monthly\n")]
    assert document("", *plain, ("FENS", card))["FENS"] != "people"


def test_sentence_headings_about_the_owner_a_relative_and_what_the_agent_does() -> None:
    """Headings that are sentences: one introducing the owner by name (`Ich bin Lukas, 41, …`) is identity;
    one whose subject is a relative (`Mami braucht …`, `My mum needs …`) is about that person; in a memory
    the agent speaks, `Lo que no hago` is the agent's; a first-person pronoun in a sentence (`my knee is
    acting up again`) is grammar, not the owner's profile, so the body tells the health."""
    de = "Du bist Gämsli, der Assistent von Lukas Meier. Er schreibt dir oft Mundart, das ist ok und nicht schlimm.\n\n"
    placed = document(de, ("Ich bin Lukas, 41, seit 2016 selbständig, und ich will kurze Antworten", "- bitte\n"),
                      ("Mami braucht seit ihrem Sturz mehr Hilfe und die Spitex kommt dreimal", "- Dienstag\n"))
    assert placed == {"Ich bin Lukas, 41, seit 2016 selbständig, und ich will kurze Antworten": "identity",
                      "Mami braucht seit ihrem Sturz mehr Hilfe und die Spitex kommt dreimal": "people"}
    assert document("", ("My mum needs a lift to the clinic on Fridays", "- 9am\n")
                    )["My mum needs a lift to the clinic on Fridays"] == "people"
    assert document("", ("Mum's hip operation is on the 14th", "- ward 7\n"))["Mum's hip operation is on the 14th"] != "people"
    es = "Soy Mate, el asistente de Vale. Le llevo la agenda del consultorio y los cobros de todos los días.\n\n"
    assert document(es, ("2) Lo que NO hago", "- diagnósticos\n"))["2) Lo que NO hago"] == "agents"
    knee = "- physio Tuesdays; ibuprofen, ice after runs; the doctor said no squats\n"
    assert document("", ("my knee is acting up again", knee))["my knee is acting up again"] != "identity"


@pytest.mark.parametrize(("preamble", "heading", "body"), [
    (PT, "Viagem Madeira (junho)", "Férias em família.\n- Voos e hotel reservados\n- O Rui avisa os clientes a partir de 1 de junho\n"),
    ("", "Trip to Lisbon", "- a holiday, finally; flights booked\n- tell the clients I'm away from the 3rd\n"),
])
def test_a_trip_that_calls_itself_a_holiday_is_private_whatever_work_it_mentions(preamble: str, heading: str,
                                                                                 body: str) -> None:
    """The lexicons' `holiday`: the clients such a trip names are told of it; a trip to meet them is work."""
    assert document(preamble, (heading, body))[heading] == "personal"
    assert document("", ("Trip to Lisbon", "- flights booked\n- two client visits and the conference talk\n")
                    )["Trip to Lisbon"] == "business"


@pytest.mark.parametrize(("preamble", "owner", "agent"), [
    ("I am Lena Hoffmann, a UX designer in Munich. My agent is called Kestrel and keeps this file.\n",
     {"lena", "hoffmann"}, {"kestrel"}),
    ("I'm Dana Levy, I run a bakery. My assistant, Pip, reads this every morning.\n", {"dana", "levy"}, {"pip"}),
    ("Ich bin Jonas Weber. Mein Assistent heißt Fidi.\n", {"jonas", "weber"}, {"fidi"}),
    ("I am Tern, the platform agent for Dana.\n", {"dana"}, {"tern"}),
])
def test_the_owner_who_says_i_and_names_their_agent(preamble: str, owner: set[str], agent: set[str]) -> None:
    """"I am Lena … My agent is called Kestrel": the owner writes the opening, so the "I" is the owner and
    `About me` is theirs (a new user's memory filed it under agents)."""
    context = document_context(preamble, [], Config())
    assert set(context.owner) == owner and set(context.agent) == agent
    placed = document(preamble, ("About me", "- 38, married to Jon, work 9-3\n"))
    assert placed["About me"] == ("agents" if agent == {"tern"} else "identity")


# --- the kinds of miss read in tune21 (odd formats): invented examples of the same shapes ---------------


@pytest.mark.parametrize(("preamble", "owner"), [
    ("Eres Brisa, la asistente del despacho. Trabajas para la C.P. Lucía Garza Peña.\n", {"lucía", "garza", "peña"}),
    ("You work for Dana Levy, who runs a bakery in Hobart.\n", {"dana", "levy"}),
    ("---\ndonos: Manuel Sousa (\"Manel\") e Rosa Sousa\nagente: Gaivota\n---\n", {"manuel", "rosa", "sousa"}),
    ("---\nagent: 小葉\nowner: 陳振明\n---\n", {"陳振明", "阿明"}),
])
def test_whom_you_work_for_plural_owner_fields_and_a_taiwanese_a_name(preamble: str, owner: set[str]) -> None:
    """"Trabajas para la C.P. …" (a title the owner carries), `donos:` (owners) with a nickname between the
    two names, and 陳振明 called 阿明 (阿 and the last character of the given name)."""
    assert owner <= set(document_context(preamble, [], Config()).owner)


@pytest.mark.parametrize("heading", ["12 – Thierry", "03 - Thierry"])
def test_a_number_and_a_dash_before_a_name_is_only_the_items_number(heading: str) -> None:
    body = "Thierry Vial, 52, chef de partie depuis 2019. Il ouvre le mardi.\n"
    assert document(FR, (heading, body))[heading] == "people"


def test_a_lowercase_title_and_name_is_a_person() -> None:
    """In a memory written in lowercase, `mrs pappas` is a title and a name."""
    assert document("", ("mrs pappas", "- the corner house, pays cash, her dog bites\n"))["mrs pappas"] == "people"
    assert document("", ("dr okafor", "- the gp, thursdays\n"))["dr okafor"] == "people"


def test_a_heading_of_only_emoji_says_what_it_holds_and_a_joined_emoji_is_one_sign() -> None:
    """`🤖` alone is the agent's section though its body names the work (an emoji beside words stays weak);
    `🧑‍🔧 Aylin` is a person (a person emoji joined to their trade's wrench), not the hosts' wrench."""
    body = "- drafts the investor update; never emails clients or the team without asking\n"
    assert document("", ("🤖", body))["🤖"] == "agents"
    card = "Aylin Kaya, 34, our SRE since 2023; on call every other week\n"
    assert document("", ("🧑\u200d🔧 Aylin", card))["🧑\u200d🔧 Aylin"] == "people"
    assert document("", ("孫仔", "- 大孫 國小三年級\n- 小孫女 幼稚園\n"))["孫仔"] == "people"


@pytest.mark.parametrize(("heading", "body"), [
    ("Wer ist Thomas?", "- Thomas Baumann, Regulas Mann, 56, Bauingenieur.\n"),
    ("Was ist mit Jasmin?", "- Jasmin Keller, 38, seit 2019 bei uns.\n"),
    ("Qui est Maud ?", "- Maud Leclerc, ma belle-sœur, infirmière à Nantes.\n"),
    ("¿Quién es Lupe?", "- Lupe Ortega, la vecina de enfrente.\n"),
    ("Quem é o Rui?", "- Rui Matos, o contabilista, 52 anos.\n"),
])
def test_a_question_heading_in_any_western_language_is_read_without_its_frame(heading: str, body: str) -> None:
    """`Wer ist …?`, `Qui est … ?`, `¿Quién es …?`, `Quem é …?` ask about the person they name, as
    "who is Ravi?" does: the frame is dropped and the name step reads the rest."""
    assert document("", (heading, body))[heading] == "people"


PLUMBER = "# memory file\n\nYou're Dusty, the assistant on Rick's phone. Rick owns Kowalczyk Plumbing & Drain LLC out of Columbus.\n\n"
VAN = ("the van thing", "- 2017 Transit, KOWALCZYK PLUMBING on the side; carries the plumbing stock\n- new tires before winter\n")


def test_the_words_of_the_business_the_owner_runs_are_the_trade_not_private_life() -> None:
    """Issue 23 (trade vocabulary): where the opening says the owner runs a business (`owns`, `leitet`,
    `dona da`), the words of its name the personal domain holds (plumbing, Kita, surf) are the work's in
    that memory; in a household's memory the same words stay private life."""
    assert document(PLUMBER, VAN)["the van thing"] == "business"
    assert document("# memory\n\nYou're Dusty, the assistant of Rick and Dana's family.\n\n", VAN)["the van thing"] == "personal"
    kita = "# Memory\n\nDu bist Mila, die Assistentin von Regula. Regula leitet seit 2017 die Kita Sonnenhügel in Zürich.\n\n"
    parents = "# Memory\n\nDu bist Mila, die Assistentin von Regula. Unsere Elira geht in die Kita Sonnenhügel in Zürich.\n\n"
    budget = ("Wie steht das Budget?", "- Budget 2026 der Kita: Miete Fr. 96'000, Material Fr. 18'500.\n")
    assert document(kita, budget)[budget[0]] == "business"
    assert document(parents, budget)[budget[0]] == "personal"
    text = PLUMBER + "## the van thing\n" + VAN[1]
    line = render_explain(explain_file(text, Config()), Config()).splitlines()[0]
    assert "(the owner's trade)" in line


@pytest.mark.parametrize("opening", [
    "She runs marathons and manages her diabetes with care.",  # no business named: no capital, workplace or LLC
    "Je gère le calendrier familial, les rappels et les papiers.",  # the agent speaks: "je"
])
def test_a_verb_of_running_names_no_business_without_one(opening: str) -> None:
    """"runs marathons", "manages her diabetes", the agent's "je gère le calendrier": no business is
    named, so nothing is the trade and the memory is no working one for it."""
    assert document(f"# Memory\n\n{opening}\n\n", ("Marathon", "- Berlin in September, 3:45 target\n"))["Marathon"] == "personal"


def test_a_heading_of_no_words_is_whom_its_body_opens_on() -> None:
    """`## 🙋‍♀️` over "- Valentina Ríos, 36, profe de yoga": a full name and an age open the body; the
    owner's name makes it identity, another person's people."""
    pre = "# memoria\n\nSos Luna, la asistente de Valentina Ríos.\n\n"
    placed = document(pre, ("🙋\u200d♀️", "- Valentina Ríos, 36, profe de yoga, vive en un depto alquilado\n"),
                      ("👵", "- Marta Souza, 84, la abuela de Tomi, vive en un depto en Río Cuarto\n"))
    assert placed == {"🙋\u200d♀️": "identity", "👵": "people"}


@pytest.mark.parametrize("opening", ["- sos Luna, me ayudás con el estudio y las alumnas", "You are Luna; you answer clients"])
def test_a_body_that_speaks_to_the_agent_by_name_is_the_agents(opening: str) -> None:
    """`🤖 lo que hacés vos` over "- sos Luna, me ayudás …": whatever the work it names, the section
    tells the agent who it is and what it does."""
    pre = "# memoria\n\nagente: Luna\n\n"
    assert document(pre, ("🤖 lo que hacés vos", f"{opening}, con precios y turnos del estudio.\n"))["🤖 lo que hacés vos"] == "agents"


def test_emoji_say_recurring_work_a_trip_and_money() -> None:
    """`⏰⏰` names recurring work (whose jobs decides), `✈️ X` a trip (a private one stays personal in a
    working memory), `💸💸` money (a working memory's is the business's)."""
    jobs = ("⏰⏰", "- lunes 8:00: resumen de la semana\n- día 1: recordarme el alquiler\n- día 5: recordarme pagar a los profes\n")
    assert document(ES, jobs)["⏰⏰"] == "agents"
    trip = ("✈️ Bariloche", "- con Tomi, del 18 al 25 de julio; el estudio cierra esa semana\n- cabaña por Airbnb\n")
    studio = "# memoria\n\nVale tiene Prana, un estudio de yoga en Córdoba. Los clientes y las clases son lo primero.\n\n"
    assert document(studio, trip)["✈️ Bariloche"] == "personal"


@pytest.mark.parametrize(("preamble", "heading", "body"), [
    ("", "my knee ugh", "- torn meniscus, surgery eventually\n- PT Tuesdays, ibuprofen with food\n"),
    (ES, "La rodilla", "- resonancia el martes, después traumatólogo\n- paracetamol si duele\n"),
    (PT, "O joelho", "- ressonância na terça, depois ortopedista\n- paracetamol se doer\n"),
    (FR, "Le genou", "- IRM mardi, puis chirurgie peut-être\n- paracétamol si besoin\n"),
    (DE, "Das Knie", "- MRT am Dienstag, dann zum Orthopäden\n- Ibuprofen nur zum Essen\n"),
    ("", "膝のこと", "- 来月手術の予定\n- 痛み止めは食後\n"), ("", "膝盖", "- 下个月手术\n- 止痛药饭后吃\n"),
    ("", "무릎", "- 다음 달 수술 예정\n- 진통제는 식후\n"),
])
def test_a_body_about_an_injury_is_health_in_every_language(preamble: str, heading: str, body: str) -> None:
    """Issue 23 (everyday vocabulary): surgery, a knee, painkillers, a scan are health words in every
    lexicon language: `personal`."""
    assert document(preamble, (heading, body))[heading] == "personal"


@pytest.mark.parametrize(("heading", "body"), [
    ("¿Y Yeison qué?", "- Yeison Andrés Cardona, auxiliar de farmacia, con la droguería desde 2021.\n"),
    ("¿Y don Hernán?", "- Hernán Darío Gómez, el esposo. 58 años, pensionado.\n"),
    ("Et Paul ?", "- Paul Girard, le voisin, 70 ans.\n"),
    ("¿Cómo sigue mi mamá?", "- Diabética, control el primer jueves de cada mes.\n"),
])
def test_an_and_what_about_question_asks_about_a_person(heading: str, body: str) -> None:
    """`¿Y X?`, `Et X ?` ("and what about X?") and `¿Cómo sigue mi mamá?` ask about the person they name."""
    assert document(ES, (heading, body))[heading] == "people"


def test_an_owner_named_with_dona_and_a_card_after_a_note() -> None:
    """`la asistente de doña Luz Marina Restrepo` names the owner through her title; a `Sobre mim` whose
    first line is a note and whose next opens on the owner's card is the owner's, though the agent
    speaks as I."""
    pre = "# Memoria\n\nSoy Chepa, la asistente de doña Luz Marina Restrepo, dueña de la Droguería La Esperanza.\n\n"
    assert document(pre, ("¿Quién es doña Luz Marina?", "- Luz Marina Restrepo Ochoa, 54 años.\n"))[
        "¿Quién es doña Luz Marina?"] == "identity"
    pre = "---\ndona: Luana Becker (Lu)\nagente: Lumi\n---\n\nEu sou a Lumi, a assistente da Lu.\n\n"
    placed = document(pre, ("🙋\u200d♀️ Sobre mim", "(escrito pela Lu)\n- Luana Becker, 34, nasci em Santa Cruz do Sul\n"),
                      ("💛", "Rafa — Rafaela Moura, minha namorada desde 2021. Veterinária.\n- mora comigo\n"),
                      ("🇦🇷 Buenos Aires", "férias com a Rafa, 04 a 09/07\n- voo POA → Aeroparque, hotel em Palermo\n- a Bituca fica com a mãe\n"))
    assert placed == {"🙋\u200d♀️ Sobre mim": "identity", "💛": "people", "🇦🇷 Buenos Aires": "personal"}


def test_a_clinics_care_words_are_its_work() -> None:
    """Where the business the owner runs is a health trade's (`中医诊所`, `Clinic`, `Droguería`: the
    lexicons' `care`), its patients, prescriptions and consultations are the work; in a household's
    memory they stay health."""
    clinic = "小禾的长期记忆。服务对象：沈国华，在杭州开了一家中医诊所。\n\n"
    family = "小禾的长期记忆。服务对象：沈国华一家。\n\n"
    patients = ("患者", "- 老病人复诊率高，处方和病历按医保要求保存。\n- 刘桂芳，72 岁，每两周复诊。\n")
    assert document(clinic, patients)["患者"] == "business"
    assert document(family, patients)["患者"] == "personal"


@pytest.mark.parametrize(("preamble", "heading", "domain"), [
    ("---\nagent: Pip\n---\n\n", "Pip never contacts a student directly", "agents"),
    ("", "Maya's mom pays on the first of the month", "people"),
    ("", "娘・ひなた", "people"),
])
def test_sentences_and_kin_marks_name_who_they_are_about(preamble: str, heading: str, domain: str) -> None:
    """The agent's name before a rule word is the agent's rule; `Maya's mom pays …` is about a relative;
    `娘・ひなた` is a kin word, a mark and a name."""
    assert document(preamble, (heading, "- 8歳, swim lessons on Wednesdays, messages go to parents\n"))[heading] == domain


def test_a_voice_notes_fillers_say_nothing() -> None:
    """`ok so dana`, `the guys uh jamal and cody`: a transcribed heading's fillers are no topic and no
    name; what is left is read (a lowercase name the body opens on with who she is)."""
    placed = document("", ("ok so dana", "- my wife, married 2004. does the books part time\n"),
                      ("my knee ugh", "- torn meniscus, surgery eventually; ibuprofen with food\n"))
    assert placed == {"ok so dana": "people", "my knee ugh": "personal"}


@pytest.mark.parametrize(("preamble", "heading"), [("", "Basic info"), ("", "基本信息"), ("", "基本情報"), ("", "기본 정보"),
                                                 (ES, "Datos básicos"), (PT, "Dados básicos"), (FR, "Informations de base"),
                                                 (DE, "Eckdaten")])
def test_a_basic_info_heading_is_the_owners_profile(preamble: str, heading: str) -> None:
    """`基本信息`, `기본 정보`, `Basic info` open a memory with the owner's profile: identity; not
    `농장 기본 정보` (the farm's)."""
    body = "- 1976 born, from Shaoxing; up at 6, tai chi before breakfast\n"
    assert document(preamble, (heading, body))[heading] == "identity"
    assert document("", ("농장 기본 정보", "- 감귤 농장 2 ha, 직원 3명, 매출 연 1억\n"))["농장 기본 정보"] != "identity"


def test_a_single_word_over_a_trip_is_a_place_not_a_person() -> None:
    """`Açores` over "voos SATA …, ela e o Zé": a trip's flights and hotels, whoever goes; the "ela" is in
    passing, and the body never echoes the word nor opens on who it is."""
    body = "- São Miguel, 12 a 20 julho, ela e o Zé\n- voos SATA comprados; casa rural 4 noites\n- carro alugado\n"
    assert document(PT, ("Açores", body))["Açores"] == "personal"


@pytest.mark.parametrize(("heading", "domain"), [
    ("我太太美玲管帳跟網購", "people"), ("阿嬤一三五要去洗腎", "people"), ("外婆房子出租合約", "legal"),
    ("你不可以自己回盤商的訊息", "agents"), ("不要在群組裡貼家裡的地址", "agents"),
])
def test_a_chinese_sentence_heading_says_whom_it_is_about(heading: str, domain: str) -> None:
    """A CJK sentence (six characters or more) whose subject is a relative, with a verb after it, is
    about them (not `外婆房子出租合約`, a label: grandma's house's lease); one that opens on a rule word,
    after "you" or not, is the agent's rule."""
    assert document("", (heading, "- 每週一、三、五\n"))[heading] == domain


def test_a_relative_in_brackets_and_a_heading_of_children_emoji() -> None:
    """`由美子（妻）`: a name, and in brackets whose relative; `👧👦` over "- Lena, 14, …": the children."""
    placed = document("", ("由美子（妻）", "- 52歳。結婚1998年。誕生日には花を用意。\n"),
                      ("👧👦", "- Lena, 14, HLW Krems\n- Jakob, 11, Mittelschule Spitz, Fußball\n"))
    assert placed == {"由美子（妻）": "people", "👧👦": "people"}


def test_a_japanese_opening_that_runs_a_shop_makes_a_working_memory() -> None:
    """`ラーメン店「麺屋 北斗」をやっている`: the owner runs the shop (`を…` cues come after the name)."""
    pre = "札幌でラーメン店「麺屋 北斗」をやっている健太さんの手伝いをしているハルのメモ。\n\n"
    context = document_context(pre, [], Config())
    from bonsai_git.core.classify import _index, _trade
    config = Config()
    runs, _trade_words = _trade(pre, _index(config.domains, config.configured, False, context.languages))
    assert runs


def test_names_in_texting_and_a_question_and_a_lawyers_title() -> None:
    """`róisín n dervla`: two lowercase names joined by a text's "n"; `Comment Nathalie veut-elle …?`:
    the question's first word is no given name before the owner's (`Me Nathalie Berset`: Maître)."""
    assert document("", ("róisín n dervla", "- Róisín Mulkerrins - stylist, 3 yrs\n- Dervla Hynes - junior, she does washes\n"))[
        "róisín n dervla"] == "people"
    pre = "# Mémoire\n\nTu es Sténo, l'assistant numérique de Me Nathalie Berset, avocate à Genève.\n\n"
    heading = "Comment Nathalie veut-elle qu'on lui écrive ?"
    assert document(pre, (heading, "- Courts, sans formules.\n"))[heading] == "identity"
    assert document_context(pre, [], Config()).owner == frozenset({"nathalie", "berset"})


@pytest.mark.parametrize("heading", ["阿明跟小黃是固定的工人", "田中さんは火曜日が休み", "혜진이는 헤어 담당인데 화요일엔 안 나온다"])
def test_a_cjk_sentence_whose_subject_is_a_person_by_name(heading: str) -> None:
    """A Chinese nickname before a verb, a Japanese name with さん and a particle, a Korean given name's
    이 before a particle: the sentence is about that person (not `원단이랑 …`: 이랑 is "and")."""
    assert document("", (heading, "- 火曜 / 화요일 / 週二\n"))[heading] == "people"
    assert document("", ("원단이랑 저고리는 남문시장에서 받는다", "- 원단 주문은 매주 월요일\n"))["원단이랑 저고리는 남문시장에서 받는다"] != "people"


def test_more_question_frames_capitals_and_informal_groups() -> None:
    """`Was macht Kevin?` asks about Kevin; in a memory in capitals, a heading of lexicon words
    (`HONORARIOS Y COBRANZAS`) is no pair of names; `the girls` over the staff is people; `💬 Comment me
    parler` is how the owner wants to be spoken to."""
    assert document(DE, ("Was macht Kevin?", "- Kevin Brandt, 24, Geselle seit 2022\n"))["Was macht Kevin?"] == "people"
    caps = ES + "".join(f"## {h}\n- x\n\n" for h in ("CLIENTES", "AFIP", "EL ESTUDIO"))
    assert document(caps, ("HONORARIOS Y COBRANZAS", "- los honorarios se cobran el 10, cobranzas por transferencia\n"))[
        "HONORARIOS Y COBRANZAS"] != "people"
    assert document("", ("the girls", "- Jess Tran, part-time, Tue-Sat\n- Abby, weekends only\n"))["the girls"] == "people"
    assert document(FR, ("💬 Comment me parler", "- Court, pas de formules.\n"))["💬 Comment me parler"] == "identity"


def test_a_guesthouse_owners_bookings_are_her_work() -> None:
    """`dona da Pousada Maré Mansa`: a lodging trade (the lexicons' `lodging`), whose bookings and guests are
    its work; in a household's memory an Airbnb booking is a trip's."""
    inn = "# MEMÓRIA\n\nSou a Sabiá, assistente da Dona Marlene Vasconcelos, dona da Pousada Maré Mansa, em Paraty.\n\n"
    family = "# MEMÓRIA\n\nSou a Sabiá, assistente da família Vasconcelos, em Paraty.\n\n"
    bookings = ("Reservas — Booking e Airbnb", "- as reservas chegam pelo Booking e pelo Airbnb; hóspedes fazem check-in às 14h\n")
    assert document(inn, bookings)[bookings[0]] == "business"
    assert document(family, bookings)[bookings[0]] == "personal"


def test_a_surnames_particle_is_no_name_of_the_owner() -> None:
    """`Claire Le Goff`: "Le" is a particle of her surname, so `🏥 Le cabinet` is no heading about her."""
    pre = "---\nproprietaire: Claire Le Goff\n---\n\nAlba est l'assistante de Claire Le Goff, kinésithérapeute, cabinet à Nantes.\n\n"
    assert document_context(pre, [], Config()).owner == frozenset({"claire", "goff"})
    assert document(pre, ("🏥 Le cabinet", "- deux salles, la secrétaire le matin, facturation CPAM\n"))["🏥 Le cabinet"] != "identity"


@pytest.mark.parametrize(("heading", "domain"), [("친정어머니는 칠곡에 혼자 사신다", "people"), ("CONSEJO PROFESIONAL", "community")])
def test_a_long_korean_kin_word_and_a_council(heading: str, domain: str) -> None:
    """A kin word of five syllables (`친정어머니`) opens a sentence about her; `Consejo …` names a group."""
    assert document(ES if heading.isupper() else "", (heading, "- cuota anual en marzo; 매주 일요일 전화\n"))[heading] == domain


@pytest.mark.parametrize(("heading", "body", "domain"), [
    ("Theo is prepping for the SAT in March", "- Theo Park, 17, junior at East High; Tuesdays 5pm\n", "people"),
    ("Priya is the best roommate I've had", "- pays her half on the 1st; Priya works nights, she sleeps till noon\n", "people"),
    ("Stripe is down again this morning", "- payouts delayed, retry at noon\n", "not people"),
])
def test_a_sentence_whose_subject_is_a_given_name_the_body_shows(heading: str, body: str, domain: str) -> None:
    """A sentence heading whose subject is a given name is about that person when the body opens on the
    name or names them again and describes a person; `Stripe is down …` names nobody."""
    got = document("", (heading, body))[heading]
    assert got != "people" if domain == "not people" else got == domain


def test_parents_sharing_the_owners_surname_and_trips_that_name_places() -> None:
    """`Mum and Dad` over "Mr and Mrs Lim" are the owner's parents, not the owner (Rachel Lim); `Bali trip —
    Sep hols` and `강원도` over a trip are places, whoever goes; `妻の美代子さんが…` is about the wife."""
    pre = "---\nowner: Rachel Lim\nassistant: Kaya\n---\n\n"
    placed = document(pre, ("Mum and Dad", "- Mr and Mrs Lim Boon Huat, 72 and 69, Toa Payoh\n- Dad's knee op in March; Mum does Sunday lunch\n"),
                      ("Bali trip — Sep hols", "- Rachel, Jon and the kids; Marites takes leave, ask her\n- Scoot flights booked\n- Bali tourist levy\n"))
    assert placed == {"Mum and Dad": "people", "Bali trip — Sep hols": "personal"}
    assert document("", ("강원도", "- 8월 둘째 주, 아내랑 둘이\n- 속초 호텔 2박 예약, 기차표 구매\n- 그녀는 바다를 좋아함\n"))["강원도"] == "personal"
    assert document("", ("妻の美代子さんが帳場と帳簿を見ている", "- 月末に締める\n"))["妻の美代子さんが帳場と帳簿を見ている"] == "people"


def test_the_owner_a_kin_bracket_and_a_name_in_capitals_with_its_role() -> None:
    """`Wren keeps this for Niamh Gallagher` names the owner, so `who is Niamh, basically?` is hers;
    `SEU ANTÔNIO (PAI)` is the owner's father though he shares the owner's middle name; in a memory in
    capitals `ZÉ CARLOS – CAPATAZ` is a name and its role; `what's the deal with Tomasz?` asks about him."""
    pre = "# memory.md (Wren)\n\nWren keeps this for Niamh Gallagher, who owns Gallagher's Chemist in Chorlton.\n\n"
    assert document_context(pre, [], Config()).owner == frozenset({"niamh", "gallagher"})
    placed = document(pre, ("who is Niamh, basically?", "- Niamh Gallagher, 44, superintendent pharmacist\n"),
                      ("what's the deal with Tomasz?", "- Tomasz Nowak, dispenser, 3 days a week\n"))
    assert placed == {"who is Niamh, basically?": "identity", "what's the deal with Tomasz?": "people"}
    caps = "---\ndono: Valdir Antônio Rezende\n---\n\n" + "".join(f"## {h}\n- x\n\n" for h in ("GADO", "SOJA", "MÁQUINAS"))
    placed = document(caps, ("SEU ANTÔNIO (PAI)", "- 84 anos, mora na cidade\n"),
                      ("ZÉ CARLOS – CAPATAZ", "- José Carlos Souza, 52, capataz há 15 anos\n"))
    assert placed["SEU ANTÔNIO (PAI)"] == "people" and placed["ZÉ CARLOS – CAPATAZ"] == "people"


@pytest.mark.parametrize("heading", ["Mamá y papá", "Mum and Dad", "Oma und Opa"])
def test_two_kin_words_joined_are_the_relatives(heading: str) -> None:
    """`Mamá y papá` over their news (a hip operation) is about the owner's parents: people, not the
    health words' personal (a new user's report)."""
    assert document(ES, (heading, "- Viven en Toledo. A papá lo operaron de la cadera en marzo.\n"))[heading] == "people"


@pytest.mark.parametrize("preamble, heading, table", [
    (FR, "Les serveurs", "| Nom | Poste | Horaire |\n|---|---|---|\n| Amandine Roux | cheffe de rang | midi |\n| Hugo Perret | commis | soir |\n"),
    (PT, "👷 Pedreiros", "| nome | função | obs |\n|---|---|---|\n| Seu Lourival | mestre de obras | 20 anos |\n| Cláudio | servente | novo |\n"),
    ("", "板前", "| 名前 | 担当 | メモ |\n|---|---|---|\n| 小野寺 | 焼き場 | 十年目 |\n| 杉浦 | 仕込み | 春から |\n"),
    ("", "Drivers", "| Name | Shift | Notes |\n|---|---|---|\n| Dev Patel | early | van 2 |\n| Rosa Lindqvist | late | forklift ticket |\n"),
])
def test_a_table_of_people_and_what_each_does_is_people(preamble: str, heading: str, table: str) -> None:
    """A roster (a `Name` column beside a `Role`/`Shift` one, rows of different people) is the staff:
    people, whatever trade or device word its heading holds (LABELS.md: a team or a contact list)."""
    assert document(preamble, (heading, table))[heading] == "people"
    assert "a table of people" in render_explain(explain_file(preamble + f"## {heading}\n{table}", Config()), Config())


def test_a_table_of_whose_doses_or_a_novels_cast_is_no_roster() -> None:
    """`Wer | Mittel` says whose dose each row is (the owner's household: personal); a novel's cast
    with its roles is working material for the book (projects); one person's rows are no roster."""
    meds = "| Wer | Mittel | Rolle |\n|---|---|---|\n| Gerhard | Ramipril | Blutdruck |\n| Ingrid | L-Thyroxin | Schilddrüse |\n"
    assert document(DE, ("Medikamente", meds))["Medikamente"] == "personal"
    cast = "| Nom | Rôle |\n|---|---|\n| Odile Ferrand | narratrice |\n| Paul Vasseur | le frère |\n"
    novel = "Je suis l'assistante d'une romancière. Le roman, les personnages et le manuscrit sont pour nous.\n\n"
    assert document(novel, ("Personnages", cast))["Personnages"] == "projects"
    one = "| Name | Role |\n|---|---|\n| Dev Patel | early |\n| Dev Patel | late |\n"
    assert document("", ("Drivers", one))["Drivers"] != "people"


def test_a_title_heading_over_a_card_is_whom_it_is_about() -> None:
    """`## 大将` over the owner's full name and age is the owner (identity); `## 料理長` (a role word of
    business) or a bare family name over another full name and an age is that person (people); a
    group's name and a date ("Stammtisch, 1er mercredi") is no card."""
    pre = "---\nowner: 松本 浩二\nagent: ハチ\n---\n\n"
    placed = document(pre, ("大将", "- 松本浩二、58歳。天草出身。\n- 朝は市場から。\n"),
                      ("店長", "二号店店長・森下 亮（41）。2016年入社。\n- シフト作成\n"),
                      ("片岡", "片岡 慎吾（27）。焼き場の二番手。\n- 免許あり\n"),
                      ("실장님", "- 오세훈 (45), 주방 실장\n"))
    assert placed == {"大将": "identity", "店長": "people", "片岡": "people", "실장님": "people"}
    assert document(FR, ("Stammtisch", "- Stammtisch franco-allemand, 1er mercredi du mois, 19:30\n"))["Stammtisch"] != "people"


def test_the_owner_named_by_a_german_assistenz_and_a_possessive_opening() -> None:
    """"die Assistenz von Jens Hartwig" names the owner, so `Was ich über Jens weiß` is his; `## Katrin`
    over "Jens’ Frau, …" (a German possessive) is his wife, people, not him."""
    pre = "Ich bin Lotte, die Assistenz von Jens Hartwig. Er führt einen Pflegedienst in Leipzig.\n\n"
    assert document_context(pre, [], Config()).owner >= {"jens", "hartwig"}
    placed = document(pre, ("Was ich über Jens weiß", "- Jens Hartwig, 54, Krankenpfleger\n"),
                      ("Katrin", "- Jens’ Frau, verheiratet seit 1998. Lehrerin.\n"))
    assert placed == {"Was ich über Jens weiß": "identity", "Katrin": "people"}


@pytest.mark.parametrize("preamble, heading, domain", [
    ("", "子ども", "people"), ("", "우리 애들", "people"), (ES, "Migrañas", "personal"), ("", "痛風", "personal"),
    ("", "편두통", "personal"), (DE, "Gicht", "personal"), (FR, "Goutte", "personal"),
])
def test_kin_in_cjk_and_more_health_words(preamble: str, heading: str, domain: str) -> None:
    """The owner's children (`子ども`, `우리 애들`: "our kids") are people; migraine and gout are health."""
    assert document(preamble, (heading, "- x\n"))[heading] == domain


@pytest.mark.parametrize("preamble, owner, not_owner", [
    ("I'm Banjo, the assistant Leanne set up on her dad's laptop. The bloke I look after is Colin Fairweather, 72.\n\n",
     {"colin", "fairweather"}, {"leanne"}),
    ("# MEMORY — Col's notebook\n\nEntries are mine unless marked.\n\n", {"col"}, set()),
    ("Eres Tere, la asistente virtual de la Licda. Mariana Robles Zúñiga, abogada en Guadalajara.\n\n",
     {"mariana", "robles"}, {"licda"}),
])
def test_whom_the_agent_looks_after_and_who_only_set_it_up(preamble: str, owner: set[str], not_owner: set[str]) -> None:
    """"The bloke I look after is …" and a title's "Col's notebook" name the owner; a relative who set
    the agent up "on her dad's laptop" is not the owner; `Licda.` is a title, not a name."""
    found = document_context(preamble, [], Config()).owner
    assert owner <= found and not (not_owner & found)


@pytest.mark.parametrize("preamble, heading, body, domain", [
    ("", "📦 阿芳姐", "阿芳，负责打包，在仓库干了两年。\n", "people"),  # an emoji before a titled name
    ("", "Minji쌤", "- 화요일 힙합 클래스 담당, 2022년부터\n", "people"),  # a Western name, a Korean title, no space
    ("", "세입자 김사장님", "- 1층 카페 운영, 계약 2027년까지\n", "people"),
    (PT, "D. Rosário", "- Vizinha do lado, 80 anos, tem a chave\n", "people"),
    ("", "Registrierkasse & Computer", "- Kassa: Typ X, Computer im Büro\n", "infrastructure"),
    (DE, "Saisonkräfte", "- Zwei Erntehelfer aus der Slowakei im September\n", "people"),
    (ES, "Mi vieja", "- Vive sola en Rosario, 74\n", "people"),
])
def test_titles_marks_and_everyday_words_of_odd_formats(preamble: str, heading: str, body: str, domain: str) -> None:
    """A name with a CJK title (`姐`, `쌤`, `사장님`) or `D.` is a person, also after an emoji; a cash
    register and seasonal workers are what they are; `mi vieja` is the owner's mother."""
    assert document(preamble, (heading, body))[heading] == domain


def test_the_owners_name_before_a_kin_word_is_their_relative() -> None:
    """`## 👨 老周` over "梅姐老公周德胜 …": the owner's husband, not the owner."""
    pre = "我是小枣，梅姐（韩秀梅）的微信助手。\n\n"
    assert document(pre, ("👨 老周", "梅姐老公周德胜，在开出租车。\n"))["👨 老周"] == "people"


def test_a_private_life_group_holds_the_owners_personal_matters() -> None:
    """Under `# PRIVAT` or `# Vida personal`, a section with no word of its own (`Jagd`, a Sunday
    barbecue) is the owner's private life: personal, not identity; a relative there is still people."""
    text = ("# Gedächtnis\n\nDu bist Gustl, der Assistent von Franz Berger.\n\n# PRIVAT\n\n## Jagd\n- Revier bei Wolkersdorf\n\n"
            "## Enkerl\n- Lena (6) und Paul (4)\n")
    placed = {p.heading: p.domain for p in plan_migration(text, Config()).placed}
    assert placed == {"Jagd": "personal", "Enkerl": "people"}
    text = "# Memoria\n\nEres Mate, la asistente de Lucía.\n\n# Vida personal\n\n## Asado de los domingos\n- en lo de su hermano\n"
    assert [p.domain for p in plan_migration(text, Config()).placed] == ["personal"]
