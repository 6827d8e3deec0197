"""recall@k: TREC recall, the share of the instance's distinct gold sources within the top k
distinct sources (R@k, cross-checked against ir_measures in tests/test_metrics.py). With one gold
source per instance it equals success@k; with several it does not. (Before success@k existed, the
project reported success@k under this name.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from eval.metrics.metric import RETRIEVAL, Metric
from eval.metrics.sources import checked_k, checked_ranks, distinct_golds

__all__ = ["RecallAt", "query_recall", "recall_at", "recall_at_k"]


def query_recall(ranks: Sequence[int], gold_count: int, k: int) -> float:
    """TREC recall@k of one query: the share of its `gold_count` distinct gold sources found
    within the top k, given the ranks of the golds found (`gold_ranks`)."""
    checked_k(k)
    if isinstance(gold_count, bool) or not isinstance(gold_count, int) or gold_count < 1:
        raise ValueError(f"gold_count must be a positive int, got {gold_count!r}")
    found = checked_ranks(ranks) if len(ranks) else []
    if any(r is None for r in found):
        raise ValueError("gold ranks are the ranks of golds found: None has no place among them")
    if len(found) > gold_count:
        raise ValueError(f"{len(found)} gold ranks for {gold_count} gold source(s)")
    return sum(1 for r in found if r <= k) / gold_count


def recall_at(gold_ranks_per_query: Sequence[Sequence[int]], gold_counts: Sequence[int], k: int) -> float:
    """Mean TREC recall@k over queries: per query, the share of its distinct gold sources within
    the top k distinct sources (`query_recall`)."""
    rank_lists, counts = list(gold_ranks_per_query), list(gold_counts)
    if len(rank_lists) != len(counts):
        raise ValueError(f"{len(rank_lists)} rank lists but {len(counts)} gold counts")
    if not rank_lists:
        raise ValueError("no queries given: a mean over zero queries is undefined")
    return sum(query_recall(r, c, k) for r, c in zip(rank_lists, counts)) / len(rank_lists)


def _gold_ranks(row: Mapping, where: str) -> list[int]:
    """The row's gold ranks, checked against its first hit ("rank")."""
    ranks = row["gold_ranks"]
    if isinstance(ranks, (str, Mapping)) or not isinstance(ranks, Sequence):
        raise ValueError(f"{where}: 'gold_ranks' must be a list of ranks, got {ranks!r}")
    ranks = sorted(checked_ranks(ranks)) if len(ranks) else []
    first = ranks[0] if ranks else None
    if row["rank"] != first:
        raise ValueError(f"{where}: 'rank' {row['rank']!r} is not the first of 'gold_ranks' {ranks!r}")
    if "gold_sources" not in row:
        raise ValueError(f"{where}: 'gold_sources' is needed to count the golds recall@k divides by")
    return ranks


@dataclass(frozen=True, kw_only=True)
class RecallAt(Metric):
    """Over the rows with a "rank" and their "gold_ranks"; None when they carry no gold ranks (rows
    written before recall was measured: recall cannot be computed from a first hit)."""

    k: int

    def value(self, row: Mapping) -> float | None:
        if "rank" not in row or row.get("gold_ranks") is None or not row.get("gold_sources"):
            return None
        return query_recall(list(row["gold_ranks"]), len(distinct_golds(row["gold_sources"])), self.k)

    def aggregate(self, rows: Sequence[Mapping]) -> float | None:
        retrieval = [(i, row) for i, row in enumerate(rows) if "rank" in row]
        with_ranks = [(i, row) for i, row in retrieval if "gold_ranks" in row]
        if not with_ranks:
            return None
        if len(with_ranks) != len(retrieval):
            raise ValueError("some rows have 'gold_ranks' and some do not: recall@k would mix two populations")
        rank_lists = [_gold_ranks(row, f"row {i}") for i, row in with_ranks]
        return recall_at(rank_lists, [len(distinct_golds(row["gold_sources"])) for _, row in with_ranks], self.k)


def recall_at_k(k: int, interval: bool = False) -> RecallAt:
    checked_k(k)
    return RecallAt(k=k, name=f"recall@{k}", header=f"R@{k}", kind=RETRIEVAL, interval=interval,
                    description=f"the share of the instance's distinct gold sources in the top {k} distinct sources")
