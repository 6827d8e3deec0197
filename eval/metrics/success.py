"""success@k: whether any gold source is within the top k distinct sources (TREC's Success@k,
cross-checked against ir_measures in tests/test_metrics.py). Before it existed, the project reported
it under the name recall@k (eval/metrics/recall.py)."""

from __future__ import annotations

from collections.abc import Sequence

from eval.metrics.metric import RETRIEVAL
from eval.metrics.mrr import FirstHit
from eval.metrics.sources import checked_k, checked_ranks

__all__ = ["success_at", "success_at_k"]


def success_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of queries with any gold source within the top k distinct sources, from each query's
    first-hit rank (None counts 0)."""
    checked_k(k)
    checked = checked_ranks(ranks)
    return sum(1 for r in checked if r is not None and r <= k) / len(checked)


def success_at_k(k: int, interval: bool = False) -> FirstHit:
    """success@k as a metric of the first gold source's rank (eval/metrics/mrr.py's FirstHit)."""
    checked_k(k)
    return FirstHit(name=f"success@{k}", header=f"S@{k}", kind=RETRIEVAL, interval=interval,
                    of_rank=lambda r: 1.0 if r is not None and r <= k else 0.0,
                    description=f"whether any gold source is within the top {k} distinct retrieved sources")
