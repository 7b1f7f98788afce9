"""Leaf lifecycle as reviewable commits: move a leaf to another domain, archive leaves, purge the archive.

Each command is one `transaction.apply_changes` run (lock, write, verify, one commit with a
`Bonsai-Op` trailer, restore on any failure), so `git revert` of its commit undoes it:
- **move** relocates a leaf to `memory/domains/<domain>/` (git records a rename: the old path
  is deleted and the same bytes written at the new one) and regenerates the indexes.  The
  leaf's bytes never change (the seed's move script rewrote any body line starting with
  `domain:`, a data-loss bug).  A name already taken in the target domain (compared
  case-insensitively) is refused.
- **archive** relocates leaves to `memory/archive/<domain>/<name>`: not a leaf any more (not
  indexed, not in the trunk) but still in the workspace for grep and memory search.  A name
  already taken in the archive gets `-2`, `-3`, ... (archiving a second "open-loops" later is normal).
- **regroup** re-applies the current classifier and `.bonsai.toml` to a migrated tree: by default
  it moves only the leaves in `general/` that now classify elsewhere; `all_leaves` re-sorts every
  leaf except those a `move` commit placed (their path was added by a commit with the trailer
  `Bonsai-Op: move`: a person's choice outranks the rules).  Leaf bytes never change; a name
  taken in the target domain gets `-2`, `-3`, ...; single-file domains are neither source nor target.
  A leaf in a group sub-folder (`general/seo/audit.md`, as migrate nests a `#` group) keeps that
  folder in a target domain too large for one index, when 2+ leaves would share it there;
  otherwise it lands flat in the target domain.
- **purge** deletes archived files whose archiving commit (the newest commit that added them
  under `memory/archive/`) is older than the grace period, compared in seconds
  (`status.is_due_for_purge`, the rule `status` lists them by); git history keeps them.
Generated files come from `indexes.render_tree`, as `reindex` renders them, so `bonsai-git
reindex --check` is clean afterwards (checked before committing).

Refusals (exit 3, nothing written): no commit yet; a merge/rebase/... in progress; anything
staged (git commit would take it along); uncommitted changes under the memory tree (the
trunk, `memory/domains/`, `memory/_index.md`, `memory/dates.md`, `memory/archive/`) or on a
purged path; a path .gitignore hides; a trunk `reindex` would refuse (not migrated, text typed
inside the generated block, conflict markers: move, archive); an unknown or ambiguous leaf; a
bad domain name; a name collision (move).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .core.classify import Classification
from .workspace import load_config
from .core.config import FALLBACK_DOMAIN, MAX_DOMAIN_NAME, SINGLE_FILE_DOMAINS, Config, is_domain_name
from .core.layout import CHOSEN_TRAILER
from .core.errors import BadInput, Failed, NothingToDo, Refused
from . import gitrun
from .history import refuse_if_shallow
from .gitrepo import RepoContext, open_workspace, workspace_lock
from .preconditions import check_clean_for_commit, check_committable, check_identity
from .core.indexes import domain_fits_one_index, domain_stats, render_tree
from .reindex import existing_index_paths, generated_index_paths, read_trunk, reindex_workspace
from .core.health import age_days, is_due_for_purge
from .survey import ARCHIVE_DIR, archive_dates, now_from_env, tracked_paths
from .transaction import apply_changes
from .core.layout import DOMAINS_DIR, MEMORY_DIR, ROOT_INDEX, TRUNK, Leaf, TrunkParts, leaf_location
from .core.slugs import name_key
from .tree import Reads, read_leaves, remove_empty_folders, walk_files, walk_leaf_paths

TRAILER = "Bonsai-Op"
MEMORY_AREAS = (TRUNK, DOMAINS_DIR, ROOT_INDEX, *SINGLE_FILE_DOMAINS.values(), ARCHIVE_DIR)
_DURATION = re.compile(r"^(\d+)\s*([dw]?)$")


@dataclass(frozen=True, slots=True)
class LifecyclePlan:
    """What a lifecycle command changes.

    `changes`: {workspace-relative path: new bytes, or None to delete}, sorted; `moves`:
    (from, to) leaf relocations; `purged`: (archived path, age in days); `message`: the commit message.
    """

    op: str
    changes: tuple[tuple[str, bytes | None], ...]
    moves: tuple[tuple[str, str], ...]
    purged: tuple[tuple[str, int], ...]
    message: str

    @property
    def generated(self) -> tuple[str, ...]:
        """The generated files (indexes, trunk) this plan rewrites or deletes."""
        moved = {p for pair in self.moves for p in pair} | {p for p, _ in self.purged}
        return tuple(p for p, _ in self.changes if p not in moved)


@dataclass(frozen=True, slots=True)
class LifecycleResult:
    """A lifecycle run: its plan, the commit (None on --dry-run / --no-commit), and whether it was a dry run."""

    plan: LifecyclePlan
    commit: str | None
    dry_run: bool


# ----------------------------------------------------------------------------- pure core


def parse_duration(text: str) -> int:
    """Days in a duration like `180d`, `26w` or `180` (days).  Raises BadInput otherwise."""
    m = _DURATION.match(text.strip().lower())
    if m is None:
        raise BadInput(f"--older-than {text!r}: not a duration; use days or weeks, e.g. 180d or 26w")
    return int(m.group(1)) * (7 if m.group(2) == "w" else 1)


def check_domain_name(domain: str) -> None:
    """Raise BadInput (one line) unless `domain` is a usable target domain (config.is_domain_name, not single-file)."""
    shown = repr(domain if len(domain) <= 40 else domain[:40] + "...")
    if len(domain) > MAX_DOMAIN_NAME:
        raise BadInput(f"{shown}: domain name too long ({len(domain)} chars); use at most {MAX_DOMAIN_NAME}")
    if domain in SINGLE_FILE_DOMAINS:
        raise BadInput(f"{shown}: not a domain name for a leaf: {domain} is the one file "
                       f"{SINGLE_FILE_DOMAINS[domain]}, not a folder")
    if not is_domain_name(domain):
        lowered = domain.lower()
        hint = f"; did you mean {lowered!r}?" if lowered != domain and is_domain_name(lowered) else ""
        raise BadInput(f"{shown}: not a domain name; use lowercase letters, digits and '-', not starting with '-'"
                       + hint)


def check_known_domain(domain: str, known: Iterable[str]) -> None:
    """Refuse (exit 3, one line) a `move` to a domain that is neither in the domain table (defaults and
    `.bonsai.toml`) nor an existing folder under memory/domains/: most such names are typos (`famiy`),
    and a move would otherwise create and commit a new domain.  The message names the closest known
    domain (difflib) and `--new-domain`, the flag that creates one on purpose.  `known`: domain names."""
    import difflib

    names = sorted(set(known) - set(SINGLE_FILE_DOMAINS))
    if domain in names:
        return
    same = [n for n in names if n.casefold() == domain.casefold()]  # `Work` for `work`
    close = same or difflib.get_close_matches(domain, names, n=1, cutoff=0.8)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise Refused(f"{domain!r}: unknown domain; {hint}known: {', '.join(names)}; "
                  f"pass --new-domain to create it")


def resolve_leaf(ref: str, leaf_paths: Sequence[str]) -> str:
    """The leaf path (workspace-relative) that `ref` names: a path, `<domain>/<name>`, or a unique name.

    A name matches a leaf's file name with or without `.md`, exactly, else case-insensitively.
    Raises Refused when nothing or more than one leaf matches.
    """
    want = ref.replace("\\", "/").removeprefix("./").strip("/")
    for candidate in (want, f"{DOMAINS_DIR}/{want}", f"{DOMAINS_DIR}/{want}.md"):
        if candidate in leaf_paths:
            return candidate
    tail = want if want.endswith(".md") else want + ".md"
    for fold in (False, True):
        def norm(s: str, fold: bool = fold) -> str:
            return name_key(s) if fold else s
        hits = [p for p in leaf_paths if norm(p).endswith("/" + norm(tail)) or norm(p) == norm(tail)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise Refused(f"{ref}: names {len(hits)} leaves ({', '.join(hits[:4])}); give the path instead")
    raise Refused(f"{ref}: no such leaf under {DOMAINS_DIR}/ or memory/dates.md; see bonsai-git status")


def relocate(leaves: Iterable[Leaf], moves: Mapping[str, str]) -> tuple[Leaf, ...]:
    """The leaves after `moves` ({old path: new path}): a leaf moved out of `memory/domains/` is gone."""
    out = []
    for leaf in leaves:
        target = moves.get(leaf.path, leaf.path)
        location = leaf_location(target)
        if location is not None:
            out.append(Leaf(location[0], location[1], leaf.text))
    return tuple(out)


def relocation_changes(
    leaves: Sequence[Leaf], leaf_bytes: Mapping[str, bytes], moves: Mapping[str, str], trunk: TrunkParts,
    config: Config, existing_indexes: Iterable[str], current: Mapping[str, bytes | None],
) -> dict[str, bytes | None]:
    """Every change a relocation makes: old paths deleted, the same bytes at the new paths, and the
    generated files (`render_tree`) whose bytes differ from `current` ({path: bytes or None})."""
    changes: dict[str, bytes | None] = {}
    for old, new in moves.items():
        changes[old] = None
        changes[new] = leaf_bytes[old]
    for path, text in render_tree(relocate(leaves, moves), trunk, config, existing_indexes).items():
        wanted = None if text is None else text.encode("utf-8")
        if current.get(path) != wanted:
            changes[path] = wanted
    return dict(sorted(changes.items()))


def move_target(leaf_path: str, domain: str, taken: Iterable[str]) -> str:
    """The path `leaf_path` gets in `domain`; raises Refused when the name is taken (case-insensitively) or invalid."""
    location = leaf_location(leaf_path)
    assert location is not None
    if location[0] in SINGLE_FILE_DOMAINS:
        raise Refused(f"{leaf_path}: the single-file domain {location[0]!r} cannot be moved; move its sections by hand")
    check_domain_name(domain)
    if location[0] == domain:
        raise NothingToDo(f"{leaf_path}: already in domain {domain!r}; nothing to move")
    target = f"{DOMAINS_DIR}/{domain}/{location[1]}"
    clash = next((p for p in taken if name_key(p) == name_key(target)), None)
    if clash is not None:
        raise Refused(f"{clash}: already exists; rename one of the two leaves, then move again")
    return target


def archive_target(leaf_path: str, taken: Iterable[str]) -> str:
    """`memory/archive/<domain>/<name>` for a leaf, with `-2`, `-3`, ... when that name is taken (case-insensitive)."""
    location = leaf_location(leaf_path)
    assert location is not None
    domain, name = location
    taken_folded = {name_key(p) for p in taken}
    stem = name[:-3]
    for n in range(1, 10_000):
        target = f"{ARCHIVE_DIR}/{domain}/{stem}{'' if n == 1 else f'-{n}'}.md"
        if name_key(target) not in taken_folded:
            return target
    raise Refused(f"{leaf_path}: too many archived files named {name}; purge some first")  # pragma: no cover


def due_for_purge(added: Mapping[str, int], tracked: Iterable[str], now: int, grace_days: int) -> tuple[tuple[str, int], ...]:
    """(path, age in days) of tracked archived files whose archiving commit is older than `grace_days`, sorted.

    "Older" is `status.is_due_for_purge` (in seconds), so purge deletes exactly what status lists.
    """
    out = []
    for path in sorted(set(tracked)):
        when = added.get(path)
        if is_due_for_purge(when, now, grace_days):
            out.append((path, age_days(when, now) or 0))
    return tuple(out)


def move_message(old: str, new: str) -> str:
    """The move commit message (subject, the rename, the Bonsai-Op trailer)."""
    old_loc, new_loc = leaf_location(old), leaf_location(new)
    assert old_loc is not None and new_loc is not None
    return (f"bonsai: move {old_loc[1]} from {old_loc[0]} to {new_loc[0]}\n\n{old} -> {new}\n\n"
            f"{TRAILER}: move\n")


def moves_message(moves: Sequence[tuple[str, str]], domain: str) -> str:
    """The commit message of a move of several leaves to `domain` (one line per rename, the trailer)."""
    if len(moves) == 1:
        return move_message(*moves[0])
    body = [f"{old} -> {new}" for old, new in moves]
    return "\n".join([f"bonsai: move {len(moves)} leaves to {domain}", "", *body, "", f"{TRAILER}: move"]) + "\n"


def classify_leaves(leaves: Sequence[Leaf], config: Config, preamble: str = "") -> list[tuple[Leaf, Classification]]:
    """Each leaf (single-file domains aside, in path order) with where the current rules place it.

    A leaf is classified by its first `##` section's heading and body (and its sub-folder's name as
    the `#` group), with the whole tree as the document (its dominant domain counts, as in a
    migration) and `preamble` (the trunk's pinned text, str) naming the owner and the agent.
    Used by regroup and by `explain HEADING` in a migrated workspace, so the two agree.  Pure.
    """
    from .core.classify import SectionInput, body_of, classify_document
    from .core.sections import split_sections

    movable = sorted((leaf for leaf in leaves if leaf.domain not in SINGLE_FILE_DOMAINS), key=lambda leaf: leaf.path)
    inputs = []
    for leaf in movable:
        doc = split_sections(leaf.text)
        first = doc.sections[0] if doc.sections else None
        # A group sub-folder stands for the `#` group heading migrate classified the section under.
        group = _folder_of(leaf.name).replace("/", " ").replace("-", " ")
        inputs.append(SectionInput(first.heading, body_of(first.text), group) if first else
                      SectionInput("", leaf.text, group))
    return list(zip(movable, classify_document(inputs, config, preamble)))


def regroup_moves(leaves: Sequence[Leaf], config: Config, *, all_leaves: bool = False,
                  keep: Iterable[str] = (), preamble: str = "") -> dict[str, tuple[str, Classification]]:
    """{old leaf path: (new path, why)} for the leaves the current rules place in another domain.

    Every leaf (single-file domains aside) is classified as classify_leaves says.
    Candidates: leaves in `general` (or every leaf with `all_leaves`), minus the paths in `keep`
    (placed by a `move`).  A leaf stays when the rules give its own domain, `general` or a
    single-file domain, or only the tree's dominant domain (no word of its own points there).
    A target name taken (case-insensitively) gets `-2`, `-3`, ... (its bytes are untouched either way);
    a leaf keeps its group sub-folder as `_group_folders_kept` says.  Pure; deterministic (leaf path order).
    """
    kept = set(keep)
    chosen: list[tuple[Leaf, Classification]] = []
    for leaf, decision in classify_leaves(leaves, config, preamble):
        new = decision.domain
        if leaf.path in kept or (not all_leaves and leaf.domain != FALLBACK_DOMAIN):
            continue
        if new in (leaf.domain, FALLBACK_DOMAIN) or new in SINGLE_FILE_DOMAINS or decision.decided_by == "document":
            continue
        chosen.append((leaf, decision))
    grouped = _group_folders_kept(leaves, chosen, config)
    taken = {name_key(leaf.path) for leaf in leaves}
    out: dict[str, tuple[str, Classification]] = {}
    for leaf, decision in chosen:
        folder = _folder_of(leaf.name) if (decision.domain, _folder_of(leaf.name)) in grouped else ""
        target = _free_path(f"{DOMAINS_DIR}/{decision.domain}/" + (f"{folder}/" if folder else ""),
                            PurePosixPath(leaf.name).name[: -len(".md")], taken)
        taken.add(name_key(target))
        out[leaf.path] = (target, decision)
    return out


def _group_folders_kept(leaves: Sequence[Leaf], chosen: Sequence[tuple[Leaf, Classification]], config: Config
                        ) -> set[tuple[str, str]]:
    """(target domain, sub-folder) pairs whose incoming leaves keep their group folder.

    A moved leaf in a sub-folder (a `#` group's, as migrate nests them) keeps it when its target
    domain, with every incoming leaf, would be too large for one index (`indexes.domain_fits_one_index`)
    and 2+ leaves (there already, or incoming) would share the folder there; else it lands flat.
    """
    incoming: dict[str, list[Leaf]] = {}
    for leaf, decision in chosen:
        incoming.setdefault(decision.domain, []).append(leaf)
    kept: set[tuple[str, str]] = set()
    for domain, movers in sorted(incoming.items()):
        there = [leaf for leaf in leaves if leaf.domain == domain]
        counts: dict[str, int] = {}
        for leaf in [*there, *movers]:
            counts[_folder_of(leaf.name)] = counts.get(_folder_of(leaf.name), 0) + 1
        folders = {f for f in map(_folder_of, (m.name for m in movers)) if f and counts[f] >= 2}
        if not folders:
            continue
        after = there + [Leaf(domain, PurePosixPath(m.name).name, m.text) for m in movers]
        if not domain_fits_one_index(domain_stats(after, config.estimator)[0], config):
            kept |= {(domain, f) for f in folders}
    return kept


def _folder_of(name: str) -> str:
    """The sub-folder part of a leaf's name in its domain ("" when flat)."""
    return name.rsplit("/", 1)[0] if "/" in name else ""


def _free_path(where: str, stem: str, taken: Iterable[str]) -> str:
    """`<where><stem>.md`, or with `-2`, `-3`, ... while that path is in `taken` (paths in slugs.name_key form)."""
    folded = taken if isinstance(taken, set) else set(taken)
    target, n = f"{where}{stem}.md", 1
    while name_key(target) in folded:
        n += 1
        target = f"{where}{stem}-{n}.md"
    return target


def regroup_message(moves: Mapping[str, tuple[str, Classification]], all_leaves: bool) -> str:
    """The regroup commit message: subject, one line per move with the step that decided, the trailer."""
    what = "every leaf" if all_leaves else "general/"
    body = [f"{old} -> {new} ({why.decided_by}: {', '.join(why.words) or why.domain})"
            for old, (new, why) in sorted(moves.items())]
    subject = f"bonsai: regroup {len(moves)} {'leaf' if len(moves) == 1 else 'leaves'} ({what}, current rules)"
    return "\n".join([subject, "", *body, "", f"{TRAILER}: regroup"]) + "\n"


def archive_message(moves: Sequence[tuple[str, str]], reason: str | None) -> str:
    """The archive commit message: subject, the reason, one line per archived leaf, the trailer."""
    what = PurePosixPath(moves[0][0]).name if len(moves) == 1 else f"{len(moves)} leaves"
    body = [f"Reason: {' '.join(reason.split())}", ""] if reason and reason.strip() else []
    body += [f"{old} -> {new}" for old, new in moves]
    return "\n".join([f"bonsai: archive {what}", "", *body, "", f"{TRAILER}: archive"]) + "\n"


def purge_message(purged: Sequence[tuple[str, int]], grace_days: int) -> str:
    """The purge commit message: subject, one line per file with its age, how to get it back, the trailer."""
    subject = f"bonsai: purge {len(purged)} archived file{'' if len(purged) == 1 else 's'} older than {grace_days} days"
    body = [f"{path} (archived {days} days ago)" for path, days in purged]
    body += ["", "git history keeps them: git revert this commit to bring them back."]
    return "\n".join([subject, "", *body, "", f"{TRAILER}: purge"]) + "\n"


# ----------------------------------------------------------------------------- shell


def move_leaf(workspace: Path, ref: str, domain: str, *, dry_run: bool = False, no_commit: bool = False,
              no_verify: bool = False) -> LifecycleResult:
    """`bonsai-git move`: relocate one leaf to `domain` and reindex, as one commit (see move_leaves)."""
    return move_leaves(workspace, [ref], domain, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def move_leaves(workspace: Path, refs: Sequence[str], domain: str, *, dry_run: bool = False, no_commit: bool = False,
                no_verify: bool = False, new_domain: bool = False) -> LifecycleResult:
    """`bonsai-git move`: relocate leaves to `domain` and reindex, as one commit.

    Each ref is a leaf path or unique name (see resolve_leaf); a leaf named twice moves once.
    `domain` must be in the domain table or already have a folder, unless `new_domain` (check_known_domain).
    Raises Refused/BadInput (exit 3, nothing written) for an unknown domain, the first bad ref, a name
    taken in the target domain (or by two of the moved leaves), a leaf already there; Failed or
    Interrupted after a restore.
    """
    check_domain_name(domain)  # first: a bad name never reaches the file system (ENAMETOOLONG)

    def known(ctx: RepoContext) -> None:
        root = ctx.workspace / DOMAINS_DIR
        target = root / domain
        if (target.exists() or target.is_symlink()) and (target.is_symlink() or not target.is_dir()):
            raise Refused(f"{DOMAINS_DIR}/{domain}: not a folder (a file or a link is in the domain's place); "
                          f"move or rename it first")
        if not new_domain:
            folders = [d.name for d in root.iterdir() if d.is_dir() and is_domain_name(d.name)] if root.is_dir() else []
            check_known_domain(domain, [d for d, _ in load_config(ctx.workspace).domains] + folders)

    return _relocate_leaves(
        workspace, refs, "move", check=known,
        taken=lambda ctx, paths: [*paths, *_files_under(ctx, f"{DOMAINS_DIR}/{domain}")],
        target=lambda old, taken: move_target(old, domain, [p for p in taken if p != old]),
        message=lambda moves: moves_message(sorted(moves.items()), domain),
        dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def _relocate_leaves(workspace: Path, refs: Sequence[str], op: str, *,
                     taken: Callable[[RepoContext, Sequence[str]], list[str]], target: Callable[[str, list[str]], str],
                     message: Callable[[dict[str, str]], str], dry_run: bool, no_commit: bool,
                     no_verify: bool, check: Callable[[RepoContext], None] | None = None) -> LifecycleResult:
    """Move and archive: resolve `refs` to leaves, give each its `target(old, taken paths)` (a path
    it takes is taken for the next), and commit the relocation with `message(moves)`.  `check(ctx)`,
    when given, runs first under the lock (it raises Refused to stop before anything is read or written)."""
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        if check is not None:
            check(ctx)
        check_clean_for_commit(ctx, MEMORY_AREAS)
        reads = Reads(ctx.workspace)  # the one read the plan is made from and the swap checks against
        _trunk_bytes, trunk = read_trunk(ctx.workspace, reads)  # the checks reindex makes (text typed in the block, ...)
        paths = walk_leaf_paths(ctx.workspace)
        olds = list(dict.fromkeys(resolve_leaf(_workspace_ref(ctx, r), paths) for r in refs))
        in_use = taken(ctx, paths)
        moves: dict[str, str] = {}
        for old in olds:
            moves[old] = target(old, in_use)
            in_use.append(moves[old])
        plan = _relocation_plan(ctx, reads, paths, trunk, moves, op, message(moves))
        return _apply(ctx, plan, reads, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def regroup_workspace(workspace: Path, *, all_leaves: bool = False, dry_run: bool = False, no_commit: bool = False,
                      no_verify: bool = False) -> LifecycleResult:
    """`bonsai-git regroup`: move leaves the current rules place elsewhere (regroup_moves), as one commit
    with the trailer `Bonsai-Op: regroup`.  Nothing to move: a plan without changes, no commit.

    Raises Refused/BadInput (exit 3, nothing written), Failed or Interrupted after a restore.
    """
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        check_clean_for_commit(ctx, MEMORY_AREAS)
        reads = Reads(ctx.workspace)
        _trunk_bytes, trunk = read_trunk(ctx.workspace, reads)
        paths = walk_leaf_paths(ctx.workspace)
        leaves = read_leaves(ctx.workspace, paths, reads)
        if all_leaves:  # which leaves a `move` placed is in history
            refuse_if_shallow(ctx.workspace, "regroup --all's lookup of the leaves `bonsai-git move` placed")
        keep = _placed_by_move(ctx) if all_leaves else set()
        found = regroup_moves(leaves, load_config(ctx.workspace), all_leaves=all_leaves, keep=keep,
                              preamble=trunk.pinned)
        moves = {old: new for old, (new, _why) in found.items()}
        if not moves:
            return LifecycleResult(LifecyclePlan("regroup", (), (), (), ""), None, dry_run)
        plan = _relocation_plan(ctx, reads, paths, trunk, moves, "regroup", regroup_message(found, all_leaves))
        return _apply(ctx, plan, reads, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def _placed_by_move(ctx: RepoContext) -> set[str]:
    """Workspace-relative leaf paths the user chose: added by a commit with the trailer `Bonsai-Op: move`,
    or named by a migration's `Bonsai-Chosen` trailer (an edited plan's choice, issue 23)."""
    proc = gitrun.run(ctx.workspace, "log", "-z", "--relative", "--no-renames", "--format=", "--name-only",
                      "--diff-filter=A", f"--grep=^{TRAILER}: move$", "--", DOMAINS_DIR + "/")
    if proc.returncode != 0:
        return set()
    out = {p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p.strip()}
    chosen = gitrun.run(ctx.workspace, "log", "-z", "--format=%B", f"--grep=^{CHOSEN_TRAILER}: ")
    if chosen.returncode == 0:
        prefix = CHOSEN_TRAILER + ": "
        out |= {line[len(prefix):].strip() for line in chosen.stdout.decode("utf-8", "surrogateescape").splitlines()
                if line.startswith(prefix)}
    return out


def archive_leaves(workspace: Path, refs: Sequence[str], reason: str | None = None, *, dry_run: bool = False,
                   no_commit: bool = False, no_verify: bool = False) -> LifecycleResult:
    """`bonsai-git archive`: relocate leaves to `memory/archive/<domain>/` and reindex, as one commit.

    Raises Refused/BadInput (exit 3, nothing written), Failed or Interrupted after a restore.
    """
    return _relocate_leaves(
        workspace, refs, "archive", taken=lambda ctx, _paths: list(_files_under(ctx, ARCHIVE_DIR)),
        target=archive_target, message=lambda moves: archive_message(list(moves.items()), reason),
        dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def purge_archive(workspace: Path, grace_days: int = 180, *, dry_run: bool = False, no_commit: bool = False,
                  no_verify: bool = False, now: int | None = None) -> LifecycleResult:
    """`bonsai-git purge`: delete archived files archived more than `grace_days` ago, as one commit.

    `now` (unix seconds) defaults to BONSAI_NOW or the clock.  Nothing due: a plan with no
    changes and no commit.  Raises Refused (exit 3) when a due file has uncommitted changes.
    """
    ctx = open_workspace(workspace)
    with workspace_lock(ctx):
        refuse_if_shallow(ctx.workspace, "purge's ages of archived files (when each was archived)")
        now = now_from_env() if now is None else now
        due = due_for_purge(archive_dates(ctx.workspace), tracked_paths(ctx.workspace, ARCHIVE_DIR), now, grace_days)
        plan = LifecyclePlan("purge", tuple((p, None) for p, _ in due), (), due, purge_message(due, grace_days))
        reads = Reads(ctx.workspace)
        for path, _days in due:  # read before the check that they are committed: a write after it is caught at the delete
            reads.read_or_none(path)
        if due:
            check_clean_for_commit(ctx, [p for p, _ in due])
        return _apply(ctx, plan, reads, dry_run=dry_run, no_commit=no_commit, no_verify=no_verify)


def _workspace_ref(ctx: RepoContext, ref: str) -> str:
    """A ref given as a path that exists from the current folder becomes workspace-relative."""
    path = Path(ref)
    if path.is_file():
        with contextlib.suppress(ValueError):
            return path.resolve().relative_to(ctx.workspace).as_posix()
    return ref


def _files_under(ctx: RepoContext, folder: str) -> Iterable[str]:
    yield from walk_files(ctx.workspace, folder)  # never into a submodule, nested repository or workspace


def _relocation_plan(ctx: RepoContext, reads: Reads, paths: Sequence[str], trunk: TrunkParts, moves: dict[str, str],
                     op: str, message: str) -> LifecyclePlan:
    """The relocation's changes, planned from `reads` (the run's one read: `trunk` came from it,
    and every leaf, target and generated file is read through it, once)."""
    check_committable(ctx, [ctx.repo_path(p) for p in moves.values()], "change")  # no plain-text copy, not ignored
    leaves = read_leaves(ctx.workspace, paths, reads)
    leaf_bytes = {old: reads.read(old, old) for old in moves}  # the bytes just read for `leaves`
    for new in moves.values():
        reads.read_or_none(new)  # absent (the target was checked free): created only while it still is
    indexes = generated_index_paths(ctx.workspace, existing_index_paths(ctx.workspace))
    rendered_paths = {*indexes, ROOT_INDEX, TRUNK, *(f"{DOMAINS_DIR}/{d}/_index.md" for d in _domains(moves))}
    current = {p: reads.read_or_none(p) for p in rendered_paths}
    changes = relocation_changes(leaves, leaf_bytes, moves, trunk, load_config(ctx.workspace), indexes, current)
    changes.update(_projection_change(ctx, reads, changes.get(TRUNK, current[TRUNK])))
    for path in changes:
        reads.note(path, None)  # a new domain's index: planned as absent (compared with nothing), created only so
    return LifecyclePlan(op, tuple(sorted(changes.items())), tuple(sorted(moves.items())), (), message)


def _projection_change(ctx: RepoContext, reads: Reads, trunk: bytes | None) -> dict[str, bytes]:
    """The Codex projection's new bytes ({AGENTS file: bytes}) when the new trunk block changes it
    (projection.py): a new or emptied domain is in the same commit as the trunk block it copies.  The
    bytes the projection was made from are noted in `reads`, the run's one read."""
    from .projection import add_codex_projection

    if trunk is None:
        return {}
    rendered: dict[str, str | None] = {TRUNK: trunk.decode("utf-8")}
    known: dict[str, bytes] = {}
    add_codex_projection(ctx.workspace, rendered, known)  # BadInput for text typed into its block: nothing written
    out: dict[str, bytes] = {}
    for path, text in rendered.items():
        if path == TRUNK or text is None:
            continue
        prior = known.get(str(ctx.abs_path(path)))
        reads.note(path, prior)
        if prior != text.encode("utf-8"):
            out[path] = text.encode("utf-8")
    return out


def _domains(moves: Mapping[str, str]) -> set[str]:
    return {loc[0] for p in moves.values() if (loc := leaf_location(p)) is not None}


def _apply(ctx: RepoContext, plan: LifecyclePlan, reads: Reads, *, dry_run: bool, no_commit: bool,
           no_verify: bool) -> LifecycleResult:
    if dry_run or not plan.changes:
        return LifecycleResult(plan, None, dry_run)
    if not no_commit:
        check_identity(ctx)
    changes = dict(plan.changes)
    sources = {old: changes[new] for old, new in plan.moves}
    sha = apply_changes(ctx, changes, None if no_commit else plan.message, reads,
                        verify=lambda: _verify(ctx, plan, sources), no_verify=no_verify)
    for path in sorted((p for p, data in plan.changes if data is None), key=lambda p: -p.count("/")):
        remove_empty_folders(ctx.abs_path(path).parent, ctx.abs_path(MEMORY_DIR))  # up to, not incl., memory/
    return LifecycleResult(plan, sha, False)


def _verify(ctx: RepoContext, plan: LifecyclePlan, sources: Mapping[str, bytes | None]) -> None:
    """Read back: moved leaves byte-identical at their new paths, old paths gone, indexes fresh."""
    for old, new in plan.moves:
        if ctx.abs_path(old).exists() or _read_or_none(ctx.abs_path(new)) != sources[old]:
            raise Failed(f"{ctx.repo_path(new)}: read back differently from {ctx.repo_path(old)}; the tree was restored")
    for path, _days in plan.purged:
        if ctx.abs_path(path).exists():
            raise Failed(f"{ctx.repo_path(path)}: still there after deleting it; the tree was restored")
    if plan.moves:
        stale = reindex_workspace(ctx.workspace, check=True).changed
        if stale:
            # An agent's leaf (or a file it re-created) landing after the writes makes the fresh indexes stale.
            raise Failed(f"{ctx.repo_path(stale[0])}: stale right after this run reindexed it: a file was changed by "
                         f"another process while bonsai-git was running (or this is a bug); the tree was restored. "
                         f"Run the command again")


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


def teaching_lines(workspace: Path, result: LifecycleResult, domain: str) -> list[str]:
    """After a `move` to `domain`: per moved leaf, the `.bonsai.toml` line that would have placed it
    there (core/teach.py), for the user to adopt; `.bonsai.toml` itself is never edited.  Reads each
    leaf where it is now (its old path on --dry-run); a leaf the rules already place there says nothing."""
    from .core.classify import body_of
    from .core.sections import split_sections
    from .core.teach import teaching_line

    config = load_config(workspace)
    lines = []
    for old, new in result.plan.moves:
        path = workspace / (old if result.dry_run else new)
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        sections = split_sections(text).sections
        if not sections:
            continue
        line = teaching_line(sections[0].heading, body_of(sections[0].text), domain, config)
        if line is not None:
            lines.append(f"to place {new.rsplit('/', 1)[-1]} in {domain} next time, add to .bonsai.toml: {line}")
    return lines


def lifecycle_text(result: LifecycleResult) -> str:
    """What a lifecycle run did (or, on --dry-run, would do), for the terminal."""
    plan = result.plan
    if not plan.changes:
        if plan.op == "regroup":
            return "Nothing to regroup: the current rules place every candidate leaf where it is."
        return "Nothing to purge: no archived file is older than the grace period." if plan.op == "purge" else "Nothing to do."
    lines = [f"{'Would ' + plan.op if result.dry_run else plan.op.capitalize() + 'd'}:"]
    lines += [f"  {old} -> {new}" for old, new in plan.moves]
    lines += [f"  {path} (archived {days} days ago)" for path, days in plan.purged]
    if plan.generated:
        lines.append(f"{'would regenerate' if result.dry_run else 'regenerated'}: {', '.join(plan.generated)}")
    closing = commit_outcome(result.dry_run, result.commit, plan.op)
    if closing is not None:
        lines.append(closing)
    else:
        import shlex

        # Stage them before anything reindexes: leaves are indexed once git tracks them (one rule).
        paths = " ".join(shlex.quote(p) for p, _ in plan.changes)
        lines.append(f"Written, not committed (--no-commit): review with git status, then stage and commit: "
                     f"git add -A -- {paths}")
    return "\n".join(lines)


def commit_outcome(dry_run: bool, commit: str | None, op: str) -> str | None:
    """The closing line of a run that commits a `Bonsai-Op` (lifecycle commands, flatten): the dry
    run's, or the commit's with how to review and undo it; None when it wrote without committing."""
    if dry_run:
        return "Dry run: nothing written. Run without --dry-run to commit it."
    if commit:
        return (f"Commit {commit[:12]} ({TRAILER}: {op}). Review: git show --stat HEAD   "
                f"Undo: git revert {commit[:12]}")
    return None
