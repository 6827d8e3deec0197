"""The evaluation report: the paper's tables, the per-slice, tier and intent tables, breakdowns and
charts (docs/method.md §A).

Pure: polars frames in, tables (eval/reports/table.py: Markdown and typed records from one model),
text, PNG and HTML files out (report.html: eval/reports/page.py); no Dagster, no DuckDB, so an
asset, the CLI, the README generator and a notebook all render the same report. Inputs
(eval/store/ gives them):

- `aggregates`: one row per (system, setting[, embedder]) with the `advisor eval --out` fields
  (docs/contracts.md §1; a field per metric of eval/metrics/registry.py): n, mrr, recall@1/5/10/50 (TREC recall), success@1/5/10/50, rouge_l,
  token_f1, keyword_match, source_match, grounded_correctness, seconds_per_query,
  questions_per_query, skipped (null or the reason), tiers (urag, JSON), slice.
- `per_query`: one row per (system, setting, query) with category, query_type, slice, rank
  (1-based first gold hit, null = gold not retrieved), source_match, seconds, questions.
- `slices`: one row per (system, setting, slice) with n and the metric fields.
- `intents` / `predictions`: the intent router's per-intent scores and per-example predictions.

Conventions:
- A metric that was not computed (null, NaN) prints as "–"; why is said once, in a footnote line
  under the table listing the skipped systems and their reasons, never in the cells (the typed
  records carry the reason in a "skipped" column instead).
- Rows follow the paper: settings deployment, deployment-dont-know, oracle, systems in
  `SYSTEM_ORDER`, anything unknown after them alphabetically, so a new system or setting still
  appears.
- The breakdowns by category and query type are over the main slice (profile_dependent when the
  benchmark has it), as Table 1 is.
- Charts (eval/reports/charts.py, matplotlib imported only when drawing) are 1200x700 px PNGs.
  Their labels must be ASCII because no CJK font is guaranteed: a category or query type whose
  name is not ASCII is drawn as "<kind> k" (k = its position in the breakdown) and
  `write_report` prints the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from eval.benchmark.provenance import gold_line, gold_note
from eval.metrics import registry as metric_registry
from eval.metrics import stats
from eval.metrics.metric import ANSWER
from eval.reports.data import (
    CHART_FILES,
    MAIN_SLICE,
    SETTING_ORDER,
    SLICE_ORDER,
    SYSTEM_ORDER,
    UNSLICED,
    _aggregate_rows,
    _ascii_labels,
    _breakdown_cells,
    _embedder_name,
    _has_embedders,
    _ordered,
    _rank_in,
    _require_frame,
    _row_order,
    main_slice_rows,
)
from eval.reports.page import NO_CHANGES, HtmlReport, drilldown_data, render_html
from eval.reports.table import MISSING, Column, ReportTable, metric_columns, number, text_columns
from eval.reports.usage import CHART_FILE as USAGE_CHART_FILE
from eval.reports.usage import UsageReport, usage_markdown
from eval.systems import registry

__all__ = [
    "ABLATION_SYSTEMS",
    "CHART_CAPTIONS",
    "CHART_FILES",
    "MISSING",
    "SETTING_ORDER",
    "SYSTEM_ORDER",
    "breakdown_markdown",
    "breakdown_table",
    "changes_table",
    "charts",
    "confusion_table",
    "generation_markdown",
    "generation_table",
    "intent_table",
    "main_slice_rows",
    "report_tables",
    "slice_table",
    "table1",
    "table1_caption",
    "table1_markdown",
    "table2",
    "table2_markdown",
    "tests_table",
    "tier_table",
    "write_report",
]

ABLATION_SYSTEMS = registry.ABLATIONS
REFERENCE_SYSTEM = registry.REFERENCE_SYSTEM
TIERS = registry.TIERS

# The paper's Table 1 (the README's results show it): success@k beside TREC recall@k, plus
# questions per query. Headers and decimals are each metric's own (eval/metrics/).
TABLE1_METRICS = ("mrr", "success@1", "success@5", "success@10", "recall@10", "recall@50", "source_match",
                  "grounded_correctness", "seconds_per_query", "questions_per_query")
SLICE_METRICS = ("mrr", "success@1", "success@10", "recall@10", "source_match", "questions_per_query")
N_COLUMN = ("n", "n", 0)


def _spec(names: Sequence[str]) -> tuple[tuple[str, str, int], ...]:
    """(header, aggregate field, decimals) of the named metrics."""
    return tuple((m.header, m.name, m.decimals) for m in map(metric_registry.metric, names))


def answer_quality_metrics() -> tuple[str, ...]:
    """The answer-quality table's metrics: every ANSWER metric of the registry, in its order (a new
    one appears there without a change here)."""
    return tuple(m.name for m in metric_registry.METRICS if m.kind == ANSWER)


CHART_CAPTIONS = ("MRR and R@10 per system", "MRR per category (deployment)", "MRR per query type",
                  "Profile questions per query", "MRR and questions per query by benchmark slice (deployment)")

# Lineage fields in the order the report prints them; other keys follow alphabetically.
LINEAGE_FIELDS = (
    ("build_id", "build id"),
    ("annotator", "annotator"),
    ("embedder", "embedder"),
    ("code_version", "code version"),
    ("config_hash", "config hash"),
    ("benchmark", "benchmark"),
    ("benchmark_size", "benchmark size"),
    ("gold_from", "gold from"),
)
# The `--out` JSON calls the benchmark size "instances"; accept it under either name.
LINEAGE_ALIASES = {"instances": "benchmark_size"}


# --- input checks ----------------------------------------------------------------------------


# --- ordering and formatting -----------------------------------------------------------------


def _fmt_delta(value: float | None, decimals: int = 3) -> str:
    if value is None:
        return MISSING
    rounded = round(value, decimals)
    return f"{rounded + 0.0:+.{decimals}f}"  # + 0.0 turns -0.0 into 0.0: no "-0.000"


def _skip_reason(row: Mapping) -> str | None:
    reason = row.get("skipped")
    if reason is None:
        return None
    reason = str(reason).strip()
    return reason or None


def _footnotes(rows: Sequence[Mapping], cells_have_missing: bool) -> tuple[str, ...]:
    """The lines under a table: what "–" means, and every skipped system with its reason (and
    embedder, when the rows have more than one)."""
    skipped: dict[tuple[str, str], list[str]] = {}
    with_embedder = _has_embedders(rows)
    for row in rows:
        reason = _skip_reason(row)
        if reason is not None:
            where = f"{row['setting']}, {_embedder_name(row.get('embedder'))}" if with_embedder else row["setting"]
            skipped.setdefault((row["system"], reason), []).append(where)
    # systems skipped for the same reason in the same settings share one entry
    grouped: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (system, reason), where in skipped.items():
        grouped.setdefault((reason, tuple(where)), []).append(system)
    lines = []
    if cells_have_missing:
        lines.append(f"{MISSING} = not computed.")
    if grouped:
        entries = [f"{', '.join(systems)} ({'; '.join(where)}): {reason}" for (reason, where), systems in grouped.items()]
        lines.append("Skipped: " + " · ".join(entries) + ".")
    return tuple(lines)


def _with_footnotes(table: ReportTable, source_rows: Sequence[Mapping]) -> ReportTable:
    return ReportTable(table.columns, table.rows, _footnotes(source_rows, table.has_missing()), table.empty)


def _noted(table: ReportTable, missing_note: str) -> ReportTable:
    """The table with `missing_note` under it when a cell shows "–"."""
    return ReportTable(table.columns, table.rows, (missing_note,) if table.has_missing() else (), table.empty)


# --- the aggregate tables --------------------------------------------------------------------


def _metric_table(aggregates: pl.DataFrame, spec: Sequence[tuple[str, str, int]]) -> ReportTable:
    rows = _aggregate_rows(aggregates)
    with_embedder = _has_embedders(rows)
    labels = text_columns("setting", "system")
    if with_embedder:
        labels.append(Column("embedder", "embedder_name", "text"))
    columns = (*labels, *metric_columns(spec), Column("skipped", "skipped", "text", markdown=False))
    shown = [{**row, "embedder_name": _embedder_name(row.get("embedder"))} for row in rows]
    return _with_footnotes(ReportTable(columns, tuple(shown)), rows)


def table1(aggregates: pl.DataFrame, intervals: pl.DataFrame | None = None,
           tests: pl.DataFrame | None = None) -> ReportTable:
    """The paper's Table 1: setting | system | MRR | S@1 | S@5 | S@10 | R@10 | R@50 | source
    match | GC | s/q | questions/q, settings deployment, deployment-dont-know, oracle, systems in
    the paper's order; an embedder column appears when the aggregates hold more than one
    embedder. Skipped systems keep their row (all "–") and are listed with their reasons under
    the table (in the records: a "skipped" column). With the run's `intervals` and `tests`
    (eval/store/ intervals_frame / tests_frame), MRR's 95% interval and its difference from
    each baseline, marked where significant, follow the MRR column."""
    table = _metric_table(aggregates, _spec(TABLE1_METRICS))
    if intervals is None or intervals.is_empty():
        return table
    return _with_statistics(table, intervals, tests)


def _interval_text(low: float | None, high: float | None) -> str | None:
    return None if low is None or high is None else f"{low:.3f}–{high:.3f}"


def _difference_text(test: Mapping | None) -> str | None:
    if test is None:
        return None
    return _fmt_delta(test["difference"]) + ("*" if test["significant"] else "")


def _intervals_of(intervals: pl.DataFrame, metric: str) -> dict[tuple[str, str, str], dict]:
    """(system, setting, slice) -> the eval_intervals row of `metric`."""
    return {(r["system"], r["setting"], r["slice"]): r for r in intervals.filter(pl.col("metric") == metric).to_dicts()}


def _with_statistics(table: ReportTable, intervals: pl.DataFrame, tests: pl.DataFrame | None) -> ReportTable:
    """Table 1 with "MRR 95% CI" and "ΔMRR vs <baseline>" columns after MRR, and the note saying
    how both were computed."""
    bounds = _intervals_of(intervals, "mrr")
    paired = {} if tests is None else {(r["system"], r["setting"], r["baseline"]): r
                                       for r in tests.filter(pl.col("metric") == "mrr").to_dicts()}
    baselines = [b for b in stats.BASELINES if any(key[2] == b for key in paired)]
    rows, used = [], []
    for row in table.rows:
        bound = bounds.get((row["system"], row["setting"], row.get("slice")))
        used += [bound] if bound else []
        versus = {f"vs {b}": _difference_text(paired.get((row["system"], row["setting"], b))) for b in baselines}
        rows.append({**row, "mrr_ci": _interval_text(bound and bound["lower"], bound and bound["upper"]), **versus})
    added = [Column("MRR 95% CI", "mrr_ci", "text", right=True),
             *(Column(f"ΔMRR vs {b}", f"vs {b}", "text", right=True) for b in baselines)]
    at = next(i for i, c in enumerate(table.columns) if c.key == "mrr") + 1
    columns = (*table.columns[:at], *added, *table.columns[at:])
    texts = sorted({r["texts"] for r in used}) or [0]
    over = f"{texts[0]}" if len(texts) == 1 else f"{texts[0]}–{texts[-1]}"
    note = (f"MRR 95% CI: a bootstrap over the {over} distinct question texts (one text is asked under many "
            "profiles, so texts, not instances, are resampled). ΔMRR: the system's MRR minus the baseline's on the "
            "same instances; * = significant at 0.05 by a paired randomization test over question texts, "
            "Holm-corrected per setting (wins / ties / losses in the paired tests table).")
    return ReportTable(columns, tuple(rows), (*table.notes, note), table.empty)


def table1_markdown(aggregates: pl.DataFrame) -> str:
    return table1(aggregates).markdown()


def generation_table(aggregates: pl.DataFrame) -> ReportTable:
    """The answer-quality metrics per setting and system (n and every ANSWER metric: ROUGE-L, token
    F1, keyword match, source match, GC), same order and footnotes as Table 1."""
    return _metric_table(aggregates, (N_COLUMN, *_spec(answer_quality_metrics())))


def generation_markdown(aggregates: pl.DataFrame) -> str:
    return generation_table(aggregates).markdown()


def table2(aggregates: pl.DataFrame) -> ReportTable:
    """The ablation table (deployment setting): full profill and its three ablations, MRR per
    embedder (one "MRR" column when the aggregates have no `embedder` column) and the change of
    each ablation vs full profill under the same embedder."""
    rows = [r for r in _aggregate_rows(aggregates) if r["setting"] == "deployment"
            and r["system"] in (REFERENCE_SYSTEM, *ABLATION_SYSTEMS)]
    if "embedder" in aggregates.columns:
        embedders = sorted({_embedder_name(r.get("embedder")) for r in rows}) or ["unspecified"]
        columns = [Column("system", "system", "text")]
        for embedder in embedders:
            columns += [Column(f"MRR ({embedder})", f"mrr {embedder}"),
                        Column(f"Δ vs profill ({embedder})", f"delta {embedder}", "text", right=True)]
    else:
        embedders = ["unspecified"]
        columns = [Column("system", "system", "text"), Column("MRR", "mrr unspecified"),
                   Column("Δ vs profill", "delta unspecified", "text", right=True)]
    mrr = {(r["system"], _embedder_name(r.get("embedder"))): number(r.get("mrr")) for r in rows}
    body = []
    for system in (REFERENCE_SYSTEM, *ABLATION_SYSTEMS):
        row: dict = {"system": system}
        for embedder in embedders:
            value, reference = mrr.get((system, embedder)), mrr.get((REFERENCE_SYSTEM, embedder))
            row[f"mrr {embedder}"] = value
            if system == REFERENCE_SYSTEM:
                row[f"delta {embedder}"] = "reference"
            else:
                row[f"delta {embedder}"] = _fmt_delta(None if value is None or reference is None else value - reference)
        body.append(row)
    return _with_footnotes(ReportTable(tuple(columns), tuple(body)), rows)


def table2_markdown(aggregates: pl.DataFrame) -> str:
    return table2(aggregates).markdown()


def _tiers_of(value: object) -> Mapping | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = json.loads(value)
    return value if isinstance(value, Mapping) else None


def tier_table(aggregates: pl.DataFrame) -> ReportTable:
    """URAG's answers per tier: the share of answers each tier gave and its accuracy (the mean
    source match of those answers; "–" for a tier that gave none), per setting and system that
    reports tiers."""
    body = []
    for row in _aggregate_rows(aggregates):
        tiers = _tiers_of(row.get("tiers"))
        if tiers is None:
            continue
        accuracy = tiers.get("accuracy") or {}
        for tier in TIERS:
            share = tiers.get(tier)
            if isinstance(share, Mapping):  # the {tier: {"share", "accuracy"}} shape
                share, tier_accuracy = share.get("share"), share.get("accuracy")
            else:
                tier_accuracy = accuracy.get(tier)
            body.append({"setting": row["setting"], "system": row["system"], "tier": tier, "share": share,
                         "accuracy": tier_accuracy})
    columns = (*text_columns("setting", "system", "tier"), Column("share of answers", "share"),
               Column("accuracy (source match)", "accuracy"))
    return _noted(ReportTable(columns, tuple(body), empty="No system reported answer tiers."),
                  f"{MISSING} = no answer came from this tier.")


def slice_table(slices: pl.DataFrame | None, intervals: pl.DataFrame | None = None) -> ReportTable:
    """Each benchmark slice's numbers per setting and system: n, MRR, S@1, S@10, R@10, source
    match, questions/q (on profile-independent questions, every question asked is a cost). With
    the run's `intervals`: the distinct question texts and MRR's 95% interval, and a slice of
    fewer than eval.metrics.stats.MIN_TEXTS texts shows no figures, only that it is too small."""
    columns = [*text_columns("setting", "system", "slice"), *metric_columns((N_COLUMN, *_spec(SLICE_METRICS)))]
    if slices is None or slices.is_empty():
        return ReportTable(tuple(columns), (), empty="No per-slice results (runs recorded before slices have none).")
    _require_frame(slices, "slices", ("system", "setting", "slice"))
    rows = sorted(slices.to_dicts(), key=lambda r: (*_row_order(r)[:2], _rank_in(SLICE_ORDER, r["slice"])))
    notes = [f"{MISSING} = not computed."]
    if intervals is not None and not intervals.is_empty():
        bounds, judged = _intervals_of(intervals, "mrr"), _intervals_of(intervals, stats.JUDGED)
        rows = [_slice_evidence({**row, "judged": judged.get(key, {}).get("value")}, bounds.get(key))
                for row in rows for key in [(row["system"], row["setting"], row["slice"])]]
        columns[4:4] = [Column("texts", "texts", "int"), Column("MRR 95% CI", "mrr_ci", "text", right=True)]
        columns += [Column(stats.JUDGED.capitalize(), "judged"), Column("evidence", "evidence", "text")]
        notes = [f"{MISSING} = not computed, or the slice has fewer than {stats.MIN_TEXTS} distinct question texts: "
                 "too small to be evidence of anything (its figures stay in eval_slice_aggregates).",
                 f"{stats.JUDGED.capitalize()}: the share of the top {stats.JUDGED_K} sources some instance of the "
                 "same question names as gold; the rest are unjudged, so a low share says the gold is incomplete "
                 "there."]
    table = ReportTable(tuple(columns), tuple(rows))
    return ReportTable(table.columns, table.rows, tuple(notes) if table.has_missing() else (), table.empty)


def _slice_evidence(row: Mapping, bound: Mapping | None) -> dict:
    if bound is None:
        return dict(row)
    if bound["too_small"]:
        figures = dict.fromkeys((*SLICE_METRICS, "judged"))
        return {**row, **figures, "texts": bound["texts"], "evidence": f"too small ({bound['texts']} texts)"}
    return {**row, "texts": bound["texts"], "mrr_ci": _interval_text(bound["lower"], bound["upper"])}


def tests_table(tests: pl.DataFrame | None) -> ReportTable:
    """Every paired test of the run: each system against each baseline per setting and metric, the
    difference, its p-value before and after Holm's correction, and wins / ties / losses over
    question texts."""
    columns = (*text_columns("setting", "metric", "system", "baseline"), Column("Δ", "difference"),
               Column("p", "p_value", decimals=4), Column("p (Holm)", "p_holm", decimals=4),
               Column("significant", "significant_text", "text"), Column("wins", "wins", "int"),
               Column("ties", "ties", "int"), Column("losses", "losses", "int"), Column("texts", "texts", "int"))
    if tests is None or tests.is_empty():
        return ReportTable(columns, (), empty="No paired tests (runs recorded before them have none).")
    rows = sorted(tests.to_dicts(), key=lambda r: (_row_order(r)[0], r["metric"], r["baseline"], _row_order(r)[1]))
    rows = [{**r, "significant_text": "yes" if r["significant"] else "no"} for r in rows]
    return ReportTable(columns, tuple(rows), (f"Two-sided paired randomization over question texts "
                                              f"({stats.PERMUTATIONS} sign flips); Holm over the comparisons of one "
                                              "setting and metric; significant: p (Holm) < 0.05.",))


# --- per-query breakdowns --------------------------------------------------------------------


def breakdown_table(per_query: pl.DataFrame, by: str) -> ReportTable:
    """MRR per `by` ("category" or "query_type") x system: a row per setting and value of `by`
    (sorted) with its number of queries n, one column per system, and an "all" row per setting."""
    cells = _breakdown_cells(per_query, by)
    label = by.replace("_", " ")
    systems = _ordered((s for data in cells.values() for s in data["systems"]), SYSTEM_ORDER)
    columns = (*text_columns("setting"), Column(label, "group", "text"), Column("n", "n", "int"),
               *(Column(system, f"mrr {system}") for system in systems))
    body = []
    for setting, data in cells.items():
        for group in data["groups"]:
            body.append({"setting": setting, "group": group, "n": data["group_n"][group],
                         **{f"mrr {s}": data["mrr"].get((s, group)) for s in systems}})
        body.append({"setting": setting, "group": "all", "n": max(data["n"].values()),
                     **{f"mrr {s}": data["all"].get(s) for s in systems}})
    return _noted(ReportTable(columns, tuple(body), empty="No per-query results."),
                  f"{MISSING} = no query of this {label} for this system.")


def breakdown_markdown(per_query: pl.DataFrame, by: str) -> str:
    return breakdown_table(per_query, by).markdown()


# --- intent routing --------------------------------------------------------------------------


def intent_table(intents: pl.DataFrame | None) -> ReportTable:
    """Per-intent precision / recall / F1 / support on the held-out split, and under it the number
    of examples, accuracy, macro F1 and the router evaluated."""
    columns = (Column("intent", "intent", "text"), Column("precision", "precision"), Column("recall", "recall"),
               Column("F1", "f1"), Column("support", "support", "int"))
    if intents is None or intents.is_empty():
        return ReportTable(columns, (), empty="No intent evaluation in this run.")
    first = intents.row(0, named=True)
    note = (f"{first['n']} held-out examples; accuracy {first['accuracy']:.3f}, macro F1 {first['macro_f1']:.3f} "
            f"(router {first['router']}).")
    return ReportTable(columns, tuple(intents.to_dicts()), (note,))


def confusion_table(predictions: pl.DataFrame | None) -> ReportTable:
    """Held-out examples per gold intent (rows) x predicted intent (columns)."""
    if predictions is None or predictions.is_empty():
        return ReportTable((Column("gold", "gold", "text"),), (), empty="No intent predictions in this run.")
    _require_frame(predictions, "predictions", ("intent", "predicted"))
    counts = predictions.group_by("intent", "predicted").len()
    golds = sorted(set(predictions["intent"].to_list()))
    predicted = sorted(set(predictions["predicted"].to_list()))
    found = {(r["intent"], r["predicted"]): r["len"] for r in counts.iter_rows(named=True)}
    columns = (Column("gold \\ predicted", "gold", "text"),
               *(Column(p, f"p {p}", "int") for p in predicted), Column("n", "n", "int"))
    body = [{"gold": g, **{f"p {p}": found.get((g, p), 0) for p in predicted},
             "n": sum(found.get((g, p), 0) for p in predicted)} for g in golds]
    return ReportTable(columns, tuple(body))


# --- all tables ------------------------------------------------------------------------------


def changes_table(comparison: pl.DataFrame | None, flipped: pl.DataFrame | None, previous: str | None) -> ReportTable:
    """What changed since the previous run (eval/store/ comparison_frame and flipped_frame, the
    lakehouse's compare_runs and flipped_questions): every figure that left the previous run's
    95% interval, and per system and setting how many questions turned their first source gold or
    stopped."""
    columns = (*text_columns("setting", "system", "slice", "metric"), Column("before", "before"),
               Column("before 95% CI", "before_ci", "text", right=True), Column("now", "after"),
               Column("change", "change_text", "text", right=True))
    if previous is None or comparison is None:
        return ReportTable(columns, (), empty=NO_CHANGES)
    moved = [r for r in comparison.to_dicts() if r["moved"] and not r["too_small"]]
    rows = sorted(({**r, "before_ci": _interval_text(r["before_lower"], r["before_upper"]),
                    "change_text": _fmt_delta(r["change"])} for r in moved),
                  key=lambda r: (*_row_order(r)[:2], _rank_in(SLICE_ORDER, r["slice"]), r["metric"]))
    notes = [f"Against run {previous}: the figures now outside that run's 95% interval (slices under "
             f"{stats.MIN_TEXTS} question texts left out)."]
    if flipped is not None and not flipped.is_empty():
        counts = flipped.group_by("setting", "system", "flip").len().sort("setting", "system", "flip").to_dicts()
        notes.append("Questions whose first source changed: " + "; ".join(
            f"{c['system']} ({c['setting']}) {c['len']} {c['flip']}" for c in counts) + ".")
    return ReportTable(columns, tuple(rows), tuple(notes),
                       empty="No figure left the previous run's 95% interval.\n\n" + "\n".join(notes))


def report_tables(aggregates: pl.DataFrame, per_query: pl.DataFrame, slices: pl.DataFrame | None = None,
                  intents: pl.DataFrame | None = None, predictions: pl.DataFrame | None = None, *,
                  intervals: pl.DataFrame | None = None, tests: pl.DataFrame | None = None) -> dict[str, ReportTable]:
    """Every table of the report, by a stable name, in the report's order."""
    main_rows, _ = main_slice_rows(per_query)
    return {
        "table1": table1(aggregates, intervals, tests),
        "paired_tests": tests_table(tests),
        "ablations": table2(aggregates),
        "answer_quality": generation_table(aggregates),
        "slices": slice_table(slices, intervals),
        "mrr_by_category": breakdown_table(main_rows, "category"),
        "mrr_by_query_type": breakdown_table(main_rows, "query_type"),
        "urag_tiers": tier_table(aggregates),
        "intent_routing": intent_table(intents),
        "intent_confusion": confusion_table(predictions),
    }


# --- charts ----------------------------------------------------------------------------------


def charts(aggregates: pl.DataFrame, per_query: pl.DataFrame, directory: Path | str,
           slices: pl.DataFrame | None = None) -> list[Path]:
    """Writes the report's PNGs (1200x700) into `directory` (created if needed) under the names
    in `CHART_FILES`, always all of them (a panel says so when it has no data), and returns
    their paths in that order: MRR and R@10 per system (bars per setting), MRR per category per
    system (deployment), MRR per query type per system, questions per query, and MRR and
    questions per query per slice (deployment). The breakdowns are over the main slice."""
    directory = Path(directory)
    key = _charts_key(aggregates, per_query, slices)
    stamp, drawn = directory / CHARTS_STAMP, [directory / name for name in CHART_FILES]
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == key and all(p.is_file() for p in drawn):
        return drawn  # the same inputs draw the same pictures: a no-change re-run keeps them
    from eval.reports.charts import draw_charts  # matplotlib only when charts are drawn

    paths = draw_charts(aggregates, per_query, directory, slices)
    stamp.write_text(key, encoding="utf-8")
    return paths


CHARTS_STAMP = ".charts-inputs"


def _charts_key(aggregates: pl.DataFrame, per_query: pl.DataFrame, slices: pl.DataFrame | None) -> str:
    """What the charts are drawn from, and the code that draws them, as one digest."""
    import hashlib

    digest = hashlib.sha256()
    for code in ("charts.py", "data.py"):  # read, not imported: no matplotlib for a key
        digest.update(Path(__file__).with_name(code).read_bytes())
    for frame in (aggregates, per_query, slices):
        if frame is None:
            digest.update(b"-")
            continue
        # the rows' content, not a serialization: IPC bytes of the same run's frames, read from
        # DuckDB twice in one process, gave two digests (so the charts were always redrawn)
        digest.update(repr(frame.schema).encode())
        digest.update(frame.hash_rows(seed=0).to_numpy().tobytes())
    return digest.hexdigest()


# --- the report ------------------------------------------------------------------------------


def table1_caption(aggregates: pl.DataFrame | Sequence[Mapping], gold_from: str | None) -> str:
    """The line printed under Table 1 wherever it appears (report, terminal, README): which
    instances its numbers are over, and where the gold came from (with the caveat)."""
    rows = aggregates.to_dicts() if isinstance(aggregates, pl.DataFrame) else list(aggregates)
    slices = sorted({str(r["slice"]) for r in rows if r.get("slice") is not None})
    if slices == [MAIN_SLICE]:
        over = f"Over the {MAIN_SLICE} slice of the benchmark (questions whose answer depends on who asks)."
    elif slices and slices != [UNSLICED]:
        over = f"Over the slices {', '.join(slices)}."
    else:
        over = "Over every instance of the benchmark."
    return f"{over} {gold_line(gold_from)}"



def _lineage_value(value: object) -> str:
    if value is None:
        return MISSING
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return str(value).replace("\n", " ")


def _lineage_pairs(lineage: Mapping) -> list[tuple[str, str]]:
    """(label, value) of every lineage field: the known ones in LINEAGE_FIELDS order, then the rest."""
    if not isinstance(lineage, Mapping):
        raise TypeError(f"lineage must be a dict, got {type(lineage).__name__}")
    values = {LINEAGE_ALIASES.get(str(k), str(k)): v for k, v in lineage.items()}
    known = [key for key, _ in LINEAGE_FIELDS]
    pairs = [(label, _lineage_value(values.get(key))) for key, label in LINEAGE_FIELDS]
    pairs += [(key.replace("_", " "), _lineage_value(values[key])) for key in sorted(values) if key not in known]
    return pairs


def _lineage_lines(lineage: Mapping) -> list[str]:
    return [f"- {label}: {value}" for label, value in _lineage_pairs(lineage)]


def _chart_key(per_query: pl.DataFrame) -> list[str]:
    """Lines naming the non-ASCII categories / query types the charts show as "<kind> k"."""
    lines = []
    # The category chart shows the deployment setting only; the query-type chart every setting.
    for by, kind, shown in (("category", "category", {"deployment"}), ("query_type", "query type", None)):
        for setting, data in _breakdown_cells(per_query, by).items():
            if shown is not None and setting not in shown:
                continue
            renamed = {label: name for name, label in _ascii_labels(data["groups"], kind).items() if label != name}
            if renamed:
                pairs = ", ".join(f"{label} = {name}" for label, name in renamed.items())
                lines.append(f"- {kind} ({setting}): {pairs}")
    return lines


def write_report(aggregates: pl.DataFrame, per_query: pl.DataFrame, directory: Path | str, title: str,
                 lineage: dict, *, slices: pl.DataFrame | None = None, intents: pl.DataFrame | None = None,
                 predictions: pl.DataFrame | None = None, label_gap: ReportTable | None = None,
                 intervals: pl.DataFrame | None = None, tests: pl.DataFrame | None = None,
                 benchmark: pl.DataFrame | None = None, chunks: Mapping[str, tuple[str, str]] | None = None,
                 changes: ReportTable | None = None, drilldown_setting: str = registry.DEPLOYMENT,
                 usage: UsageReport | None = None, study: str | None = None) -> dict:
    """Writes `report.md`, the charts and `report.html` into `directory` (created if needed) and
    returns {"markdown": Path, "html": Path, "body": str (report.md without its charts section,
    whose images are files), "charts": [Path], "captions": [str], "table1": str, "tables": {name:
    ReportTable}} for an asset's metadata. report.html (eval/reports/page.py) is the same report
    as one self-contained page, plus a drill-down per benchmark question in `drilldown_setting`,
    which needs the run's `benchmark` instances (eval.store.benchmark_frame) and, for the cited
    passages, `chunks` (chunk id -> (document URL, text)). `intervals` and `tests` (eval/store/
    intervals_frame, tests_frame) add the 95% intervals and the paired tests; `changes`: what
    changed since the previous run (changes_table; None: not compared). The Markdown has the
    title, where the gold came from
    (lineage["gold_from"], with the caveat for "annotations"), the lineage lines, Table 1, the
    ablations, answer quality, the slices, the breakdowns by category and query type, URAG's
    tiers, intent routing, "What students asked" (`usage`: eval/reports/usage.py's read of the coverage
    tables; None: the section says there is no usage data yet), and the charts linked by relative
    path. Same inputs, same bytes: no
    timestamps are added (put the run's time in `lineage` if it matters)."""
    if not isinstance(title, str) or not title.strip():
        raise ValueError("title must be a non-empty string")
    lineage_lines = _lineage_lines(lineage)
    gold = gold_line(lineage.get("gold_from"))
    tables = report_tables(aggregates, per_query, slices, intents, predictions, intervals=intervals, tests=tests)
    if label_gap is not None:
        tables["label_gap"] = label_gap
    main_rows, main = main_slice_rows(per_query)
    over = "every instance" if main == UNSLICED else f"the {main} slice"
    table1_text = tables["table1"].markdown()
    sections = [
        f"# {title.strip()}",
        gold,
        "\n".join(lineage_lines),
        f"## Table 1: retrieval and answers per setting and system ({over})\n\n"
        "S@k: a gold source within the top k sources; R@k: the share of the instance's gold sources within "
        "the top k (TREC recall); MRR over the first gold source.\n\n" + table1_text + "\n\n"
        + table1_caption(aggregates, lineage.get("gold_from")),
        "## Paired tests against the baselines\n\n" + tables["paired_tests"].markdown(),
        *(["## What changed since the previous run\n\n" + changes.markdown()] if changes is not None else []),
        "## Table 2: ablations (deployment)\n\n" + tables["ablations"].markdown(),
        "## Answer quality\n\n" + tables["answer_quality"].markdown(),
        "## Benchmark slices\n\n" + tables["slices"].markdown(),
        f"## MRR by category ({over})\n\n" + tables["mrr_by_category"].markdown(),
        f"## MRR by query type ({over})\n\n" + tables["mrr_by_query_type"].markdown(),
        "## URAG answer tiers\n\n" + tables["urag_tiers"].markdown(),
    ]
    if label_gap is not None:
        sections.append("## Annotation error and retrieval error (proFILL against profill-true-labels)\n\n"
                        "MRR points of proFILL's gap to the same system with the true labels, per attribute whose "
                        "annotation hid a gold source or admitted a source above it; beside it, the annotator's "
                        "accuracy on that attribute.\n\n" + label_gap.markdown())
    if intents is not None and not intents.is_empty():
        sections.append("## Intent routing (held-out split)\n\n" + tables["intent_routing"].markdown())
        if predictions is not None and not predictions.is_empty():
            sections.append("### Intent confusion (held-out split)\n\n" + tables["intent_confusion"].markdown())
    directory = Path(directory)
    if usage is not None:
        from dataclasses import replace

        from eval.reports.charts import usage_shares_chart

        usage = replace(usage, chart=usage_shares_chart(usage.days, directory / USAGE_CHART_FILE))
    sections.append(usage_markdown(usage))
    chart_paths = charts(aggregates, per_query, directory, slices)
    chart_lines = [f"![{caption}]({path.name})" for caption, path in zip(CHART_CAPTIONS, chart_paths)]
    key = _chart_key(main_rows)
    if key:
        chart_lines.append("Chart labels:\n\n" + "\n".join(key))
    body = "\n\n".join(sections) + "\n"
    markdown_path = directory / "report.md"
    markdown_path.write_text(body + "\n## Charts\n\n" + "\n\n".join(chart_lines) + "\n", encoding="utf-8")
    page = HtmlReport(title=title.strip(), gold=gold, lineage=_lineage_pairs(lineage), tables=tables, over=over,
                      table1_caption=table1_caption(aggregates, lineage.get("gold_from")),
                      charts=list(zip(chart_paths, CHART_CAPTIONS)), chart_key=[line[2:] for line in key],
                      changes=changes, caveat=gold_note(lineage.get("gold_from")) is not None,
                      drilldown=drilldown_data(per_query, benchmark, chunks, drilldown_setting), usage=usage,
                      study=study)
    html_path = directory / "report.html"
    html_path.write_text(render_html(page), encoding="utf-8")
    return {"markdown": markdown_path, "html": html_path, "body": body, "charts": chart_paths,
            "captions": list(CHART_CAPTIONS), "table1": table1_text, "tables": tables}
