"""Survey a workspace without changing it: files, what git tracks, and ages from commit history.

The seed's health scripts aged files by modification time, which every `git checkout`,
clone or copy resets; here a file's age comes from its commits:
- a leaf's age is the committer date of the last commit that touched it;
- an archived file's age is the committer date of the newest commit that *added* it under
  `memory/archive/` (`git log --diff-filter=A --no-renames`: with rename detection on, a
  `git mv` into the archive shows as R and would be missed).
A file with no commit yet (untracked, or added but not committed) has no age; in a shallow clone
no file has one (the cut's commit would date them all), and the report says so (history.py).

"Now" is injectable: `BONSAI_NOW` (ISO 8601 date or date-time, naive = UTC, or `@<unix
seconds>`) overrides the clock, for tests and reproducible reports.

Read-only: no lock, no `git status` (it may refresh and rewrite the index); only `git
ls-files`, `git log` and `git rev-parse`, with GIT_OPTIONAL_LOCKS=0.
"""

from __future__ import annotations

import os
import posixpath
import time
from datetime import datetime, timezone
from collections.abc import Collection, Sequence
from pathlib import Path

from .core.boot import CODEX_FILES, PROFILES
from .runtimes import runtime_facts
from .core.branches import is_generated_index, is_index_name
from .workspace import load_config
from .core.config import Config
from .core.errors import BadInput, BonsaiError, NotARepository
from .gitrun import run
from .history import is_shallow
from .gitsettings import (
    check_repository_env, indexed_leaf_paths, nested_workspaces, stored_alike, workspace_attribute_problem,
)
from .reindex import existing_index_paths, read_trunk
from .core.health import FileFacts, Survey
from .core.indexes import FactsOf, formatted_alike
from .provenance import provenance_warning, read_provenance
from .core.layout import (
    DOMAINS_DIR, MEMORY_DIR, TRUNK, Leaf, decode_utf8, is_migrated, leaf_location, leaves_from_bytes, markers_missing,
)
from .tree import _read_bytes, is_foreign_folder, read_regular_or_none

ARCHIVE_DIR = "memory/archive"
NOW_ENV = "BONSAI_NOW"
_READ_ONLY = {"GIT_OPTIONAL_LOCKS": "0"}  # status only reads: never refresh (write) the index
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


def survey_workspace(workspace: Path, now: int | None = None, fresh: FreshPrefixes | None = None) -> Survey:
    """Read `workspace` (a folder inside a git work tree) into a Survey; writes nothing.

    Raises NotARepository outside a git work tree, BadInput for a broken `.bonsai.toml` or
    BONSAI_NOW.  Unreadable leaves are not errors: their text is None.  `fresh`: a dict the
    caller shares between the workspaces of one report (`status --all`), so the hook's memo
    is checked with one `git ls-files` for all of them (`hook_found_fresh`).
    """
    workspace = workspace.resolve()
    common_dir, top = _check_work_tree(workspace)
    config = load_config(workspace)
    now = now_from_env() if now is None else now
    tracked = set(tracked_paths(workspace, TRUNK, MEMORY_DIR, *BOOT_FILE_NAMES))
    inner = nested_workspaces(workspace, tracked)
    if inner:  # a workspace nested in the memory tree is its own: none of its files is a leaf here
        tracked = {p for p in tracked if not p.startswith(inner)}
    shallow = is_shallow(workspace)  # ages would all read as the cut's commit date: not judged there
    last_touch, added = ({}, {}) if shallow else history_dates(workspace)
    disk = _MemoryFiles(workspace)  # one walk of memory/, each file read at most once
    leaf_paths = disk.leaf_paths()
    leaves = tuple(FileFacts(p, text, p in tracked, last_touch.get(p) if p in tracked else None)
                   for p, text in zip(leaf_paths, disk.load_texts(leaf_paths)))
    archived = tuple(FileFacts(p, disk.text(p), p in tracked, added.get(p) if p in tracked else None)
                     for p in disk.archive_paths())
    stale: tuple[str, ...] | None = ()  # when the hook found this input fresh: its proof that
    stale_error: str | None = None  # `reindex --check` would rewrite nothing (no rendering needed)
    if not hook_found_fresh(workspace, top, common_dir, {} if fresh is None else fresh):
        stale, stale_error = _stale(workspace, config, disk, common_dir, tracked)
    index_paths = list(disk.index_paths(workspace))
    indexes = tuple((p, (data or b"").decode("utf-8", "replace")) for p, data in zip(index_paths, disk.load_data(index_paths)))
    provenance = read_provenance(workspace)
    boot_files, trunk_error = _boot_files(workspace)
    return Survey(config, now, boot_files, leaves, archived, indexes, stale, stale_error,
                  _scanned(workspace, disk), provenance, workspace_attribute_problem(workspace, tracked),
                  chain_files=_chain_files(workspace), provenance_warning=provenance_warning(provenance),
                  runtime=runtime_facts(workspace), shallow=shallow,
                  links=broken_links(workspace, leaves, disk.text(TRUNK)), trunk_error=trunk_error)


class _MemoryFiles:
    """The regular files under a workspace's memory/ folder (symlinks not followed), found by one walk
    and each read at most once: status reports one moment, and 60,000 leaves read three times cost
    seconds."""

    def __init__(self, workspace: Path) -> None:
        self.root = os.fspath(workspace)
        self.paths: list[str] = []
        self._data: dict[str, bytes | None] = {}
        self._text: dict[str, str | None] = {}
        self._leaves: list[str] | None = None
        self._indexes: tuple[str, ...] | None = None
        self._walk(os.path.join(self.root, MEMORY_DIR), MEMORY_DIR)
        self.paths.sort()
        self._found = set(self.paths)

    def _walk(self, folder: str, relative: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if not is_foreign_folder(entry.path):  # a submodule, nested repository or workspace: not ours
                    self._walk(entry.path, f"{relative}/{entry.name}")
            elif entry.is_file(follow_symlinks=False):
                self.paths.append(f"{relative}/{entry.name}")

    def leaf_paths(self) -> list[str]:
        """Leaf paths on disk (tree.walk_leaf_paths's rule), sorted (found once, asked twice)."""
        if self._leaves is None:
            self._leaves = [p for p in self.paths if p.endswith(".md") and leaf_location(p) is not None]
        return self._leaves

    def markdown_paths(self) -> list[str]:
        """Every `.md` file under memory/, sorted."""
        return [p for p in self.paths if p.endswith(".md")]

    def archive_paths(self) -> list[str]:
        """Files under memory/archive/ whose name does not start with `.`, sorted."""
        return [p for p in self.paths if p.startswith(ARCHIVE_DIR + "/") and not p.rsplit("/", 1)[-1].startswith(".")]

    def index_paths(self, workspace: Path) -> tuple[str, ...]:
        """`reindex.existing_index_paths` from this walk: index files under memory/domains/, not inside a
        `_`/`.` folder, sorted.  That walk enters memory/domains/ even when it is a symlink, this one
        does not: then it is asked.  Found once (the staleness check and the report both ask)."""
        if self._indexes is not None:
            return self._indexes
        if os.path.islink(os.path.join(self.root, DOMAINS_DIR)):
            self._indexes = existing_index_paths(workspace)
            return self._indexes
        prefix = DOMAINS_DIR + "/"
        self._indexes = tuple(p for p in self.paths if p.startswith(prefix) and is_index_name(p.rsplit("/", 1)[-1])
                              and not any(part.startswith(("_", ".")) for part in p[len(prefix) :].split("/")[:-1]))
        return self._indexes

    def load_data(self, paths: list[str]) -> list[bytes | None]:
        """`data(p)` for each of `paths`, read in one loop (60,000 leaves: the method calls and cache
        checks of `data` cost a third of the reading)."""
        data_of, base, read = self._data, os.path.join(self.root, ""), _read_bytes
        out: list[bytes | None] = []
        for path in paths:
            if path in data_of:
                out.append(data_of[path])
                continue
            try:
                data: bytes | None = read(base + path)
            except (OSError, BadInput):  # gone, or not a regular file (tree.NotRegularFile)
                data = None
            data_of[path] = data
            out.append(data)
        return out

    def load_texts(self, paths: list[str]) -> list[str | None]:
        """`text(p)` for each of `paths`, read and decoded in one loop (see load_data)."""
        text_of = self._text
        out: list[str | None] = []
        for path, data in zip(paths, self.load_data(paths)):
            if path in text_of:
                out.append(text_of[path])
                continue
            try:
                text = None if data is None else data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            text_of[path] = text
            out.append(text)
        return out

    def has(self, path: str) -> bool:
        """True when the walk found `path` (a regular file, not behind a symlink)."""
        return path in self._found

    def data(self, path: str) -> bytes | None:
        """The bytes of workspace-relative `path` (read once), or None when unreadable."""
        if path not in self._data:
            try:
                self._data[path] = _read_bytes(os.path.join(self.root, path))
            except (OSError, BadInput):  # gone, or not a regular file (tree.NotRegularFile)
                self._data[path] = None
        return self._data[path]

    def text(self, path: str) -> str | None:
        """The file as UTF-8 text, or None when unreadable or not UTF-8 (decoded once: leaves and the
        secret scan share it)."""
        if path in self._text:
            return self._text[path]
        data = self.data(path)
        try:
            text = None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        self._text[path] = text
        return text


def _check_work_tree(workspace: Path) -> tuple[Path, Path]:
    """The git common dir (the hook's caches live there) and the work tree's top folder;
    NotARepository outside a work tree."""
    if not workspace.is_dir():
        raise NotARepository(f"{workspace.name}: no such directory")
    check_repository_env(workspace)
    proc = run(workspace, "rev-parse", "--is-inside-work-tree", "--git-common-dir", "--show-toplevel",
               extra_env=_READ_ONLY)
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) < 3 or lines[0] != "true":
        raise NotARepository(f"{workspace.name}: not inside a git work tree; run `git init` and commit MEMORY.md first")
    return workspace / lines[1], Path(lines[2])


# {(top, common dir): the prefixes of the workspaces the hook's memo names fresh}, for one report.
FreshPrefixes = dict[tuple[Path, Path], frozenset[str]]


def hook_found_fresh(workspace: Path, top: Path, common_dir: Path, known: FreshPrefixes) -> bool:
    """True when the pre-commit hook's memo (freshness.py) holds this workspace's digest: a full hook
    run found exactly this input (every tracked path's blob id, no unstaged change, the config, the
    git settings, the code version) fresh and warning-free, so `reindex --check` would rewrite
    nothing and status need not render the tree.  The digest is computed as the hook computes it,
    by the hook's own functions; anything else (no memo, `BONSAI_GIT_NO_CACHE=1`, an edited leaf,
    an error) is False, and status renders as before: same report either way.  `known` keeps the
    answer per repository for the other workspaces of the same report."""
    key = (top, common_dir.resolve())
    if key not in known:
        known[key] = _fresh_prefixes(top, common_dir)
    try:
        relative = workspace.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return False
    return ("" if relative == "." else relative + "/") in known[key]


def _fresh_prefixes(top: Path, common_dir: Path) -> frozenset[str]:
    from .freshness import open_memo, workspace_digest
    from .hook import _ls_files, _setting_files, _split_stage, find_workspaces

    memo = open_memo(common_dir)
    if memo.path is None or not memo.path.is_file():
        return frozenset()  # no memo (a fresh clone, or turned off): no listing to take
    try:
        listing, stage_info = _ls_files(top)
        workspaces = find_workspaces(top, listing)
    except BonsaiError:
        return frozenset()  # status reports what is wrong from its own reading
    _split_stage(workspaces, stage_info)  # the hook's one pass, not a scan of the index per workspace
    fresh = set()
    for ws in workspaces:
        digest = workspace_digest(top / ws.prefix, ws.tracked, ws.untracked, ws.unstaged, ws.stage,
                                  _setting_files(top, ws.prefix, common_dir))
        if memo.holds(digest):
            fresh.add(ws.prefix)
    return frozenset(fresh)


def tracked_paths(workspace: Path, *pathspecs: str) -> list[str]:
    """Workspace-relative paths git tracks (in the index) under `pathspecs`, sorted."""
    return sorted(_git_lines(workspace, "ls-files", "-z", "--", *pathspecs))


def _git_lines(workspace: Path, *args: str) -> list[str]:
    proc = run(workspace, *args, extra_env=_READ_ONLY)
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


def history_dates(workspace: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(`_log_dates(workspace)`, `archive_dates(workspace)`) from one walk of the history: one `git
    log --name-status` instead of two `--name-only` logs (each walks every commit touching memory/).

    With `-z` git prints `\x01<date>`, then, after a newline, `<status>\0<path>\0` per file; a
    path's first (newest) entry dates it, its newest `A` entry dates its arrival.
    """
    out = _git_lines(workspace, "log", "-z", "--relative", "--no-renames", "--format=%x01%ct", "--name-status",
                     "--", MEMORY_DIR)
    dates: dict[str, int] = {}
    added: dict[str, int] = {}
    current = 0
    status: str | None = None
    for item in out:
        if status is not None:  # the path after its status
            dates.setdefault(item, current)
            if status == "A" and item.startswith(ARCHIVE_DIR + "/"):
                added.setdefault(item, current)
            status = None
        elif (item := item.lstrip("\n")).startswith("\x01"):
            current = int(item[1:])
        else:
            status = item
    return dates, added


def archive_dates(workspace: Path) -> dict[str, int]:
    """{archived path (workspace-relative): committer date of the newest commit that added it there}."""
    return {p: t for p, t in _log_dates(workspace, "--diff-filter=A").items() if p.startswith(ARCHIVE_DIR + "/")}




def broken_links(workspace: Path, leaves: Sequence[FileFacts], trunk: str | None = None
                 ) -> tuple[tuple[str, int, str], ...]:
    """(leaf path, line, message) for each link of a leaf (or of the `trunk` text) that leads nowhere (core/links.py): an
    `#anchor` with no such heading in the leaf (naming the leaf that has it, when one does), a
    relative link naming no file from the leaf's folder (naming the file it meant from MEMORY.md's
    folder, when that exists).  Leaves without a link-like character are not parsed."""
    from .core.links import may_have_links

    candidates = [f for f in leaves if f.text is not None and may_have_links(f.text)]
    if trunk is not None and may_have_links(trunk):
        candidates.insert(0, FileFacts(TRUNK, trunk, True, None))
    if not candidates:
        return ()
    from .core.links import anchor_of, leaf_links, resolve_from
    from .core.sections import heading_of

    homes: dict[str, str] | None = None
    found: list[tuple[str, int, str]] = []
    for facts in candidates:
        assert facts.text is not None
        links = leaf_links(facts.text)
        if links.missing_anchors and homes is None:
            homes = {}
            for other in leaves:
                if other.text is not None:
                    homes.setdefault(anchor_of(heading_of(other.text)), other.path)
        for link in links.missing_anchors:
            home = (homes or {}).get(link.href[1:].lower())
            where = f"its heading is in {home}" if home else "no heading here has that anchor"
            found.append((facts.path, link.line, f"link `{link.href}` leads nowhere: {where} (a link across files "
                                                 f"needs the file's path)"))
        folder = posixpath.dirname(facts.path)
        for link, _none in links.relative:
            target = resolve_from(folder, link.href)
            if target is not None and (workspace / target).exists():
                continue
            meant = resolve_from("", link.href)
            if folder == "":
                continue  # MEMORY.md's own relative links resolve where they always did: not ours to judge
            hint = (f"; from {TRUNK}'s folder it named {meant} (write `{posixpath.relpath(meant, folder)}`)"
                    if meant is not None and (workspace / meant).exists() else "")
            found.append((facts.path, link.line, f"relative link `{link.href}` names no file from {folder}/{hint}"))
    return tuple(found)


def _read_text(path: Path) -> str | None:
    data = read_regular_or_none(path)  # never a FIFO or a device: status must not hang
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None




def _chain_files(workspace: Path) -> tuple[tuple[str, str], ...]:
    """Codex's candidate instruction files ({path from the project root: text}) in every folder from
    the project root (the nearest folder up holding `.git`) down to the workspace; without a
    root, the workspace's own (boot.codex_chain picks one per folder)."""
    folders = [workspace.resolve()]
    while not (folders[-1] / ".git").exists() and folders[-1].parent != folders[-1]:
        folders.append(folders[-1].parent)
    if not (folders[-1] / ".git").exists():
        folders = folders[:1]
    root = folders[-1]
    found = []
    for folder in folders:
        for name in CODEX_FILES:
            path = folder / name
            if path.is_file():
                found.append(((path.relative_to(root)).as_posix(), path.read_bytes().decode("utf-8", "replace")))
    return tuple(sorted(found))


def _boot_files(workspace: Path) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """The bootstrap files present, as {name: text} pairs decoded lossily (the boot budget counts what a
    runtime would load), and the message naming MEMORY.md's first non-UTF-8 byte (None when it is UTF-8
    or absent): every command refuses such a trunk, so status says so."""
    found = []
    trunk_error = None
    for name in sorted(set(BOOT_FILE_NAMES) | {TRUNK}):
        data = read_regular_or_none(workspace / name)
        if data is not None:
            found.append((name, data.decode("utf-8", "replace")))
            if name == TRUNK:
                try:
                    decode_utf8(data, TRUNK)
                except BadInput as exc:
                    trunk_error = exc.message
    return tuple(found), trunk_error




def _stale(workspace: Path, config: Config, disk: _MemoryFiles, common_dir: Path,
           tracked: Collection[str]) -> tuple[tuple[str, ...] | None, str | None]:
    """What `reindex --check` would list, from the files already read; the hook's facts cache is read
    (never written): a leaf's summary is then looked up, not recomputed (same bytes either way)."""
    trunk = _read_text(workspace / TRUNK)
    if trunk is None:
        if os.path.lexists(workspace / TRUNK) and read_regular_or_none(workspace / TRUNK) is None:
            return None, f"{TRUNK}: is not a regular file (or unreadable); bonsai-git reads regular files only"
        return None, None
    if not is_migrated(trunk):
        if any((workspace / DOMAINS_DIR).glob("*/_index.md")):  # a tree bonsai-git generated
            raise markers_missing(trunk)  # status refuses as reindex --check does (exit 3)
        return None, None
    from .core.indexes import render_tree

    paths = _indexed_leaves(workspace, disk, tracked)
    try:
        trunk_bytes, parts = read_trunk(workspace)
        leaves = leaves_from_bytes((p, disk.data(p) or b"") for p in paths)
        if _facts_cache_file(common_dir) is None:  # a fresh clone: nothing to look up
            facts, branches = _facts_without_cache(leaves, config.estimator), None
        else:
            from .factcache import open_cache

            cache = open_cache(common_dir)
            facts, branches = cache.facts_of(config.estimator), cache.branches_of(workspace)
        rendered = render_tree(leaves, parts, config, disk.index_paths(workspace), facts=facts, branches=branches)
    except BonsaiError as exc:
        return None, exc.message
    stale = []
    for path, text in rendered.items():
        current = trunk_bytes if path == TRUNK else disk.data(path) if disk.has(path) else _read_bytes_if_file(
            workspace / path)
        wanted = None if text is None else text.encode("utf-8")
        if wanted is None and current is not None and not is_generated_index(current):
            continue  # named like an index, not ours: reindex keeps it (and warns), so it is not stale
        if current != wanted and not (current is not None and wanted is not None
                                      and (stored_alike(workspace, path, current, wanted)
                                           or formatted_alike(path, current, wanted))):
            stale.append(path)  # as reindex --check: equal as git stores them (core.autocrlf) is fresh
    return tuple(sorted(stale)), None


def _indexed_leaves(workspace: Path, disk: _MemoryFiles, tracked: Collection[str]) -> list[str]:
    """`gitsettings.indexed_leaf_paths` (the hook's rule: a leaf git tracks that is a regular file on
    disk), sorted, from what the survey knows: `tracked` (git's index listing it already took) and
    the walk, which found each regular file it lists with the lstat the rule makes.  Only a tracked
    leaf the walk did not find (deleted, or behind a symlinked folder) is asked of the rule."""
    found = [p for p in disk.leaf_paths() if p in tracked]
    others = indexed_leaf_paths(workspace, [p for p in tracked if p.startswith(MEMORY_DIR + "/") and not disk.has(p)])[0]
    return sorted(found + others) if others else found


def _facts_cache_file(common_dir: Path) -> Path | None:
    """The hook's facts cache file (factcache.py) when there is one to read, else None."""
    from .factcache import CACHE_PATH

    if os.environ.get("BONSAI_GIT_NO_CACHE"):
        return None
    path = common_dir / CACHE_PATH
    return path if path.is_file() else None


def _facts_without_cache(leaves: Sequence[Leaf], estimator: str) -> FactsOf:
    """Each leaf's LeafFacts as `indexes.leaf_facts` gives them, for a tree with no facts cache (a
    fresh clone): computed once each, without the cache's rows (JSON, blob ids) nobody saves.  The
    root-index summary is shown for each domain's largest leaf only, so only those are summarized
    twice (at 60,000 leaves the second summary of every leaf cost ~0.8 s)."""
    from dataclasses import replace

    from .core.branches import heading_text
    from .core.indexes import ROOT_SUMMARY_CHARS, LeafFacts
    from .core.summary import summarize
    from .core.tokens import estimate_tokens

    # Keyed by the Leaf object (its id; `leaves` holds each alive while `facts_of` is): a Leaf's
    # dataclass hash rehashes a tuple of its fields at every lookup, 4 lookups a leaf.
    facts = {id(leaf): LeafFacts(estimate_tokens(leaf.text, estimator), summarize(leaf.text), "",
                                 heading_text(leaf.text)) for leaf in leaves}

    def facts_of(leaf: Leaf, _alive: Sequence[Leaf] = leaves) -> LeafFacts:  # a leaf not given: KeyError
        return facts[id(leaf)]

    tops: dict[str, tuple[int, str, Leaf]] = {}  # the leaf render_root_index shows: domain_stats's first,
    for leaf in leaves:  # the largest, ties by name (tests/test_status_shortcuts.py: the same bytes)
        key = (-facts[id(leaf)].tokens, leaf.name, leaf)
        if leaf.domain not in tops or key[:2] < tops[leaf.domain][:2]:
            tops[leaf.domain] = key
    for _tokens, _name, top in tops.values():
        facts[id(top)] = replace(facts[id(top)], root_summary=summarize(top.text, ROOT_SUMMARY_CHARS))
    return facts_of


def _read_bytes_if_file(path: Path) -> bytes | None:
    """As reindex's check reads a generated file: through a symlink too; None when absent."""
    return path.read_bytes() if path.is_file() else None


def _scanned(workspace: Path, disk: _MemoryFiles) -> tuple[tuple[str, str], ...]:
    """{path: text} of every UTF-8 Markdown file a secret scan covers: boot files and memory/**/*.md."""
    out = []
    for name in sorted(set(BOOT_FILE_NAMES) | {TRUNK}):
        text = _read_text(workspace / name) if (workspace / name).is_file() else None
        if text is not None:
            out.append((name, text))
    # generated files (_index.md, _index.<key>.md) are not scanned: left out before their text is asked for
    written = [p for p in disk.markdown_paths() if not is_index_name(p.rsplit("/", 1)[-1])]
    out += [(path, text) for path, text in zip(written, disk.load_texts(written)) if text is not None]
    return tuple(out)


def workspace_folders(directory: Path) -> tuple[Path, tuple[str, ...]]:
    """The work tree's top and the prefix ("" or "a/b/") of every folder whose MEMORY.md git tracks, sorted.

    Raises NotARepository outside a git work tree.
    """
    directory = directory.resolve()
    _check_work_tree(directory)
    shown = run(directory, "rev-parse", "--show-toplevel", extra_env=_READ_ONLY).stdout
    top = Path(shown.decode("utf-8", "surrogateescape").strip())
    args = ("ls-files", "-z", "--", f":(glob)**/{TRUNK}")  # a glob pathspec: not under literal pathspecs
    proc = run(top, *args, extra_env=_READ_ONLY, literal=False)
    trunks = [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p] if proc.returncode == 0 else []
    prefixes = {p[: -len(TRUNK)] for p in trunks if p == TRUNK or p.endswith("/" + TRUNK)}
    return top, tuple(sorted(prefixes))
