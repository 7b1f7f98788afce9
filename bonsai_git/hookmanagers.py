"""Hook managers: husky, lefthook, simple-git-hooks and pre-commit own the git hooks of a repository.

Each regenerates the hooks folder it installs into (husky 9 `.husky/_` on every `npm install`,
lefthook `.git/hooks` on `lefthook install` and when its config changes, simple-git-hooks
`.git/hooks/<hook>` on `npx simple-git-hooks`, the pre-commit framework on `pre-commit
install`), so a hook written there silently vanishes (issue 22).  `install-hook` therefore
asks `detect_manager` first and, when one owns the hooks, either writes where that manager
keeps user hooks or refuses with the exact lines to add (HookManagerFound, exit 3), and never
writes into a folder the manager regenerates:

| manager | found by | install-hook |
|---|---|---|
| husky | core.hooksPath is `.husky/_` (9) or `.husky` (5-8) | appends `bonsai-git-hook` to `.husky/pre-commit` (created if missing); refuses when its last command is `exit`/`exec` |
| lefthook | `lefthook.yml` (`.lefthook.yml`, `.yaml`, `.config/lefthook.yml`, `.toml`, `.json`, `.jsonc`) or its hook script | YAML: appends a `pre-commit` command `bonsai-reindex` when the file has no `pre-commit:` yet; else (and for TOML/JSON) refuses with the lines to add |
| simple-git-hooks | its `package.json` key or config file, or its hook script | refuses with the `package.json` line to set, then `npx simple-git-hooks` |
| pre-commit | `.pre-commit-config.yaml` or its hook script | refuses with the `.pre-commit-config.yaml` snippet (githook.PRE_COMMIT_SNIPPET) |

`uninstall` reverses what install wrote (the husky line, the lefthook block as written) and
refuses otherwise.  Files are replaced through a temporary file; nothing is committed: the
message names the file to commit.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .core.errors import HookManagerFound, Refused
from .gitrun import run

HOOK_COMMAND = "bonsai-git-hook"  # what the plain hook script runs (bonsai_git/data/pre-commit)
LEFTHOOK_FILES = ("lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", ".config/lefthook.yml",
                  ".config/lefthook.yaml")
# lefthook also reads TOML and JSON(C) configs (lefthook.dev/configuration, "Config file name"), and
# with more than one config file "only one will be used, and you'll never know which": beside one of
# these, install-hook refuses with the lines to add instead of writing a lefthook.yml
LEFTHOOK_OTHER_FILES = tuple(f"{d}{dot}lefthook.{ext}" for ext in ("toml", "json", "jsonc")
                             for d, dot in (("", ""), ("", "."), (".config/", "")))
_LEFTHOOK_SNIPPETS = {"toml": '[pre-commit.commands.bonsai-reindex]\nrun = "bonsai-git-hook"\n',
                      "json": '"pre-commit": {"commands": {"bonsai-reindex": {"run": "bonsai-git-hook"}}}\n'}
SIMPLE_FILES = (".simple-git-hooks.json", "simple-git-hooks.json", ".simple-git-hooks.cjs", ".simple-git-hooks.js",
                ".simple-git-hooks.mjs", "simple-git-hooks.cjs", "simple-git-hooks.js", "simple-git-hooks.mjs")
LEFTHOOK_COMMAND = ("  commands:\n"
                    "    bonsai-reindex:\n"
                    f"      run: {HOOK_COMMAND}\n")
LEFTHOOK_BLOCK = "pre-commit:\n" + LEFTHOOK_COMMAND
_HUSKY8_HEADER = '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\n'
_TOP_KEY = re.compile(r"""^["']?pre-commit["']?[ \t]*:""", re.M)


@dataclass(frozen=True, slots=True)
class Manager:
    """A hook manager found in the repository: its name and the file that holds its user hooks
    (relative to the top; for husky the hook script, else the config file)."""

    name: str
    config: str


@dataclass(frozen=True, slots=True)
class ManagerChange:
    """What install/uninstall did with a manager's file: `action`, the file (absolute), the next step ("" none)."""

    action: str
    path: Path
    next_step: str = ""


def detect_manager(top: Path, hooks_folder: Path, hook_text: bytes | None) -> Manager | None:
    """The manager that owns the git hooks of the repository at `top`, or None.

    `hooks_folder`: where git runs hooks from (githook.hooks_dir); `hook_text`: the bytes of the
    pre-commit hook there (None: none).  Order: husky, lefthook, simple-git-hooks, pre-commit.
    """
    husky = _husky_dir(top, hooks_folder)
    if husky is not None:
        return Manager("husky", (husky / "pre-commit").relative_to(top).as_posix())
    text = hook_text or b""
    lefthook = next((f for f in LEFTHOOK_FILES + LEFTHOOK_OTHER_FILES if (top / f).is_file()), None)
    if lefthook is not None or b"call_lefthook" in text or b"LEFTHOOK" in text:
        return Manager("lefthook", lefthook or LEFTHOOK_FILES[0])
    simple = _simple_config(top)
    if simple is not None or b"SKIP_SIMPLE_GIT_HOOKS" in text:
        return Manager("simple-git-hooks", simple or "package.json")
    if (top / ".pre-commit-config.yaml").is_file():
        return Manager("pre-commit", ".pre-commit-config.yaml")
    return None


def install_for(manager: Manager, top: Path) -> ManagerChange:
    """Install bonsai-git's hook the way `manager` keeps user hooks; raise HookManagerFound (exit 3)
    with the lines to add where it cannot be written safely (module docstring's table)."""
    path = top / manager.config
    if manager.name == "husky":
        return _install_husky(path, top)
    if manager.name == "lefthook":
        return _install_lefthook(path)
    if manager.name == "simple-git-hooks":
        return _refuse_simple(path, top)
    from .githook import PRE_COMMIT_SNIPPET

    if _mentions(path, "bonsai-reindex"):
        return ManagerChange("already installed (the pre-commit framework runs bonsai-reindex)", path,
                             "run `pre-commit install` if its hook is not installed yet")
    raise HookManagerFound(f"{manager.config}: this repository's hooks are run by the pre-commit framework; add "
                           f"the bonsai-reindex hook to {manager.config} (snippet above), then run: pre-commit install",
                           PRE_COMMIT_SNIPPET)


def uninstall_for(manager: Manager, top: Path) -> ManagerChange:
    """Remove what install_for wrote for `manager`; Refused (exit 3) naming what to remove by hand otherwise."""
    path = top / manager.config
    if manager.name == "husky":
        text = _read_text(path)
        if text is None or not _has_line(text, HOOK_COMMAND):
            return ManagerChange("not installed; nothing to do", path)
        rest = "".join(line for line in text.splitlines(keepends=True) if line.strip() != HOOK_COMMAND)
        if not rest.strip() or rest == _HUSKY8_HEADER:
            path.unlink()
            return ManagerChange("uninstalled (removed the file it had created)", path, f"commit the removal of {manager.config}")
        _replace(path, rest)
        return ManagerChange(f"uninstalled (removed the `{HOOK_COMMAND}` line)", path, f"commit {manager.config}")
    if manager.name == "lefthook":
        text = _read_text(path) or ""
        for block in ("\n" + LEFTHOOK_BLOCK, LEFTHOOK_BLOCK):
            if text.endswith(block):
                _replace(path, text[: -len(block)])
                return ManagerChange("uninstalled (removed the pre-commit block it had added)", path,
                                     f"commit {manager.config}")
        if HOOK_COMMAND not in text:
            return ManagerChange("not installed; nothing to do", path)
    raise Refused(f"{manager.config}: remove the bonsai-reindex / {HOOK_COMMAND} entry from it by hand "
                  f"({manager.name} owns this repository's hooks)")


def _husky_dir(top: Path, hooks_folder: Path) -> Path | None:
    """husky's user-hook folder (`<top>/.husky`) when git's hooks folder is husky's: `.husky/_` (9) or `.husky` (5-8)."""
    real = Path(os.path.realpath(hooks_folder))
    folder = real.parent if real.name == "_" else real
    root = Path(os.path.realpath(top))
    if folder.name != ".husky" or root not in folder.parents:
        return None
    return top / folder.relative_to(root)


def _install_husky(path: Path, top: Path) -> ManagerChange:
    shown = path.relative_to(top).as_posix()
    text = _read_text(path)
    if text is not None and _has_line(text, HOOK_COMMAND):
        return ManagerChange(f"already installed ({shown} runs {HOOK_COMMAND})", path)
    last = _last_command(text or "")
    if last.startswith(("exit", "exec ")) and last.split()[0] in ("exit", "exec"):
        raise HookManagerFound(f"{shown}: its last command `{last}` ends the hook, so a line appended after it would "
                               f"never run; add the line above before it, then commit {shown}", HOOK_COMMAND + "\n")
    if text is None:
        # husky 9 runs `.husky/pre-commit` with `sh -e` (no shebang needed); husky 5-8 runs it directly
        text = "" if (path.parent / "_" / "h").is_file() or not (path.parent / "_" / "husky.sh").is_file() else _HUSKY8_HEADER
        created = True
    else:
        created = False
    sep = "" if not text or text.endswith("\n") else "\n"
    _replace(path, text + sep + HOOK_COMMAND + "\n", executable=True)
    verb = "installed (created" if created else "installed (appended to"
    return ManagerChange(f"{verb} {shown}, which husky runs; .husky/_ is left to husky)", path,
                         f"commit {shown} (git add {shown})")


def _last_command(text: str) -> str:
    """The last line of a shell script that is neither blank nor a comment, stripped ("" none)."""
    lines = [line.strip() for line in text.splitlines()]
    return next((line for line in reversed(lines) if line and not line.startswith("#")), "")


def _install_lefthook(path: Path) -> ManagerChange:
    name = path.name if path.parent.name != ".config" else f".config/{path.name}"
    text = _read_text(path)
    if text is not None and HOOK_COMMAND in text:
        return ManagerChange(f"already installed ({name} runs {HOOK_COMMAND})", path)
    ext = path.suffix.lstrip(".")
    if ext in ("toml", "json", "jsonc"):
        raise HookManagerFound(
            f"{name}: lefthook reads its config from {name} and nothing is written there or beside it (a second "
            f"config file could replace it); add the lines above to it, then run: lefthook install",
            f"# {name}\n" + _LEFTHOOK_SNIPPETS["toml" if ext == "toml" else "json"])
    if text is not None and (_TOP_KEY.search(text) or text.lstrip().startswith("{")):
        raise HookManagerFound(
            f"{name}: already has a pre-commit section (lefthook regenerates .git/hooks, so nothing is written "
            f"there); add the lines above under its `commands:`, then run: lefthook install",
            f"# {name}, under `pre-commit:` -> `commands:`\n" + LEFTHOOK_COMMAND.split("\n", 1)[1])
    body = text or ""
    sep = "" if not body else "\n" if body.endswith("\n") else "\n\n"
    _replace(path, body + sep + LEFTHOOK_BLOCK)
    return ManagerChange(f"installed (a pre-commit command bonsai-reindex in {name}; .git/hooks is left to lefthook)",
                         path, f"run `lefthook install`, then commit {name}")


def _refuse_simple(path: Path, top: Path) -> ManagerChange:
    hook = run(top, "rev-parse", "--git-path", "hooks/pre-commit").stdout.decode().strip()
    written = _read_text(top / hook) or ""
    if "SKIP_SIMPLE_GIT_HOOKS" in written and HOOK_COMMAND in written:  # its own script, running ours
        return ManagerChange(f"already installed (simple-git-hooks runs {HOOK_COMMAND})", path)
    current = _simple_pre_commit(path)
    wanted = HOOK_COMMAND if not current else f"{current} && {HOOK_COMMAND}"
    where = path.name
    if current is not None and HOOK_COMMAND in current:
        raise HookManagerFound(f"{where}: already names {HOOK_COMMAND}, but the git hook was not regenerated; "
                               f"run: npx simple-git-hooks", "")
    snippet = (f'// {where}\n"simple-git-hooks": {{\n  "pre-commit": {json.dumps(wanted)}\n}}\n' if where == "package.json"
               else f'// {where}\n"pre-commit": {json.dumps(wanted)}\n')
    raise HookManagerFound(f"{where}: simple-git-hooks writes .git/hooks/pre-commit from its config and would "
                           f"overwrite a hook installed there; set the line above in {where}, then run: "
                           f"npx simple-git-hooks", snippet)


def _simple_config(top: Path) -> str | None:
    found = next((f for f in SIMPLE_FILES if (top / f).is_file()), None)
    if found is not None:
        return found
    data = _package_json(top / "package.json")
    return "package.json" if isinstance(data, dict) and "simple-git-hooks" in data else None


def _simple_pre_commit(path: Path) -> str | None:
    """The pre-commit command in simple-git-hooks' JSON config (package.json key or JSON file), or None."""
    data = _package_json(path)
    if path.name == "package.json" and isinstance(data, dict):
        data = data.get("simple-git-hooks")
    value = data.get("pre-commit") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _package_json(path: Path) -> object:
    text = _read_text(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _mentions(path: Path, word: str) -> bool:
    return word in (_read_text(path) or "")


def _has_line(text: str, line: str) -> bool:
    return any(candidate.strip() == line for candidate in text.splitlines())


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _replace(path: Path, text: str, *, executable: bool = False) -> None:
    """Write `text` to `path` through a temporary file; keep an existing file's mode (0o755 for a new hook)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else (0o755 if executable else 0o644)
    tmp = path.with_name(f".{path.name}.bonsai-tmp")
    tmp.write_bytes(text.encode("utf-8"))
    tmp.chmod(mode)
    os.replace(tmp, path)
