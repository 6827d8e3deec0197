"""Token F1: SQuAD's bag-of-tokens F1 of the answer's and the reference answer's content morphemes.
None where the instance has no reference answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from eval.metrics.metric import ANSWER, TOKENS, Query, Scored
from eval.metrics.overlap import f1, token_list

__all__ = ["TokenF1", "token_f1"]


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


@dataclass(frozen=True, kw_only=True)
class TokenF1(Scored):
    name: str = "token_f1"
    description: str = "bag-of-tokens F1 of the answer against the reference answer (content morphemes)"
    kind: str = ANSWER
    higher_is_better: bool = True
    header: str = "token F1"
    needs: frozenset[str] = frozenset({TOKENS})

    def score(self, query: Query) -> float | None:
        if query.answer_tokens is None:
            return None
        return token_f1(query.answer_tokens, query.reference_tokens)
