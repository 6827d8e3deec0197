"""Evaluation stage: the dialogue benchmark (eval/dialogue/) on the latest index build: messages
of every intent in many registers, FAQ paraphrases, profile-independent and out-of-scope
questions, each sent once through the offline engine; results and metrics in the lakehouse
(`dialogue_bench_results`, `dialogue_bench_metrics`). An unchanged build, config and code reuse
the recorded run. With `use_llm` (and an LLM configured) the LLM also writes messages and judges
every answer; without, the judge's columns are NULL and its metric rows say why."""

from dagster import (
    AssetExecutionContext,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
)

from advisor.index.layout import builds_dir, latest_build_dir
from advisor.index.store import load_build
from assets.indexing import index_build
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from assets.stage import begin, stage_asset
from eval.dialogue import metrics as dialogue_metrics
from eval.dialogue.record import GOLD_FROM, GOLD_FROM_LLM, dialogue_code_version, run_benchmark
from serving.dialogue.engine import open_advisor

GROUP = "evaluation"
DIALOGUE_CODE = dialogue_code_version()


NO_LLM_OFF = "use_llm is off: the templates wrote every message and nothing was judged"


class DialogueBenchmarkConfig(Config):
    # also let the configured LLM write messages and judge the answers (off by default, as the
    # evaluation asset's use_llm: the offline baseline stays the same on every machine)
    use_llm: bool = False


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=DIALOGUE_CODE, deps=[index_build])
def dialogue_benchmark(context: AssetExecutionContext, config: DialogueBenchmarkConfig,
                       institution: InstitutionResource, warehouse: WarehouseResource,
                       llm: LLMResource) -> MaterializeResult:
    """The dialogue benchmark: greeting, ability, smalltalk, FAQ-paraphrase, document, profile-independent and
    out-of-scope messages in seven registers, generated from the latest build and sent once each through the offline
    engine ("don't know" to every profile question); per-intent routing P/R/F1, FAQ right entry and verbatim share,
    questions asked on profile-independent messages, false answers on out-of-scope questions. Gold: the generator's
    templates and the FAQ store's entries. With use_llm: also LLM-written messages (gold: the category and entry
    asked for) and an LLM judge's verdict on every final answer."""
    institution_config, started = begin(context, institution, "running the dialogue benchmark on the latest build")
    if config.use_llm and not llm.configured():
        raise Failure("use_llm is set but no LLM is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a "
                      "local server), or leave use_llm off")
    # the engine itself runs offline on purpose: the baseline of the rule router and FAQ tier; the
    # LLM, when asked for, only writes messages and judges answers
    builds = builds_dir(warehouse.root)
    latest = latest_build_dir(builds)
    if latest is None:
        raise Failure(f"no index build published under {builds}: materialize index_build first")
    build = load_build(latest)
    client = llm.client() if config.use_llm else None
    try:
        with warehouse.connect() as con:
            # the engine (Kiwi: seconds) is opened only when the recorded run cannot be reused
            outcome = run_benchmark(con, lambda: open_advisor(builds, institution_config), institution_config,
                                    context.run_id, llm_client=client, llm_missing=NO_LLM_OFF, build=build)
            headline = dialogue_metrics.headline(outcome.metrics)
            metadata = {
                "dagster/row_count": outcome.messages, "build_id": outcome.build_id, "run_id": outcome.run_id,
                "reused": outcome.reused, "gold_from": GOLD_FROM_LLM if client else GOLD_FROM,
                **{name: value for name, value in headline.items() if value is not None},
            }
            record_lineage(context, con, institution_config, asset="dialogue_benchmark", started_at=started,
                           code_version=DIALOGUE_CODE, row_count=outcome.messages,
                           counts={"rows_added": 0 if outcome.reused else outcome.messages,
                                   "rows_unchanged": outcome.messages if outcome.reused else 0},
                           metadata={**metadata, **({"llm": outcome.llm_report} if outcome.llm_report else {})})
    finally:
        if client is not None:
            client.close()
    table = MetadataValue.table(records=[_record(m) for m in outcome.metrics], schema=_SCHEMA)
    if outcome.llm_report:
        metadata["llm"] = MetadataValue.json(outcome.llm_report)
    return MaterializeResult(metadata={**metadata, "metrics": table,
                                       "metrics_md": MetadataValue.md(dialogue_metrics.markdown(outcome.metrics))})


_SCHEMA = TableSchema(columns=[TableColumn("metric", "string"), TableColumn("scope", "string"),
                               TableColumn("value", "float"), TableColumn("n", "int"),
                               TableColumn("missing", "string")])


def _record(metric: dict) -> TableRecord:
    value = metric["value"]
    return TableRecord({"metric": metric["metric"], "scope": metric["scope"],
                        "value": None if value is None else round(value, 4), "n": metric["n"],
                        "missing": metric.get("missing")})
