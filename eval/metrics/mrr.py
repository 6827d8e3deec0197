"""MRR: the mean reciprocal rank of the first gold source retrieved (TREC's RR, cross-checked against
ir_measures in tests/test_metrics.py). A query whose gold was not retrieved scores 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.metrics.metric import RETRIEVAL, Metric
from eval.metrics.sources import checked_ranks

__all__ = ["MRR", "mrr"]


def mrr(ranks: Sequence[int | None]) -> float:
    """Mean reciprocal rank of the first gold hit; a query whose gold was not retrieved (None)
    contributes 0."""
    checked = checked_ranks(ranks)
    return sum(1.0 / r for r in checked if r is not None) / len(checked)


@dataclass(frozen=True, kw_only=True)
class MRR(Metric):
    """Over every row with a "rank" (the first gold source's rank among the distinct sources; None:
    not retrieved); None when no row has one (a system that did not retrieve)."""

    name: str = "mrr"
    description: str = "mean reciprocal rank of the first gold source among the distinct retrieved sources"
    kind: str = RETRIEVAL
    higher_is_better: bool = True
    header: str = "MRR"

    def value(self, row: Mapping) -> float | None:
        if "rank" not in row:
            return None
        rank = checked_ranks([row["rank"]])[0]
        return 1.0 / rank if rank is not None else 0.0
