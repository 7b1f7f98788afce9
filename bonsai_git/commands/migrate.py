"""`bonsai-git migrate`: MEMORY.md into a memory tree in one commit, `--dry-run` plans (and `--plan-out`
writes the editable plan), `--plan` applies one, `--recover` settles an interrupted run (DESIGN.md §6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .common import Echo, read_utf8, warn_provenance


def run(workspace: Path, *, dry_run: bool, no_commit: bool, force: bool, as_json: bool, allow_detached: bool,
        no_verify: bool, plan_out: Path | None, plan_in: Path | None, echo: Echo) -> int:
    """Migrate (transaction.migrate) and print the result: notes and warnings on stderr, the summary
    (or its JSON) on stdout.  `plan_out` (with `dry_run`) receives the editable plan; `plan_in` is
    read strictly (BadInput naming it).  Refusals and restored failures are raised (exit 3 / 1)."""
    from ..core.report import migration_json, migration_text
    from ..transaction import migrate

    plan_text = _read_plan_file(plan_in) if plan_in is not None else None
    if plan_out is not None:
        check_plan_out(workspace, plan_out, force=force)
    if not dry_run:
        warn_provenance(workspace, echo)
    result = migrate(workspace, dry_run=dry_run, no_commit=no_commit, force=force, allow_detached=allow_detached,
                     no_verify=no_verify, plan_text=plan_text,
                     plan_source=str(plan_in) if plan_in is not None else "plan.toml")
    if plan_out is not None and result.plan is not None:
        from ..core.planfile import render_plan

        _write_new_file(plan_out, render_plan(result.plan, result.config).encode("utf-8"), force=force)
        echo(f"note: wrote the plan to {plan_out}; edit it, then run bonsai-git migrate --plan {plan_out}", err=True)
    for note in result.notes:
        echo(f"note: {note}", err=True)
    for warning in result.text_warnings:
        echo(f"warning: {warning}", err=True)
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    if result.warnings:
        echo(f"note: {len(result.warnings)} secret-looking value(s) (kinds shown, never values): the leaves keep "
             "your text verbatim, the indexes and MEMORY.md's block mask them; a false alarm? list its "
             "sha256:… in .bonsai.toml [secrets] allow", err=True)
    if as_json:
        echo(json.dumps(migration_json(result), indent=2, ensure_ascii=False))
    else:
        echo(migration_text(result))
    return 0


def recover(workspace: Path, echo: Echo) -> int:
    """`migrate --recover`: settle an interrupted run's journal (recovery.recover_workspace) and say
    what it did: nothing, restored the paths, kept a finished commit, or undid an unfinished one."""
    from ..recovery import recover_workspace

    result = recover_workspace(workspace)
    texts = {
        "nothing": "No interrupted run to recover; nothing changed.",
        "restored": f"Restored {result.paths} path(s) to their state before the interrupted run; the journal is removed.",
        "completed": "The interrupted run had finished its commit; kept it and removed the journal.",
        "undone": f"Undid the interrupted run's commit and restored {result.paths} path(s); the journal is removed.",
    }
    echo(texts[result.outcome])
    return 0


def check_plan_out(workspace: Path, target: Path, *, force: bool) -> None:
    """Refuse (exit 3, nothing written) a `--plan-out` target that would destroy a file.

    Always refused: MEMORY.md (any file of that name, or the workspace's trunk by another
    path) and any file git tracks (AGENTS.md, a leaf...): a plan written over it once replaced
    the agent's memory with TOML while the dry run said "nothing written" (issue 21 §3).  Any
    other existing path (a symlink included) is refused unless `force`.
    """
    from ..core.errors import Refused
    from ..gitrun import run as git

    trunk = workspace / "MEMORY.md"
    same = os.path.lexists(target) and os.path.exists(trunk) and os.path.samefile(target, trunk)
    if target.name == "MEMORY.md" or same:
        raise Refused(f"{target}: is MEMORY.md; --plan-out never writes over memory. Name a new file, e.g. "
                      "--plan-out plan.toml")
    folder = target.parent if target.parent.is_dir() else None
    if folder is not None and os.path.lexists(target):
        proc = git(folder, "ls-files", "-z", "--", target.name)
        if proc.returncode == 0 and proc.stdout.strip(b"\0"):
            raise Refused(f"{target}: is a file git tracks; --plan-out never writes over it. Name a new file, "
                          "e.g. --plan-out plan.toml")
    if os.path.lexists(target) and not force:
        raise Refused(f"{target}: already exists; name a new file, or pass --force to replace it")


def _write_new_file(target: Path, data: bytes, *, force: bool) -> None:
    """Write `data` to `target` as check_plan_out allowed: a new file (O_EXCL), or with `force` a
    temporary file moved over it (a symlink there is replaced, never followed)."""
    if not force:
        with open(target, "xb") as fh:
            fh.write(data)
        return
    temp = target.with_name(f".{target.name}.bonsai-tmp")
    with open(temp, "wb") as fh:
        fh.write(data)
    os.replace(temp, target)


def _read_plan_file(path: Path) -> str:
    """The plan file's text; BadInput (exit 3) naming it when it cannot be read or is not UTF-8."""
    return read_utf8(path, f"no such plan file; write one with bonsai-git migrate --dry-run --plan-out {path}")
