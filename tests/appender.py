"""A concurrent writer for the tests: appends numbered lines to files in a tight loop until stopped.

Usage: python appender.py LOG TARGET [TARGET...]
Each line it appends is `<token> appended by a concurrent writer\n` (token `cw-<n>-<k>`), or,
for a target ending in `MEMORY.md`, every third one a `## ` section (so absorb and the hook
have something to move while it runs).  After each append is complete (os.write returned and
the file closed) the token is written to LOG, so LOG lists only appends that really happened.
Stops on SIGTERM; prints "started" on stdout once the first append is logged.
"""

from __future__ import annotations

import os
import signal
import sys

stop = False


def _stop(*_: object) -> None:
    global stop
    stop = True


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    targets = sys.argv[2:]
    n = 0
    while not stop:
        for k, target in enumerate(targets):
            token = f"cw-{n}-{k}"
            if target.endswith("MEMORY.md") and n % 3 == 0:
                line = f"\n## Concurrent note {n}\n\n{token} appended by a concurrent writer\n"
            else:
                line = f"{token} appended by a concurrent writer\n"
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
            os.write(log, (token + "\n").encode())
        if n == 0:
            print("started", flush=True)
        n += 1


if __name__ == "__main__":
    main()
