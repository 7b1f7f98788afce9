"""Plain text placed into generated Markdown, in the form a CommonMark formatter leaves alone.

Every generated file (branch and root indexes, the trunk block) is written in mdformat's
canonical form (issue 22: a formatter on every staged `.md` reformatted our files, the hook
wrote them back, and commits never settled).  The fixed lines are written that way by hand
(blank lines around headings and lists, paths in code spans).  Text taken from the user
(summaries, leaf and folder names, labels, scope lines) goes through `inline_text`, which
escapes it exactly as mdformat's text renderer does (`mdformat.renderer._context.text` and
`paragraph`, mdformat 1.0, MIT): the bytes we write are then the bytes mdformat would write for
that text, so a formatter run changes nothing (tests/test_formatters.py proves it with the real
mdformat and hypothesis).

`formatting_key` is the other half: two texts with the same key differ only in what a Markdown
formatter changes (blank lines, line wrapping, list bullets, escapes, spacing), so a generated
file a formatter rewrote is still taken as fresh, and a trunk block it rewrote is still ours.
Pure: text in, text out.
"""

from __future__ import annotations

import re
import unicodedata

# What makes a text need more than the fast path: mdformat escapes or rewrites these.
# A table's delimiter row (`|---|:--:|`), with or without its outer pipes: summary.py skips it, classify.py's
# roster reads the rows around it.
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SPECIAL = re.compile(r"[\\*_\[\]<`&\t\n\r\f\v\x1c-\x1f]|\s{2}|[^\x00-\x7f]")
_AMP = re.compile(r"&")
_REFERENCE: list[re.Pattern[str]] = []
_LESS_THAN = re.compile(r"<(?:[^ ]|$)")
_BRACKET = re.compile(r"[\[\]]")
_ATX = re.compile(r"#{1,6}(?: |\t|$)")
_BULLET = re.compile(r"[-*+](?: |\t|$)")
_ORDERED_PAREN = re.compile(r"[0-9]+\)(?: |\t|$)")
_ORDERED_DOT = re.compile(r"[0-9]+\.(?: |\t|$)")
# The first char of every line start `_escape_line_start` escapes, besides the digits of an ordered
# list: heading, quote, bullet, rule and setext marks, a tilde fence, and the blanks before a rule.
_LINE_START_MARKS = "#>-*+=~ \t"
# What formatters change without changing what a file says (formatting_key).
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_LIST_MARK = re.compile(r"(?m)^[ \t]*[-*+][ \t]+")


def inline_text(text: str, line_start: bool = True) -> str:
    """`text` (plain, one line) as mdformat renders a paragraph line holding exactly that text.

    Whitespace runs become one space and the ends are stripped (a summary is one line);
    `\\`, emphasis markers, brackets, `<`, backticks and character references are escaped by
    mdformat's rules; with `line_start` (the text begins a line of a paragraph) a start that
    would read as a heading, quote, list item, rule or setext underline is escaped too.  Text
    that needs none of this is returned as it is (the common case, with no regex run twice).
    """
    if _SPECIAL.search(text) is None:
        out = text.strip(" ")
    else:
        out = _escape_text(" ".join(_split_space(text)))
    return _escape_line_start(out) if line_start and out else out


def heading_text(text: str) -> str:
    """`text` as mdformat renders the text of an ATX heading (a trailing `#` escaped)."""
    out = inline_text(text, line_start=False)
    return out[:-1] + "\\#" if out.endswith("#") else out


def formatting_key(text: str) -> str:
    """What `text` (Markdown) says, without what a formatter may change: blank lines and line
    breaks, indentation, list bullets (`-`, `*`, `+`), backslash escapes and runs of spaces.

    Two generated files with one key are the same file as far as bonsai-git is concerned.
    """
    text = _LIST_MARK.sub("- ", text.replace("\r\n", "\n"))
    return " ".join(_ESCAPE.sub(r"\1", text).split())


def _split_space(text: str) -> list[str]:
    # Python's notion of whitespace covers mdformat's (Unicode Zs, tab, newlines): all become one space.
    return text.split()


def _escape_text(text: str) -> str:
    """mdformat's `text` renderer: backslashes, emphasis, brackets, `<`, backticks, references."""
    text = text.replace("\\", "\\\\")
    if "*" in text:
        text = _escape_around(text, "*", _asterisk_ok)
    if "_" in text:
        text = _escape_around(text, "_", _underscore_ok)
    if "[" in text or "]" in text:
        text = _escape_brackets(text)
    if "<" in text:
        text = _LESS_THAN.sub(r"\\\g<0>", text)
    text = text.replace("`", "\\`")
    if "&" in text and ";" in text:
        text = _reference().sub(r"\\\g<0>", text)
    return text


def _is_space(char: str | None) -> bool:
    return char is not None and (char in "\t\n\f\r" or unicodedata.category(char) == "Zs")


def _is_punctuation(char: str | None) -> bool:
    return char is not None and unicodedata.category(char)[0] in "PS"


def _asterisk_ok(before: str | None, after: str | None) -> bool:
    return _is_space(before) and _is_space(after)


def _underscore_ok(before: str | None, after: str | None) -> bool:
    if _is_space(before) and _is_space(after):
        return True

    def plain(char: str | None) -> bool:
        return char is not None and not _is_space(char) and not _is_punctuation(char)

    return plain(before) and plain(after)


def _escape_around(text: str, marker: str, ok: object) -> str:
    """Escape each `marker` unless `ok(previous char, next char)` (None at either end)."""
    assert callable(ok)
    out = []
    for i, char in enumerate(text):
        if char == marker and not ok(text[i - 1] if i else None, text[i + 1] if i + 1 < len(text) else None):
            out.append("\\")
        out.append(char)
    return "".join(out)


def _escape_brackets(text: str) -> str:
    """Escape every square bracket except a closed pair holding no bracket and not followed by `:` or `(`."""
    escape: list[int] = []
    start: int | None = None
    for match in _BRACKET.finditer(text):
        pos = match.start()
        if match.group() == "[":
            if start is not None:
                escape.append(start)
            start = pos
        elif start is None:
            escape.append(pos)
        else:
            if text[pos + 1:pos + 2] in (":", "("):
                escape += [start, pos]
            start = None
    if start is not None:
        escape.append(start)
    for pos in sorted(escape, reverse=True):
        text = text[:pos] + "\\" + text[pos:]
    return text


def _reference() -> re.Pattern[str]:
    """Character references (`&#10;`, `&#x1e;`, `&amp;`): compiled on first need (the HTML5 list is long)."""
    if not _REFERENCE:
        import html.entities

        names = sorted({name.rstrip(";") for name in html.entities.html5})
        _REFERENCE.append(re.compile("&(?:#[0-9]{1,7}|#[Xx][0-9A-Fa-f]{1,6}|" + "|".join(names) + ");"))
    return _REFERENCE[0]


def _escape_line_start(line: str) -> str:
    """mdformat's `paragraph` rules for a line's start: no heading, quote, list, rule or setext line.

    A line starting with `~~~` would open a code fence, and mdformat writes no escape that stays
    (it turns an escaped `~~~` back into a fence): the run of tildes becomes one (never from a summary,
    which skips fences; only from a scope or name typed that way)."""
    if line[:1] not in _LINE_START_MARKS and not line[:1].isdigit():  # a letter first: no rule applies
        return line
    return _line_start_rules(line)


def _line_start_rules(line: str) -> str:
    """`_escape_line_start`'s rules, each tried in turn (tests/core/test_mdtext.py: the same answer)."""
    if line.startswith("~~~"):
        line = "~" + line.lstrip("~")
    if _ATX.match(line) or line.startswith(">") or _BULLET.match(line):
        line = "\\" + line
    if _ORDERED_PAREN.match(line):
        line = line.replace(")", "\\)", 1)
    if _ORDERED_DOT.match(line):
        line = line.replace(".", "\\.", 1)
    bare = line.replace(" ", "").replace("\t", "")
    if len(bare) >= 3 and all(c == "-" for c in bare):
        line = line.replace("-", "\\-", 1)
    stripped = line.strip(" \t")
    if all(c == "-" for c in stripped):
        line = line.replace("-", "\\-", 1)
    elif all(c == "=" for c in stripped):
        line = line.replace("=", "\\=", 1)
    return line
