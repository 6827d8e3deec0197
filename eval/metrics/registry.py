"""The evaluation's metrics, one line each, in the order of the `--out` file's fields
(docs/contracts.md §1) and of the lakehouse's metric columns. Every list of metrics is read from
here: the runner scores and aggregates these, the lakehouse has a column for each (added to older
lakehouses on open), the `--out` file a field, eval_intervals an interval where `interval` says so,
and the report shows every ANSWER metric in its answer-quality table (Table 1 and the slice table
are the paper's, eval/reports/report.py). Adding a metric: a module with its Metric
(eval/metrics/metric.py) and one line here (docs/method.md, "Adding a metric").
"""

from __future__ import annotations

from eval.metrics.grounded_correctness import GROUNDED_CORRECTNESS
from eval.metrics.keyword_match import KEYWORD_MATCH
from eval.metrics.metric import Metric, Scored
from eval.metrics.mrr import MRR
from eval.metrics.questions_per_query import QUESTIONS_PER_QUERY
from eval.metrics.recall import recall_at_k
from eval.metrics.rouge_l import ROUGE_L
from eval.metrics.seconds_per_query import SECONDS_PER_QUERY
from eval.metrics.source_match import SOURCE_MATCH
from eval.metrics.success import success_at_k
from eval.metrics.token_f1 import TOKEN_F1

__all__ = ["CUTOFFS", "METRICS", "fields", "metric", "needs", "per_query_columns", "scored"]

CUTOFFS = (1, 5, 10, 50)  # k of success@k and recall@k

METRICS: tuple[Metric, ...] = (
    MRR,
    *(recall_at_k(k, interval=k == 10) for k in CUTOFFS),
    *(success_at_k(k, interval=k in (1, 10)) for k in CUTOFFS),
    ROUGE_L,
    TOKEN_F1,
    KEYWORD_MATCH,
    SOURCE_MATCH,
    GROUNDED_CORRECTNESS,  # reads source_match: after it
    SECONDS_PER_QUERY,
    QUESTIONS_PER_QUERY,
)

# Read at call time, never copied into another module's constants: a metric appended to METRICS
# (as tests/test_eval_runner.py's toy metric is) reaches every reader.


def fields() -> tuple[str, ...]:
    """The aggregate fields, in order."""
    return tuple(m.name for m in METRICS)


def metric(name: str) -> Metric:
    found = {m.name: m for m in METRICS}
    if len(found) != len(METRICS):
        raise ValueError("two metrics share a name")
    try:
        return found[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; expected one of {list(found)}") from None


def scored() -> tuple[Scored, ...]:
    """The metrics that score each query themselves, in order (a later one may read an earlier one's value)."""
    return tuple(m for m in METRICS if isinstance(m, Scored))


def per_query_columns() -> tuple[str, ...]:
    """The scored metrics' columns in eval_query_results, in order."""
    return tuple(dict.fromkeys(c for m in scored() for c in m.columns))


def needs() -> frozenset[str]:
    """What the registered metrics need of a query, together (TOKENS, JUDGE)."""
    return frozenset(need for m in METRICS for need in m.needs)
