"""A fleet: several agents' workspaces in one git repository, and `bonsai-git status --all`.

Users who run several agents keep one workspace per agent (a folder holding `MEMORY.md` and
`memory/`) in one repository and check them all in CI.  The pre-commit hook already handles
every workspace at once (hook.py: one `git ls-files`, each tracked `MEMORY.md` with bonsai
markers is a workspace).  This module gives the matching report: one line per workspace with
its boot tokens, lookup cost and warnings, or a JSON list.

A workspace here is every folder whose `MEMORY.md` git tracks, migrated or not (a flat one is
shown as "not migrated", which is not a warning, as in `status`).  Rows are sorted by the
workspace's path from the repository's top ("." for the top itself).  `fleet_rows` and the
renderers are pure; `survey_fleet` reads (no writes, no lock, as `status`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core.boot import BootProfile
from .core.health import KINDS, StatusReport, assess

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class FleetRow:
    """One workspace's line: its path from the repository's top and its status report."""

    workspace: str
    report: StatusReport


def survey_fleet(directory: Path, profile: BootProfile) -> tuple[FleetRow, ...]:
    """Survey every workspace of the repository holding `directory` (read-only), sorted by path.

    Raises NotARepository outside a git work tree, BadInput for a workspace's broken
    `.bonsai.toml` (the message names the workspace).
    """
    from .core.errors import BonsaiError
    from .survey import FreshPrefixes, survey_workspace, workspace_folders

    top, prefixes = workspace_folders(directory)
    rows = []
    fresh: FreshPrefixes = {}  # the hook's memo, checked with one listing for every workspace
    for prefix in prefixes:
        name = prefix.rstrip("/") or "."
        try:
            report = assess(survey_workspace(top / prefix if prefix else top, fresh=fresh), profile)
        except BonsaiError as exc:
            if prefix:
                exc.message = f"{prefix}{exc.message}"
            raise
        rows.append(FleetRow(name, report))
    return tuple(rows)


def _lookup_median(report: StatusReport) -> int | None:
    """The median lookup cost in tokens (core/lookup.py: boot to a leaf's entry), None before a migration."""
    return None if report.lookup is None else report.lookup.median


def _warning_kinds(report: StatusReport) -> dict[str, int]:
    """{kind: count} of the report's warnings, in the status table's kind order."""
    counts: dict[str, int] = {}
    for finding in report.findings:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    return {kind: counts[kind] for kind in KINDS if kind in counts}


def fleet_json(rows: Sequence[FleetRow]) -> list[dict[str, Any]]:
    """The documented `status --all --json` list: one object per workspace, sorted by `workspace`.

    Keys: workspace, migrated, healthy, boot_tokens (all boot files), trunk_tokens, leaves,
    domains, leaf_tokens, lookup_median (tokens, null before migration or without a cost model),
    stale (count or null), warnings (count), warning_kinds ({kind: count}).
    """
    out = []
    for row in rows:
        r = row.report
        out.append({
            "workspace": row.workspace,
            "migrated": r.migrated,
            "healthy": r.healthy,
            "boot_tokens": r.boot.tokens,
            "trunk_tokens": r.trunk_tokens,
            "leaves": sum(d.leaves for d in r.domains),
            "domains": len(r.domains),
            "leaf_tokens": sum(d.tokens for d in r.domains),
            "lookup_median": _lookup_median(r),
            "stale": None if r.stale is None else len(r.stale),
            "warnings": len(r.findings),
            "warning_kinds": _warning_kinds(r),
        })
    return out


def fleet_text(rows: Sequence[FleetRow]) -> str:
    """The terminal table: one line per workspace, then a verdict line."""
    if not rows:
        return "No workspace: no MEMORY.md is tracked in this repository."
    width = max(9, *(len(row.workspace) for row in rows))
    lines = [f"{'workspace':<{width}}  {'boot':>6}  {'leaves':>6}  {'domains':>7}  {'lookup':>6}  warnings"]
    for item in fleet_json(rows):
        lookup = "-" if item["lookup_median"] is None else f"{item['lookup_median']:,}"
        if not item["migrated"]:
            warn = "not migrated" + (f"; {_kinds_text(item)}" if item["warnings"] else "")
        else:
            warn = _kinds_text(item) if item["warnings"] else "none"
        lines.append(f"{item['workspace']:<{width}}  {item['boot_tokens']:>6,}  {item['leaves']:>6,}  "
                     f"{item['domains']:>7}  {lookup:>6}  {warn}")
    unhealthy = sum(1 for row in rows if not row.report.healthy)
    verdict = "all healthy." if not unhealthy else f"{unhealthy} with warnings (bonsai-git status -C <workspace>)."
    lines += ["", f"{len(rows)} workspace(s), {verdict}"]
    return "\n".join(lines)


def _kinds_text(item: dict[str, Any]) -> str:
    kinds: dict[str, int] = item["warning_kinds"]
    return f"{item['warnings']}: " + ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in kinds.items())
