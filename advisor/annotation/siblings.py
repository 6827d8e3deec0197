"""Near-duplicate sibling documents: one text published for different students.

Sites keep one page per cohort or per department whose text is the same but for a year or a
department's name. A page's own reading can miss whom it is for (the year stands bare, or only in
a query string), but its siblings show it: the token in which near-identical texts differ is what
sets each apart, so it says whom each is for. A build-level comparison (docs/method.md §A.4):

1. every year (4 digits, within 15 years of the cohort attribute's span; 2 digits only as "'21" or
   "21학번") and every alias of a categorical value is masked in each document's title and text;
2. documents of one kind whose masked titles are equal and whose masked texts are near-identical
   (token similarity at least ``SIMILARITY``) form a group;
3. a masked slot whose value differs between the members of a group distinguishes them. Per
   member, a categorical attribute's facet is its values in those slots, the cohort facet the span
   of its years there. (Not up to the next member's year, as if the pages partitioned the cohorts:
   a group holds only the near-identical siblings, not every page of the series.) A year that is a
   time ("2025년 3월", "2026학년도 1학기", "2025 하계"; words.py: year_units, time_units, seasons) is
   no cohort, nor is any year of a dated document (a notice's years are its events').

The annotator reads these facets as the OUTERMOST context of a document: whatever the page itself
says replaces (labels) or narrows (prose) them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from advisor.annotation import words
from advisor.annotation.expressions import expand_year
from advisor.annotation.lexicon import AliasMatcher

SIMILARITY = 0.95  # share of masked tokens two texts have in common (difflib's ratio)
MAX_BLOCK = 200  # a block this large is a site-wide title ("공지"), not siblings: not compared
_YEAR = re.compile(r"(?<![\d.,/:])(?:(?P<y4>(?:19|20)\d{2})|['’‘`](?P<y2>\d{2}))(?!\d)|(?<![\d.,/:'’‘`])(?P<h2>\d{2})(?=\s*학번)")
_TOKEN = re.compile(r"\S+")
_SLOT = "\x00"


@dataclass(frozen=True)
class CorpusDocument:
    """What the comparison reads of one active document."""

    url: str
    kind: str
    title: str
    text: str
    dated: bool = False  # a notice: its years are its events'


@dataclass(frozen=True)
class _Slot:
    attribute: str
    value: object  # a canonical value, or a year
    time: bool = False  # a year that is a date or an event's time, not a cohort
    start: int = 0  # where it stands: text[start:end] of the title (in_title) or the text
    end: int = 0
    in_title: bool = False


@dataclass
class _Masked:
    doc: CorpusDocument
    keys: list[str]  # the title's and the text's tokens, each value one token "\x00attribute"
    slots: dict[int, _Slot]  # token index -> its slot


Facets = dict[str, dict[str, object]]  # url -> attribute -> frozenset of values | (low, high)


class SiblingReader:
    """Masks the config's values in documents and reads facets from their sibling groups."""

    def __init__(self, categorical: Mapping[str, AliasMatcher], years: Mapping[str, tuple[int, int]],
                 audience: Callable[[str, str, int, int], bool] | None = None):
        self.categorical = dict(categorical)
        self.years = dict(years)  # the cohort attribute(s): name -> (min, max)
        # audience(attribute, text, start, end): whether the value at text[start:end] names whom the
        # text is for where it stands (not the host of a program, an organizer, an exclusion ...)
        self.audience = audience
        units = words.alternation("year_units")
        self._time_after = re.compile(
            rf"^(?:{units})?\s*(?:\d{{1,2}}\s*(?:{words.alternation('time_units')})|(?:{words.alternation('seasons')}))"
            r"|^\s*[./-]\s*\d{1,2}(?!\d)",
            re.IGNORECASE,
        )
        self._time_before = re.compile(rf"(?:{words.alternation('seasons')})\s*$", re.IGNORECASE)

    def facets(self, documents: Sequence[CorpusDocument]) -> Facets:
        # Siblings share their title but for its values: only such documents are compared (and
        # only their texts masked, the costly part).
        blocks: dict[tuple[str, str], list[CorpusDocument]] = defaultdict(list)
        for doc in documents:
            blocks[(doc.kind, " ".join(self._mask_text(doc.title, doc.dated, in_title=True)[0]))].append(doc)
        out: Facets = {}
        for members in blocks.values():
            if not 2 <= len(members) <= MAX_BLOCK:
                continue
            masked = [item for item in map(self._mask, members) if item.slots]
            for group in _near_groups(masked):
                out.update((url, found) for url, found in self._group_facets(group).items() if found)
        return out

    # ------------------------------------------------------------------------- masking

    def _mask(self, doc: CorpusDocument) -> _Masked:
        title_keys, title_slots = self._mask_text(doc.title, doc.dated, in_title=True)
        keys, slots = self._mask_text(doc.text, doc.dated)
        slots = {**title_slots, **{i + len(title_keys): slot for i, slot in slots.items()}}
        return _Masked(doc, title_keys + keys, slots)

    def _mask_text(self, text: str, dated: bool, in_title: bool = False) -> tuple[list[str], dict[int, _Slot]]:
        """The text's tokens with every value one token "\x00attribute", and those slots."""
        spans: list[tuple[int, int, _Slot]] = []
        for name, matcher in self.categorical.items():
            spans += [(m.start, m.end, _Slot(name, m.value, False, m.start, m.end, in_title)) for m in matcher.find(text)]
        for name, (low, high) in self.years.items():
            for m in _YEAR.finditer(text):
                year = expand_year(m.group(0), low, high)
                if low - 15 <= year <= high + 15:
                    time = dated or bool(self._time_after.match(text[m.end():m.end() + 12])
                                         or self._time_before.search(text[max(0, m.start() - 12):m.start()]))
                    spans.append((m.start(), m.end(), _Slot(name, year, time, m.start(), m.end(), in_title)))
        keys: list[str] = []
        slots: dict[int, _Slot] = {}
        cursor = 0
        for start, end, slot in sorted(spans, key=lambda s: (s[0], -s[1])):
            if start < cursor:
                continue  # inside a longer slot
            keys += _TOKEN.findall(text[cursor:start])
            slots[len(keys)] = slot
            keys.append(_SLOT + slot.attribute)
            cursor = end
        keys += _TOKEN.findall(text[cursor:])
        return keys, slots

    # ------------------------------------------------------------------------- facets

    def _audience(self, doc: CorpusDocument, slot: _Slot) -> bool:
        if self.audience is None:
            return True
        return self.audience(slot.attribute, doc.title if slot.in_title else doc.text, slot.start, slot.end)

    def _group_facets(self, group: list[_Masked]) -> dict[str, dict[str, object]]:
        values, not_whom = self._distinguishing_values(group, _aligned_slots(group))
        out: dict[str, dict[str, object]] = {}
        for url, by_attribute in values.items():
            out[url] = {name: frozenset(found) for name, found in by_attribute.items()
                        if name in self.categorical and (url, name) not in not_whom}
        for name, (low, high) in self.years.items():
            for url, by_attribute in values.items():
                if by_attribute.get(name) and (url, name) not in not_whom:
                    first, last = max(low, min(by_attribute[name])), min(high, max(by_attribute[name]))
                    if first <= last and (first, last) != (low, high):
                        out[url][name] = (first, last)
        return out

    def _distinguishing_values(self, group: list[_Masked], aligned: dict[int, dict[str, _Slot]]):
        """url -> attribute -> the values of the aligned slots that differ between members, and the
        (url, attribute) pairs where such a slot names no audience (a time, or not whom it is for)."""
        docs = {member.doc.url: member.doc for member in group}
        values: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        not_whom: set[tuple[str, str]] = set()
        for by_url in aligned.values():
            if len(by_url) < 2 or len({s.value for s in by_url.values()}) < 2:
                continue  # the same in every member: says nothing about whom
            for url, slot in by_url.items():
                values[url][slot.attribute].add(slot.value)
                if slot.time or (slot.attribute in self.categorical and not self._audience(docs[url], slot)):
                    not_whom.add((url, slot.attribute))
        return values, not_whom


def _aligned_slots(group: list[_Masked]) -> dict[int, dict[str, _Slot]]:
    """pivot slot index -> {url: slot}: the members' slots aligned with each of the first member's."""
    pivot = group[0]
    aligned: dict[int, dict[str, _Slot]] = defaultdict(dict)
    for member in group:
        if member is pivot:
            for i, slot in pivot.slots.items():
                aligned[i][member.doc.url] = slot
            continue
        matcher = SequenceMatcher(None, pivot.keys, member.keys, autojunk=False)
        for tag, i1, i2, j1, _ in matcher.get_opcodes():
            if tag != "equal":
                continue
            for k in range(i2 - i1):
                if i1 + k in pivot.slots and j1 + k in member.slots:
                    aligned[i1 + k][member.doc.url] = member.slots[j1 + k]
    return aligned


def _near_groups(masked: list[_Masked]) -> list[list[_Masked]]:
    """The documents joined by near-identity (transitively), groups of two or more."""
    parent = list(range(len(masked)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a in range(len(masked)):
        for b in range(a + 1, len(masked)):
            if root(a) != root(b) and _near(masked[a].keys, masked[b].keys):
                parent[root(b)] = root(a)
    groups: dict[int, list[_Masked]] = defaultdict(list)
    for i, item in enumerate(masked):
        groups[root(i)].append(item)
    return [g for g in groups.values() if len(g) > 1]


def _near(a: list[str], b: list[str]) -> bool:
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return (matcher.real_quick_ratio() >= SIMILARITY and matcher.quick_ratio() >= SIMILARITY
            and matcher.ratio() >= SIMILARITY)


def digest(facets: Facets) -> str:
    """A short hash of the facets, for the annotator's version."""
    rows = sorted((url, name, sorted(v) if isinstance(v, frozenset) else list(v))
                  for url, found in facets.items() for name, v in found.items())
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, default=str).encode()).hexdigest()[:12]
