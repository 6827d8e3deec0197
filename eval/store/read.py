"""Reading recorded evaluation runs: the runs, and their rows as polars frames shaped for the
reports (eval/reports/). Works on a lakehouse opened read-only, even one not migrated yet."""

from __future__ import annotations

import json
from collections.abc import Sequence

import duckdb
import polars as pl

from advisor.lakehouse import one, scalar
from eval.metrics import registry as metric_registry
from eval.store.schema import LINEAGE_FIELDS, query_columns, table_columns
from eval.systems.registry import REFERENCE_SYSTEM, TRUE_LABEL_SYSTEM

# --- reading -----------------------------------------------------------------------------------


def _run_dict(con: duckdb.DuckDBPyConnection, where: str, params: list) -> dict | None:
    frame = con.sql(f"SELECT * FROM eval_runs WHERE {where} ORDER BY finished_at DESC, run_id LIMIT 1",
                    params=params).pl()
    if frame.is_empty():
        return None
    row = frame.to_dicts()[0]
    row["params"] = json.loads(row["params"]) if row.get("params") else {}
    return row


def latest_run(con: duckdb.DuckDBPyConnection, benchmark: str | None = None) -> dict | None:
    """The most recently finished run (its eval_runs row as a dict, params parsed), optionally of
    one benchmark, given by the name it was recorded under or by its hash; None when none."""
    if benchmark is None:
        return _run_dict(con, "TRUE", [])
    return _run_dict(con, "benchmark = ? OR benchmark_hash = ?", [benchmark, benchmark])


def run_info(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The eval_runs row of one run as a dict (params parsed); KeyError when there is none."""
    row = _run_dict(con, "run_id = ?", [run_id])
    if row is None:
        raise KeyError(f"no evaluation run {run_id!r} in eval_runs")
    return row


def find_run(con: duckdb.DuckDBPyConnection, fingerprint: str) -> str | None:
    """The latest run with this fingerprint (its results can be reused), or None."""
    return scalar(con, "SELECT run_id FROM eval_runs WHERE fingerprint = ? ORDER BY finished_at DESC LIMIT 1",
                  [fingerprint])


def _require_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    if one(con, "SELECT 1 FROM eval_runs WHERE run_id = ?", [run_id]) is None:
        raise KeyError(f"no evaluation run {run_id!r} in eval_runs")


# Reading works on a lakehouse opened read-only before it was migrated: a column or table that
# does not exist yet reads as NULL / no rows, so the reports of old runs still render.
_COLUMN_TYPES = {"gold_ranks": "INTEGER[]", "n": "INTEGER", "confidence": "DOUBLE",
                 **dict.fromkeys(("system", "setting", "slice", "tiers", "example_id", "text", "intent", "predicted",
                                  "router"), "VARCHAR")}


def _select(con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[tuple[str, str]], run_id: str,
            order: str) -> pl.DataFrame:
    """SELECT column AS alias, ... FROM table WHERE run_id = ? ORDER BY order; absent columns NULL."""
    _require_run(con, run_id)
    present = table_columns(con).get(table)
    if present is None:
        nulls = ", ".join(f'CAST(NULL AS {_COLUMN_TYPES.get(c, "DOUBLE")}) AS "{a}"' for c, a in columns)
        return con.sql(f"SELECT {nulls} LIMIT 0").pl()
    listed = ", ".join(f'{c} AS "{a}"' if c in present else f'CAST(NULL AS {_COLUMN_TYPES.get(c, "DOUBLE")}) AS "{a}"'
                       for c, a in columns)
    return con.sql(f"SELECT {listed} FROM {table} WHERE run_id = ? ORDER BY {order}", params=[run_id]).pl()


def _metric_select(con: duckdb.DuckDBPyConnection | None = None) -> list[tuple[str, str]]:
    """(column, field) of every metric. A lakehouse not migrated yet (read-only) stored success@k
    under recall_at_k: read it as success@k, and recall@k as not computed (NULL)."""
    old = con is not None and "success_at_1" not in table_columns(con).get("eval_aggregates", {"success_at_1"})
    pairs = []
    for m in metric_registry.METRICS:
        if old and m.name.startswith("success@"):
            pairs.append((metric_registry.metric(m.name.replace("success@", "recall@")).column, m.name))
        elif old and m.name.startswith("recall@"):
            pairs.append(("__not_recorded", m.name))
        else:
            pairs.append((m.column, m.name))
    return pairs


def aggregates_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting of a run, with the `--out` field names (recall@k, success@k),
    `slice` (what the row is over) and the lineage columns, shaped for eval.reports.report
    (table1_markdown, write_report ...). `tiers` stays JSON text."""
    columns = [("system", "system"), ("setting", "setting"), ("n", "n"), *_metric_select(con),
               ("skipped", "skipped"), ("tiers", "tiers"), ("slice", "slice"), *((f, f) for f in LINEAGE_FIELDS)]
    return _select(con, "eval_aggregates", columns, run_id, "setting, system")


def slice_aggregates_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting x slice of a run (empty for runs recorded before slices)."""
    columns = [("system", "system"), ("setting", "setting"), ("slice", "slice"), ("n", "n"), *_metric_select(),
               ("tiers", "tiers")]
    return _select(con, "eval_slice_aggregates", columns, run_id, "setting, system, slice")


def run_aggregates(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict]:
    """A recorded run's aggregates as the runner gave them (system, setting, n, the metric fields,
    skipped, tiers, slice, slices), in the run's system x setting order: what a reused run's
    `--out` file is written from."""
    slices: dict[tuple, dict] = {}
    for row in slice_aggregates_frame(con, run_id).to_dicts():
        entry = {k: v for k, v in row.items() if k not in ("system", "setting", "slice")}
        entry["tiers"] = json.loads(entry["tiers"]) if entry["tiers"] else None
        slices.setdefault((row["system"], row["setting"]), {})[row["slice"]] = entry
    run = run_info(con, run_id)
    order = {name: i for i, name in enumerate(run["systems"])}, {name: i for i, name in enumerate(run["settings"])}
    out = []
    for row in aggregates_frame(con, run_id).to_dicts():
        aggregate = {k: row[k] for k in ("system", "setting", "n", *metric_registry.fields(), "skipped", "slice")}
        aggregate["tiers"] = json.loads(row["tiers"]) if row["tiers"] else None
        aggregate["slices"] = slices.get((row["system"], row["setting"]))
        out.append(aggregate)
    return sorted(out, key=lambda a: (order[0].get(a["system"], len(order[0])), order[1].get(a["setting"], 0)))


def per_query_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting x instance of a run (the per-query keys), for the breakdowns."""
    return _select(con, "eval_query_results", [(c, c) for c in query_columns()], run_id, "setting, system, instance_id")


def intent_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The intent evaluation of a run (empty when the run had none)."""
    _require_run(con, run_id)
    return con.sql("SELECT intent, precision, recall, f1, support, n, accuracy, macro_f1, router FROM intent_eval "
                   "WHERE run_id = ? ORDER BY intent", params=[run_id]).pl()


def intent_predictions_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """Every held-out example the run's intent router saw (empty when none was recorded)."""
    columns = [(c, c) for c in ("example_id", "text", "intent", "predicted", "confidence", "router")]
    return _select(con, "intent_predictions", columns, run_id, "example_id")


def label_gap_inputs(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[dict, dict]:
    """What eval/reports/label_gap.py splits proFILL's gap with: ({setting: (profill rows, true-label rows)}
    with instance_id, rank and label_errors, {attribute: exact_match / precision / recall} of the
    run's annotator, latest measurement). Settings without both systems are left out."""
    _require_run(con, run_id)
    rows: dict[str, dict[str, list]] = {}
    for system, setting, instance_id, rank, errors in con.execute(
            "SELECT system, setting, instance_id, rank, json_extract_string(extra, '$.label_errors') "
            "FROM eval_query_results WHERE run_id = ? AND system IN (?, ?) "
            "AND slice = (SELECT any_value(slice) FILTER (WHERE slice IS NOT NULL) FROM eval_aggregates WHERE run_id = ?) "
            "ORDER BY instance_id", [run_id, REFERENCE_SYSTEM, TRUE_LABEL_SYSTEM, run_id]).fetchall():
        rows.setdefault(setting, {}).setdefault(system, []).append(
            {"instance_id": instance_id, "rank": rank, "label_errors": json.loads(errors) if errors else []})
    pairs = {setting: (found[REFERENCE_SYSTEM], found[TRUE_LABEL_SYSTEM]) for setting, found in rows.items()
             if REFERENCE_SYSTEM in found and TRUE_LABEL_SYSTEM in found}
    accuracy = {}
    if "annotation_accuracy" in table_columns(con):
        for attribute, exact, precision, recall in con.execute(
                "SELECT attribute, arg_max(exact_match, measured_at), arg_max(precision, measured_at), "
                "arg_max(recall, measured_at) FROM annotation_accuracy WHERE annotator = "
                "(SELECT annotator FROM eval_runs WHERE run_id = ?) GROUP BY attribute", [run_id]).fetchall():
            accuracy[attribute] = {"exact_match": exact, "precision": precision, "recall": recall}
    return pairs, accuracy


def benchmark_frame(con: duckdb.DuckDBPyConnection, benchmark_hash: str) -> pl.DataFrame:
    """The recorded instances of one benchmark (by hash); empty when it was never recorded."""
    if "benchmark_instances" not in table_columns(con):
        return pl.DataFrame()
    return con.sql("SELECT * FROM benchmark_instances WHERE benchmark_hash = ? ORDER BY instance_id",
                   params=[benchmark_hash]).pl()


def intervals_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The 95% intervals of a run (eval/metrics/stats.py), one row per system x setting x slice x metric;
    empty for runs recorded before intervals existed."""
    columns = [(c, c) for c in ("system", "setting", "slice", "metric", "value", "lower", "upper", "instances",
                                "texts", "too_small")]
    return _select(con, "eval_intervals", columns, run_id, "setting, system, slice, metric")


def tests_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The paired tests of a run against its baselines (eval/metrics/stats.py); empty before they existed."""
    columns = [(c, c) for c in ("setting", "slice", "metric", "system", "baseline", "baseline_setting",
                                "system_value", "baseline_value", "difference", "p_value", "p_holm", "significant",
                                "family_size", "wins", "ties", "losses", "texts")]
    return _select(con, "eval_tests", columns, run_id, "setting, metric, baseline, system")


def previous_run(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """The run finished last before `run_id` on the same benchmark (by name, so a regenerated
    benchmark still compares) and the same institution, with statistics to compare; None when none
    (also in a lakehouse from before the statistics, opened read-only before it was migrated)."""
    if "eval_intervals" not in table_columns(con):
        return None
    return scalar(con, "SELECT p.run_id FROM eval_runs p, eval_runs r WHERE r.run_id = ? AND p.run_id <> r.run_id "
                       "AND p.benchmark = r.benchmark AND p.institution IS NOT DISTINCT FROM r.institution "
                       "AND p.finished_at < r.finished_at "
                       "AND EXISTS (SELECT 1 FROM eval_intervals i WHERE i.run_id = p.run_id) "
                       "ORDER BY p.finished_at DESC LIMIT 1", [run_id])


def comparison_frame(con: duckdb.DuckDBPyConnection, before: str, after: str) -> pl.DataFrame:
    """compare_runs(before, after) (the lakehouse's macro): every interval of both runs side by side."""
    return con.sql("SELECT * FROM compare_runs(?, ?) ORDER BY setting, system, slice, metric",
                   params=[before, after]).pl()


def flipped_frame(con: duckdb.DuckDBPyConnection, before: str, after: str) -> pl.DataFrame:
    """flipped_questions(before, after): the instances whose first-ranked source turned gold or stopped being."""
    return con.sql("SELECT * FROM flipped_questions(?, ?) ORDER BY setting, system, instance_id",
                   params=[before, after]).pl()
