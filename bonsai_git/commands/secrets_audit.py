"""`bonsai-git secrets-audit`: list the secret-looking values the history of memory holds (audit.py),
never the values, and the two steps that fix it; exit 1 when it finds any."""

from __future__ import annotations

import json
from pathlib import Path

from .common import Echo

FIX_STEPS = (
    "Rotate each key first, at the service that issued it (revoke it, make a new one, keep the new one in a "
    "secret manager): every clone and fork already holds the old one, and no rewrite takes it back.",
    "Then rewrite history with git filter-repo (https://github.com/newren/git-filter-repo; bonsai-git never "
    "runs it): put each value in a file outside the repository and run `git filter-repo --replace-text <that "
    "file>`, or drop a whole file with `git filter-repo --invert-paths --path <path>`; then force-push every "
    "branch and have every clone re-clone.",
)


def run(workspace: Path, *, as_json: bool, echo: Echo) -> int:
    """Audit the history of the repository holding `workspace` and print the findings (text or JSON:
    schema_version 1); returns 1 when there are any, 0 otherwise.  Raises BadInput for a malformed
    `.bonsai.toml` of a workspace a finding belongs to."""
    from ..audit import audit_history
    from ..core.secretscan import shown_path
    from ..gitrepo import open_workspace
    from ..secrethook import workspace_of
    from ..workspace import load_config

    top = open_workspace(workspace).top
    allows: dict[str, frozenset[str]] = {}

    def allow_for(path: str) -> frozenset[str]:
        folder = workspace_of(path)
        if folder not in allows:
            allows[folder] = load_config(top / folder if folder else top).secret_allow
        return allows[folder]

    result = audit_history(top, allow_for)
    commits = len({f.commit for f in result.findings})
    if as_json:
        echo(json.dumps({"schema_version": 1, "commits_read": result.commits,
                         "findings": [{"commit": f.commit, "path": f.path, "line": f.line, "kind": f.kind,
                                       "fingerprint": f.fingerprint} for f in result.findings],
                         "fix": list(FIX_STEPS) if result.findings else []}, indent=2, ensure_ascii=False))
    else:
        for f in result.findings:
            echo(f"{f.commit[:12]} {shown_path(f.path)}:{f.line}: {f.kind} ({f.fingerprint})")
        if not result.findings:
            echo(f"No secret-looking values in the history of MEMORY.md and memory/ ({result.commits} commits read).")
    if result.findings:
        echo(f"bonsai-git: {len(result.findings)} secret-looking value(s) in {commits} commit(s) of the memory "
             f"history ({result.commits} commits read; kinds and fingerprints shown, never values). To fix:", err=True)
        for n, step in enumerate(FIX_STEPS, 1):
            echo(f"  {n}. {step}", err=True)
        echo("A false alarm? List its sha256:… in .bonsai.toml [secrets] allow; the audit then skips it.", err=True)
        return 1
    return 0
