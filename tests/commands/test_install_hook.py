"""The plain git hook (hooks/pre-commit) and `bonsai-git install-hook`, with real `git commit` runs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonsai_git.cli import main
from bonsai_git.githook import PUSH_SCRIPT, PYTHON_LINE, SCRIPT, hook_script
from living_tree import (
    LIVING, PRICING, SCENARIOS, MakeRepo, assert_commit_lands_at_once, commit_all, delete_leaf, edit_leaf, env, migrated,
    run, tree_files, write,
)
from support import ROOT, git


def install(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["install-hook", "-C", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def installed(script: Path, python: str = sys.executable) -> bytes:
    """What install-hook writes from `script` when it runs in `python`: SCRIPT with one line filled in."""
    return hook_script(script.read_bytes(), python)


def test_hook_script_is_the_packaged_one() -> None:
    assert (ROOT / "hooks/pre-commit").read_bytes() == SCRIPT.read_bytes()
    assert (ROOT / "hooks/pre-push").read_bytes() == PUSH_SCRIPT.read_bytes()
    assert os.access(ROOT / "hooks/pre-commit", os.X_OK)
    assert subprocess.run(["sh", "-n", str(SCRIPT)]).returncode == 0


@pytest.mark.parametrize("script", [SCRIPT, PUSH_SCRIPT], ids=["pre-commit", "pre-push"])
@pytest.mark.parametrize("python", ["/opt/venv/bin/python", "/home/a b/it's/python3", "/p/\u00e9\udcff/python"])
def test_installed_hook_is_the_script_with_one_line_naming_the_interpreter(script: Path, python: str,
                                                                           tmp_path: Path) -> None:
    shipped = script.read_bytes().splitlines(keepends=True)
    ours = hook_script(script.read_bytes(), python).splitlines(keepends=True)
    changed = [(a, b) for a, b in zip(shipped, ours) if a != b]
    assert len(ours) == len(shipped) and changed == [(PYTHON_LINE, changed[0][1])]
    assert hook_script(script.read_bytes(), python) == hook_script(script.read_bytes(), python)  # same bytes
    probe = tmp_path / "probe.sh"  # the line, run by sh, sets BONSAI_PYTHON to the path byte for byte
    probe.write_bytes(changed[0][1] + b'printf %s "$BONSAI_PYTHON"\n')
    assert subprocess.run(["sh", str(probe)], capture_output=True).stdout == os.fsencode(python)
    assert hook_script(script.read_bytes(), "") == script.read_bytes()  # Python could not tell: PATH only
    assert hook_script(script.read_bytes(), "python3") == script.read_bytes()  # relative: not recorded


@pytest.mark.parametrize("change", SCENARIOS, ids=lambda f: f.__name__)
def test_plain_hook_stops_a_stale_commit_once(make_repo: MakeRepo, change: Callable[[Path], None]) -> None:
    repo = migrated(make_repo)
    assert install(repo)[0] == 0
    change(repo)
    assert_commit_lands_at_once(repo)


def test_plain_hook_lets_an_unrelated_commit_through_untouched(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    install(repo)
    write(repo, "notes/todo.txt", "buy clay\n")
    before = tree_files(repo)
    assert commit_all(repo).returncode == 0
    assert tree_files(repo) == before


def test_install_hook_is_idempotent_and_uninstall_reverses_it(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    hooks = repo / ".git/hooks"
    before = sorted(p.name for p in hooks.iterdir())
    code, out, _ = install(repo)
    assert (code, out) == (0, f"installed: {hooks / 'pre-commit'}\ninstalled: {hooks / 'pre-push'}\n")
    assert (hooks / "pre-commit").read_bytes() == installed(SCRIPT)
    assert (hooks / "pre-push").read_bytes() == installed(ROOT / "hooks" / "pre-push")  # the push gate
    assert stat.S_IMODE((hooks / "pre-commit").stat().st_mode) == 0o755
    assert install(repo)[1].startswith("already installed:")
    assert install(repo, "--uninstall")[1].startswith("uninstalled:")
    assert sorted(p.name for p in hooks.iterdir()) == before
    assert install(repo, "--uninstall")[1].startswith("not installed; nothing to do")


def test_install_hook_chains_an_existing_hook_and_uninstall_restores_it(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    theirs = repo / ".git/hooks/pre-commit"
    script = b"#!/bin/sh\necho theirs ran >> \"$(git rev-parse --git-dir)/theirs.log\"\nexit 0\n"
    theirs.write_bytes(script)
    theirs.chmod(0o750)
    code, out, _ = install(repo)
    assert code == 0 and "chained:" in out
    chained = repo / ".git/hooks/pre-commit.bonsai-chained"
    assert chained.read_bytes() == script and stat.S_IMODE(chained.stat().st_mode) == 0o750
    edit_leaf(repo)
    assert_commit_lands_at_once(repo)
    assert (repo / ".git/theirs.log").read_text() == "theirs ran\n"  # it ran first, in the one attempt
    assert install(repo)[1].startswith("already installed:")
    assert install(repo, "--uninstall")[1].startswith("uninstalled (the previous hook is back)")
    assert theirs.read_bytes() == script and stat.S_IMODE(theirs.stat().st_mode) == 0o750
    assert not chained.exists()


def test_a_failing_chained_hook_stops_the_commit_first(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    theirs = repo / ".git/hooks/pre-commit"
    theirs.write_text("#!/bin/sh\necho 'lint failed' >&2\nexit 7\n")
    theirs.chmod(0o755)
    install(repo)
    edit_leaf(repo)
    result = commit_all(repo)
    assert result.returncode != 0 and "lint failed" in result.stderr and "bonsai-git: wrote" not in result.stderr


def test_install_hook_refuses_the_pre_commit_frameworks_hook(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    proc = subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "install"], cwd=repo, env=env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    theirs = (repo / ".git/hooks/pre-commit").read_bytes()
    code, out, err = install(repo)
    assert code == 3
    assert "- id: bonsai-reindex" in out and "repo: local" in out and "entry: bonsai-git-hook" in out
    assert err.startswith("bonsai-git: .git/hooks/pre-commit: written by the pre-commit framework;")
    assert (repo / ".git/hooks/pre-commit").read_bytes() == theirs
    assert not (repo / ".git/hooks/pre-commit.bonsai-chained").exists()
    assert install(repo, "--uninstall")[0] == 3  # not ours: left alone
    assert (repo / ".git/hooks/pre-commit").read_bytes() == theirs


def test_install_hook_honours_core_hooks_path(make_repo: MakeRepo) -> None:
    repo = migrated(make_repo)
    git(repo, "config", "core.hooksPath", ".githooks")
    assert install(repo)[0] == 0
    assert (repo / ".githooks/pre-commit").read_bytes() == installed(SCRIPT)
    assert not (repo / ".git/hooks/pre-commit").exists()
    delete_leaf(repo)
    git(repo, "add", "-A")
    result = run(["git", "commit", "-q", "-m", "delete"], repo)  # git sends a hook's stdout to stderr
    assert result.returncode == 0 and "staged them: " in result.stderr
    assert "memory/domains/personal/_index.md" in result.stderr  # removed with its last leaf, in the same commit
    assert git(repo, "ls-files", "memory/domains/personal") == "" and git(repo, "status", "--porcelain") == ""


def test_install_hook_from_a_linked_worktree_installs_for_the_repository(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = migrated(make_repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert install(tmp_path / "wt")[0] == 0
    assert (repo / ".git/hooks/pre-commit").is_file()
    edit_leaf(tmp_path / "wt")
    assert_commit_lands_at_once(tmp_path / "wt")


def test_install_hook_updates_an_older_copy_and_refuses_a_leftover_chain(make_repo: MakeRepo) -> None:
    repo = make_repo(LIVING)
    hook = repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\n# bonsai-git pre-commit hook (an older version)\nexec bonsai-git-hook\n")
    assert install(repo)[1].startswith("updated:")
    assert hook.read_bytes() == installed(SCRIPT)
    hook.write_bytes(installed(SCRIPT, "/gone/venv/bin/python"))  # installed from another environment
    assert install(repo)[1].startswith("updated:")
    assert hook.read_bytes() == installed(SCRIPT)
    hook.unlink()
    (repo / ".git/hooks/pre-commit.bonsai-chained").write_text("#!/bin/sh\nexit 0\n")
    code, _out, err = install(repo)
    assert code == 3 and "pre-commit.bonsai-chained: left over from an earlier install" in err


def test_install_hook_outside_a_repository_is_refused(tmp_path: Path) -> None:
    code, _out, err = install(tmp_path)
    assert code == 3 and "not inside a git repository" in err


def _bare_path(tmp_path: Path, python3: str | None = None) -> dict[str, str]:
    """A PATH without this environment's scripts (no bonsai-git, no bonsai-git-hook): a `python3` whose
    body is `python3` first (by default a real Python without bonsai_git: an empty virtual environment's),
    then the system's folders."""
    folder = tmp_path / "bare-bin"
    folder.mkdir(exist_ok=True)
    if python3 is None:
        python3 = f'exec "{_venv_without_bonsai_git(tmp_path)}" "$@"'
    (folder / "python3").write_text(f"#!/bin/sh\n{python3}\n")
    (folder / "python3").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"}


def _commit(repo: Path, path: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True, text=True,
                          env=env() | path)


def test_copied_plain_hook_falls_back_to_python3(make_repo: MakeRepo, tmp_path: Path) -> None:
    """The shipped script copied by hand (its BONSAI_PYTHON= line empty) finds bonsai-git on PATH or in python3."""
    repo = migrated(make_repo)
    hook = repo / ".git/hooks/pre-commit"
    hook.write_bytes(SCRIPT.read_bytes())
    hook.chmod(0o755)
    edit_leaf(repo)
    git(repo, "add", "-A")
    result = _commit(repo, _bare_path(tmp_path, f'exec "{sys.executable}" "$@"'))
    assert result.returncode == 0 and "staged them: memory/_index.md memory/domains/business/_index.md" in result.stderr
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $22 from May.\n")
    git(repo, "add", "-A")
    missing = _commit(repo, _bare_path(tmp_path))
    assert missing.returncode != 0 and "bonsai-git-hook is not on PATH" in missing.stderr


@pytest.mark.parametrize("form", ["recorded", "python3"])
def test_every_hook_form_warns_again_on_a_second_run(make_repo: MakeRepo, tmp_path: Path, form: str) -> None:
    """Each way the plain hook starts bonsai-git runs hook.main as the console script does: a run that
    warned is not remembered as fresh, so the next run warns again.  (`python3 -m bonsai_git.hook`
    ran the hook as __main__, a second copy of the module whose warning counter reindex's
    foreign-index warning never reached: the second run was silent.)"""
    repo = migrated(make_repo)
    note = "memory/domains/business/_index.suppliers.md"
    write(repo, note, "# Suppliers\n\nClay from Highwater Clays.\n")
    hook = repo / ".git/hooks/pre-commit"
    hook.write_bytes(installed(SCRIPT) if form == "recorded" else SCRIPT.read_bytes())
    hook.chmod(0o755)
    path = _bare_path(tmp_path, None if form == "recorded" else f'exec "{sys.executable}" "$@"')
    for _ in range(2):
        proc = subprocess.run([str(hook)], cwd=repo, capture_output=True, text=True, env=env() | path)
        assert proc.returncode == 0, proc.stderr
        assert f"{note}: named like a generated index but not written by bonsai-git, so kept" in proc.stderr


def test_installed_hook_runs_the_interpreter_install_hook_ran_with(make_repo: MakeRepo, tmp_path: Path) -> None:
    """install-hook from the environment's own script, then `git commit` with that environment off PATH
    (a virtual environment that is not activated): the commit lands at once with fresh indexes."""
    repo = migrated(make_repo)
    bonsai = Path(sys.executable).parent / "bonsai-git"
    assert run([str(bonsai), "install-hook"], repo).returncode == 0
    python = bonsai.read_text().splitlines()[0].removeprefix("#!")  # the interpreter its script runs in
    assert (repo / ".git/hooks/pre-commit").read_bytes() == installed(SCRIPT, python)
    head = git(repo, "rev-parse", "HEAD")
    edit_leaf(repo)
    git(repo, "add", "-A")
    path = _bare_path(tmp_path)
    assert subprocess.run(["sh", "-c", "command -v bonsai-git bonsai-git-hook"], env=env() | path).returncode != 0
    result = _commit(repo, path)
    assert result.returncode == 0, result.stderr
    assert "staged them: memory/_index.md memory/domains/business/_index.md" in result.stderr
    assert git(repo, "rev-parse", "HEAD~1") == head and git(repo, "status", "--porcelain") == ""
    assert run([str(bonsai), "reindex", "--check"], repo).returncode == 0  # the commit holds fresh indexes


def test_installed_hook_whose_interpreter_is_gone_falls_back_to_path_then_the_message(
        make_repo: MakeRepo, tmp_path: Path) -> None:
    """install-hook from a virtual environment that is deleted afterwards: the hook takes bonsai-git-hook
    from PATH when it is there, else refuses the commit with the message naming how to get it."""
    import venv

    repo = migrated(make_repo)
    gone = tmp_path / "gone-venv"
    venv.EnvBuilder(with_pip=False).create(gone)
    python = gone / "bin" / "python"
    ours = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # this environment's packages (an editable bonsai-git among them, found through its own .pth files)
    (Path(site) / "ours.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    done = subprocess.run([str(python), "-c", "from bonsai_git.cli import main; main()", "install-hook"],
                          cwd=repo, env=env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (repo / ".git/hooks/pre-commit").read_bytes() == installed(SCRIPT, str(python))
    edit_leaf(repo)
    git(repo, "add", "-A")
    assert _commit(repo, _bare_path(tmp_path)).returncode == 0  # while it exists, that interpreter runs the hook
    import shutil

    shutil.rmtree(gone)
    write(repo, PRICING, "## Pricing\n\nWholesale mugs $22 from May.\n")
    git(repo, "add", "-A")
    head = git(repo, "rev-parse", "HEAD")
    refused = _commit(repo, _bare_path(tmp_path))
    assert refused.returncode != 0 and "bonsai-git-hook is not on PATH" in refused.stderr
    assert "pipx install /path/to/bonsai-git" in refused.stderr and "pip install bonsai-git" not in refused.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    on_path = _commit(repo, {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"})
    assert on_path.returncode == 0 and "staged them: " in on_path.stderr, on_path.stderr
    assert git(repo, "status", "--porcelain") == ""


def test_installed_push_gate_runs_the_recorded_interpreter(make_repo: MakeRepo, tmp_path: Path) -> None:
    """The pre-push hook too: with the environment off PATH a stale pushed commit is refused, a fresh one goes."""
    repo = migrated(make_repo)
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    bonsai = Path(sys.executable).parent / "bonsai-git"
    assert run([str(bonsai), "install-hook"], repo).returncode == 0
    python = bonsai.read_text().splitlines()[0].removeprefix("#!")
    assert (repo / ".git/hooks/pre-push").read_bytes() == installed(PUSH_SCRIPT, python)
    edit_leaf(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "stale on purpose")
    path = _bare_path(tmp_path)
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env=env() | path)
    assert push.returncode != 0 and "stale memory/domains/business/_index.md" in push.stdout, push.stderr
    git(repo, "reset", "-q", "--soft", "HEAD~1")
    assert _commit(repo, path).returncode == 0
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env=env() | path)
    assert push.returncode == 0, push.stderr
    assert git(bare, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


def test_plain_hook_lets_bonsai_gits_own_commits_through(make_repo: MakeRepo) -> None:
    from support import corpus_bytes

    repo = make_repo(corpus_bytes("02-ops-assistant-2764.md"))
    assert install(repo)[0] == 0
    bonsai = str(Path(sys.executable).parent / "bonsai-git")
    for args in (["migrate"], ["move", "memory/domains/infrastructure/runbooks.md", "agents"]):
        done = run([bonsai, *args, "-C", str(repo)], repo)
        assert done.returncode == 0, done.stderr
        assert git(repo, "status", "--porcelain") == ""


def _venv_without_bonsai_git(tmp_path: Path, base: str = sys.executable) -> Path:
    """A virtual environment of `base` with nothing installed in it: its python exists, bonsai_git does not."""
    folder = tmp_path / f"empty-venv-{Path(base).name}"
    if not folder.exists():
        subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    return folder / "bin" / "python"


def _older_python() -> str | None:
    """An interpreter older than 3.11 on this machine (no -P option, cannot install bonsai-git), or None."""
    import glob
    import shutil

    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))  # pyenv's shims need a version chosen
    for name in ("python3.10", "python3.9", "python3.8"):
        for found in [shutil.which(name), *sorted(glob.glob(f"{pyenv}/versions/{name[6:]}.*/bin/{name}"))]:
            if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:
                return found
    return None


@pytest.mark.parametrize("kind", ["no-bonsai-git", "older-python"])
@pytest.mark.parametrize("script", [SCRIPT, PUSH_SCRIPT], ids=["pre-commit", "pre-push"])
def test_recorded_interpreter_that_cannot_run_the_hook_falls_back_to_path(
        make_repo: MakeRepo, tmp_path: Path, kind: str, script: Path) -> None:
    """The recorded Python exists but cannot run bonsai-git: its environment was rebuilt without it, or
    it is now a Python older than 3.11 (no -P option).  The hook goes on to bonsai-git-hook on PATH, as
    when that Python is gone, instead of stopping every commit with a traceback or a usage error."""
    base = sys.executable if kind == "no-bonsai-git" else _older_python()
    if base is None:
        pytest.skip("no Python older than 3.11 on this machine")
    python = _venv_without_bonsai_git(tmp_path, base)
    repo = migrated(make_repo)
    name = script.name
    hook = repo / ".git/hooks" / name
    hook.write_bytes(installed(script, str(python)))
    hook.chmod(0o755)
    edit_leaf(repo)
    git(repo, "add", "-A")
    on_path = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    if name == "pre-commit":
        done = _commit(repo, on_path)
        assert done.returncode == 0 and "staged them: " in done.stderr, done.stderr
        assert git(repo, "status", "--porcelain") == ""
        assert "Traceback" not in done.stderr and "Unknown option" not in done.stderr
        return
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "commit", "-q", "--no-verify", "-m", "stale on purpose")
    push = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env=env() | on_path)
    assert push.returncode != 0 and "stale memory/domains/business/_index.md" in push.stdout, push.stderr
    assert "Traceback" not in push.stderr and "Unknown option" not in push.stderr


def test_python3_fallback_does_not_import_the_work_trees_files(make_repo: MakeRepo, tmp_path: Path) -> None:
    """The python3 form runs in the work tree; a workspace file named like a module the hook imports
    (argparse.py, dataclasses.py: an agent's own scripts) is neither run nor allowed to hide bonsai-git,
    as the recorded form's -P already ensures."""
    repo = migrated(make_repo)
    hook = repo / ".git/hooks/pre-commit"
    hook.write_bytes(SCRIPT.read_bytes())
    hook.chmod(0o755)
    for module in ("argparse", "dataclasses"):
        write(repo, f"{module}.py", "import sys\nprint('the work tree ran', file=sys.stderr)\nsys.exit(9)\n")
    edit_leaf(repo)
    git(repo, "add", "-A")
    done = _commit(repo, _bare_path(tmp_path, f'exec "{sys.executable}" "$@"'))
    assert done.returncode == 0 and "staged them: " in done.stderr, done.stderr
    assert "the work tree ran" not in done.stderr
