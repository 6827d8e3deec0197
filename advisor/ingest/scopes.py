"""Which source a URL belongs to when the sources' scopes overlap.

Two sources overlap on a URL when both sources' allow patterns match it: typically a `pages`
source seeded at the site root (its default scope is then the whole host) beside `faq` and
`notices` sources seeded at their own sections. Each URL gets exactly one owner, decided from the
URL and the config alone, so it is the same whichever source reaches the URL first:

1. the source with the longest *scope prefix* the URL starts with: one of its seeds, or the
   literal start of one of its `^`-anchored allow patterns. A longer prefix is a narrower part of
   the site, and the source configured for that part (its kind, selectors, document patterns,
   collection and expiry were written for those pages) is the one that reads them right; a
   root-seeded source only gets there by following links. The source's kind cannot decide: a
   board post and a page are both HTML, and the kind of a URL is not known before it is fetched.
2. on equal prefixes, the source that makes the URL a document: one whose `documents` patterns
   name it, then one that takes every page (no `documents` patterns), then one that would only
   follow its links;
3. then the config's order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from advisor.config import Source
from advisor.ingest.crawler import normalize_url

_REGEX_SPECIAL = set(".^$*+?{}[]|()")


@dataclass(frozen=True)
class Overlap:
    """A URL that `met_by` reached but left to `owner`, the source it belongs to."""

    url: str
    met_by: str
    owner: str
    rule: str  # why the owner won: "longer prefix" | "document pattern" | "config order"


def literal_prefix(pattern: str) -> str:
    """The text every match of a `^`-anchored regex starts with ("" when unsure). Only used to
    rank sources whose patterns already match a URL, so stopping early is always safe."""
    if not pattern.startswith("^") or "|" in pattern:  # an alternation may match other prefixes
        return ""
    out: list[str] = []
    i = 1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern) or pattern[i + 1].isalnum():  # \d, \w, \1 ...: a class, not a char
                break
            literal, step = pattern[i + 1], 2
        elif char in _REGEX_SPECIAL:
            break
        else:
            literal, step = char, 1
        following = pattern[i + step:i + step + 1]
        if following in {"*", "?", "{"}:  # the character may be absent or repeated
            break
        out.append(literal)
        if following == "+":
            break
        i += step
    return "".join(out)


class Scopes:
    """The config's sources, to ask which of them a URL is in and which one owns it."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self._sources = list(sources)
        self._allow = {s.name: [re.compile(p) for p in s.allow_patterns()] for s in sources}
        self._documents = {s.name: [re.compile(p) for p in s.documents] for s in sources}
        self._prefixes = {
            s.name: sorted({normalize_url(seed) for seed in s.seeds} | {literal_prefix(p) for p in s.allow_patterns()}
                           - {""}, key=len, reverse=True)
            for s in sources
        }
        self._owners: dict[str, str | None] = {}

    def candidates(self, url: str) -> list[str]:
        """The sources whose allow patterns match the URL, in config order."""
        return [s.name for s in self._sources if any(p.search(url) for p in self._allow[s.name])]

    def _rank(self, name: str, url: str) -> tuple[int, int]:
        prefix = next((len(p) for p in self._prefixes[name] if url.startswith(p)), 0)
        patterns = self._documents[name]
        document = 1 if not patterns else (2 if any(p.search(url) for p in patterns) else 0)
        return prefix, document

    def owner(self, url: str) -> str | None:
        """The source the URL belongs to (None: no source's scope has it)."""
        if url not in self._owners:
            names = self.candidates(url)
            # max() keeps the first of equals: the config's order breaks the last ties
            self._owners[url] = max(names, key=lambda n: self._rank(n, url)) if names else None
        return self._owners[url]

    def overlap(self, url: str, met_by: str) -> Overlap:
        """The record of `met_by` leaving the URL to its owner, with the rule that decided."""
        owner = self.owner(url)
        if owner is None or owner == met_by:
            raise ValueError(f"{url} belongs to {owner!r}: no overlap for {met_by!r}")
        mine, theirs = self._rank(met_by, url), self._rank(owner, url)
        rule = ("longer prefix" if theirs[0] > mine[0] else "document pattern" if theirs[1] > mine[1]
                else "config order")
        return Overlap(url, met_by, owner, rule)
