"""The secret scan's rule gate (secretscan._may_match) changes no finding (issue 15).

A leaf the prefilter rules out skips the 20 rule passes.  That is only safe if no rule could
match it, so: every text any rule matches passes the prefilter (each rule's own matches,
generated from its pattern; every ASCII spelling of every secret name), and the scan with and
without it gives the same hits on generated text, the secrets table and the corpus.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bonsai_git.secretscan import (
    _KEY_NAMES, _LOWER_NEEDLES, _PASSWORD_NAMES, _may_match, _rules, _scan, find_secrets, mask_secrets,
)
from secret_cases import NEGATIVES, POSITIVES, SCRIPTS, fake, variants
from support import CORPUS_FILES, corpus_bytes

RULES = _rules()

# Pieces that make rules match, almost match, or sit next to a match (any case, any script).
PIECES = [
    "sk-", "sk-ant-", "sk_live_", "rk_test_", "ghp_", "github_pat_", "glpat-", "AKIA", "ASIA", "akia", "xoxb-",
    "AIza", "hf_", "npm_", "SG.", "eyJ", ".eyJ", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "https://", "postgres://u:", "@host", "://:", "Bearer ", "BEARER ", "bearer\t", "12345678:", "AA",
    "password", "PASSWORD", "Passwort", "PGPASSWORD", "DB_PASS", "pw", "PWD", "api_key", "API-KEY", "apikey", "token",
    "TOKEN", "secret", "Client Secret", "access key", "private_key", "credentials", "Kennwort", "senha",
    "contraseña", "contrasena", "hasło", "haslo", "lösenord", "şifre", "sifre", "parola", "kata sandi", "mật khẩu",
    "mat_khau", "mot de passe", "密码", "パスワード", "пароль", "Пароль", "ΚΩΔΙΚΟΣ", "İ", "ß",
    ": ", "=", "：", "＝", " ", "\n", "\t", "\"", "`", "*", "_", "-", ".",
    "Tr0ub4dor&3x", "482913", "hunter2", "example", "<token>", "${DB_PASSWORD}", "op://vault/item",
    fake(8), fake(20), fake(36), fake(40), "0123456789", "ABCDEFGHIJKLMNOP1234",
    "notes on the weekly sync", "Fact 12: the team meets", "Asia trip", "capital", "passport", "tokens",
]


def _same_hits(text: str) -> None:
    for aggressive in (False, True):
        assert sorted(_scan(text, RULES, aggressive, gate=True)) == sorted(_scan(text, RULES, aggressive, gate=False))


@settings(max_examples=400)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
@example("Fact 1: the team meets on Tuesdays")
@example("deploy 12345678:AA" + "b" * 33)
def test_the_prefilter_changes_no_hit_on_generated_text(text: str) -> None:
    _same_hits(text)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=80))
def test_the_prefilter_changes_no_hit_on_any_ascii_text(text: str) -> None:
    _same_hits(text)


@pytest.mark.parametrize("index", range(len(RULES)))
@settings(max_examples=60)
@given(data=st.data())
def test_every_text_a_rule_matches_passes_the_prefilter(index: int, data: st.DataObject) -> None:
    """Texts holding a match of the rule's own pattern (generated from it), in the text it runs on."""
    rule = RULES[index]
    text = data.draw(st.from_regex(rule.pattern))
    if not text.isascii():
        return  # non-ASCII text is never prefiltered
    lowered = text.lower()
    if rule.pattern.search(lowered if rule.lowered else text):
        assert _may_match(text, lowered), (rule.kind, text)


@pytest.mark.parametrize("name", _PASSWORD_NAMES + _KEY_NAMES)
@settings(max_examples=40)
@given(data=st.data())
def test_every_ascii_spelling_of_a_secret_name_holds_a_needle(name: str, data: st.DataObject) -> None:
    spelling = data.draw(st.from_regex(re.compile(name), fullmatch=True))
    if spelling.isascii():
        assert any(needle in spelling for needle in _LOWER_NEEDLES), spelling


def test_the_secrets_table_is_found_the_same_with_the_prefilter() -> None:
    lines = [line for _kind, line in POSITIVES] + list(NEGATIVES)
    for line in lines:
        for _script, variant in variants(line):
            _same_hits(variant)
    for word in SCRIPTS.values():
        _same_hits(word)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_the_corpus_is_found_the_same_with_the_prefilter(name: str) -> None:
    text = corpus_bytes(name).decode("utf-8")
    _same_hits(text)
    for line in text.splitlines():
        _same_hits(line)


def test_a_plain_leaf_skips_the_rule_passes_and_a_key_does_not() -> None:
    """The prefilter does rule out ordinary notes (else it would only cost), and never a key."""
    leaf = "## Topic 7: notes on the weekly sync\n\nFact 7: the team meets on Tuesdays.\n- item 7.1: follow up\n"
    assert not _may_match(leaf, leaf.lower())
    key = "sk-proj-" + fake(48)
    assert _may_match(leaf + key, (leaf + key).lower())
    assert find_secrets(leaf + key) and mask_secrets(leaf + key) != leaf + key
