"""Secrets: no secret-looking value is copied into generated text, every one is reported, none is lost.

The fixture MEMORY.md holds fake keys of many kinds (built at run time from a seeded generator,
so this file holds no key-shaped literal) and look-alikes that are not secrets.  After a real
migration: zero leaks into always-loaded text (MEMORY.md's block, every `_index.md`, leaf names),
zero false positives on the look-alikes, leaves byte for byte, and one `path:line: kind`
warning per key on stderr that never shows the value.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.cli import main
from bonsai_git.core.secretscan import (
    MASK, find_secrets, fingerprint, has_secret, mask_secrets, new_secret_findings, remove_secrets, secret_warnings,
)
from bonsai_git.core.slugs import leaf_name
from bonsai_git.core.summary import summarize
from bonsai_git.core.layout import parse_trunk
from secret_cases import ALNUM, digits, fake
from support import git

MakeRepo = Callable[..., Path]


# kind -> (the secret value a mask must hide, the line that carries it)
KEYS: dict[str, tuple[str, str]] = {}


def _key(kind: str, value: str, line: str) -> None:
    KEYS[kind] = (value, line.replace("VALUE", value))


_key("openai key", "sk-proj-" + fake(48), "- OpenAI: VALUE (rotated monthly)")
_key("anthropic key", "sk-ant-api03-" + fake(40), "- Anthropic: `VALUE`")
_key("github token", "ghp_" + fake(36), "| GitHub CI | VALUE |")
_key("gitlab token", "glpat-" + fake(20), "- GitLab deploy token VALUE")
_key("aws access key", "AKIA" + fake(16, string.ascii_uppercase + string.digits), "export AWS_ACCESS_KEY_ID=VALUE")
_key("slack token", f"xoxb-{digits(11)}-{digits(12)}-" + fake(24), "Slack bot: VALUE")
_key("stripe key", "sk_live_" + fake(24), "STRIPE_SECRET=VALUE")
_key("google api key", "AIza" + fake(35, ALNUM + "_-"), "maps key VALUE")
_key("hugging face token", "hf_" + fake(34), "- HF: VALUE")
_key("npm token", "npm_" + fake(36), "//registry.npmjs.org/:_authToken=VALUE")
_key("telegram bot token", "AA" + fake(33, ALNUM + "_-"), f"Telegram bot {digits(9)}:VALUE")
_key("jwt", f"eyJ{fake(20)}.eyJ{fake(30)}.{fake(27, ALNUM + '_-')}", "session cookie VALUE")
_key("password in url", fake(14), "DATABASE_URL=postgres://app:VALUE@db.internal:5432/app")
_key("secret assignment", fake(16) + "!", "**Password:** VALUE")
_key("sendgrid key", f"SG.{fake(22)}.{fake(43)}", "mail: VALUE")
PEM_BODY = "\n".join(fake(64, ALNUM + "+/") for _ in range(3))
_key("private key", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----",
     "VALUE")

LOOKALIKES = """\
No API key in the build.
The password reset flow is broken; the token bucket limits retries.
AWS's documented example key is AKIAIOSFODNN7EXAMPLE and its secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.
Commit 3f2a9c1e7b6d5a4f3e2d1c0b9a8f7e6d5c4b3a29 fixed it; tenant 123e4567-e89b-12d3-a456-426614174000.
Image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 is pinned.
token: read-only
password: (see 1Password)
api_key: YOUR_API_KEY
OPENAI_API_KEY=${OPENAI_API_KEY}
password: <ask Dana>
secret: the surprise party on Friday
pwd: /home/agent/projects2
Use sk-learn, the skeleton-key trick and the task-force-alpha-bravo-charlie-delta-echo plan.
The ghp_ prefix marks a classic GitHub token; sk- marks an OpenAI key.
Bearer tokens expire after 1 hour.
Connection string format: postgres://user:password@localhost/db
ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk7hR2mYp0qX9vLw3sT5uB8nC1dE4fG6hJ2kL7mN9pQ agent@laptop
The API key rotation cron runs at 04:00; max_tokens: 4096; token_count: 1500; version: 2.4.1-rc3.
password123 is the classic bad example.
getUserProfileById2FactorAuthenticationHandler is the function to fix.
"""


def _memory() -> str:
    by_kind = {kind: line for kind, (_v, line) in KEYS.items()}
    sections = [
        ("API Keys", ["openai key", "anthropic key", "hugging face token"]),
        (f"Token {KEYS['github token'][0]} for CI", ["github token", "gitlab token"]),  # a key in a heading
        ("Infrastructure config", ["aws access key", "password in url", "npm token"]),
        ("Services", ["slack token", "telegram bot token", "sendgrid key", "google api key"]),
        ("Business billing", ["stripe key", "secret assignment"]),
        ("Agent session", ["jwt"]),
        ("Deploy tools", ["private key"]),
    ]
    parts = ["# Memory\n\nLong-term memory of the ops agent.\n\n"]
    for heading, kinds in sections:
        lines = [by_kind[k] for k in kinds]
        parts.append(f"## {heading}\n" + "\n".join(lines) + "\n\n" + "Context words about this topic. " * 30 + "\n\n")
    parts.append("## Look-alikes (not secrets)\n" + LOOKALIKES + "\n")
    parts.append("## Notes\n" + "Plain notes about the project and its people. " * 40 + "\n")
    return "".join(parts)


MEMORY = _memory()
# Values that are secret only in context (after `Password:`, in a URL, after a bot id): tests that
# insert a value on its own insert the whole line for these.
CONTEXT_KINDS = {"password in url", "secret assignment", "telegram bot token"}


def standalone(kind: str) -> str:
    value, line = KEYS[kind]
    return line if kind in CONTEXT_KINDS else value


def _windows(value: str, size: int = 10) -> set[str]:
    """Every `size`-char slice of a value's random part: none may show up in generated text."""
    body = value.split("-----")[2] if value.startswith("-----BEGIN") else value
    body = re.sub(r"^(sk-proj-|sk-ant-api03-|ghp_|glpat-|AKIA|xoxb-|sk_live_|AIza|hf_|npm_|SG\.)", "", body)
    body = body.replace("\n", "")
    return {body[i : i + size] for i in range(0, max(1, len(body) - size + 1))}


# --- the fixture through a real migration -------------------------------------------------------------

@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    import os
    import subprocess

    from support import GIT_ENV

    repo = tmp_path_factory.mktemp("secrets")
    env = dict(os.environ, **GIT_ENV)
    (repo / "MEMORY.md").write_text(MEMORY)
    for args in (["init", "-q", "-b", "main"], ["add", "MEMORY.md"], ["commit", "-qm", "memory"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo), "--force"], env=GIT_ENV)
    assert result.exit_code == 0, result.stderr
    return repo, result.stdout, result.stderr


def _generated(repo: Path) -> dict[str, str]:
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    out = {f: (repo / f).read_text() for f in files if f.endswith("_index.md")}
    trunk = parse_trunk((repo / "MEMORY.md").read_text())
    assert trunk is not None
    out["MEMORY.md (block)"] = trunk.block
    return out


def test_no_secret_leaks_into_generated_text(migrated: tuple[Path, str, str]) -> None:
    repo, _out, _err = migrated
    generated = _generated(repo)
    assert len(generated) >= 6
    for name, text in generated.items():
        assert find_secrets(text, aggressive=True) == (), name
        for kind, (value, _line) in KEYS.items():
            leaked = {w for w in _windows(value) if w in text}
            assert not leaked, f"{name} holds part of the {kind}: {sorted(leaked)[:2]}"


def test_summaries_show_the_mask_not_the_key(migrated: tuple[Path, str, str]) -> None:
    repo, _out, _err = migrated
    index = (repo / "memory" / "domains" / "infrastructure" / "_index.md").read_text()
    assert "### api-keys.md" in index and "OpenAI: sk-…[masked] (rotated monthly)" in index


def test_no_leaf_name_carries_a_key(migrated: tuple[Path, str, str]) -> None:
    repo, _out, _err = migrated
    paths = git(repo, "ls-tree", "-r", "--name-only", "HEAD")
    for kind, (value, _line) in KEYS.items():
        assert not {w.lower() for w in _windows(value, 8)} & set(re.findall(r"[^/\n]{8}", paths.lower())), kind
    assert "memory/domains/infrastructure/token-for-ci.md" in paths.splitlines()


def test_leaves_keep_every_key_verbatim(migrated: tuple[Path, str, str]) -> None:
    repo, _out, _err = migrated
    leaves = [f for f in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
              if f.startswith("memory/domains/") and not f.endswith("_index.md")]
    texts = {f: (repo / f).read_text() for f in leaves}
    for kind, (_value, line) in KEYS.items():
        holders = [f for f, t in texts.items() if line in t]
        assert len(holders) == 1, (kind, holders)
    by_heading = {t.split("\n", 1)[0]: t for t in texts.values()}
    for section in MEMORY.split("\n## ")[1:]:
        text = "## " + section if not section.endswith("\n") else "## " + section
        heading = text.split("\n", 1)[0]
        assert by_heading[heading].rstrip("\n") == text.rstrip("\n")


def test_migrate_warns_once_per_key_by_file_line_and_kind_never_the_value(migrated: tuple[Path, str, str]) -> None:
    repo, out, err = migrated
    warnings = [ln[len("warning: "):] for ln in err.splitlines() if ln.startswith("warning: ")]
    assert len(warnings) == len(KEYS) + 1  # the GitHub token is also in its section's heading
    parsed = [re.fullmatch(r"(.+?):(\d+): (.+) \((sha256:[0-9a-f]{16})\)", w) for w in warnings]
    assert sorted(m.group(3) for m in parsed if m) == sorted([*KEYS, "github token"])
    assert f"memory/domains/infrastructure/token-for-ci.md:1: github token ({fingerprint(KEYS['github token'][0])})" in warnings
    for m in parsed:
        assert m is not None
        path, line, kind, print_ = m.groups()
        shown = (repo / path).read_text().splitlines()[int(line) - 1]
        assert KEYS[kind][1].startswith(shown) or KEYS[kind][0] in shown, m.group(0)
        assert print_ == fingerprint(KEYS[kind][0].rstrip("!")) or kind == "secret assignment"
    for value, _line in KEYS.values():
        assert not {w for w in _windows(value) if w in err or w in out}
    assert f"note: {len(KEYS) + 1} secret-looking value(s) (kinds shown, never values)" in err


def test_no_false_positive_on_the_look_alikes() -> None:
    assert find_secrets(LOOKALIKES) == ()
    assert secret_warnings("memory/x.md", LOOKALIKES) == []
    # Generated text is stricter: it also masks vendor-format examples and random-looking tokens.
    stricter = ("AKIAIOSFODNN7EXAMPLE", "ssh-ed25519")
    for line in LOOKALIKES.splitlines():
        if not line.startswith(stricter) and not any(s in line for s in stricter):
            assert mask_secrets(line) == line, line


def test_a_pinned_key_stays_where_the_user_put_it_and_is_reported(make_repo: MakeRepo) -> None:
    value, line = KEYS["openai key"]
    memory = f"# Memory\n\n## 📌 Core rules\n{line}\n\n## Notes\n" + "words " * 900 + "\n"
    repo = make_repo(memory)
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0, result.stderr
    trunk = parse_trunk((repo / "MEMORY.md").read_text())
    assert trunk is not None and value in trunk.pinned and value not in trunk.block
    assert "warning: MEMORY.md:4: openai key" in result.stderr


# --- the rules, one kind at a time ------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(KEYS))
def test_find_secrets_names_each_kind_and_masks_it(kind: str) -> None:
    value, line = KEYS[kind]
    found = find_secrets(line)
    assert [f.kind for f in found] == [kind]
    masked = mask_secrets(line)
    assert MASK in masked and not {w for w in _windows(value) if w in masked}
    assert find_secrets(masked, aggressive=True) == ()
    assert mask_secrets(masked) == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("key sk-proj-" + "Ab1" * 10 + " ok", "key sk-…[masked] ok"),
        ("token ghp_" + "aB3" * 12, "token ghp_…[masked]"),
        ("password = 'hunter2!x'", "password = '…[masked]'"),
        ("aws_secret_access_key = " + "wJ7rX" * 8, "aws_secret_access_key = …[masked]"),
        ("https://app:pa55w0rd@db.example:5432", "https://app:…[masked]@db.example:5432"),
        ("Authorization: Bearer " + "x7Yz" * 8, "Authorization: Bearer …[masked]"),
        ("sk-test-XXXXXXXXXXXXXXXXXXXXXXXX", "sk-…[masked]"),  # a placeholder: not reported, still masked
        ("AKIAIOSFODNN7EXAMPLE", "AKIA…[masked]"),
    ],
)
def test_mask_secrets_keeps_only_the_vendor_prefix(text: str, masked: str) -> None:
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    ["sk-test-XXXXXXXXXXXXXXXXXXXXXXXX", "AKIAIOSFODNN7EXAMPLE", "task-" + "abcdefghij" * 3 + "12",
     "token: read-only", "password: hunter", "api key: per-user", "expires: 2026-05-01", "token: 12345678"],
)
def test_reports_stay_quiet_on_placeholders_and_words(text: str) -> None:
    assert find_secrets(text) == () and not has_secret(text)


def test_secret_warnings_format() -> None:
    text = "line one\n" + KEYS["github token"][1] + "\n" + KEYS["aws access key"][1] + "\n"
    assert secret_warnings("memory/domains/x/y.md", text) == [
        f"memory/domains/x/y.md:2: github token ({fingerprint(KEYS['github token'][0])})",
        f"memory/domains/x/y.md:3: aws access key ({fingerprint(KEYS['aws access key'][0])})"]


def test_new_secret_findings_counts_only_what_is_new() -> None:
    old_key = KEYS["github token"][1]
    new_key = KEYS["stripe key"][1]
    assert new_secret_findings(old_key, "edited\n" + old_key) == ()
    assert [f.kind for f in new_secret_findings(old_key, old_key + "\n" + new_key)] == ["stripe key"]
    assert [f.line for f in new_secret_findings(old_key, old_key + "\n" + old_key)] == [2]  # a second copy is new
    assert new_secret_findings("", "") == ()


def test_leaf_name_leaves_keys_out() -> None:
    for kind, (value, line) in KEYS.items():
        if "\n" in value:
            continue
        name = leaf_name(f"Notes {standalone(kind)} here")
        assert not {w.lower() for w in _windows(value, 8)} & {name[i : i + 8] for i in range(len(name))}, (kind, name)
        if kind not in CONTEXT_KINDS:
            assert name == "notes-here", (kind, name)


def test_scanning_a_large_file_is_fast() -> None:
    import time

    text = ("Plain words about services, tokens and the password reset flow: 1234.\n" * 80_000)
    start = time.perf_counter()
    assert find_secrets(text) == ()
    assert time.perf_counter() - start < 2.0


# --- properties: whatever surrounds a key, generated text never shows it -------------------------------

_KEY_VALUES = [kind for kind, (v, _) in KEYS.items() if "\n" not in v]
_SURROUNDINGS = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60)


@given(before=_SURROUNDINGS, after=_SURROUNDINGS, key=st.sampled_from(sorted(_KEY_VALUES)),
       decorate=st.sampled_from(["{}", "`{}`", "**{}**", "[{}](http://x.example)", "| a | {} |", "> {}", "- {}"]))
def test_summaries_and_names_never_show_a_key(before: str, after: str, key: str, decorate: str) -> None:
    line = " ".join(f"{before} {decorate.format(standalone(key))} {after}".split())
    summary = summarize(f"## Heading\n{line}\n")
    name = leaf_name(line)
    for window in _windows(KEYS[key][0], 12):
        assert window not in summary
        assert window.lower() not in name


@given(st.text(max_size=300))
def test_masking_is_idempotent_and_leaves_nothing_to_find(text: str) -> None:
    once = mask_secrets(text)
    assert mask_secrets(once) == once
    assert find_secrets(once, aggressive=True) == ()
    assert remove_secrets(text) == " ".join(remove_secrets(text).split())
