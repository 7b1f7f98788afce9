"""Roll a migration back: `git revert` of the migration commit, only when it applies cleanly.

The migration commit is the newest commit with a `Bonsai-Migration` trailer that touched this
workspace's MEMORY.md, or that turned it from flat to migrated (migration_commit.py), or the
commit the user names.  When it is already reverted (a later
commit says `This reverts commit <sha>` and was not itself reverted, or HEAD's tree holds the
migration's paths exactly as before it), nothing is done: exit 3.  Before reverting, the reverse
patch is checked against HEAD in a throwaway index (no work tree or index change); if it would
conflict, nothing is started: exit 3 naming the later commits that changed the migration's paths,
and `bonsai-git flatten` as the way back that keeps them (flatten.py).

Only a commit whose changes are exactly a migration is reverted, checked against its content
(core/migrationcheck.py), not its message: a squash merge that also holds a later leaf edit or
an unrelated `AGENTS.md` change carries the trailers too (mid-body, in GitHub's default squash
message), and reverting it would throw that work away (issue 22).  Such a commit, and a merge
commit, is refused (exit 3, nothing touched), naming flatten as the way back.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from .core.errors import NothingToDo, Refused
from .core.layout import MEMORY_DIR, decode_utf8
from .core.migrationcheck import describe_surplus, migration_surplus
from . import gitrun
from .history import refuse_if_shallow
from .gitrepo import RepoContext, open_workspace, staged_paths, status_paths, workspace_lock
from .migration_commit import MIGRATION_TRAILER, find_migration, is_migration_commit
from .preconditions import check_identity, refuse_dirty, refuse_operation_in_progress, refuse_staged
from .core.layout import TRUNK

TRAILER = MIGRATION_TRAILER


@dataclass(frozen=True, slots=True)
class RollbackResult:
    """The reverted migration commit and the new revert commit."""

    migration: str
    revert: str
    subject: str


def find_migration_commit(ctx: RepoContext, commit: str | None = None) -> str:
    """The sha of `commit` (checked to be a migration) or of the newest migration of this workspace.

    A migration is known by its `Bonsai-Migration` trailer or by its content (a flat trunk made
    migrated: migration_commit.py), so one whose trailers a commit-msg hook dropped is found too.
    Raises NothingToDo when there is none.
    """
    trunk = ctx.repo_path(TRUNK)
    if commit is not None:
        proc = gitrun.run(ctx.top, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
        if proc.returncode != 0:
            raise NothingToDo(f"{commit}: no such commit")
        sha = proc.stdout.decode().strip()
        if not is_migration_commit(ctx.top, sha, trunk):
            raise NothingToDo(f"{sha[:12]}: not a bonsai-git migration commit (no {TRAILER} trailer, and it does "
                              f"not turn a flat {trunk} into a migrated one)")
        return sha
    found = find_migration(ctx.top, trunk)
    if found is None:
        refuse_if_shallow(ctx.top, "finding the migration commit")
        raise NothingToDo(f"{trunk}: no migration commit to revert (no {TRAILER} trailer in history, and no commit "
                          f"that turned it into a migrated trunk)")
    return found


def rollback(workspace: Path, commit: str | None = None) -> RollbackResult:
    """Revert the migration commit with `git revert --no-edit` (the user's identity and hooks apply).

    Raises NothingToDo (exit 3) when there is nothing to revert or the revert would conflict,
    Refused when the tree is not clean enough to revert; in both cases nothing is changed.
    """
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        sha = find_migration_commit(ctx, commit)
        refuse_not_a_migration(ctx, sha)
        touched = _touched_paths(ctx, sha)
        chain = revert_chain(ctx, sha)
        _refuse_already_reverted(ctx, sha, touched, chain)
        refuse_operation_in_progress(ctx)
        refuse_staged(staged_paths(ctx), before="rolling back")
        refuse_dirty([p for _xy, p in status_paths(ctx, *touched)] if touched else [],
                     "commit or discard them before rolling back")
        _refuse_conflicting_revert(ctx, sha, touched, chain)
        check_identity(ctx)
        proc = gitrun.run(ctx.top, "revert", "--no-edit", sha)
        if proc.returncode != 0:
            gitrun.run(ctx.top, "revert", "--abort")
            err = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip().splitlines()
            raise Refused(f"git revert failed and was aborted: {err[-1] if err else 'no output'}")
        new = gitrun.run(ctx.top, "rev-parse", "HEAD", check=True).stdout.decode().strip()
        subject = gitrun.run(ctx.top, "log", "-1", "--format=%s", sha, check=True).stdout.decode().strip()
        return RollbackResult(sha, new, subject)


def refuse_not_a_migration(ctx: RepoContext, sha: str) -> None:
    """Raise Refused (exit 3) unless commit `sha` changes exactly what a migration changes.

    A merge commit is refused outright (reverting it picks one side's history away); else the
    commit's changes against its parent and its files are checked by content
    (migrationcheck.migration_surplus).  The refusal names what the commit holds beyond the
    migration and `bonsai-git flatten`, which goes back to one flat MEMORY.md keeping it.
    """
    parents = gitrun.output(ctx.top, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    way_back = (f"Nothing was changed. To go back to one flat {ctx.repo_path(TRUNK)} that keeps that work, run "
                "`bonsai-git flatten`")
    if len(parents) > 1:
        raise Refused(f"{sha[:12]} is a merge commit, not the migration itself; reverting it would undo everything "
                      f"the merge brought in. {way_back}")
    if not parents:
        refuse_if_shallow(ctx.top, f"reverting {sha[:12]} (its parent was not fetched)")
    # Through the work tree's filters (`--filters`): under git-crypt-like attributes the stored blobs
    # are ciphertext, and the sections are compared as the user sees them.
    original = gitrun.run(ctx.top, "cat-file", "--filters", f"{sha}^:{ctx.repo_path(TRUNK)}")
    if original.returncode != 0:
        raise Refused(f"{sha[:12]}: {ctx.repo_path(TRUNK)} did not exist before it, so it is not a migration "
                      f"commit; nothing was changed")
    surplus = migration_surplus(decode_utf8(original.stdout, f"{ctx.repo_path(TRUNK)} at {sha[:12]}^"),
                                _changes(ctx, sha), files_at(ctx, sha, filters=True))
    if surplus:
        raise Refused(f"{sha[:12]} holds more than a migration: {describe_surplus(surplus)}; reverting it would "
                      f"undo that too. {way_back}")


def _changes(ctx: RepoContext, sha: str) -> list[tuple[str, str]]:
    """(status letter, workspace-relative path; `../<repo path>` outside the workspace) per changed path."""
    out = gitrun.output(ctx.top, "diff-tree", "--no-commit-id", "-r", "-z", "--no-renames", "--name-status",
                        f"{sha}^", sha)
    fields = [f for f in out.split("\0") if f]
    changes = []
    for status, path in zip(fields[0::2], fields[1::2]):
        shown = path[len(ctx.prefix):] if path.startswith(ctx.prefix) else f"../{path}" if ctx.prefix else path
        changes.append((status, shown))
    return changes


def files_at(ctx: RepoContext, commit: str, *, filters: bool = False) -> dict[str, str]:
    """{workspace-relative path: text} of MEMORY.md and every UTF-8 file under memory/ in `commit`.

    `filters`: as the work tree's smudge filters and line-ending rules give them (`cat-file --filters`),
    else the stored bytes."""
    specs = [ctx.repo_path(TRUNK), ctx.repo_path(MEMORY_DIR)]
    listing = gitrun.run(ctx.top, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs, check=True).stdout
    entries = []
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        if "\t" in record:
            meta, path = record.split("\t", 1)
            if meta.split()[1] == "blob":
                entries.append((meta.split()[2], path[len(ctx.prefix):]))
    # One `git cat-file --batch` for every blob (a subprocess per leaf costs ~2 ms, 20 s for 10,000 leaves).
    if filters and _has_filter(ctx):
        # One `cat-file --filters` per file: `--batch --filters` dies on `<rev>:<path>` in git 2.39.
        return {path: text for _sha, path in entries if (text := _filtered_text(ctx, f"{commit}:{ctx.prefix}{path}"))
                is not None}
    batch = "".join(f"{sha}\n" for sha, _ in entries).encode()
    stream = gitrun.run(ctx.top, "cat-file", "--batch", input=batch, check=True).stdout
    out, at = {}, 0
    for _sha, path in entries:
        header_end = stream.index(b"\n", at)
        size = int(stream[at:header_end].split()[2])
        data = stream[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
        try:
            out[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # not a text leaf then; nothing of the original can be in it
    return out


def _has_filter(ctx: RepoContext) -> bool:
    """True when git gives MEMORY.md or the files under memory/ a `filter` (their blobs are not their text)."""
    probes = [ctx.repo_path(TRUNK), ctx.repo_path("memory/_index.md"), ctx.repo_path("memory/domains/general/x.md")]
    out = gitrun.output(ctx.top, "check-attr", "filter", "--", *probes)
    return any(not line.endswith(": unspecified") for line in out.splitlines())


def _filtered_text(ctx: RepoContext, spec: str) -> str | None:
    proc = gitrun.run(ctx.top, "cat-file", "--filters", spec)
    try:
        return proc.stdout.decode("utf-8") if proc.returncode == 0 else None
    except UnicodeDecodeError:
        return None


def _touched_paths(ctx: RepoContext, sha: str) -> list[str]:
    out = gitrun.output(ctx.top, "diff-tree", "--no-commit-id", "-r", "-z", "--name-only", f"{sha}^", sha)
    return [p for p in out.split("\0") if p]


def revert_chain(ctx: RepoContext, sha: str) -> list[str]:
    """The reverts of `sha` on HEAD's history, oldest first: its revert, the revert of that, ...

    Follows the message `git revert` writes ("This reverts commit <full sha>."): an odd-length
    chain means `sha` is reverted now (by the last one), an even-length one that it is back.
    """
    chain: list[str] = []
    current = sha
    for _ in range(100):  # a chain this long is not real; stop rather than loop
        out = gitrun.run(ctx.top, "log", "-1", "--format=%H", "-F", f"--grep=This reverts commit {current}",
                         f"{current}..HEAD").stdout.decode().strip()
        if not out:
            break
        chain.append(out)
        current = out
    return chain


def _refuse_already_reverted(ctx: RepoContext, sha: str, touched: list[str], chain: list[str]) -> None:
    """Raise NothingToDo when the migration `sha` is already undone at HEAD (nothing is changed).

    `chain` is `revert_chain(ctx, sha)`.
    """
    if len(chain) % 2 == 1:
        raise NothingToDo(f"{sha[:12]} is already reverted by {chain[-1][:12]}; nothing to do")
    if touched:
        same = gitrun.run(ctx.top, "diff", "--quiet", f"{sha}^", "HEAD", "--", *touched)
        if same.returncode == 0:
            raise NothingToDo(f"{sha[:12]} is already undone: HEAD holds its files as they were before it; nothing to do")


def _refuse_conflicting_revert(ctx: RepoContext, sha: str, touched: list[str], chain: list[str]) -> None:
    """Check the reverse patch of `sha` applies to HEAD, in a throwaway index; refuse if not.

    `chain` is `revert_chain(ctx, sha)`.  The patch comes from plumbing (`git diff-tree`), which
    no porcelain setting changes (color.ui, diff.noprefix, diff.mnemonicPrefix, diff.external):
    `git apply` gets the `a/`/`b/` patch it expects whatever the user's config says, and
    `--whitespace=nowarn` keeps apply.whitespace=error from refusing the user's own CRLF lines.

    (`git merge-tree --merge-base` would do a 3-way check, but needs git 2.40; the patch check
    is stricter, so a refusal may be over-cautious but a clean answer is always right.)
    """
    patch = gitrun.run(ctx.top, "diff-tree", "-p", "--binary", "--full-index", "--no-color", "--no-ext-diff",
                       "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", f"{sha}^", sha, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="bonsai-revert-") as tmp:
        scratch = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        gitrun.run(ctx.top, "read-tree", "HEAD", extra_env=scratch, check=True)
        proc = gitrun.run(ctx.top, "apply", "--cached", "--check", "-R", "--whitespace=nowarn", "-", input=patch,
                          extra_env=scratch)
    if proc.returncode == 0:
        return
    since = (chain or [sha])[-1]  # after a revert of its revert: only what came since
    log = gitrun.run(ctx.top, "log", "--format=%H%x00%s", f"{since}..HEAD", "--", *touched, check=True).stdout.decode()
    later = [line.split("\0", 1) for line in log.splitlines() if "\0" in line]
    listed = "; ".join(f"{c[:12]} {subject}" for c, subject in later[:5])
    listed += f" (+{len(later) - 5} more)" if len(later) > 5 else ""
    n = len(later)
    raise NothingToDo(
        f"{ctx.repo_path(TRUNK)}: reverting {sha[:12]} would conflict with {n} later commit{'' if n == 1 else 's'} "
        f"that changed its files: {listed or '(none found on HEAD)'}. Nothing was changed. Choose one: run "
        f"`bonsai-git flatten`, which rebuilds one flat {ctx.repo_path(TRUNK)} that keeps those later memories; or keep "
        f"the migration and those changes (do nothing); or undo those commits too (`git revert` them, newest first), "
        f"then run bonsai-git rollback again; or run `git revert {sha[:12]}` yourself and resolve the conflicts by "
        f"hand, keeping the later changes you want"
    )
