"""success@k: whether any gold source is within the top k distinct sources (TREC's Success@k,
cross-checked against ir_measures in tests/test_metrics.py). Before it existed, the project reported
it under the name recall@k (eval/metrics/recall.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.metrics.metric import RETRIEVAL, Metric
from eval.metrics.sources import checked_k, checked_ranks

__all__ = ["SuccessAt", "success_at"]


def success_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of queries with any gold source within the top k distinct sources, from each query's
    first-hit rank (None counts 0)."""
    checked_k(k)
    checked = checked_ranks(ranks)
    return sum(1 for r in checked if r is not None and r <= k) / len(checked)


@dataclass(frozen=True, kw_only=True)
class SuccessAt(Metric):
    """Over every row with a "rank", as MRR."""

    k: int
    name: str = ""  # success@k
    description: str = "whether any gold source is within the top k distinct retrieved sources"
    kind: str = RETRIEVAL
    higher_is_better: bool = True
    header: str = ""  # S@k

    def __post_init__(self):
        checked_k(self.k)
        object.__setattr__(self, "name", self.name or f"success@{self.k}")
        object.__setattr__(self, "header", self.header or f"S@{self.k}")
        super().__post_init__()

    def value(self, row: Mapping) -> float | None:
        if "rank" not in row:
            return None
        rank = checked_ranks([row["rank"]])[0]
        return 1.0 if rank is not None and rank <= self.k else 0.0
