"""`bonsai-git reflect`: leaves and domains worth reviewing (old general/ leaves, oversized leaves and
domains), with reasons (status.reflection_candidates); writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from .common import Echo


def run(workspace: Path, *, as_json: bool, echo: Echo) -> int:
    """Print the reflection candidates as text or JSON (ages counted from the survey's clock)."""
    from ..core.health import reflection_candidates
    from ..core.health_report import reflect_json, reflect_text
    from ..survey import survey_workspace

    survey = survey_workspace(workspace)
    if survey.shallow:  # ages are unknown there: old general/ leaves cannot be found
        from ..history import FETCH_ADVICE

        echo(f"note: shallow clone: leaf ages need the history it does not have and were not judged; {FETCH_ADVICE}",
             err=True)
    candidates = reflection_candidates(survey)
    if as_json:
        echo(json.dumps(reflect_json(candidates, survey.now), indent=2, ensure_ascii=False))
    else:
        echo(reflect_text(candidates))
    return 0
