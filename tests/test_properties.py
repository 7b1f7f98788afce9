"""Properties of the pure core: lossless splitting and planning, determinism, total classification."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.classify import classify_heading
from bonsai_git.core.config import Config
from bonsai_git.core.plan import plan_migration
from bonsai_git.core.sections import split_sections

_words = st.text(alphabet=st.sampled_from(list("abc xyz日本語한국 ñé📌-_#`~>*|")), max_size=20)
_eol = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def markdown(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["atx", "setext", "fence", "para", "blank", "quote", "empty-h2"]))
        eol = draw(_eol)
        word = draw(_words)
        if kind == "atx":
            blocks.append("#" * draw(st.integers(1, 6)) + " " + word + eol)
        elif kind == "setext":
            blocks.append(word + "x" + eol + draw(st.sampled_from(["---", "===", "- - -"])) + eol)
        elif kind == "fence":
            fence = draw(st.sampled_from(["```", "~~~", "````"]))
            closed = draw(st.booleans())
            blocks.append(fence + eol + "## " + word + eol + (fence + eol if closed else ""))
        elif kind == "quote":
            blocks.append("> ## " + word + eol)
        elif kind == "empty-h2":
            blocks.append("##" + eol)
        elif kind == "blank":
            blocks.append(eol)
        else:
            blocks.append(word + eol)
    text = "".join(blocks)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text


@given(markdown())
def test_split_sections_reproduces_any_markdown(text: str) -> None:
    assert "".join(split_sections(text).pieces()) == text


@given(st.text())
def test_split_sections_reproduces_any_text(text: str) -> None:
    assert "".join(split_sections(text).pieces()) == text


@given(markdown())
def test_plan_migration_is_lossless_and_deterministic(text: str) -> None:
    plan = plan_migration(text, Config())  # verifies the placements itself; raises on loss
    files = plan.file_map()
    rebuilt = "".join(files[p.path][p.offset : p.offset + p.length] for p in plan.placements)
    assert rebuilt == text
    assert plan_migration(text, Config()).files == plan.files


@given(st.text(max_size=60))
def test_classify_heading_is_total(heading: str) -> None:
    c = classify_heading(heading, Config())
    assert c.domain in {d for d, _ in Config().domains} | {"general"}
