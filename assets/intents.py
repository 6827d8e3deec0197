"""Dialogue stage: the intent-routing dataset (seeds, FAQ questions and their rewrites, questions
written from the documents), rebuilt in the lakehouse when its code or inputs change."""

from collections import Counter

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue

from advisor.intents import dataset as intent_dataset_module
from advisor.intents import seeds
from advisor.versioning import code_version
from assets.annotation import chunks
from assets.ingestion import documents
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, WarehouseResource
from assets.stage import begin, stage_asset

GROUP = "dialogue"
INTENT_DATASET_CODE = code_version(intent_dataset_module, seeds)


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=INTENT_DATASET_CODE, deps=[chunks, documents])
def intent_dataset(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource
) -> MaterializeResult:
    """The intent-routing dataset (greeting, ability, faq, smalltalk, retrieval): hand-written seeds varied by rule,
    the FAQ's questions and rewrites, and questions written from document titles, headings and keywords; a stable
    test split held apart by source. Replaced only when code or inputs change."""
    config, started = begin(context, institution, "building the intent-routing dataset")
    with warehouse.connect() as con:
        outcome = intent_dataset_module.refresh_intent_examples(con, config, context.run_id)
        examples = outcome.examples
        per_origin = Counter(e.origin for e in examples)
        metadata = {
            "dagster/row_count": len(examples),
            "dataset_version": outcome.version,
            "rewritten": outcome.written,
            **{f"examples_{key}": n for key, n in intent_dataset_module.counts(examples).items()},
            **{f"origin_{origin}": n for origin, n in sorted(per_origin.items())},
        }
        record_lineage(context, con, config, asset="intent_dataset", started_at=started,
                       code_version=INTENT_DATASET_CODE, row_count=len(examples),
                       counts={"rows_added": len(examples) if outcome.written else 0,
                               "rows_unchanged": 0 if outcome.written else len(examples)},
                       metadata=metadata)
    return MaterializeResult(metadata={**metadata, "per_intent": MetadataValue.md(_markdown(examples))})


def _markdown(examples) -> str:
    tally = Counter((e.intent, e.split) for e in examples)
    intents = sorted({e.intent for e in examples})
    lines = ["| intent | train | test |", "|---|---|---|"]
    lines += [f"| {i} | {tally[(i, 'train')]} | {tally[(i, 'test')]} |" for i in intents]
    return "\n".join(lines)
