"""Indexing stage: the index build (tantivy BM25 + usearch/exact dense, per collection), written to
a new folder under the warehouse and published atomically as the latest build."""

from contextlib import ExitStack, closing

from dagster import AssetExecutionContext, Config, Failure, MaterializeResult, MetadataValue
from pydantic import Field

from advisor import progress
from advisor.index.embed_e5 import encoded_count
from advisor.index.embedders import E5Embedder, LSAEmbedder
from advisor.index_build import stage as index_stage
from advisor.ingest import coverage
from advisor.lakehouse import scalar
from advisor.versioning import code_version
from assets.annotation import active_annotator_name, chunk_annotations, chunk_augmentations, chunks
from assets.intents import intent_dataset
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from assets.stage import begin, stage_asset

GROUP = "indexing"
INDEX_CODE = code_version(index_stage)


class IndexBuildConfig(Config):
    full: bool = Field(default=False, description=(
        "Build everything anew even when only the dynamic collection changed (by default such a change "
        "reuses the latest build's static side: advisor/index_build/delta.py). The nightly refresh sets it."))


@stage_asset(
    GROUP, kinds={"tantivy", "python", "openai"}, code_version=INDEX_CODE,
    deps=[chunks, chunk_annotations, chunk_augmentations, intent_dataset],
)
def index_build(
    context: AssetExecutionContext, config: IndexBuildConfig, institution: InstitutionResource,
    warehouse: WarehouseResource, llm: LLMResource,
) -> MaterializeResult:
    """A self-contained index build (BM25 over Kiwi morphemes with profile fields, dense vectors, chunk store,
    embedder, manifest; the same over the URAG-D augmented texts) published atomically as the latest; older builds
    kept."""
    full = config.full  # the run's IndexBuildConfig; from here on `config` is the institution's
    config, started = begin(context, institution)
    # `openai` asks for the LLM endpoint's embeddings; `e5` (the default offline) and `lsa` are offline
    use_openai = llm.wanted({"openai": "llm", "lsa": "offline", "e5": "offline"}.get(config.pipeline.embedder, "auto"),
                            "embedder")
    choice = "openai" if use_openai else ("lsa" if config.pipeline.embedder == "lsa" else "e5")
    progress.report("index_build", f"embedding ({choice}) and writing the build")
    encoded_before = encoded_count()
    with warehouse.connect() as con, ExitStack() as stack:
        annotator = active_annotator_name(config, llm)
        annotator_version = scalar(con, "SELECT any_value(annotator_version) FROM chunk_annotations WHERE annotator = ?",
                                   [annotator])

        def make_embedder(texts, tokens):
            if len(texts) < (2 if choice == "lsa" else 1):  # LSA is trained on the chunks: two at least
                raise _nothing_to_index(con, config, len(texts), choice)
            if choice == "openai":
                from advisor.index.embedders import OpenAIEmbedder

                model, dimensions = llm.embedding()
                return stack.enter_context(closing(  # its HTTP client
                    OpenAIEmbedder(llm.settings(), con, model=model, dimensions=dimensions)))
            if choice == "lsa":
                return LSAEmbedder.train(texts, tokens)  # trained on this corpus, saved inside the build
            return E5Embedder(con)  # its vectors cached in the lakehouse: a re-run embeds only new texts

        enrich = None
        if llm.wanted({"llm": "llm", "off": "offline"}.get(config.pipeline.faq_enrichment, "auto"), "faq_enrichment"):
            from advisor.faq.enrichment import FAQEnricher, source_chunks

            enricher = FAQEnricher(stack.enter_context(llm.client()), con)

            def enrich(build, seeds):
                enrichment = enricher.enrich(seeds, source_chunks(build))
                enricher.record_usage(context.run_id, "index_build")
                return enrichment

        outcome = index_stage.build_index(
            config, con, warehouse.root, annotator=annotator, annotator_version=annotator_version or "",
            make_embedder=make_embedder, embedder_choice=choice, run_id=context.run_id,
            enrich=enrich, full=full,
        )
        metadata = {
            "build_id": outcome.build_id,
            "published": outcome.published,
            "path": MetadataValue.path(str(outcome.directory)),
            "annotator": annotator,
            "embedder": choice,
            # what the build cost the encoder: the texts not found in a cache (lakehouse, shipped)
            **({"texts_encoded": encoded_count() - encoded_before} if choice == "e5" else {}),
            "build_seconds": round(outcome.seconds, 2),
            "delta_of": outcome.delta_of or "none (a full build)",
            **{f"chunks_{name}": n for name, n in sorted(outcome.counts.items())},
            **serving_metadata(outcome.serving),
        }
        record_lineage(context, con, config, asset="index_build", started_at=started, code_version=INDEX_CODE,
                       row_count=sum(outcome.counts.values()),
                       counts={"rows_added": sum(outcome.counts.values()) if outcome.published else 0},
                       metadata={k: (str(v) if isinstance(v, MetadataValue) else v) for k, v in metadata.items()})
    return MaterializeResult(metadata=metadata)


def _nothing_to_index(con, config, chunks: int, embedder: str) -> Failure:
    """One line instead of the embedder's stack trace: why there is nothing to index."""
    no_documents = coverage.no_documents_message(coverage.source_yields(con, config))
    if no_documents:
        return Failure(description=f"nothing to index: {no_documents}")
    return Failure(description=f"nothing to index: {chunks} chunk(s), too few for the {embedder} embedder "
                               "(were `documents` and `chunks` materialized?)")


def serving_metadata(serving: dict) -> dict:
    """The dialogue's artifacts in the UI: FAQ store size, the calibrated threshold, the intent model."""
    intent = serving.get("intent", {})
    return {
        "faq_entries": serving.get("faq", {}).get("entries", 0),
        "faq_threshold": serving.get("faq_threshold"),
        "faq_calibration_queries": serving.get("calibration", {}).get("queries"),
        "intent_model_held_out_macro_f1": intent.get("held_out", {}).get("macro_f1"),
    }
