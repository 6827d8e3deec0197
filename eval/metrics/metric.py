"""The one interface every evaluation metric implements (ragas' way: a module per metric, one
interface), and what the runner hands a metric for one query.

A metric is a `Metric` object (registry.py lists them, one line each) with:

- `name`: its field in a system x setting's aggregate, the `--out` file and the reports; its
  lakehouse column is `column` (the name with "@" written "_at_": `recall@10` -> `recall_at_10`);
- `description`, `kind` (RETRIEVAL, ANSWER or COST: the report's answer-quality table shows every
  ANSWER metric), `higher_is_better` (its direction), `header` and `decimals` (how the report shows
  it), `interval` (whether eval_intervals gets its 95% interval, eval/metrics/stats.py);
- what it needs of each query (`needs`: TOKENS, JUDGE) and, when one of them cannot be had (no
  LLM), why its value is None (`missing`): a metric that cannot be computed is None, never a guess;
- `value(row)`: its value for one per-query row (None: not measured for that query), and
  `aggregate(rows)`: a system x setting's value, by default the mean over the rows that have one.

Two kinds of value: a `Scored` metric computes its own per query (`score(query)`, its `scorer`),
which the runner writes to the row under its name and the lakehouse keeps in a column of
eval_query_results; any other metric reads what the row already holds (the gold ranks: mrr.py,
success.py, recall.py; a number every answer carries: `AnswerField`).

Pure: no Dagster, no DuckDB, no tokenizer (token lists come from the runner). The reference
implementations the scoring functions are checked against: tests/test_metrics.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["ANSWER", "COST", "JUDGE", "KINDS", "NEED_COLUMNS", "RETRIEVAL", "TOKENS", "Metric", "Query", "Scored",
           "checked_rows", "finite"]

RETRIEVAL, ANSWER, COST = "retrieval", "answer", "cost"
KINDS = (RETRIEVAL, ANSWER, COST)

# What a metric may need of a query besides its row; the runner computes each only when a
# registered metric needs it.
TOKENS = "tokens"  # the answer's and the reference answer's content morphemes (one tokenizer call per system x setting)
JUDGE = "judge"  # an LLM judge's answer correctness, for the judged subset of the instances (needs an LLM)
# The per-query column a need leaves in eval_query_results, beside the values made from it.
NEED_COLUMNS = {JUDGE: "answer_correctness"}


@dataclass(frozen=True)
class Query:
    """What the metrics of one query are computed from."""

    instance: Mapping  # the benchmark instance: query, gold_sources, keywords, reference_answer, …
    row: Mapping  # the per-query row so far: ranks, retrieved_urls, answer, citations, tier, seconds, …,
    #               and the values of the Scored metrics listed before this one in the registry
    answer_tokens: Sequence[str] | None = None  # TOKENS, when the instance has a reference answer
    reference_tokens: Sequence[str] | None = None
    correctness: float | None = None  # JUDGE: the judge's answer correctness; None: not judged


def finite(value, what: str) -> float | None:
    """`value` as a float, None as None; anything else (a string, NaN, a bool) is the caller's bug."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number or None, got {value!r}")
    return float(value)


def checked_rows(rows: Sequence[Mapping]) -> list[Mapping]:
    if isinstance(rows, (Mapping, str)):
        raise TypeError("rows must be a sequence of per-query mappings")
    rows = list(rows)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"row {i} must be a mapping, got {type(row).__name__}")
    return rows


@dataclass(frozen=True, kw_only=True)
class Metric:
    name: str
    description: str
    kind: str
    header: str
    higher_is_better: bool = True
    decimals: int = 3
    interval: bool = False
    needs: frozenset[str] = frozenset()
    missing: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        unknown = set(self.needs) - {TOKENS, JUDGE}
        if unknown:
            raise ValueError(f"metric {self.name!r}: unknown needs {sorted(unknown)}")

    @property
    def column(self) -> str:
        return self.name.replace("@", "_at_")

    @property
    def columns(self) -> tuple[str, ...]:
        """Its per-query columns in eval_query_results (a Scored metric's own, after its needs')."""
        return ()

    def value(self, row: Mapping) -> float | None:
        raise NotImplementedError

    def aggregate(self, rows: Sequence[Mapping]) -> float | None:
        """The mean over the rows that have a value; None when none has."""
        values = [v for v in (self.value(row) for row in rows) if v is not None]
        return sum(values) / len(values) if values else None


@dataclass(frozen=True, kw_only=True)
class Scored(Metric):
    """A metric that scores each query itself, with `scorer`: the runner writes `score(query)` to
    the row under its name, the lakehouse keeps it in a column of that name."""

    scorer: Callable[[Query], float | None]

    def score(self, query: Query) -> float | None:
        return self.scorer(query)

    @property
    def columns(self) -> tuple[str, ...]:
        return (*(NEED_COLUMNS[need] for need in sorted(self.needs) if need in NEED_COLUMNS), self.name)

    def value(self, row: Mapping) -> float | None:
        return finite(row.get(self.name), repr(self.name))


@dataclass(frozen=True, kw_only=True)
class AnswerField(Metric):
    """The mean of a number every answer carries (its seconds, the questions it asked)."""

    row_key: str

    def value(self, row: Mapping) -> float | None:
        return finite(row.get(self.row_key), repr(self.row_key))
