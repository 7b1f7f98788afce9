"""`bonsai-git explain`: why a section goes where it goes (pure: text in, records and text out).

For each heading (with an optional body), or for every `##` section of a file in context (its `#`
group, the preamble's names and the document's dominant domain count, as in a migration: the
records come from the migration's own plan, so `explain --file` and migrate always agree), one
record: heading, line (None for a bare heading), domain (`pinned` for a pin rule), the step that
decided (classify.Classification.decided_by, or `pin`), the score, the words that scored (an
owner's or agent's name shows as `Ada (agent)`), the runner-up and its score, `document` (the
document's main domain a `document` decision took, or that a `fallback` did not use), and the
leaf path a migration would use (files only).  The domain table with each
domain's one-line scope comes with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .classify import (HOUSEHOLD_MEMORY, ORGANISATION, RELATIVE, WORKING_MEMORY, Classification, SectionInput, body_of,
                       classify_document, classify_section, is_pinned)
from .config import FALLBACK_DOMAIN, Config, domain_scope
from .errors import BadInput
from .plan import PINNED, moved_preamble, plan_migration
from .sections import split_sections


def explain_headings(headings: Sequence[str], body: str, config: Config) -> list[dict[str, Any]]:
    """One record per heading (str), each classified with `body` (str, may be "") and no group."""
    out = []
    for heading in headings:
        if is_pinned(heading, config):
            out.append(_record(heading, None, PINNED, "pin", None, None))
        else:
            c = classify_section(SectionInput(heading, body), config)
            out.append(_record(heading, None, c.domain, c.decided_by, c, None))
    return out


def heading_key(heading: str) -> str:
    """How `explain HEADING` matches a heading to a section's: stripped, case-folded, inner spaces collapsed."""
    return " ".join(heading.split()).casefold()


def leaf_record(leaf_path: str, now: str, heading: str, c: Classification) -> dict[str, Any]:
    """The record for a leaf of a migrated tree (`leaf_path` workspace-relative, in domain `now`,
    `heading` its `##` heading) that the current rules place by `c` (lifecycle.classify_leaves):
    `path` and `now` say where it is (a move, a plan choice or older rules may have put it elsewhere)."""
    return _record(heading, None, c.domain, c.decided_by, c, leaf_path) | {"now": now}


def explain_file(text: str, config: Config) -> list[dict[str, Any]]:
    """One record per `##` section of `text` (a whole Markdown file), classified as migrate would.

    Records carry the leaf `path` a migration would use, unless migrate would refuse the file
    (an already migrated trunk's markers): then the sections are explained without paths.
    """
    return explain_memory(text, config)[0]


def explain_memory(text: str, config: Config) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(explain_file's records for `text`, the preamble leaf or None), from one plan.

    The preamble leaf is {"path", "tokens"} when migrating would move the preamble, the text before
    the first `##`, out of the trunk into a leaf (plan.py: over `preamble_tokens`); None when it stays
    or migrate would refuse the file.
    """
    try:
        plan = plan_migration(text, config)
    except BadInput:  # e.g. an already migrated trunk (marker lines): explain without leaf paths
        sections = split_sections(text).sections
        kept = [s for s in sections if not is_pinned(s.heading, config)]
        inputs = [SectionInput(s.heading, body_of(s.text), s.group) for s in kept]
        found = iter(classify_document(inputs, config, split_sections(text).preamble))
        out = []
        for s in sections:
            c = None if is_pinned(s.heading, config) else next(found)
            out.append(_record(s.heading, s.line, c.domain if c else PINNED, c.decided_by if c else "pin", c, None))
        return out, None
    moved = moved_preamble(plan)
    records = [_record(p.heading, p.line, p.domain, p.decided_by, p.classification, p.path) for p in plan.placed]
    return records, None if moved is None else {"path": moved[0], "tokens": moved[1]}


def scope_table(config: Config) -> list[dict[str, str]]:
    """The domains in table order (ties break in this order), each with its one-line scope."""
    names = [name for name, _ in config.domains]
    if FALLBACK_DOMAIN not in names:
        names.append(FALLBACK_DOMAIN)
    return [{"name": n, "scope": domain_scope(n, config.scopes)} for n in names]


def render_explain(entries: Sequence[dict[str, Any]], config: Config) -> str:
    """The text report: one line per record, then the domain table with scopes."""
    lines = [_line(e) for e in entries]
    if lines:
        lines.append("")
    lines.append("Domains (table order: an equal score goes to the earlier one):")
    lines += [f"  {d['name']:<15} {d['scope']}" for d in scope_table(config)]
    return "\n".join(lines)


def _record(heading: str, line: int | None, domain: str, decided_by: str, c: Classification | None,
            path: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "heading": heading, "line": line, "domain": domain, "decided_by": decided_by,
        "score": c.score if c else 0.0, "words": list(c.words) if c else [],
        "runner_up": c.runner_up if c else None, "runner_up_score": c.runner_up_score if c else 0.0,
        "document": c.document if c else None,
    }
    if path is not None:
        record["path"] = path
    return record


def _line(e: dict[str, Any]) -> str:
    where = f"line {e['line']}: " if e["line"] is not None else ""
    head = f"{where}{e['heading']!r} -> {e['domain']}"
    if "path" in e and e.get("now", e["domain"]) != e["domain"]:
        head += f" (the rules today; it is in {e['now']}: {e['path']})"
    elif "path" in e:
        head += f" ({e['path']})"
    if e["decided_by"] == "pin":
        return f"{head}: pinned by a pin rule, stays verbatim in the trunk"
    if e["decided_by"] == "fallback" and e.get("document") and e["runner_up"]:
        return (f"{head}: decided by fallback: the document's main domain {e['document']} was not used, "
                f"the body points to {e['runner_up']} ({e['runner_up_score']:g}, too little to decide)")
    if e["decided_by"] == "fallback":
        return f"{head}: decided by fallback (no keyword in the heading, body or group)"
    if e["decided_by"] == "document":
        leaning = [w for w in e["words"] if w in (WORKING_MEMORY, HOUSEHOLD_MEMORY)]
        words = ", ".join(f'"{w}"' for w in e["words"] if w not in leaning)
        main = (f"domain the document leans to, {leaning[0][1:-1]} (no domain holds half its sections; more went "
                f"to {e['domain']} than to any other)" if leaning else "document's main domain")
        return (f"{head}: decided by document: no signal of its own decides, and nothing in it contradicts the "
                f"{main}" + (f" (body words for it: {words})" if words else ""))
    if e["decided_by"] == "name" and e["words"][1:] == [RELATIVE]:  # `Mamá`, `the grandkids`: no honorific
        return f"{head}: decided by name: the heading names a relative ({e['words'][0]!r}: a kin word)"
    if e["decided_by"] == "name" and len(e["words"]) == 2 and e["words"][1].endswith(ORGANISATION):
        kind = "a company" if e["domain"] == "business" else "a group"
        return (f"{head}: decided by name: the heading is an organisation's name ({e['words'][0]!r}: "
                f"{e['words'][1].removesuffix(ORGANISATION).strip()!r} names {kind})")
    if e["decided_by"] == "name":
        name, cues = (e["words"] or [""])[0], ", ".join(f'"{w}"' for w in e["words"][1:]) or "an honorific"
        return f"{head}: decided by name: the heading is a person's name ({name!r}) and the body describes a person ({cues})"
    words = ", ".join(f'"{w}"' for w in e["words"]) or "none"
    runner = f"{e['runner_up']} {e['runner_up_score']:g}" if e["runner_up"] else "none"
    return f"{head}: decided by {e['decided_by']}, score {e['score']:g} (words: {words}); runner-up: {runner}"
