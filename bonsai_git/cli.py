"""The `bonsai-git` command line: a thin click layer over the library (DESIGN.md §6).

Errors are converted to exit codes in one place (`BonsaiGroup.invoke`): a BonsaiError prints
one line on stderr and exits with its code (1 failed and restored, 3 refused); Ctrl-C exits
130; an unexpected exception (a bug) prints its traceback and exits 4.  stdout is for results.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from . import __version__
from .errors import BonsaiError, os_error_message

WORKSPACE = click.option(
    "-C", "workspace", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
    show_default=True, help="The workspace folder that holds MEMORY.md.",
)


class WorkspaceCommand(click.Command):
    """A subcommand: one with a `-C` workspace refuses (exit 3) while a crash journal is present.

    The workspace is the nearest folder holding MEMORY.md from `-C` (default: the current
    folder) up to the repository's top (gitsettings.find_workspace); GIT_DIR / GIT_WORK_TREE
    naming another repository are refused (gitsettings.check_repository_env).

    An interrupted run's journal (journal.py) must be settled first: only `migrate --recover`
    runs then.  The check is one `git rev-parse`, made after parsing and before the body.
    """

    def invoke(self, ctx: click.Context) -> Any:
        workspace = ctx.params.get("workspace")
        if isinstance(workspace, Path):
            from .gitsettings import check_repository_env, find_workspace

            # Run from any folder inside a workspace, as git runs from any folder of a repository.
            found = find_workspace(workspace)
            if found != workspace:
                click.echo(f"note: the workspace is {found} (the nearest folder up holding MEMORY.md)", err=True)
            workspace = ctx.params["workspace"] = found
            if workspace.is_dir():
                check_repository_env(workspace)
        if isinstance(workspace, Path) and not ctx.params.get("recover"):
            from .journal import refuse_if_journaled

            refuse_if_journaled(workspace)
        return super().invoke(ctx)


class BonsaiGroup(click.Group):
    """A click group that maps BonsaiError, Ctrl-C and bugs to the documented exit codes."""

    command_class = WorkspaceCommand

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BonsaiError as exc:
            click.echo(f"bonsai-git: {exc.message}", err=True)
            ctx.exit(exc.exit_code)
        except (KeyboardInterrupt, click.Abort):
            click.echo("bonsai-git: interrupted", err=True)
            ctx.exit(130)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except OSError as exc:  # the file system refused: the user's to fix, not a bug
            click.echo(f"bonsai-git: {os_error_message(exc)}", err=True)
            ctx.exit(1)
        except Exception:  # a bug: show it, exit 4
            traceback.print_exc()
            click.echo("bonsai-git: internal error (a bug); please report the traceback above", err=True)
            ctx.exit(4)


@click.group(cls=BonsaiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bonsai-git")
def main() -> None:
    """Restructure an agent's flat MEMORY.md into a memory tree, as one reviewable git commit."""


@main.command()
@WORKSPACE
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--no-commit", is_flag=True, help="Write the tree but do not stage or commit it.")
@click.option("--force", is_flag=True, help="Migrate even below min_tokens (default 1,000).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--allow-detached", is_flag=True, help="Allow a detached HEAD.")
@click.option("--no-verify", is_flag=True, help="Pass --no-verify to git commit (skip commit hooks).")
@click.option("--recover", is_flag=True,
              help="After a crash: restore the state before the interrupted run (or keep its finished commit).")
@click.option("--plan-out", "plan_out", type=click.Path(dir_okay=False, path_type=Path),
              help="With --dry-run: write the editable plan (one entry per section) to this TOML file.")
@click.option("--plan", "plan_in", type=click.Path(dir_okay=False, path_type=Path),
              help="Place each section where this edited plan says (see --plan-out).")
def migrate(workspace: Path, dry_run: bool, no_commit: bool, force: bool, as_json: bool,
            allow_detached: bool, no_verify: bool, recover: bool, plan_out: Path | None, plan_in: Path | None) -> None:
    """Migrate MEMORY.md into a memory tree in one commit (exit 0 done, 3 refused, 1 restored)."""
    from .report import migration_json, migration_text
    from .transaction import migrate as run_migration

    if recover:
        _recover(workspace)
        return
    if plan_out is not None and not dry_run:
        raise click.UsageError("--plan-out needs --dry-run (write the plan, edit it, then migrate --plan)")
    plan_text = _read_plan_file(plan_in) if plan_in is not None else None
    if not dry_run:
        _warn_provenance(workspace)
    result = run_migration(workspace, dry_run=dry_run, no_commit=no_commit, force=force,
                           allow_detached=allow_detached, no_verify=no_verify, plan_text=plan_text,
                           plan_source=str(plan_in) if plan_in is not None else "plan.toml")
    if plan_out is not None and result.plan is not None:
        from .planfile import render_plan

        plan_out.write_bytes(render_plan(result.plan, result.config).encode("utf-8"))
        click.echo(f"note: wrote the plan to {plan_out}; edit it, then run bonsai-git migrate --plan {plan_out}",
                   err=True)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    for warning in result.text_warnings:
        click.echo(f"warning: {warning}", err=True)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if result.warnings:
        click.echo(f"note: {len(result.warnings)} secret-looking value(s) (kinds shown, never values): the leaves keep "
                   "your text verbatim, the indexes and MEMORY.md's block mask them; a false alarm? list its "
                   "sha256:… in .bonsai.toml [secrets] allow", err=True)
    if as_json:
        click.echo(json.dumps(migration_json(result), indent=2, ensure_ascii=False))
    else:
        click.echo(migration_text(result))


def _indexed_leaves(workspace: Path) -> list[str]:
    """The leaves `reindex` and `absorb` index: those git tracks, as the hook and status do (one rule,
    gitsettings.indexed_leaf_paths); each leaf left out is named on stderr.  Refused (exit 3) when
    MEMORY.md has git attributes the files under memory/ lack (gitsettings.attribute_problem)."""
    from .errors import Refused
    from .gitsettings import indexed_leaf_paths, memory_listing, workspace_attribute_problem

    tracked, untracked = memory_listing(workspace)
    problem = workspace_attribute_problem(workspace, tracked)  # refused before anything is written
    if problem is not None:
        raise Refused(problem)
    leaves, warnings = indexed_leaf_paths(workspace, tracked, untracked)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    return leaves


def _read_plan_file(path: Path) -> str:
    """The plan file's text; BadInput (exit 3) naming it when it cannot be read or is not UTF-8."""
    return _read_utf8(path, f"no such plan file; write one with bonsai-git migrate --dry-run --plan-out {path}")


def _read_utf8(target: Path, missing: str, shown: Path | None = None) -> str:
    """`target`'s text, decoded strictly; BadInput (exit 3) naming `shown` (default `target`) when the
    file is missing (`missing` says what to do) or is not UTF-8 (with the byte offset)."""
    from .errors import BadInput

    name = target if shown is None else shown
    try:
        return target.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BadInput(f"{name}: {missing}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{name}: not UTF-8 (byte {exc.start})") from None


def _warn_provenance(workspace: Path) -> None:
    """Warn (stderr) when OpenClaw's provenance record makes a MEMORY.md rewrite harmful (provenance.py)."""
    from .provenance import provenance_warning, read_provenance

    warning = provenance_warning(read_provenance(workspace))
    if warning:
        click.echo(f"warning: {warning}", err=True)


def _recover(workspace: Path) -> None:
    from .recovery import recover_workspace

    result = recover_workspace(workspace)
    texts = {
        "nothing": "No interrupted run to recover; nothing changed.",
        "restored": f"Restored {result.paths} path(s) to their state before the interrupted run; the journal is removed.",
        "completed": "The interrupted run had finished its commit; kept it and removed the journal.",
        "undone": f"Undid the interrupted run's commit and restored {result.paths} path(s); the journal is removed.",
    }
    click.echo(texts[result.outcome])


@main.command()
@WORKSPACE
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and list the stale files.")
def reindex(workspace: Path, check: bool) -> None:
    """Regenerate stale branch indexes, memory/_index.md and the trunk block (exit 1: stale under --check)."""
    from .config import load_config
    from .factcache import open_cache
    from .journal import holding_lock
    from .reindex import reindex_workspace

    config = load_config(workspace)
    cache = open_cache(_git_common_dir(workspace))  # the hook's cache: an unchanged leaf is not summarized again
    with holding_lock(workspace):
        result = reindex_workspace(workspace, check=check, leaf_paths=_indexed_leaves(workspace), config=config,
                                   facts=cache.facts_of(config.estimator), branches=cache.branches_of(workspace))
        if not check:
            cache.save()
    for path in result.changed:
        click.echo(f"{'stale' if check else 'wrote'} {path}")
    if "MEMORY.md" in result.changed and not check:
        _warn_provenance(workspace)
    if check and result.changed:
        click.echo(f"bonsai-git: {len(result.changed)} generated file(s) stale; run bonsai-git reindex", err=True)
        sys.exit(1)


def _git_common_dir(workspace: Path) -> Path | None:
    """`git rev-parse --git-common-dir` as a path (None outside a repository: reindex then reports that)."""
    from .gitrun import run

    proc = run(workspace, "rev-parse", "--git-common-dir")
    if proc.returncode != 0 or not workspace.is_dir():
        return None
    return workspace / proc.stdout.decode("utf-8", "surrogateescape").strip()


@main.command()
@WORKSPACE
@click.argument("commit", required=False)
def rollback(workspace: Path, commit: str | None) -> None:
    """Revert the migration commit with git revert (exit 3: nothing to revert or it would conflict)."""
    from .rollback import rollback as run_rollback

    _warn_provenance(workspace)
    result = run_rollback(workspace, commit)
    click.echo(f"Reverted {result.migration[:12]} ({result.subject}) in commit {result.revert[:12]}.")
    click.echo("MEMORY.md is back as it was; undo the rollback with: git revert HEAD")


@main.command()
@WORKSPACE
@click.argument("headings", nargs=-1)
@click.option("--body", default="", help="The section's body text, read when the heading decides nothing.")
@click.option("--file", "memory_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Explain every section of this Markdown file in context (e.g. MEMORY.md; relative to -C).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def explain(workspace: Path, headings: tuple[str, ...], body: str, memory_file: Path | None, as_json: bool) -> None:
    """Say where each HEADING (or every section of --file) goes: domain, deciding step, words, runner-up."""
    from .explain import explain_file, explain_headings, render_explain, scope_table
    from .config import load_config

    config = load_config(workspace)
    if memory_file is not None:
        entries = explain_file(_read_memory_file(workspace, memory_file), config)
    else:
        entries = explain_headings(headings, body, config)
    if as_json:
        click.echo(json.dumps({"sections": entries, "domains": scope_table(config)}, indent=2, ensure_ascii=False))
    else:
        click.echo(render_explain(entries, config))


def _read_memory_file(workspace: Path, path: Path) -> str:
    """Read `path` (relative to the workspace when it exists there), strict UTF-8; BadInput when not."""
    target = path if path.is_absolute() or not (workspace / path).is_file() else workspace / path
    return _read_utf8(target, "no such file", shown=path)


@main.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Make a git workspace from the bundled sample MEMORY.md, migrate it, show before/after."""
    from .demo import run_demo

    click.echo(run_demo(directory))


# --- memory health and lifecycle (status.py, lifecycle.py) -----------------------------------

from .boot import DEFAULT_PROFILE, PROFILES, BootProfile  # noqa: E402 - a small pure table, needed by the option below

DRY_RUN = click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
NO_COMMIT = click.option("--no-commit", is_flag=True, help="Write the changes but do not stage or commit them.")
NO_VERIFY = click.option("--no-verify", is_flag=True, help="Pass --no-verify to git commit (skip commit hooks).")


@main.command()
@WORKSPACE
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema_version 1, see README).")
@click.option("--profile", default=DEFAULT_PROFILE, show_default=True, type=click.Choice([p.name for p in PROFILES]),
              help="The runtime release whose boot caps apply: " + "; ".join(
                  f"{p.name}: {p.label}, " + (f"{p.total_cap:,} bytes across the AGENTS.md chain" if p.chain else
                                              f"{p.file_cap:,} chars per file"
                                              + (f", {p.total_cap:,} in total" if p.total_cap else ""))
                  for p in PROFILES) + ".")
@click.option("--file-cap", type=click.IntRange(min=1), help="Per-file boot cap in chars (overrides the profile).")
@click.option("--total-cap", type=click.IntRange(min=1),
              help="Total boot cap in chars, in bytes under codex (overrides the profile).")
@click.option("--all", "every", is_flag=True,
              help="One line per workspace of the repository (every folder whose MEMORY.md git tracks).")
def status(workspace: Path, as_json: bool, profile: str, file_cap: int | None, total_cap: int | None,
           every: bool) -> None:
    """Boot budget, domains, stale indexes and warnings; writes nothing (exit 0 healthy, 1 warnings)."""
    import os

    from .boot import profile_named, with_caps
    from .status import assess, status_json, status_text
    from .survey import survey_workspace

    if every:
        _status_all(workspace, with_caps(profile_named(profile), file_cap, total_cap), as_json)
        return
    report = assess(survey_workspace(workspace), with_caps(profile_named(profile), file_cap, total_cap))
    if as_json:
        click.echo(json.dumps(status_json(report), indent=2, ensure_ascii=False))
    else:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        click.echo(status_text(report, color=color), color=color)
    sys.exit(0 if report.healthy else 1)


def _status_all(directory: Path, profile: BootProfile, as_json: bool) -> None:
    """`status --all`: the fleet table (fleet.py) or its JSON list; exit 1 when any workspace has warnings."""
    from .fleet import fleet_json, fleet_text, survey_fleet

    rows = survey_fleet(directory, profile)
    if as_json:
        click.echo(json.dumps(fleet_json(rows), indent=2, ensure_ascii=False))
    else:
        click.echo(fleet_text(rows))
    sys.exit(0 if all(row.report.healthy for row in rows) else 1)


@main.command()
@WORKSPACE
@click.option("--json", "as_json", is_flag=True, help="Print the candidates as JSON.")
def reflect(workspace: Path, as_json: bool) -> None:
    """List leaves and domains worth reviewing (old general/ leaves, oversized leaves and domains), with reasons."""
    from .status import reflect_json, reflect_text, reflection_candidates
    from .survey import survey_workspace

    survey = survey_workspace(workspace)
    candidates = reflection_candidates(survey)
    if as_json:
        click.echo(json.dumps(reflect_json(candidates, survey.now), indent=2, ensure_ascii=False))
    else:
        click.echo(reflect_text(candidates))


@main.command()
@WORKSPACE
@click.argument("leaves", nargs=-1, required=True)
@click.argument("domain")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def move(workspace: Path, leaves: tuple[str, ...], domain: str, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """Move LEAVES (paths or unique names) to DOMAIN, reindex, one commit (exit 3: refused, nothing written)."""
    from .lifecycle import lifecycle_text, move_leaves

    click.echo(lifecycle_text(move_leaves(workspace, leaves, domain, dry_run=dry_run, no_commit=no_commit,
                                          no_verify=no_verify)))


@main.command()
@WORKSPACE
@click.option("--all", "all_leaves", is_flag=True,
              help="Re-sort every leaf, not only general/ (leaves a `move` placed stay where they are).")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def regroup(workspace: Path, all_leaves: bool, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """Re-apply the current rules and .bonsai.toml to a migrated tree, as one commit (Bonsai-Op: regroup)."""
    from .lifecycle import lifecycle_text, regroup_workspace

    click.echo(lifecycle_text(regroup_workspace(workspace, all_leaves=all_leaves, dry_run=dry_run,
                                                no_commit=no_commit, no_verify=no_verify)))


@main.command()
@WORKSPACE
@click.argument("leaves", nargs=-1, required=True)
@click.option("--reason", help="Why (goes into the commit message).")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def archive(workspace: Path, leaves: tuple[str, ...], reason: str | None, dry_run: bool, no_commit: bool,
            no_verify: bool) -> None:
    """Move LEAVES to memory/archive/<domain>/ (out of the indexes, still searchable), reindex, commit."""
    from .lifecycle import archive_leaves, lifecycle_text

    click.echo(lifecycle_text(archive_leaves(workspace, leaves, reason, dry_run=dry_run, no_commit=no_commit,
                                             no_verify=no_verify)))


@main.command()
@WORKSPACE
@click.option("--older-than", default="180d", show_default=True,
              help="Grace period since the archiving commit: days (180d) or weeks (26w).")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def purge(workspace: Path, older_than: str, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """git rm archived files archived longer ago than --older-than, in one commit (history keeps them)."""
    from .lifecycle import lifecycle_text, parse_duration, purge_archive

    try:
        days = parse_duration(older_than)
    except BonsaiError as exc:
        raise click.BadParameter(exc.message, param_hint="--older-than") from None
    click.echo(lifecycle_text(purge_archive(workspace, days, dry_run=dry_run, no_commit=no_commit,
                                            no_verify=no_verify)))


@main.command()
@WORKSPACE
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def flatten(workspace: Path, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """Rebuild one flat MEMORY.md from today's tree (every later edit kept) and remove the tree, as one commit."""
    from .flatten import flatten as run_flatten, flatten_text

    if not dry_run:
        _warn_provenance(workspace)
    click.echo(flatten_text(run_flatten(workspace, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)))


# --- the living tree: absorb, the pre-commit hook, the plain git hook (absorb.py, hook.py, githook.py) ---

@main.command()
@WORKSPACE
@click.option("--dry-run", is_flag=True, help="Print where each new section would go; write nothing.")
def absorb(workspace: Path, dry_run: bool) -> None:
    """Move the ## sections appended after MEMORY.md's end marker into leaves (a same-topic leaf is extended), then reindex."""
    from .reindex import reindex_workspace

    if not dry_run:
        _warn_provenance(workspace)
    from .secretscan import mask_secrets

    from .journal import holding_lock

    with holding_lock(workspace):
        leaves = _indexed_leaves(workspace)
        tracked = set(leaves)
        result = reindex_workspace(workspace, check=dry_run, absorb=True, leaf_paths=leaves)
    for s in result.absorbed:
        extends = " (same topic: extends that leaf)" if s.extends and s.path.startswith("memory/domains/") else ""
        click.echo(f"{'would absorb' if dry_run else 'absorbed'} {mask_secrets(s.heading)!r} -> {s.path}{extends}")
    if not result.absorbed:
        click.echo("MEMORY.md: nothing to absorb (no ## section after the end marker that is not pinned; "
                   "pinned sections and loose text there stay in the trunk)")
    for path in result.changed:
        click.echo(f"{'would write' if dry_run else 'wrote'} {path}")
    new = [s.path for s in result.absorbed if not dry_run and s.path not in tracked]
    if new:  # the one rule: a leaf stays indexed once git tracks it (the hook indexes only tracked leaves)
        click.echo(f"note: git add the new leaves so they stay indexed: git add -- {' '.join(sorted(set(new)))}",
                   err=True)


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("files", nargs=-1, type=click.UNPROCESSED)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when anything is stale (pre-push, CI).")
@click.option("-C", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              help="Run in this folder (any folder of the repository).")
def hook(files: tuple[str, ...], check: bool, directory: Path) -> None:
    """Pre-commit entry: rewrite stale indexes, absorb new sections (exit 0 nothing changed, 1 rewritten).

    FILES are accepted and ignored: the whole tree is checked.  Same as the bonsai-git-hook script.
    """
    from .hook import run_hook

    sys.exit(run_hook(directory, check=check))


@main.command("install-hook")
@WORKSPACE
@click.option("--uninstall", is_flag=True, help="Remove the hook and put back the one it chained.")
@click.option("--shared-hooks-path", is_flag=True,
              help="Also when core.hooksPath is global or outside this repository (its hooks serve other "
                   "repositories too).")
def install_hook(workspace: Path, uninstall: bool, shared_hooks_path: bool) -> None:
    """Install the plain git pre-commit hook (hooks/pre-commit), chaining any existing hook (exit 3: refused)."""
    from .errors import FrameworkHookFound
    from .githook import PRE_COMMIT_SNIPPET, install_hook as install, uninstall_hook

    try:
        change = (uninstall_hook(workspace, shared_ok=shared_hooks_path) if uninstall
                  else install(workspace, shared_ok=shared_hooks_path))
    except FrameworkHookFound:
        click.echo(PRE_COMMIT_SNIPPET, nl=False)
        raise
    click.echo(f"{change.action}: {change.hook}")
    if change.chained is not None:
        click.echo(f"chained: {change.chained} runs first")


if __name__ == "__main__":  # pragma: no cover
    main()
