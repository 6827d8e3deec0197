"""Fuzzy disjointness: is a message a near-copy of a text the system learned from?

Two texts are compared after normalization (Unicode NFKC, lower case, everything but letters and
digits removed: spaces, punctuation, emoji), so "휴학 신청 어떻게 해요?" and "휴학신청 어떻게해요" are
one text. They are near-copies when either
- their character 3-grams overlap with Jaccard >= JACCARD (0.5), or
- their normalized edit similarity (difflib's ratio, 2·matches / total length) is >= RATIO (0.8),
and, for texts of fewer than MIN_CHARS normalized characters (too short for either measure to mean
anything: "ㅎㅇ", "hi"), when they are equal.

Thresholds: a paraphrase written independently of a seed shares its topic words, rarely half of
its 3-grams; a seed varied by an ending, a particle, a typo or spacing ("뭘 할 수 있어" / "뭘 할 수
있어요?") scores 0.6–0.9 on both.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

JACCARD = 0.5
RATIO = 0.8
MIN_CHARS = 4
_NOT_WORD = re.compile(r"[\W_]+")


def normalized(text: str) -> str:
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


def trigrams(text: str) -> frozenset[str]:
    return frozenset(text[i:i + 3] for i in range(len(text) - 2))


@dataclass(frozen=True)
class Collision:
    message_id: str
    reference: str  # the text it is a near-copy of
    origin: str  # where that text comes from
    jaccard: float
    ratio: float


class ReferenceIndex:
    """The texts a system learned from, by normalized form and 3-gram, for near-copy lookups."""

    def __init__(self, references: Iterable[tuple[str, str]]) -> None:
        """`references`: (text, origin) pairs."""
        self.texts: list[tuple[str, str, str]] = []  # (normalized, text, origin)
        self.gram_counts: list[int] = []  # distinct 3-grams per text: a Jaccard's union without the set
        self.exact: dict[str, int] = {}
        self.postings: dict[str, list[int]] = {}
        seen: set[str] = set()
        for text, origin in references:
            norm = normalized(text)
            if not norm or norm in seen:
                continue
            seen.add(norm)
            row = len(self.texts)
            self.texts.append((norm, text, origin))
            self.exact[norm] = row
            grams = trigrams(norm)
            self.gram_counts.append(len(grams))
            for gram in grams:
                self.postings.setdefault(gram, []).append(row)

    def __len__(self) -> int:
        return len(self.texts)

    def collisions(self, message_id: str, text: str) -> list[Collision]:
        norm = normalized(text)
        if not norm:
            return []
        if norm in self.exact:
            _, reference, origin = self.texts[self.exact[norm]]
            return [Collision(message_id, reference, origin, 1.0, 1.0)]
        if len(norm) < MIN_CHARS:
            return []
        grams = trigrams(norm)
        shared: dict[int, int] = {}
        for gram in grams:
            for row in self.postings.get(gram, ()):
                shared[row] = shared.get(row, 0) + 1
        found = []
        for row, count in shared.items():
            other, reference, origin = self.texts[row]
            if len(other) < MIN_CHARS:
                continue
            jaccard = count / (len(grams) + self.gram_counts[row] - count)  # |A ∪ B| = |A| + |B| - |A ∩ B|
            # the edit ratio can reach RATIO only when the lengths are close and 3-grams are shared
            ratio = SequenceMatcher(None, norm, other, autojunk=False).ratio() if jaccard >= 0.2 else 0.0
            if jaccard >= JACCARD or ratio >= RATIO:
                found.append(Collision(message_id, reference, origin, round(jaccard, 3), round(ratio, 3)))
        return found


def collisions(messages: Sequence[tuple[str, str]], index: ReferenceIndex) -> list[Collision]:
    """Every (message id, text) that is a near-copy of a reference."""
    return [c for message_id, text in messages for c in index.collisions(message_id, text)]
