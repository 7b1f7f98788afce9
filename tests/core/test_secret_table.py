"""The secrets table (issue 13): every secret found whatever script touches it, no false alarm,
and `bonsai-git-secrets` and `status` agreeing on every case; allow lists and the inline marker.

The cases live in secret_cases.py (shared with benchmarks/bench_secrets.py): each positive line
is tried alone and with each script's word glued to both of its ends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from bonsai_git.cli import main
from bonsai_git.core.config import parse_config
from bonsai_git.core.errors import BadInput
from bonsai_git.core.secretscan import (
    ALLOW_MARKER, MASK, _keep, fingerprint, find_secrets, mask_secrets, secret_warnings,
)
from bonsai_git.core.summary import summarize
from secret_cases import MARKER, NEGATIVES, POSITIVES, SCRIPTS, variants
from support import git

MakeRepo = Callable[..., Path]
SECRETS = str(Path(sys.executable).with_name("bonsai-git-secrets"))
RULE_KINDS = {"private key", "anthropic key", "stripe key", "openai key", "github token", "gitlab token",
              "aws access key", "slack token", "slack webhook", "discord webhook", "google api key",
              "hugging face token", "npm token", "sendgrid key", "telegram bot token", "jwt", "password in url",
              "bearer token", "secret assignment", "basic auth", "azure storage key", "azure sas signature"}


def _value(kind: str, line: str) -> str:
    """The secret part of a positive line (what must never reach generated text)."""
    found = find_secrets(line)
    assert len(found) == 1, line
    return line[found[0].start : found[0].end]


def test_the_table_is_large_and_covers_every_kind_and_script() -> None:
    assert len(POSITIVES) >= 60 and len(NEGATIVES) >= 30
    assert {kind for kind, _line in POSITIVES} == RULE_KINDS
    assert len(SCRIPTS) >= 9
    assert all(len(variants(line)) == len(SCRIPTS) + 1 for _kind, line in POSITIVES)


@pytest.mark.parametrize(("kind", "line"), POSITIVES, ids=[f"{i:02d}-{k}" for i, (k, _l) in enumerate(POSITIVES)])
def test_every_secret_is_reported_whatever_script_touches_it(kind: str, line: str) -> None:
    value = _value(kind, line)
    for label, text in variants(line):
        found = find_secrets(text)
        assert [f.kind for f in found] == [kind], (label, text)
        shown = text[found[0].start : found[0].end]
        # the value, not the script's word; a value written in a script with spaces runs on through
        # that script's letters (`пароль: Медведь2024ключ`: nothing tells where the word ends)
        assert shown == value or (not value[0].isascii() and shown == value + SCRIPTS[label]), label


@pytest.mark.parametrize("line", NEGATIVES, ids=[f"{i:02d}" for i in range(len(NEGATIVES))])
def test_no_pointer_placeholder_example_or_word_is_reported(line: str) -> None:
    for label, text in variants(line):
        assert find_secrets(text) == (), (label, text)
        assert secret_warnings("memory/x.md", text) == []


@pytest.mark.parametrize(("kind", "line"), POSITIVES, ids=[f"{i:02d}-{k}" for i, (k, _l) in enumerate(POSITIVES)])
def test_generated_text_never_shows_a_secret(kind: str, line: str) -> None:
    value = _value(kind, line)[_keep(kind):]  # a mask may keep the vendor's public prefix
    windows = {value[i : i + 10] for i in range(max(1, len(value) - 9))} - {"PRIVATE KE", "RIVATE KEY"}
    for label, text in variants(line):
        if "\n" in text:
            shown = [mask_secrets(text)]
        else:
            shown = [mask_secrets(text), summarize(f"## Heading\n{text}\n")]
        for out in shown:
            assert MASK in out and not {w for w in windows if w in out}, (label, out)


def test_masking_stays_conservative_on_pointers() -> None:
    # Warnings stay quiet on a pointer, but an index line may still mask it: that costs a word.
    line = NEGATIVES[0]
    assert find_secrets(line) == () and mask_secrets(line) == '- Telegram bot token: …[masked] item "Telegram bot"'


def test_the_inline_marker_allows_only_its_own_line() -> None:
    key = POSITIVES[4][1]
    assert find_secrets(f"{key}{MARKER}\n{key}\n")[0].line == 2
    assert find_secrets(f"{key} {ALLOW_MARKER} and more") != ()  # not at the end of the line
    assert mask_secrets(f"{key}{MARKER}").startswith("ghp_" + MASK)  # generated text still masks it


def test_an_allowed_fingerprint_silences_that_value_only() -> None:
    first, second = POSITIVES[4][1], POSITIVES[5][1]
    text = f"{first}\n{second}\n"
    allow = {fingerprint(first)}
    assert [f.line for f in find_secrets(text, allow=allow)] == [2]
    assert [f.line for f in find_secrets(text, allow={"sha256:0000000000000000"})] == [1, 2]
    assert fingerprint(first) != fingerprint(f"  {first}. ")  # the value as found: nothing stripped
    assert re.fullmatch(r"sha256:[0-9a-f]{16}", fingerprint(first))


@pytest.mark.parametrize("near", ["Winter2024!", "Winter2024)))", "Winter2024.", "Winter2024,", "Winter2024;",
                                  "Winter2024*", "Winter2024?", "Winter2024:", "Winter2024]", "Winter2024}"])
def test_a_fingerprint_allows_one_value_never_a_near_miss(near: str) -> None:
    """Issue 25: trailing punctuation was stripped before hashing, so allowing the false alarm
    `password: Winter2024` let `Winter2024!` and `Winter2024)))` through: different values."""
    allow = {fingerprint("Winter2024")}
    assert find_secrets("password: Winter2024", allow=allow) == ()
    found = find_secrets(f"password: {near}", allow=allow)
    assert [f.kind for f in found] == ["secret assignment"]
    assert f"password: {near}"[found[0].start : found[0].end] == near  # the whole value, as found
    assert find_secrets(f"password: {near}", allow={fingerprint(near)}) == ()


def _old_fingerprint(value: str) -> str:
    """The rule before issue 25: NFC, blanks stripped, trailing punctuation stripped."""
    import hashlib
    import unicodedata

    normal = unicodedata.normalize("NFC", value.strip()).rstrip(".,;:!?*)")
    return "sha256:" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def test_an_old_fingerprint_still_allows_exactly_its_own_value() -> None:
    allow = {_old_fingerprint("Winter2024!")}  # made by the old rule from `Winter2024!`: it hashed `Winter2024`
    assert find_secrets("password: Winter2024", allow=allow) == ()  # the exact value it was made of
    assert find_secrets("password: Winter2024!", allow=allow) != ()  # not the near miss
    key = POSITIVES[4][1]
    assert _old_fingerprint(key) == fingerprint(key)  # nothing stripped: the same print, still honoured


def test_secrets_allow_takes_fingerprints_never_values() -> None:
    good = fingerprint("x")
    assert parse_config(f'[secrets]\nallow = ["{good}"]\n').secret_allow == {good}
    value = POSITIVES[4][1]
    for bad in (f'[secrets]\nallow = ["{value}"]\n', '[secrets]\nallow = "sha256:0123456789abcdef"\n',
                '[secrets]\nallow = ["SHA256:0123456789ABCDEF"]\n', '[secrets]\nignore = []\n'):
        with pytest.raises(BadInput) as exc:
            parse_config(bad)
        assert value not in exc.value.message and exc.value.message.startswith(".bonsai.toml: ")


# --- bonsai-git-secrets and status agree on every case ----------------------------------------------

def _case_files() -> dict[str, tuple[str, list[tuple[int, str]]]]:
    """{leaf path: (text, [(line, kind) expected])}: one leaf per case, one line (or PEM) per variant."""
    files = {}
    for number, (kind, line) in enumerate(POSITIVES):
        lines, expected = ["## Positive case"], []
        for _label, text in variants(line):
            expected.append((len(lines) + 1, kind))
            lines += text.split("\n")
        files[f"memory/domains/general/positive-{number:02d}.md"] = ("\n".join(lines) + "\n", expected)
    for number, line in enumerate(NEGATIVES):
        lines = ["## Negative case"] + [text for _label, text in variants(line)]
        files[f"memory/domains/general/negative-{number:02d}.md"] = ("\n".join(lines) + "\n", [])
    return files


def _hook_findings(repo: Path, paths: list[str]) -> set[tuple[str, int, str]]:
    proc = subprocess.run([SECRETS, *paths], cwd=repo, capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    out = set()
    for row in proc.stdout.splitlines():
        m = re.fullmatch(r"(.+?):(\d+): (.+) \((sha256:[0-9a-f]{16})\)", row)
        assert m is not None, row
        out.add((m.group(1), int(m.group(2)), m.group(3)))
    return out


def _status_findings(repo: Path) -> set[tuple[str, int, str]]:
    result = CliRunner().invoke(main, ["status", "-C", str(repo), "--json"])
    assert result.exit_code in (0, 1), result.output
    found = set()
    for w in json.loads(result.stdout)["warnings"]:
        if w["kind"] == "secret":
            found.add((w["path"], w["line"], w["message"].split(" (sha256:")[0]))
    return found


def test_the_hook_and_status_agree_on_every_case(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    files = _case_files()
    for path, (text, _expected) in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    expected = {(path, line, kind) for path, (_t, rows) in files.items() for line, kind in rows}
    assert len(expected) == len(POSITIVES) * (len(SCRIPTS) + 1)
    assert _hook_findings(repo, sorted(files)) == expected
    assert _status_findings(repo) == expected


def test_the_hook_and_status_honour_the_allow_list(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    positives = [line for _kind, line in POSITIVES[:6]]
    leaf = "memory/domains/general/keys.md"
    (repo / leaf).parent.mkdir(parents=True)
    (repo / leaf).write_text("## Keys\n" + "\n".join(positives) + "\n")
    git(repo, "add", "-A")
    before = _hook_findings(repo, [leaf])
    assert before == _status_findings(repo) and len(before) == 6
    printed = subprocess.run([SECRETS, leaf], cwd=repo, capture_output=True, text=True).stdout
    allowed = re.findall(r"\((sha256:[0-9a-f]{16})\)", printed)[:4]  # copied from the hook's own output
    (repo / ".bonsai.toml").write_text("[secrets]\nallow = [" + ", ".join(f'"{a}"' for a in allowed) + "]\n")
    after = _hook_findings(repo, [leaf])
    assert after == _status_findings(repo) == {(leaf, 6, "github token"), (leaf, 7, "github token")}
    for line in positives:
        assert line not in (repo / ".bonsai.toml").read_text()


def test_migrate_warnings_honour_the_allow_list_and_the_marker(make_repo: MakeRepo) -> None:
    keys = [line for _kind, line in POSITIVES[4:7]]
    memory = ("# Memory\n\n## Services\n" + f"{keys[0]}\n{keys[1]}{MARKER}\n{keys[2]}\n\n## Notes\n"
              + "Plain words about the project. " * 300 + "\n")
    repo = make_repo(memory)
    (repo / ".bonsai.toml").write_text(f'[secrets]\nallow = ["{fingerprint(keys[2])}"]\n')
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-qm", "allow")
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0, result.stderr
    warnings = [row for row in result.stderr.splitlines() if row.startswith("warning: ")]
    assert warnings == [f"warning: memory/domains/infrastructure/services.md:2: github token ({fingerprint(keys[0])})"]


# --- names made by the agent ----------------------------------------------------------------------------

AWS = POSITIVES[8][1]
NAMED = f"memory/domains/infrastructure/notes-{AWS.lower()}.md"


def _named_repo(make_repo: MakeRepo) -> Path:
    memory = "# Memory\n\n## Services\nThe cron runner restarts nightly.\n\n## Notes\n" + "Plain words. " * 400 + "\n"
    repo = make_repo(memory)
    result = CliRunner().invoke(main, ["migrate", "-C", str(repo)])
    assert result.exit_code == 0, result.stderr
    (repo / NAMED).write_text("## Notes\nThe key was rotated.\n")  # written by the agent, key in the name
    sub = f"memory/domains/infrastructure/{AWS}/readme.md"  # in a sub-folder's name, upper case
    (repo / sub).parent.mkdir()
    (repo / sub).write_text("## Readme\nAbout the folder.\n")
    git(repo, "add", "-A")
    return repo


def _generated_text(repo: Path) -> str:
    return "".join(p.read_text() for p in sorted(repo.rglob("_index*.md"))) + (repo / "MEMORY.md").read_text()


def test_a_key_in_a_file_name_never_reaches_the_indexes(make_repo: MakeRepo) -> None:
    repo = _named_repo(make_repo)
    hook = subprocess.run([str(Path(sys.executable).with_name("bonsai-git-hook"))], cwd=repo, capture_output=True,
                          text=True)
    assert hook.returncode == 1, hook.stderr
    generated = _generated_text(repo)
    body = AWS[4:]
    assert body.lower() not in generated.lower() and body[:8].lower() not in generated.lower()
    # the key-named sub-folder is a sub-branch: listed by its masked name, its leaf in its own index
    assert "### notes-akia" + MASK + ".md" in generated and "### [akia" + MASK + "/](" in generated.lower()
    assert "### readme.md (~" in generated
    masked = f"memory/domains/infrastructure/notes-akia{MASK}.md"
    assert f"bonsai-git: warning: {masked}: aws access key in the file name" in hook.stderr
    assert body not in hook.stdout + hook.stderr and body.lower() not in hook.stdout + hook.stderr
    git(repo, "add", "-A")
    again = subprocess.run([str(Path(sys.executable).with_name("bonsai-git-hook"))], cwd=repo, capture_output=True,
                           text=True)
    assert again.returncode == 0 and again.stdout == "", again.stdout  # stable: nothing left to rewrite


def test_status_and_the_secrets_hook_name_the_file_masked(make_repo: MakeRepo) -> None:
    repo = _named_repo(make_repo)
    assert CliRunner().invoke(main, ["reindex", "-C", str(repo)]).exit_code == 0
    git(repo, "add", "-A")
    result = CliRunner().invoke(main, ["status", "-C", str(repo), "--json"])
    warnings = json.loads(result.stdout)["warnings"]
    secret = [(w["path"], w["line"]) for w in warnings if w["kind"] == "secret"]
    masked = f"memory/domains/infrastructure/notes-akia{MASK}.md"
    assert (masked, None) in secret and len(secret) == 2
    assert not [w for w in warnings if w["kind"] in ("orphan_leaf", "orphan_entry", "stale_index")], warnings
    body = AWS[4:]
    assert body.lower() not in result.stdout.lower()
    proc = subprocess.run([SECRETS], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1 and f"{masked}: aws access key in the file name" in proc.stdout
    assert body.lower() not in (proc.stdout + proc.stderr).lower()


def test_plain_names_are_shown_as_they_are() -> None:
    from bonsai_git.core.secretscan import mask_name, name_secret_kinds

    for name in ("infrastructure/cron-jobs.md", "log-2026-03-14.md", "q3-2026-okrs.md", "gpt4-notes.md",
                 "internationalization2024.md", "密钥轮换.md", "projects/alpha/readme.md", "s3-buckets.md"):
        assert mask_name(name) == name and name_secret_kinds(name) == (), name
    for kind, line in POSITIVES:
        if "\n" not in line and "/" not in line and kind != "secret assignment":
            assert _value(kind, line).lower() not in mask_name(f"notes-{line.lower()}.md"), kind


@pytest.mark.skipif(os.name != "posix", reason="console scripts on PATH")
def test_the_hook_path_still_skips_the_rules_on_a_no_op_run(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\n## Services\nThe cron runner restarts nightly.\n\n## Notes\n" + "Words. " * 900)
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo)]).exit_code == 0
    subprocess.run([sys.executable, "-m", "bonsai_git.hook"], cwd=repo, check=True)  # warms the facts cache
    probe = ("from bonsai_git.hook import main\ncode = main([])\nfrom bonsai_git.core import secretscan\n"
             "print(code, secretscan._rules.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True, text=True)
    assert out.stdout.split() == ["0", "0"], out.stderr


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"), max_size=80),
       st.sampled_from([line for kind, line in POSITIVES if "\n" not in line and "/" not in line
                        and kind != "secret assignment"]))
def test_mask_name_is_idempotent_and_hides_keys_in_any_case(around: str, key: str) -> None:
    from bonsai_git.core.secretscan import mask_name

    for name in (f"{around}{key}{around}.md", f"{around}-{key.lower()}-{around}.md"):
        once = mask_name(name)
        assert mask_name(once) == once
        body = key[_keep(find_secrets(key)[0].kind):] if find_secrets(key) else key
        assert body.lower()[-12:] not in once.lower(), (name, once)


def test_the_secrets_hook_refuses_a_malformed_config_in_one_line(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    leaf = "memory/domains/general/keys.md"
    (repo / leaf).parent.mkdir(parents=True)
    (repo / leaf).write_text("## Keys\n" + POSITIVES[4][1] + "\n")
    (repo / ".bonsai.toml").write_text(f'[secrets]\nallow = ["{POSITIVES[4][1]}"]\n')  # the value, not its print
    git(repo, "add", "-A")
    proc = subprocess.run([SECRETS, leaf], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "secrets.allow entry 1 is not a fingerprint" in proc.stderr
    assert POSITIVES[4][1] not in proc.stderr


@pytest.mark.parametrize(("kind", "line"), [(k, ln) for k, ln in POSITIVES if "\n" not in ln],
                         ids=[f"{i:02d}-{k}" for i, (k, ln) in enumerate(POSITIVES) if "\n" not in ln])
def test_a_leaf_name_made_from_a_heading_leaves_the_key_out_in_every_script(kind: str, line: str) -> None:
    from bonsai_git.core.slugs import leaf_name

    value = _value(kind, line)[_keep(kind):].lower()
    for label, text in variants(line):
        name = leaf_name(text)
        assert not {value[i : i + 8] for i in range(len(value) - 7)} & {name[i : i + 8] for i in range(len(name))}, \
            (label, name)


def test_the_secrets_hook_stays_light(make_repo: MakeRepo) -> None:
    repo = make_repo("# Memory\n\nNotes.\n")
    leaf = "memory/domains/general/keys.md"
    (repo / leaf).parent.mkdir(parents=True)
    (repo / leaf).write_text("## Keys\n" + POSITIVES[4][1] + "\n")
    git(repo, "add", "-A")
    probe = ("import sys\nfrom bonsai_git.secrethook import main\ncode = main(sys.argv[1:])\n"
             "heavy = sorted(m for m in ('git', 'click', 'markdown_it', 'slugify', 'tomllib') if m in sys.modules)\n"
             "print(code, ','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", probe, leaf], cwd=repo, capture_output=True, text=True)
    assert out.stdout.splitlines()[-1] == "1 ", out.stderr


@pytest.mark.parametrize("name", [
    "00000000glpat-m6fV_Kmt_z95IOmfGNEB00000000.md",  # a key glued to a counter on both sides
    "xxxxxxxxglpat-m6fV_Kmt_z95IOmfGNEBxxxxxxxx.md",  # and to words
    "0000AKIAT07PHFU8QWP93TJ60000.md", "AAAAAKIAT07PHFU8QWP93TJ6AAAA.md",  # a fixed-length key, glued
    "aaaaaaaaaaaahf_U3eDKHMoUwjyxm3o5SDWqxGMqXIbWSNHrxaaaaaaaaaaaa.md",  # a short prefix, random after it
    ":0A0A-eyje2l8tjvfdizi6zstuwvz.eyjo1ufjg276le5xu7i9cfdsd45nk6rpc.i07-8eslttoai5kgcldnae2ski5-:0A0A.md",
])
def test_mask_name_hides_a_key_glued_to_other_text(name: str) -> None:
    """Counterexamples hypothesis found: a slug has no separator to show where a key ends, so a key
    glued to digits or words is still a key in a file name (and overlapping hits mask as one)."""
    from bonsai_git.core.secretscan import mask_name

    masked = mask_name(name)
    assert "[masked]" in masked
    assert not any(run in masked.lower() for run in ("z95iomfgneb", "qwp93tj6", "xgmqxibwsnhrx", "dnae2ski5"))


@pytest.mark.parametrize("name", ["task-management-and-planning-notes-for-q3.md", "shelf_abcdefghijklmnopqrstuvwxyz.md",
                                  "risk-assessment-for-q3-2024-vendors-and-partners.md", "slovakia-trip-notes.md"])
def test_a_word_ending_in_a_short_key_prefix_is_not_a_key(name: str) -> None:
    from bonsai_git.core.secretscan import mask_name

    assert mask_name(name) == name


@pytest.mark.parametrize("text", [
    "ticket projectnumber2024glpat-m6fV_Kmt_z95IOmfGNEB closed",  # glued to a word and a number
    "ref aaaaaaaaaaaaaaaaaaaaglpat-m6fV_Kmt_z95IOmfGNEBaaaaaaaaaaaaaaaaaaaa end",  # too plain to look random
    "x 00000000AKIAT07PHFU8QWP93TJ6 y",  # a fixed-length key glued to a counter
])
def test_generated_text_masks_a_key_glued_to_other_text(text: str) -> None:
    """The kind behind mask_name's glued keys, in summaries: masking takes a glued key as a key and
    joins overlapping hits, while reports keep a word start (`task-…` is not `sk-…`)."""
    from bonsai_git.core.secretscan import mask_secrets

    masked = mask_secrets(text)
    assert "[masked]" in masked
    assert not any(run in masked for run in ("z95IOmfGNEB", "QWP93TJ6"))
