"""Grounded correctness: sqrt(answer correctness x source match), the answer correctness an LLM
judge gave (eval/systems/llm.py, on the judged subset). Without a judge it is None: a grounded
correctness made from a guess would be a fake result."""

from __future__ import annotations

import math

from eval.metrics.metric import ANSWER, JUDGE, Query, Scored

__all__ = ["GROUNDED_CORRECTNESS", "grounded_correctness"]


def _unit_interval(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} must be a number in [0, 1], got {value!r}")
    return float(value)


def grounded_correctness(answer_correctness: float | None, source_match: float) -> float | None:
    """sqrt(answer correctness x source match); None when no judge scored the answer.

    Without an LLM judge the correctness is missing, and a grounded correctness made from a guess
    would be a fake result, so None propagates.
    """
    grounding = _unit_interval(source_match, "source_match")
    if answer_correctness is None:
        return None
    return math.sqrt(_unit_interval(answer_correctness, "answer_correctness") * grounding)


def _score(query: Query) -> float | None:
    return grounded_correctness(query.correctness, query.row["source_match"])  # source match: scored before it


GROUNDED_CORRECTNESS = Scored(
    name="grounded_correctness", header="GC", kind=ANSWER, needs=frozenset({JUDGE}), scorer=_score,
    description="sqrt(an LLM judge's answer correctness x source match); the judged subset only",
    missing="needs an LLM judge; none configured")
