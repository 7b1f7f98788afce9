"""Read the agent runtimes' own settings (never write them): what status and connect need to know.

- Codex: `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`): `project_doc_max_bytes`
  (the chain budget, 32,768 bytes by default) and `project_doc_fallback_filenames`.
- Claude Code: `autoMemoryDirectory` in `$CLAUDE_CONFIG_DIR/settings.json` (default
  `~/.claude/settings.json`), `.claude/settings.json` and `.claude/settings.local.json` of the
  workspace; an `@MEMORY.md` import in the workspace's CLAUDE.md or CLAUDE.local.md.
- OpenClaw: the workspace folders its config names (`agents.defaults.workspace`, `agents.list[].
  workspace`) in `$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else
  `~/.openclaw/openclaw.json`.
A file that is missing or cannot be parsed counts as not set (the runtime's default applies).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .core.boot import CODEX_MAX_BYTES, RuntimeFacts


def project_root(folder: Path) -> Path | None:
    """The nearest folder from `folder` up that holds `.git` (Codex's project root), or None."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def codex_settings() -> tuple[int, tuple[str, ...]]:
    """(project_doc_max_bytes, project_doc_fallback_filenames) of Codex's user config, defaults when unset."""
    import tomllib

    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    try:
        data = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return CODEX_MAX_BYTES, ()
    size = data.get("project_doc_max_bytes")
    names = data.get("project_doc_fallback_filenames")
    return (size if isinstance(size, int) and size > 0 else CODEX_MAX_BYTES,
            tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ())


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def claude_auto_memory(workspace: Path) -> str | None:
    """The settings file whose `autoMemoryDirectory` names `workspace` (local, project, then user
    settings: Claude Code's precedence), shown as given; None when none does."""
    user = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude") / "settings.json"
    here = workspace.resolve()
    for path, shown in ((workspace / ".claude" / "settings.local.json", ".claude/settings.local.json"),
                        (workspace / ".claude" / "settings.json", ".claude/settings.json"), (user, str(user))):
        data = _json(path)
        value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
        if isinstance(value, str) and value:
            return shown if Path(value).expanduser().resolve() == here else None
    return None


def claude_import(workspace: Path) -> str | None:
    """"CLAUDE.md:LINE" of the first `@MEMORY.md` import in the workspace's CLAUDE.md or CLAUDE.local.md."""
    from .core.connect import imports_memory

    for name in ("CLAUDE.md", "CLAUDE.local.md"):
        try:
            text = (workspace / name).read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        line = imports_memory(text)
        if line is not None:
            return f"{name}:{line}"
    return None


def openclaw_workspaces() -> tuple[str, bool, list[Path]]:
    """(the config file, whether it exists and parses, the workspace folders OpenClaw uses, resolved).
    Without a config, or when it sets none, that is OpenClaw's default, `<state dir>/workspace`."""
    state = Path(os.environ.get("OPENCLAW_STATE_DIR") or Path.home() / ".openclaw")
    path = Path(os.environ.get("OPENCLAW_CONFIG_PATH") or state / "openclaw.json")
    data = _json(path)
    found: list[Any] = []
    if isinstance(data, dict):
        agents = data.get("agents")
        if isinstance(agents, dict):
            defaults = agents.get("defaults")
            if isinstance(defaults, dict):
                found.append(defaults.get("workspace"))
            entries = agents.get("list")
            if isinstance(entries, list):
                found += [e.get("workspace") for e in entries if isinstance(e, dict)]
    folders = [Path(f).expanduser().resolve() for f in found if isinstance(f, str) and f]
    return str(path), isinstance(data, dict), folders or [(state / "workspace").resolve()]


def runtime_facts(workspace: Path) -> RuntimeFacts:
    """Everything `boot.loaded_at_boot` needs about `workspace`, read from the runtimes' settings."""
    here = workspace.resolve()
    root = project_root(here)
    prefix = "" if root is None or root == here else here.relative_to(root).as_posix() + "/"
    max_bytes, fallbacks = codex_settings()
    config, exists, folders = openclaw_workspaces()
    return RuntimeFacts(prefix, max_bytes, fallbacks, claude_import(workspace), claude_auto_memory(workspace),
                        config if exists else "", here in folders if exists else None)
