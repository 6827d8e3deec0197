"""A page's own dates, as it states them: when it was posted and when it was last updated.

Structured markup first (what the page's publisher wrote for machines: Open Graph / article meta,
schema.org `datePublished` / `dateModified` in microdata or JSON-LD, `<time pubdate>`), then dates
the page labels in its text ("최종수정일 2025.03.02", "Last updated: March 2, 2025"; the labels are
language data, advisor/language/<code>/dates.yaml). A page that states none gives None: a date
is never guessed from a number that merely looks like one.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import cache

from selectolax.lexbor import LexborHTMLParser

from advisor import language
from advisor.ingest.dates import date_at, parse_date

# (selector, attribute or None for the element's text), tried in order: the HTML and schema.org
# vocabularies, not a language's words
_POSTED = (
    ('meta[property="article:published_time"]', "content"), ('meta[name="article:published_time"]', "content"),
    ('meta[itemprop="datePublished"]', "content"), ('[itemprop="datePublished"][datetime]', "datetime"),
    ('[itemprop="datePublished"]', None), ('meta[name="dcterms.created"]', "content"),
    ('meta[name="DC.date.created"]', "content"), ("time[pubdate][datetime]", "datetime"),
)
_UPDATED = (
    ('meta[property="article:modified_time"]', "content"), ('meta[name="article:modified_time"]', "content"),
    ('meta[property="og:updated_time"]', "content"), ('meta[itemprop="dateModified"]', "content"),
    ('[itemprop="dateModified"][datetime]', "datetime"), ('[itemprop="dateModified"]', None),
    ('meta[name="dcterms.modified"]', "content"), ('meta[name="DC.date.modified"]', "content"),
)
_JSON_LD = 'script[type="application/ld+json"]'
# between a label and its date: a colon, spaces, a cell boundary (the text's newlines), a bracket
_GAP = re.compile(r"[\s:：|\-–·()\[\]]{0,8}")
LABEL_FILE = "dates"


@dataclass(frozen=True)
class PageDates:
    posted: dt.date | None = None
    updated: dt.date | None = None


def page_dates(tree: LexborHTMLParser) -> PageDates:
    """The page's stated (posted, updated) dates; read the tree before boilerplate is removed
    (a "최종수정일" box often sits below the content area)."""
    linked = _json_ld(tree)
    posted = _structured(tree, _POSTED) or linked.get("datePublished")
    updated = _structured(tree, _UPDATED) or linked.get("dateModified")
    if posted is None or updated is None:
        body = tree.body
        text = body.text(separator="\n") if body is not None else ""
        posted = posted or _labelled(text, "posted")
        updated = updated or _labelled(text, "updated")
    return PageDates(posted, updated)


def _structured(tree: LexborHTMLParser, selectors) -> dt.date | None:
    for selector, attribute in selectors:
        for node in tree.css(selector):
            value = node.attributes.get(attribute) if attribute else node.text(deep=True)
            if value and (date := parse_date(value)):
                return date
    return None


def _json_ld(tree: LexborHTMLParser) -> dict[str, dt.date]:
    """datePublished / dateModified of the page's JSON-LD (the first object that states them)."""
    found: dict[str, dt.date] = {}
    for node in tree.css(_JSON_LD):
        try:
            data = json.loads(node.text(deep=True) or "null")
        except ValueError:
            continue
        for item in _objects(data):
            for key in ("datePublished", "dateModified"):
                value = item.get(key)
                if key not in found and isinstance(value, str) and (date := parse_date(value)):
                    found[key] = date
    return found


def _objects(data, depth: int = 0):
    """The JSON objects of a JSON-LD block, the page's own first (a @graph, a list), not deeper
    than a few levels (an article's `author` is not the page)."""
    if depth > 3:
        return
    if isinstance(data, list):
        for item in data:
            yield from _objects(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        yield from _objects(data.get("@graph"), depth + 1)


@cache
def _label_pattern(kind: str) -> re.Pattern[str]:
    labels = sorted(language.words(LABEL_FILE, kind, language.languages_with(LABEL_FILE)), key=len, reverse=True)
    # not inside a Latin word ("outdated"); Korean labels follow anything
    return re.compile(r"(?<![A-Za-z])(?:" + language.alternation(labels).replace(r"\ ", r"\s*") + r")(?![A-Za-z])",
                      re.I)


def _labelled(text: str, kind: str) -> dt.date | None:
    """The first date of `text` right after one of the language data's `kind` labels."""
    for match in _label_pattern(kind).finditer(text):
        gap = _GAP.match(text, match.end())
        date = date_at(text, gap.end()) if gap else None
        if date is not None:
            return date
    return None


def label_version() -> str:
    """Changes when a language's date labels or month names do (the cleaner's version includes it)."""
    return language.digest(LABEL_FILE)
