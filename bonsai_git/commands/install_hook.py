"""`bonsai-git install-hook [--uninstall] [--merge-driver]`: the plain git pre-commit hook (hooks/pre-commit),
chaining any existing hook (githook.py), or the hook manager's own way when one owns the hooks
(hookmanagers.py); with `--merge-driver`, also the merge driver's git config (mergedriver.py)."""

from __future__ import annotations

from pathlib import Path

from .common import Echo


def run(workspace: Path, *, uninstall: bool, shared_hooks_path: bool, echo: Echo, merge_driver: bool = False) -> int:
    """Install (or remove) the hook and print what changed.  A hook manager (husky, lefthook,
    simple-git-hooks, the pre-commit framework) gets the hook where it keeps user hooks, or a refusal
    (HookManagerFound / FrameworkHookFound, exit 3) after printing the exact lines to add; a shared
    core.hooksPath is refused unless `shared_hooks_path`.  `merge_driver`: also register
    `merge.bonsai.driver` in the repository's config and say which `.gitattributes` lines it needs."""
    from ..core.errors import FrameworkHookFound, HookManagerFound
    from ..githook import PRE_COMMIT_SNIPPET, install_hook, uninstall_hook
    from ..hookmanagers import detect_manager, install_for, uninstall_for

    top, folder, hook_text = _hook_facts(workspace, shared_hooks_path)
    manager = detect_manager(top, folder, hook_text)
    try:
        if manager is not None:
            change = uninstall_for(manager, top) if uninstall else install_for(manager, top)
            echo(f"{manager.name}: {change.action}: {change.path}")
            if change.next_step:
                echo(f"next: {change.next_step}")
        else:
            plain = (uninstall_hook(workspace, shared_ok=shared_hooks_path) if uninstall
                     else install_hook(workspace, shared_ok=shared_hooks_path))
            for one in (plain, *plain.also):  # the pre-commit hook, then the pre-push push gate
                echo(f"{one.action}: {one.hook}")
                if one.chained is not None:
                    echo(f"chained: {one.chained} runs first")
    except HookManagerFound as exc:
        echo(exc.snippet, nl=False)
        raise
    except FrameworkHookFound:
        echo(PRE_COMMIT_SNIPPET, nl=False)
        raise
    if merge_driver and not uninstall:
        _register_merge_driver(workspace, top, echo)
    return 0


def _hook_facts(workspace: Path, shared_ok: bool) -> tuple[Path, Path, bytes | None]:
    """(work tree top, git's hooks folder, the pre-commit hook's bytes or None)."""
    from ..gitrun import output
    from ..githook import HOOK_NAME, hooks_dir

    folder = hooks_dir(workspace, shared_ok=shared_ok)
    top = Path(output(workspace, "rev-parse", "--show-toplevel").strip())
    try:
        text: bytes | None = (folder / HOOK_NAME).read_bytes()
    except OSError:
        text = None
    return top, folder, text


def _register_merge_driver(workspace: Path, top: Path, echo: Echo) -> None:
    """Set merge.bonsai.name/driver in the repository's config; name the .gitattributes lines still missing."""
    import shutil
    import sys

    from ..gitrun import output, run
    from ..mergedriver import ATTRIBUTE_LINES, DRIVER, driver_config

    ours = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "bonsai-git" else None
    on_path = shutil.which("bonsai-git")
    executable = None if ours is None or (on_path and Path(on_path).resolve() == ours) else str(ours)
    for key, value in driver_config(executable).items():
        run(top, "config", "--local", key, value, check=True)
    echo(f"merge driver: merge.{DRIVER}.driver set in this repository's git config")
    prefix = output(workspace, "rev-parse", "--show-prefix").strip()
    probes = [f"{prefix}MEMORY.md", f"{prefix}memory/_index.md"]
    attrs = output(top, "check-attr", "merge", "--", *probes)
    missing = [line for line, probe in zip(ATTRIBUTE_LINES, probes) if f"{probe}: merge: {DRIVER}" not in attrs]
    if missing:
        echo(f"add to {prefix}.gitattributes and commit it: " + "  ".join(f"`{line}`" for line in missing))
