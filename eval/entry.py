"""One evaluation, as `advisor eval` and the pipeline's `evaluation` asset both run it: the latest
index build against a benchmark file, recorded in the lakehouse (eval/store/) with the build's
intent router on the held-out split.

    result = evaluate(config, warehouse, benchmark, systems, settings, connect=open_the_lakehouse)

A run is reused, not repeated, when everything that decides its results is unchanged (index
build, benchmark bytes, evaluation code, config, systems, settings, LLM: RunMeta.fingerprint):
re-running after an unrelated change costs a lookup, not minutes of retrieval. The lakehouse is
open only to look that up and to record: other readers may open it while the systems run.

The callers stay thin: they turn `EvaluationError` into their own failure (an exit code, a
Dagster Failure), say what happens where their user looks, and show the results their way.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from advisor import progress
from advisor.index.layout import INTENT_DIR, builds_dir, latest_build_dir, read_manifest
from eval import store
from eval.benchmark.file import BenchmarkError, benchmark_hash, read_benchmark
from eval.benchmark.provenance import gold_from_of, gold_line

__all__ = ["EvaluationError", "Evaluated", "evaluate", "intent_evaluation"]


class EvaluationError(Exception):
    """The evaluation cannot run; `bad_input`: the request (benchmark, truth file) is at fault."""

    def __init__(self, message: str, bad_input: bool = False) -> None:
        super().__init__(message)
        self.bad_input = bad_input


@dataclass(frozen=True)
class Evaluated:
    """A recorded run: a new one, or the reused one with the same fingerprint."""

    run_id: str
    reused: bool
    build_id: str
    benchmark_hash: str
    instances: int
    gold_from: str | None
    aggregates: list[dict]  # one per system x setting, as the runner gives them (the `--out` rows)


def evaluate(config, warehouse: Path, benchmark: Path | str, systems: Sequence[str], settings: Sequence[str], *,  # noqa: C901 - the evaluation's steps in order, each with its own clear error
             connect: Callable[[], AbstractContextManager], llm_settings=None, dagster_run_id: str | None = None,
             say: Callable[[str], None] = lambda message: None,
             on_results: Callable[[Evaluated], None] | None = None) -> Evaluated:
    """Evaluates (or reuses) and records. `connect()` opens the lakehouse read-write as a context
    manager; `say` gets a line for the user when the run starts or is reused; `on_results` sees the
    results before they are recorded (a new run's can still be shown if recording then fails)."""
    started = datetime.now(timezone.utc)
    try:
        read_benchmark(benchmark)  # the file's format, before minutes of loading
    except BenchmarkError as exc:
        raise EvaluationError(str(exc), bad_input=True) from None
    root = builds_dir(warehouse)
    build_dir = latest_build_dir(root)
    if build_dir is None:
        raise EvaluationError(f"no index build under {root}: materialize index_build first (`advisor materialize`)")
    meta = store.meta_from_build(
        read_manifest(build_dir), config=config, benchmark=str(benchmark), benchmark_hash=benchmark_hash(benchmark),
        instances=0, systems=systems, settings=settings, started_at=started,
        llm_model=llm_settings.model if llm_settings is not None else None, dagster_run_id=dagster_run_id)

    with connect() as con:
        store.ensure_schema(con)
        reused = store.find_run(con, meta.fingerprint)
        if reused is not None:
            run = store.run_info(con, reused)
            result = Evaluated(reused, True, run["build_id"], run["benchmark_hash"], run["instances"],
                               run.get("gold_from"), store.run_aggregates(con, reused))
        else:
            test_examples = _intent_test_split(con)
    if reused is not None:
        say(f"build, benchmark, code and config unchanged: reusing evaluation run {reused}")
        if on_results is not None:
            on_results(result)
        return result

    from advisor.index.store import load_build
    from eval import parallel

    # the build alone (no tokenizer, no engine): the schema the profiles are read against and the
    # chunks the truth labels cover; an engine is started only where the systems run
    build = load_build(build_dir)
    if build.build_id != meta.build_id:
        raise EvaluationError(f"the latest index build changed while the evaluation started ({meta.build_id} -> "
                              f"{build.build_id}); evaluate again")
    try:
        instances = read_benchmark(benchmark, build.schema)  # profiles against the build's schema
        meta = replace(meta, instances=len(instances), gold_from=gold_from_of(instances))
    except ValueError as exc:  # BenchmarkError names the line; gold_from_of the instance
        raise EvaluationError(str(exc) if isinstance(exc, BenchmarkError) else f"{benchmark}: {exc}",
                              bad_input=True) from None
    backend = f"LLM {meta.llm_model}" if meta.llm_model else "offline"
    say(f"evaluating {len(systems)} system(s) x {len(settings)} setting(s) on {len(instances)} instances "
        f"(build {meta.build_id}, {backend}). {gold_line(meta.gold_from)}")
    from eval.benchmark.truth import true_labels  # lazily, as the runner below: they pull in the serving stack

    try:
        labels = true_labels(config, warehouse, build)  # for profill-true-labels; None without truth
    except FileNotFoundError as exc:
        raise EvaluationError(str(exc), bad_input=True) from None

    def report(*parts, **named) -> None:  # tolerant: the runner decides what it reports
        progress.report("evaluation", " ".join(str(p) for p in (*parts, *named.values())))

    # offline, enough instances: one process per core, each with its own engine (eval/parallel.py);
    # an LLM run is bound by the endpoint, not this CPU: one process
    workers = parallel.worker_count(len(instances)) if llm_settings is None else 1
    if workers > 1:
        say(f"evaluating in {workers} processes")
        progress.report("evaluation", f"{len(instances)} instances in {workers} processes")
        outcome = parallel.run_sharded(parallel.Shard(config, root, meta.build_id, list(instances), list(systems),
                                                      list(settings), labels, None), workers)
    else:
        from eval import runner

        advisor, tokenizer = _engine(config, root, llm_settings, meta.build_id)
        outcome = runner.run_evaluation(advisor, instances, systems, settings, llm_client=advisor.llm_client,
                                        tokenizer=tokenizer, progress=report, true_labels=labels)
    with connect() as con:  # its vector cache: a re-run encodes none of the examples again
        intent, router, predictions = intent_evaluation(build_dir, test_examples, con)
    result = Evaluated(meta.run_id, False, meta.build_id, meta.benchmark_hash, meta.instances, meta.gold_from,
                       outcome.aggregates)
    if on_results is not None:
        on_results(result)
    with connect() as con:
        store.record_run(con, outcome=outcome, run_meta=meta, intent=intent, intent_router=router,
                         instances=instances, intent_predictions=predictions)
    return result


def _engine(config, builds_root: Path, llm_settings, build_id: str):
    from advisor.chunking.token_cache import tokenizer_for
    from serving.dialogue.engine import NoBuildError, open_advisor

    progress.report("evaluation", "loading the index build")
    tokenizer = tokenizer_for(config)
    try:
        advisor = open_advisor(builds_root, config, llm_settings, tokenizer=tokenizer)
    except NoBuildError as exc:
        raise EvaluationError(str(exc)) from None
    if advisor.build_id != build_id:
        raise EvaluationError(f"the latest index build changed while the evaluation started ({build_id} -> "
                              f"{advisor.build_id}); evaluate again")
    return advisor, tokenizer


def _intent_test_split(con) -> list:
    from advisor.intents.dataset import load_intent_examples

    return [e for e in load_intent_examples(con) if e.split == "test"]


def intent_evaluation(build_dir: Path, test_examples: list, con=None) -> tuple[dict | None, str | None, list[dict]]:
    """The build's offline router (its classifier, over the build's encoder) on the held-out
    examples, by route (faq and retrieval are both information): (intent_report, classifier
    version, one prediction per example: example_id, text, gold route, predicted, confidence), or
    (None, None, []) when the build has no classifier or the lakehouse no test split. `con`: a
    lakehouse whose vector cache the encoder reads and fills (an encoding costs ~30 ms on two cores)."""
    if not test_examples or not (build_dir / INTENT_DIR).is_dir():
        return None, None, []
    from advisor.index.embedders import load_embedder
    from advisor.index.layout import EMBEDDER_DIR
    from advisor.intents import ROUTES, route_of, seed_vectors
    from advisor.intents.classifier import IntentClassifier
    from advisor.intents.metrics import intent_report
    from serving.dialogue.router import IntentRouter

    embedder = load_embedder(build_dir / EMBEDDER_DIR, con)
    # about 600 held-out examples are seeds every institution shares: the build trained on their
    # shipped vectors, and reading them here too spares a fresh process encoding them (~20-90 s)
    seed_vectors.warm(embedder)
    classifier = IntentClassifier.load(build_dir / INTENT_DIR, embedder)
    router = IntentRouter(classifier)  # routed as a student's message is
    predictions = []
    for e in test_examples:
        route, trace = router.route(e.text)
        predictions.append({"example_id": e.example_id, "text": e.text, "intent": route_of(e.intent),
                            "predicted": route, "confidence": trace.get("confidence", 1.0)})
    report = intent_report([p["intent"] for p in predictions], [p["predicted"] for p in predictions], labels=ROUTES)
    return report, classifier.version, predictions
