"""The migration transaction: preconditions, lock, write the plan, verify, one commit, or restore.

All or nothing (DESIGN.md §5): a migration is one commit or no change at all.  Any failure
after the first write (an exception, a rejecting hook, Ctrl-C) restores every touched path and
the index to what they were, removes what was created, releases the lock, and reports the cause.
Only the paths the plan lists are ever touched: no stash, no `reset --hard`, no `clean`.

Crashes (SIGKILL, power loss) are covered by a journal (journal.py) recorded durably before the
first write and removed after the last step; recovery.py (`migrate --recover`) restores the
journaled paths, or keeps the run's commit when it already exists whole.  The refusals before
the first write live in preconditions.py; git runs through gitrun.py.

`apply_changes` is the reusable core (write files durably, verify, stage, commit, restore on
failure) that every tree-changing command uses; `migrate` is the orchestration for MEMORY.md.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import gitrun, journal
from .workspace import load_config
from .core.config import Config
from .core.errors import BonsaiError, ConcurrentWrite, Failed, IndexLocked, Interrupted, Refused
from .gitrepo import (
    CONFIG_LIST, RepoContext, config_value, git_path, head_sha, open_workspace, prefetch, settle, workspace_lock,
)
from .journal import Journal, JournalEntry, crash_point
from .preconditions import (
    CONVERTING, IDENTITY_ARGS, SUBMODULE_ARGS, check_identity, check_migration, check_planned_paths,
)
from .core.plan import PINNED, MigrationPlan, SectionChoice, SourceText, piece_at, plan_migration, rule_domains
from .core.secretscan import has_secret, mask_output, secret_warnings
from .core.sections import SplitDocument, unclosed_comment_warning
from .core.tokens import estimate_tokens
from .core.layout import CHOSEN_TRAILER, TRUNK, is_migrated
from .tree import CheckedWriter, Fingerprint, Reads, sync_barrier, write_durably


@dataclass
class MigrationResult:
    """What a migrate run did: the plan (None if already migrated), the commit sha, notes, and
    `warnings`: one `path:line: kind (sha256:…)` per secret-looking value in the planned files (never the value);
    `text_warnings`: MEMORY.md text that Markdown reads otherwise than it looks (an unclosed HTML comment)."""

    plan: MigrationPlan | None
    commit: str | None = None
    already_migrated: bool = False
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    config: Config = field(default_factory=Config)
    text_warnings: list[str] = field(default_factory=list)
    taught: tuple[tuple[str, str, str | None], ...] = ()  # (leaf path, heading, .bonsai.toml line) per plan choice


def apply_changes(
    ctx: RepoContext,
    changes: Mapping[str, bytes | None],
    message: str | None,
    reads: Reads,
    *,
    verify: Callable[[], None] = lambda: None,
    no_verify: bool = False,
) -> str | None:
    """Write (bytes) or delete (None) workspace-relative paths, verify, stage them, and commit.

    `changes` maps workspace-relative posix paths to their new bytes.  `message` None means
    write and stage nothing more: the changes stay in the work tree (`--no-commit`).  `reads`:
    the run's one read of the truth (tree.Reads), the bytes the plan was made from: each path
    is replaced or deleted only while it still holds exactly those (a write since is caught,
    never overwritten), and the journal records them as the prior bytes.  Returns
    the new commit sha (or None).  Before the first write a crash journal is recorded
    (journal.py) and removed after the last step.  Refuses, writing nothing: IndexLocked (git's
    index.lock held for ~2 s), JournalPresent, Refused (a symlink or folder at a path),
    ConcurrentWrite (a large file changed since the plan read it).  On any
    failure after that, Ctrl-C included, HEAD, every path and its index entry are restored
    exactly and the error re-raised as a BonsaiError (Failed, exit 1; Interrupted, exit 130).
    The message is committed through `secretscan.mask_output`, as everything bonsai-git prints.
    """
    if not changes:
        return None
    if message is not None:  # a subject or trailer naming a heading, path or folder: the one output rule (issue 25)
        message = mask_output(message)
    folder = _journal_folder(ctx)
    _wait_for_index_lock(ctx)
    before = _prior_bytes(ctx, changes, reads)
    record = _journal_record(ctx, changes, before, message)
    try:
        copied = journal.write_journal(
            folder, record, {p: ctx.abs_path(p) if isinstance(d, Fingerprint) else d
                             for p, d in before.items() if d is not None},
            {p: d for p in changes if before[p] is not None and (d := changes[p]) is not None})
    except OSError as exc:
        raise Failed(f"{ctx.shown(folder)}: could not record the crash journal ({exc.strerror or exc}); "
                     f"nothing was written") from None
    # A large file is known by its Fingerprint (not held in memory); the journal's copy of it must
    # be the bytes the plan read, or the file changed in between: stop before the first write.
    changed = sorted(p for p, found in copied.items() if found != before[p])
    del copied
    if changed:
        journal.remove_journal(folder)
        raise ConcurrentWrite(f"{ctx.repo_path(changed[0])}: changed by another process while bonsai-git was "
                              f"running; that write was kept and nothing was written. Run the command again")
    crash_point("journal")
    commit: str | None = None
    hooks_ran = False
    writer = CheckedWriter(ctx.top)
    order = _write_order(changes)
    n = 0  # files written so far: order[n:] were never written (a file found there is another process's)
    try:
        made: set[Path] = set()
        crashing = journal.crash_points_armed()  # test only: never in real use
        for path in order:
            _apply_one(ctx, writer, path, changes[path], before[path], folders=made)
            n += 1
            if crashing:
                crash_point(f"write:{n}")
        verify()
        crash_point("verified")
        if message is not None:
            hooks_ran = True  # from here on a changed file may be a commit hook's fix of our bytes
            journal.mark_committing(folder, sync=False)  # durable with the files, below, before git commit
        durable = _BackgroundSync()  # flushes the files (and the mark) while we stage; joined before the commit
        if message is not None:
            _stage(ctx, changes, record.entries)
            crash_point("staged")
            durable.wait()  # every written file is on stable storage before HEAD can move
            commit, committed_message, listing = _commit(ctx, message, no_verify, folder, changes, record.head)
            crash_point("committed")
            _verify_committed(ctx, changes, record.entries, listing)
            _verify_trailers(ctx, committed_message, message)
        else:
            durable.wait()  # before the journal goes
        writer.finish()  # a write that landed in a file we replaced, late: carried or refused
    except BaseException as exc:
        writer.drain()  # a late append to a file we replaced lands on ours, so the restore keeps it
        rescued = _restore(ctx, folder, record, before, changes, commit, keep_foreign=not hooks_ran,
                           unwritten=set(order[n:]))
        error = _reported(exc)
        if rescued and isinstance(error, BonsaiError):
            error.message += (f"; {len(rescued)} file(s) a commit hook or another writer changed were restored, a "
                              f"copy of their bytes is under {ctx.shown(folder.with_name(journal.RESCUE_DIR))}/")
        raise error from None
    journal.remove_journal(folder)
    return commit


class _BackgroundSync:
    """`sync_barrier()` (one os.sync for the batch of writes and the journal's committing mark) on a
    thread, so its wait for the disk overlaps staging instead of adding to it (issue 15: 2-10 ms on
    a quiet machine, 100 ms+ when other processes have much unwritten data).  `wait` joins it and re-raises
    what it raised; the guarantee is unchanged: nothing moves HEAD or drops the journal before
    every written file is on stable storage (recovery restores from the journal before that point).
    """

    def __init__(self) -> None:
        import threading

        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bonsai-sync", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            sync_barrier()
        except BaseException as exc:  # noqa: BLE001 - handed to wait()
            self._error = exc

    def wait(self) -> None:
        """Block until the flush is done; raise its error, if any."""
        self._thread.join()
        if self._error is not None:
            raise self._error


def migrate(
    workspace: Path,
    *,
    dry_run: bool = False,
    no_commit: bool = False,
    force: bool = False,
    allow_detached: bool = False,
    no_verify: bool = False,
    plan_text: str | None = None,
    plan_source: str = "plan.toml",
) -> MigrationResult:
    """Migrate `<workspace>/MEMORY.md` into a memory tree as one commit (DESIGN.md §5).

    `plan_text`: an edited plan (core/planfile.py; `plan_source` names it in messages) that decides
    each section's domain and leaf instead of the classifier; every other guarantee is unchanged.
    Raises Refused (exit 3) for every failed precondition or a plan that does not fit MEMORY.md,
    with nothing written; Failed (exit 1) or Interrupted (exit 130) after a restore.  Already
    migrated returns `already_migrated`.
    """
    ctx = open_workspace(workspace)
    journal.refuse_if_journaled(ctx.top)
    with workspace_lock(ctx):
        try:
            return _migrate_locked(ctx, dry_run=dry_run, no_commit=no_commit, force=force,
                                   allow_detached=allow_detached, no_verify=no_verify, plan_text=plan_text,
                                   plan_source=plan_source)
        finally:
            settle(ctx)  # a refusal may come before a prefetched git read was asked for


def _migrate_locked(ctx: RepoContext, *, dry_run: bool, no_commit: bool, force: bool, allow_detached: bool,
                    no_verify: bool, plan_text: str | None, plan_source: str) -> MigrationResult:
    """migrate's body, under the workspace lock."""
    # The reads the preconditions make after planning start now and run while MEMORY.md is
    # checked and planned (each is ~3 ms of git start-up, issue 15); they only read.
    prefetch(ctx, *CONFIG_LIST)
    prefetch(ctx, *SUBMODULE_ARGS[:-1], ctx.repo_path(SUBMODULE_ARGS[-1]))
    if not dry_run and not no_commit:
        prefetch(ctx, *IDENTITY_ARGS)
    config = load_config(ctx.workspace)
    original, notes, source_blob = check_migration(ctx, allow_detached=allow_detached)
    if is_migrated(original):
        return MigrationResult(None, already_migrated=True, notes=notes)
    tokens = estimate_tokens(original, config.estimator)
    if tokens < config.min_tokens and not force:
        raise Refused(
            f"{ctx.repo_path(TRUNK)}: only ~{tokens:,} tokens (minimum {config.min_tokens:,}); the trunk's fixed "
            f"cost would eat the saving. Use --force to migrate anyway"
        )
    text_warnings = [w for w in [unclosed_comment_warning(ctx.repo_path(TRUNK), original)] if w]
    choices = None
    chosen: tuple[tuple[int, str, str | None], ...] = ()
    if plan_text is not None:
        from .core.planfile import read_plan
        from .core.sections import split_sections

        doc = split_sections(original)
        edited = read_plan(plan_text, doc.sections, config, plan_source)
        config, choices = edited.config, edited.choices
        chosen = _chosen(doc, config, choices)
        del doc
    # One scan of the original rules out the usual case (no secret anywhere), made before planning:
    # its lowercased copy of the whole memory (1x the input) then never sits on top of the plan's
    # memory, which was the migration's peak (issue 15).
    suspect = has_secret(original, config.secret_allow)
    # From here on the original is known by its digest: planning lets go of the text once it is cut
    # into sections (their texts are a copy), the old MEMORY.md bytes are the crash journal's copy,
    # and holding the text besides was 1x the input on top of planning's peak (issue 15).
    source = _Source.of(original)
    # The one read of MEMORY.md (issue 21): the plan is made from it, and the swap compares the file
    # with it (its bytes, or a large file's Fingerprint); every other planned path was proved absent.
    reads = Reads(ctx.workspace, others_absent=True)
    reads.note(TRUNK, source.fingerprint if source.fingerprint.length >= LARGE_PRIOR else original.encode("utf-8"))
    handed = SourceText(original)
    del original
    plan = plan_migration(handed, config, choices)
    paths = {placed.line: placed.path for placed in plan.placed}
    taught = tuple((paths[line], heading, hint) for line, heading, hint in chosen)
    message = commit_message(plan, config, source_blob, tuple(path for path, _h, _t in taught))
    warnings = _secret_warnings(ctx, plan, config.secret_allow) if suspect else []
    check_planned_paths(ctx, plan)  # a dry run refuses what the real run would refuse
    if dry_run:
        text_warnings += _link_warnings(plan)
        return MigrationResult(plan, dry_run=True, notes=notes, message=message, warnings=warnings, config=config,
                               text_warnings=text_warnings, taught=taught)
    if not no_commit:  # --no-commit makes no commit, so needs no identity
        check_identity(ctx)
    sha = apply_changes(
        ctx, _EncodedFiles(plan.files), None if no_commit else message, reads,
        verify=lambda: _verify_on_disk(ctx, source, plan), no_verify=no_verify,
    )
    return MigrationResult(plan, commit=sha, notes=notes, message=message, warnings=warnings, config=config,
                           text_warnings=text_warnings, taught=taught)


def _link_warnings(plan: MigrationPlan) -> list[str]:
    """The links the planned split would break (core/links.py), one `file:line: ...` line each."""
    from .core.links import split_link_warnings

    files = plan.file_map()
    pieces = [(p.path, p.offset, files[p.path][p.offset : p.offset + p.length]) for p in plan.placements]
    return list(split_link_warnings(pieces, files))


def _chosen(doc: SplitDocument, config: Config, choices: Sequence[SectionChoice]
            ) -> tuple[tuple[int, str, str | None], ...]:
    """(heading line, heading, the `.bonsai.toml` line that would have placed it, or None) for every
    section of `doc` (MEMORY.md split) an edited plan places in another domain than the rules would
    (issue 23).  The rules' domains alone (`rule_domains`), not a second whole plan: rendering and
    verifying it cost as much again as the migration's own plan."""
    from .core.classify import body_of
    from .core.teach import teaching_line

    ruled = rule_domains(doc, config)
    return tuple((s.line, s.heading, teaching_line(s.heading, body_of(s.text), c.domain, config))
                 for s, c, rule in zip(doc.sections, choices, ruled) if c.domain not in (PINNED, rule))


def commit_message(plan: MigrationPlan, config: Config, source_blob: str, chosen: Sequence[str] = ()) -> str:
    """The migration commit message: subject, one line per domain, then the Bonsai-* trailers; `chosen`
    names the leaves an edited plan placed otherwise than the rules (`Bonsai-Chosen`: `regroup --all`
    leaves them where they are, as it does a `move`)."""
    subject = config.subject.format(
        domains=len(plan.domains), before=f"{plan.boot_tokens_before:,}", after=f"{plan.boot_tokens_after:,}",
        sections=plan.sections,
    )
    body = [f"{d.name}: {len(d.leaves)} {'leaf' if len(d.leaves) == 1 else 'leaves'}, ~{d.tokens:,} tokens"
            for d in plan.domains]
    if plan.pinned_sections:
        body.append(f"pinned in the trunk: {plan.pinned_sections} section{'' if plan.pinned_sections == 1 else 's'}")
    trailers = [
        "Bonsai-Migration: 1",
        f"Bonsai-Source: {TRUNK} {source_blob}",
        f"Bonsai-Sections: {plan.sections}",
        f"Bonsai-Boot-Tokens: {plan.boot_tokens_before} -> {plan.boot_tokens_after}",
        *(f"{CHOSEN_TRAILER}: {path}" for path in chosen),
    ]
    return "\n".join([subject, "", *body, "", *trailers]) + "\n"


def _secret_warnings(ctx: RepoContext, plan: MigrationPlan, allow: Collection[str]) -> list[str]:
    """`path:line: kind (sha256:…)` for each secret-looking value the reports count (not in `allow`,
    the `[secrets] allow` fingerprints, nor on a line marked allowed), named where the plan puts it
    (called only when `has_secret` found one in the original)."""
    return [w for path, text in plan.files for w in secret_warnings(ctx.repo_path(path), text, allow)]


class _EncodedFiles(Mapping[str, "bytes | None"]):
    """The plan's files as apply_changes' `changes` ({path: UTF-8 bytes}), each encoded when it is asked for.

    Encoding every file up front held a second copy of the whole tree through the run (1.5x the
    input at 100,000 sections, issue 15); each pass (write, journal, staging) now holds one
    file's bytes at a time, for a few ms of encoding per pass.
    """

    def __init__(self, files: tuple[tuple[str, str], ...]) -> None:
        self._texts = _FileTexts(files)

    def __getitem__(self, path: str) -> bytes:
        return self._texts[path].encode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


class _FileTexts(Mapping[str, str]):
    """The plan's files ({path: text}) looked up in its path-sorted tuple by bisection: a dict of
    100,000 paths beside the plan was ~0.1x the input, twice (staging's view, verification's)."""

    def __init__(self, files: tuple[tuple[str, str], ...]) -> None:
        self._files = files
        self._next = 0  # the run's passes ask in path order mostly: try the entry after the last one first

    def __getitem__(self, path: str) -> str:
        files, i = self._files, self._next
        if not (i < len(files) and files[i][0] == path):
            i = bisect.bisect_left(files, (path,))
            if not (i < len(files) and files[i][0] == path):
                raise KeyError(path)
        self._next = i + 1
        return files[i][1]

    def __iter__(self) -> Iterator[str]:
        return (path for path, _text in self._files)

    def __len__(self) -> int:
        return len(self._files)


@dataclass(frozen=True, slots=True)
class _Source:
    """The original MEMORY.md text known by its length (chars) and SHA-256 (of its UTF-8 bytes), and
    those bytes' Fingerprint (strict UTF-8 decodes and encodes back to the very bytes read)."""

    length: int
    digest: bytes
    fingerprint: Fingerprint

    @classmethod
    def of(cls, text: str) -> _Source:
        digest, size = hashlib.sha256(), 0
        for start in range(0, len(text), 1 << 20):  # a slice at a time: no second copy of the whole text
            chunk = text[start : start + (1 << 20)].encode("utf-8")
            digest.update(chunk)
            size += len(chunk)
        return cls(len(text), digest.digest(), Fingerprint(size, digest.digest()))


def _verify_on_disk(ctx: RepoContext, source: _Source, plan: MigrationPlan) -> None:
    """Every planned file reads back as written, and the pieces the placements name join to the original.

    The second half is plan.verify_placements against `source`'s digest instead of the text
    (planning checked the text itself): the pieces are hashed in document order, one at a time.
    """
    for path, text in plan.files:
        data = ctx.abs_path(path).read_bytes()
        if data != text.encode("utf-8"):
            raise ConcurrentWrite(f"{ctx.repo_path(path)}: read back differently from what was written (another "
                                  f"process wrote to it while bonsai-git was running?); any such write was kept and "
                                  f"the run was undone. Run the command again")
    files = _FileTexts(plan.files)  # the same bytes: the plan's own str, not a second decoded copy of the tree
    digest, length = hashlib.sha256(), 0
    for p in plan.placements:
        piece = piece_at(files, p.path, p.offset, p.length)
        if piece is None:
            raise Failed(f"{p.path}: lost the section {p.heading or '(preamble)'!r}; nothing was committed")
        digest.update(piece.encode("utf-8"))
        length += len(piece)
    if length != source.length or digest.digest() != source.digest:
        raise Failed(f"{TRUNK}: the planned tree does not reproduce the original bytes; nothing was committed")


def _verify_committed(ctx: RepoContext, changes: Mapping[str, bytes | None], entries: tuple[JournalEntry, ...],
                      listing: gitrun.Started | None = None) -> None:
    """The commit must hold exactly our bytes (a pre-commit hook may have rewritten them).

    One `git ls-tree` for all paths (`listing`: started beside the HEAD read), read record by
    record and compared with the blob ids the journal recorded for our bytes (`entries`: hashed
    once, when the journal was written); a mismatch is checked again through git's filters
    (core.autocrlf may store LF for our CRLF), in path order.
    """
    expected = {ctx.repo_path(e.path): e for e in entries}
    args = gitrun.committed_blobs_args("HEAD", expected)
    if args is None:
        return
    if listing is None:
        listing = gitrun.start(ctx.top, *args)
    differ: list[tuple[str, str | None]] = []
    present = 0  # how many of the written paths the commit holds (all of them, unless a hook removed one)
    for record in listing.records():
        meta, _, raw = record.partition(b"\t")
        repo_path = raw.decode("utf-8", "surrogateescape")
        entry = expected.get(repo_path)
        if entry is not None:
            got = meta.split()[2].decode()
            present += entry.planned is not None
            if got != entry.planned:
                differ.append((repo_path, got))
    if present < sum(e.planned is not None for e in entries):  # a written path is missing: which (rare)
        here = {r.partition(b"\t")[2].decode("utf-8", "surrogateescape") for r in gitrun.start(ctx.top, *args).records()}
        differ += [(p, None) for p, e in expected.items() if e.planned is not None and p not in here]
    for repo_path, found in sorted(differ, key=lambda d: d[0]):
        data = changes[expected[repo_path].path]
        if not (data is not None and found == _filtered_blob_id(ctx, repo_path, data)):
            raise Failed(f"{repo_path}: a commit hook changed it; the commit was undone and the tree restored")


def _verify_trailers(ctx: RepoContext, committed: str, message: str) -> None:
    """The commit's message (`committed`) must still carry our trailers (the last paragraph of
    `message`), each on a line of its own: rollback, flatten and regroup find our commits by them.  A commit-msg
    (or prepare-commit-msg) hook that normalises messages may drop them: Failed (exit 1) naming
    that hook, and the caller undoes the commit like any other rejection (issue 21)."""
    from .migration_commit import missing_trailers, trailer_lines

    lost = missing_trailers(committed, trailer_lines(message))
    if lost:
        raise Failed(f"git commit dropped the trailer {lost[0].split(':', 1)[0]}: (a message hook rewrote the "
                     f"message: {_message_hooks(ctx)}); the commit was undone and the tree restored. Make that hook "
                     f"keep lines that start with `Bonsai-`, then run the command again")


def _message_hooks(ctx: RepoContext) -> str:
    """The hooks that can rewrite a commit message, as paths shown from the workspace (or a hint when none is found)."""
    from .githook import hooks_dir

    try:
        folder = hooks_dir(ctx.top, shared_ok=True)
    except BonsaiError:
        return "the commit-msg or prepare-commit-msg hook"
    found = [ctx.shown(folder / name) for name in ("prepare-commit-msg", "commit-msg")
             if os.access(folder / name, os.X_OK) and (folder / name).is_file()]
    return " or ".join(found) if found else "the commit-msg or prepare-commit-msg hook"


def _filtered_blob_id(ctx: RepoContext, repo_path: str, data: bytes) -> str:
    """The blob id git makes of `data` at `repo_path` after its filters (core.autocrlf, eol attributes)."""
    return gitrun.output(ctx.top, "hash-object", f"--path={repo_path}", "--stdin", input=data).strip()


# --- apply_changes' steps ----------------------------------------------------------------------

def _journal_folder(ctx: RepoContext) -> Path:
    return git_path(ctx, journal.JOURNAL_DIR)


def _wait_for_index_lock(ctx: RepoContext) -> None:
    """Refuse (IndexLocked, exit 3) when git's index.lock stays held for ~2 s; never delete it."""
    lock = gitrun.wait_for_index_lock(ctx.top, lock=git_path(ctx, "index.lock"))
    if lock is not None:
        raise IndexLocked(
            f"{ctx.shown(lock)}: another git process holds the index; wait for it and retry (if no git "
            f"process is running, a crashed one left this file: check, then remove it yourself)"
        )


# Files this large are not held in memory before they are replaced: the plan keeps their Fingerprint
# (tree.Reads.note) and the journal copies them (a 50 MB MEMORY.md was 1x the input on top of the plan, issue 15).
LARGE_PRIOR = 1 << 20


def _prior_bytes(ctx: RepoContext, changes: Mapping[str, bytes | None],
                 reads: Reads) -> dict[str, bytes | Fingerprint | None]:
    """{path: what the plan read there (`reads.prior`): bytes, a large file's Fingerprint, or None:
    absent}, in path order; refuses (Refused) a symlink or folder now at a path the plan read as a file."""
    before: dict[str, bytes | Fingerprint | None] = {}
    for path in sorted(changes):
        prior = before[path] = reads.prior(path)
        if prior is None:
            continue
        try:
            info = os.lstat(ctx.abs_path(path))
        except (FileNotFoundError, NotADirectoryError):
            continue  # deleted since: the checked writer refuses it (ConcurrentWrite)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{ctx.repo_path(path)}: is a symlink or a folder; bonsai-git replaces regular files only")
    return before


def _journal_record(ctx: RepoContext, changes: Mapping[str, bytes | None], before: Mapping[str, object],
                    message: str | None) -> Journal:
    algo = ctx.object_format
    paths = sorted(changes)
    head_read = gitrun.start(ctx.top, *gitrun.HEAD_COMMIT)  # runs while ls-files does
    try:
        index = gitrun.index_entries(ctx.top, map(ctx.repo_path, paths))
    finally:
        head = gitrun.head_of(head_read.result())
    # One pass, each file's bytes asked for once (`changes` may encode them on demand), and no
    # {path: ...} dicts of every path beside the entries (~0.2x the input at 100,000 leaves, issue 15).
    folders: set[str] = set()
    listed = []
    for path in paths:
        data = changes[path]
        if data is not None:
            folders.add(path.rpartition("/")[0])
        listed.append(JournalEntry(path, before[path] is not None, index.get(ctx.repo_path(path)),
                                   None if data is None else journal.blob_id(data, algo)))
        del data
    entries = tuple(listed)
    del listed
    created: set[str] = set()
    for folder in folders:
        while folder and folder not in created and not ctx.abs_path(folder).exists():
            created.add(folder)
            folder = folder.rpartition("/")[0]
    subject = None if message is None else message.split("\n", 1)[0]
    from .migration_commit import trailer_lines

    return Journal(head, ctx.prefix, subject, algo, entries,
                   tuple(sorted(created, key=lambda d: (d.count("/"), d))),
                   () if message is None else trailer_lines(message))


def _write_order(changes: Mapping[str, bytes | None]) -> list[str]:
    """New and changed files first, then MEMORY.md, then deletions (each group sorted).

    An agent may read the workspace at any moment: MEMORY.md changes only once every file it
    points to is there, and nothing is deleted before its new copy exists.
    """
    return sorted(changes, key=lambda p: (changes[p] is None, p == TRUNK, p))


def _apply_one(ctx: RepoContext, writer: CheckedWriter, path: str, data: bytes | None,
               prior: bytes | Fingerprint | None, *, folders: set[Path]) -> None:
    """Delete `path` (data None) or write it, only while it still holds `prior` (None: absent);
    `folders`: parent folders already made in this run.

    An existing file is replaced through `writer` (tree.CheckedWriter: compared right before
    the rename, verified after it), so another process's write to it is never overwritten.  A
    new file is created in place with O_EXCL (tree.write_durably's `exclusive`: ~5x cheaper than
    a temp file + rename for 10,000 new leaves; the crash journal lists it, so a half-written
    one is deleted by recovery); O_EXCL refuses a file someone else created meanwhile.
    """
    repo_path = ctx.prefix + path  # ctx.repo_path / abs_path, spelled out: the per-file loop calls only the writer
    if data is None:
        if prior is not None:
            writer.delete(repo_path, prior)
        return
    target = ctx.workspace / path
    if target.parent not in folders:
        target.parent.mkdir(parents=True, exist_ok=True)
        folders.add(target.parent)
    if prior is not None:
        writer.write(repo_path, data, prior, sync=False)  # one sync_barrier() after the batch
        return
    try:
        write_durably(target, data, sync=False, exclusive=True)
    except FileExistsError:
        raise ConcurrentWrite(f"{repo_path}: was created by another process while bonsai-git was running; it was "
                              f"kept and the run was undone. Run the command again") from None


def _stage(ctx: RepoContext, changes: Mapping[str, bytes | None], entries: tuple[JournalEntry, ...]) -> None:
    """Stage exactly the changed paths (deleted ones leave the index), as `git add` would.

    When no git filter or line-ending conversion applies to them (the usual case), the blobs are
    the bytes this run wrote, not what is on disk now: they go into one pack through
    `git fast-import` and the index gets their ids (the journal's) through `update-index
    --index-info`.  So an agent's append that lands between our write and this step stays an
    unstaged change beside the commit instead of being committed, and then mistaken for a commit
    hook's edit (which restores the whole run).  A 10,000-leaf migration also writes one pack
    instead of 10,000 loose objects (0.5 s instead of 1-3.5 s, no `gc --auto` storm).  When git
    converts, `git update-index --add --remove --stdin` lets git apply its filters as `git add`
    would.  `entries`: the journal's, one per changed path in path order: each path's index entry
    before the run ("mode sha stage", None: untracked) and the blob id of our bytes (None: deleted).
    Both streams (the blobs, the index lines) are produced path by path as git reads them.
    """
    repo_paths = {ctx.repo_path(p): p for p in sorted(changes)}
    if _git_converts(ctx, list(repo_paths)):
        listed = "\0".join(repo_paths) + "\0"
        _stage_step(ctx, "update-index", "--add", "--remove", "-z", "--stdin",
                    input=listed.encode("utf-8", "surrogateescape"))
        return
    zero = "0" * (64 if ctx.object_format == "sha256" else 40)

    def blobs() -> Iterator[bytes]:
        # Fed to git chunk by chunk, each file encoded just before it goes: joining the whole
        # stream into one buffer was the migration's peak memory (2x the tree; issue 15).
        for entry in entries:
            data = changes[entry.path]
            if data is not None:
                yield b"blob\ndata %d\n" % len(data)
                yield data
                yield b"\n"
        yield b"done\n"

    def index_lines() -> Iterator[bytes]:
        # The ids the journal hashed from these very bytes.  Keep a tracked file's mode; a new one is a
        # plain file (reading the executable bit from disk would commit every leaf as 100755 where
        # core.fileMode=false: FAT, NTFS, WSL).
        for entry in entries:
            line = (f"0 {zero}" if entry.planned is None else
                    f"{(entry.index or '100644').split()[0]} {entry.planned}") + f"\t{ctx.repo_path(entry.path)}\0"
            yield line.encode("utf-8", "surrogateescape")

    if any(entry.planned is not None for entry in entries):
        # unpackLimit=0: the pack stays a pack however few blobs it holds.  By default fast-import
        # explodes fewer than 100 objects into loose files with a second process (unpack-objects).
        proc = gitrun.run_streaming(ctx.top, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--done",
                                    chunks=blobs())
        if proc.returncode != 0:
            raise Failed(f"git add failed: {_one_line(proc.stderr.decode('utf-8', 'replace'))}; the tree was restored")
    # No `update-index --refresh` for the entries' stat data: the `git commit` that always follows
    # refreshes the index itself (an as-is commit does, before its hooks run), one process fewer.
    proc = gitrun.run_streaming_retrying(ctx.top, "update-index", "-z", "--index-info", chunks=index_lines)
    if proc.returncode != 0:
        raise Failed(f"git add failed: {_one_line(proc.stderr.decode('utf-8', 'replace'))}; the tree was restored")


def _stage_step(ctx: RepoContext, *args: str, input: bytes | None = None) -> None:
    proc = gitrun.run_retrying(ctx.top, *args, input=input)
    if proc.returncode != 0:
        raise Failed(f"git add failed: {_one_line(proc.stderr.decode('utf-8', 'replace'))}; the tree was restored")


def _git_converts(ctx: RepoContext, repo_paths: list[str]) -> bool:
    """True when git would not store some path's bytes as they are: core.autocrlf, or a text, eol,
    crlf, filter, ident or working-tree-encoding attribute (git check-attr, one call, or none when the
    preconditions' answer for these paths is on `ctx`)."""
    autocrlf = (config_value(ctx, "core.autocrlf") or "").strip().lower()
    if autocrlf in ("true", "input", "yes", "on", "1"):
        return True
    if ctx.converts and ctx.converts[0][0].issuperset(repo_paths):  # the preconditions asked git already
        return ctx.converts[0][1]
    names = {a.encode() for a in CONVERTING}
    # --all lists only the attributes a path has: asking for the six by name printed six lines per
    # path (100,000 leaves: ~40 MB of output, split into millions of strings, the migration's peak).
    proc = gitrun.run(ctx.top, "check-attr", "-z", "--stdin", "--all",
                      input="\0".join(repo_paths).encode("utf-8", "surrogateescape"))
    fields = proc.stdout.split(b"\0")
    pairs = zip(fields[1::3], fields[2::3])
    return proc.returncode != 0 or any(a in names and v not in (b"unspecified", b"unset") for a, v in pairs)


def _commit(ctx: RepoContext, message: str, no_verify: bool, folder: Path,
            changes: Mapping[str, bytes | None], head: str | None) -> tuple[str, str, gitrun.Started | None]:
    """Run the real `git commit`; return the new HEAD, its message as committed (after the message
    hooks) and `_verify_committed`'s `git ls-tree HEAD` of the changed paths, started beside the
    HEAD read (one `git log` gives the sha and the message).

    The commit's hooks see OWN_COMMIT_ENV naming our journal, so our own pre-commit hook runs
    instead of refusing because of the journal this very run holds.
    """
    args = ["commit", "-q", "--file=-"] + (["--no-verify"] if no_verify else [])
    own = {journal.OWN_COMMIT_ENV: str(folder.resolve())}
    proc = gitrun.run_retrying(ctx.top, *args, input=message.encode(), extra_env=own)
    if proc.returncode != 0:
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip()
        if gitrun.head_commit(ctx.top) != head:  # killed after it moved the branch (`head`: HEAD before the run)
            raise Failed(f"git commit stopped after it had moved HEAD (exit {proc.returncode}): {_one_line(out)}")
        raise Failed(f"git commit failed (a hook or signing rejected it); nothing was committed: {_one_line(out)}")
    listed = gitrun.committed_blobs_args("HEAD", (ctx.repo_path(p) for p in changes))
    listing = gitrun.start(ctx.top, *listed) if listed is not None else None
    try:
        sha, _, committed = gitrun.output(ctx.top, "log", "-1", "--format=%H%n%B", "HEAD").partition("\n")
        return sha, committed, listing
    except BaseException:
        if listing is not None:
            listing.result()
        raise


def _restore(ctx: RepoContext, folder: Path, record: Journal, before: Mapping[str, bytes | Fingerprint | None],
             changes: Mapping[str, bytes | None], commit: str | None, *, keep_foreign: bool = True,
             unwritten: Collection[str] = ()) -> list[str]:
    """Put back HEAD, the index entries and the bytes of exactly the journaled paths; drop the journal.

    `unwritten`: the paths the run never got to write (a file found there is another process's:
    kept in place).  If something could not be put back, the journal stays (so `migrate --recover`
    can finish the job) and a warning says what; the original error is never hidden.  Returns the paths of the
    copies journal.restore made of bytes it could not leave in place (under RESCUE_DIR).
    """
    rescued: list[str] = []
    try:
        head = head_sha(ctx)
        undo = None
        if head is not None and head != record.head:  # our commit was made (maybe as Ctrl-C arrived)
            parents, subject = gitrun.commit_parents_and_subject(ctx.top, head)
            if head == commit or (parents == (record.head,) and subject == record.subject):
                undo = head
        errors = journal.restore(ctx.top, record, lambda path: _prior(folder, before, path), planned=changes.get,
                                 undo_commit=undo, keep_foreign=keep_foreign,
                                 rescue_dir=folder.with_name(journal.RESCUE_DIR), rescued=rescued, unwritten=unwritten)
    except Exception as exc:  # noqa: BLE001 - reported; the caller re-raises the original error
        errors = [str(exc) or type(exc).__name__]
    if errors:
        print(f"bonsai-git: warning: restore incomplete: {'; '.join(errors)}; run `{journal.RECOVER_COMMAND}`",
              file=sys.stderr)
        return rescued
    journal.remove_journal(folder)
    return rescued


def _prior(folder: Path, before: Mapping[str, bytes | Fingerprint | None], path: str) -> bytes:
    """The bytes `path` held before the run: held, or read back from the journal's copy (a large file)."""
    data = before[path]
    return journal.read_prior(folder, path) if isinstance(data, Fingerprint) else data or b""


def _reported(exc: BaseException) -> BaseException:
    """The BonsaiError to report for a failure after the restore (a bug's exception stays as it is)."""
    if isinstance(exc, KeyboardInterrupt):
        return Interrupted("interrupted; the tree, the index and MEMORY.md were restored")
    if isinstance(exc, gitrun.GitFailed):
        return Failed(f"{exc.message}; the tree was restored")
    if isinstance(exc, BonsaiError):
        return exc
    if isinstance(exc, OSError):
        return Failed(f"{exc.filename or 'write'}: {exc.strerror or exc}; the tree was restored")
    return exc


def _one_line(text: str) -> str:
    return " | ".join(ln.strip() for ln in text.splitlines() if ln.strip())[:400] or "no output"
