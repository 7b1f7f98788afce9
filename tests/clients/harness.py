"""Drive the real Codex CLI and Claude Code, offline, with the shared probe scripts.

``../shared/tools/clients/`` (next to the repository) installs both CLIs from npm
(``install.sh``), runs one non-interactive turn of either inside an empty network namespace
against a loopback mock model (``codex-boot.sh``, ``claude-boot.sh``) and prints a loaded-files
report (``loaded-report.py``).  This module runs those scripts with ``KEEP=1``, parses the
report, and reads the mock's recorded boot request itself, so a test can ask "is this exact
text in what the runtime sent at session start".  Standard library only; loaded by conftest.py
only when BONSAI_CLIENTS=1.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# ../shared/tools/clients/ from the repository; a git worktree one level deeper finds it one level up.
CANDIDATES = [REPO.parent / "shared" / "tools" / "clients", REPO.parent.parent / "shared" / "tools" / "clients"]
BIN = Path(sys.executable).parent
ROW = re.compile(r"^(?:LOADED\s+\d+|NOT LOADED)\s+(whole|CUT|absent)\s+(\S+)\s+bytes=\s*(\d+)\s+lines=\s*(\d+)"
                 r"(?:.*?-> kept (\d+) bytes = (\d+) lines)?(.*)$")


class Unavailable(Exception):
    """The real clients cannot run here: skip, don't fail."""


@dataclass(frozen=True)
class Clients:
    """The shared scripts' folder and the install root (CLIENTS_ROOT) both CLIs are in."""

    tools: Path
    root: Path


@dataclass(frozen=True)
class Row:
    """One file of the loaded-files report: whole, CUT or absent; its size; what was kept."""

    status: str
    bytes: int
    lines: int
    kept_bytes: int | None
    kept_lines: int | None
    note: str


@dataclass
class Boot:
    """One runtime turn: the report's text and rows, the boot request's strings, the read verdict."""

    output: str
    rows: dict[str, Row]
    strings: list[str]
    read_ok: bool
    warnings: list[str] = field(default_factory=list)

    def carries(self, text: str) -> bool:
        """True when `text` is inside one string of the boot request."""
        return any(text in s for s in self.strings)


def tools_dir() -> Path:
    given = os.environ.get("BONSAI_CLIENTS_TOOLS")
    candidates = [Path(given)] if given else CANDIDATES
    for candidate in candidates:
        if (candidate / "install.sh").is_file():
            return candidate
    raise Unavailable(f"the shared client scripts are not at {' or '.join(str(c) for c in candidates)} "
                      "(../shared/tools/clients/ next to the repository; BONSAI_CLIENTS_TOOLS names another folder)")


def cache_dir() -> Path:
    return Path(os.environ.get("BONSAI_CLIENTS_CACHE") or Path.home() / ".cache" / "bonsai-git" / "clients")


def ensure_clients() -> Clients:
    """Check the tools and namespaces, install both CLIs (once); raise Unavailable with a reason."""
    tools = tools_dir()
    for tool in ("npm", "node", "unshare", "ip", "git"):
        if shutil.which(tool) is None:
            raise Unavailable(f"`{tool}` is not on PATH (the probes need npm, node, unshare and ip)")
    ns = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]
    probe = subprocess.run([*ns, "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
    if probe.returncode != 0:
        raise Unavailable(f"cannot create a network namespace ({' '.join(ns)}): {probe.stderr.strip()}")
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(tools / "install.sh")], env={**os.environ, "CLIENTS_ROOT": str(root)},
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise Unavailable(f"install.sh failed (npm registry unreachable on a first run?): {' | '.join(tail)}")
    return Clients(tools, root)


def boot(clients: Clients, runtime: str, workspace: Path, *args: str) -> Boot:
    """Run one offline turn of `runtime` (codex, claude) on a copy of `workspace` (the scripts copy it)."""
    env = {**os.environ, "CLIENTS_ROOT": str(clients.root), "KEEP": "1"}
    proc = subprocess.run([str(clients.tools / f"{runtime}-boot.sh"), str(workspace), *args], env=env,
                          capture_output=True, text=True, timeout=600)
    out = proc.stdout
    run_dir = next((line.split(None, 1)[1].strip() for line in out.splitlines() if line.startswith("RUN ")), None)
    try:
        strings = _boot_strings(Path(run_dir) / "mock", runtime) if run_dir else []
    finally:
        if run_dir and run_dir.startswith(("/tmp/", os.environ.get("TMPDIR", "/tmp/"))):
            shutil.rmtree(run_dir, ignore_errors=True)
    rows = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(2)] = Row(m.group(1), int(m.group(3)), int(m.group(4)),
                                   int(m.group(5)) if m.group(5) else None, int(m.group(6)) if m.group(6) else None,
                                   m.group(7))
    if not strings:
        raise AssertionError(f"{runtime}: no boot request reached the mock (exit {proc.returncode}):\n{out}\n{proc.stderr}")
    warnings = [line for line in out.splitlines() if line.startswith(("WARNING", "CODEX"))]
    return Boot(out, rows, strings, "\nREAD ok " in "\n" + out, warnings)


def _boot_strings(mock: Path, runtime: str) -> list[str]:
    """Every string of the first model request that carries tools (loaded-report.py's boot request)."""
    reqs = []
    for f in glob.glob(str(mock / "req-*.json")):
        d = json.loads(Path(f).read_text())
        reqs.append((d.get("n", 0), d))
    for _, d in sorted(reqs, key=lambda x: x[0]):
        url = d.get("url", "").split("?")[0]
        body = d.get("body")
        wanted = url.endswith("/responses") if runtime == "codex" else url.endswith("/messages")
        if d.get("method") == "POST" and wanted and isinstance(body, dict) and body.get("tools"):
            return list(_strings(body))
    return []


def _strings(node: Any) -> Any:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)


def bonsai(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed `bonsai-git` of this Python, as a process."""
    return subprocess.run([str(BIN / "bonsai-git"), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"})
