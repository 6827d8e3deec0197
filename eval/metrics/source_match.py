"""Source match: 1.0 when the answer cites a gold source, 0.5 when a gold source was retrieved but
not cited, 0.0 otherwise (eval/metrics/sources.py decides what is a gold source)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from eval.metrics.metric import ANSWER, Query, Scored
from eval.metrics.sources import any_gold, checked_golds, url_list

__all__ = ["SOURCE_MATCH", "source_match"]


def source_match(gold_sources: Collection[str], cited_urls: Sequence[str], retrieved_urls: Sequence[str]) -> float:
    """1.0 if a gold source is cited, 0.5 if retrieved but not cited, 0.0 otherwise."""
    golds = checked_golds(gold_sources)
    if any_gold(golds, url_list(cited_urls, "cited_urls")):
        return 1.0
    if any_gold(golds, url_list(retrieved_urls, "retrieved_urls")):
        return 0.5
    return 0.0


def _score(query: Query) -> float | None:
    return source_match(query.row["gold_sources"], query.row["citations"], query.row["retrieved_urls"])


SOURCE_MATCH = Scored(name="source_match", header="source match", kind=ANSWER, interval=True, scorer=_score,
                      description="1: the answer cites a gold source; 0.5: one was retrieved, not cited; else 0")
