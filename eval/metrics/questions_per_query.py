"""Questions per query: the profile questions a system asked the student before answering, the
burden of the dialogue (on profile-independent questions every one is a cost)."""

from __future__ import annotations

from dataclasses import dataclass

from eval.metrics.metric import COST, AnswerField

__all__ = ["QuestionsPerQuery"]


@dataclass(frozen=True, kw_only=True)
class QuestionsPerQuery(AnswerField):
    name: str = "questions_per_query"
    description: str = "profile questions the system asked per question"
    kind: str = COST
    higher_is_better: bool = False
    header: str = "questions/q"
    decimals: int = 2
    row_key: str = "questions_asked"
