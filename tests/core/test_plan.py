from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.config import Config, parse_config
from bonsai_git.core.errors import BadInput, Failed
from bonsai_git.core.plan import Placement, SourceText, _verify_pieces, piece_at, plan_migration, verify_placements
from bonsai_git.core.layout import BEGIN, END, parse_trunk
from support import CORPUS_FILES, EXPECTED, corpus_bytes

LONG_PREAMBLE = "# Memory\n\n" + "An introduction that goes on for a while. " * 20 + "\n\n"  # ~210 tokens: over the 150 budget


def _plan(text: str, config: Config | None = None) -> dict[str, str]:
    return plan_migration(text, config or Config()).file_map()


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_plan_migration_places_every_section_once(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    plan = plan_migration(text, Config())
    assert plan.sections == EXPECTED[name]["h2_sections"]
    assert len(plan.placements) == plan.sections + (1 if plan.placements and not plan.placements[0].heading else 0)
    verify_placements(text, plan.file_map(), plan.placements)


def test_plan_migration_small_preamble_and_pinned_sections_stay_in_trunk() -> None:
    text = "# Me\n\n## 📌 Rules\nnever X\n## Business\nacme\n## Identity (pinned)\nI am Y\n"
    files = _plan(text)
    trunk = files["MEMORY.md"]
    assert trunk.startswith("# Me\n\n## 📌 Rules\nnever X\n## Identity (pinned)\nI am Y\n\n" + BEGIN)
    assert files["memory/domains/business/business.md"] == "## Business\nacme\n"


def test_plan_migration_moves_a_large_preamble_to_a_leaf() -> None:
    files = _plan(LONG_PREAMBLE + "## Preamble\nclash\n")
    assert files["memory/domains/general/preamble.md"] == LONG_PREAMBLE
    assert files["memory/domains/general/preamble-2.md"] == "## Preamble\nclash\n"
    assert files["MEMORY.md"].startswith(BEGIN)


def test_plan_migration_keeps_front_matter_and_bom_preambles_in_trunk() -> None:
    fm = "---\ntitle: memory\n---\n" + LONG_PREAMBLE
    assert _plan(fm + "## A\nx\n")["MEMORY.md"].startswith(fm)
    bom = "\ufeff" + LONG_PREAMBLE
    assert _plan(bom + "## A\nx\n")["MEMORY.md"].startswith(bom)


def test_plan_migration_appends_dates_sections_in_document_order() -> None:
    files = _plan("## Birthdays\nA\n## Other\nB\n## Important Dates\nC\n")
    assert files["memory/dates.md"] == "## Birthdays\nA\n## Important Dates\nC\n"
    assert "memory/domains/dates/_index.md" not in files


def test_plan_migration_without_final_newline_separates_the_block() -> None:
    files = _plan("# T\n## 📌 Pinned\nno newline")
    assert files["MEMORY.md"].startswith("# T\n## 📌 Pinned\nno newline\n\n" + BEGIN)


def test_plan_migration_uses_crlf_for_a_crlf_file() -> None:
    files = _plan("# T\r\n## A\r\nx\r\n## B\r\ny\r\n")
    parts = parse_trunk(files["MEMORY.md"])
    assert parts is not None and parts.newline == "\r\n"
    assert files["MEMORY.md"].endswith(END + "\r\n")


def test_plan_migration_is_deterministic() -> None:
    text = corpus_bytes("03-chief-of-staff-6k.md").decode("utf-8")
    assert plan_migration(text, Config()).files == plan_migration(text, Config()).files


def test_plan_migration_honours_config_domains_and_pins() -> None:
    cfg = parse_config('pinned = ["Style Guide"]\n[domains]\nresearch = ["papers"]\n')
    files = _plan("## Papers to read\nx\n## Style Guide\ny\n", cfg)
    assert "memory/domains/research/papers-to-read.md" in files
    assert "## Style Guide\ny\n" in files["MEMORY.md"]


def test_plan_migration_reports_boot_tokens() -> None:
    text = corpus_bytes("23-long-running-agent-25k.md").decode("utf-8")
    plan = plan_migration(text, Config())
    assert plan.boot_tokens_before > 24_000
    assert plan.boot_tokens_after <= 500  # the seed's 300-500-token trunk, preamble and topics included


def test_verify_placements_detects_a_lost_section() -> None:
    placements = (Placement("MEMORY.md", 0, 3, ""), Placement("memory/domains/a/x.md", 0, 4, "X"))
    with pytest.raises(Failed, match="lost the section 'X'"):
        verify_placements("abc## X", {"MEMORY.md": "abc"}, placements)
    with pytest.raises(Failed, match="does not reproduce"):
        verify_placements("abc## X", {"MEMORY.md": "abc", "memory/domains/a/x.md": "## Y"}, placements)


def _verdict_by_joining(original: str, files: dict[str, str], placements: tuple[Placement, ...]) -> str:
    """verify_placements as it was: every piece copied out, joined, compared (the reference)."""
    pieces = []
    for p in placements:
        piece = piece_at(files, p.path, p.offset, p.length)
        if piece is None:
            return f"lost {p.heading}"
        pieces.append(piece)
    return "ok" if "".join(pieces) == original else "differs"


def _verdict(original: str, files: dict[str, str], placements: tuple[Placement, ...]) -> str:
    try:
        verify_placements(original, files, placements)
    except Failed as err:
        return "differs" if "does not reproduce" in str(err) else "lost " + str(err).split("'")[1]
    return "ok"


_PIECE = st.tuples(st.sampled_from(["a", "b", "MEMORY.md"]), st.integers(-4, 8), st.integers(-1, 6),
                   st.sampled_from(["h1", "h2", "h3"]))


@given(st.text("xy\n", max_size=12), st.dictionaries(st.sampled_from(["a", "b", "MEMORY.md"]), st.text("xy\n", max_size=10)),
       st.lists(_PIECE, max_size=5))
def test_verify_placements_piece_by_piece_equals_joining(original: str, files: dict[str, str],
                                                         pieces: list[tuple[str, int, int, str]]) -> None:
    placements = tuple(Placement(path, offset, length, heading) for path, offset, length, heading in pieces)
    assert _verdict(original, files, placements) == _verdict_by_joining(original, files, placements)


@given(st.text("xy\n", min_size=1, max_size=12), st.data())
def test_verify_placements_accepts_every_true_cut(original: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(original) - 1) if len(original) > 1 else st.nothing())))
    bounds = [0, *cuts, len(original)]
    files = {f"f{i}": "pad" + original[a:b] for i, (a, b) in enumerate(zip(bounds, bounds[1:]))}
    placements = tuple(Placement(f"f{i}", 3, b - a, f"h{i}") for i, (a, b) in enumerate(zip(bounds, bounds[1:])))
    assert _verdict(original, files, placements) == _verdict_by_joining(original, files, placements) == "ok"


def test_plan_migration_moves_a_large_preamble_that_only_starts_with_a_rule() -> None:
    text = "---\n" + LONG_PREAMBLE + "## A\nx\n"  # a thematic break, not front matter (never closed)
    assert _plan(text)["memory/domains/general/preamble.md"] == "---\n" + LONG_PREAMBLE


def test_plan_migration_names_an_empty_heading_section_section_not_preamble() -> None:
    files = _plan("# T\n\n##\nbody\n## Other\nx\n")  # the small preamble stays in the trunk
    assert files["memory/domains/general/section.md"] == "##\nbody\n"
    assert files["memory/domains/general/other.md"] == "## Other\nx\n"
    assert "memory/domains/general/preamble.md" not in files
    assert files["MEMORY.md"].startswith("# T\n\n" + BEGIN)


def test_plan_migration_large_preamble_and_an_empty_heading_section() -> None:
    files = _plan(LONG_PREAMBLE + "##\nbody\n")
    assert files["memory/domains/general/preamble.md"] == LONG_PREAMBLE
    assert files["memory/domains/general/section.md"] == "##\nbody\n"


def test_plan_migration_keeps_a_marker_pair_quoted_in_a_fence_as_text() -> None:
    pinned = "## 📌 Rules\n```\n<!-- bonsai:begin example -->\n<!-- bonsai:end -->\n```\n"
    trunk = _plan(pinned + "## A\nx\n")["MEMORY.md"]
    assert trunk.startswith(pinned) and BEGIN in trunk[len(pinned):]


def test_plan_migration_refuses_a_bare_marker_pair_in_pinned_text() -> None:
    from bonsai_git.core.errors import BadInput

    pinned = "## 📌 Rules\n<!-- bonsai:begin example -->\n<!-- bonsai:end -->\n"
    with pytest.raises(BadInput, match="holds lines like bonsai's markers") as info:
        plan_migration(pinned + "## A\nx\n", Config())
    assert info.value.exit_code == 3


STANDING = ("# Memory — Juno\n\nNewer dated source wins. Ask before spending money. Daily notes go to "
            "memory/YYYY-MM-DD.md; only durable facts live here.\n\n")


def test_plan_migration_keeps_a_title_and_standing_instructions_by_default() -> None:
    plan = plan_migration(STANDING + "## Pricing\nMugs $18.\n", Config())
    assert 40 < plan.boot_tokens_before and plan.preamble_moved_tokens is None  # over the old 40-token rule
    assert plan.file_map()["MEMORY.md"].startswith(STANDING + BEGIN)


@pytest.mark.parametrize(("budget", "moved"), [(60, False), (30, True)])
def test_plan_migration_preamble_tokens_decides_and_reports_the_moved_tokens(budget: int, moved: bool) -> None:
    plan = plan_migration(STANDING + "## Pricing\nMugs $18.\n", Config(preamble_tokens=budget))
    assert ("memory/domains/general/preamble.md" in plan.file_map()) is moved
    assert plan.preamble_moved_tokens == (36 if moved else None)


# --- a handed-over text (SourceText): planning lets go of it and verifies against its pieces ---

@pytest.mark.parametrize("name", CORPUS_FILES)
def test_a_handed_over_text_plans_the_same_as_the_text(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    assert plan_migration(SourceText(text), Config()) == plan_migration(text, Config())


@given(st.lists(st.sampled_from(["\ufeff", "# T\n", "## Family\n", "## Cron jobs\r\n", "kid's birthday\n", "\n",
                                 "x\r\n", "## Rules (pinned)\n", "---\n", LONG_PREAMBLE]), min_size=1, max_size=14))
def test_a_handed_over_text_plans_the_same_as_the_text_whatever_its_shape(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        expected = plan_migration(text, Config())
    except BadInput:
        with pytest.raises(BadInput):
            plan_migration(SourceText(text), Config())
        return
    assert plan_migration(SourceText(text), Config()) == expected


def test_a_handed_over_text_is_taken_once() -> None:
    handed = SourceText("## A\nb\n")
    plan_migration(handed, Config())
    with pytest.raises(ValueError, match="already taken"):
        handed.take()


def test_the_pieces_check_refuses_a_plan_that_does_not_rebuild_the_original() -> None:
    files = {"MEMORY.md": "head\n", "memory/a.md": "## A\nb\n"}
    good = (Placement("MEMORY.md", 0, 5, ""), Placement("memory/a.md", 0, 7, "A"))
    _verify_pieces(("head\n", "## A\nb\n"), 12, files, good)
    with pytest.raises(Failed, match="does not reproduce"):
        _verify_pieces(("head\n", "## A\nc\n"), 12, files, good)
    with pytest.raises(Failed, match="does not reproduce"):
        _verify_pieces(("head\n", "## A\nb\n"), 13, files, good)
    with pytest.raises(Failed, match="does not reproduce"):
        _verify_pieces(("head\n", "## A\nb\n", "## C\n"), 17, files, good)
    with pytest.raises(Failed, match="lost the section 'A'"):
        _verify_pieces(("head\n", "## A\nb\n"), 12, files, (good[0], Placement("memory/b.md", 0, 7, "A")))
