"""Leaf names: a safe, unique, readable file name for each section's heading.

Rules (DESIGN.md §2 and the migrate issue): python-slugify of the heading with letters of every
script kept (a Chinese heading gives a Chinese name; ASCII-only slugifiers collapse CJK to
nothing), NFC-normalised, lowercase, `-`-separated, at most 60 chars cut on a word boundary.
Secret-looking values in the heading are left out first.  Empty gives `section`.  A name never
starts with `_` or `.` (reserved for `_index.md` and dot files), is never a Windows reserved
device name (`con`, `nul`, `com1`...: gets `-section`), and never contains a path separator.

Dated names: OpenClaw's memory search decays files named like daily notes (`YYYY-MM-DD.md` or
`YYYY-MM-DD-<slug>.md`, at any depth) with a 30-day half-life.  A leaf is an evergreen fact, so
a name that would start with a date gets the prefix `log-` (`## 2026-03-14` -> `log-2026-03-14`).
Names are made unique per domain, case-insensitively and whatever their Unicode form (`name_key`),
with `-2`, `-3`... in document order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from slugify import slugify

from .secretscan import remove_secrets

MAX_LEAF_NAME = 60
FALLBACK_NAME = "section"
DATED_PREFIX = "log-"
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)
_DAILY_NOTE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:-|$)")
_DASHES = re.compile(r"-{2,}")
_PLAIN = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")


def leaf_name(heading: str) -> str:
    """Return the base leaf name (no `.md`, not yet unique) for a heading (str).

    Always a non-empty, single path component made of letters, digits and `-`.
    """
    text = remove_secrets(heading)
    name = _plain_slug(text)
    if name is None:
        name = slugify(text, allow_unicode=True, max_length=MAX_LEAF_NAME, word_boundary=True,
                       separator="-", lowercase=True)
    name = unicodedata.normalize("NFC", name).replace("_", "-")
    name = (_DASHES.sub("-", name) if "--" in name else name).strip("-.")  # (no `--`: nothing to join)
    if not name:
        return FALLBACK_NAME
    if name in _WINDOWS_RESERVED or name.split(".")[0] in _WINDOWS_RESERVED:
        name = f"{name}-{FALLBACK_NAME}"
    if _DAILY_NOTE.match(name):
        name = (DATED_PREFIX + name)[:MAX_LEAF_NAME].rstrip("-")
    return name


def _plain_slug(text: str) -> str | None:
    """python-slugify's answer (with leaf_name's arguments) for a short text of ASCII letters and
    digits in words split by single spaces, without running it; None for any other text.

    Such a text has nothing for slugify's steps to do (quotes, entities, NFKC, `1,000`) but
    lowercase it and join its words with `-`, and it is under MAX_LEAF_NAME, so nothing is cut.
    Most headings are like this, and slugify costs ~7 µs a heading (tests/core/test_slugs.py proves
    the two equal with hypothesis).
    """
    if len(text) >= MAX_LEAF_NAME or not _PLAIN.fullmatch(text):
        return None
    return text.lower().replace(" ", "-")


def is_leaf_path_name(name: str) -> bool:
    """True when `name` (a leaf's name in its domain, without `.md`) is safe as given: `/`-separated
    parts (a sub-folder such as `seo/keyword-research`), each one that leaf_name keeps as it is."""
    return all(part and leaf_name(part) == part for part in name.split("/"))


def name_key(name: str) -> str:
    """The form in which two leaf names (or paths) are the same name: NFC, casefolded, NFC again.

    macOS tools and Syncthing write file names in NFD (`cafe` + U+0301) where a heading gives NFC
    (`café`): both show the same, and an APFS or HFS+ volume takes them for one file, so a second
    leaf of that name must never be made beside the first (issue 22).  Case folds too, on every
    system: a case-insensitive file system (macOS, Windows) would also take `Travel.md` for `travel.md`.
    """
    folded = unicodedata.normalize("NFC", name).casefold()
    return folded if folded.isascii() else unicodedata.normalize("NFC", folded)


def unique_leaf_names(headings: Iterable[str], taken: Iterable[str] = ()) -> tuple[str, ...]:
    """Name each heading (document order) uniquely within one domain, compared by `name_key`.

    `taken` holds names already used in that domain (without `.md`); a clash gets `-2`, `-3`...
    Returns the names without `.md`, one per heading, in the same order.
    """
    used = {name_key(t) for t in taken}
    # The suffix each base got last: its names up to there are taken, and `used` only grows, so
    # the next heading of that base starts from it (n headings alike cost n tries, not n²/2).
    last: dict[str, int] = {}
    names: list[str] = []
    for heading in headings:
        base = leaf_name(heading)
        n = last.get(base, 1)
        name = base if n == 1 else f"{base}-{n}"
        key = name_key(name)
        while key in used:
            n += 1
            name = f"{base}-{n}"
            key = name_key(name)
        last[base] = n
        used.add(key)
        names.append(name)
    return tuple(names)
