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
from .errors import BonsaiError

WORKSPACE = click.option(
    "-C", "workspace", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
    show_default=True, help="The workspace folder that holds MEMORY.md.",
)


class BonsaiGroup(click.Group):
    """A click group that maps BonsaiError, Ctrl-C and bugs to the documented exit codes."""

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
def migrate(workspace: Path, dry_run: bool, no_commit: bool, force: bool, as_json: bool,
            allow_detached: bool, no_verify: bool) -> None:
    """Migrate MEMORY.md into a memory tree in one commit (exit 0 done, 3 refused, 1 restored)."""
    from .report import migration_json, migration_text
    from .transaction import migrate as run_migration

    result = run_migration(workspace, dry_run=dry_run, no_commit=no_commit, force=force,
                           allow_detached=allow_detached, no_verify=no_verify)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        click.echo(json.dumps(migration_json(result), indent=2, ensure_ascii=False))
    else:
        click.echo(migration_text(result))


@main.command()
@WORKSPACE
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and list the stale files.")
def reindex(workspace: Path, check: bool) -> None:
    """Regenerate stale branch indexes, memory/_index.md and the trunk block (exit 1: stale under --check)."""
    from .reindex import reindex_workspace

    result = reindex_workspace(workspace, check=check)
    for path in result.changed:
        click.echo(f"{'stale' if check else 'wrote'} {path}")
    if check and result.changed:
        click.echo(f"bonsai-git: {len(result.changed)} generated file(s) stale; run bonsai-git reindex", err=True)
        sys.exit(1)


@main.command()
@WORKSPACE
@click.argument("commit", required=False)
def rollback(workspace: Path, commit: str | None) -> None:
    """Revert the migration commit with git revert (exit 3: nothing to revert or it would conflict)."""
    from .rollback import rollback as run_rollback

    result = run_rollback(workspace, commit)
    click.echo(f"Reverted {result.migration[:12]} ({result.subject}) in commit {result.revert[:12]}.")
    click.echo("MEMORY.md is back as it was; undo the rollback with: git revert HEAD")


@main.command()
@WORKSPACE
@click.argument("headings", nargs=-1, required=True)
def explain(workspace: Path, headings: tuple[str, ...]) -> None:
    """Print the domain of each HEADING and the keyword (or pin rule) that decided it."""
    from .classify import classify_heading, is_pinned
    from .config import load_config

    config = load_config(workspace)
    for heading in headings:
        if is_pinned(heading, config):
            click.echo(f"{heading!r} -> pinned (stays verbatim in the trunk)")
            continue
        c = classify_heading(heading, config)
        why = f'keyword "{c.keyword}"' if c.keyword else "no keyword matched → general"
        click.echo(f"{heading!r} -> {c.domain} ({why})")


@main.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Make a git workspace from the bundled sample MEMORY.md, migrate it, show before/after."""
    from .demo import run_demo

    click.echo(run_demo(directory))


if __name__ == "__main__":  # pragma: no cover
    main()
