"""Evaluation stage: the QA benchmark synthesized from the latest index build's chunks and, when the
config names a truth file, the true applicability of their sources (else the build's annotations;
docs/contracts.md §3 format), written to <warehouse>/benchmarks/qa.jsonl."""

import hashlib
from contextlib import ExitStack

from dagster import AssetExecutionContext, Failure, MaterializeResult, MetadataValue

from advisor.chunking.token_cache import tokenizer_for
from advisor.index.layout import builds_dir
from advisor.index.store import latest_build_dir, load_build
from advisor.versioning import code_version
from assets.indexing import index_build
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from assets.stage import begin, stage_asset
from eval import store as eval_store
from eval.benchmark import facts, line_reader, line_scope, llm_questions, questions, synthesis
from eval.benchmark import truth as eval_truth
from eval.benchmark.file import read_benchmark

GROUP = "evaluation"
# the code that writes the benchmark, and the line reader's own language data (eval/benchmark/reading/)
BENCHMARK_CODE = hashlib.sha256(
    (code_version(synthesis, facts, line_reader, line_scope, questions, eval_truth, llm_questions)
     + line_reader.data_digest()).encode()).hexdigest()[:12]


@stage_asset(GROUP, kinds={"python"}, code_version=BENCHMARK_CODE, deps=[index_build])
def qa_benchmark(context: AssetExecutionContext, institution: InstitutionResource,
                 warehouse: WarehouseResource, llm: LLMResource) -> MaterializeResult:
    """The QA benchmark: 60 student profiles x advising categories x 3 query types (formal, first person, yes/no with a
    true or false premise), with every source that applies to the profile and states the answer as gold (from the
    config's truth file when it names one, else from the build's annotations), plus profile-independent and
    stated-profile slices; the profile never appears in the question."""
    config, started = begin(context, institution, "synthesizing the QA benchmark from the latest build")
    build = load_build(latest_build_dir(builds_dir(warehouse.root)))
    try:
        path = eval_truth.truth_file(config, warehouse.root)
    except FileNotFoundError as exc:
        raise Failure(str(exc)) from None
    truth = eval_truth.Truth.load(path, config) if path is not None else None
    if truth is None:
        context.log.warning("no truth file in the config: the gold sources come from the build's own annotations")
    with ExitStack() as stack:
        rewrite, rewriter = None, ""
        if llm.configured():  # the questions and reference answers in an LLM's words
            client, con = stack.enter_context(llm.client()), stack.enter_context(warehouse.connect())
            rewriter = f"{client.model}|{llm_questions.PROMPT_VERSION}"

            def rewrite(instances):
                written, task, outcome = llm_questions.rewrite_with_llm(instances, build, client, con)
                task.record_usage(context.run_id, "qa_benchmark")
                return written, outcome

        report = synthesis.write_benchmark(warehouse.root, build, None, open_tokenizer=lambda: tokenizer_for(config),
                                           code=BENCHMARK_CODE, rewrite=rewrite, rewriter=rewriter, truth=truth)
    metadata = {
        "dagster/row_count": report["instances"], "path": MetadataValue.path(report["path"]),
        "build_id": report["build_id"], "benchmark_hash": report["benchmark_hash"], "written": report["written"],
        "profiles": report["profiles"], "categories": MetadataValue.json(report["categories"]),
        "slices": MetadataValue.json(report["slices"]), "gold_from": report["gold_from"],
        "written_by": MetadataValue.json(report.get("rewritten") or {"template": report["instances"]}),
    }
    with warehouse.connect() as con:
        # every version of the benchmark stays queryable (question, profile, gold, provenance) after
        # the file is overwritten; a version already recorded is not written again
        if report["instances"]:
            eval_store.record_benchmark(con, report["path"], report["benchmark_hash"], read_benchmark(report["path"]))
        record_lineage(context, con, config, asset="qa_benchmark", started_at=started, code_version=BENCHMARK_CODE,
                       row_count=report["instances"],
                       counts={"rows_added": report["instances"] if report["written"] else 0},
                       metadata={k: (str(v) if isinstance(v, MetadataValue) else v) for k, v in metadata.items()})
    return MaterializeResult(metadata=metadata)

