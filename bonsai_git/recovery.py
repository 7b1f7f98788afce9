"""`bonsai-git migrate --recover`: restore, or finish, the run a crash interrupted, from its journal.

A tree-changing run (transaction.apply_changes) records its journal (journal.py) before its first
write.  Recovery compares the journal's HEAD with today's: HEAD unmoved means the run never
committed, so journal.restore puts every journaled path and index entry back; HEAD at a child
whose tree holds exactly the planned bytes means the run's commit was made whole, so it is kept
and `finish_tree` makes the working tree match it; HEAD at a child with the run's subject but
other bytes (a commit hook rewrote them), or without the run's trailers, is undone.  Whichever
HEAD it settles on, the journaled paths' index entries are made to agree with it: a kill inside
`git commit` after it moved the branch must never leave HEAD at the new tree and the index at the
old one (issue 21).  A journal of a run that never stages (absorb) is always restored.  Anything
else: someone committed since the crash, and recovery refuses rather than guess.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import gitrun, journal
from .core.errors import ConcurrentWrite, Failed, RecoveryRefused
from .gitrepo import RepoContext, git_path, open_workspace, workspace_lock
from .journal import Journal
from .tree import CheckedWriter


@dataclass(frozen=True, slots=True)
class RecoveryResult:
    """What `migrate --recover` did: `outcome` is "nothing" (no journal), "restored" (the
    pre-run state is back), "completed" (the run's commit existed whole; kept) or "undone" (the
    run's commit held other bytes than planned: HEAD moved back, paths restored)."""

    outcome: str
    paths: int
    head: str | None


def recover_workspace(workspace: Path) -> RecoveryResult:
    """Restore (or finish) the run a crash interrupted, from its journal, then remove the journal.

    HEAD still at the journal's HEAD: every journaled path and index entry is put back (the
    original MEMORY.md included).  HEAD moved to a child of it whose tree holds exactly the
    planned bytes (the run's commit was made): the commit is kept.  HEAD at a child with the
    run's subject but other bytes (a hook rewrote them): HEAD is moved back and the paths restored.
    Anything else means someone committed since the crash: RecoveryRefused (exit 3), nothing changed.
    """
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        folder = git_path(ctx, journal.JOURNAL_DIR)
        record = journal.read_journal(folder)
        if record is None:
            return RecoveryResult("nothing", 0, gitrun.head_commit(ctx.top))
        head = gitrun.head_commit(ctx.top)
        outcome, undo = _recovery_outcome(ctx, record, head)
        if outcome == "completed":
            errors = finish_tree(ctx.top, record, lambda path: journal.read_prior(folder, path),
                                 folder.with_name(journal.RESCUE_DIR))
            errors += index_to_commit(ctx.top, record, head or "")
            if errors:
                raise Failed(f"{ctx.shown(folder)}: could not finish {'; '.join(errors)}; fix that and run "
                             f"`{journal.RECOVER_COMMAND}` again (the journal is kept)")
            journal.remove_journal(folder)
            return RecoveryResult(outcome, len(record.entries), head)
        errors = journal.restore(ctx.top, record, lambda path: journal.read_prior(folder, path),
                                 planned=lambda path: journal.read_planned(folder, path), undo_commit=undo,
                                 keep_foreign=not journal.hooks_may_have_run(folder),
                                 rescue_dir=folder.with_name(journal.RESCUE_DIR))
        if errors:
            raise Failed(f"{ctx.shown(folder)}: could not restore {'; '.join(errors)}; fix that and run "
                         f"`{journal.RECOVER_COMMAND}` again (the journal is kept)")
        journal.remove_journal(folder)
        return RecoveryResult(outcome, len(record.entries), record.head)


def _recovery_outcome(ctx: RepoContext, record: Journal, head: str | None) -> tuple[str, str | None]:
    """("restored" | "completed" | "undone", the commit to undo) for the journal and today's HEAD.

    A run that never stages nor commits (absorb: `staged` False) is always restored, whatever HEAD
    holds: its journal names every file it wrote, and git's index is not its to put back."""
    if head == record.head or not record.staged:
        return "restored", None
    if head is not None and record.head is not None:
        parents, subject = gitrun.commit_parents_and_subject(ctx.top, head)
        if parents == (record.head,):
            if committed_as_planned(ctx.top, record, head):
                if _carries_trailers(ctx.top, record, head):
                    return "completed", None
                return "undone", head  # our bytes, but a message hook dropped our trailers: not our commit whole
            if record.subject is not None and subject == record.subject:
                return "undone", head
    raise RecoveryRefused(
        f"{ctx.shown(git_path(ctx, journal.JOURNAL_DIR))}: HEAD moved since the interrupted run (was "
        f"{(record.head or 'unborn')[:12]}, now {(head or 'unborn')[:12]}), so bonsai-git will not guess; the "
        f"original bytes are under {ctx.shown(git_path(ctx, journal.JOURNAL_DIR) / journal.PRIOR_DIR)}. Check the tree, "
        f"then delete that journal folder"
    )


def index_to_commit(top: Path, record: Journal, commit: str) -> list[str]:
    """Make git's index entries of the journaled paths those of `commit` (recovery's "completed" case).

    A crash inside `git commit` after it moved the branch, or an undo that reset the index but
    could not move HEAD back (issue 21), leaves HEAD at the run's commit and the index elsewhere:
    the index is put at HEAD's tree for exactly these paths (a path the commit lacks leaves the
    index), so HEAD and the index agree.  Returns what could not be done.
    """
    repo_paths = {record.repo_path(e.path) for e in record.entries}
    args = gitrun.committed_blobs_args(commit, repo_paths)
    if args is None:
        return []
    listing = gitrun.run(top, *args)
    if listing.returncode != 0:
        return [f"the index: {gitrun.first_line(listing.stderr)}"]
    committed: dict[str, str] = {}
    for entry in filter(None, listing.stdout.decode("utf-8", "surrogateescape").split("\0")):
        meta, path = entry.split("\t", 1)
        if path in repo_paths:
            mode, _type, sha = meta.split()
            committed[path] = f"{mode} {sha}"
    current = gitrun.index_entries(top, repo_paths)
    zero = "0" * (64 if record.object_format == "sha256" else 40)
    lines = [f"{committed[p]}\t{p}" if p in committed else f"0 {zero}\t{p}" for p in sorted(repo_paths)
             if current.get(p) != (f"{committed[p]} 0" if p in committed else None)]
    if not lines:
        return []
    proc = gitrun.run_retrying(top, "update-index", "-z", "--index-info", input="\0".join(lines).encode() + b"\0")
    if proc.returncode != 0:
        return [f"the index: {gitrun.first_line(proc.stderr)}"]
    gitrun.run_retrying(top, "update-index", "-q", "--refresh")
    return []


def _carries_trailers(top: Path, record: Journal, commit: str) -> bool:
    """True when `commit`'s message holds every trailer line the journaled run wrote (none recorded: True)."""
    if not record.trailers:
        return True
    from .migration_commit import missing_trailers

    message = gitrun.run(top, "log", "-1", "--format=%B", commit, check=True).stdout.decode("utf-8", "replace")
    return not missing_trailers(message, record.trailers)


def committed_as_planned(top: Path, record: Journal, commit: str) -> bool:
    """True when `commit` holds exactly the planned bytes of every journaled path."""
    repo_paths = {record.repo_path(e.path): e for e in record.entries}
    found = gitrun.committed_blobs(top, commit, repo_paths)
    return all(found.get(p) == e.planned for p, e in repo_paths.items())


def finish_tree(top: Path, record: Journal, prior: Callable[[str], bytes], rescue_dir: Path) -> list[str]:
    """Make the working tree match a run whose commit exists whole (recovery's "completed" case).

    A commit hook (a fixer that lets the commit through) may have rewritten our files in the
    working tree after git stored our bytes: each journaled path whose bytes are neither the
    committed ones nor those plus appended text (an agent's) gets the committed bytes back,
    the bytes found copied to `rescue_dir` first.  A path the run deleted and that is back with
    its prior bytes is deleted again.  Returns what could not be done; prints one warning line
    when copies were made.
    """
    errors: list[str] = []
    rescued: list[str] = []
    workspace = top / record.prefix if record.prefix else top
    writer = CheckedWriter(workspace)
    try:
        for entry in record.entries:
            shown = record.repo_path(entry.path)
            target = workspace / journal.safe_relative(entry.path)
            current = journal.current_bytes(target)
            try:
                if entry.planned is None:
                    if current is not None and entry.existed and current == prior(entry.path):
                        writer.delete(entry.path, current)
                    continue
                if current is not None and journal.blob_id(current, record.object_format) == entry.planned:
                    continue
                ours = gitrun.run(top, "cat-file", "blob", entry.planned, check=True).stdout
                if current is not None and current.startswith(ours):
                    continue  # ours plus an agent's append: kept
                if current is not None:
                    rescued.append(journal.rescue(rescue_dir, shown, current))
                target.parent.mkdir(parents=True, exist_ok=True)
                writer.write(entry.path, ours, current)
            except (OSError, ConcurrentWrite, gitrun.GitFailed) as exc:
                errors.append(f"{shown}: {exc.strerror or exc}" if isinstance(exc, OSError) else exc.message)
        writer.finish()
    except ConcurrentWrite as exc:
        errors.append(exc.message)
    finally:
        writer.close()
    gitrun.run_retrying(top, "update-index", "-q", "--refresh")  # stat data only: the entries are HEAD's already
    if rescued:
        print(f"bonsai-git: warning: {len(rescued)} file(s) held bytes a commit hook (or another writer) wrote over "
              f"the committed ones, e.g. {rescued[0]}; the committed bytes were put back and a copy of those kept "
              f"under {rescue_dir}", file=sys.stderr)
    return errors
