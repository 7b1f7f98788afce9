"""Survey a workspace without changing it: files, what git tracks, and ages from commit history.

The seed's health scripts aged files by modification time, which every `git checkout`,
clone or copy resets; here a file's age comes from its commits:
- a leaf's age is the committer date of the last commit that touched it;
- an archived file's age is the committer date of the newest commit that *added* it under
  `memory/archive/` (`git log --diff-filter=A --no-renames`: with rename detection on, a
  `git mv` into the archive shows as R and would be missed).
A file with no commit yet (untracked, or added but not committed) has no age.

"Now" is injectable: `BONSAI_NOW` (ISO 8601 date or date-time, naive = UTC, or `@<unix
seconds>`) overrides the clock, for tests and reproducible reports.

Read-only: no lock, no `git status` (it may refresh and rewrite the index); only `git
ls-files`, `git log` and `git rev-parse`, with GIT_OPTIONAL_LOCKS=0.
"""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from .boot import PROFILES
from .config import Config, load_config
from .errors import BadInput, BonsaiError, NotARepository
from .reindex import existing_index_paths, reindex_workspace
from .status import FileFacts, Survey
from .provenance import read_provenance
from .tree import MEMORY_DIR, TRUNK, is_migrated, walk_leaf_paths

ARCHIVE_DIR = "memory/archive"
NOW_ENV = "BONSAI_NOW"
BOOT_FILE_NAMES = tuple(sorted({name for p in PROFILES for name in p.files}))


def parse_now(value: str | None) -> int:
    """Unix seconds for a BONSAI_NOW value (None = the clock).

    Accepts `2026-04-01`, `2026-04-01T12:00:00+02:00` (naive = UTC) or `@1775000000`.
    Raises BadInput naming BONSAI_NOW when the value does not parse.
    """
    if value is None or not value.strip():
        return int(time.time())
    text = value.strip()
    try:
        if text.startswith("@"):
            return int(text[1:])
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadInput(f"{NOW_ENV}={value!r}: not a date; use e.g. 2026-04-01, 2026-04-01T12:00:00+00:00 or @<unix seconds>") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp())


def now_from_env() -> int:
    """The current time in unix seconds, or BONSAI_NOW's when set."""
    return parse_now(os.environ.get(NOW_ENV))


def survey_workspace(workspace: Path, now: int | None = None) -> Survey:
    """Read `workspace` (a folder inside a git work tree) into a Survey; writes nothing.

    Raises NotARepository outside a git work tree, BadInput for a broken `.bonsai.toml` or
    BONSAI_NOW.  Unreadable leaves are not errors: their text is None.
    """
    workspace = workspace.resolve()
    _check_work_tree(workspace)
    config = load_config(workspace)
    now = now_from_env() if now is None else now
    tracked = set(tracked_paths(workspace, TRUNK, MEMORY_DIR, *BOOT_FILE_NAMES))
    last_touch = _log_dates(workspace)
    added = archive_dates(workspace)
    leaves = tuple(_facts(workspace, p, p in tracked, last_touch.get(p)) for p in walk_leaf_paths(workspace))
    archived = tuple(_facts(workspace, p, p in tracked, added.get(p)) for p in _archive_paths(workspace))
    stale, stale_error = _stale(workspace, config)
    return Survey(config, now, _boot_files(workspace), leaves, archived, _indexes(workspace), stale, stale_error,
                  _scanned(workspace), read_provenance(workspace))


def _check_work_tree(workspace: Path) -> None:
    if not workspace.is_dir():
        raise NotARepository(f"{workspace.name}: no such directory")
    proc = _git(workspace, "rev-parse", "--is-inside-work-tree")
    if proc.returncode != 0 or proc.stdout.strip() != b"true":
        raise NotARepository(f"{workspace.name}: not inside a git work tree; run `git init` and commit MEMORY.md first")


def tracked_paths(workspace: Path, *pathspecs: str) -> list[str]:
    """Workspace-relative paths git tracks (in the index) under `pathspecs`, sorted."""
    return sorted(_git_lines(workspace, "ls-files", "-z", "--", *pathspecs))


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(["git", *args], cwd=workspace, capture_output=True, env=env)


def _git_lines(workspace: Path, *args: str) -> list[str]:
    proc = _git(workspace, *args)
    if proc.returncode != 0:
        return []
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _log_dates(workspace: Path, *args: str) -> dict[str, int]:
    """{workspace-relative path: committer date} of the newest commit in `git log ARGS` naming it."""
    out = _git_lines(workspace, "log", "-z", "--relative", "--no-renames", "--format=%x01%ct", "--name-only",
                     *args, "--", MEMORY_DIR)
    dates: dict[str, int] = {}
    current = 0
    for item in out:
        for piece in item.split("\n"):
            if piece.startswith("\x01"):
                current = int(piece[1:])
            elif piece:
                dates.setdefault(piece, current)
    return dates


def archive_dates(workspace: Path) -> dict[str, int]:
    """{archived path (workspace-relative): committer date of the newest commit that added it there}."""
    return {p: t for p, t in _log_dates(workspace, "--diff-filter=A").items() if p.startswith(ARCHIVE_DIR + "/")}


def _facts(workspace: Path, path: str, tracked: bool, committed_at: int | None) -> FileFacts:
    return FileFacts(path, _read_text(workspace / path), tracked, committed_at if tracked else None)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _archive_paths(workspace: Path) -> list[str]:
    root = workspace / ARCHIVE_DIR
    if not root.is_dir():
        return []
    return sorted(p.relative_to(workspace).as_posix() for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink() and not p.name.startswith("."))


def _boot_files(workspace: Path) -> tuple[tuple[str, str], ...]:
    found = []
    for name in sorted(set(BOOT_FILE_NAMES) | {TRUNK}):
        path = workspace / name
        if path.is_file():
            data = path.read_bytes()
            found.append((name, data.decode("utf-8", "replace")))
    return tuple(found)


def _indexes(workspace: Path) -> tuple[tuple[str, str], ...]:
    return tuple((p, (workspace / p).read_bytes().decode("utf-8", "replace")) for p in existing_index_paths(workspace))


def _stale(workspace: Path, config: Config) -> tuple[tuple[str, ...] | None, str | None]:
    trunk = _read_text(workspace / TRUNK)
    if trunk is None:
        return None, None
    if not is_migrated(trunk):
        return None, None
    try:
        return reindex_workspace(workspace, check=True, config=config).changed, None
    except BonsaiError as exc:
        return None, exc.message


def _scanned(workspace: Path) -> tuple[tuple[str, str], ...]:
    """{path: text} of every UTF-8 Markdown file a secret scan covers: boot files and memory/**/*.md."""
    paths = [name for name in sorted(set(BOOT_FILE_NAMES) | {TRUNK}) if (workspace / name).is_file()]
    root = workspace / MEMORY_DIR
    if root.is_dir():
        paths += sorted(p.relative_to(workspace).as_posix() for p in root.rglob("*.md")
                        if p.is_file() and not p.is_symlink())
    out = []
    for path in paths:
        text = _read_text(workspace / path)
        if text is not None and PurePosixPath(path).name != "_index.md":
            out.append((path, text))
    return tuple(out)


def workspace_folders(directory: Path) -> tuple[Path, tuple[str, ...]]:
    """The work tree's top and the prefix ("" or "a/b/") of every folder whose MEMORY.md git tracks, sorted.

    Raises NotARepository outside a git work tree.
    """
    directory = directory.resolve()
    _check_work_tree(directory)
    top = Path(_git(directory, "rev-parse", "--show-toplevel").stdout.decode("utf-8", "surrogateescape").strip())
    trunks = _git_lines(top, "ls-files", "-z", "--", f":(glob)**/{TRUNK}")
    prefixes = {p[: -len(TRUNK)] for p in trunks if p == TRUNK or p.endswith("/" + TRUNK)}
    return top, tuple(sorted(prefixes))
