"""Memory health, rendered: a StatusReport as `bonsai-git status` JSON and terminal table, and
reflect's candidates as JSON and text (pure: data in, text out; the report comes from health.assess).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from .boot import CLAUDE_CODE_MAX_CHARS, CLAUDE_CODE_MAX_LINES
from .health import SCHEMA_VERSION, Candidate, Finding, StatusReport
from .layout import TRUNK
from .secretscan import mask_name
from .lookup import LookupCost, cost_text


def iso_utc(seconds: int) -> str:
    """Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_json(report: StatusReport) -> dict[str, Any]:
    """The documented `status --json` object (schema_version 1; see the module docstring)."""
    boot = report.boot
    cc = boot.claude_code
    return {
        "schema_version": SCHEMA_VERSION,
        "healthy": report.healthy,
        "migrated": report.migrated,
        "now": iso_utc(report.now),
        "boot": {
            "profile": boot.profile.name,
            "trunk_tokens": report.trunk_tokens,
            "tokens": boot.tokens,
            "total_chars": boot.total_chars,
            "total_cap": boot.profile.total_cap,
            "headroom_chars": boot.headroom,
            "files": [{"name": f.name, "chars": f.chars, "tokens": f.tokens, "cap": f.cap, "injected_chars": f.injected,
                       "lost_chars": f.lost, "truncated": f.truncated, "near_limit": f.near_limit} for f in boot.files],
            "loaded": {"loaded": report.loaded[0], "by": report.loaded[1]},
            "claude_code": None if cc is None else {
                "lines": cc.lines, "chars": cc.chars, "bytes": cc.bytes, "max_lines": CLAUDE_CODE_MAX_LINES,
                "max_chars": CLAUDE_CODE_MAX_CHARS, "max_bytes": CLAUDE_CODE_MAX_CHARS, "lost_lines": cc.lost_lines,
                "lost_chars": cc.lost_chars, "lost_bytes": cc.lost_bytes, "stripped_lines": cc.stripped,
                "fits": cc.fits},
        },
        "leaves": sum(d.leaves for d in report.domains),
        "leaf_tokens": sum(d.tokens for d in report.domains),
        "domains": [{"name": d.name, "leaves": d.leaves, "tokens": d.tokens,
                     "largest_leaf": {"path": d.largest[0], "tokens": d.largest[1]}} for d in report.domains],
        "stale": None if report.stale is None else list(report.stale),
        "archive": {"files": report.archived, "grace_days": report.thresholds.purge_days,
                    "due_for_purge": [{"path": p, "age_days": d} for p, d in report.due_for_purge]},
        "inbox": {"sections": report.inbox_sections, "tokens": report.inbox_tokens},
        "warnings": [{"kind": f.kind, "path": f.path, "line": f.line, "message": f.message} for f in report.findings],
        "notes": list(report.notes),
        "openclaw_provenance": report.provenance,
        "lookup": None if report.lookup is None else report.lookup.as_json(),
    }


def reflect_json(candidates: Iterable[Candidate], now: int) -> dict[str, Any]:
    """The documented `reflect --json` object: {schema_version, now, candidates: [{kind, path, reason, tokens, age_days}]}."""
    return {"schema_version": SCHEMA_VERSION, "now": iso_utc(now),
            "candidates": [{"kind": c.kind, "path": c.path, "reason": c.reason, "tokens": c.tokens,
                            "age_days": c.age_days} for c in candidates]}


def status_text(report: StatusReport, color: bool = False) -> str:
    """The terminal report: boot budget table, domains table, warnings, verdict (ANSI colour only if `color`)."""
    paint = _painter(color)
    lines = [*_boot_table(report, paint), "", *_domain_table(report)]
    if report.lookup is not None:
        lines.append(lookup_line(report.lookup))
    if report.archived:
        lines.append(f"  archive: {report.archived} file(s), {len(report.due_for_purge)} due for purge "
                     f"(older than {report.thresholds.purge_days} days)")
    if report.inbox_sections or report.inbox_tokens:
        lines.append(f"  inbox: {report.inbox_sections} section(s), ~{report.inbox_tokens:,} tokens after the end marker")
    lines += ["", *(f"note: {n}" for n in report.notes)] if report.notes else []
    if report.findings:
        lines += ["", paint(f"Warnings ({len(report.findings)})", "yellow")]
        lines += [f"  {_where(f)}: {f.message}" for f in report.findings]
    lines += ["", paint("Healthy.", "green") if report.healthy else
              paint(f"{len(report.findings)} warning(s).", "yellow")]
    return "\n".join(lines)


def lookup_line(cost: LookupCost) -> str:
    """One line on the lookup cost: tokens read from boot to a leaf's entry, the reads and depth of
    the path, and the index files' sizes (lookup.py)."""
    return "  " + cost_text(cost, f" over {cost.leaves} leaves", True)


def reflect_text(candidates: tuple[Candidate, ...]) -> str:
    """The terminal list of reflection candidates, one per line with its reason."""
    if not candidates:
        return "Nothing to review: no old general/ leaves, no oversized leaves or domains."
    lines = [f"{len(candidates)} candidate(s) to review:"]
    lines += [f"  {c.path}: {c.reason}" for c in candidates]
    return "\n".join(lines)


def _where(f: Finding) -> str:
    return f.path if f.line is None else f"{f.path}:{f.line}"


def _boot_table(report: StatusReport, paint: Callable[[str, str], str]) -> list[str]:
    boot = report.boot
    p = boot.profile
    cap = f"{p.file_cap:,} chars per file" + (f", {p.total_cap:,} in total" if p.total_cap is not None else "")
    if p.chain:
        cap = f"{p.total_cap or p.file_cap:,} bytes across {' / '.join(p.files)}, root folder first"
    elif p.name == "claude":
        cap = (f"auto memory: {CLAUDE_CODE_MAX_LINES} lines, then {p.file_cap:,} chars, comment lines stripped; "
               "a CLAUDE.md import is never cut")
    trunk = "n/a" if report.trunk_tokens is None else f"~{report.trunk_tokens:,}"
    state = "migrated" if report.migrated else "not migrated"
    loaded = (f"Loaded at boot: yes, by {report.loaded[1]}" if report.loaded[0]
              else paint(f"Loaded at boot: no: {report.loaded[1]}", "red"))
    lines = [f"Boot: {trunk} tokens in {TRUNK} ({state}); ~{boot.tokens:,} tokens in all boot files",
             f"{p.label}: {loaded}",
             f"Boot budget ({p.label}: {cap})",
             f"  {'file':<14}{p.unit:>9}{'cap':>9}{'used':>6}{'tokens':>9}  loaded"]
    for f in boot.files:
        used = f"{100 * f.chars // f.cap}%" if f.cap else "-"
        if f.truncated and p.name == "claude":
            loaded = paint(f"CUT at char {f.injected:,}: the last {f.lost:,} chars are never loaded", "red")
        elif f.truncated and p.chain:
            loaded = paint(f"CUT at byte {f.injected:,}: the last {f.lost:,} bytes are never loaded", "red")
        elif f.truncated:
            head = int(f.injected * p.head_ratio)
            loaded = paint(f"CUT: loses {f.lost:,} chars between char {head:,} and {f.chars - (f.injected - head):,}",
                           "red")
        else:
            loaded = paint("near cap", "yellow") if f.near_limit else "whole"
        lines.append(f"  {f.name:<14}{f.chars:>9,}{f.cap:>9,}{used:>6}{f.tokens:>9,}  {loaded}")
    if p.total_cap is not None and boot.headroom is not None:
        used = f"{100 * boot.total_chars // p.total_cap}%"
        lines.append(f"  {'total':<14}{boot.total_chars:>9,}{p.total_cap:>9,}{used:>6}{boot.tokens:>9,}  "
                     f"headroom {boot.headroom:,} {p.unit}")
    if p.chain and not any(f.name.rsplit("/", 1)[-1] == TRUNK for f in boot.files):
        lines.append(f"  {TRUNK} is not in {p.label}'s chain: a folder's AGENTS.md comes first, and Codex reads "
                     f"{TRUNK} only when project_doc_fallback_filenames lists it")
    cc = boot.claude_code
    if cc is not None:
        fit = "loads whole" if cc.fits else paint(f"{cc.lost_lines:,} lines ({cc.lost_chars:,} chars) would not load",
                                                  "red")
        stripped = f" ({cc.stripped:,} comment lines stripped)" if cc.stripped else ""
        lines.append(f"  Claude Code auto memory: {cc.lines:,} of {CLAUDE_CODE_MAX_LINES} lines, {cc.chars:,} of "
                     f"{CLAUDE_CODE_MAX_CHARS:,} chars{stripped}: {fit}")
    return lines


def _domain_table(report: StatusReport) -> list[str]:
    if not report.domains:
        return ["Domains: none (no leaves under memory/domains/)"]
    total_leaves = sum(d.leaves for d in report.domains)
    total_tokens = sum(d.tokens for d in report.domains)
    lines = [f"Domains ({len(report.domains)}, {total_leaves} leaves, ~{total_tokens:,} tokens)",
             f"  {'domain':<16}{'leaves':>7}{'tokens':>9}  largest leaf"]
    for d in report.domains:
        name = d.largest[0].rsplit("/", 1)[-1]
        # masked before padding, so the columns line up (the output layer would mask it anyway)
        lines.append(f"  {_pad(mask_name(d.name), 16)}{d.leaves:>7}{d.tokens:>9,}  {name} (~{d.largest[1]:,})")
    stale = "not checked" if report.stale is None else (f"{len(report.stale)} stale" if report.stale else "fresh")
    lines.append(f"  indexes: {stale}")
    return lines


def _pad(text: str, width: int) -> str:
    """`text` left-aligned in `width` terminal columns (wide CJK characters take two)."""
    columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - columns)


_COLORS = {"red": "31", "green": "32", "yellow": "33"}


def _painter(color: bool) -> Callable[[str, str], str]:
    def paint(text: str, name: str) -> str:
        return f"\x1b[{_COLORS[name]}m{text}\x1b[0m" if color else text

    return paint
