"""`bonsai-git merge-driver %O %A %B %P`: merge the generated files by regenerating them.

git's merge-driver contract (gitattributes(5), "Defining a custom merge driver"): `%O` the
ancestor's version, `%A` ours (the result goes there), `%B` theirs, `%P` the path in the
repository; exit 0 when the result is clean, non-zero when it conflicts.  Set up with two lines
(docs/merges-and-history.md; `bonsai-git install-hook` writes the config line):

    .gitattributes:  MEMORY.md merge=bonsai        and   memory/**/_index*.md merge=bonsai
    git config merge.bonsai.driver "bonsai-git merge-driver %O %A %B %P"

Two branches that each absorbed sections, moved a leaf or added a domain each regenerated the
indexes and MEMORY.md's block; a text merge of those conflicts (or, with `merge=union`, joins
them into a trunk with two begin markers).  The driver writes instead what regenerating gives
from the merged leaves:

- the merged tree is what `git merge-tree --write-tree HEAD <theirs>` gives (theirs: the
  commit `git merge` names in `GITHEAD_<sha>`), with this driver switched off inside it; a leaf
  that conflicts there counts with our side's text, or not at all when our side deleted it (the
  hook regenerates once it is resolved);
- a branch index or `memory/_index.md`: the file `render_tree` renders for those leaves and the
  merged `.bonsai.toml`, so an index never conflicts;
- MEMORY.md: the pinned text (before the begin marker) and the inbox (after the end marker)
  merge as text (`git merge-file`), the block is rendered for the merged domains.  A conflict in
  the pinned text or the inbox is the user's to resolve: marked as git marks it, exit 1;
- any other path (or a MEMORY.md without markers on a side): a plain `git merge-file`.

A rebase sets no `GITHEAD_`, and commits each pick without the pre-commit hook, so the commit it
is picking is read from `rebase-merge/done` and the leaves are merged path by path on its parent
(a stale index there would be committed into every rewritten commit).  Where the other side is
unknown (a cherry-pick or revert, an octopus merge) an index keeps our side's version and a
MEMORY.md its block, one line on stderr says to run `bonsai-git reindex` afterwards, and the
merge goes on (exit 0).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .core.config import CONFIG_FILE, Config, parse_config
from .core.branches import is_index_name
from .core.errors import BadInput
from .core.indexes import render_tree
from .core.layout import DOMAINS_DIR, ROOT_INDEX, TRUNK, Leaf, TrunkParts, leaf_location, leaves_from_bytes, parse_trunk
from . import gitrun

DRIVER = "bonsai"  # the name in `merge=bonsai` and `merge.bonsai.driver`
DRIVER_COMMAND = "bonsai-git merge-driver %O %A %B %P"
ATTRIBUTE_LINES = ("MEMORY.md merge=bonsai", "memory/**/_index*.md merge=bonsai")
_OFF = ("-c", f"merge.{DRIVER}.driver=false")  # inside our own merge-tree run: never ourselves again


def generated_kind(repo_path: str) -> tuple[str, str] | None:
    """(workspace prefix, workspace-relative path) when `repo_path` is a file bonsai-git generates
    (MEMORY.md, `memory/_index.md`, a branch index under `memory/domains/`), else None."""
    name = repo_path.rsplit("/", 1)[-1]
    if name == TRUNK:
        return repo_path[: -len(TRUNK)], TRUNK
    if repo_path.endswith("/" + ROOT_INDEX) or repo_path == ROOT_INDEX:
        return repo_path[: -len(ROOT_INDEX)], ROOT_INDEX
    at = repo_path.rfind(DOMAINS_DIR + "/")
    if at >= 0 and (at == 0 or repo_path[at - 1] == "/") and is_index_name(name):
        return repo_path[:at], repo_path[at:]
    return None


def merge_driver(top: Path, ancestor: Path, ours: Path, theirs: Path, repo_path: str) -> int:
    """Merge `repo_path` as the module docstring says; write the result to `ours`; return git's exit
    code (0 clean, 1 conflict).  `top` is the work tree's top (git runs drivers there)."""
    kind = generated_kind(repo_path)
    if kind is None:
        return _merge_file(ours, ancestor, theirs)
    prefix, path = kind
    base, mine, other = (p.read_bytes() for p in (ancestor, ours, theirs))
    merged = _merged_tree(top, prefix)
    if path == TRUNK:
        return _merge_trunk(ours, ancestor, theirs, base, mine, other, merged, repo_path)
    if merged is None:
        _note(f"{repo_path}: the other side's commit is unknown here (a cherry-pick or a revert?), so our side's "
              "version was kept; run `bonsai-git reindex` when it is done, and commit")
        return 0
    leaves, config = merged
    rendered = render_tree(leaves, TrunkParts("", "", "", "\n"), config).get(path)
    if rendered is None:  # no longer an index of the merged tree: the next reindex deletes it
        _note(f"{repo_path}: not an index of the merged tree; run `bonsai-git reindex` after the merge")
        return 0
    ours.write_bytes(rendered.encode("utf-8"))
    return 0


def _merge_trunk(ours: Path, ancestor: Path, theirs: Path, base: bytes, mine: bytes, other: bytes,
                 merged: tuple[tuple[Leaf, ...], Config] | None, repo_path: str) -> int:
    """MEMORY.md: pinned text and inbox merged as text, the block rendered for the merged domains."""
    try:
        parts = [parse_trunk(data.decode("utf-8")) for data in (base, mine, other)]
    except UnicodeDecodeError:
        return _merge_file(ours, ancestor, theirs)
    if any(p is None for p in parts):
        return _merge_file(ours, ancestor, theirs)  # a side not migrated: git's text merge, markers and all
    o, a, b = parts
    assert o is not None and a is not None and b is not None
    pinned, pinned_conflicts = _merge_text(o.pinned, a.pinned, b.pinned)
    inbox, inbox_conflicts = _merge_text(o.inbox, a.inbox, b.inbox)
    if merged is None:
        _note(f"{repo_path}: the other side's commit is unknown here (a cherry-pick or a revert?), so our side's "
              "block was kept; run `bonsai-git reindex` when it is done, and commit")
        text = pinned + a.block + inbox
    else:
        leaves, config = merged
        rendered = render_tree(leaves, TrunkParts(pinned, "", inbox, a.newline), config)[TRUNK]
        assert rendered is not None
        text = rendered
    ours.write_bytes(text.encode("utf-8"))
    return 1 if pinned_conflicts or inbox_conflicts else 0


def _merged_tree(top: Path, prefix: str) -> tuple[tuple[Leaf, ...], Config] | None:
    """The leaves and `.bonsai.toml` of the workspace at `prefix` in the merge git is making: of HEAD
    and the commit `git merge` is merging (GITHEAD_<sha>), or of HEAD and the commit a rebase is
    picking (the last line of `rebase-merge/done`, on its parent); None when neither is known."""
    specs = [f"{prefix}memory", f"{prefix}{CONFIG_FILE}"]
    heads = [name[len("GITHEAD_"):] for name in os.environ if name.startswith("GITHEAD_")]
    if len(heads) == 1:
        files = _merge_tree_files(top, heads[0], specs)
    elif not heads and (picked := _picked_commit(top)) is not None:
        files = _picked_files(top, picked, specs)
    else:
        return None
    if files is None:
        return None
    texts = [(p[len(prefix):], data) for p, data in sorted(files.items()) if leaf_location(p[len(prefix):]) is not None]
    try:
        leaves = leaves_from_bytes(texts)
        config_bytes = files.get(f"{prefix}{CONFIG_FILE}")
        config = parse_config(config_bytes.decode("utf-8"), CONFIG_FILE) if config_bytes is not None else Config()
    except (BadInput, UnicodeDecodeError) as exc:
        _note(f"{getattr(exc, 'message', exc)}; the merged tree cannot be indexed, so our side's version was kept")
        return None
    return leaves, config


def _merge_tree_files(top: Path, theirs: str, specs: list[str]) -> dict[str, bytes] | None:
    """{repo path: bytes} under `specs` in `git merge-tree HEAD <theirs>`; a conflicted path has our
    side's version, or is absent when our side deleted it; None when merge-tree fails."""
    proc = gitrun.run(top, *_OFF, "merge-tree", "--write-tree", "--no-messages", "--name-only", "-z", "HEAD", theirs)
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    if proc.returncode not in (0, 1) or not fields[0]:
        return None
    tree, conflicted = fields[0], {f for f in fields[1:] if f}
    files = _tree_files(top, tree, specs)
    for path in sorted(conflicted & set(files)):  # our side's version until the user resolves it
        ours = _tree_files(top, "HEAD", [path]).get(path)
        if ours is None:  # modify/delete or a rename on our side: absent here, not an empty leaf
            del files[path]
        else:
            files[path] = ours
    return files


_PICKS = frozenset({"pick", "p", "reword", "r", "edit", "e", "squash", "s", "fixup", "f"})


def _picked_commit(top: Path) -> str | None:
    """The commit a rebase is applying now: the last command of `rebase-merge/done` (git writes it before
    the pick, see sequencer.c save_todo) when that is a pick, reword, edit, squash or fixup; else None."""
    where = gitrun.run(top, "rev-parse", "--git-path", "rebase-merge/done").stdout.decode("utf-8", "replace").strip()
    try:
        lines = (Path(top) / where).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    words = next((line.split() for line in reversed(lines) if line.strip() and not line.lstrip().startswith("#")), [])
    if not words or words[0] not in _PICKS:
        return None
    rest = [w for w in words[1:] if not w.startswith("-")]  # fixup -C / -c <commit>
    return rest[0] if rest else None


def _picked_files(top: Path, picked: str, specs: list[str]) -> dict[str, bytes] | None:
    """{repo path: bytes} under `specs` after applying `picked` onto HEAD, path by path as a pick does
    (base: its parent): a side that left a file alone takes the other's; both changed, `git merge-file`,
    and our side's version where that conflicts (the user resolves it; the hook regenerates then)."""
    if gitrun.run(top, "rev-parse", "-q", "--verify", f"{picked}^{{commit}}").returncode != 0:
        return None
    base, ours, theirs = (_tree_files(top, rev, specs) for rev in (f"{picked}^", "HEAD", picked))
    files: dict[str, bytes] = {}
    for path in sorted(set(base) | set(ours) | set(theirs)):
        o, a, b = base.get(path), ours.get(path), theirs.get(path)
        if b == o or a == b:
            result = a
        elif a == o:
            result = b
        elif a is None or b is None:
            result = a  # modify/delete: our side's until resolved
        else:
            try:
                text, conflicts = _merge_text((o or b"").decode("utf-8"), a.decode("utf-8"), b.decode("utf-8"))
            except UnicodeDecodeError:
                conflicts, text = 1, ""
            result = a if conflicts else text.encode("utf-8", "surrogateescape")
        if result is not None:
            files[path] = result
    return files


def _tree_files(top: Path, treeish: str, specs: list[str]) -> dict[str, bytes]:
    """{repo path: bytes} of every blob under `specs` in `treeish`."""
    listing = gitrun.run(top, "ls-tree", "-r", "-z", "--full-tree", treeish, "--", *specs).stdout
    entries = []
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        meta, tab, path = record.partition("\t")
        if tab and meta.split()[1] == "blob":
            entries.append((meta.split()[2], path))
    if not entries:
        return {}
    stream = gitrun.run(top, "cat-file", "--batch", input="".join(f"{sha}\n" for sha, _ in entries).encode(),
                        check=True).stdout
    out, at = {}, 0
    for _sha, path in entries:
        header_end = stream.index(b"\n", at)
        size = int(stream[at:header_end].split()[2])
        out[path] = stream[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
    return out


def _merge_text(base: str, mine: str, other: str) -> tuple[str, int]:
    """`git merge-file -p` of three texts: (merged text, number of conflicts)."""
    with tempfile.TemporaryDirectory(prefix="bonsai-merge-") as tmp:
        names = []
        for label, text in (("ours", mine), ("base", base), ("theirs", other)):
            path = Path(tmp) / label
            path.write_bytes(text.encode("utf-8"))
            names.append(str(path))
        proc = gitrun.run(tmp, "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *names)
    if proc.returncode < 0 or proc.returncode > 127:
        raise BadInput(f"git merge-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout.decode("utf-8", "surrogateescape"), proc.returncode


def _merge_file(ours: Path, ancestor: Path, theirs: Path) -> int:
    """git's own text merge into `ours` (what git does without a driver); 1 when it conflicts."""
    proc = gitrun.run(ours.parent, "merge-file", "-L", "ours", "-L", "base", "-L", "theirs",
                      str(ours), str(ancestor), str(theirs))
    return 0 if proc.returncode == 0 else 1


def _note(message: str) -> None:
    print(f"bonsai-git merge-driver: {message}", file=sys.stderr)


def driver_config(executable: str | None = None) -> Mapping[str, str]:
    """The git config that registers the driver: {key: value} (`merge.bonsai.name`, `.driver`).
    `executable`: the bonsai-git to run (default: the name, found on PATH when git runs it)."""
    command = DRIVER_COMMAND if executable is None else DRIVER_COMMAND.replace("bonsai-git", _quoted(executable), 1)
    return {f"merge.{DRIVER}.name": "bonsai-git: regenerate indexes and MEMORY.md's block", f"merge.{DRIVER}.driver": command}


def _quoted(path: str) -> str:
    return path if all(c.isalnum() or c in "/._-+" for c in path) else "'" + path.replace("'", "'\\''") + "'"
