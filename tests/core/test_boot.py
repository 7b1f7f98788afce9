"""Boot budget: OpenClaw's per-file and total caps, USER.md's own cap, Claude Code's 200 lines / 25,000 chars."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.core.boot import (
    DEFAULT_PROFILE, PROFILES, boot_budget, claude_code_fit, profile_named, utf16_len, with_caps,
)

OC = profile_named(DEFAULT_PROFILE)


@pytest.mark.parametrize(("text", "units"), [("", 0), ("abc", 3), ("日本", 2), ("📌", 2), ("a📌b", 4)])
def test_utf16_len_counts_javascript_units(text: str, units: int) -> None:
    assert utf16_len(text) == units


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)))
def test_utf16_len_is_one_unit_a_char_and_two_past_u_ffff(text: str) -> None:
    assert utf16_len(text) == len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)  # lone surrogates too


def test_default_profile_is_openclaw_2026_9_measured_caps() -> None:
    assert (OC.name, OC.file_cap, OC.total_cap, OC.warn_ratio, OC.head_ratio) == ("openclaw-2026.9", 20_000, 60_000,
                                                                                  0.85, 0.75)
    assert OC.cap_for("USER.md") == 4_000
    assert OC.files[-1] == "MEMORY.md" and "TOOLS.md" not in OC.files
    assert {"TOOLS.md", "HEARTBEAT.md"} <= set(profile_named("openclaw-2026.2").files)


def test_profile_named_unknown_lists_known_names() -> None:
    with pytest.raises(KeyError, match="openclaw-2026.9"):
        profile_named("openclaw-1999")


@pytest.mark.parametrize(
    ("chars", "injected", "lost", "near"),
    [(1_000, 1_000, 0, False), (16_999, 16_999, 0, False), (17_000, 17_000, 0, True), (20_000, 20_000, 0, True),
     (25_000, 20_000, 5_000, True)],
)
def test_boot_budget_per_file_cap(chars: int, injected: int, lost: int, near: bool) -> None:
    budget = boot_budget({"MEMORY.md": "x" * chars}, OC)
    (f,) = budget.files
    assert (f.injected, f.lost, f.truncated, f.near_limit) == (injected, lost, lost > 0, near)
    assert budget.headroom == 60_000 - injected


def test_boot_budget_total_cap_cuts_the_last_file() -> None:
    files = {name: "y" * 19_000 for name in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "MEMORY.md")}
    budget = boot_budget(files, OC)
    assert [f.name for f in budget.files] == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "MEMORY.md"]
    trunk = budget.files[-1]
    assert (trunk.injected, trunk.lost) == (60_000 - 3 * 19_000, 19_000 - 3_000)
    assert budget.headroom == 0 and budget.near_total_limit


def test_boot_budget_user_md_has_its_own_cap_and_blank_or_unknown_files_are_skipped() -> None:
    budget = boot_budget({"USER.md": "u" * 5_000, "SOUL.md": " \n", "TOOLS.md": "t" * 10, "MEMORY.md": "m"}, OC)
    assert [(f.name, f.cap, f.lost) for f in budget.files] == [("USER.md", 4_000, 1_000), ("MEMORY.md", 20_000, 0)]


def test_boot_budget_without_total_cap_has_no_headroom() -> None:
    budget = boot_budget({"MEMORY.md": "x" * 30_000}, profile_named("openclaw-2026.1"))
    assert budget.headroom is None and not budget.near_total_limit and budget.files[0].lost == 10_000


def test_with_caps_overrides_and_keeps_smaller_file_caps() -> None:
    p = with_caps(OC, file_cap=3_000, total_cap=10_000)
    assert (p.file_cap, p.total_cap, p.cap_for("USER.md"), p.cap_for("AGENTS.md")) == (3_000, 10_000, 3_000, 3_000)
    assert with_caps(OC) == OC


@pytest.mark.parametrize(
    ("text", "lost_lines", "lost_chars"),
    [("a\n" * 200, 0, 0), ("a\n" * 201, 1, 2), ("a" * 25_000, 0, 0), ("a" * 25_001, 0, 1),
     (("b" * 199 + "\n") * 130, 5, 1_000), ("", 0, 0),
     ("é" * 25_000, 0, 0),  # 50,000 bytes, 25,000 chars: the cap counts chars (measured)
     ("<!-- c -->\n" * 50 + "a\n" * 200, 0, 0),  # whole-line comments are stripped before counting
     ("<!-- open\nstill comment\n-->\n" + "a\n" * 201, 1, 2),  # a multi-line comment too
     ("```\n<!-- kept: in a fence -->\n```\n" + "a\n" * 198, 1, 2),
     ("<!-- c --> text\n" + "a\n" * 200, 1, 2),  # not a whole-line comment: counted
     ("x" * 24_990 + "\n" + "y" * 20 + "\n", 1, 21)],  # the char cut drops the whole line it falls in (measured)
)
def test_claude_code_fit_strips_comment_lines_then_200_lines_then_25000_chars(
        text: str, lost_lines: int, lost_chars: int) -> None:
    fit = claude_code_fit(text)
    assert (fit.lost_lines, fit.lost_chars, fit.fits) == (lost_lines, lost_chars, lost_chars == 0)


def test_claude_code_fit_counts_utf16_units_like_javascript() -> None:
    fit = claude_code_fit("😀" * 12_501)  # 25,002 UTF-16 units: the last emoji does not fit
    assert (fit.chars, fit.lost_chars, fit.lost_bytes) == (25_002, 2, 4)


def test_claude_profile_whole_when_imported_else_cut_as_auto_memory() -> None:
    claude = profile_named("claude")
    text = "a\n" * 300
    imported = boot_budget({"MEMORY.md": text}, claude, claude_whole=True)
    auto = boot_budget({"MEMORY.md": text}, claude)
    assert [(f.name, f.chars, f.lost) for f in imported.files] == [("MEMORY.md", 600, 0)]
    assert [(f.name, f.injected, f.lost) for f in auto.files] == [("MEMORY.md", 400, 200)]


def test_profiles_table_is_newest_first_and_names_are_unique() -> None:
    names = [p.name for p in PROFILES]
    assert names == sorted(names, reverse=True) and len(set(names)) == len(names)


CODEX = profile_named("codex")


def test_codex_profile_is_32_kib_in_bytes_across_the_chain() -> None:
    assert (CODEX.total_cap, CODEX.unit, CODEX.chain) == (32_768, "bytes", True)
    assert CODEX.files == ("AGENTS.override.md", "AGENTS.md")  # MEMORY.md only when a fallback name (measured)


def test_codex_chain_one_file_per_folder_root_first_cut_at_the_byte_budget() -> None:
    from bonsai_git.core.boot import codex_chain

    paths = {
        "AGENTS.md": "a" * 30_000,
        "agent/AGENTS.override.md": "é" * 2_500,          # 5,000 bytes: wins over agent/AGENTS.md
        "agent/AGENTS.md": "never read\n",
        "agent/MEMORY.md": "never read either\n",
        "agent/deep/AGENTS.md": "  \n",                     # blank: skipped, the fallback is read
        "agent/deep/MEMORY.md": "## Memory\nlost whole\n",
    }
    files = codex_chain(paths, replace(CODEX, files=(*CODEX.files, "MEMORY.md")))  # fallback names MEMORY.md
    assert [(f.name, f.chars, f.injected, f.lost) for f in files] == [
        ("AGENTS.md", 30_000, 30_000, 0),
        ("agent/AGENTS.override.md", 5_000, 2_768, 2_232),  # the cut point: byte 2,768 of this file
        ("agent/deep/MEMORY.md", 21, 0, 21),
    ]
    assert boot_budget({"MEMORY.md": "x\n"}, replace(CODEX, files=(*CODEX.files, "MEMORY.md")), chain=paths).files == files
    assert [f.name for f in codex_chain(paths, CODEX)] == ["AGENTS.md", "agent/AGENTS.override.md"]  # no fallback


def test_codex_chain_fits_without_a_cut() -> None:
    from bonsai_git.core.boot import codex_chain

    files = codex_chain({"AGENTS.md": "rules\n", "MEMORY.md": "ignored: AGENTS.md is this folder's file\n"}, CODEX)
    assert [(f.name, f.lost) for f in files] == [("AGENTS.md", 0)]


@pytest.mark.parametrize("profile", [p.name for p in PROFILES])
def test_boot_cut_warning_never_estimates_the_tokens_it_does_not_report(profile: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """status computes flatten_cut over the whole flattened tree (megabytes); the line names chars only,
    so no token estimate runs over that text (with emoji or CJK in it one took 0.6 s of a status on
    16 MB, 1.2 s under --profile claude)."""
    from bonsai_git.core import boot
    from bonsai_git.core.boot import boot_cut_warning

    estimated: list[int] = []
    real = boot.estimate_tokens
    monkeypatch.setattr(boot, "estimate_tokens", lambda text, *a: estimated.append(len(text)) or real(text, *a))
    flat = "- kiln ✅ 🔥: cone 6 for nine hours\n" * 20_000
    warning = boot_cut_warning(flat, profile_named(profile))
    assert estimated == []
    assert warning is None if profile == "codex" else f"would be {utf16_len(flat):,} chars" in str(warning)
