"""Evaluation stage: the dialogue benchmark (eval/dialogue/) on the latest index build: messages
of every intent in many registers, FAQ paraphrases, profile-independent and out-of-scope
questions, each sent once through the offline engine; results and metrics in the lakehouse
(`dialogue_bench_results`, `dialogue_bench_metrics`). An unchanged build, config and code reuse
the recorded run."""

from dagster import (AssetExecutionContext, MaterializeResult, MetadataValue, TableColumn, TableRecord,
                     TableSchema)

from advisor.index.layout import builds_dir
from assets.indexing import index_build
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, WarehouseResource
from assets.stage import begin, stage_asset
from eval.dialogue import metrics as dialogue_metrics
from eval.dialogue.record import GOLD_FROM, dialogue_code_version, run_benchmark
from serving.dialogue.engine import open_advisor

GROUP = "evaluation"
DIALOGUE_CODE = dialogue_code_version()


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=DIALOGUE_CODE, deps=[index_build])
def dialogue_benchmark(context: AssetExecutionContext, institution: InstitutionResource,
                       warehouse: WarehouseResource) -> MaterializeResult:
    """The dialogue benchmark: greeting, ability, smalltalk, FAQ-paraphrase, document, profile-independent and
    out-of-scope messages in seven registers, generated from the latest build and sent once each through the offline
    engine ("don't know" to every profile question); per-intent routing P/R/F1, FAQ right entry and verbatim share,
    questions asked on profile-independent messages, false answers on out-of-scope questions. Gold: the generator's
    templates and the FAQ store's entries."""
    config, started = begin(context, institution, "running the dialogue benchmark on the latest build")
    # offline on purpose: the baseline of the rule router and FAQ tier, the same on every machine
    advisor = open_advisor(builds_dir(warehouse.root), config)
    with warehouse.connect() as con:
        outcome = run_benchmark(con, advisor, config, context.run_id)
        headline = dialogue_metrics.headline(outcome.metrics)
        metadata = {
            "dagster/row_count": outcome.messages, "build_id": outcome.build_id, "run_id": outcome.run_id,
            "reused": outcome.reused, "gold_from": GOLD_FROM,
            **{name: value for name, value in headline.items() if value is not None},
        }
        record_lineage(context, con, config, asset="dialogue_benchmark", started_at=started,
                       code_version=DIALOGUE_CODE, row_count=outcome.messages,
                       counts={"rows_added": 0 if outcome.reused else outcome.messages,
                               "rows_unchanged": outcome.messages if outcome.reused else 0},
                       metadata=metadata)
    table = MetadataValue.table(records=[_record(m) for m in outcome.metrics], schema=_SCHEMA)
    return MaterializeResult(metadata={**metadata, "metrics": table,
                                       "metrics_md": MetadataValue.md(dialogue_metrics.markdown(outcome.metrics))})


_SCHEMA = TableSchema(columns=[TableColumn("metric", "string"), TableColumn("scope", "string"),
                               TableColumn("value", "float"), TableColumn("n", "int")])


def _record(metric: dict) -> TableRecord:
    value = metric["value"]
    return TableRecord({"metric": metric["metric"], "scope": metric["scope"],
                        "value": None if value is None else round(value, 4), "n": metric["n"]})
