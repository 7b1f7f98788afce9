"""Corrections teach (issue 23): after a `move` or an edited plan places a section elsewhere than the
rules did, the one `.bonsai.toml` line that would have placed it there.  The line is printed for the
user to adopt; nothing ever edits `.bonsai.toml` (pure: text in, text out).

The line adds a keyword to the domain's words (`domains.<name>.extend = ["word"]`, a dotted key that
goes at the top of `.bonsai.toml`, before any `[table]`).  The keyword is the first word of the
heading (not a stopword of any lexicon language: `Die Werkstatt` teaches `werkstatt`) that, added, places the section (heading and body, as `explain` reads a leaf) in the
domain; else the whole heading as a phrase.  None when no keyword can (a dated heading is a log
entry whatever its words).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .classify import SectionInput, classify_section, is_stopword
from .config import FALLBACK_DOMAIN, Config

_WORDS = re.compile(r"[^\W\d_][^\W_]*(?:[-'][^\W_]+)*")
_MIN_LETTERS = 3


def teaching_line(heading: str, body: str, domain: str, config: Config) -> str | None:
    """The `.bonsai.toml` line (str) that would place the section `heading`/`body` in `domain`, or
    None (already placed there by the rules, `general`, or no keyword can)."""
    if domain == FALLBACK_DOMAIN or classify_section(SectionInput(heading, body), config).domain == domain:
        return None
    if domain not in {name for name, _ in config.domains}:
        return None
    words = [w for w in _WORDS.findall(heading) if len(w) >= _MIN_LETTERS and not is_stopword(w)]  # not `die`
    phrase = " ".join(_WORDS.findall(heading))
    for keyword in dict.fromkeys([*(w.casefold() for w in words), phrase.casefold()]):
        if keyword and _places(heading, body, domain, keyword, config):
            return _line(domain, keyword, config)
    return None


def _places(heading: str, body: str, domain: str, keyword: str, config: Config) -> bool:
    taught = _with_keyword(config, domain, keyword)
    return classify_section(SectionInput(heading, body), taught).domain == domain


def _with_keyword(config: Config, domain: str, keyword: str) -> Config:
    domains = tuple((name, (*words, keyword) if name == domain else words) for name, words in config.domains)
    return replace(config, domains=domains)


def _line(domain: str, keyword: str, config: Config) -> str:
    quoted = _quoted(keyword)
    key = domain if _BARE_KEY.fullmatch(domain) else _quoted(domain)
    own = dict(config.domains).get(domain, ())
    if domain in config.configured:  # its words are `.bonsai.toml`'s own list: the word goes there
        return f"add {quoted} to [domains.{key}] keywords"
    if own:  # `.bonsai.toml` extends it already: one more word in that list
        return f"add {quoted} to [domains.{key}] extend"
    return f"domains.{key}.extend = [{quoted}]"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
