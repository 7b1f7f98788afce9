from __future__ import annotations

from pathlib import Path

import pytest

from bonsai_git.config import Config, load_config, parse_config
from bonsai_git.errors import BadInput


def test_load_config_defaults_without_file(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_parse_config_reads_every_key() -> None:
    cfg = parse_config(
        'min_tokens = 10\npreamble_tokens = 0\nabsorb = false\npinned = ["X"]\n'
        '[tokens]\nestimator = "chars4"\n[commit]\nsubject = "chore: {domains}"\n'
    )
    assert (cfg.min_tokens, cfg.preamble_tokens, cfg.absorb, cfg.estimator, cfg.subject) == (
        10, 0, False, "chars4", "chore: {domains}")
    assert "X" in cfg.pinned


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("min_tokens = ", "not valid TOML"),
        ("colour = 1", "unknown key 'colour'"),
        ("min_tokens = -1", "min_tokens must be a whole number"),
        ('[tokens]\nestimator = "words"', "tokens.estimator must be one of"),
        ('[domains]\n"Bad Name" = ["x"]', "domain name 'Bad Name'"),
        ("[domains]\ngeneral = ['x']", "domain name 'general'"),
        ("pinned = [1]", "pinned must be a list"),
        ("absorb = 'yes'", "absorb must be true or false"),
    ],
)
def test_parse_config_refuses_bad_values(text: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as info:
        parse_config(text)
    assert info.value.exit_code == 3
    assert info.value.message.startswith(".bonsai.toml: ")
