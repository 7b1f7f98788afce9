"""A workspace's own settings file, read from disk: `.bonsai.toml` -> Config (parsed by core/config.py)."""

from __future__ import annotations

from pathlib import Path

from .core.config import CONFIG_FILE, Config, parse_config
from .core.errors import BadInput


def load_config(workspace: Path) -> Config:
    """Read `<workspace>/.bonsai.toml` if it exists, else return the defaults.

    Raises BadInput (exit 3) naming the file when it is not UTF-8 or does not parse (parse_config),
    when it is not a regular file (a FIFO, a device, a folder) or larger than tree.SETTINGS_LIMIT.
    """
    from .tree import SETTINGS_LIMIT, read_bounded

    path = workspace / CONFIG_FILE
    try:  # a FIFO, a device (a symlink to /dev/zero) or a huge file is refused, never read (issue 21 §5)
        text = read_bounded(path, CONFIG_FILE, SETTINGS_LIMIT).decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return Config()
    except IsADirectoryError:
        raise BadInput(f"{CONFIG_FILE}: is a folder, not a settings file; move it away") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{CONFIG_FILE}: not UTF-8 (byte {exc.start})") from None
    return parse_config(text, CONFIG_FILE)
