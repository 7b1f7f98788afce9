"""The git executable, found once per process.

`subprocess.run(["git", ...])` makes the child search PATH on every call (execve in each folder
until one holds git): a migration ran ~24 git commands and ~190 failed PATH lookups.  Every git
command bonsai-git runs takes `git_exe()` instead: PATH is searched once, as `shutil.which` does
(the first executable regular file named git), and the absolute path is reused.  When no git is
found the bare name is returned, so the usual "No such file" error still names git.  Light on
purpose (os only): the hook imports it.
"""

from __future__ import annotations

import os

_FOUND: list[str] = []


def git_exe() -> str:
    """The absolute path of the git found on PATH at the first call (the bare `git` if none)."""
    if not _FOUND:
        _FOUND.append(_which("git") or "git")
    return _FOUND[0]


def _which(name: str) -> str | None:
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None
