"""git's own settings and environment, as they bear on every bonsai-git command (issue 12 §4).

Light on purpose (os, and git through gitrun): the pre-commit hook imports it.  One place for:

- **GIT_DIR / GIT_WORK_TREE.** `check_repository_env` refuses when the environment points git
  at another repository than the one that holds the folder given (`migrate -C other` once
  committed into the repository GIT_DIR named and left `other` half migrated).
- **Attributes.** `check_attributes` refuses (exit 3) when MEMORY.md has git attributes (an
  encryption `filter` such as git-crypt's, above all) that the files bonsai-git writes under
  `memory/` would not get: their text would reach history unconverted (in plain text).  The
  message names the `.gitattributes` line to add.  Migrate (its dry run too), every command
  that writes under `memory/`, the hooks and `status` share this one check.  It also refuses
  `merge=union` on MEMORY.md or anything under `memory/`, naming the line: a union merge of two
  branches gave a trunk with two begin markers that reindex refuses for good (issue 22); the
  bonsai merge driver (mergedriver.py) is the way to merge those files.  `merge` is not an
  attribute that files under memory/ must share with MEMORY.md: it changes no stored byte.
- **Line endings.** `stored_alike` tells whether git would store two byte strings for a path
  identically after its conversion (core.autocrlf, `text`/`eol` attributes): a generated file
  checked out with CRLF is then fresh, not stale, and CRLF and LF checkouts stop rewriting each
  other's files.
- **Where things are.** `find_workspace` walks up from a folder to the first one holding
  MEMORY.md (never above the repository's top), the way git finds its repository;
  `tracked_leaf_paths` lists what git tracks, the one rule for which leaves are indexed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .core.errors import Refused
from .gitrun import run

_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")


# --- GIT_DIR / GIT_WORK_TREE ------------------------------------------------------------------

def check_repository_env(folder: Path) -> None:
    """Refuse (exit 3) when GIT_DIR / GIT_WORK_TREE make git work on another repository than `folder`'s.

    With none of them set, this costs nothing.  Otherwise git is asked twice: as the
    environment says, and as git would discover it from `folder` alone.  They must agree (same
    git dir and work tree), or, when `folder` is in no repository of its own, GIT_WORK_TREE must
    be set and hold `folder` (a bare "dotfiles" repository with a separate work tree).  git sets
    GIT_DIR itself for hooks in linked worktrees; discovery finds the same repository then.
    """
    if not any(os.environ.get(name) for name in _REPO_ENV):
        return
    probe = ("rev-parse", "--absolute-git-dir", "--show-toplevel")
    given = _facts(folder, probe, os.environ)
    clean = _facts(folder, probe, {k: v for k, v in os.environ.items() if k not in _REPO_ENV})
    if given is None or given == clean:
        return
    if clean is None and os.environ.get("GIT_WORK_TREE") and len(given) == 2:
        top = Path(given[1])
        if folder.resolve() == top or top in folder.resolve().parents:
            return
    named = ", ".join(f"{n}={os.environ[n]}" for n in _REPO_ENV if os.environ.get(n))
    where = f"the repository at {clean[1]}" if clean and len(clean) == 2 else "no repository"
    raise Refused(f"{folder}: the environment sets {named}, so git would work on {given[0]}, but this folder belongs "
                  f"to {where}; unset {' and '.join(n for n in _REPO_ENV if os.environ.get(n))} and run again")


def check_no_repository_env(what: str) -> None:
    """Refuse (exit 3) when GIT_DIR / GIT_WORK_TREE / GIT_COMMON_DIR are set: `what` makes a new
    repository, and `git init` would initialise the one they name instead."""
    named = [n for n in _REPO_ENV if os.environ.get(n)]
    if named:
        raise Refused(f"{what}: the environment sets {', '.join(named)}, so git would work on another repository; "
                      f"unset {' and '.join(named)} and run again")


def _facts(folder: Path, args: Sequence[str], env: Mapping[str, str]) -> tuple[str, ...] | None:
    proc = run(folder, *args, env=env)
    if proc.returncode != 0:
        return None
    return tuple(os.path.realpath(line) for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines())


# --- attributes ---------------------------------------------------------------------------------

def attributes(top: Path, repo_paths: Iterable[str]) -> dict[str, dict[str, str]]:
    """{repo path: {attribute: value}} of the attributes git gives each path (`git check-attr -a`).

    Values are git's: "set", "unset" or the value; unspecified attributes are absent.
    """
    paths = list(dict.fromkeys(repo_paths))
    found: dict[str, dict[str, str]] = {p: {} for p in paths}
    if not paths:
        return found
    proc = run(top, "check-attr", "-a", "-z", "--stdin", input="\0".join(paths).encode("utf-8", "surrogateescape"))
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    for path, name, value in zip(fields[0::3], fields[1::3], fields[2::3]):
        if path in found:
            found[path][name] = value
    return found


def attribute_gaps(top: Path, source: str, targets: Iterable[str],
                   known: Mapping[str, Mapping[str, str]] | None = None) -> dict[str, str]:
    """{attribute: value} that `source` (MEMORY.md's repo path) has and some of `targets` lack or differ on.

    `known`: `attributes(top, [source, *targets])` when the caller has it already (no git call then).
    """
    if known is None and not {n for n in attributes(top, [source])[source] if n not in _MERGE_ONLY}:
        return {}  # the usual case: one short git call
    targets = [t for t in dict.fromkeys(targets) if t != source]
    if not targets:
        return {}
    attrs = known if known is not None else attributes(top, [source, *targets])
    mine = attrs[source]
    return {name: value for name, value in sorted(mine.items())
            if name not in _MERGE_ONLY and any(attrs[t].get(name) != value for t in targets)}


_MERGE_ONLY = frozenset({"merge", "conflict-marker-size"})  # how git merges a file, not how it stores it


def attribute_line(gaps: Mapping[str, str]) -> str:
    """The `.gitattributes` line giving `memory/**` the attributes in `gaps`."""
    def shown(name: str, value: str) -> str:
        return name if value == "set" else f"-{name}" if value == "unset" else f"{name}={value}"

    return "memory/** " + " ".join(shown(n, v) for n, v in sorted(gaps.items()))


def attribute_problem(top: Path, prefix: str, targets: Iterable[str],
                      known: Mapping[str, Mapping[str, str]] | None = None) -> str | None:
    """The one-line refusal when `<prefix>MEMORY.md` has attributes some `targets` (repo paths) lack, else None.
    `known`: as attribute_gaps takes it."""
    source = f"{prefix}MEMORY.md"
    if known is None:  # the usual case: one short git call finds no attribute at all (`targets` not even listed)
        probes = [source, f"{prefix}memory/_index.md", f"{prefix}memory/domains/general/new-leaf.md"]
        probed = attributes(top, probes)
        if all(set(a) <= _MERGE_ONLY and a.get("merge") != "union" for a in probed.values()):
            return None  # none, or only `merge=bonsai`: nothing a memory file must share
        targets = list(targets)
        known = attributes(top, [source, *targets])
    targets = list(targets)
    union = union_problem(top, [source, *targets], known)
    if union is not None:
        return union
    gaps = attribute_gaps(top, source, targets, known)
    if not gaps:
        return None
    why = ("its encryption filter would be bypassed and memory committed in plain text"
           if "filter" in gaps else "they would be committed without them")
    return (f"{prefix}MEMORY.md: has git attributes ({', '.join(sorted(gaps))}) that files under {prefix}memory/ "
            f"would not get, so {why}; add the line `{attribute_line(gaps)}` to {prefix}.gitattributes, commit it, "
            f"and run again")


def union_problem(top: Path, repo_paths: Sequence[str],
                  known: Mapping[str, Mapping[str, str]] | None = None) -> str | None:
    """The one-line refusal when git gives one of `repo_paths` (MEMORY.md first) `merge=union`, else None.

    `known`: their `attributes` when the caller has them (no git call then).  Names the first
    attributes-file line setting `merge=union` on the way to that path (`_union_lines`).
    """
    attrs = known if known is not None else attributes(top, repo_paths)
    hit = next((p for p in repo_paths if attrs.get(p, {}).get("merge") == "union"), None)
    if hit is None:
        return None
    lines = _union_lines(top, hit)
    where = lines[0] if lines else "a git attributes file"
    return (f"{where}: gives {hit} `merge=union`, which joins both sides' lines when branches merge (two "
            f"begin markers in MEMORY.md, duplicated index entries and leaf lines) and leaves a tree reindex "
            f"refuses; remove that line (for generated files use `merge=bonsai`, see docs/merges-and-history.md), "
            f"commit, and run again")


def _union_lines(top: Path, repo_path: str) -> list[str]:
    """`file:line: text` of each line setting `merge=union` in the attributes files git reads for
    `repo_path`: `.gitattributes` from the top down to its folder, then `$GIT_DIR/info/attributes`.
    (Which line's pattern matches is git's business; the lines found are the ones to look at.)"""
    files = [top / ".gitattributes"]
    folder = top
    for part in repo_path.split("/")[:-1]:
        folder = folder / part
        files.append(folder / ".gitattributes")
    proc = run(top, "rev-parse", "--git-path", "info/attributes")
    if proc.returncode == 0:
        files.append(top / proc.stdout.decode("utf-8", "surrogateescape").strip())
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        shown = os.path.relpath(path, top).replace(os.sep, "/")
        found += [f"{shown}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
                  if "merge=union" in line.split()[1:] and not line.lstrip().startswith("#")]
    return found


def check_attributes(top: Path, prefix: str, targets: Iterable[str]) -> None:
    """Raise Refused (exit 3) with `attribute_problem`'s message when there is one."""
    problem = attribute_problem(top, prefix, targets)
    if problem is not None:
        raise Refused(problem)


# --- .gitignore -----------------------------------------------------------------------------------

def ignore_problem(cwd: Path, paths: Iterable[str]) -> str | None:
    """The one-line refusal when a .gitignore rule (or an exclude file) hides one of `paths` (relative
    to `cwd`, the workspace: paths bonsai-git would write under its `memory/`), else None.

    A template `.gitignore` with `log/`, `tmp/` or `build/` hides a domain folder: memory
    written there would never be committed, and `git add` refuses it (issue 21 §10).  The
    message names the rule's file, line and pattern, and the negation that brings the tree back.
    One `git check-ignore --no-index -v` (a rule hides a new file even beside tracked ones).
    """
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return None
    folder = "memory/"  # asked too: a rule hiding the folder itself needs its own negation (git re-includes
    proc = run(cwd, "check-ignore", "--no-index", "-v", "-z", "--stdin",  # nothing inside an excluded folder)
               input="\0".join([folder, *wanted]).encode("utf-8", "surrogateescape"))
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    hits = [(source, line, pattern, path) for source, line, pattern, path
            in zip(fields[0::4], fields[1::4], fields[2::4], fields[3::4])
            if not pattern.startswith("!")]  # -v lists a path a negation includes again: not ignored
    files = [hit for hit in hits if hit[3] != folder]
    if not files:
        return None
    source, line, pattern, path = files[0]
    where = run(cwd, "rev-parse", "--show-prefix").stdout.decode("utf-8", "surrogateescape").strip()
    shown = os.path.relpath(source, cwd) if os.path.isabs(source) else source  # a .gitignore: from the top
    rel = _relative_to_rule(source, where)
    lines = f"`!/{rel}memory/` and `!{rel}memory/**`" if len(hits) > len(files) else f"`!{rel}memory/**`"
    return (f"{path}: ignored by {shown}:{line} (`{pattern}`), so memory written there would never be committed; "
            f"add {'the lines' if len(hits) > len(files) else 'the line'} {lines} after it in {shown}, commit it, "
            "and run again")


def _relative_to_rule(source: str, prefix: str) -> str:
    """`prefix` (the workspace's folder from the top, "" or "a/b/") as the rule file `source` reads
    patterns: relative to its folder for a `.gitignore` (git names it from the top), to the top
    for an exclude file."""
    folder = os.path.dirname(source)
    if os.path.basename(source) != ".gitignore" or os.path.isabs(source) or not folder:
        return prefix
    return prefix[len(folder) + 1:] if prefix.startswith(folder + "/") else prefix


def memory_probe_paths(prefix: str, tracked: Iterable[str]) -> list[str]:
    """Repo paths that stand for what bonsai-git writes under `<prefix>memory/`: the tracked ones
    (workspace-relative in `tracked`), the root index, the single-file domain, and a new leaf and
    an index in each domain folder (absorb and the hook name new leaves only as they write them)."""
    memory = [p for p in tracked if p.startswith("memory/")]
    domains = {p.split("/")[2] for p in memory if p.startswith("memory/domains/") and p.count("/") >= 3}
    probes = {f"{prefix}memory/_index.md", f"{prefix}memory/dates.md", f"{prefix}memory/domains/general/new-leaf.md"}
    for domain in domains:
        probes |= {f"{prefix}memory/domains/{domain}/_index.md", f"{prefix}memory/domains/{domain}/new-leaf.md"}
    return sorted({*probes, *(prefix + p for p in memory)})


def workspace_attribute_problem(workspace: Path, tracked: Iterable[str] | None = None) -> str | None:
    """`attribute_problem` for a workspace: its tracked memory files (`tracked`, workspace-relative,
    default: asked of git) and the paths bonsai-git would write there."""
    proc = run(workspace, "rev-parse", "--show-toplevel", "--show-prefix")
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        return None
    if tracked is None:
        tracked = memory_listing(workspace)[0]
    return attribute_problem(Path(lines[0]), lines[1], memory_probe_paths(lines[1], tracked))


# --- line endings -------------------------------------------------------------------------------

def only_line_endings_differ(a: bytes, b: bytes) -> bool:
    """True when `a` and `b` differ, but not once CRLF is read as LF."""
    return a != b and a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n")


def stored_alike(cwd: Path, path: str, current: bytes, wanted: bytes) -> bool:
    """True when git would store `current` and `wanted` at `path` (relative to `cwd`) as the same blob.

    Asked only when they differ in line endings alone (`only_line_endings_differ`): then
    `git hash-object --path` applies the path's conversion (core.autocrlf, `text`, `eol`) to both.
    """
    if current == wanted:
        return True
    if not only_line_endings_differ(current, wanted):
        return False
    ids = [run(cwd, "hash-object", f"--path={path}", "--stdin", input=data) for data in (current, wanted)]
    return all(p.returncode == 0 for p in ids) and ids[0].stdout == ids[1].stdout


# --- where things are -------------------------------------------------------------------------

def find_workspace(start: Path) -> Path:
    """The folder `start` or its nearest parent holding MEMORY.md, not above the repository's top.

    As git finds its repository from any folder inside it.  `start` itself when it holds
    MEMORY.md, when it is in no repository, or when no folder up to the top holds one (the
    command then names what is missing).
    """
    here = start.absolute()
    if os.path.lexists(here / "MEMORY.md"):
        return start
    proc = run(here, "rev-parse", "--show-toplevel") if here.is_dir() else None
    if proc is None or proc.returncode != 0:
        return start
    top = Path(os.path.realpath(proc.stdout.decode("utf-8", "surrogateescape").strip()))
    folder = Path(os.path.realpath(here))
    while folder != top and top in folder.parents:
        folder = folder.parent
        if os.path.lexists(folder / "MEMORY.md"):
            return folder
    return start


def memory_listing(workspace: Path) -> tuple[list[str], list[str]]:
    """(tracked, untracked-not-ignored) workspace-relative paths under `<workspace>/memory/`, sorted.

    Tracked means in git's index (committed or staged), as the hook sees it.  Refused (exit 3)
    when a sparse checkout leaves out part of the memory tree (sparse_problem).
    """
    proc = run(workspace, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard", "--", "memory")
    entries = [e for e in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if len(e) > 2]
    inner = nested_workspaces(workspace, (e[2:] for e in entries))
    if inner:  # their files are theirs alone: never the outer workspace's leaves (issue 21 §5)
        entries = [e for e in entries if not e[2:].startswith(inner)]
    problem = sparse_problem(e[2:] for e in entries if e[0] == "S")
    if problem is not None:
        raise Refused(problem)
    tracked = sorted({e[2:] for e in entries if e[0] != "?"})
    untracked = sorted({e[2:] for e in entries if e[0] == "?"})
    return tracked, untracked


def unstaged_domain_problem(root: Path, tracked: Iterable[str], untracked: Iterable[str], prefix: str = "") -> str | None:
    """The refusal when indexing only what git tracks would drop a domain whose leaves are on disk,
    not staged, else None.

    After `migrate --no-commit`, staging only MEMORY.md and committing made the hook "fix" the
    trunk to match the commit: every domain whose leaves were not staged left the block and lost
    its index (issue 21 §3).  A domain folder holding a generated `_index.md`, untracked leaves
    and no tracked leaf is such a domain.  The message gives the command that stages all of it.
    Paths are workspace-relative; `prefix` is the workspace's folder from the repository's top.
    """
    from .core.layout import DOMAINS_DIR, INDEX_NAME, TRUNK, leaf_location

    loose = [(p, loc[0]) for p in untracked if p.startswith(DOMAINS_DIR + "/") and (loc := leaf_location(p))]
    if not loose:  # the usual case: decided without looking at the tracked paths
        return None
    have = {loc[0] for p in tracked if (loc := leaf_location(p)) is not None}
    stray = sorted(p for p, domain in loose if domain not in have
                   and os.path.isfile(os.path.join(os.fspath(root), DOMAINS_DIR, domain, INDEX_NAME)))
    if not stray:
        return None
    from .core.secretscan import mask_name  # only on this rare path: names are shown masked, as everywhere

    more = f" (and {len(stray) - 1} more)" if len(stray) > 1 else ""
    return (f"{mask_name(prefix + stray[0])}{more}: not staged, so this commit would drop its domain from {prefix}{TRUNK} and "
            f"the indexes (a migration staged in part?); stage all of it: git add -A -- {prefix}{TRUNK} "
            f"{prefix}memory")


def sparse_problem(skipped: Iterable[str], prefix: str = "") -> str | None:
    """The refusal when `skipped` (workspace-relative paths git tracks but a sparse checkout leaves
    off disk: `ls-files -t` tag `S`) holds part of the memory tree, else None.

    Indexing a half-visible tree would drop the missing domains from MEMORY.md's block and the
    root index although their leaves are tracked (issue 21 §4): refused, never rewritten.
    """
    from .core.layout import TRUNK, leaf_location

    missing = sorted(p for p in set(skipped) if p == TRUNK or leaf_location(p) is not None
                     or (p.startswith("memory/") and p.endswith("/_index.md")))
    if not missing:
        return None
    first = missing[0]
    folder = prefix + (first.rpartition("/")[0] or ".")
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return (f"{prefix}{first}{more}: tracked but outside the sparse checkout, so indexing this work tree would drop "
            f"its domain from MEMORY.md and the indexes; add it (git sparse-checkout add {folder}) or run "
            "bonsai-git in a full checkout")


def nested_workspaces(workspace: Path, paths: Iterable[str]) -> tuple[str, ...]:
    """The folders (workspace-relative, with a trailing `/`) among `paths`' that hold a migrated
    MEMORY.md of their own: workspaces nested in this one's memory tree (a helper agent's)."""
    from .core.layout import is_migrated
    from .tree import read_regular_or_none

    found = []
    for path in paths:
        if path.endswith("/MEMORY.md"):
            data = read_regular_or_none(workspace / path)
            if data is not None and is_migrated(data.decode("utf-8", "replace")):
                found.append(path[: -len("MEMORY.md")])
    return tuple(sorted(set(found)))


def indexed_leaf_paths(root: Path, tracked: Iterable[str], untracked: Iterable[str] = (),
                       sizes: dict[str, int] | None = None) -> tuple[list[str], list[str]]:
    """(leaf paths to index, warnings): the one rule for which leaves are indexed, in every command.

    A leaf is indexed when git tracks it (it is in git's index: committed or staged) and it
    is a regular file on disk.  Not indexed, each with a warning: an untracked leaf under
    `memory/domains/` (`git add` it: the hook indexes only what a commit can hold, so
    indexing it elsewhere would be undone at the next commit), a tracked leaf deleted from disk
    (`git rm` it), one that is not a regular file (a symlink is never followed out of the tree).
    Refused (exit 3): a tracked leaf in a one-file domain's folder (`memory/domains/dates/x.md`),
    which no index the lookup path reads would list (issue 21 §4).
    Paths are relative to `root` (the workspace), sorted.  `sizes`, when given, receives each
    indexed leaf's size in bytes from the same lstat (the hook's facts cache checks it).
    """
    from .core.config import SINGLE_FILE_DOMAINS
    from .core.layout import DOMAINS_DIR, leaf_location  # light; not at import time (layout imports config)

    single_folders = tuple(f"{DOMAINS_DIR}/{d}/" for d in SINGLE_FILE_DOMAINS)
    stray = sorted(p for p in tracked if p.startswith(single_folders) and leaf_location(p) is not None)
    if stray:  # one C-level test per path; a leaf there is indexed nowhere the lookup path reads
        domain = stray[0].split("/")[2]
        raise Refused(f"{stray[0]}: a leaf in a folder of {domain}, a one-file domain ({SINGLE_FILE_DOMAINS[domain]}), "
                      f"is indexed nowhere; append its text to {SINGLE_FILE_DOMAINS[domain]} or move it to another "
                      "domain (git mv), then commit again")
    leaves: list[str] = []
    warnings: list[str] = []
    base = os.path.join(os.fspath(root), "")  # with its separator: one concatenation per leaf, not a join
    lstat, is_regular = os.lstat, stat.S_ISREG  # the hot loop: one lstat per tracked leaf, every commit
    for path in sorted(set(tracked)):
        if leaf_location(path) is None:
            continue
        try:
            st = lstat(base + path)
        except (FileNotFoundError, NotADirectoryError):
            warnings.append(f"{path}: deleted but not staged, so left out of the indexes; git rm it")
            continue
        if is_regular(st.st_mode):
            leaves.append(path)
            if sizes is not None:
                sizes[path] = st.st_size
        else:
            warnings.append(f"{path}: not a regular file (a symlink?), so not indexed")
    for path in sorted(set(untracked)):
        if path.startswith(DOMAINS_DIR + "/") and leaf_location(path) is not None:
            warnings.append(f"{path}: not tracked by git, so not indexed; git add it to include it")
    return leaves, warnings


def tracked_paths(workspace: Path, *pathspecs: str) -> list[str]:
    """Workspace-relative paths git tracks (in the index) under `pathspecs` (literal), sorted."""
    proc = run(workspace, "ls-files", "-z", "--", *pathspecs)
    if proc.returncode != 0:
        return []
    return sorted(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)
