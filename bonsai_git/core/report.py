"""Human and JSON reports of a migration (text in, text out; no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .lookup import cost_text, lookup_cost

if TYPE_CHECKING:  # typing only
    from .plan import MigrationPlan


class MigrationResult(Protocol):
    """What a report reads of a migrate run (transaction.MigrationResult has these fields)."""

    @property
    def plan(self) -> MigrationPlan | None: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def already_migrated(self) -> bool: ...
    @property
    def dry_run(self) -> bool: ...
    @property
    def warnings(self) -> Sequence[str]: ...


def migration_json(result: MigrationResult) -> dict[str, Any]:
    """The documented JSON shape of `migrate --json` (keys are stable; new keys may be added).

    {already_migrated, dry_run, commit (sha or null), boot_tokens_before, boot_tokens_after,
     section_count, sections: [{heading, line, domain, path, decided_by, score}], pinned_sections,
     domains: {name: {leaves, tokens}}, files: [paths], secret_warnings: ["path:line: kind (sha256:…)"]
     (never the value),
     preamble_moved: {path, tokens, keep: the .bonsai.toml line that keeps it in the trunk} or null,
     lookup: {leaves, median, p95, max, largest_index: {path, tokens} | null, depth, reads_median,
              index_files, index_tokens_median} | null}
    A pinned section's domain is "pinned" and its path MEMORY.md.  `lookup`: tokens from boot to a
    leaf's entry in the planned tree (lookup.py).
    """
    plan = result.plan
    out: dict[str, Any] = {"already_migrated": result.already_migrated, "dry_run": result.dry_run,
                           "commit": result.commit, "secret_warnings": list(result.warnings)}
    if plan is None:
        return out | {"boot_tokens_before": None, "boot_tokens_after": None, "section_count": None, "sections": [],
                      "pinned_sections": None, "domains": {}, "files": [], "lookup": None, "preamble_moved": None}
    return out | {
        "boot_tokens_before": plan.boot_tokens_before,
        "boot_tokens_after": plan.boot_tokens_after,
        "section_count": plan.sections,
        "sections": [{"heading": p.heading, "line": p.line, "domain": p.domain, "path": p.path,
                      "decided_by": p.decided_by, "score": p.score} for p in plan.placed],
        "pinned_sections": plan.pinned_sections,
        "domains": {d.name: {"leaves": len(d.leaves), "tokens": d.tokens} for d in plan.domains},
        "files": [path for path, _ in plan.files],
        "preamble_moved": _preamble_moved(plan),
        "lookup": lookup_cost(plan.file_map()).as_json(),
    }


def _preamble_moved(plan: MigrationPlan) -> dict[str, Any] | None:
    """Where the preamble went when it left the trunk, its tokens and the config line that keeps it."""
    from .plan import moved_preamble  # (plan.py is heavy: only a migrate run's report reads it)

    moved = moved_preamble(plan)
    if moved is None:
        return None
    path, tokens = moved
    return {"path": path, "tokens": tokens, "keep": f"preamble_tokens = {tokens}"}


def migration_text(result: MigrationResult) -> str:
    """A short, readable summary of a migrate run for the terminal."""
    plan = result.plan
    if result.already_migrated or plan is None:
        return "MEMORY.md is already migrated (bonsai markers present); nothing to do. Run bonsai-git reindex to refresh indexes."
    before, after = plan.boot_tokens_before, plan.boot_tokens_after
    saved = 100 * (before - after) / before if before else 0.0
    moved = _preamble_moved(plan)
    if result.dry_run:
        what = f"{plan.sections} sections" + (" and the preamble" if moved else "")
        head = f"Plan (dry run, nothing written): {what} into {len(plan.leaves)} leaf file(s) across {len(plan.domains)} domains"
    elif result.commit:
        head = f"Migrated MEMORY.md into {len(plan.domains)} domains in commit {result.commit[:12]}"
    else:
        head = f"Wrote the tree for {len(plan.domains)} domains (not committed: --no-commit)"
    cost = lookup_cost(plan.file_map())
    change = f"{saved:.0f}% less" if saved >= 0 else f"{-saved:.0f}% more: the trunk's index outweighs so small a memory"
    lines = [head, f"boot tokens: {before:,} -> {after:,} ({change} at every session start)", cost_text(cost)]
    for d in plan.domains:
        lines.append(f"  {d.name:<16} {len(d.leaves):>4} {'leaf ' if len(d.leaves) == 1 else 'leaves'} {d.tokens:>8,} tokens")
    if plan.pinned_sections:
        lines.append(f"  pinned in trunk  {plan.pinned_sections:>4} section(s)")
    if moved is not None:
        lines.append(f"The preamble (text before the first ##, ~{moved['tokens']:,} tokens) moves to {moved['path']}, "
                     f"out of boot; to keep it in MEMORY.md, add this line to .bonsai.toml "
                     f"{'before migrating' if result.dry_run else '(then bonsai-git rollback and migrate again)'}: "
                     f"{moved['keep']}")
    for path, heading, line in getattr(result, "taught", ()):
        lines.append(f"You placed {heading!r} in {path} (the rules put it elsewhere); "
                     + (f"to teach the rules, add to .bonsai.toml: {line}" if line else
                        "no keyword would place it there (regroup --all leaves it where you put it)"))
    if result.dry_run:
        lines.append("Sections (heading -> leaf path (decided by)):")
        lines += [f"  {p.heading or '(empty heading)'} -> {p.path} ({p.decided_by})" for p in plan.placed]
    if result.commit:
        lines.append("Review: git show --stat HEAD    Undo: bonsai-git rollback")
    elif result.dry_run:
        lines.append("Run without --dry-run to write and commit it; to correct placements first: "
                     "--plan-out plan.toml, edit it, then migrate --plan plan.toml.")
    else:  # leaves are indexed once git tracks them (one rule): stage before anything reindexes
        # Only the areas migrate writes (empty before it ran): never daily notes elsewhere under memory/.
        areas = ["MEMORY.md", "memory/_index.md", "memory/domains"]
        areas += [p for p, _ in plan.files if p == "memory/dates.md"]
        lines.append(f"Review with git status, then stage and commit it: git add -A -- {' '.join(areas)}")
    return "\n".join(lines)
