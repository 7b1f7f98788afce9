"""The `bonsai-secrets` pre-commit hook: refuse a commit that adds a new secret-looking value to memory.

Scope: `MEMORY.md` and the `.md` files under a `memory/` folder (leaves, indexes, daily notes),
at any depth.  The pre-commit framework passes the staged file names (its `files:` pattern
selects them); run by hand with no names, every staged file in scope is checked.

For each file the staged bytes (`:path`) are compared with HEAD's (`HEAD:path`): only findings
HEAD does not already hold count (`secretscan.new_secret_findings`), so a secret committed before
the hook was installed does not block every later edit of that file, while a new key, or a new
copy of an old one, does.  A new file whose name holds a secret-looking run counts too.
Findings print as `path:line: kind (sha256:…)`, never the value, paths through
`secretscan.mask_name`.  The rules are status's: a value whose fingerprint the workspace's
`.bonsai.toml` lists in `[secrets] allow` (read from the work tree), or whose line ends with
`<!-- bonsai:allow-secret -->`, does not count.

Which files: every staged change git lists as added, copied, modified, renamed or type-changed
(`--diff-filter=ACMRT`: a tracked symlink replaced by a regular file is a type change, `T`), read
from one NUL-separated listing (`git diff --cached --raw -z`), so a name holding a newline or any
other byte is read like any other (issue 25); the blobs are then read by object id, never by name.
Such a name is shown with its control characters escaped (`secretscan.shown_path`).

Exit 0: nothing new; 1: new secret-looking values, or git's answer could not be read (the
commit stops; one line on stderr); 3: not in a git work tree; 4: a bug (a traceback).
Light: no GitPython, no markdown-it; git runs through gitrun, one `git cat-file --batch`
for all files.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from .workspace import load_config
from .core.config import CONFIG_FILE
from .entry import run_entry
from .core.errors import Failed
from .core.secretscan import finding_fingerprint, name_secret_kinds, new_secret_findings, shown_path
from .gitrun import run
from .redaction import MaskedOutput

# `git cat-file --batch` with this format answers `<sha> <type> <size>` for an object it finds, and
# `<name as given> missing` (or `ambiguous`) otherwise: a name may hold spaces, so only this
# exact shape is a found object.
_BATCH_FORMAT = "%(objectname) %(objecttype) %(objectsize)"
_FOUND = re.compile(rb"^[0-9a-f]{40,64} ([a-z]+) ([0-9]+)$")
# `.` across newlines, and blanks after `.md` (a name whose generated line break was never
# stripped: `notes.md\n`): a name is in scope by all of its bytes.
IN_SCOPE = re.compile(r"(?:^|/)(?:MEMORY\.md|memory/.+\.md)\s*\Z", re.DOTALL)
_NO_OBJECT = "0" * 40
_GITLINK = "160000"
HOOK_ID = "bonsai-secrets"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `bonsai-git-secrets [FILES...]` (the `bonsai-secrets` hook); returns the exit code."""
    parser = argparse.ArgumentParser(prog="bonsai-git-secrets", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="staged files (default: every staged MEMORY.md and memory/**.md)")
    with MaskedOutput():  # what it prints, usage errors included, passes the one masking rule (redaction.py)
        args = parser.parse_args(argv)
        return run_entry("bonsai-git-secrets", lambda: _check(args.files))


def _check(files: Sequence[str]) -> int:
    """The hook's work for the staged `files` (all staged memory files when empty); returns the exit code."""
    probe = run(".", "rev-parse", "--is-inside-work-tree", "--show-prefix")
    lines = probe.stdout.decode("utf-8", "surrogateescape").splitlines()
    if probe.returncode != 0 or not lines or lines[0] != "true":
        print("bonsai-git-secrets: not inside a git work tree; run it from the workspace's repository", file=sys.stderr)
        return 3
    prefix = lines[1] if len(lines) > 1 else ""  # the current folder from the work tree root: scope is by repo path
    staged = staged_changes()
    paths = [p for p in (files or staged) if IN_SCOPE.search(prefix + p.replace("\\", "/"))]
    problems = new_findings(paths, prefix, staged)
    for line in problems:
        print(line)
    if problems:
        print(f"bonsai-git-secrets: {len(problems)} new secret-looking value(s) staged in memory (kinds shown, never "
              f"values); move them to a secret store and rewrite those lines. Not a secret? List its sha256:… in "
              f"{CONFIG_FILE} [secrets] allow, end its line with <!-- bonsai:allow-secret -->, or commit once with "
              f"SKIP={HOOK_ID} git commit ...", file=sys.stderr)
        return 1
    return 0


def new_findings(paths: Sequence[str], prefix: str = "",
                 staged: Mapping[str, tuple[str | None, str]] | None = None) -> list[str]:
    """`path:line: kind (sha256:…)` for each secret-looking value the index adds to `paths`
    (cwd-relative; `prefix`: the cwd from the work tree's top, `git rev-parse --show-prefix`), and
    `path: kind in the file name` for a new file named with one; sorted by path.  `staged`: the
    index's changes (`staged_changes`; read when None); a path it does not list adds nothing.

    Raises BadInput (exit 3) for a malformed `.bonsai.toml`, Failed when git's answer cannot be read.
    """
    changes = staged_changes() if staged is None else staged
    paths = [p for p in paths if p in changes]
    if not paths:
        return []
    new_ids = [changes[p][1] for p in paths]
    old_ids = [oid for p in paths if (oid := changes[p][0]) is not None]
    blobs = dict(zip(new_ids + old_ids, _read_blobs(new_ids + old_ids)))
    allows: dict[str, frozenset[str]] = {}
    out = []
    for path in sorted(paths):
        old_id, new_id = changes[path]
        new, old = blobs.get(new_id), blobs.get(old_id) if old_id is not None else None
        if new is None:
            continue
        shown = shown_path(path)
        if old is None:
            out += [f"{shown}: {kind} in the file name" for kind in name_secret_kinds(path)]
        workspace = workspace_of(prefix + path.replace("\\", "/"))
        if workspace not in allows:
            allows[workspace] = load_config(Path("../" * prefix.count("/") + workspace or ".")).secret_allow
        text = _text(new)
        for f in new_secret_findings(_text(old or b""), text, allows[workspace]):
            out.append(f"{shown}:{f.line}: {f.kind} ({finding_fingerprint(text, f)})")
    return out


def workspace_of(path: str) -> str:
    """The folder (repo-relative, "" for the top) of the workspace a memory file (repo-relative path)
    belongs to: the one holding its `MEMORY.md` or its top `memory/` folder, where `.bonsai.toml` lives."""
    parts = path.split("/")
    cut = parts.index("memory") if "memory" in parts[:-1] else len(parts) - 1
    return "/".join(parts[:cut])


def staged_changes() -> dict[str, tuple[str | None, str]]:
    """{cwd-relative path: (the blob HEAD holds there or None, the staged blob)} for every staged
    change that adds bytes (`--diff-filter=ACMRT`), from one NUL-separated `git diff --cached --raw`.

    Renames are listed as additions (`--no-renames`: a renamed file's text counts as new, as
    before); submodules (gitlinks) are left out.  An unborn branch lists every staged file as added.
    Raises Failed (one line) when git refuses.
    """
    proc = run(".", "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-filter=ACMRT",
               "--relative")
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Failed(f"git diff --cached failed: {err[-1] if err else 'no output'}")
    fields = proc.stdout.split(b"\0")
    out: dict[str, tuple[str | None, str]] = {}
    for head, name in zip(fields[0::2], fields[1::2]):  # `:<old mode> <new mode> <old id> <new id> <status>`, path
        parts = head.decode("ascii", "replace").lstrip(":").split()
        if len(parts) < 5 or _GITLINK in parts[:2]:
            continue
        old_id = None if parts[2] == _NO_OBJECT or parts[0] == "000000" else parts[2]
        out[name.decode("utf-8", "surrogateescape")] = (old_id, parts[3])
    return out


def _read_blobs(names: Sequence[str]) -> list[bytes | None]:
    """The contents of the objects `names` (e.g. `:./MEMORY.md`), None for a missing one, in order.

    Raises Failed (one line) when git's answer cannot be read.
    """
    usable = list(dict.fromkeys(n for n in names if "\n" not in n))  # object ids: never a newline
    proc = run(".", "cat-file", f"--batch={_BATCH_FORMAT}",
               input="".join(f"{n}\n" for n in usable).encode("utf-8", "surrogateescape"))
    data, pos, found = proc.stdout, 0, {}
    for name in usable:
        end = data.find(b"\n", pos)
        if end < 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise Failed(f"git cat-file stopped before {name}: {err[-1] if err else 'no output'}")
        m = _FOUND.match(data[pos:end])
        pos = end + 1
        if m is None:  # `<name> missing`: not staged (deleted) or not in HEAD (a new file)
            continue
        size = int(m.group(2))
        if m.group(1) == b"blob":
            found[name] = data[pos : pos + size]
        pos += size + 1  # a tree or commit: skip its bytes
    return [found.get(n) for n in names]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
