"""The benchmark's slices: which instances a system x setting's headline numbers (Table 1) are over,
and which slice each result row is reported in."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from eval.metrics.metric import checked_rows

__all__ = ["ANSWER_IN_QUESTION", "ANSWER_IN_QUESTION_TYPES", "MAIN_SLICE", "UNSLICED", "main_slice",
           "optional_label", "reporting_slice", "slice_of", "split_slices"]

MAIN_SLICE = "profile_dependent"  # the paper's benchmark: questions whose answer depends on who asks
UNSLICED = "all"  # the slice of an instance that names none, and the main row of an unsliced benchmark


def optional_label(value, default: str, what: str) -> str:
    """An instance's optional label field ('slice', 'gold_from'): `default` when absent, else a
    non-empty string; anything else is a malformed benchmark."""
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string or absent, got {value!r}")
    return value


def slice_of(row: Mapping) -> str:
    return optional_label(row.get("slice"), UNSLICED, "'slice'")


# Questions whose text states the answer ("is it 20 hours?" when it is): a retriever finds the
# page by the number itself, so they score far above the others (BM25 MRR about 0.41 against
# about 0.19 on the demo) and would flatter the headline. Reported beside it, as their own slice.
ANSWER_IN_QUESTION = "answer_in_question"
ANSWER_IN_QUESTION_TYPES = frozenset({"verification_true"})


def reporting_slice(instance: Mapping) -> str:
    """The slice a result row is reported in: the instance's slice, except that a main-slice
    question whose text states its answer goes to ANSWER_IN_QUESTION (outside the headline)."""
    name = slice_of(instance)
    if name == MAIN_SLICE and instance.get("query_type") in ANSWER_IN_QUESTION_TYPES:
        return ANSWER_IN_QUESTION
    return name


def main_slice(slices: Collection[str]) -> str:
    """The slice a system's headline numbers (Table 1) are computed over: the profile-dependent
    questions when the benchmark has them, else every instance ("all")."""
    return MAIN_SLICE if MAIN_SLICE in set(slices) else UNSLICED


def split_slices(rows: Sequence[Mapping]) -> tuple[str, list[Mapping], dict[str, list[Mapping]]]:
    """(main slice name, the main slice's rows, {slice: rows}) with slices in first-seen order."""
    rows = checked_rows(rows)
    by_slice: dict[str, list[Mapping]] = {}
    for row in rows:
        by_slice.setdefault(slice_of(row), []).append(row)
    main = main_slice(by_slice)
    return main, (by_slice[main] if main == MAIN_SLICE else rows), by_slice
