"""The refusals that come before a tree-changing command writes anything, written once (issue 9).

Every check raises Refused (exit 3) or BadInput (exit 3) with a one-line message, and writes
nothing.  Each command asks for the checks it needs:

- migrate: `check_migration` (HEAD, operation, detached HEAD, staged paths, MEMORY.md itself,
  submodule) and `check_planned_paths` (what sits where the plan writes, attributes, ignored,
  sparse checkout), then `check_identity` unless --no-commit;
- move, archive, regroup, purge, flatten: `check_clean_for_commit` over the memory tree (or the
  purged paths), `check_committable` for the paths they create, `check_identity`;
- rollback: `refuse_operation_in_progress`, `refuse_staged`, `refuse_dirty`, `check_identity`.

The lock and the crash journal are checked where they are taken (gitrepo.workspace_lock,
journal.refuse_if_journaled); the GIT_DIR and attribute rules live in gitsettings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from . import gitrun
from .core.errors import BadInput, Failed, Refused
from .gitrepo import (
    IGNORED_ARGS, RepoContext, config_flag, git_path, git_result, head_blob, head_is_detached, head_sha, ignored_paths,
    in_progress_operation, prefetch, staged_paths, status_args, status_paths,
)
from .gitsettings import attribute_problem
from .core.plan import MigrationPlan
from .core.layout import DOMAINS_DIR, MEMORY_DIR, ROOT_INDEX, TRUNK, decode_utf8
from .tree import read_regular

PLANNED_AREAS = (DOMAINS_DIR, ROOT_INDEX, "memory/dates.md")


# --- the shared checks ------------------------------------------------------------------------

def require_commit(head: str | None, hint: str) -> None:
    """Refuse when HEAD is unborn (`head` None); `hint` says what to commit first."""
    if head is None:
        raise Refused(f"HEAD has no commit yet; {hint}")


def refuse_operation_in_progress(ctx: RepoContext) -> None:
    """Refuse while a merge, rebase, am, cherry-pick, revert or bisect is in progress."""
    operation = in_progress_operation(ctx)
    if operation:
        raise Refused(f"a {operation} is in progress; finish or abort it first")


def refuse_staged(staged: Sequence[str], *, before: str | None = None) -> None:
    """Refuse when anything is staged (`staged`: repo paths): `git commit` would take it along.

    `before` (e.g. "rolling back") gives the shorter message that names no path.
    """
    if not staged:
        return
    if before is not None:
        raise Refused(f"staged changes present; commit or unstage them before {before}")
    raise Refused(f"{staged[0]}: staged changes ({len(staged)} path(s)); commit or unstage them first")


def refuse_dirty(dirty: Sequence[str], advice: str) -> None:
    """Refuse when a path the command rewrites has uncommitted changes (`dirty`: repo paths)."""
    if dirty:
        raise Refused(f"{dirty[0]}: has uncommitted changes; {advice}")


IDENTITY_ARGS = ("var", "GIT_COMMITTER_IDENT")
SUBMODULE_ARGS = ("ls-files", "-s", "-z", "--", "memory")  # the index entries at and under memory/ (gitlinks)


def check_identity(ctx: RepoContext) -> None:
    """Refuse when git cannot make a committer identity (`git var GIT_COMMITTER_IDENT`)."""
    if git_result(ctx, *IDENTITY_ARGS).returncode != 0:
        raise Refused("git has no committer identity; set it with `git config user.name` and `git config user.email`")


def check_committable(ctx: RepoContext, repo_paths: Sequence[str], what: str) -> None:
    """Refuse when git would not commit `repo_paths` as bonsai-git writes them: attributes MEMORY.md
    has and they would lack (an encryption filter, gitsettings), or a .gitignore rule hiding one.
    `what` names the commit in the message ("tree", "change")."""
    if repo_paths:  # both questions at once: check-ignore runs while check-attr does
        prefetch(ctx, *IGNORED_ARGS, input="\0".join(repo_paths).encode())
    problem = attribute_problem(ctx.top, ctx.prefix, repo_paths, _attributes(ctx, repo_paths))
    ignored = ignored_paths(ctx, repo_paths)  # asked even when refusing below: the started git is waited for
    if problem is not None:
        raise Refused(problem)
    if ignored:
        from .gitsettings import ignore_problem

        first = ignored[0].removeprefix(ctx.prefix) if ignored[0].startswith(ctx.prefix) else ignored[0]
        problem = ignore_problem(ctx.workspace, [first])  # the rule's file and line, and the negation to add
        raise Refused(problem or f"{ignored[0]}: ignored by .gitignore; un-ignore {MEMORY_DIR}/ so the {what} can be "
                      "committed")


# The attributes that make git store other bytes than a file holds (transaction._git_converts).
CONVERTING = frozenset({"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"})


class _Attributes(Mapping[str, Mapping[str, str]]):
    """{repo path: {attribute: value}} as `git check-attr -a` lists them, holding only the paths
    that have some: a dict per path was ~0.3x the input at 100,000 leaves (issue 15)."""

    def __init__(self, found: dict[str, dict[str, str]]) -> None:
        self._found = found

    def __getitem__(self, path: str) -> Mapping[str, str]:
        return self._found.get(path, {})

    def __iter__(self) -> Iterator[str]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)


def _attributes(ctx: RepoContext, repo_paths: Sequence[str]) -> _Attributes:
    """`git check-attr -a` of MEMORY.md and `repo_paths` in one call.  Whether git converts one of
    them is kept on `ctx` (ctx.converts): staging asks it of the same paths and takes this answer."""
    paths = [ctx.repo_path(TRUNK), *repo_paths]
    proc = gitrun.run(ctx.top, "check-attr", "-a", "-z", "--stdin",
                      input="\0".join(paths).encode("utf-8", "surrogateescape"))
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, dict[str, str]] = {}
    for path, name, value in zip(fields[0::3], fields[1::3], fields[2::3]):
        found.setdefault(path, {})[name] = value
    del fields
    converts = proc.returncode != 0 or any(
        name in CONVERTING and value not in ("unspecified", "unset") for attrs in found.values()
        for name, value in attrs.items())
    ctx.converts[:] = [(frozenset(paths), converts)]
    return _Attributes(found)


def check_clean_for_commit(ctx: RepoContext, areas: Iterable[str]) -> None:
    """Refuse unless the repository can take a commit of exactly our paths: a commit exists, no
    operation is in progress, nothing is staged, and nothing under `areas` (workspace-relative) has
    uncommitted changes.  The lifecycle commands and flatten ask for it."""
    require_commit(head_sha(ctx), "commit the workspace first")
    refuse_operation_in_progress(ctx)
    refuse_staged(staged_paths(ctx))
    refuse_dirty([p for _xy, p in status_paths(ctx, *(ctx.repo_path(a) for a in areas))],
                 "commit them (the hook reindexes) or discard them first")


# --- migrate's own ----------------------------------------------------------------------------

def check_migration(ctx: RepoContext, *, allow_detached: bool) -> tuple[str, list[str], str]:
    """Every refusal of DESIGN.md §5 step 2; returns MEMORY.md's text, notes, and its blob id in HEAD.

    Two git calls: HEAD and MEMORY.md's blob in it (one rev-parse), one `git status` of the whole
    work tree (staged paths are those whose index column is set, as `git diff --cached` lists
    them; MEMORY.md's own changes; the unrelated paths; whether MEMORY.md is tracked).
    """
    trunk = ctx.repo_path(TRUNK)
    prefetch(ctx, *status_args())  # runs while rev-parse does
    head, source_blob = head_blob(ctx, trunk)
    require_commit(head, "commit MEMORY.md first (git add MEMORY.md && git commit)")
    refuse_operation_in_progress(ctx)  # before "detached": a rebase detaches HEAD
    if head_is_detached(ctx) and not allow_detached:
        raise Refused("HEAD is detached; check out a branch first (or pass --allow-detached)")
    status = status_paths(ctx)
    refuse_staged([p for xy, p in status if xy[0] not in " ?!"])
    path = ctx.abs_path(TRUNK)
    if path.is_symlink():
        raise BadInput(f"{trunk}: is a symlink; bonsai-git migrates a regular file only")
    if not path.exists():
        raise BadInput(f"{trunk}: not found; run bonsai-git in the workspace that holds MEMORY.md (or use -C DIR)")
    if not path.is_file():
        raise BadInput(f"{trunk}: not a regular file")
    # Tracked = in git's index.  Nothing is staged (refused above), so the index holds what HEAD
    # holds, plus intent-to-add entries (`git add -N`: status " A"): no `git ls-files` needed.
    if source_blob is None and not any(p == trunk and xy != "??" for xy, p in status):
        raise BadInput(f"{trunk}: not tracked by git; commit it first (git add MEMORY.md && git commit)")
    if any(p == trunk for _xy, p in status):
        raise BadInput(f"{trunk}: has uncommitted changes; commit or discard them first")
    original = memory_text(read_regular(path, trunk), trunk)
    superproject = ctx.superproject
    if superproject is not None:
        raise BadInput(
            f"{trunk}: lives in a git submodule of {superproject.name}; a migration commit there would leave the "
            f"superproject pointing at the old one. Migrate it in a clone of the submodule's own repository"
        )
    if source_blob is None:  # tracked and unchanged, yet not in HEAD: cannot happen, but never guess
        raise Failed(f"{trunk}: not found in HEAD's tree; nothing was written")
    others = [p for _xy, p in status]
    notes = [f"{len(others)} unrelated uncommitted path(s) left alone, e.g. {others[0]}"] if others else []
    return original, notes, source_blob



def memory_text(data: bytes, name: str) -> str:
    """MEMORY.md's bytes as text; BadInput for bytes that are not memory text.

    Not UTF-8 (the byte offset is named), a NUL byte (binary data: git and every editor would
    treat the file as binary, and the leaves could not be diffed), or nothing but whitespace.
    """
    text = decode_utf8(data, name)
    nul = data.find(b"\0")
    if nul >= 0:
        raise BadInput(f"{name}: holds a NUL byte at byte offset {nul} (binary data, not Markdown); remove it and retry")
    if not text.strip():
        raise BadInput(f"{name}: is empty or only whitespace; there is nothing to migrate")
    return text


def check_planned_paths(ctx: RepoContext, plan: MigrationPlan) -> None:
    """Refuse if anything already sits where the plan writes, or if git could not commit it there.

    Already there: a file, a symlink, a non-empty folder, a submodule.  Not committable: a path
    that .gitignore hides, or that a sparse checkout leaves out (git add would refuse it).
    """
    for area in PLANNED_AREAS:
        target = ctx.abs_path(area)
        if target.is_symlink() or target.is_file() or (target.is_dir() and any(target.iterdir())):
            hint = (" (if this is an earlier migration whose MEMORY.md lost its bonsai markers, put the two marker "
                    f"lines back around the generated block: git log -p -- {ctx.repo_path(TRUNK)} shows them)") \
                if area == DOMAINS_DIR else ""
            raise Refused(f"{ctx.repo_path(area)}: already exists; bonsai-git writes there. Move it away first{hint}")
    for parent in ("memory", DOMAINS_DIR):
        target = ctx.abs_path(parent)
        if target.is_symlink() or (target.exists() and not target.is_dir()):
            raise Refused(f"{ctx.repo_path(parent)}: is not a plain folder; bonsai-git writes its leaves there")
    gitlinks = _submodules_at(ctx, ["memory", DOMAINS_DIR])
    if gitlinks:
        raise Refused(f"{gitlinks[0]}: is a git submodule; bonsai-git writes its leaves there. Move it away first")
    planned = [ctx.repo_path(p) for p, _ in plan.files if p != TRUNK]
    check_committable(ctx, planned, "tree")
    outside = _outside_sparse_checkout(ctx, [ctx.repo_path(p) for p, _ in plan.files])
    if outside:
        raise Refused(
            f"{outside[0]}: outside the sparse checkout; add its folder first "
            f"(git sparse-checkout add {ctx.repo_path('memory')})"
        )


def _submodules_at(ctx: RepoContext, paths: list[str]) -> list[str]:
    """Those of the workspace-relative `paths` (memory/ and folders under it) that the index holds as
    submodules (gitlinks): one `git ls-files -s` of memory/ (SUBMODULE_ARGS, prefetched by migrate)."""
    args = (*SUBMODULE_ARGS[:-1], ctx.repo_path(SUBMODULE_ARGS[-1]))
    proc = git_result(ctx, *args)
    if proc.returncode != 0:
        raise gitrun.GitFailed(args, proc.stderr.decode("utf-8", "replace"))
    wanted = {ctx.repo_path(p) for p in paths}
    entries = (e.split("\t", 1) for e in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if e)
    return sorted(path for meta, path in entries if path in wanted and meta.startswith("160000 "))


def _outside_sparse_checkout(ctx: RepoContext, repo_paths: list[str]) -> list[str]:
    """The repo paths a sparse checkout leaves out (sorted), or [] when there is none.

    Cone mode (git's default): a file is in when its folder is the root, a listed folder or
    inside one, or a parent of one.  Non-cone mode: the patterns are gitignore-style "include"
    rules; `git check-ignore` evaluates them (a pattern match means included).
    """
    if not config_flag(ctx, "core.sparseCheckout"):
        return []
    if config_flag(ctx, "core.sparseCheckoutCone"):
        listed = gitrun.run(ctx.top, "sparse-checkout", "list").stdout.decode("utf-8", "surrogateescape")
        cones = [d.strip().strip("/") for d in listed.splitlines() if d.strip()]

        def included(path: str) -> bool:
            folder = path.rpartition("/")[0]
            return folder == "" or any(folder == c or folder.startswith(c + "/") or c.startswith(folder + "/")
                                       for c in cones)

        return sorted(p for p in repo_paths if not included(p))
    patterns = git_path(ctx, "info/sparse-checkout")
    proc = gitrun.run(ctx.top, "-c", f"core.excludesFile={patterns}", "check-ignore", "--no-index", "--stdin", "-z",
                      input="\0".join(repo_paths).encode())
    matched = set(filter(None, proc.stdout.decode("utf-8", "surrogateescape").split("\0")))
    return sorted(p for p in repo_paths if p not in matched)
