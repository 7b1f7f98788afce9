"""`bonsai-git connect RUNTIME [--undo] [--dry-run]`: make a runtime load the trunk at boot.

Measured with the real runtimes (docs/agents.md, ../shared/tools/clients/README.md):
- openclaw: injects the workspace's MEMORY.md itself; nothing to write.  The command checks that
  OpenClaw's workspace setting (`agents.defaults.workspace`, or an `agents.list` entry, in
  `$OPENCLAW_CONFIG_PATH`, else `$OPENCLAW_STATE_DIR/openclaw.json`, else `~/.openclaw/openclaw.json`)
  names this folder; exit 1 when it names another.
- codex: writes the projection (core/connect.py) at the top of the workspace folder's AGENTS.md
  (AGENTS.override.md when that is the file Codex picks there).  Mode `auto` (default) writes the
  trunk block when it fits Codex's chain budget (32,768 bytes, or `project_doc_max_bytes` of
  `$CODEX_HOME/config.toml`), else the one-line pointer to MEMORY.md, with a warning; refused
  (exit 3) when even that would be cut.  Warns when the block makes Codex cut more of the user's
  own AGENTS.md text.
- claude: adds the `@MEMORY.md` import block at the top of CLAUDE.md (created if missing; nothing
  when CLAUDE.md imports MEMORY.md already).  `--auto-memory` prints the user-level
  `autoMemoryDirectory` setting instead; with `--write-settings` it writes it into
  `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude/settings.json`), the only write outside
  the repository, and only when asked.

Files are written, not committed: they are the user's own instruction files, so the change is
left for review (`git diff`) and commit.  `--undo` removes exactly what connect added (a file it
created is deleted).  Writes hold the workspace lock and go through tree.CheckedWriter (an
agent's write meanwhile is kept: ConcurrentWrite, exit 1).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .common import Echo

RUNTIMES = ("openclaw", "codex", "claude")


def run(workspace: Path, runtime: str, *, undo: bool, dry_run: bool, mode: str, auto_memory: bool,
        write_settings: bool, echo: Echo) -> int:
    """Connect (or with `undo` disconnect) `runtime` for `workspace`; print what was (or, under
    `dry_run`, would be) written.  Returns 0, or 1 when OpenClaw's workspace setting names another
    folder.  Raises BadInput / Refused (exit 3) with nothing written."""
    if runtime == "openclaw":
        return _openclaw(workspace, echo)
    if runtime == "codex":
        return _codex(workspace, undo=undo, dry_run=dry_run, mode=mode, echo=echo)
    if auto_memory:
        return _auto_memory(workspace, undo=undo, write=write_settings, dry_run=dry_run, echo=echo)
    return _claude(workspace, undo=undo, dry_run=dry_run, echo=echo)


# ----------------------------------------------------------------------------- codex

def _codex(workspace: Path, *, undo: bool, dry_run: bool, mode: str, echo: Echo) -> int:
    from ..core.connect import codex_fit, insert_block, remove_block, render_codex_block, replace_block
    from ..core.errors import BadInput, Refused
    from ..projection import connected_codex_file
    from ..reindex import read_trunk
    from ..runtimes import codex_settings

    found = connected_codex_file(workspace)
    if undo:
        if found is None:
            echo("Codex: nothing to undo (no bonsai-git block in AGENTS.md or AGENTS.override.md)")
            return 0
        name, data, text, span = found
        from ..core.connect import foreign_line

        line = foreign_line(text, span)
        if line is not None:  # undo removes what connect wrote, never text typed into it
            raise BadInput(f"{name}:{line}: text inside bonsai-git's Codex block that bonsai-git did not write; "
                           "move it out of the block, then undo again")
        return _apply(workspace, name, data, remove_block(text, span), dry_run, echo,
                      f"removed bonsai-git's Codex block from {name}")
    _trunk_bytes, parts = read_trunk(workspace)  # refused unless migrated: the block is the trunk's
    if found is not None:
        name, data, text, span = found
        from ..core.connect import foreign_line

        line = foreign_line(text, span)
        if line is not None:
            raise BadInput(f"{name}:{line}: text inside bonsai-git's Codex block would be overwritten; move it out "
                           "of the block and retry")
        current: bytes | None = data
        rest, created = text[:span.start] + text[span.end:], span.created
    else:
        name = _codex_target(workspace)
        current = _read_own_file(workspace, name)
        rest, created = ("" if current is None else _utf8(current, name)), current is None
    from ..core.connect import newline_of

    newline = newline_of(rest) if rest else "\n"
    max_bytes, fallbacks = codex_settings()
    above = _chain_above(workspace, fallbacks)
    chosen = mode
    if mode in ("auto", "block"):
        block = render_codex_block(parts.block, "block", newline, created)
        fit = codex_fit(above, rest, block, max_bytes)
        if fit.fits:
            chosen = "block"
        elif mode == "auto":
            chosen = "pointer"
            echo(f"warning: {name}: the memory block ({fit.block:,} bytes) would be cut: Codex's chain spends "
                 f"{fit.before:,} of its {max_bytes:,} bytes above this folder; writing the one-line pointer to "
                 f"MEMORY.md instead", err=True)
        elif not fit.fits:
            raise Refused(_too_big(name, fit.before, fit.block, max_bytes, above))
    if chosen == "pointer":
        block = render_codex_block(None, "pointer", newline, created)
        fit = codex_fit(above, rest, block, max_bytes)
        if not fit.fits:
            raise Refused(_too_big(name, fit.before, fit.block, max_bytes, above))
    new = replace_block(text, span, block) if found is not None else insert_block(rest if current else None, block)
    if fit.user_lost > fit.user_lost_before:
        echo(f"warning: {name}: with the memory block Codex cuts {fit.user_lost:,} bytes of its other text "
             f"(before: {fit.user_lost_before:,}); its budget is {max_bytes:,} bytes, root first", err=True)
    why = ("the trunk block: Codex sees the memory's domains and how to look things up at boot, with no tool call"
           if chosen == "block" else "the pointer: Codex reads MEMORY.md itself when a task needs memory")
    return _apply(workspace, name, current, new, dry_run, echo,
                  f"wrote bonsai-git's Codex block into {name} ({chosen}: {why}); {fit.block:,} bytes, ending at "
                  f"byte {fit.before + fit.block:,} of Codex's {max_bytes:,}-byte chain budget")


def _codex_target(workspace: Path) -> str:
    """The file Codex takes from the workspace folder: AGENTS.override.md when present and not blank."""
    override = _read_own_file(workspace, "AGENTS.override.md")
    return "AGENTS.override.md" if override is not None and override.strip() else "AGENTS.md"


def _chain_above(workspace: Path, fallbacks: tuple[str, ...]) -> dict[str, str]:
    """{path from the git root: text} of the file Codex takes from each folder above the workspace
    (git root first; none when the workspace is the root)."""
    from ..runtimes import project_root

    here = workspace.resolve()
    root = project_root(here)
    folders = []
    folder = here.parent
    while root is not None and root in (folder, *folder.parents):
        folders.append(folder)
        if folder == root:
            break
        folder = folder.parent
    out: dict[str, str] = {}
    if root is None:
        return out
    for folder in reversed(folders):
        for name in ("AGENTS.override.md", "AGENTS.md", *fallbacks):
            path = folder / name
            if path.is_file():
                text = path.read_bytes().decode("utf-8", "replace")
                if text.strip():
                    out[(path.relative_to(root)).as_posix()] = text
                    break
    return out


def _too_big(name: str, before: int, block: int, budget: int, above: dict[str, str]) -> str:
    files = ", ".join(above) or "none"
    return (f"{name}: Codex's chain spends {before:,} of its {budget:,} bytes above this folder ({files}), so the "
            f"memory block ({block:,} bytes) would be cut; shorten those files or raise project_doc_max_bytes in "
            "~/.codex/config.toml, then retry")


# ----------------------------------------------------------------------------- claude

def _claude(workspace: Path, *, undo: bool, dry_run: bool, echo: Echo) -> int:
    from ..core.connect import (CLAUDE_BEGIN, CLAUDE_END, find_block, imports_memory, insert_block, newline_of,
                                remove_block, render_claude_block)
    from ..core.errors import BadInput
    from ..core.layout import TRUNK

    name = "CLAUDE.md"
    current = _read_own_file(workspace, name)
    text = None if current is None else _utf8(current, name)
    span = None if text is None else find_block(text, CLAUDE_BEGIN, CLAUDE_END, name)
    if undo:
        if text is None or span is None:
            echo("Claude Code: nothing to undo (no bonsai-git block in CLAUDE.md)")
            return 0
        if text[span.start:span.end] != render_claude_block(newline_of(text[span.start:span.end]), span.created):
            raise BadInput(f"{name}:{span.line}: bonsai-git's import block holds text it did not write; move that "
                           "text out of the block, then undo again")
        return _apply(workspace, name, current, remove_block(text, span), dry_run, echo,
                      f"removed bonsai-git's @{TRUNK} import from {name}")
    if not (workspace / TRUNK).is_file():
        raise BadInput(f"{TRUNK}: not found; run bonsai-git connect in the workspace that holds it (-C DIR)")
    if text is not None and span is not None:
        echo(f"Claude Code: already connected ({name}:{span.line + 1} imports {TRUNK})")
        return 0
    line = None if text is None else imports_memory(text)
    if line is not None:
        echo(f"Claude Code: already connected: {name}:{line} imports {TRUNK} (your line; nothing to write)")
        return 0
    block = render_claude_block(newline_of(text) if text else "\n", created=text is None)
    return _apply(workspace, name, current, insert_block(text, block), dry_run, echo,
                  f"wrote the @{TRUNK} import into {name}: Claude Code loads {TRUNK} whole at boot (CLAUDE.md "
                  "imports are never cut)")


def _auto_memory(workspace: Path, *, undo: bool, write: bool, dry_run: bool, echo: Echo) -> int:
    from ..core.errors import BadInput
    from ..tree import CheckedWriter

    folder = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    path = folder / "settings.json"
    value = str(workspace.resolve())
    if not write:
        verb = "remove" if undo else "add"
        echo(f"Claude Code: {verb} this user-level setting {'from' if undo else 'in'} {path} (it applies to every "
             "project; Claude Code then loads MEMORY.md as its auto memory, cut at 200 lines, then 25,000 "
             "characters after HTML comments are stripped):")
        echo(json.dumps({"autoMemoryDirectory": value}))
        echo(f"or run: bonsai-git connect claude --auto-memory{' --undo' if undo else ''} --write-settings")
        return 0
    current = path.read_bytes() if path.is_file() else None
    try:
        settings = {} if current is None else json.loads(current.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"{path}: not valid JSON ({exc}); fix it, then retry") from None
    if not isinstance(settings, dict):
        raise BadInput(f"{path}: not a JSON object; fix it, then retry")
    if undo:
        if settings.get("autoMemoryDirectory") != value:
            echo(f"Claude Code: nothing to undo ({path} does not set autoMemoryDirectory to {value})")
            return 0
        del settings["autoMemoryDirectory"]
    else:
        if settings.get("autoMemoryDirectory") == value:
            echo(f"Claude Code: already connected ({path} sets autoMemoryDirectory to {value})")
            return 0
        settings["autoMemoryDirectory"] = value
    data = (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if dry_run:
        echo(f"would write {path}:")
        echo(data.decode("utf-8"), nl=False)
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    writer = CheckedWriter(folder)
    try:
        writer.write("settings.json", data, current)
        writer.finish()
    finally:
        writer.close()
    echo(f"wrote {path}: autoMemoryDirectory {'removed' if undo else '= ' + value}")
    return 0


# ----------------------------------------------------------------------------- openclaw

def _openclaw(workspace: Path, echo: Echo) -> int:
    """Say that OpenClaw needs nothing written, and check its workspace setting."""
    from ..runtimes import openclaw_workspaces

    echo("OpenClaw: nothing to write: it injects MEMORY.md from its workspace folder at every session start "
         "(bonsai-git status shows what its caps cut).")
    config, exists, folders = openclaw_workspaces()
    here = workspace.resolve()
    shown = ", ".join(str(f) for f in folders)
    if here in folders:
        echo(f"OpenClaw's workspace setting ({config}) names this folder: connected.")
        return 0
    where = f"OpenClaw's workspace setting ({config}) names {shown}" if exists else \
        f"no OpenClaw config at {config}: its default workspace is {shown}"
    echo(f"warning: {where}, not {here}: set agents.defaults.workspace to \"{here}\" in {config} (OpenClaw "
         "then boots from this folder), or run bonsai-git in that folder", err=True)
    return 1


# ----------------------------------------------------------------------------- rollback, flatten

def warn_connected(workspace: Path, echo: Echo) -> None:
    """After rollback or flatten: name (stderr) each connect block left in AGENTS.md / CLAUDE.md and the
    `connect --undo` that removes it.  They are the user's own files and separate commits, so those
    commands leave them alone (a revert commit holds the migration's files only); the Claude import
    still loads a flat MEMORY.md whole, so keeping it is a fine choice."""
    from ..core.connect import CLAUDE_BEGIN, CLAUDE_END, find_block
    from ..core.errors import BadInput
    from ..projection import connected_codex_file

    try:
        found = connected_codex_file(workspace)
        claude = _read_own_file(workspace, "CLAUDE.md")
        span = None if claude is None else find_block(claude.decode("utf-8", "replace"), CLAUDE_BEGIN, CLAUDE_END,
                                                      "CLAUDE.md")
    except BadInput:
        return
    if found is not None:
        echo(f"note: {found[0]} still holds bonsai-git's Codex block, a copy of the trunk block that is gone now; "
             "remove it with: bonsai-git connect codex --undo", err=True)
    if span is not None:
        echo("note: CLAUDE.md still imports MEMORY.md (Claude Code keeps loading it whole, flat or not); remove "
             "the import with: bonsai-git connect claude --undo", err=True)


# ----------------------------------------------------------------------------- shared

def _read_own_file(workspace: Path, name: str) -> bytes | None:
    """`name`'s bytes in the workspace folder (None when absent); BadInput for a symlink or a non-file."""
    from ..core.errors import BadInput

    path = workspace / name
    if path.is_symlink():
        raise BadInput(f"{name}: is a symlink; bonsai-git will not write through it. Connect in the folder it "
                       "points to, or replace it with a file")
    if path.exists() and not path.is_file():
        raise BadInput(f"{name}: is not a regular file; move it away, then retry")
    return path.read_bytes() if path.exists() else None


def _utf8(data: bytes, name: str) -> str:
    from ..core.layout import decode_utf8

    return decode_utf8(data, name)


def _apply(workspace: Path, name: str, current: bytes | None, new: str | None, dry_run: bool, echo: Echo,
           done: str) -> int:
    """Write `new` (None: delete) as workspace-relative `name`, which holds `current` (None: absent)
    now, under the workspace lock; under `dry_run` print the diff only.  Nothing when unchanged."""
    data = None if new is None else new.encode("utf-8")
    if data == current:
        echo(f"{name}: up to date; nothing to write")
        return 0
    if dry_run:
        echo(_diff(name, current, data), nl=False)
        echo(f"dry run: {done.replace('wrote', 'would write').replace('removed', 'would remove', 1)}; nothing written")
        return 0
    from ..journal import holding_lock
    from ..tree import CheckedWriter

    with holding_lock(workspace):
        writer = CheckedWriter(workspace)
        try:
            if data is None:
                assert current is not None
                writer.delete(name, current)
            else:
                writer.write(name, data, current)
            writer.finish()
        finally:
            writer.close()
    echo(done + ("; deleted it (connect had created it)" if data is None else ""))
    if data is not None or current is not None:
        echo(f"review and commit it: git diff -- {name}; git add -- {name}; git commit")
    return 0


def _diff(name: str, old: bytes | None, new: bytes | None) -> str:
    import difflib

    a = [] if old is None else old.decode("utf-8").splitlines(keepends=True)
    b = [] if new is None else new.decode("utf-8").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{name}",
                                 "/dev/null" if new is None else f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
