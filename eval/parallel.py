"""The offline evaluation over several processes: the instances split into balanced shards (`split`), each
shard run by `eval.runner.run_evaluation` in a process of its own (its own engine over the same
index build), the rows put back in the order one process gives them and the aggregates computed
over all of them (docs/architecture.md, "Evaluation").

Why processes: the systems are Python (retrieval fusion, the dialogue's rules), so threads share one
core; the evaluation is most of `make demo`. Why shards of instances rather than of systems: an
engine's caches (tokens, retrievals, FAQ searches) serve every system that sees the same question,
so each process keeps whole instances. The rows are the same as in one process: every simulated
student's choices are keyed on the instance (eval/systems/simulate.py), never on the order of the run.

Only without an LLM: an LLM run is bound by the endpoint and its own cache, not by this CPU.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from advisor.settings import EvalEnvironment, read, variable_name
from eval.metrics import stats
from eval.runner import EvalOutcome, aggregate, run_evaluation

MIN_SHARD = 150  # fewer instances per process than this: the second engine's start-up (~5 s) is not worth it
MAX_WORKERS = 4  # advisor/settings.py's EvalEnvironment says it (tests/test_settings.py holds them equal)
WORKERS_ENV = variable_name(EvalEnvironment, "workers")


def worker_count(instances: int, requested: int | None = None) -> int:
    """How many processes evaluate `instances`: `requested`, else $ADVISOR_EVAL_WORKERS, else one
    per available core (at most MAX_WORKERS); never more than gives each MIN_SHARD instances."""
    if requested is None:
        requested = read(EvalEnvironment).workers  # ValueError names the variable
        if requested is None:
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
            requested = min(cores, MAX_WORKERS)
    return max(1, min(requested, instances // MIN_SHARD))


@dataclass(frozen=True)
class Shard:
    """What one process needs to rebuild the run: everything picklable (no engine)."""

    config: object  # InstitutionConfig
    builds_root: Path
    build_id: str
    instances: list
    systems: list
    settings: list
    true_labels: Mapping | None
    dont_know_share: float | None


def run_sharded(shard: Shard, workers: int) -> EvalOutcome:
    """`shard`'s instances evaluated over `workers` processes, merged as one process would give them."""
    parts = split(shard.instances, workers)
    shards = [Shard(shard.config, shard.builds_root, shard.build_id, part, shard.systems, shard.settings,
                    shard.true_labels, shard.dont_know_share) for part in parts]
    # spawn, not fork: the parent's tokenizer and search threads do not survive a fork
    with ProcessPoolExecutor(max_workers=len(shards), mp_context=multiprocessing.get_context("spawn")) as pool:
        outcomes = list(pool.map(_evaluate_shard, shards))
    return merge(outcomes, shard.instances)


def split(instances: Sequence[Mapping], workers: int) -> list[list[Mapping]]:
    """`workers` parts of about equal size that keep every question's instances together (the
    engine's caches serve a question's every profile and system): the questions largest first,
    each to the part with the fewest instances so far. Contiguous halves were 10% apart in time
    on the demo: the benchmark is ordered by kind of fact."""
    by_query: dict[str, list[Mapping]] = {}
    for instance in instances:
        by_query.setdefault(instance.get("query", ""), []).append(instance)
    parts: list[list[Mapping]] = [[] for _ in range(min(workers, len(by_query)) or 1)]
    for group in sorted(by_query.values(), key=len, reverse=True):  # stable: ties in benchmark order
        min(parts, key=len).extend(group)
    return [part for part in parts if part]


def merge(outcomes: Sequence[EvalOutcome], instances: Sequence[Mapping]) -> EvalOutcome:
    """The shards' outcomes as one: rows in the runner's order (system, setting, then instance in
    the benchmark's order, `instances`), the aggregates and the statistics over every shard's rows
    (an interval over one shard's questions would be another interval), the timings summed."""
    first = outcomes[0]
    ids = [inst["id"] for inst in instances]
    rows: dict[tuple[str, str], list[dict]] = {}
    for outcome in outcomes:
        for row in outcome.per_query:
            rows.setdefault((row["system"], row["setting"]), []).append(row)
    order = {instance_id: i for i, instance_id in enumerate(ids)}
    per_query, aggregates = [], []
    for entry in first.aggregates:  # the runner's system x setting order, skips included
        key = (entry["system"], entry["setting"])
        if entry.get("skipped"):
            aggregates.append(entry)
            continue
        together = sorted(rows.get(key, []), key=lambda row: order[row["instance_id"]])
        per_query.extend(together)
        aggregates.append(aggregate(*key, together))
    timings: dict[str, float] = {}
    for outcome in outcomes:
        for name, seconds in outcome.timings.items():
            timings[name] = timings.get(name, 0.0) + seconds
    intervals, tests = stats.run_statistics(per_query, {inst["id"]: inst["query"] for inst in instances})
    return EvalOutcome(per_query, aggregates, {**first.params, "processes": len(outcomes)}, timings, intervals, tests)


def _evaluate_shard(shard: Shard) -> EvalOutcome:
    from advisor.chunking.token_cache import tokenizer_for
    from serving.dialogue.engine import open_advisor

    tokenizer = tokenizer_for(shard.config)
    advisor = open_advisor(shard.builds_root, shard.config, tokenizer=tokenizer)
    if advisor.build_id != shard.build_id:
        raise RuntimeError(f"the latest index build changed during the evaluation ({shard.build_id} -> "
                           f"{advisor.build_id}); evaluate again")
    return run_evaluation(advisor, shard.instances, shard.systems, shard.settings, tokenizer=tokenizer,
                          true_labels=shard.true_labels, dont_know_share=shard.dont_know_share, statistics=False)
