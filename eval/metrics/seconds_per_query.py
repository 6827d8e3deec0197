"""Seconds per query: the evaluation's cost of answering one question (with the run's shared caches,
eval/systems/memo.py, so a cost to compare systems by, not a serving latency)."""

from __future__ import annotations

from dataclasses import dataclass

from eval.metrics.metric import COST, AnswerField

__all__ = ["SecondsPerQuery"]


@dataclass(frozen=True, kw_only=True)
class SecondsPerQuery(AnswerField):
    name: str = "seconds_per_query"
    description: str = "seconds the system took per question in the evaluation"
    kind: str = COST
    higher_is_better: bool = False
    header: str = "s/q"
    decimals: int = 2
    row_key: str = "seconds"
