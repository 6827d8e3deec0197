"""Evaluation results in the lakehouse: every run, every system, every query, queryable in SQL and
comparable across index builds, annotators, embedders, code and configs (docs/method.md, "What neither
paper has").

    eval_runs              one row per run: what was evaluated, on what, with which code and config,
                           and where its gold came from (gold_from: truth | annotations | benchmark)
    eval_query_results     one row per run x system x setting x benchmark instance
    eval_aggregates        one row per run x system x setting (the `advisor eval --out` fields), over
                           the main slice (profile_dependent when the benchmark has it, else all)
    eval_slice_aggregates  one row per run x system x setting x benchmark slice
    eval_intervals         one row per run x system x setting x slice x metric: its 95% interval
                           (eval/metrics/stats.py: a bootstrap over distinct question texts)
    eval_tests             one row per run x setting x metric x system x baseline: a paired test,
                           Holm-corrected, with wins / ties / losses over question texts
    compare_runs(a, b)     a table macro: two runs' intervals side by side; flipped_questions(a, b)
                           the instances whose first-ranked source turned gold or stopped being
    intent_eval            one row per run x intent: the build's intent router on the held-out split
    intent_predictions     one row per run x held-out example: what the router said, and how sure
    benchmark_instances    one row per benchmark (by hash) x instance: the question, its hidden
                           profile and gold, so every eval_query_results row joins to them on
                           (benchmark_hash, instance_id)

Every result row repeats the run's lineage (build_id, annotator, embedder, code_version,
config_hash, benchmark, benchmark_hash), so "one system across builds" or "this embedder vs that
one" is a WHERE clause, not a join. Every registered metric (eval/metrics/registry.py) has a
column in eval_aggregates and eval_slice_aggregates, and a scored one in eval_query_results too,
named as the metric with "@" written "_at_" (`recall_at_k` / `success_at_k`: SQL identifiers
without quoting); the frames give them back as "recall@k" / "success@k", the names the reports and
the `--out` file use. recall_at_k is TREC recall (share of the instance's gold sources
in the top k); success_at_k is "any gold source in the top k" (eval/metrics/). A run is written
in one transaction: a half-recorded run never exists. The benchmark profiles stored are the
benchmark's synthetic (or outside) test personas, never a student's.

Older lakehouses are migrated on open (`ensure_schema`): new columns are added, no row is lost,
and the runs recorded before success@k existed are corrected once: what they stored as recall@k
was success@k, so it moves to success_at_k, and recall_at_k and gold_ranks are recomputed from
the stored top-50 sources (eval_query_results.retrieved_urls) by the same rule as a new run.

The package: the tables (schema.py), recording a run (record.py), reading it back (read.py), the
`--out` file (outfile.py); `from eval import store` gives what the others use.
"""

from eval.benchmark.provenance import gold_from_of
from eval.store.read import (
                             aggregates_frame,
                             benchmark_frame,
                             comparison_frame,
                             find_run,
                             flipped_frame,
                             intent_frame,
                             intent_predictions_frame,
                             intervals_frame,
                             label_gap_inputs,
                             latest_run,
                             per_query_frame,
                             previous_run,
                             run_aggregates,
                             run_info,
                             slice_aggregates_frame,
                             tests_frame,
)
from eval.store.record import RunMeta, evaluation_code_version, meta_from_build, record_benchmark, record_run
from eval.store.schema import LINEAGE_FIELDS, TESTSET_RUNS_DDL, ensure_schema, query_columns

__all__ = [
    "LINEAGE_FIELDS",
    "TESTSET_RUNS_DDL",
    "RunMeta",
    "aggregates_frame",
    "benchmark_frame",
    "comparison_frame",
    "ensure_schema",
    "evaluation_code_version",
    "find_run",
    "flipped_frame",
    "gold_from_of",
    "intent_frame",
    "intent_predictions_frame",
    "intervals_frame",
    "label_gap_inputs",
    "latest_run",
    "meta_from_build",
    "per_query_frame",
    "previous_run",
    "query_columns",
    "record_benchmark",
    "record_run",
    "run_aggregates",
    "run_info",
    "slice_aggregates_frame",
    "tests_frame",
]
