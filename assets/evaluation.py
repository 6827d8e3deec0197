"""Evaluation stage: the offline systems on the synthesized benchmark plus the intent router on the
held-out split, recorded in the lakehouse (eval/store/), and the report (tables + charts) of
that run under <warehouse>/reports/<run_id>/.

The evaluation itself is eval/entry.py's, shared with `advisor eval`: a run is reused, not
repeated, when everything that decides its results is unchanged (index build, benchmark bytes,
evaluation code, config, systems, settings, LLM): re-materializing after an unrelated change costs
a lookup, not minutes of retrieval.
"""

import hashlib
from datetime import datetime
from pathlib import Path

from dagster import AssetExecutionContext, Config, Failure, MaterializeResult, MetadataValue

from advisor.index.layout import benchmark_path
from advisor.lakehouse import scalar
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from assets.stage import begin, stage_asset
from assets.study import preference_study
from assets.usage import coverage
from eval import store as eval_store
from eval.store import aggregates_frame, evaluation_code_version, intent_frame
from eval.systems import registry

GROUP = "evaluation"
# No LLM needed: what the pipeline evaluates by default (LLM systems and judges cost money per run).
OFFLINE_SYSTEMS = registry.OFFLINE
SETTINGS = registry.SETTINGS
EVALUATION_CODE = evaluation_code_version()
# The report is a rendering of stored rows: its version is the renderer's and this module's source.
_ROOT = Path(__file__).resolve().parent.parent
REPORT_CODE = hashlib.sha256(b"".join(
    (_ROOT / name).read_bytes() for name in (
        "eval/reports/report.py", "eval/reports/data.py", "eval/reports/table.py", "eval/reports/charts.py",
        "eval/reports/page.py", "eval/reports/run_report.py", "eval/benchmark/provenance.py",
        "eval/reports/label_gap.py", "assets/report_metadata.py", "assets/evaluation.py"))).hexdigest()[:12]


class EvaluationConfig(Config):
    systems: list[str] = list(OFFLINE_SYSTEMS)
    settings: list[str] = list(SETTINGS)
    use_llm: bool = False  # also run the LLM systems and judges with the configured endpoint


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=EVALUATION_CODE, deps=["qa_benchmark", "index_build"])
def evaluation(context: AssetExecutionContext, config: EvaluationConfig, institution: InstitutionResource,
               warehouse: WarehouseResource, llm: LLMResource) -> MaterializeResult:
    """The paper's evaluation on the synthesized benchmark: every system x setting x instance in eval_query_results,
    aggregates in eval_aggregates, the intent router on the held-out split in intent_eval, all carrying the build,
    annotator, embedder, code and config lineage. Reused when nothing that decides the results changed."""
    institution_config, started = begin(context, institution)
    benchmark = benchmark_path(warehouse.root)  # written by the qa_benchmark asset
    if not benchmark.is_file():
        raise Failure(f"no benchmark at {benchmark}: materialize qa_benchmark first")
    if not benchmark.read_text(encoding="utf-8").strip():
        # an institution whose documents state no profile-dependent facts: nothing to evaluate on
        # (outside benchmarks still run through `advisor eval --benchmark`); not a failure
        reason = "the synthesized benchmark has no instances (no profile-dependent facts in the corpus)"
        context.log.warning(reason)
        with warehouse.connect() as con:
            record_lineage(context, con, institution_config, asset="evaluation", started_at=started,
                           code_version=EVALUATION_CODE, row_count=0,
                           counts={}, metadata={"skipped": reason})
        return MaterializeResult(metadata={"skipped": reason})
    systems = _checked(config.systems, registry.NAMES, "systems")
    settings = _checked(config.settings, registry.SETTINGS, "settings")
    llm_settings = None
    if config.use_llm:
        if not llm.configured():
            raise Failure("use_llm is set but no LLM is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                          "local server), or leave use_llm off")
        llm_settings = llm.settings()

    from eval.entry import EvaluationError, evaluate

    try:
        result = evaluate(institution_config, warehouse.root, benchmark, systems, settings, connect=warehouse.connect,
                          llm_settings=llm_settings, dagster_run_id=context.run_id, say=context.log.info)
    except EvaluationError as exc:
        raise Failure(str(exc)) from None
    with warehouse.connect() as con:
        return _result(context, con, institution_config, result.run_id, started, reused=result.reused)


def _checked(names: list[str], allowed, what: str) -> tuple[str, ...]:
    try:
        return registry.checked_names(names, allowed, "name")
    except ValueError as exc:
        raise Failure(f"evaluation config {what}: {exc}") from None


def _result(context, con, institution_config, run_id: str, started: datetime, *, reused: bool) -> MaterializeResult:
    """Lineage row + metadata of the run the asset now stands for (a new one or a reused one)."""
    from assets.report_metadata import table_value
    from eval.benchmark.provenance import gold_note
    from eval.reports.report import table1

    run = eval_store.run_info(con, run_id)
    aggregates = aggregates_frame(con, run_id)
    intents = intent_frame(con, run_id)
    rows = scalar(con, "SELECT count(*) FROM eval_query_results WHERE run_id = ?", [run_id])
    metadata = {
        "eval_run_id": run_id,
        "reused": reused,
        "build_id": run["build_id"],
        "benchmark_hash": run["benchmark_hash"],
        "instances": run["instances"],
        "systems": len(run["systems"]),
        "per_query_rows": rows,
        "intent_macro_f1": intents["macro_f1"][0] if intents.height else None,
        "gold_from": run.get("gold_from") or "unknown",
        **({"gold_note": note} if (note := gold_note(run.get("gold_from"))) else {}),
    }
    record_lineage(context, con, institution_config, asset="evaluation", started_at=started,
                   code_version=EVALUATION_CODE, row_count=rows,
                   counts={"rows_added": 0 if reused else rows, "rows_unchanged": rows if reused else 0},
                   metadata=metadata)
    table = table1(aggregates, eval_store.intervals_frame(con, run_id), eval_store.tests_frame(con, run_id))
    return MaterializeResult(metadata={**metadata, "table1": table_value(table),
                                       "table1_markdown": MetadataValue.md(table.markdown())})


# after `coverage` and `preference_study` too: the report's "What students asked" and "Preference
# study" sections read their tables (eval/reports/usage.py, eval/study.py)
@stage_asset(GROUP, kinds={"python"}, code_version=REPORT_CODE, deps=[evaluation, coverage, preference_study])
def evaluation_report(context: AssetExecutionContext, institution: InstitutionResource,
                      warehouse: WarehouseResource) -> MaterializeResult:
    """The report of the latest evaluation run as one self-contained page, `report.html` (Table 1, the ablations,
    answer quality, the benchmark slices, MRR by category and query type, URAG's answer tiers, intent routing, the
    charts and every question's results per system), beside report.md and the PNG charts under
    `<warehouse>/reports/<run_id>/`. This page links it (`report_html`, `report_link`) and shows Table 1."""
    from eval.benchmark.provenance import gold_note
    from eval.reports.report import table1_caption
    from eval.reports.run_report import write_run_report

    institution_config, started = begin(context, institution)
    with warehouse.connect() as con:
        # The run the evaluation asset last stood for (a reused run is not the newest in eval_runs).
        run_id = scalar(con, "SELECT json_extract_string(metadata, '$.eval_run_id') FROM materializations "
                             "WHERE asset = 'evaluation' ORDER BY finished_at DESC LIMIT 1")
        if run_id is None:
            skipped = scalar(con, "SELECT json_extract_string(metadata, '$.skipped') FROM materializations "
                                  "WHERE asset = 'evaluation' ORDER BY finished_at DESC LIMIT 1")
            if skipped is None:
                raise Failure("no evaluation has been materialized yet: materialize evaluation first")
            return MaterializeResult(metadata={"skipped": f"no evaluation run to report: {skipped}"})
        written = write_run_report(con, warehouse.root, run_id, title=f"Evaluation of {institution_config.institution}",
                                   profile_attributes=list(institution_config.profile))
        run, intents = written["run"], intent_frame(con, run_id)
        # the intent table's footnote, as numbers the UI can also plot across runs
        intent_scores = {} if not intents.height else {
            "intent_accuracy": float(intents["accuracy"][0]), "intent_macro_f1": float(intents["macro_f1"][0]),
            "intent_examples": int(intents["n"][0])}
        metadata = {"eval_run_id": run_id, "report_html": str(written["html"]), "report_path": str(written["markdown"]),
                    "charts": [str(p) for p in written["charts"]], "gold_from": run.get("gold_from") or "unknown"}
        record_lineage(context, con, institution_config, asset="evaluation_report", started_at=started,
                       code_version=REPORT_CODE, row_count=len(written["charts"]) + 2,
                       counts={}, metadata=metadata)
        caption = table1_caption(aggregates_frame(con, run_id), run.get("gold_from"))
    # The page people read is report.html: the UI's metadata column squeezes tables and clips pictures, so this
    # page only links it, with Table 1 as Markdown (its [Show Markdown] dialog is as wide as the table).
    note = gold_note(run.get("gold_from"))
    return MaterializeResult(metadata={
        "eval_run_id": run_id,
        "report_html": MetadataValue.path(str(written["html"])),
        "report_link": MetadataValue.url(written["html"].resolve().as_uri()),
        "gold_from": run.get("gold_from") or "unknown",
        **({"gold_note": note} if note else {}),
        **intent_scores,
        "table1": MetadataValue.md(f"{written['table1']}\n\n{caption}"),
        "report_path": MetadataValue.path(str(written["markdown"])),
    })


def intent_markdown(intents) -> str:
    """Per-intent precision / recall / F1 / support, then accuracy and macro F1 of the run."""
    from eval.reports.report import intent_table

    return intent_table(intents).markdown()
