"""SKILL.md: OpenClaw's skill format, the review rules, and the real OpenClaw loading it.

The static review (``openclaw_static``) reads files only and runs in the default
test run too; the rest needs BONSAI_OPENCLAW=1.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

SKILL = Path(__file__).resolve().parents[2] / "SKILL.md"


def _front_matter() -> tuple[dict[str, str], str]:
    text = SKILL.read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    assert m, "SKILL.md must open with YAML front matter between --- lines"
    fields = dict(re.findall(r"^([a-z-]+):\s*(.*)$", m.group(1), re.M))
    return fields, m.group(2)


def _code(body: str) -> str:
    return "\n".join(re.findall(r"```[a-z]*\n(.*?)```", body, re.S))


def _section(body: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}.*?$(.*?)(?=^## |\Z)", body, re.S | re.M)
    assert m, f"SKILL.md has no '## {title}' section"
    return m.group(1)


@pytest.mark.openclaw_static
def test_skill_front_matter_follows_openclaw_format() -> None:
    fields, _ = _front_matter()
    assert fields["name"] == "bonsai-git"
    assert re.fullmatch(r"[a-z0-9-]+", fields["name"])
    assert 0 < len(fields["description"]) < 160, "description: one line, under 160 characters"
    json.loads(fields["metadata"])  # single-line JSON5 that is also JSON


@pytest.mark.openclaw_static
def test_skill_covers_what_an_agent_needs() -> None:
    _, body = _front_matter()
    # from the clone, never a package the index does not have (issue 20); and the hook, installed
    for needle in ("pipx install .", "bonsai-git install-hook -C <workspace>", "bonsai-git migrate -C <workspace> --dry-run",
                   "git -C <workspace> show --stat HEAD", "memory/domains/<domain>/_index.md", "memory_search",
                   "<!-- bonsai:end -->", "bonsai-git rollback", "bonsai-reindex", "git diff --quiet -- MEMORY.md"):
        assert needle in body, needle


@pytest.mark.openclaw_static
def test_skill_review_no_network_no_credentials_no_unrecoverable_delete() -> None:
    _, body = _front_matter()
    code = _code(body)
    # Network: nothing fetches; the only download is the install, which the user runs or approves.
    assert not re.search(r"\b(curl|wget|nc|ssh|scp|rsync|git\s+(clone|fetch|pull|push))\b|https?://", code)
    install = _section(body, "Install")
    assert all(line in install for line in re.findall(r"^.*\bpipx? .*install.*$", code, re.M))
    assert "consent" in install.lower() or "approve" in install.lower()
    # Credentials: no command reads a key, token, env file or password store.
    assert not re.search(r"\.env\b|\.ssh|printenv|\benv\b|passw|keychain|\.netrc|credential|id_rsa", code, re.I)
    assert not re.search(r"[A-Z_]*(TOKEN|API_KEY|SECRET)\b", code)
    # Deletion: no command deletes or discards work; the one delete in the prose is of a committed file.
    assert not re.search(r"\brm\b|git\s+(rm|clean|stash|reset|checkout\s+--\s+\.)|--force|unlink|shred", code)
    adopt = _section(body, "Keep MEMORY.md in your boot context")
    assert "Delete File: MEMORY.md" in adopt and "git status --short MEMORY.md" in adopt


@pytest.mark.openclaw
def test_openclaw_skill_scanner_finds_nothing(runtime: Any, tmp_path: Path) -> None:
    """OpenClaw's own skill-content scanner (src/skills/security) on SKILL.md."""
    dist = runtime.root / "oc" / "node_modules" / "openclaw" / "dist"
    scanner = next(p for p in sorted(dist.glob("scanner-*.mjs")) if "scanSkillContent" in p.read_text()
                   and "export {" in p.read_text() and "SKILL_CONTENT_RULES" not in p.read_text())
    script = tmp_path / "scan.mjs"
    script.write_text("const m = await import(process.argv[2]);\nconst fs = await import('node:fs');\n"
                      "console.log(JSON.stringify(m.scanSkillContent(fs.readFileSync(process.argv[3], 'utf8'), 'SKILL.md')));\n")
    proc = subprocess.run(["unshare", "-n", str(runtime.node_bin), str(script), str(scanner), str(SKILL)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


@pytest.mark.openclaw
def test_openclaw_installs_and_loads_the_skill(harness: Any, runtime: Any, tmp_path: Path, report: list[str]) -> None:
    src = tmp_path / "bonsai-git"
    src.mkdir()
    shutil.copyfile(SKILL, src / "SKILL.md")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    sb = harness.Sandbox(runtime, tmp_path / "sb", ws)
    install, info = sb.run([["skills", "install", str(src), "--as", "bonsai-git"], ["skills", "info", "bonsai-git", "--json"]])
    assert install["rc"] == 0, install["stderr"]
    assert (ws / "skills" / "bonsai-git" / "SKILL.md").read_bytes() == SKILL.read_bytes()
    out = info["stdout"]
    data = json.loads(out[out.find("{"): out.rfind("}") + 1])
    fields, _ = _front_matter()
    assert data["name"] == "bonsai-git" and data["description"] == fields["description"]
    assert data["eligible"] and data["modelVisible"] and data["source"] == "openclaw-workspace"
    report.append(f"skill: `openclaw skills install <dir> --as bonsai-git` -> eligible={data['eligible']} "
                  f"modelVisible={data['modelVisible']} source={data['source']}; OpenClaw skill scanner: no findings")
