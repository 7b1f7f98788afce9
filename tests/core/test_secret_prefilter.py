"""`could_hold_secret`, the cheap pre-check before masking, never rejects a text the rules would mask.

The pre-check stands beside the rules (summaries and leaf names skip the full scan when it says
no), so it is proven equal where it matters: whenever it says False, `find_secrets(aggressive=True)`
finds nothing, on generated text built from the rules' own fragments, on every secret case of the
secrets table with each script touching it, and on every line of the corpus.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.core.secretscan import (
    _KEY_NAMES,
    _PASSWORD_NAMES,
    _name_literal,
    _name_literal_patterns,
    _name_literals,
    could_hold_secret,
    find_secrets,
    mask_secrets,
    remove_secrets,
)

from secret_cases import NEGATIVES, POSITIVES, variants
from support import CORPUS_FILES, corpus_bytes

# Pieces of every rule (vendor prefixes, names in several scripts and cases, signs, digits, the
# Kelvin sign and dotted capital I that lowercase oddly) glued in any order, so matches and near
# misses both come up.
FRAGMENTS = st.sampled_from([
    "sk-", "sk-ant-", "sk_live_", "rk_test_", "ghp_", "github_pat_", "glpat-", "AKIA", "ASIA", "xoxb-", "AIza", "hf_",
    "npm_", "SG.", "eyJ", ".eyJ", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "https://hooks.slack.com/services/T0/B0/", "https://discord.com/api/webhooks/1/", "postgres://u:", "@host",
    "Bearer ", "bearer\t", "password", "PASSWORD", "PGPASSWORD", "DB_PASS", "pass", "Pwd", "pw", "token", "TOKEN",
    "api_key", "API-KEY", "secret", "client secret", "Credentials", "haslo", "hasło", "l\u00f6senord", "mot de passe",
    "密码", "パスワード", "пароль", "Пароль", "كلمة المرور", "\u212aennwort", "\u0130", "to\u212aen",
    ":", "=", "：", "＝", " ", "\t", "\n", "_2", ".prod", "*", "`", "\"", "'",
    "12345678", "1234567890", "0", "A", "a", "Z9", "Ab3", "xY7kQ2", "AAbbCC112233", "lorem ipsum", "fact 3", "+/", "-",
])
texts = st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=14).map("".join)


@given(texts)
@example("xoxb-1234567890")  # the shortest vendor key: 15 chars
@example("token: Ab3xY7kQ2")
@example("to\u212aen: Ab3xY7kQ2")  # the Kelvin sign lowercases to k
@example("\u0130 password: 12345678")  # dotted capital I grows when lowercased
@example("1234567890:AAbbCC112233AAbbCC112233AAbbCC11223")
@settings(max_examples=1500)
def test_a_text_the_precheck_rejects_has_no_finding(text: str) -> None:
    if not could_hold_secret(text):
        assert find_secrets(text, aggressive=True) == ()
        assert mask_secrets(text) == text
    # masking and removal with the pre-check give what the full scan gives
    hits = find_secrets(text, aggressive=True)
    assert (mask_secrets(text) == text) == (hits == ())
    assert remove_secrets(text) == " ".join(_cut(text).split())


def _cut(text: str) -> str:
    """`text` without its aggressive findings (remove_secrets before the pre-check)."""
    out, pos = [], 0
    for f in find_secrets(text, aggressive=True):
        out.append(text[pos : f.start])
        pos = f.end
    return "".join(out) + text[pos:]


@pytest.mark.parametrize("alternative", _PASSWORD_NAMES + _KEY_NAMES)
def test_each_secret_name_holds_its_literal(alternative: str) -> None:
    literal = _name_literal(alternative)
    assert literal, alternative

    @given(st.from_regex(re.compile(alternative), fullmatch=True))
    @settings(max_examples=60)
    def holds(name: str) -> None:
        assert literal in name

    holds()


def test_every_secret_case_passes_the_precheck() -> None:
    for _kind, line in POSITIVES:
        for _script, text in variants(line):
            if find_secrets(text, aggressive=True):
                assert could_hold_secret(text), text
    for line in NEGATIVES:
        if find_secrets(line, aggressive=True):
            assert could_hold_secret(line), line


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_no_corpus_line_with_a_finding_is_rejected(name: str) -> None:
    for line in corpus_bytes(name).decode("utf-8").splitlines():
        if find_secrets(line, aggressive=True):
            assert could_hold_secret(line), line


def test_plain_words_skip_the_scan() -> None:
    assert not could_hold_secret("fact 36: lorem ipsum dolor sit amet")
    assert not could_hold_secret("Business notes 12")
    assert could_hold_secret("password: hunter22")


_LITERAL_TEXT = st.lists(st.sampled_from([*_name_literals()[1], "a", " ", ":", "é", "ö", "x_", "PASS"]),
                         max_size=8).map("".join) | st.text(max_size=30)


@given(_LITERAL_TEXT)
def test_the_name_alternations_find_a_literal_exactly_when_a_substring_test_does(text: str) -> None:
    ascii_names, names = _name_literals()
    ascii_re, all_re = _name_literal_patterns()
    assert (ascii_re.search(text) is not None) == any(name in text for name in ascii_names)
    assert (all_re.search(text) is not None) == any(name in text for name in names)
