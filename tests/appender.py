"""A concurrent writer for the tests: appends numbered lines to files in a tight loop until stopped.

Usage: python appender.py [--once=SECONDS] LOG TARGET [TARGET...]
Each line it appends is `<token> appended by a concurrent writer\n` (token `cw-<n>-<k>`), or,
for a target ending in `MEMORY.md`, every third one a `## ` section (so absorb and the hook
have something to move while it runs).  After each append is complete (os.write returned and
the file closed) the token is written to LOG, so LOG lists only appends that really happened.
Stops on SIGTERM; prints "started" on stdout once the first append is logged.  `--once=SECONDS`:
sleep that long, append one line to each target, log them and exit (an agent writing once, at a
random moment the caller picks: test_concurrent_rounds.py).
"""

from __future__ import annotations

import os
import signal
import sys
import time

stop = False


def _stop(*_: object) -> None:
    global stop
    stop = True


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    args = sys.argv[1:]
    once = None
    if args and args[0].startswith("--once="):
        once = float(args.pop(0).split("=", 1)[1])
        time.sleep(once)
    log = os.open(args[0], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    targets = args[1:]
    n = 0
    while not stop:
        for k, target in enumerate(targets):
            token = f"cw-{n}-{k}"
            if target.endswith("MEMORY.md") and n % 3 == 0:
                line = f"\n## Concurrent note {n}\n\n{token} appended by a concurrent writer\n"
            else:
                line = f"{token} appended by a concurrent writer\n"
            try:
                fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except FileNotFoundError:  # its folder was removed (a move, a flatten): nothing appended, nothing logged
                continue
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
            os.write(log, (token + "\n").encode())
        if n == 0:
            print("started", flush=True)
        n += 1
        if once is not None:
            return


if __name__ == "__main__":
    main()
