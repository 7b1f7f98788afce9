"""A workspace's own settings file, read from disk: `.bonsai.toml` -> Config (parsed by core/config.py)."""

from __future__ import annotations

from pathlib import Path

from .core.config import CONFIG_FILE, Config, parse_config
from .core.errors import BadInput


def load_config(workspace: Path) -> Config:
    """Read `<workspace>/.bonsai.toml` if it exists, else return the defaults.

    Raises BadInput (exit 3) naming the file when it is not UTF-8 or does not parse (parse_config).
    """
    path = workspace / CONFIG_FILE
    if not path.is_file():
        return Config()
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{CONFIG_FILE}: not UTF-8 (byte {exc.start})") from None
    return parse_config(text, CONFIG_FILE)
