"""Combining rankings: reciprocal rank fusion, recency weighting of dynamic chunks, the
time-sensitivity rule and the time-aware split of the final list between collections."""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

import numpy as np

from advisor.retrieval.signals import Ranking


def rrf(rankings: list[Ranking], k: int = 60) -> list[tuple[int, float, list[int | None]]]:
    """[(row, sum of 1/(k + rank), [rank in each input or None])], best first, ties by row."""
    # one pass, the score summed as the ranks arrive: the same additions in the same order as
    # summing each row's ranks afterwards (so the same floats), at a fraction of the cost
    n = len(rankings)
    ranks: dict[int, list[int | None]] = {}
    scores: dict[int, float] = {}
    for i, ranking in enumerate(rankings):
        for rank, (row, _) in enumerate(ranking, start=1):
            found = ranks.get(row)
            if found is None:
                found = ranks[row] = [None] * n
                scores[row] = 0
            found[i] = rank
            scores[row] += 1.0 / (k + rank)
    return sorted(((row, scores[row], rs) for row, rs in ranks.items()), key=lambda f: (-f[1], f[0]))


def recency_weight(published_on: date | None, today: date, half_life_days: float) -> float:
    """0.5 ** (age / half-life). Undated chunks and future dates get 1 (no evidence of age)."""
    if published_on is None or half_life_days <= 0:
        return 1.0
    age = max((today - published_on).days, 0)
    return 0.5 ** (age / half_life_days)


def weighted(scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Scores times their recency weights, element by element. A negative score (a dense cosine
    can be) multiplied by a weight < 1 would move UP; dividing keeps "older ranks lower" true for
    every sign. For the non-negative BM25/RRF/most cosine scores this is exactly score x weight."""
    return np.where(scores >= 0, scores * weights, scores / weights)


def is_time_sensitive(query: str, words: tuple[str, ...]) -> bool:
    lowered = query.lower()
    squeezed = re.sub(r"\s+", "", lowered)
    english, korean = _time_word_patterns(tuple(words))
    return bool(english and english.search(lowered)) or any(word in squeezed for word in korean)


@lru_cache(maxsize=8)
def _time_word_patterns(words: tuple[str, ...]) -> tuple[re.Pattern | None, tuple[str, ...]]:
    """The time words, prepared once per word list: the ASCII ones as one whole-word pattern, the
    others without spaces (Korean is matched inside the squeezed query)."""
    english = [re.escape(w.lower()) for w in words if w.isascii()]
    korean = tuple(re.sub(r"\s+", "", w.lower()) for w in words if not w.isascii())
    return (re.compile(rf"\b(?:{'|'.join(english)})\b") if english else None), korean


def quotas(k: int, static_k: int, dynamic_k: int, time_sensitive: bool, available: dict[str, int]) -> dict[str, int]:
    """How many chunks each collection gives: static_k + dynamic_k scaled to k (7 + 3 for k = 10),
    swapped when time-sensitive; a collection short of eligible hits leaves its places to the other."""
    first, second = (dynamic_k, static_k) if time_sensitive else (static_k, dynamic_k)
    total = first + second
    static_share = round(k * first / total) if total else k
    want = {"static": static_share, "dynamic": k - static_share}
    take = {name: min(want[name], available.get(name, 0)) for name in want}
    spare = k - sum(take.values())
    for name in sorted(want, key=lambda n: -want[n]):  # the larger share fills first
        extra = min(spare, available.get(name, 0) - take[name])
        take[name] += extra
        spare -= extra
    return take
