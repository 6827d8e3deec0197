"""A system x setting's aggregate: every registered metric over its per-query rows (each metric's
`aggregate`: the mean of the values present, so a metric that was not measured is None, never 0),
over the main slice, with every slice's beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eval.metrics import registry
from eval.metrics.metric import checked_rows
from eval.metrics.slices import split_slices

__all__ = ["aggregate", "sliced_aggregate"]


def aggregate(rows: Sequence[Mapping]) -> dict:
    """{"n": rows, metric name: aggregate, …} of one system x setting's per-query rows.

    Retrieval metrics average over every row with a "rank" key (a None rank, "gold not retrieved",
    scores 0), and are None only when no row has one (a system that did not retrieve); recall@k is
    also None when the rows carry no "gold_ranks". Every other metric is the mean over the rows
    where its value is not None, and None when no row has one.
    """
    rows = checked_rows(rows)
    return {"n": len(rows), **{m.name: m.aggregate(rows) for m in registry.METRICS}}


def sliced_aggregate(rows: Sequence[Mapping]) -> dict:
    """`aggregate` of the main slice's rows, plus "slice" (its name) and "slices": {slice:
    aggregate of that slice's rows}."""
    main, main_rows, by_slice = split_slices(rows)
    return {**aggregate(main_rows), "slice": main,
            "slices": {name: aggregate(slice_rows) for name, slice_rows in by_slice.items()}}
