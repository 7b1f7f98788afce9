"""One-line summaries of leaves for the indexes, with secrets masked.

A leaf's summary is its first line of prose after the heading.  Skipped on the way: blank
lines, front matter (only at the top of a headingless leaf: a `---` line under a section's
heading is a setext underline or a rule, never front matter), code fences and what they hold,
HTML comments, table rules and table header rows (so a table gives its first data row), and
headings.  A sub-heading (`### Dana`, or a line that is all bold, `**Wins**`) becomes the
prefix of the prose under it (`Dana: Designer in Lisbon`); a leaf with headings and no prose
is summarized by its first heading.  Markdown markers are stripped (list bullets, quote
marks, emphasis `*x*`/`_x_`/`**x**`, code spans; links keep their text), secret-looking values
are masked, and the result is cut to at most 120 chars between whole grapheme clusters (an
emoji ZWJ sequence, a flag, a letter and its combining marks, a Hangul syllable in jamo are
never split; `_cluster_start`) at a word boundary when there is one.  After ` · ` come the
distinctive words of the leaf's first lines (the DETAIL_LINES after that line, and the part of it
the cut dropped) that it does not show: names, numbers, dates, hosts, acronyms (issue 24: a
selector picks a leaf by them, not by its first sentence alone; `_compose`).  A summary never
contains `<!--` or `-->`, so it cannot break the trunk's markers.  Pure: text in, text out.

Speed: the pre-commit hook summarizes every leaf at every commit, so the common leaf (one
`## ` section, LF or CRLF endings) is summarized without markdown-it (`_summary_without_parser`,
~100x faster, and markdown-it stays off the hook's import path).  That path gives up, and the
parsed path decides, whenever a level-2 heading could end the section at or before the chosen
line, or (for the details) in the DETAIL_LINES after it; both paths give the same bytes
(tests/core/test_summary_fast.py checks it with hypothesis).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

from .mdtext import TABLE_RULE

MAX_SUMMARY_CHARS = 120
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?")
_LEAD_MARKS = ">#-*+"  # with a blank or a digit, the chars `_LEAD` can start with
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WIKI = re.compile(r"\[\[([^\]|]*)(?:\|([^\]]*))?\]\]")
_EMPHASIS = re.compile(r"(\*\*|__|`|~~)")
# Single-char emphasis `*x*` / `_x_` (CommonMark: the opener is followed and the closer preceded
# by a non-space; `_` only outside words, so snake_case names keep their underscores).
_STAR = re.compile(r"(?<![*\w])\*(?=\S)([^*]*?\S)\*(?![*\w])")
_UNDERSCORE = re.compile(r"(?<![_\w])_(?=\S)([^_]*?\S)_(?![_\w])")
_SUBHEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?=\S)(.+?)(?<=\S)\1\s*:?\s*$")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)")
# Lines that could start a level-2 heading (ATX) or underline one (setext), as CommonMark allows.
_ATX_H2 = re.compile(r" {0,3}##(?:[ \t]|$)")
_SETEXT_H2 = re.compile(r" {0,3}-+[ \t]*$")
_BLANK = re.compile(r"[ \t]*$")
_TAG = re.compile(r"<[^>]{0,200}>")
_RULE_ENDS = "|:-*_="


def summarize(text: str, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """Return the one-line summary (str, <= max_chars chars, may be "") of a leaf's text.

    `text` is a whole leaf: a `##` section (its heading line is skipped) or free text.  The
    first prose line, then (after ` · `) the distinctive words of the leaf's first lines it does
    not already show (`_compose`).
    """
    fast = _fast_pick(text)
    if fast is not None:
        lines, index, lead, front_matter = fast
        return "" if not lead else _compose(lead, _detail_lines(lines, index, front_matter), max_chars)
    return summarize_parsed(text, max_chars)


def summarize_parsed(text: str, max_chars: int = MAX_SUMMARY_CHARS) -> str:
    """`summarize` through markdown-it's section split: the reference the fast path must equal."""
    from .sections import split_sections  # markdown-it: imported only when the fast path gives up

    doc = split_sections(text)
    body = doc.preamble if not doc.sections else doc.sections[0].text.split("\n", 1)[-1]
    if doc.sections and doc.preamble.strip():
        body = doc.preamble
    lines = _lines(body)
    front_matter = not doc.sections or bool(doc.preamble.strip())
    picked = _pick(lines, front_matter=front_matter)
    if picked is None or not picked[1]:
        return ""
    return _compose(picked[1], _detail_lines(lines, picked[0], front_matter), max_chars)


# Lines after the summary's own that the details come from (`_detail_lines`): a leaf's first lines.
DETAIL_LINES = 6
_DETAIL_STRIP = ",.;:!?()[]{}\"'“”‘’«»<>*"
_NOT_NAMES = frozenset(
    "I A An The This That These Those It Its We Our You Your He She They Their His Her If When Then And But Or "
    "For With From To In On At By Of As Is Are Was Were Be Not No Yes Also Only Each Every All Any Some See Use "
    "Note Notes Keep Never Always Do Don't Ask Tell OK".split()
)
_DIGIT = re.compile(r"\d")
_ENOUGH_WORDS = 16
_NUMBER_RUN = re.compile(r"\d[\d.,:/%–-]*\d")
_HOSTLIKE = re.compile(r"[^\W_][\w-]*(?:\.[\w-]+)*\.[^\W\d_]{2,}|[^@/\s]*[@/]\S*[^\W_]")


def _detail_lines(lines: list[str], index: int, front_matter: bool) -> list[str]:
    """The cleaned, masked candidate lines among the DETAIL_LINES lines after line `index`."""
    out = []
    for i, line in _candidate_lines(lines, front_matter=front_matter):
        if i > index + DETAIL_LINES:
            break
        if i > index:
            cleaned = _clean(line)
            if cleaned:
                out.append(cleaned)
    return _mask("\n".join(out)).split("\n") if out else out  # one secret scan for the lines


def _compose(lead: str, details: list[str], max_chars: int) -> str:
    """The summary line: `lead` (masked, cut between clusters at a word boundary), then ` · ` and the
    distinctive words (`_distinctive`) of `lead` and `details` that the cut lead does not show, in
    document order, whole, as many as fit `max_chars` (issue 24: a selector needs the names,
    numbers, hosts and dates of a leaf's first lines, not only its first sentence).  The lead
    keeps at least 55% of the budget."""
    lead = _mask(lead)
    cut = _cut(lead, max_chars)
    words = _distinctive([lead, *details])
    shown = cut.casefold()  # once, not once per word
    missing = [w for w in words if w.casefold() not in shown]
    if not missing:
        return cut
    room = max_chars - 3 - len(", ".join(missing))
    cut = _cut(lead, max(max_chars * 55 // 100, room))
    shown = cut.casefold()
    out, sep = cut, " · "
    for word in (w for w in words if w.casefold() not in shown):
        if len(out) + len(sep) + len(word) <= max_chars:
            out += sep + word
            sep = ", "
    return out


def _distinctive(texts: list[str]) -> list[str]:
    """The words of `texts` a selector can tell a leaf by, in order, once each (casefolded): numbers,
    dates and versions (a digit), hosts, addresses and paths (`x.example`, `a@b`, `/etc/x`),
    acronyms, and names (a capitalised word not starting a sentence; runs of them kept together:
    `Dana Reyes`).  Masked values (`…[masked]`) are never taken.  A plain lowercase word is passed
    over first (the hook summarizes every new leaf)."""
    found: list[str] = []
    seen: set[str] = set()

    def add(item: str) -> None:
        if item.casefold() not in seen:
            seen.add(item.casefold())
            found.append(item)

    for text in texts:
        if len(found) >= _ENOUGH_WORDS:
            break  # more than a summary line can show: the rest is not read
        name: list[str] = []
        lone = False  # `name` is one sentence-opening capital so far (`Every`, or the `Dana` of `Dana Reyes`)
        start = True
        for raw in text.split():
            if raw.isalpha() and raw.islower():  # the common word: plain and lowercase, nothing to tell by
                if name and not lone:
                    add(" ".join(name))
                name = []
                start = False
                continue
            if name and raw[:1] in "([{“\"'":  # `Marés (Teams)`: an aside starts a new run of names
                if not lone:
                    add(" ".join(name))
                name, lone = [], False
            word = raw.strip(_DETAIL_STRIP)
            if word.endswith(("'s", "’s")):
                word = word[:-2]
            if not word.isascii() and any(_unspaced(ch) for ch in word):  # CJK text: only its numbers are words
                word = max(_NUMBER_RUN.findall(word), key=len, default="")
            if len(word) > 32:
                word = ""
            kind = "" if not word or "…" in word or "[masked]" in word else _word_kind(word, False)
            if kind == "name" and start and not name:
                opening = word  # a capital starting a sentence: a name only if another follows it
                start = raw[-1:] in ".!?" or raw.endswith(("。", "！", "？"))
                if not start and raw[-1:] not in ",;:)":
                    name = [opening]
                    lone = True
                    continue
                continue
            if name and kind != "name":
                if not lone:
                    add(" ".join(name))
                name = []
            lone = False
            if kind == "name":
                name.append(word)
                if raw[-1:] in ".!?:;,)":
                    add(" ".join(name))
                    name = []
            elif kind:
                add(word)
            start = raw[-1:] in ".!?" or raw.endswith(("。", "！", "？"))
        if name and not lone:
            add(" ".join(name))
    return found


def _word_kind(word: str, sentence_start: bool) -> str:
    """"number", "host", "acronym", "name" or "" for one word of a summary's source text."""
    if _DIGIT.search(word):
        return "" if word.isdigit() and len(word) < 3 else "number"  # `12 customers`: too common to tell by
    if ("." in word or "@" in word or "/" in word) and _HOSTLIKE.fullmatch(word):
        return "host"
    if len(word) >= 2 and word.isupper() and word.isalpha() and word not in _NOT_NAMES:
        return "acronym"
    if not sentence_start and word[0].isupper() and word not in _NOT_NAMES and len(word) >= 2:
        return "name"
    return ""


def _pick(lines: list[str], *, front_matter: bool) -> tuple[int, str] | None:
    """(index, cleaned summary) of the first prose line, prefixed by the sub-heading above it.

    With no prose: the first heading (its index), or None when there is no heading either.
    """
    prefix = ""
    first: tuple[int, str] | None = None
    for index, line in _candidate_lines(lines, front_matter=front_matter):
        # (each pattern needs its marker: `#`, `**`/`__`; plain lines skip the regex)
        heading = _SUBHEADING.match(line) if "#" in line else None
        bold = None if heading or ("**" not in line and "__" not in line) else _BOLD_LINE.match(line)
        if bold is not None and (len(bold.group(2)) > 60 or bold.group(2).rstrip("*_ ").endswith((".", "!", "?", "。"))):
            bold = None  # a bold sentence is prose, not a pseudo-heading
        if heading or bold:
            title = _clean(line[heading.end():] if heading else bold.group(2) if bold else line)
            title = title.rstrip(":").rstrip()
            if title and first is None:
                first = (index, title)
            if title and (bold or len(heading.group(1) if heading else "") >= 3):
                prefix = title
            continue
        cleaned = _clean(line)
        if cleaned:
            if prefix and not cleaned.casefold().startswith(prefix.casefold()):
                cleaned = f"{prefix}: {cleaned}"
            return index, cleaned
    return first


_MASK_SECRETS: list[Callable[[str], str]] = []


def _mask(line: str) -> str:
    # Imported on first use: compiling the secret rules costs ~6 ms, and the hook's cached no-op
    # run never summarizes (factcache.py).  Kept after that: an import statement per leaf costs.
    if not _MASK_SECRETS:
        from .secretscan import mask_secrets

        _MASK_SECRETS.append(mask_secrets)
    return _MASK_SECRETS[0](line)


def _summary_without_parser(text: str) -> str | None:
    """The cleaned first prose line ("" if none) of a leaf, or None when only the parser can tell
    (`_fast_pick`'s lead, without the detail window's condition)."""
    picked = _fast_pick(text, details=False)
    return None if picked is None else picked[2]


def _fast_pick(text: str, details: bool = True) -> tuple[list[str], int, str, bool] | None:
    """(lines, index of the chosen line, its cleaned text ("" if none), front matter?) of a leaf,
    or None when only the parser can tell.

    The section's body is everything after the first line up to the next level-2 heading.  We
    scan the whole rest instead, and accept the first meaningful line only when no line up to
    it could be an ATX `##` heading and no line up to the end of its paragraph could be a
    setext underline: then no heading can start at or before it, so the parser would have
    cut the section after it and picked the same line.
    With `details`, the lines the summary's details come from (DETAIL_LINES after the chosen
    one) must hold no heading either: the parser's section would end before them.
    """
    if not text.startswith("## "):
        return _summary_of_headingless(text)
    if "\n" not in text or text.count("\r") != text.count("\r\n"):
        return None
    lines = _lines(text.split("\n", 1)[1])
    if lines[0].startswith("\ufeff"):
        return None
    picked = _pick(lines, front_matter=False)
    if picked is not None and picked[1]:
        through = min(len(lines) - 1, picked[0] + DETAIL_LINES) if details else picked[0]
        return (lines, picked[0], picked[1], False) if _no_heading_through(lines, through) else None
    return (lines, len(lines), "", False) if _no_heading_through(lines, len(lines) - 1) else None


def _summary_of_headingless(text: str) -> tuple[list[str], int, str, bool] | None:
    """`_fast_pick` of a text no line of which could be a level-2 heading, else None.

    Such a text is all preamble to the parser (a preamble leaf, `# Title` then prose).
    """
    if text.startswith("\ufeff"):
        return None
    lines = _lines(text)
    if any(_ATX_H2.match(line) for line in lines) or _could_underline(lines, len(lines)):
        return None
    picked = _pick(lines, front_matter=True)
    return (lines, len(lines), "", True) if picked is None else (lines, picked[0], picked[1], True)


def _no_heading_through(lines: list[str], index: int) -> bool:
    """True when no level-2 heading can start at or before line `index` (see above)."""
    if any("##" in line and _ATX_H2.match(line) for line in lines[: index + 1]):
        return False
    end = next((i for i in range(index + 1, len(lines)) if _BLANK.match(lines[i])), len(lines))
    return not _could_underline(lines, end)


def _could_underline(lines: list[str], end: int) -> bool:
    """True when one of `lines[:end]` could be a setext `---` underline (a non-blank line above it)."""
    return any("-" in lines[i] and _SETEXT_H2.match(lines[i]) and not _BLANK.match(lines[i - 1])
               for i in range(1, min(end, len(lines))))


def _lines(body: str) -> list[str]:
    return body.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _candidate_lines(lines: list[str], *, front_matter: bool) -> Iterator[tuple[int, str]]:
    """(index, line) of the lines that may hold a summary, skipping front matter, fences, comments,
    table rules and table header rows.  `front_matter`: the lines start a file (not a section body).

    A generator: callers stop at the first meaningful line, so long leaves cost no more.
    """
    start = 0
    if front_matter and lines and lines[0].lstrip("\ufeff").strip() == "---":  # YAML front matter
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in ("---", "...")), None)
        if end is not None:
            start = end + 1
    fence: str | None = None
    in_comment = False
    for index in range(start, len(lines)):
        line = lines[index] if index else lines[0].lstrip("\ufeff")
        if not line or line.isspace():
            continue  # a blank line opens and closes nothing, and holds no summary
        m = _FENCE.match(line) if "`" in line or "~" in line else None
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if line.lstrip().startswith("<!--") and "-->" not in line:
            in_comment = True
            continue
        # Each rule starts and ends (blanks aside) with one of `|:-*_=`: prose lines skip the regexes.
        if (line.lstrip()[:1] in _RULE_ENDS and line.rstrip()[-1:] in _RULE_ENDS) and (
                TABLE_RULE.match(line) or _THEMATIC.match(line) or _SETEXT.match(line)):
            continue
        if "|" in line and index + 1 < len(lines) and "-" in lines[index + 1] and TABLE_RULE.match(lines[index + 1]):
            continue  # a table's header row: the first data row says more
        yield index, line


def _clean(line: str) -> str:
    # Each substitution runs only when the text holds the literal its pattern cannot match
    # without (`<!--`, `[[`, `](`, a marker char, `<`): the leaves the hook summarizes are mostly
    # plain prose, and skipping a sub that cannot match changes nothing.
    text = _COMMENT.sub(" ", line) if "<!--" in line else line
    first = text[:1]
    if first.isspace() or first.isdigit() or first in _LEAD_MARKS:  # else `_LEAD` matches nothing
        text = _LEAD.sub("", text)
    if "[[" in text:
        text = _WIKI.sub(lambda m: m.group(2) or m.group(1), text)
    if "](" in text:
        text = _LINK.sub(r"\1", text)
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = _EMPHASIS.sub("", text)
    if "*" in text or "_" in text:
        text = _UNDERSCORE.sub(r"\1", _STAR.sub(r"\1", text))
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "|" in text:
        text = " · ".join(cell.strip() for cell in text.strip().strip("|").split("|") if cell.strip())
    text = text.replace("<!--", "").replace("-->", "→")
    return " ".join(text.split())


def _cut(text: str, max_chars: int) -> str:
    """`text` if it fits in `max_chars`, else its start cut between grapheme clusters (at a word
    boundary past half the budget when there is one) plus `…`."""
    if len(text) <= max_chars:
        return text
    end = max_chars - 1
    while end > 0 and not _cluster_start(text, end):
        end -= 1
    cut = text[:end]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-—·.") + "…"


def clean_title(heading: str) -> str:
    """A heading's text as an index shows it (str, one line): Markdown markers stripped as in a
    summary, secret-looking values masked; "" for a blank heading.  `heading` is the heading
    line without its `#` marks (branches.heading_text)."""
    if not heading:
        return ""
    return _mask(_clean(heading))


def cut_words(text: str, max_chars: int) -> str:
    """`text` if it fits in `max_chars`, else cut at the last space before the budget, plus `…`.

    Never inside a word or a grapheme cluster (issue 24): with no space to cut at, a text in a
    script written without spaces (CJK, Thai ...) is cut between two of its letters at a cluster
    boundary; any other text keeps its first word whole, past the budget.
    """
    if len(text) <= max_chars:
        return text
    space = text.rfind(" ", 0, max_chars)
    if space > 0:
        return text[:space].rstrip(" ,;:-—·.") + "…"
    end = max_chars - 1
    while end > 0 and not (_cluster_start(text, end) and _unspaced(text[end - 1]) and _unspaced(text[end])):
        end -= 1
    if end > 0:
        return text[:end] + "…"
    first = text.split(" ", 1)[0]
    return first if first == text else first.rstrip(" ,;:-—·.") + "…"


def _unspaced(ch: str) -> bool:
    """True for a letter of a script written without spaces between words (CJK, kana, Thai, Lao, Khmer, Myanmar)."""
    code = ord(ch)
    return (0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF
            or 0x0E00 <= code <= 0x0EFF or 0x1000 <= code <= 0x109F or 0x1780 <= code <= 0x17FF
            or 0xFF66 <= code <= 0xFF9F)


_ZWJ = "\u200d"


def _is_extender(ch: str) -> bool:
    """A char that never starts a grapheme cluster: combining marks (Mn, Mc, Me: accents, keycap
    U+20E3), ZWJ, variation selectors, emoji skin-tone modifiers, emoji tag characters (subdivision flags)."""
    code = ord(ch)
    return (
        ch == _ZWJ
        or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF  # variation selectors
        or 0x1F3FB <= code <= 0x1F3FF  # skin tones
        or 0xE0020 <= code <= 0xE007F  # tags
        or unicodedata.category(ch) in ("Mn", "Mc", "Me")
    )


def _hangul_kind(ch: str) -> str:
    """UAX #29's Hangul syllable type of `ch`: L, V, T, LV, LVT, or "" (not Hangul)."""
    code = ord(ch)
    if 0x1100 <= code <= 0x115F or 0xA960 <= code <= 0xA97C:
        return "L"
    if 0x1160 <= code <= 0x11A7 or 0xD7B0 <= code <= 0xD7C6:
        return "V"
    if 0x11A8 <= code <= 0x11FF or 0xD7CB <= code <= 0xD7FB:
        return "T"
    if 0xAC00 <= code <= 0xD7A3:
        return "LV" if (code - 0xAC00) % 28 == 0 else "LVT"
    return ""


# UAX #29 Prepend characters (Arabic number signs and a few Brahmic ones): no break after them.
_PREPEND = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\u0d4e"
                     "\U000110bd\U000110cd\U000111c2\U000111c3\U0001193f\U00011941\U00011a3a\U00011a84"
                     "\U00011a85\U00011a86\U00011a87\U00011a88\U00011a89\U00011d46\U00011f02")


def _is_regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _cluster_start(text: str, i: int) -> bool:
    """True when a grapheme cluster starts at `text[i]` (0 < i < len(text)).

    A small approximation of UAX #29 for the cases a summary meets (tests check it against the
    `regex` module's `\\X`): no break before an extender, after a ZWJ, inside a pair of regional
    indicators (a flag), after a Prepend char, or inside a Hangul syllable spelled in jamo; CR LF
    stays together.  Where it errs, it finds no boundary where there is one: a cut comes earlier, never inside.
    """
    ch, before = text[i], text[i - 1]
    if ch < "\x80" and before < "\x80":  # every rule below needs a non-ASCII char, but CR LF
        return before != "\r" or ch != "\n"
    if _is_extender(ch) or before == _ZWJ or before in _PREPEND or (before == "\r" and ch == "\n"):
        return False
    if _is_regional(ch) and _is_regional(before):
        run = 0
        while i - run - 1 >= 0 and _is_regional(text[i - run - 1]):
            run += 1
        return run % 2 == 0
    kind, prev = _hangul_kind(ch), _hangul_kind(before)
    if prev == "L" and kind in ("L", "V", "LV", "LVT"):
        return False
    if prev in ("LV", "V") and kind in ("V", "T"):
        return False
    if prev in ("LVT", "T") and kind == "T":
        return False
    return True
