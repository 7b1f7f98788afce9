"""The light console scripts' entry wrapper: what escapes a command becomes one stderr line and an exit code."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

from .core.errors import BonsaiError, os_error_message


def run_entry(prog: str, action: Callable[[], int]) -> int:
    """Run a console script's `action` and map what escapes it to an exit code, printing one line.

    BonsaiError: its code; Ctrl-C: 130; OSError: 1 (os_error_message); anything else is a bug:
    traceback and 4.  For the light scripts (bonsai-git-hook, bonsai-git-secrets), which avoid
    click; the click CLI maps the same way in cli.BonsaiGroup.
    """
    try:
        return action()
    except BonsaiError as exc:
        print(f"{prog}: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # the file system refused: the user's to fix, not a bug
        print(f"{prog}: {os_error_message(exc)}", file=sys.stderr)
        return 1
    except Exception:  # a bug: show it, exit 4
        import traceback

        traceback.print_exc()
        print(f"{prog}: internal error (a bug); please report the traceback above", file=sys.stderr)
        return 4


class CyclicGcOff:
    """`with CyclicGcOff():` runs its block with Python's cyclic garbage collector off, then puts it
    back as it was.  A command is a short process whose objects reference counting frees; the
    collector's passes over the ~10^5 objects its imports make cost ~10 ms of a run (issue 15).
    Used by the click CLI (cli.BonsaiGroup.main) and the hook's console script (hook.main)."""

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_on:
            gc.enable()
