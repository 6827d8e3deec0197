"""Annotation stage: chunks (with the Kiwi token cache), their profile annotations, the
annotators' accuracy against ground truth, and URAG-D augmented chunk texts."""

from collections import Counter
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue

from advisor import progress
from advisor.annotation import accuracy
from advisor.annotation import stage as annotation_stage
from advisor.annotation.model import ChunkAnnotation, needs_of
from advisor.annotation.rules import RulesAnnotator
from advisor.chunking import augment
from advisor.chunking import stage as chunking
from advisor.config import CategoricalAttribute, InstitutionConfig
from advisor.lakehouse import history, insert_rows, scalar
from advisor.quality import expectations_module, validate
from advisor.versioning import code_version
from assets.ingestion import documents
from assets.lineage import check_result, failures_markdown, history_check, record_lineage, versions_metadata
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from assets.stage import HISTORY, Check, begin, stage_asset

GROUP = "annotation"
CHUNK_CODE = code_version(chunking, augment)
ANNOTATION_CODE = code_version(annotation_stage)


@stage_asset(
    GROUP, kinds={"duckdb", "python"}, code_version=CHUNK_CODE, deps=[documents],
    checks=[
        Check("chunk_ids_unique_not_null", "Every chunk has an id and no two chunks share one (GX).", blocking=True),
        Check("chunks_within_size_limit", "No chunk is empty or longer than the configured limit (GX).", blocking=True),
        Check("every_document_has_chunks", "Every active document produced at least one chunk (GX).", blocking=True),
        HISTORY,
    ],
)
def chunks(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource
) -> MaterializeResult:
    """Self-contained chunks of at most 800 characters (paragraphs, then Kiwi sentences), prefixed with topic,
    subtopic, title and keywords; Kiwi content morphemes cached per text."""
    config, started = begin(context, institution, "chunking changed documents")
    with warehouse.connect() as con:
        report = chunking.build_chunks(config, con, context.run_id)
        frame = con.sql("SELECT chunk_id, length(text) AS chars, kind FROM chunks").pl()
        per_document = con.sql(
            """SELECT d.doc_id, count(c.chunk_id) AS n_chunks FROM documents d LEFT JOIN chunks c USING (doc_id)
               WHERE d.status = 'active' GROUP BY d.doc_id""").pl()
        gxe = expectations_module()
        ids = validate("chunks", frame, [gxe.ExpectColumnValuesToNotBeNull(column="chunk_id"),
                                         gxe.ExpectColumnValuesToBeUnique(column="chunk_id")])
        sizes = validate("chunk_sizes", frame, [gxe.ExpectColumnValuesToBeBetween(
            column="chars", min_value=1, max_value=config.pipeline.chunk_max_chars)])
        coverage = validate("chunk_coverage", per_document, [gxe.ExpectColumnValuesToBeBetween(column="n_chunks", min_value=1)])
        metadata = {
            "dagster/row_count": frame.height,
            "documents_chunked": report.documents_chunked,
            "documents_unchanged": report.documents_unchanged,
            "documents_dropped": report.documents_dropped,
            "chunks_added": report.chunks_added,
            "chunks_removed": report.chunks_removed,
            "tokens_computed": report.tokens_computed,
            "tokens_from_cache": report.tokens_cached,
            "mean_chars": round(float(frame["chars"].mean() or 0), 1),
            "max_chars": int(frame["chars"].max() or 0),
            **{f"chunks_{kind}": n for kind, n in sorted(frame["kind"].value_counts().iter_rows())},
            **versions_metadata(report.versions, history.CHUNKS, con),
        }
        in_history = history_check(con, history.CHUNKS)
        record_lineage(context, con, config, asset="chunks", started_at=started, code_version=CHUNK_CODE,
                       row_count=frame.height,
                       counts={"rows_added": report.chunks_added, "rows_removed": report.chunks_removed,
                               "rows_unchanged": frame.height - report.chunks_added},
                       metadata=metadata)
    return MaterializeResult(metadata=metadata, check_results=[
        check_result("chunk_ids_unique_not_null", ids),
        check_result("chunks_within_size_limit", sizes),
        check_result("every_document_has_chunks", coverage),
        in_history,
    ])


def active_annotator_name(config: InstitutionConfig, llm: LLMResource) -> str:
    """The annotator whose annotations the index build uses."""
    return "llm" if llm.wanted(config.pipeline.annotator, "annotator") else "rules"


def annotators_for(config: InstitutionConfig, llm: LLMResource, con, stack: ExitStack) -> list:
    """The rules annotator always runs (it is cheap, and a baseline to compare with); the LLM
    annotator too when chosen, or when `auto` and an LLM is configured. The last is active."""
    result = [RulesAnnotator(config)]
    if active_annotator_name(config, llm) == "llm":
        from advisor.annotation.llm_annotator import LLMAnnotator

        result.append(LLMAnnotator(config, stack.enter_context(llm.client()), con))
    return result


def _schema_expectations(config: InstitutionConfig, con) -> list:
    """GX expectations that every annotation value lies inside the institution's schema."""
    gxe = expectations_module()
    rows = con.sql("SELECT attribute, value_set, range_min, range_max FROM chunk_annotations").pl()
    outcomes = validate("annotation_attributes", rows, [
        gxe.ExpectColumnValuesToBeInSet(column="attribute", value_set=sorted(config.profile))])
    for name, attribute in config.profile.items():
        mine = rows.filter(pl.col("attribute") == name)
        if isinstance(attribute, CategoricalAttribute):
            values = mine.select(pl.col("value_set").explode().alias("value")).drop_nulls()
            outcomes += validate(f"annotation_{name}", values, [
                gxe.ExpectColumnValuesToBeInSet(column="value", value_set=sorted(attribute.values))])
        else:
            outcomes += validate(f"annotation_{name}", mine, [
                gxe.ExpectColumnValuesToBeBetween(column="range_min", min_value=attribute.min, max_value=attribute.max),
                gxe.ExpectColumnValuesToBeBetween(column="range_max", min_value=attribute.min, max_value=attribute.max),
                gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="range_max", column_B="range_min", or_equal=True,
                                                            ignore_row_if="either_value_is_missing"),
            ])
    return outcomes


@stage_asset(
    GROUP, kinds={"duckdb", "python", "openai"}, code_version=ANNOTATION_CODE, deps=[chunks],
    checks=[
        Check("annotation_values_in_schema",
              "Every annotated value is a canonical value / inside the attribute's range (GX).", blocking=True),
        Check("every_chunk_annotated", "Every chunk has an annotation from the active annotator."),
        HISTORY,
    ],
)
def chunk_annotations(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource, llm: LLMResource
) -> MaterializeResult:
    """For every chunk and profile attribute: null (not limiting), canonical values, or an inclusive range; and which
    attributes a reader must know. Rules offline; the LLM when configured."""
    config, started = begin(context, institution)
    metadata, failures, versions = {}, [], Counter()
    with warehouse.connect() as con, ExitStack() as stack:
        annotators = annotators_for(config, llm, con, stack)
        for annotator in annotators:
            progress.report("chunk_annotations", f"annotating with {annotator.name}")
            report = annotation_stage.annotate_chunks(config, con, annotator, context.run_id)
            failures += report.failures
            versions += report.versions
            metadata.update({
                f"{annotator.name}_annotated": report.annotated,
                f"{annotator.name}_unchanged": report.unchanged,
                f"{annotator.name}_failures": len(report.failures),
                f"{annotator.name}_restricted": MetadataValue.json(report.restricted),
            })
            if hasattr(annotator, "record_usage"):  # LLM calls, cache hits, tokens, cost -> llm_usage
                annotator.record_usage(context.run_id, "chunk_annotations")
                metadata[f"{annotator.name}_usage"] = MetadataValue.json(annotator.usage_summary())
        insert_rows(con, "ingest_failures", failures)
        active = annotators[-1]
        total = scalar(con, "SELECT count(*) FROM chunk_annotations")
        missing = scalar(con,
            "SELECT count(*) FROM chunks WHERE chunk_id NOT IN (SELECT chunk_id FROM chunk_annotations WHERE annotator = ?)",
            [active.name])
        in_schema = _schema_expectations(config, con)
        metadata.update({"dagster/row_count": total, "active_annotator": active.name,
                         "active_annotator_version": active.version, "chunks_without_annotation": missing,
                         **versions_metadata(versions, history.ANNOTATIONS, con)})
        in_history = history_check(con, history.ANNOTATIONS)
        record_lineage(context, con, config, asset="chunk_annotations", started_at=started,
                       code_version=ANNOTATION_CODE, row_count=total,
                       counts={"failures": len(failures)}, metadata={k: v for k, v in metadata.items()
                                                                     if not isinstance(v, MetadataValue)})
    return MaterializeResult(
        metadata={**metadata, "failure_details": failures_markdown(failures)},
        check_results=[
            check_result("annotation_values_in_schema", in_schema),
            check_result("every_chunk_annotated", []) if not missing else _missing_check(missing),
            in_history,
        ],
    )


def _missing_check(missing: int):
    from dagster import AssetCheckResult, AssetCheckSeverity

    return AssetCheckResult(check_name="every_chunk_annotated", passed=False, severity=AssetCheckSeverity.WARN,
                            metadata={"chunks_without_annotation": missing})


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=code_version(accuracy), deps=[chunk_annotations])
def annotation_accuracy(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource
) -> MaterializeResult:
    """Per annotator and attribute: precision, recall and exact match of the annotations against a ground-truth
    manifest (the demo college writes one; other institutions may supply one)."""
    config, started = begin(context, institution)
    truth_file = config.pipeline.annotation_truth
    if truth_file is None:
        return MaterializeResult(metadata={"skipped": "no pipeline.annotation_truth in the config"})
    path = Path(truth_file) if Path(truth_file).is_absolute() else warehouse.root / truth_file
    if not path.exists():
        return MaterializeResult(metadata={"skipped": f"ground truth file {path} not found"})
    manifest = accuracy.load_manifest(path)
    with warehouse.connect() as con:
        contexts = annotation_stage.chunk_contexts(con)
        rows, table, errors = [], {}, {}
        for annotator, version in con.execute(
                "SELECT DISTINCT annotator, annotator_version FROM chunk_annotations ORDER BY annotator").fetchall():
            stored = annotation_stage.load_annotations(con, annotator, config)
            scored = [c for c in contexts if c.chunk_id in stored]
            annotations = [ChunkAnnotation(stored[c.chunk_id], needs_of(stored[c.chunk_id])) for c in scored]
            result = accuracy.evaluate(scored, annotations, manifest, config, base_url=_base_url(config))
            errors[annotator] = {"error_classes": result["error_classes"], "worst_errors": result["worst_errors"][:10]}
            for attribute in result["attributes"]:
                rows.append({"run_id": context.run_id, "annotator": annotator, "annotator_version": version,
                             "truth_file": str(path), "measured_at": datetime.now(timezone.utc), **attribute})
                table[f"{annotator}/{attribute['attribute']}"] = attribute
        insert_rows(con, "annotation_accuracy", rows)
        metadata = {
            "dagster/row_count": len(rows),
            **{f"exact_match/{key}": round(r["exact_match"], 4) for key, r in table.items()},
        }
        record_lineage(context, con, config, asset="annotation_accuracy", started_at=started,
                       code_version=code_version(accuracy), row_count=len(rows),
                       counts={}, metadata=metadata)
    return MaterializeResult(metadata={**metadata, "accuracy": MetadataValue.md(_accuracy_markdown(table)),
                                       "errors": MetadataValue.json(errors)})


def _base_url(config: InstitutionConfig) -> str:
    """The site root the manifest's paths are relative to: the first seed's scheme and host."""
    return accuracy.base_url_of(config.sources[0].seeds[0])


def _accuracy_markdown(table: dict) -> str:
    lines = ["| annotator / attribute | n | exact match | precision | recall |", "|---|---|---|---|---|"]
    for key, r in table.items():
        lines.append(f"| {key} | {r['n']} | {r['exact_match']:.3f} | {r['precision']:.3f} | {r['recall']:.3f} |")
    return "\n".join(lines)


@stage_asset(GROUP, kinds={"duckdb", "python", "openai"}, code_version=CHUNK_CODE, deps=[chunks])
def chunk_augmentations(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource, llm: LLMResource
) -> MaterializeResult:
    """URAG-D: every chunk with a one-sentence summary of its document prepended — extractive offline, rewritten by the
    LLM when configured — stored beside the original."""
    config, started = begin(context, institution)
    with warehouse.connect() as con, ExitStack() as stack:
        augmenters = [augment.ExtractiveAugmenter()]
        if llm.wanted(config.pipeline.augmentation, "augmentation"):
            from advisor.chunking.llm_augment import LLMAugmenter

            augmenters.append(LLMAugmenter(stack.enter_context(llm.client()), con))
        metadata = {}
        for augmenter in augmenters:
            result = augment.build_augmentations(con, augmenter, context.run_id)
            metadata[f"{augmenter.method}_augmented"] = result["augmented"]
            metadata[f"{augmenter.method}_failures"] = len(result["failures"])
            if hasattr(augmenter, "record_usage"):
                augmenter.record_usage(context.run_id, "chunk_augmentations")
        total = scalar(con, "SELECT count(*) FROM chunk_augmentations")
        metadata["dagster/row_count"] = total
        record_lineage(context, con, config, asset="chunk_augmentations", started_at=started,
                       code_version=CHUNK_CODE, row_count=total, counts={}, metadata=metadata)
    return MaterializeResult(metadata=metadata)
