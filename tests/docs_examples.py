"""Runnable examples in the README and docs/: every ```console block is a shell session whose output the
real commands produce (issue 20: docs that cannot go stale).

A block is preceded by one line naming the workspace it starts from:

    <!-- example: migrated -->
    ```console
    $ bonsai-git status
    Boot: ~320 tokens ...
    ...
    ```

- `$ ` lines are commands (run in one bash shell, in the workspace folder, stderr folded into stdout);
  every other line is the output expected from the command above it.  A line `...` stands for any
  number of lines (as doctest's ELLIPSIS), so a long listing can show its head and tail only.
- Starting points: `empty` (an empty folder), `flat` (a git workspace whose MEMORY.md is the bundled
  sample, committed), `migrated` (the same after `bonsai-git migrate`); `flat:PATH` and `migrated:PATH`
  take MEMORY.md from PATH in this repository instead (e.g. `flat:docs/examples/casa-memory.md`;
  `migrated:PATH` migrates with `--force`, as a small example is below migrate's minimum).
- The workspace folder is shown as `~/agent-workspace` and HOME (its parent, a fresh folder) as `~`;
  git's identity and dates are pinned, so commit ids are stable.
- `pytest tests/test_docs_examples.py --update-docs` rewrites each block's expected output from what the
  commands print (keeping `...` lines where they still match), as `--update-goldens` does for trees.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from support import GIT_ENV

ROOT = Path(__file__).resolve().parent.parent
SHOWN_AS = "~/agent-workspace"
STARTS = ("empty", "flat", "migrated")
# the mark, the fence and its close at one indentation (a block in a list item is indented with it)
_MARK = re.compile(r"^( *)<!-- example: ([\w:./-]+) -->\n\1```console\n(.*?)^\1```\n", re.M | re.S)


@dataclass(frozen=True, slots=True)
class Step:
    """One `$ ` command of a block (continuation lines joined) and the output lines shown under it."""

    command: str
    expected: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Example:
    """One ```console block: its page, the offsets of its body in the page, start state and steps."""

    page: Path
    start: int
    end: int
    state: str
    steps: tuple[Step, ...]
    indent: str = ""  # the block's indentation in the page (a list item's), not part of its lines

    @property
    def where(self) -> str:
        line = self.page.read_text(encoding="utf-8").count("\n", 0, self.start) + 1
        return f"{self.page.relative_to(ROOT)}:{line}"


def doc_pages() -> list[Path]:
    """README.md, SKILL.md and every docs/*.md page, sorted."""
    return [ROOT / "README.md", ROOT / "SKILL.md", *sorted((ROOT / "docs").glob("*.md"))]


def parse_steps(body: str) -> tuple[Step, ...]:
    """Split a block body into steps; raises ValueError when output comes before any command."""
    steps: list[Step] = []
    command: list[str] | None = None
    output: list[str] = []
    for line in body.splitlines():
        if line.startswith("$ ") and not (command and command[-1].endswith("\\")):
            if command is not None:
                steps.append(Step("\n".join(command), tuple(output)))
            command, output = [line[2:]], []
        elif command is not None and command[-1].endswith("\\") and not output:
            command.append(line)
        elif command is None:
            raise ValueError(f"output before the first command: {line!r}")
        else:
            output.append(line)
    if command is not None:
        steps.append(Step("\n".join(command), tuple(output)))
    return tuple(steps)


def find_examples(page: Path) -> Iterator[Example]:
    """The marked ```console blocks of `page`, in order."""
    text = page.read_text(encoding="utf-8")
    for match in _MARK.finditer(text):
        indent = match.group(1)
        body = "".join(line.removeprefix(indent) for line in match.group(3).splitlines(keepends=True))
        yield Example(page, match.start(3), match.end(3), match.group(2), parse_steps(body), indent)


def unmarked_blocks(page: Path) -> list[int]:
    """Line numbers of ```console blocks not preceded by an `<!-- example: … -->` line: every fence
    markdown-it reads with the info string `console`, indented under a list item or fenced with ~~~ too."""
    from markdown_it import MarkdownIt

    text = page.read_text(encoding="utf-8")
    marked = {text.count("\n", 0, m.start(0)) + 2 for m in _MARK.finditer(text)}  # the fence's line
    return [token.map[0] + 1 for token in MarkdownIt("commonmark").parse(text)
            if token.type == "fence" and token.info.strip() == "console" and token.map is not None
            and token.map[0] + 1 not in marked]


def example_env(home: Path) -> dict[str, str]:
    """The environment every example runs in: pinned git, no user config, this interpreter's scripts first;
    the runtimes' settings (OpenClaw, Claude Code, Codex) at their defaults under the fresh HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "BONSAI_", "OPENCLAW_")) and k not in ("CODEX_HOME", "CLAUDE_CONFIG_DIR")}
    env.update(GIT_ENV)
    env.update(HOME=str(home), NO_COLOR="1", COLUMNS="100", LC_ALL="C.UTF-8",
               PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""))
    return env


def prepare(state: str, folder: Path, env: Mapping[str, str]) -> None:
    """Make `folder` the example's starting point (`empty`, `flat` or `migrated`, the last two with
    `:PATH` for another MEMORY.md)."""
    state, _, source = state.partition(":")
    if state not in STARTS or (source and state == "empty"):
        raise ValueError(f"unknown example start {state!r} (one of {', '.join(STARTS)}, flat:PATH, migrated:PATH)")
    folder.mkdir(parents=True)
    if state == "empty":
        return
    from bonsai_git.demo import sample_memory

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=folder, env=dict(env), check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (folder / "MEMORY.md").write_bytes((ROOT / source).read_bytes() if source else sample_memory())
    git("add", "MEMORY.md")
    git("commit", "-q", "-m", "Agent memory as one flat file")
    if state == "migrated":
        force = ["--force"] if source else []  # an example memory may be below migrate's 1,000-token minimum
        subprocess.run(["bonsai-git", "migrate", *force], cwd=folder, env=dict(env), check=True, capture_output=True)


def run_steps(steps: tuple[Step, ...], folder: Path, env: Mapping[str, str]) -> list[list[str]]:
    """Run the steps in one bash shell in `folder`; returns each step's output lines, the folder shown
    as ~/agent-workspace and its parent (HOME, example_env) as ~."""
    fence = "@@bonsai-docs-step@@"
    script = "".join(f"printf '%s\\n' '{fence}'\n{step.command}\n" for step in steps)
    proc = subprocess.run(["bash", "-c", script + f"printf '%s\\n' '{fence}'\n"], cwd=folder, env=dict(env),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    text = proc.stdout.decode("utf-8", "replace").replace(str(folder), SHOWN_AS).replace(str(folder.parent), "~")
    chunks = text.split(fence + "\n")[1:-1]
    return [chunk.splitlines() for chunk in chunks]


def matches(expected: tuple[str, ...], got: list[str]) -> bool:
    """True when `got` equals `expected`, a `...` line in `expected` standing for any lines."""
    pattern = "".join("(?:.*\n)*?" if line == "..." else re.escape(line) + "\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in got)) is not None


def refreshed(expected: tuple[str, ...], got: list[str]) -> list[str]:
    """The output to write back on --update-docs: `got`, but a head/`...`/tail shape is kept when the
    head and tail still match (so a shortened listing stays short)."""
    if "..." in expected and expected.count("...") == 1:
        head, tail = expected[: expected.index("...")], expected[expected.index("...") + 1:]
        if len(got) >= len(head) + len(tail):
            return [*got[: len(head)], "...", *(got[len(got) - len(tail):] if tail else [])]
    return got


def render(steps: tuple[Step, ...], outputs: list[list[str]]) -> str:
    """A block body from its steps and outputs."""
    lines: list[str] = []
    for step, output in zip(steps, outputs):
        lines.extend("$ " + part if i == 0 else part for i, part in enumerate(step.command.split("\n")))
        lines.extend(refreshed(step.expected, output))
    return "".join(line + "\n" for line in lines)


def workspace_for(tmp: Path) -> Path:
    """A fresh folder named like the one the docs show."""
    folder = tmp / "agent-workspace"
    if folder.exists():
        shutil.rmtree(folder)
    return folder
