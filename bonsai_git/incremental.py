"""The hook's incremental run: after a leaf edit, render only the domains whose leaves changed.

A full hook run renders every domain of the tree (the facts cache spares reading unchanged
leaves, but every leaf is still lstat-ed, looked up and listed).  After a full run that wrote
the tree fresh and printed no warning, the hook keeps a *snapshot* of what it saw and made:

- `stage`: git's index as `git ls-files -s` gave it ({tracked path: "mode blob-id"});
- `disk`: for the paths whose work-tree bytes are not their index entry's (git tagged them
  modified, or the run wrote them), the blob id of the bytes the run saw or wrote ("" absent);
- `untracked`: the untracked paths under the workspace's memory/ (after the run's writes);
- `leaves`: {domain: {leaf name: (tokens, summary, root summary, heading)}}, the LeafFacts of
  every indexed leaf, from the bytes its content (below) names;
- `roots`: {domain: its part of `memory/_index.md`} (`indexes.root_domain_entry`);
- `layouts`: {domain: the sub-branches its last rendering laid out, and its files}.

A path's *content* is its `disk` blob id when it has one, else its index entry's.  The next run
compares the contents of the paths git now tags modified (read and hashed: a few files), of the
paths whose index entry changed and of the snapshot's `disk` paths with the snapshot's.  Only
the domains holding a changed leaf or a changed index file are rendered again (with the same
renderer, `indexes.domain_index_files`, from the snapshot's facts and the changed leaves' new
ones); the root index is joined from each domain's part, the trunk rendered as always, and
everything written through `reindex.sync_rendered` (CheckedWriter, symlink refusal,
line-ending equality).  The same bytes as a full run: the trust is the freshness memo's (a path
git reports unchanged holds its index entry's blob, under the same settings, code and config;
`freshness.settings_digest` keys the snapshot).

Anything the snapshot cannot vouch for makes the hook run in full (`run_incremental` returns
None): no snapshot or other settings; a new untracked path; an unmerged or
skip-worktree entry; a tracked leaf missing on disk, not a regular file, or not a regular
file in git's index; a new or emptied domain; an added leaf whose name holds a secret-looking
run; a `.gitattributes` changed; a path added or removed that is neither a leaf nor an index
file; an inbox in MEMORY.md.  Each of those is a case where the full run warns, absorbs or
refuses.  More than MANY changed leaves (a checkout, a merge) also runs in full: the facts
cache knows most of them by blob id.  Each domain's last layout is kept too
(`branches.LayoutMemo`), so inside a changed domain only the sub-branches on the changed
leaves' path are laid out again.  `BONSAI_GIT_NO_CACHE=1` turns snapshots off.  Snapshots live in
`<git common dir>/bonsai-git/snapshots/<digest of the workspace's path>` (marshal).
"""

from __future__ import annotations

import marshal
import os
from itertools import chain
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .core.config import SINGLE_FILE_DOMAINS, Config
from .core.errors import BonsaiError
from .core.layout import DOMAINS_DIR, ROOT_INDEX, TRUNK, Leaf, OnDisk, git_blob_id, leaf_location, leaves_from_bytes
from .tree import _read_bytes, write_durably

try:  # hashlib's own blake2 backend: importing hashlib would load OpenSSL (~3 ms per hook run)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .core.branches import LayoutMemo
    from .core.indexes import DomainStats, FactsOf, LeafFacts, RootEntry

SNAPSHOT_DIR = "bonsai-git/snapshots"
FORMAT = 4
_REGULAR = ("100644 ", "100755 ")
MANY = 64  # more changed leaves than this: a full run (the facts cache knows most of them by blob id)

LeafRow = tuple[int, str, str, str]  # a leaf's LeafFacts: (tokens, summary, root summary, heading)


class Snapshot:
    """What a hook run saw and made in one workspace (module docstring); paths workspace-relative.

    Stored as a small main file (settings, `disk`, `untracked`, `roots`, the names of the other
    files), the stage listing joined into one string, and one rows file per domain, each of those
    named by the digest of its bytes: a run compares the digest of today's listing with the
    name, loads only the rows of the domains it renders, and writes only what changed.
    """

    def __init__(self, settings: str, stage_name: str, disk: dict[str, str], untracked: tuple[str, ...],
                 roots: dict[str, RootEntry], files: dict[str, str], folder: Path | None = None,
                 leaves: dict[str, dict[str, LeafRow]] | None = None, stage_text: str | None = None) -> None:
        """`stage_name` names the file holding `stage_text` (`stage_file_name`); `files` {domain: rows
        file name in `folder`}; `leaves` {domain: rows} already in memory."""
        self.settings, self.stage_name, self.disk, self.untracked = settings, stage_name, disk, untracked
        self.roots, self.files, self.folder, self.stage_text = roots, files, folder, stage_text
        self.leaves: dict[str, dict[str, LeafRow]] = dict(leaves or {})
        self.layouts: dict[str, tuple[dict[str, tuple[tuple[str, ...], tuple[str, ...]]], dict[str, str]]] = {}

    def stage(self) -> dict[str, str]:
        """{tracked path: "mode blob-id"} as git's index was at the run; raises _Decline when unreadable."""
        if self.stage_text is None:
            if self.folder is None:
                raise _Decline
            try:
                data = _read_bytes(os.path.join(os.fspath(self.folder), self.stage_name))
                self.stage_text = data.decode("utf-8", "surrogateescape")
            except (OSError, BonsaiError):
                raise _Decline from None
            if stage_file_name(self.stage_text) != self.stage_name:
                raise _Decline  # damaged
        parts = self.stage_text.split("\0") if self.stage_text else []
        return dict(zip(parts[0::2], parts[1::2]))

    def rows(self, domain: str) -> dict[str, LeafRow]:
        """{leaf name: row} of `domain`; raises _Decline when its rows file is missing or damaged."""
        found = self.leaves.get(domain)
        if found is None:
            name = self.files.get(domain)
            if name is None or self.folder is None:
                raise _Decline
            try:
                data = marshal.loads(_read_bytes(os.path.join(os.fspath(self.folder), name)))
            except (OSError, BonsaiError, EOFError, ValueError, TypeError):
                raise _Decline from None
            if not (isinstance(data, tuple) and len(data) == 3 and all(isinstance(d, dict) for d in data)):
                raise _Decline
            found = self.leaves[domain] = data[0]
            self.layouts[domain] = (data[1], data[2])
        return found

    def layout(self, domain: str) -> LayoutMemo:
        """A memo of the domain's sub-branches as the snapshot's run rendered them (empty when unknown)."""
        from .core.branches import LayoutMemo

        calls, texts = self.layouts.get(domain, ({}, {}))
        return LayoutMemo(calls, texts)


def stage_text(stage: Mapping[str, str]) -> str:
    """`stage` as one string (paths and entries, NUL-separated, in its order): compared in one go."""
    return "\0".join(chain.from_iterable(stage.items()))


def stage_file_name(text: str) -> str:
    """The name of the file holding a `stage_text`: its digest, so an unchanged index is never written again."""
    return "s-" + blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def snapshot_path(common_dir: Path, workspace: Path) -> Path | None:
    """The folder of the snapshot of the workspace at `workspace` (its absolute path: linked worktrees
    share the common dir, each keeps its own), or None when snapshots are off."""
    if os.environ.get("BONSAI_GIT_NO_CACHE"):
        return None
    name = blake2b(os.fsencode(workspace), digest_size=8).hexdigest()
    return common_dir / SNAPSHOT_DIR / name


def load_snapshot(folder: Path | None, settings: str | None) -> Snapshot | None:
    """The snapshot in `folder` when it exists, is well formed and was made under `settings`; else None."""
    if folder is None or settings is None:
        return None
    try:
        data = marshal.loads(_read_bytes(os.path.join(os.fspath(folder), "main")))
    except (OSError, BonsaiError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 7 and data[0] == FORMAT and data[1] == settings):
        return None
    _, found, stage, disk, untracked, roots, files = data
    if not (isinstance(stage, str) and isinstance(disk, dict) and isinstance(untracked, tuple)
            and isinstance(roots, dict) and isinstance(files, dict) and set(files) <= set(roots)):
        return None
    return Snapshot(found, stage, disk, untracked, roots, files, folder)


def save_snapshot(folder: Path | None, snapshot: Snapshot) -> None:
    """Write `snapshot` into `folder`: the rows files it holds in memory, then the main file (atomically),
    then remove rows files no longer named.  Never raises OSError (a read-only git dir skips it)."""
    if folder is None:
        return
    files = dict(snapshot.files)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for domain, rows in snapshot.leaves.items():
            data = marshal.dumps((rows, *snapshot.layouts.get(domain, ({}, {}))))
            name = "d-" + blake2b(data, digest_size=12).hexdigest()
            if files.get(domain) != name:
                _write_new(folder / name, data)
                files[domain] = name
        if snapshot.stage_text is not None and not os.path.exists(folder / snapshot.stage_name):
            _write_new(folder / snapshot.stage_name, snapshot.stage_text.encode("utf-8", "surrogateescape"))
        files = {domain: name for domain, name in files.items() if domain in snapshot.roots}
        write_durably(folder / "main", marshal.dumps((FORMAT, snapshot.settings, snapshot.stage_name, snapshot.disk,
                                                      snapshot.untracked, snapshot.roots, files)), sync=False)
        named = {*files.values(), snapshot.stage_name}
        for entry in os.listdir(folder):
            if entry.startswith(("d-", "s-")) and entry not in named:
                os.unlink(folder / entry)
    except OSError:
        pass


def _write_new(path: Path, data: bytes) -> None:
    """Write a file named by its content's digest, in place: no run reads it before the main file
    naming it is replaced (atomically, after this), and a torn one fails to load (a full run)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def drop_snapshot(folder: Path | None) -> None:
    """Remove the snapshot's main file (a run that could not vouch for its result); never raises OSError."""
    if folder is not None:
        try:
            os.unlink(folder / "main")
        except OSError:
            pass


class _Decline(Exception):
    """The incremental run cannot vouch for this tree: run in full."""


def run_incremental(root: Path, snapshot: Snapshot, config: Config, stage: Mapping[str, str],
                    tracked: Iterable[str], untracked: Iterable[str], unstaged: Iterable[str],
                    check: bool, check_added: Callable[[], None] = lambda: None,
                    ) -> tuple[tuple[str, ...], Snapshot | None] | None:
    """The hook's run for one workspace from its snapshot: (paths written or stale, the new snapshot
    or None under `check`), or None when it must run in full (module docstring).

    `stage` {tracked path: "mode blob-id"}, `tracked`, `untracked` and `unstaged` (git tagged the
    work tree modified) are the workspace's listing, workspace-relative.  Raises what a full run
    raises for the files it reads (BadInput: a changed leaf not UTF-8, with a conflict marker or
    an unwritable name; MEMORY.md unparsable) and ConcurrentWrite from the writer.  `check_added` is
    called when leaves were added (the hook checks the git attributes of the new paths there).
    """
    try:
        return _run(root, snapshot, config, stage, tracked, untracked, unstaged, check, check_added)
    except _Decline:
        return None


def _run(root: Path, snap: Snapshot, config: Config, stage: Mapping[str, str], tracked: Iterable[str],
         untracked: Iterable[str], unstaged: Iterable[str], check: bool,
         check_added: Callable[[], None]) -> tuple[tuple[str, ...], Snapshot | None]:
    from .reindex import existing_index_paths, read_trunk, sync_rendered

    untracked_now = tuple(sorted(set(untracked)))
    gone: set[str] = set()
    if untracked_now != snap.untracked:
        gone = set(snap.untracked) - set(untracked_now)  # staged since (an index file a run made), or deleted
        if not set(untracked_now) <= set(snap.untracked):
            raise _Decline  # a new untracked path: the full run may warn about it or delete it
    if len(stage) != len(set(tracked)):
        raise _Decline  # an unmerged or skip-worktree entry
    base = os.fspath(root)
    dirty = set(unstaged)
    disk: dict[str, str] = {}
    read: dict[str, bytes] = {}
    for path in dirty:  # the few files git tags modified: read and hashed
        try:
            raw = _read_bytes(os.path.join(base, path))
        except (FileNotFoundError, NotADirectoryError):
            disk[path] = ""
            continue
        except (OSError, BonsaiError):  # a folder, a FIFO...: the full run says why
            raise _Decline from None
        disk[path] = git_blob_id(raw)
        read[path] = raw
    candidates = set(disk) | set(snap.disk) | gone
    now_text = stage_text(stage)
    now_name = stage_file_name(now_text)
    old_stage = stage
    if now_name != snap.stage_name:  # one digest in the usual case (nothing staged since the last run)
        old_stage = snap.stage()
        candidates |= {path for path, _ in stage.items() ^ old_stage.items()}
    leaves: dict[str, dict[str, LeafRow]] = {}  # the affected domains' rows, copied before they change
    affected: set[str] = set()
    added: list[str] = []
    changed_leaves: list[str] = []
    moved: set[str] = set()  # paths whose content is not the snapshot's
    for path in sorted(candidates):
        now, then = _content(stage, disk, path), _content(old_stage, snap.disk, path)
        if now == then:
            continue
        moved.add(path)
        location = leaf_location(path)
        if location is not None:
            if now == "" or (path not in dirty and now is not None and not stage[path].startswith(_REGULAR)):
                raise _Decline  # deleted but not staged, or not a regular file: the full run warns
            domain, name = location
            if domain not in snap.roots or (domain in SINGLE_FILE_DOMAINS and path != SINGLE_FILE_DOMAINS[domain]):
                raise _Decline  # a new domain, or a leaf in a one-file domain's folder: the full run checks (refuses)
            if domain not in leaves:
                leaves[domain] = dict(snap.rows(domain))
            if now is None:
                leaves[domain].pop(name, None)
            else:
                if then is None:
                    added.append(path)
                changed_leaves.append(path)
            affected.add(domain)
            continue
        parts = path.split("/")
        if (len(parts) >= 4 and path.startswith(DOMAINS_DIR + "/") and parts[2] in snap.roots
                and parts[-1].startswith("_index") and parts[-1].endswith(".md")):
            affected.add(parts[2])  # an index file changed: its domain is rendered again
            if parts[2] not in leaves:
                leaves[parts[2]] = snap.rows(parts[2])
        elif path in (ROOT_INDEX, TRUNK):
            pass  # rendered at every run
        elif now is None or then is None or parts[-1] == ".gitattributes":
            raise _Decline  # a path added or removed (warnings), or attributes changed
    if len(changed_leaves) > MANY:
        raise _Decline  # a checkout or a merge: the full run reads them with the facts cache's help
    if added:
        from .core.secretscan import name_secret_kinds

        if name_secret_kinds("/".join(added)):
            raise _Decline  # the full run warns about such names
        check_added()
    for path in changed_leaves:
        data = read.get(path)
        if data is None:
            try:
                data = _read_bytes(os.path.join(base, path), path)
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                raise _Decline from None
        (leaf,) = leaves_from_bytes([(path, data)])  # BadInput as the full run: not UTF-8, conflict, name
        blob = git_blob_id(data)
        if path not in dirty and stage[path][7:] != blob:
            disk[path] = blob  # converted on checkout (or written meanwhile): its content is what was read
        from .core.indexes import leaf_facts

        facts = leaf_facts(leaf.text, config.estimator)  # every fact worked out: root_summary is never None
        leaves[leaf.domain][leaf.name] = (facts.tokens, facts.summary, facts.root_summary or "", facts.heading)
    if any(not rows for rows in leaves.values()):
        raise _Decline  # a domain emptied: the trunk's domains change
    trunk_bytes, parts_ = read_trunk(root)  # BadInput as the full run: markers, conflicts, foreign lines
    if parts_.inbox.strip():
        raise _Decline  # absorbing (or its warning) is the full run's

    from .core.indexes import assemble_root_index, config_scopes, domain_index_files, render_trunk, root_domain_entry

    roots = dict(snap.roots)
    rendered: dict[str, str | None] = {}
    layouts = {}
    for domain in sorted(affected):
        stats = domain_stats_of(domain, leaves[domain])
        facts_of = facts_from(leaves)
        roots[domain] = root_domain_entry(stats, facts_of)
        if domain in SINGLE_FILE_DOMAINS:
            continue
        memo = snap.layout(domain)
        files = domain_index_files(stats, config, facts_of, memo)
        layouts[domain] = (memo.made, files)
        # A file rendered as the snapshot's run rendered it, whose content is the one that run left:
        # the file holds that text (or one equal as git stores it), so it is neither hashed nor read.
        rendered.update((path, OnDisk() if path not in moved and memo.texts.get(path) == text else text)
                        for path, text in files.items())
        for path in existing_index_paths(root, [domain]):
            rendered.setdefault(path, None)
    rendered[ROOT_INDEX] = assemble_root_index([roots[d] for d in sorted(roots)])
    rendered[TRUNK] = render_trunk(parts_, sorted(roots), config_scopes(config), {d: roots[d][3] for d in roots})
    clean = {path: stage[path][7:] for path in rendered
             if path not in dirty and path in stage and stage[path].startswith(_REGULAR)}
    from .projection import add_codex_projection

    generated = set(rendered)
    known: dict[str, bytes] = {}
    add_codex_projection(root, rendered, known)
    changed = sync_rendered(root, rendered, trunk_bytes, check, known, clean)
    if check:
        return changed, None
    changed_all, changed = changed, tuple(p for p in changed if p in generated)  # AGENTS.md: not the snapshot's
    for path in changed:
        text = rendered[path]
        if text is not None:
            disk[path] = git_blob_id(text.encode("utf-8"))
        elif path in stage:
            disk[path] = ""
    after = set(untracked_now) | {p for p in changed if p not in stage and rendered[p] is not None}
    after -= {p for p in changed if rendered[p] is None}
    new = Snapshot(snap.settings, now_name, disk, tuple(sorted(after)), roots, snap.files, snap.folder, leaves, now_text)
    new.layouts = layouts
    return changed_all, new


def _content(stage: Mapping[str, str], disk: Mapping[str, str], path: str) -> str | None:
    """A path's content (blob id of its work-tree bytes, "" absent) as a listing and a disk map say; None untracked."""
    found = disk.get(path)
    if found is not None:
        return found
    info = stage.get(path)
    return None if info is None else info[7:]


def domain_stats_of(domain: str, rows: Mapping[str, LeafRow]) -> DomainStats:
    """The DomainStats `indexes.domain_stats` gives for a domain's leaves, from their snapshot rows
    (the leaves' texts are empty: `facts_from` supplies their facts)."""
    from .core.indexes import DomainStats

    items = [(Leaf(domain, name, ""), row[0]) for name, row in rows.items()]
    return DomainStats(domain, tuple(sorted(items, key=lambda lt: (-lt[1], lt[0].name))))


def facts_from(leaves: Mapping[str, Mapping[str, LeafRow]]) -> FactsOf:
    """A FactsOf reading each leaf's LeafFacts from snapshot rows."""
    from .core.indexes import LeafFacts

    def facts(leaf: Leaf) -> LeafFacts:
        tokens, summary, root_summary, heading = leaves[leaf.domain][leaf.name]
        return LeafFacts(tokens, summary, root_summary, heading)

    return facts


def snapshot_after_full_run(settings: str, stage: Mapping[str, str], dirty: Iterable[str], untracked: Iterable[str],
                            base: Path, leaf_rows: Mapping[str, tuple[str, int, str, str, str]],
                            rendered: Mapping[str, str | None], changed: Iterable[str], folder: Path | None) -> Snapshot:
    """The snapshot of a full run that wrote the tree fresh (hook.py calls it when the run printed no warning).

    `leaf_rows` {leaf path: (blob id, *row)} for every indexed leaf, each row from the bytes of that blob id;
    `rendered` the run's renderings (reindex_workspace's `rendered_out`); `changed` what it wrote.
    A dirty generated file the run left alone holds its rendering; another dirty path is read.
    """
    from .core.indexes import root_domain_entry

    leaves: dict[str, dict[str, LeafRow]] = {}
    disk: dict[str, str] = {}
    for path, row in leaf_rows.items():
        location = leaf_location(path)
        assert location is not None, path
        leaves.setdefault(location[0], {})[location[1]] = row[1:]
    written = set(changed)
    for path in set(dirty) | written:
        found = leaf_rows.get(path)
        text = rendered.get(path)
        if found is not None:
            disk[path] = found[0]
        elif path in rendered and not isinstance(text, OnDisk):
            disk[path] = "" if text is None else git_blob_id(text.encode("utf-8"))
        else:
            try:
                disk[path] = git_blob_id(_read_bytes(os.path.join(os.fspath(base), path)))
            except (OSError, BonsaiError):
                disk[path] = ""
    for path, row in leaf_rows.items():
        info = stage.get(path)
        if path not in disk and (info is None or info[7:] != row[0]):
            disk[path] = row[0]  # its facts came from other bytes than the index entry's (a converted checkout)
    facts_of = facts_from(leaves)
    roots = {domain: root_domain_entry(domain_stats_of(domain, rows), facts_of) for domain, rows in leaves.items()}
    after = set(untracked) | {p for p in written if p not in stage and rendered.get(p) is not None}
    after -= {p for p in written if p in rendered and rendered[p] is None}
    text = stage_text(stage)
    return Snapshot(settings, stage_file_name(text), disk, tuple(sorted(after)), roots, {}, folder, leaves, text)
