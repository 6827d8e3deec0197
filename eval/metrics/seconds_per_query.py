"""Seconds per query: the evaluation's cost of answering one question (with the run's shared caches,
eval/systems/memo.py, so a cost to compare systems by, not a serving latency)."""

from __future__ import annotations

from eval.metrics.metric import COST, AnswerField

__all__ = ["SECONDS_PER_QUERY"]

SECONDS_PER_QUERY = AnswerField(name="seconds_per_query", header="s/q", kind=COST, higher_is_better=False, decimals=2,
                                row_key="seconds", description="seconds the system took per question in the evaluation")
