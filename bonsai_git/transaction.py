"""The migration transaction: preconditions, lock, write the plan, verify, one commit, or restore.

All or nothing (DESIGN.md §5): a migration is one commit or no change at all.  Any failure
after the first write (an exception, a rejecting hook, Ctrl-C) restores every touched path and
the index to what they were, removes what was created, releases the lock, and reports the cause.
Only the paths the plan lists are ever touched: no stash, no `reset --hard`, no `clean`.

`apply_changes` is the reusable core (write files durably, verify, stage, commit, restore on
failure) that every tree-changing command uses; `migrate` is the orchestration for MEMORY.md.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .config import Config, load_config
from .errors import BadInput, BonsaiError, Failed, Interrupted, Refused
from .gitrepo import (
    GitFailed, RepoContext, check_identity, head_sha, ignored_paths, in_progress_operation, is_tracked,
    open_workspace, run_git, staged_paths, status_paths, workspace_lock,
)
from .plan import MigrationPlan, plan_migration, verify_placements
from .tokens import estimate_tokens
from .tree import DOMAINS_DIR, ROOT_INDEX, TRUNK, decode_utf8, is_migrated, sync_barrier, write_durably

PLANNED_AREAS = (DOMAINS_DIR, ROOT_INDEX, "memory/dates.md")


@dataclass
class MigrationResult:
    """What a migrate run did: the plan (None if already migrated), the commit sha, notes."""

    plan: MigrationPlan | None
    commit: str | None = None
    already_migrated: bool = False
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)
    message: str = ""


def apply_changes(
    ctx: RepoContext,
    changes: Mapping[str, bytes | None],
    message: str | None,
    *,
    verify: Callable[[], None] = lambda: None,
    no_verify: bool = False,
) -> str | None:
    """Write (bytes) or delete (None) workspace-relative paths, verify, stage them, and commit.

    `message` None means write and stage nothing more: the changes stay in the work tree
    (`--no-commit`).  Returns the new commit sha (or None).  On any failure, Ctrl-C included,
    every path and its index entry is restored exactly and the error re-raised as a
    BonsaiError (Failed, exit 1; Interrupted, exit 130).
    """
    old_head = head_sha(ctx)
    before = {p: _read_or_none(ctx.abs_path(p)) for p in changes}
    created_dirs: list[Path] = []
    staged = False
    try:
        for path in sorted(changes):
            _apply_one(ctx.abs_path(path), changes[path], created_dirs)
        sync_barrier()
        verify()
        if message is None:
            return None
        repo_paths = [ctx.repo_path(p) for p in sorted(changes)]
        staged = True
        run_git(ctx.top, "add", "-A", "--", *repo_paths)
        args = ["commit", "-q", "--file=-"] + (["--no-verify"] if no_verify else [])
        commit = run_git(ctx.top, *args, input=message.encode(), check=False)
        if commit.returncode != 0:
            out = (commit.stdout + commit.stderr).decode("utf-8", "replace").strip()
            raise Failed(f"git commit failed (a hook or signing rejected it); nothing was committed: {_one_line(out)}")
        new_head = head_sha(ctx)
        _verify_committed(ctx, changes)
        return new_head
    except BaseException as exc:
        _restore(ctx, before, created_dirs, old_head, staged)
        if isinstance(exc, KeyboardInterrupt):
            raise Interrupted("interrupted; the tree, the index and MEMORY.md were restored") from None
        if isinstance(exc, BonsaiError):
            if isinstance(exc, GitFailed):
                raise Failed(f"{exc.message}; the tree was restored") from None
            raise
        if isinstance(exc, OSError):
            raise Failed(f"{exc.filename or 'write'}: {exc.strerror or exc}; the tree was restored") from None
        raise


def migrate(
    workspace: Path,
    *,
    dry_run: bool = False,
    no_commit: bool = False,
    force: bool = False,
    allow_detached: bool = False,
    no_verify: bool = False,
) -> MigrationResult:
    """Migrate `<workspace>/MEMORY.md` into a memory tree as one commit (DESIGN.md §5).

    Raises Refused (exit 3) for every failed precondition, with nothing written; Failed (exit 1)
    or Interrupted (exit 130) after a restore.  Already migrated returns `already_migrated`.
    """
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        config = load_config(ctx.workspace)
        original, notes = _check_preconditions(ctx, allow_detached=allow_detached)
        if is_migrated(original):
            return MigrationResult(None, already_migrated=True, notes=notes)
        tokens = estimate_tokens(original, config.estimator)
        if tokens < config.min_tokens and not force:
            raise Refused(
                f"{ctx.repo_path(TRUNK)}: only ~{tokens:,} tokens (minimum {config.min_tokens:,}); the trunk's fixed "
                f"cost would eat the saving. Use --force to migrate anyway"
            )
        plan = plan_migration(original, config)
        message = commit_message(plan, config, ctx.repo.head.commit.tree[ctx.repo_path(TRUNK)].hexsha)
        if dry_run:
            return MigrationResult(plan, dry_run=True, notes=notes, message=message)
        _check_planned_paths(ctx, plan)
        check_identity(ctx)
        changes = {path: text.encode("utf-8") for path, text in plan.files}
        sha = apply_changes(
            ctx, changes, None if no_commit else message,
            verify=lambda: _verify_on_disk(ctx, original, plan), no_verify=no_verify,
        )
        return MigrationResult(plan, commit=sha, notes=notes, message=message)


def commit_message(plan: MigrationPlan, config: Config, source_blob: str) -> str:
    """The migration commit message: subject, one line per domain, then the Bonsai-* trailers."""
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
    ]
    return "\n".join([subject, "", *body, "", *trailers]) + "\n"


def _check_preconditions(ctx: RepoContext, *, allow_detached: bool) -> tuple[str, list[str]]:
    """Every refusal of DESIGN.md §5 step 2; returns MEMORY.md's text and notes."""
    trunk = ctx.repo_path(TRUNK)
    if head_sha(ctx) is None:
        raise Refused("HEAD has no commit yet; commit MEMORY.md first (git add MEMORY.md && git commit)")
    operation = in_progress_operation(ctx)  # before "detached": a rebase detaches HEAD
    if operation:
        raise Refused(f"a {operation} is in progress; finish or abort it first")
    if ctx.repo.head.is_detached and not allow_detached:
        raise Refused("HEAD is detached; check out a branch first (or pass --allow-detached)")
    staged = staged_paths(ctx)
    if staged:
        raise Refused(f"{staged[0]}: staged changes ({len(staged)} path(s)); commit or unstage them first")
    path = ctx.abs_path(TRUNK)
    if path.is_symlink():
        raise BadInput(f"{trunk}: is a symlink; bonsai-git migrates a regular file only")
    if not path.exists():
        raise BadInput(f"{trunk}: not found; run bonsai-git in the workspace that holds MEMORY.md (or use -C DIR)")
    if not path.is_file():
        raise BadInput(f"{trunk}: not a regular file")
    if not is_tracked(ctx, trunk):
        raise BadInput(f"{trunk}: not tracked by git; commit it first (git add MEMORY.md && git commit)")
    if status_paths(ctx, trunk):
        raise BadInput(f"{trunk}: has uncommitted changes; commit or discard them first")
    original = decode_utf8(path.read_bytes(), trunk)
    others = [p for _xy, p in status_paths(ctx)]
    notes = [f"{len(others)} unrelated uncommitted path(s) left alone, e.g. {others[0]}"] if others else []
    return original, notes


def _check_planned_paths(ctx: RepoContext, plan: MigrationPlan) -> None:
    """Refuse if anything already sits where the plan writes, or if .gitignore would hide it."""
    for area in PLANNED_AREAS:
        target = ctx.abs_path(area)
        if target.is_symlink() or target.is_file() or (target.is_dir() and any(target.iterdir())):
            raise Refused(f"{ctx.repo_path(area)}: already exists; bonsai-git writes there. Move it away first")
    for parent in ("memory", DOMAINS_DIR):
        target = ctx.abs_path(parent)
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            raise Refused(f"{ctx.repo_path(parent)}: is not a plain folder; bonsai-git writes its leaves there")
    ignored = ignored_paths(ctx, [ctx.repo_path(p) for p, _ in plan.files if p != TRUNK])
    if ignored:
        raise Refused(f"{ignored[0]}: ignored by .gitignore; un-ignore memory/ so the tree can be committed")


def _verify_on_disk(ctx: RepoContext, original: str, plan: MigrationPlan) -> None:
    files = {}
    for path, text in plan.files:
        data = ctx.abs_path(path).read_bytes()
        if data != text.encode("utf-8"):
            raise Failed(f"{ctx.repo_path(path)}: read back differently from what was written; the tree was restored")
        files[path] = data.decode("utf-8")
    verify_placements(original, files, plan.placements)


def _verify_committed(ctx: RepoContext, changes: Mapping[str, bytes | None]) -> None:
    """The commit must hold exactly our bytes (a pre-commit hook may have rewritten them).

    One `git ls-tree` for all paths, compared with blob ids hashed here (git's object format).
    """
    algo = run_git(ctx.top, "rev-parse", "--show-object-format").stdout.decode().strip() or "sha1"
    repo_paths = {ctx.repo_path(p): p for p in changes}
    out = run_git(ctx.top, "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", *repo_paths).stdout.decode("utf-8")
    committed = {}
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        committed[path] = meta.split()[2]
    for repo_path, path in sorted(repo_paths.items()):
        data = changes[path]
        expected = None if data is None else hashlib.new(algo, b"blob %d\0" % len(data) + data).hexdigest()
        if committed.get(repo_path) != expected:
            raise Failed(f"{repo_path}: a commit hook changed it; the commit was undone and the tree restored")


def _apply_one(path: Path, data: bytes | None, created_dirs: list[Path]) -> None:
    if data is None:
        if path.exists() or path.is_symlink():
            path.unlink()
        return
    missing = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for d in reversed(missing):
        d.mkdir()
        created_dirs.append(d)
    write_durably(path, data, sync=False)  # one sync_barrier() after the batch


def _restore(ctx: RepoContext, before: Mapping[str, bytes | None], created_dirs: Sequence[Path],
             old_head: str | None, staged: bool) -> None:
    """Put back HEAD, the index entries and the bytes of exactly the touched paths."""
    errors: list[str] = []
    if old_head is not None and head_sha(ctx) != old_head:
        _try(errors, lambda: run_git(ctx.top, "update-ref", "-m", "bonsai-git: undo failed run", "HEAD", old_head))
    if staged:
        repo_paths = [ctx.repo_path(p) for p in sorted(before)]
        known = _paths_known_to_git(ctx, repo_paths, old_head)
        if known:
            _try(errors, lambda: run_git(ctx.top, "reset", "-q", old_head or "HEAD", "--", *known))
    for path, data in before.items():
        _try(errors, functools.partial(_put_back, ctx.abs_path(path), data))
    for d in sorted(created_dirs, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            d.rmdir()
    if errors:  # never hide the original error; say what could not be put back
        print(f"bonsai-git: warning: restore incomplete: {'; '.join(errors)}", file=sys.stderr)


def _put_back(target: Path, data: bytes | None) -> None:
    """Make `target` hold `data` again (None: absent), writing only when it differs."""
    if data is None:
        if target.exists() or target.is_symlink():
            target.unlink()
    elif _read_or_none(target) != data:
        write_durably(target, data)


def _paths_known_to_git(ctx: RepoContext, repo_paths: list[str], head: str | None) -> list[str]:
    in_index = set(run_git(ctx.top, "ls-files", "-z", "--", *repo_paths).stdout.decode().split("\0"))
    in_head: set[str] = set()
    if head:
        in_head = set(run_git(ctx.top, "ls-tree", "-r", "-z", "--name-only", head, "--", *repo_paths)
                      .stdout.decode().split("\0"))
    return sorted((in_index | in_head) - {""})


def _try(errors: list[str], action: Callable[[], object]) -> None:
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - collected and reported after the restore
        errors.append(str(exc))


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


def _one_line(text: str) -> str:
    return " | ".join(ln.strip() for ln in text.splitlines() if ln.strip())[:400] or "no output"
