"""The output layer's one masking rule: nothing bonsai-git prints shows a secret-looking value (issue 25).

Every entry point (the click CLI's `BonsaiGroup.main`, the `bonsai-git-hook` and
`bonsai-git-secrets` console scripts) runs its command inside `MaskedOutput()`, which puts a
`MaskedStream` in front of `sys.stdout` and `sys.stderr`: each piece of text written passes
through `secretscan.mask_output` on its way out.  So headings in a dry run, `--json`, `explain`,
status's domain table and advice, reflect, warnings, errors (ours and click's usage errors),
and a bug's traceback are masked by one rule at one place, whichever command (or a future one)
printed them.  What bonsai-git writes to files goes through the same function where it is
written: the plan file (`commands/migrate.py`) and every commit message (`transaction.apply_changes`).
Leaves never pass through it: they stay byte-exact.

A write is masked as a whole, so a value split over two writes would escape: click.echo and
print write a message in one piece (print's separator and newline come apart from it, harmlessly).
The stream adds no buffering: each write reaches the stream it wraps at once.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


class MaskedStream:
    """A text stream that masks each written string (`secretscan.mask_output`), then writes it to
    `stream`; everything else (flush, isatty, encoding, fileno…) is the wrapped stream's.

    Bytes are passed on untouched, so the wrapped stream's own TypeError still tells click that
    this is a text stream.
    """

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: Any) -> int:
        """Write `text` masked; returns len(text), as a text stream does (the chars given)."""
        if not isinstance(text, str) or not text:
            return int(self.wrapped.write(text))
        from .core.secretscan import mask_output  # on the first write only: the hook's no-op run writes nothing

        self.wrapped.write(mask_output(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        """Write each of `lines` masked."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class MaskedOutput:
    """`with MaskedOutput():` runs its block with sys.stdout and sys.stderr masked (MaskedStream),
    then puts the streams back, also when the block raises or exits.  Nested uses wrap once."""

    def __enter__(self) -> None:
        self._saved = (sys.stdout, sys.stderr)
        if not isinstance(sys.stdout, MaskedStream) and sys.stdout is not None:
            sys.stdout = MaskedStream(sys.stdout)
        if not isinstance(sys.stderr, MaskedStream) and sys.stderr is not None:
            sys.stderr = MaskedStream(sys.stderr)

    def __exit__(self, *exc: object) -> None:
        sys.stdout, sys.stderr = self._saved
