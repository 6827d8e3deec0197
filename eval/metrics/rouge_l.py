"""ROUGE-L: the F-measure of the longest common subsequence of the answer's and the reference
answer's content morphemes (as rouge-score's `rougeL` fmeasure; cross-checked in
tests/test_metrics.py). None where the instance has no reference answer."""

from __future__ import annotations

from collections.abc import Sequence

from eval.metrics.metric import ANSWER, TOKENS, Query, Scored
from eval.metrics.overlap import f1, token_list

__all__ = ["ROUGE_L", "rouge_l"]


def _lcs_length(a: list[str], b: list[str]) -> int:
    if len(a) < len(b):
        a, b = b, a  # keep the DP row as short as the shorter sequence
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(candidate_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """ROUGE-L F-measure (beta = 1), as rouge-score's `rougeL` fmeasure.

    Empty inputs: 1.0 when both are empty (nothing to say, nothing said), 0.0 when only one is.
    rouge-score itself returns 0.0 for both-empty; that case is the only difference.
    """
    candidate = token_list(candidate_tokens, "candidate_tokens")
    reference = token_list(reference_tokens, "reference_tokens")
    if not candidate and not reference:
        return 1.0
    if not candidate or not reference:
        return 0.0
    return f1(_lcs_length(candidate, reference), len(candidate), len(reference))


def _score(query: Query) -> float | None:
    return None if query.answer_tokens is None else rouge_l(query.answer_tokens, query.reference_tokens or ())


ROUGE_L = Scored(name="rouge_l", header="ROUGE-L", kind=ANSWER, interval=True, needs=frozenset({TOKENS}), scorer=_score,
                 description="ROUGE-L F-measure of the answer against the reference answer (content morphemes)")
