"""`mask_output`'s fast paths equal the rules they stand for (issue 25).

The output layer runs the vendor formats as lowercase patterns on the lowercased text instead
of IGNORECASE patterns on the text, and skips them (and the caseless-run scan) when a cheap
check says nothing can match: proven equal here on text built from the rules' own pieces.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from bonsai_git.core.secretscan import (
    _CASELESS_RUN, _CASELESS_RUN_BYTES, _ALNUM_CLASS, _END, _VENDOR_PREFIX, _lower, _name_vendor_rules, _rules,
    _scan,
)
from secret_cases import POSITIVES

PIECES = st.sampled_from([
    "sk-", "SK-ANT-", "sk_live_", "RK_TEST_", "ghp_", "GHO_", "github_pat_", "glpat-", "AKIA", "asia", "Abia", "xoxb-",
    "AIza", "aiza", "HF_", "npm_", "sg.", "SG.", "eyJ", ".EYJ", "-----BEGIN RSA PRIVATE KEY-----", "-----end rsa private key-----",
    "https://hooks.slack.com/services/T0/B0/", "https://DISCORD.com/api/webhooks/1/", "12345678:", "AA", "\u212a", "\u0130",
    "A1b2C3d4E5f6G7h8", "0123456789", "abcdefghij", "ABCDEFGHIJ", "-", "_", ".", "/", ":", " ", "\n", "é", "密钥",
    *[line for _kind, line in POSITIVES if "\n" not in line][:20],
])
texts = st.lists(st.one_of(PIECES, st.text(max_size=5)), max_size=12).map("".join)


def _ignorecase_rules() -> tuple[object, ...]:
    from dataclasses import replace

    return tuple(replace(r, pattern=re.compile(r.pattern.pattern.replace(_END, ""), r.pattern.flags | re.IGNORECASE))
                 for r in _rules() if r.vendor)


@given(texts)
@example("notes-akiaabcdefgh12345678.md")
@example("GHP_" + "a1B2" * 9)
def test_lowercase_vendor_patterns_find_what_ignorecase_finds(text: str) -> None:
    fast = sorted(_scan(text, _name_vendor_rules(), aggressive=True))
    slow = sorted(_scan(text, _ignorecase_rules(), aggressive=True))  # type: ignore[arg-type]
    if text.isascii():
        assert fast == slow
    else:  # Unicode case folding may let IGNORECASE match a few more non-ASCII chars; never fewer on ASCII keys
        assert {h for h in slow if text[h[0]:h[1]].isascii()} <= set(fast)


@given(texts)
def test_the_gates_skip_only_texts_without_a_match(text: str) -> None:
    lowered = _lower(text)
    if not _VENDOR_PREFIX.search(lowered):
        assert _scan(text, _name_vendor_rules(), aggressive=True) == []
    if _CASELESS_RUN_BYTES not in lowered.encode("utf-8", "surrogatepass").translate(_ALNUM_CLASS):
        assert _CASELESS_RUN.search(text) is None
