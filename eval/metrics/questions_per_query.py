"""Questions per query: the profile questions a system asked the student before answering, the
burden of the dialogue (on profile-independent questions every one is a cost)."""

from __future__ import annotations

from eval.metrics.metric import COST, AnswerField

__all__ = ["QUESTIONS_PER_QUERY"]

QUESTIONS_PER_QUERY = AnswerField(name="questions_per_query", header="questions/q", kind=COST, higher_is_better=False,
                                  decimals=2, row_key="questions_asked",
                                  description="profile questions the system asked per question")
