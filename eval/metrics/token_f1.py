"""Token F1: SQuAD's bag-of-tokens F1 of the answer's and the reference answer's content morphemes.
None where the instance has no reference answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from eval.metrics.metric import ANSWER, TOKENS, Query, Scored
from eval.metrics.overlap import f1, token_list

__all__ = ["TOKEN_F1", "token_f1"]


def token_f1(candidate_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """SQuAD-style bag-of-tokens F1 (multiset overlap).

    Empty inputs as SQuAD: 1.0 when both are empty, 0.0 when only one is.
    """
    candidate = token_list(candidate_tokens, "candidate_tokens")
    reference = token_list(reference_tokens, "reference_tokens")
    if not candidate or not reference:
        return float(candidate == reference)
    overlap = sum((Counter(candidate) & Counter(reference)).values())
    return f1(overlap, len(candidate), len(reference))


def _score(query: Query) -> float | None:
    return None if query.answer_tokens is None else token_f1(query.answer_tokens, query.reference_tokens or ())


TOKEN_F1 = Scored(name="token_f1", header="token F1", kind=ANSWER, needs=frozenset({TOKENS}), scorer=_score,
                  description="bag-of-tokens F1 of the answer against the reference answer (content morphemes)")
