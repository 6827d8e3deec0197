"""Keyword match: the share of the instance's expected keywords the answer contains (case- and
whitespace-insensitive). None for an instance without keywords: nothing to measure, not a perfect
score."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from eval.metrics.metric import ANSWER, Query, Scored

__all__ = ["KEYWORD_MATCH", "keyword_match"]


def _squash(text: str) -> str:
    # Korean writes "72 학점" and "72학점" interchangeably, so whitespace must not decide a match.
    return "".join(unicodedata.normalize("NFC", text).casefold().split())


def keyword_match(answer: str, keywords: Sequence[str]) -> float | None:
    """Share of expected keywords found in the answer (case- and whitespace-insensitive).

    None when the instance has no keywords (nothing to measure, not a perfect score).
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {type(answer).__name__}")
    if isinstance(keywords, str):
        raise TypeError("keywords must be a sequence of strings, not a single string")
    wanted = [_squash(k) for k in keywords]
    if not wanted:
        return None
    if any(not k for k in wanted):
        raise ValueError(f"a keyword is empty or only whitespace: {list(keywords)!r}")
    haystack = _squash(answer)
    return sum(1 for k in wanted if k in haystack) / len(wanted)


def _score(query: Query) -> float | None:
    return keyword_match(query.row["answer"], list(query.instance.get("keywords") or []))


KEYWORD_MATCH = Scored(name="keyword_match", header="keyword match", kind=ANSWER, interval=True, scorer=_score,
                       description="the share of the instance's expected keywords found in the answer")
