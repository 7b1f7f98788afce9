"""`bonsai-git status [--all]`: boot budget, domains, stale indexes and warnings; writes nothing.
With `--all`, one line per workspace of the repository (fleet.py)."""

from __future__ import annotations

import json
from pathlib import Path

from .common import Echo


def run(workspace: Path, *, as_json: bool, profile: str, file_cap: int | None, total_cap: int | None, every: bool,
        color: bool, echo: Echo) -> int:
    """Survey the workspace (or, with `every`, each workspace of its repository) against the boot
    profile named `profile`, its caps overridden by `file_cap` / `total_cap` (chars; bytes under
    codex); print the report as text (ANSI colours when `color`) or JSON.  Returns 0 when healthy,
    1 when anything warns."""
    from ..core.boot import profile_named, with_caps

    caps = with_caps(profile_named(profile), file_cap, total_cap)
    if every:
        from ..fleet import fleet_json, fleet_text, survey_fleet

        rows = survey_fleet(workspace, caps)
        echo(json.dumps(fleet_json(rows), indent=2, ensure_ascii=False) if as_json else fleet_text(rows))
        return 0 if all(row.report.healthy for row in rows) else 1
    from ..core.health import assess
    from ..core.health_report import status_json, status_text
    from ..survey import survey_workspace

    report = assess(survey_workspace(workspace), caps)
    if as_json:
        echo(json.dumps(status_json(report), indent=2, ensure_ascii=False))
    else:
        echo(status_text(report, color=color), color=color)
    return 0 if report.healthy else 1
