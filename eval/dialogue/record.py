"""The dialogue benchmark in the lakehouse (`dialogue_bench_results`, `dialogue_bench_metrics`,
created by eval.store.ensure_schema), and the whole benchmark as one call: generate, run, score,
record; a run whose fingerprint (build, code, config, messages) was recorded before is reused."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb
import polars as pl

from advisor.lakehouse import insert_rows, scalar, transaction
from advisor.versioning import code_version
from eval import store as eval_store
from eval.dialogue import messages as messages_module, metrics, runner
from eval.dialogue.messages import GOLD_FAQ_STORE, GOLD_TEMPLATES


def dialogue_code_version() -> str:
    """The benchmark's own code and what it measures (the engine, router, FAQ tier: the QA
    evaluation's code version)."""
    own = code_version(messages_module, metrics, runner, sys.modules[__name__])
    return hashlib.sha256(f"{own}|{eval_store.evaluation_code_version()}".encode()).hexdigest()[:12]


def fingerprint(build_id: str, config_hash: str, messages_hash: str, code: str) -> str:
    return hashlib.sha256(f"{build_id}|{config_hash}|{messages_hash}|{code}".encode()).hexdigest()[:16]


GOLD_FROM = f"{GOLD_TEMPLATES}+{GOLD_FAQ_STORE}"  # where the expected behaviour comes from


@dataclass(frozen=True)
class Outcome:
    run_id: str
    reused: bool  # True: an equal run was recorded before; nothing was sent to the engine
    build_id: str
    messages: int
    metrics: list[dict]


def find_run(con: duckdb.DuckDBPyConnection, fingerprint_: str) -> str | None:
    return scalar(con, "SELECT any_value(run_id) FROM dialogue_bench_metrics WHERE fingerprint = ?", [fingerprint_])


def metrics_of(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict]:
    return con.sql("SELECT metric, scope, value, n FROM dialogue_bench_metrics WHERE run_id = ? ORDER BY rowid",
                   params=[run_id]).pl().to_dicts()


def results_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    return con.sql("SELECT * FROM dialogue_bench_results WHERE run_id = ? ORDER BY message_id", params=[run_id]).pl()


def write_run(con: duckdb.DuckDBPyConnection, run_id: str, results: Sequence[runner.Result], scores: Sequence[dict],
              *, build_id: str, institution: str, messages_hash: str, code: str, fingerprint_: str) -> None:
    """Both tables of one run, in one transaction."""
    created = datetime.now(timezone.utc)
    common = {"run_id": run_id, "build_id": build_id, "institution": institution, "messages_hash": messages_hash,
              "created_at": created}
    result_rows = [{**r.as_dict(), **common, "effective_intent": metrics.effective_intent(r.as_dict())}
                   for r in results]
    metric_rows = [{**m, **common, "code_version": code, "fingerprint": fingerprint_, "gold_from": GOLD_FROM}
                   for m in scores]
    with transaction(con):
        insert_rows(con, "dialogue_bench_results", result_rows)
        insert_rows(con, "dialogue_bench_metrics", metric_rows)


def run_benchmark(con: duckdb.DuckDBPyConnection, advisor, config, run_id: str) -> Outcome:
    """Generate the messages for the advisor's build, run them once, score and record them;
    reuse the recorded run when build, code, config and messages are all unchanged."""
    eval_store.ensure_schema(con)
    messages = messages_module.generate(advisor.build, config.institution)
    digest = messages_module.messages_hash(messages)
    code = dialogue_code_version()
    key = fingerprint(advisor.build_id, config.fingerprint(), digest, code)
    if (seen := find_run(con, key)) is not None:
        return Outcome(seen, True, advisor.build_id, len(messages), metrics_of(con, seen))
    results = runner.run(advisor, messages)
    scores = metrics.compute(results)
    write_run(con, run_id, results, scores, build_id=advisor.build_id, institution=config.institution,
              messages_hash=digest, code=code, fingerprint_=key)
    return Outcome(run_id, False, advisor.build_id, len(messages), scores)
