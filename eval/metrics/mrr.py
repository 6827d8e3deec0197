"""MRR: the mean reciprocal rank of the first gold source retrieved (TREC's RR, cross-checked against
ir_measures in tests/test_metrics.py). A query whose gold was not retrieved scores 0."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eval.metrics.metric import RETRIEVAL, Metric
from eval.metrics.sources import checked_ranks

__all__ = ["MRR", "FirstHit", "mrr"]


def mrr(ranks: Sequence[int | None]) -> float:
    """Mean reciprocal rank of the first gold hit; a query whose gold was not retrieved (None)
    contributes 0."""
    checked = checked_ranks(ranks)
    return sum(1.0 / r for r in checked if r is not None) / len(checked)


@dataclass(frozen=True, kw_only=True)
class FirstHit(Metric):
    """A metric of the first gold source's rank ("rank": among the distinct sources; None: not
    retrieved), over every row that has one; None when no row has (a system that did not retrieve)."""

    of_rank: Callable[[int | None], float]

    def value(self, row: Mapping) -> float | None:
        return self.of_rank(checked_ranks([row["rank"]])[0]) if "rank" in row else None


MRR = FirstHit(name="mrr", header="MRR", kind=RETRIEVAL, interval=True, of_rank=lambda r: 0.0 if r is None else 1.0 / r,
               description="mean reciprocal rank of the first gold source among the distinct retrieved sources")
