"""What several commands share: the output callable, strict UTF-8 reads, the provenance warning and
the leaves `reindex` and `absorb` index."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Echo(Protocol):
    """How a command writes a line: click.echo's shape (stdout by default, stderr with `err=True`)."""

    def __call__(self, message: str, *, err: bool = ..., nl: bool = ..., color: bool | None = ...) -> None:
        ...


def read_utf8(target: Path, missing: str, shown: Path | None = None, limit: int | None = None) -> str:
    """`target`'s text, decoded strictly; BadInput (exit 3) naming `shown` (default `target`) when the
    file is missing (`missing` says what to do), is not UTF-8 (with the byte offset), is not a
    regular file (a FIFO, a device: never read, so never a hang; a folder) or holds more than
    `limit` bytes (default: tree.PLAN_LIMIT) (issue 21 §5)."""
    from ..core.errors import BadInput
    from ..tree import PLAN_LIMIT, read_bounded

    name = target if shown is None else shown
    try:
        return read_bounded(target, str(name), PLAN_LIMIT if limit is None else limit).decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        raise BadInput(f"{name}: {missing}") from None
    except IsADirectoryError:
        raise BadInput(f"{name}: is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{name}: not UTF-8 (byte {exc.start})") from None


def warn_provenance(workspace: Path, echo: Echo) -> None:
    """Warn (stderr) when OpenClaw's provenance record makes a MEMORY.md rewrite harmful (provenance.py)."""
    from ..provenance import provenance_warning, read_provenance

    warning = provenance_warning(read_provenance(workspace))
    if warning:
        echo(f"warning: {warning}", err=True)


def indexed_leaves(workspace: Path, echo: Echo) -> list[str]:
    """The leaves `reindex` and `absorb` index: those git tracks, as the hook and status do (one rule,
    gitsettings.indexed_leaf_paths); each leaf left out is named on stderr.  Refused (exit 3) when
    MEMORY.md has git attributes the files under memory/ lack (gitsettings.attribute_problem)."""
    from ..core.errors import Refused
    from ..gitsettings import indexed_leaf_paths, memory_listing, unstaged_domain_problem, workspace_attribute_problem

    tracked, untracked = memory_listing(workspace)
    problem = workspace_attribute_problem(workspace, tracked)  # refused before anything is written
    if problem is not None:
        raise Refused(problem)
    unstaged = unstaged_domain_problem(workspace, tracked, untracked)
    if unstaged is not None:
        raise Refused(unstaged)
    leaves, warnings = indexed_leaf_paths(workspace, tracked, untracked)
    for warning in warnings:
        echo(f"warning: {warning}", err=True)
    return leaves
