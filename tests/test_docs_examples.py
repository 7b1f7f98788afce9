"""Every command-output example in the README, SKILL.md and docs/ is what the real command prints
(issue 20).  See tests/docs_examples.py for the block format; `--update-docs` rewrites the outputs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docs_examples import (ROOT, doc_pages, example_env, find_examples, matches, parse_steps, prepare, render,
                           run_steps, unmarked_blocks, workspace_for)

CASES = [(page, i) for page in doc_pages() if page.exists() for i, _ in enumerate(find_examples(page))]


def test_every_console_block_is_a_checked_example() -> None:
    unmarked = {str(page.relative_to(ROOT)): lines for page in doc_pages() if page.exists()
                if (lines := unmarked_blocks(page))}
    assert unmarked == {}, "```console blocks without an <!-- example: START --> line above them"


def test_every_transcript_is_a_console_block() -> None:
    """A fenced block that opens with a `$ ` command is a transcript: it must be a checked ```console
    example (a block that cannot be replayed stays out of this rule only by not posing as a session)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark")
    loose = {f"{page.relative_to(ROOT)}:{token.map[0] + 1}" for page in doc_pages() if page.exists()
             for token in parser.parse(page.read_text(encoding="utf-8"))
             if token.type == "fence" and token.map is not None and token.content.startswith("$ ")
             and token.info.strip() != "console"}
    assert loose == set(), "transcripts outside ```console blocks (mark them <!-- example: START -->)"


def test_there_are_examples_to_check() -> None:
    assert len(CASES) >= 3


@pytest.mark.parametrize(("page", "index"), CASES, ids=[f"{p.name}#{i}" for p, i in CASES])
def test_doc_example_matches_what_the_commands_print(page: Path, index: int, tmp_path: Path,
                                                     request: pytest.FixtureRequest) -> None:
    example = list(find_examples(page))[index]
    env = example_env(tmp_path)
    folder = workspace_for(tmp_path)
    prepare(example.state, folder, env)
    outputs = run_steps(example.steps, folder, env)
    assert len(outputs) == len(example.steps), f"{example.where}: a command ended the shell"
    if request.config.getoption("--update-docs"):
        text = page.read_text(encoding="utf-8")
        body = textwrap.indent(render(example.steps, outputs), example.indent)
        page.write_text(text[: example.start] + body + text[example.end:], encoding="utf-8")
        return
    for step, got in zip(example.steps, outputs):
        assert matches(step.expected, got), (f"{example.where}: `{step.command}` printed\n" + "\n".join(got))


@pytest.mark.parametrize(("body", "commands"), [
    ("$ a\nout\n$ b\n", ["a", "b"]),
    ("$ a \\\n  --x\nout\n", ["a \\\n  --x"]),
])
def test_parse_steps_splits_commands_and_outputs(body: str, commands: list[str]) -> None:
    assert [s.command for s in parse_steps(body)] == commands


def test_parse_steps_refuses_output_before_a_command() -> None:
    with pytest.raises(ValueError):
        parse_steps("out\n$ a\n")


@pytest.mark.parametrize(("expected", "got", "ok"), [
    (("a", "b"), ["a", "b"], True),
    (("a", "...", "d"), ["a", "b", "c", "d"], True),
    (("a", "...", "d"), ["a", "d"], True),
    (("a", "...", "d"), ["a", "b", "c"], False),
    (("a",), ["a", "b"], False),
    (("a.b",), ["axb"], False),
])
def test_matches_takes_ellipsis_lines_for_any_lines(expected: tuple[str, ...], got: list[str], ok: bool) -> None:
    assert matches(expected, got) is ok


def test_a_console_block_in_a_list_item_or_a_tilde_fence_is_held_to_the_rule_too() -> None:
    """A ```console block indented under a list item, or fenced with ~~~, is a console block as
    Markdown reads it (markdown-it): unmarked, it is reported; marked, it is a checked example
    (docs/safety.md's two indented transcripts were neither, so one showed an invented count)."""
    page = ROOT / "docs" / "_console_probe.md"  # doc pages are found by path; removed below
    page.write_text("# Probe\n\n1. Run it:\n\n   ```console\n   $ bonsai-git --version\n   wrong\n   ```\n\n"
                    "~~~console\n$ bonsai-git --version\nwrong\n~~~\n\n"
                    "- Marked:\n\n  <!-- example: empty -->\n  ```console\n  $ printf 'a\\n\\nb\\n'\n  a\n\n  b\n  ```\n",
                    encoding="utf-8")
    try:
        unmarked = unmarked_blocks(page)
        (example,) = find_examples(page)
    finally:
        page.unlink()
    assert unmarked == [5, 10]
    assert example.state == "empty" and example.indent == "  "
    assert [(s.command, s.expected) for s in example.steps] == [("printf 'a\\n\\nb\\n'", ("a", "", "b"))]
