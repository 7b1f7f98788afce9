"""The `bonsai-git` command line: click wiring only (DESIGN.md §6); each command's body is
`bonsai_git.commands.<command>.run`, imported when the command runs (so `--help` stays light).

Errors are converted to exit codes in one place (`BonsaiGroup.invoke`): a BonsaiError prints
one line on stderr and exits with its code (1 failed and restored, 3 refused); Ctrl-C exits
130; an unexpected exception (a bug) prints its traceback and exits 4.  stdout is for results.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

# No cyclic garbage collection while this module's imports run, nor while a command runs
# (BonsaiGroup.main): a command is a short process whose objects reference counting frees, and
# the collector's passes over the ~10^5 objects the imports make cost ~10 ms of every run
# (issue 15).  Switched back on after each, so a program importing the CLI keeps its collector.
_GC_WAS_ON = gc.isenabled()
gc.disable()

import click  # noqa: E402

from . import __version__
from .core.errors import BonsaiError, os_error_message
from .entry import CyclicGcOff
from .redaction import MaskedOutput

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
            from .gitrun import forget_repo_facts
            from .gitsettings import check_repository_env, find_workspace

            forget_repo_facts()  # a command sees the repository as it is now, not as an earlier one in this process did

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

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main, with the cyclic garbage collector off while the command runs (see the top),
        and stdout and stderr masked (redaction.MaskedOutput): every command's text, click's usage
        errors and a bug's traceback pass the one masking rule (issue 25)."""
        with CyclicGcOff(), MaskedOutput():
            return super().main(*args, **kwargs)

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
            import traceback  # only for a bug: ~3 ms of every run's start otherwise (issue 15)

            traceback.print_exc()
            click.echo("bonsai-git: internal error (a bug); please report the traceback above", err=True)
            ctx.exit(4)


@click.group(cls=BonsaiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bonsai-git")
def main() -> None:
    """Restructure an agent's flat MEMORY.md into a memory tree, as one reviewable git commit."""


def _done(code: int) -> None:
    """Exit with a command's non-zero code (commands return theirs; 0 lets click finish normally)."""
    if code:
        sys.exit(code)


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
    from .commands import migrate as command

    if recover:
        _done(command.recover(workspace, click.echo))
        return
    if plan_out is not None and not dry_run:
        raise click.UsageError("--plan-out needs --dry-run (write the plan, edit it, then migrate --plan)")
    _done(command.run(workspace, dry_run=dry_run, no_commit=no_commit, force=force, as_json=as_json,
                      allow_detached=allow_detached, no_verify=no_verify, plan_out=plan_out, plan_in=plan_in,
                      echo=click.echo))


@main.command()
@WORKSPACE
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and list the stale files.")
def reindex(workspace: Path, check: bool) -> None:
    """Regenerate stale branch indexes, memory/_index.md and the trunk block (exit 1: stale under --check)."""
    from .commands import reindex as command

    _done(command.run(workspace, check=check, echo=click.echo))


@main.command()
@WORKSPACE
@click.option("--rev", default="HEAD", show_default=True, metavar="COMMIT",
              help="The commit whose own tree is checked (not the work tree).")
def check(workspace: Path, rev: str) -> None:
    """Check that a commit's tree holds fresh indexes, as a clean clone of it would (exit 1: stale, named)."""
    from .commands import check as command

    _done(command.run(workspace, rev=rev))


@main.command()
@WORKSPACE
@click.argument("commit", required=False)
def rollback(workspace: Path, commit: str | None) -> None:
    """Revert the migration commit with git revert (exit 3: nothing to revert or it would conflict)."""
    from .commands import rollback as command

    _done(command.run(workspace, commit, echo=click.echo))


@main.command()
@WORKSPACE
@click.argument("headings", nargs=-1)
@click.option("--body", default="", help="The section's body text, read when the heading decides nothing.")
@click.option("--file", "memory_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Explain every section of this Markdown file in context (e.g. MEMORY.md; relative to -C).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def explain(workspace: Path, headings: tuple[str, ...], body: str, memory_file: Path | None, as_json: bool) -> None:
    """Say where each HEADING (or every section of --file) goes: domain, deciding step, words, runner-up."""
    from .commands import explain as command

    ctx = click.get_current_context()
    if memory_file is not None and ctx.get_parameter_source("workspace") is click.core.ParameterSource.DEFAULT:
        # `explain --file ../other/MEMORY.md`: that file's workspace's .bonsai.toml, as migrate there reads it
        workspace, memory_file = command.file_workspace(workspace, memory_file, echo=click.echo)
    _done(command.run(workspace, headings, body=body, memory_file=memory_file, as_json=as_json, echo=click.echo))


@main.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Make a git workspace from the bundled sample MEMORY.md, migrate it, show before/after."""
    from .commands import demo as command

    _done(command.run(directory, echo=click.echo))


# --- memory health and lifecycle (commands/status.py, reflect, move, regroup, archive, purge) ----------

from .core.boot import DEFAULT_PROFILE, PROFILES  # noqa: E402 - a small pure table, needed by the option below

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

    from .commands import status as command

    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    _done(command.run(workspace, as_json=as_json, profile=profile, file_cap=file_cap, total_cap=total_cap,
                      every=every, color=color, echo=click.echo))


@main.command()
@WORKSPACE
@click.option("--json", "as_json", is_flag=True, help="Print the candidates as JSON.")
def reflect(workspace: Path, as_json: bool) -> None:
    """List leaves and domains worth reviewing (old general/ leaves, oversized leaves and domains), with reasons."""
    from .commands import reflect as command

    _done(command.run(workspace, as_json=as_json, echo=click.echo))


@main.command()
@WORKSPACE
@click.argument("leaves", nargs=-1, required=True)
@click.argument("domain")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
@click.option("--new-domain", is_flag=True,
              help="Create DOMAIN when it is neither in the domain table nor an existing folder (else refused as a typo).")
def move(workspace: Path, leaves: tuple[str, ...], domain: str, dry_run: bool, no_commit: bool, no_verify: bool,
         new_domain: bool) -> None:
    """Move LEAVES (paths or unique names) to DOMAIN, reindex, one commit (exit 3: refused, nothing written)."""
    from .commands import move as command

    _done(command.run(workspace, leaves, domain, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify,
                      new_domain=new_domain, echo=click.echo))


@main.command()
@WORKSPACE
@click.option("--all", "all_leaves", is_flag=True,
              help="Re-sort every leaf, not only general/ (leaves a `move` placed stay where they are).")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def regroup(workspace: Path, all_leaves: bool, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """Re-apply the current rules and .bonsai.toml to a migrated tree, as one commit (Bonsai-Op: regroup)."""
    from .commands import regroup as command

    _done(command.run(workspace, all_leaves=all_leaves, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify,
                      echo=click.echo))


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
    from .commands import archive as command

    _done(command.run(workspace, leaves, reason=reason, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify,
                      echo=click.echo))


@main.command()
@WORKSPACE
@click.option("--older-than", default="180d", show_default=True,
              help="Grace period since the archiving commit: days (180d) or weeks (26w).")
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
def purge(workspace: Path, older_than: str, dry_run: bool, no_commit: bool, no_verify: bool) -> None:
    """git rm archived files archived longer ago than --older-than, in one commit (history keeps them)."""
    from .commands import purge as command
    from .lifecycle import parse_duration

    try:
        days = parse_duration(older_than)
    except BonsaiError as exc:
        raise click.BadParameter(exc.message, param_hint="--older-than") from None
    _done(command.run(workspace, days=days, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify,
                      echo=click.echo))


@main.command()
@WORKSPACE
@DRY_RUN
@NO_COMMIT
@NO_VERIFY
@click.option("--profile", default=DEFAULT_PROFILE, show_default=True, type=click.Choice([p.name for p in PROFILES]),
              help="Boot rules the flat MEMORY.md is checked against: a warning says when it would be cut at boot.")
def flatten(workspace: Path, dry_run: bool, no_commit: bool, no_verify: bool, profile: str) -> None:
    """Rebuild one flat MEMORY.md from today's tree (every later edit kept) and remove the tree, as one commit."""
    from .commands import flatten as command

    _done(command.run(workspace, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify, profile=profile,
                      echo=click.echo))


@main.command()
@WORKSPACE
@click.argument("runtime", type=click.Choice(["openclaw", "codex", "claude"]))
@click.option("--undo", is_flag=True, help="Remove exactly what connect added (a file it created is deleted).")
@click.option("--dry-run", is_flag=True, help="Print the change as a diff; write nothing.")
@click.option("--mode", type=click.Choice(["auto", "block", "pointer"]), default="auto", show_default=True,
              help="codex: the trunk block in AGENTS.md, or a pointer to MEMORY.md (auto: the block when it fits "
                   "Codex's 32,768-byte chain budget).")
@click.option("--auto-memory", is_flag=True,
              help="claude: print the user-level autoMemoryDirectory setting instead of importing @MEMORY.md.")
@click.option("--write-settings", is_flag=True,
              help="With --auto-memory: write it into ~/.claude/settings.json (outside the repository).")
def connect(workspace: Path, runtime: str, undo: bool, dry_run: bool, mode: str, auto_memory: bool,
            write_settings: bool) -> None:
    """Make RUNTIME load the trunk at boot: codex (AGENTS.md block), claude (@MEMORY.md in CLAUDE.md), openclaw (a check)."""
    from .commands import connect as command

    if (auto_memory or write_settings) and runtime != "claude":
        raise click.UsageError("--auto-memory and --write-settings are for claude")
    if write_settings and not auto_memory:
        raise click.UsageError("--write-settings needs --auto-memory")
    if mode != "auto" and runtime != "codex":
        raise click.UsageError("--mode is for codex")
    _done(command.run(workspace, runtime, undo=undo, dry_run=dry_run, mode=mode, auto_memory=auto_memory,
                      write_settings=write_settings, echo=click.echo))


@main.command("secrets-audit")
@WORKSPACE
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON (schema_version 1).")
def secrets_audit(workspace: Path, as_json: bool) -> None:
    """List each past commit, path and kind of secret-looking value in the history of MEMORY.md and memory/ (exit 1: found)."""
    from .commands import secrets_audit as command

    _done(command.run(workspace, as_json=as_json, echo=click.echo))


# --- the living tree: absorb, the pre-commit hook, the plain git hook (core/absorb.py, hook.py, githook.py) ---

@main.command()
@WORKSPACE
@click.option("--dry-run", is_flag=True, help="Print where each new section would go; write nothing.")
def absorb(workspace: Path, dry_run: bool) -> None:
    """Move the ## sections appended after MEMORY.md's end marker into leaves (a same-topic leaf is extended), then reindex."""
    from .commands import absorb as command

    _done(command.run(workspace, dry_run=dry_run, echo=click.echo))


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("files", nargs=-1, type=click.UNPROCESSED)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when anything is stale (pre-push, CI).")
@click.option("-C", "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              help="Run in this folder (any folder of the repository).")
def hook(files: tuple[str, ...], check: bool, directory: Path) -> None:
    """Pre-commit entry: rewrite stale indexes, absorb new sections (exit 0 nothing changed, 1 rewritten).

    FILES are accepted and ignored: the whole tree is checked.  Same as the bonsai-git-hook script.
    """
    from .commands import hook as command

    sys.exit(command.run(directory, check=check))


@main.command("merge-driver", context_settings={"ignore_unknown_options": True})
@click.argument("ancestor", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path")
def merge_driver(ancestor: Path, ours: Path, theirs: Path, path: str) -> None:
    """git merge driver (%O %A %B %P) for MEMORY.md and the indexes: writes what regenerating the merged tree gives.

    Set up: `.gitattributes` lines `MEMORY.md merge=bonsai` and `memory/**/_index*.md merge=bonsai`, and
    `git config merge.bonsai.driver "bonsai-git merge-driver %O %A %B %P"` (install-hook sets the config).
    """
    from .commands import merge_driver as command

    _done(command.run(ancestor, ours, theirs, path))


@main.command("install-hook")
@WORKSPACE
@click.option("--uninstall", is_flag=True, help="Remove the hook and put back the one it chained.")
@click.option("--shared-hooks-path", is_flag=True,
              help="Also when core.hooksPath is global or outside this repository (its hooks serve other "
                   "repositories too).")
@click.option("--merge-driver", is_flag=True,
              help="Also register the bonsai merge driver (merge.bonsai.driver) in this repository's git config.")
def install_hook(workspace: Path, uninstall: bool, shared_hooks_path: bool, merge_driver: bool) -> None:
    """Install the plain git pre-commit hook (hooks/pre-commit), chaining any existing hook, or the hook manager's
    way (husky, lefthook, simple-git-hooks, pre-commit) (exit 3: refused).  The plain hook records the Python
    this runs in, so it works when that environment is not activated."""
    from .commands import install_hook as command

    _done(command.run(workspace, uninstall=uninstall, shared_hooks_path=shared_hooks_path, echo=click.echo,
                      merge_driver=merge_driver))


if _GC_WAS_ON:
    gc.enable()

if __name__ == "__main__":  # pragma: no cover
    main()
