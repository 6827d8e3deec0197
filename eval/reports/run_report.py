"""The report of one recorded evaluation run, read from the lakehouse and written under
`<warehouse>/reports/<run_id>/` (report.md, the PNG charts, report.html): one code path for the
`evaluation_report` asset and `advisor report`, so both render the same page from the same rows.

Reads only (eval/store/ frames, plus the cited chunks' texts): a lakehouse opened read-only
works, even one not migrated yet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import duckdb
import polars as pl

from eval import store as eval_store
from eval.reports.data import SETTING_ORDER
from eval.reports.label_gap import gap_report, gap_table
from eval.reports.report import changes_table, write_report
from eval.reports.table import ReportTable
from eval.reports.usage import read_usage
from eval.study import study_section

__all__ = ["REPORTS_DIR", "chunk_texts", "report_directory", "run_changes", "run_lineage", "write_run_report"]

REPORTS_DIR = "reports"
REPORT_HTML = "report.html"


def report_directory(warehouse: Path, run_id: str) -> Path:
    return Path(warehouse) / REPORTS_DIR / run_id


def run_lineage(run: dict) -> dict:
    """The lineage lines the report prints for a run (its eval_runs row)."""
    return {**{k: run[k] for k in eval_store.LINEAGE_FIELDS}, "instances": run["instances"], "run_id": run["run_id"],
            "finished_at": run["finished_at"], "llm_model": run["llm_model"] or "none (offline)",
            "gold_from": run.get("gold_from")}


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {name for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def chunk_texts(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, tuple[str, str]]:
    """chunk id -> (document URL, text) of every chunk the run retrieved, for the passages the
    drill-down shows. From the chunks' history when the lakehouse keeps one (a chunk retired since
    the run is still there; its id hashes its text, so any version of it is the same text), else
    from the current chunks; empty when neither table exists."""
    present = _tables(con)
    source = next((t for t in ("chunk_versions", "chunks") if t in present), None)
    if source is None or "eval_query_results" not in present:
        return {}
    rows = con.execute(
        f"WITH ids AS (SELECT DISTINCT unnest(retrieved_chunk_ids) AS chunk_id FROM eval_query_results "
        f"WHERE run_id = ?) SELECT c.chunk_id, any_value(c.doc_url), any_value(c.text) FROM {source} c "
        f"JOIN ids USING (chunk_id) GROUP BY c.chunk_id", [run_id]).fetchall()
    return {chunk_id: (url, text) for chunk_id, url, text in rows}


def _benchmark_attributes(benchmark: pl.DataFrame) -> list[str]:
    """The profile attributes the run's instances name, in the order they first appear."""
    seen: dict[str, None] = {}
    for profile in benchmark["profile"].to_list() if "profile" in benchmark.columns else []:
        if isinstance(profile, str):
            profile = json.loads(profile)
        seen.update(dict.fromkeys(profile or {}))
    return list(seen)


def _label_gap(con: duckdb.DuckDBPyConnection, run_id: str, attributes: Sequence[str]) -> ReportTable:
    pairs, accuracy = eval_store.label_gap_inputs(con, run_id)
    return gap_report({setting: gap_table(*pairs[setting], list(attributes))
                       for setting in SETTING_ORDER if setting in pairs}, accuracy)


def run_changes(con: duckdb.DuckDBPyConnection, run_id: str) -> ReportTable:
    """"What changed since the previous run": the lakehouse's compare_runs and flipped_questions
    against the run before this one on the same benchmark (eval.store.previous_run)."""
    previous = eval_store.previous_run(con, run_id)
    if previous is None:
        return changes_table(None, None, None)
    return changes_table(eval_store.comparison_frame(con, previous, run_id),
                         eval_store.flipped_frame(con, previous, run_id), previous)


def write_run_report(con: duckdb.DuckDBPyConnection, warehouse: Path, run_id: str, *, title: str | None = None,
                     profile_attributes: Sequence[str] | None = None) -> dict:
    """Writes the run's report into `<warehouse>/reports/<run_id>/` and returns write_report's
    dict plus "run" (the eval_runs row). `title` defaults to "Evaluation of <institution>";
    `profile_attributes` (the label gap's rows, in the config's order) to the attributes the run's
    benchmark instances name. With the run's intervals and paired tests, and what changed since the
    previous run of its benchmark (`run_changes`), and what students asked (the usage tables' rows when
    the lakehouse has them: eval/reports/usage.py). KeyError when the run is not in the lakehouse."""
    run = eval_store.run_info(con, run_id)
    benchmark = eval_store.benchmark_frame(con, run["benchmark_hash"])
    attributes = list(profile_attributes) if profile_attributes is not None else _benchmark_attributes(benchmark)
    written = write_report(
        eval_store.aggregates_frame(con, run_id), eval_store.per_query_frame(con, run_id),
        report_directory(warehouse, run_id), title or f"Evaluation of {run.get('institution') or 'an institution'}",
        run_lineage(run), slices=eval_store.slice_aggregates_frame(con, run_id),
        intents=eval_store.intent_frame(con, run_id), predictions=eval_store.intent_predictions_frame(con, run_id),
        label_gap=_label_gap(con, run_id, attributes), benchmark=benchmark, chunks=chunk_texts(con, run_id),
        intervals=eval_store.intervals_frame(con, run_id), tests=eval_store.tests_frame(con, run_id),
        changes=run_changes(con, run_id), usage=read_usage(con), study=study_section(con))
    return {**written, "run": run}
