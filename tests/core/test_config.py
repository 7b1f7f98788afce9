from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bonsai_git.core.config import Config, is_domain_name, parse_config
from bonsai_git.core.errors import BadInput


def test_parse_config_reads_every_key() -> None:
    cfg = parse_config(
        'min_tokens = 10\npreamble_tokens = 0\nabsorb = false\npinned = ["X"]\n'
        '[tokens]\nestimator = "chars4"\n[commit]\nsubject = "chore: {domains}"\n'
    )
    assert (cfg.min_tokens, cfg.preamble_tokens, cfg.absorb, cfg.estimator, cfg.subject) == (
        10, 0, False, "chars4", "chore: {domains}")
    assert "X" in cfg.pinned


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("min_tokens = ", "not valid TOML"),
        ("colour = 1", "unknown key 'colour'"),
        ("min_tokens = -1", "min_tokens must be a whole number"),
        ('[tokens]\nestimator = "words"', "tokens.estimator must be one of"),
        ('[domains]\n"Bad Name" = ["x"]', "domain name 'Bad Name'"),
        ("[domains]\ngeneral = ['x']", "domain name 'general'"),
        ("pinned = [1]", "pinned must be a list"),
        ("absorb = 'yes'", "absorb must be true or false"),
        ("tokens = 5", r"tokens must be a table \(\[tokens\] with estimator\)"),
        ('commit = "x"', r"commit must be a table \(\[commit\] with subject\)"),
        ("[tokens]\nfoo = 1", r"unknown key 'tokens.foo'; known keys in \[tokens\]: estimator"),
        ("[commit]\nbar = 1", r"unknown key 'commit.bar'; known keys in \[commit\]: subject"),
        ("domains = 5", r"\[domains\] must be a table"),
    ],
)
def test_parse_config_refuses_bad_values(text: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as info:
        parse_config(text)
    assert info.value.exit_code == 3
    assert info.value.message.startswith(".bonsai.toml: ")


ALLOWED = "allowed placeholders: {domains} {before} {after} {sections}"


@pytest.mark.parametrize(
    ("subject", "message"),
    [
        ("memory: {domain} split", "unknown placeholder {domain}"),
        ("{0} split", "unknown placeholder {0}"),
        ("{} split", "unknown placeholder {}"),
        ("{domains.real} split", "unknown placeholder {domains.real}"),
        ("{domains[0]} split", "unknown placeholder {domains[0]}"),
        ("memory {split", "expected '}' before end of string"),
        ("memory split}", "Single '}' encountered"),
        ("{domains:q} split", "Unknown format code 'q'"),
        ("{before:d} split", "Unknown format code 'd'"),
        ("{domains!z} split", "Unknown conversion specifier z"),
        ("{domains:>{width}} split", "KeyError: 'width'"),
    ],
)
def test_parse_config_refuses_a_bad_subject_template(subject: str, message: str) -> None:
    with pytest.raises(BadInput) as info:
        parse_config(f"[commit]\nsubject = {subject!r}\n")
    text = info.value.message
    assert info.value.exit_code == 3 and "\n" not in text
    assert text.startswith(".bonsai.toml: commit.subject ") and message in text and ALLOWED in text


@pytest.mark.parametrize("subject", ["{domains} {before} {after} {sections}", "{{literal}} {domains:>3}", "no placeholder"])
def test_parse_config_accepts_good_subject_templates(subject: str) -> None:
    assert parse_config(f"[commit]\nsubject = {subject!r}\n").subject == subject


@pytest.mark.parametrize(("name", "ok"), [("travel", True), ("项目", True), ("a" * 60, True), ("a" * 61, False),
                                          ("general", True), ("-x", False), ("_x", False), ("a b", False)])
def test_is_domain_name(name: str, ok: bool) -> None:
    assert is_domain_name(name) is ok


def test_parse_config_refuses_a_too_long_domain_name() -> None:
    with pytest.raises(BadInput, match="at most 60"):
        parse_config(f"[domains]\n{'a' * 61} = ['x']\n")


@pytest.mark.parametrize("subject", ["memory: {domain} split", "memory {split", "{0} split"])
def test_migrate_with_a_bad_subject_template_refuses_and_writes_nothing(make_repo: Callable[..., Path], subject: str) -> None:
    from click.testing import CliRunner

    from bonsai_git.cli import main
    from support import corpus_bytes, git, snapshot

    repo = make_repo(corpus_bytes("03-chief-of-staff-6k.md"))
    (repo / ".bonsai.toml").write_text(f"[commit]\nsubject = {subject!r}\n")
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-qm", "config")
    before = snapshot(repo)
    for extra in ((), ("--dry-run",)):
        result = CliRunner().invoke(main, ["migrate", "-C", str(repo), *extra])
        assert result.exit_code == 3, result.output
        assert ".bonsai.toml: commit.subject" in result.stderr and ALLOWED in result.stderr
        assert result.stderr.count("\n") == 1
    assert snapshot(repo) == before


@pytest.mark.parametrize("toml", ["tokens = 5", 'commit = "x"', "[tokens]\nfoo = 1", "[commit]\nbar = 1"])
def test_status_and_reindex_refuse_a_malformed_table_in_one_line(make_repo: Callable[..., Path], toml: str) -> None:
    from click.testing import CliRunner

    from bonsai_git.cli import main
    from support import corpus_bytes, git, snapshot

    repo = make_repo(corpus_bytes("03-chief-of-staff-6k.md"))
    assert CliRunner().invoke(main, ["migrate", "-C", str(repo), "--force"]).exit_code == 0
    (repo / ".bonsai.toml").write_text(toml + "\n")
    git(repo, "add", ".bonsai.toml")
    git(repo, "commit", "-qm", "config", "--no-verify")
    before = snapshot(repo)
    key = toml.strip("[").split("]")[0].split(" ")[0]
    for command in ("status", "reindex"):
        result = CliRunner().invoke(main, [command, "-C", str(repo)])
        assert result.exit_code == 3, (command, result.output)
        assert result.stderr.count("\n") == 1 and ".bonsai.toml: " in result.stderr and key in result.stderr
    assert snapshot(repo) == before


def test_domains_table_shape_keywords_scope_and_refusals() -> None:
    cfg = parse_config('[domains]\nmarketing = ["campaign"]\n[domains.people]\nscope = "our crew"\n'
                       '[domains.garden]\nkeywords = ["roses"]\nscope = "  the garden  "\n')
    names = [name for name, _ in cfg.domains]
    assert names[:3] == ["marketing", "people", "garden"]
    assert dict(cfg.domains)["people"] == dict(Config().domains)["people"]  # a scope alone keeps the keywords
    assert cfg.scopes == {"people": "our crew", "garden": "the garden"}
    assert cfg.configured == ("marketing", "garden")
    from bonsai_git.core.config import domain_scope

    assert domain_scope("people", cfg.scopes) == "our crew"
    assert domain_scope("log", cfg.scopes).startswith("dated entries")
    assert domain_scope("marketing", cfg.scopes) == ""
    for text, message in (
        ('[domains.x]\nkeywords = "a"\n', "domains.x.keywords must be a list of non-empty strings"),
        ('[domains.x]\nscope = "two\\nlines"\n', "domains.x.scope must be a one-line string"),
        ('[domains.x]\ncolour = "red"\n', "unknown key 'domains.x.colour'"),
        ('[domains]\npinned = ["x"]\n', "domain name 'pinned'"),
    ):
        with pytest.raises(BadInput) as info:
            parse_config(text)
        assert message in info.value.message
