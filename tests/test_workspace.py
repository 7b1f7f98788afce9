"""Reading a workspace's .bonsai.toml from disk (parsing itself is tested in core/test_config.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bonsai_git.core.config import Config
from bonsai_git.core.errors import BadInput
from bonsai_git.workspace import load_config


def test_load_config_defaults_without_file(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_load_config_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / ".bonsai.toml").write_text("min_tokens = 7\n")
    assert load_config(tmp_path).min_tokens == 7


def test_load_config_names_the_file_and_byte_when_not_utf8(tmp_path: Path) -> None:
    (tmp_path / ".bonsai.toml").write_bytes(b"min_tokens = 7 # caf\xe9\n")
    with pytest.raises(BadInput, match=r"^\.bonsai\.toml: not UTF-8 \(byte 20\)$"):
        load_config(tmp_path)
