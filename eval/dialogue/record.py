"""The dialogue benchmark in the lakehouse (`dialogue_bench_results`, `dialogue_bench_metrics`,
created and migrated by eval.store.ensure_schema), and the whole benchmark as
one call: generate, run, score, record; a run whose fingerprint (build, code, config, messages,
LLM) was recorded before is reused, unless that run lost LLM work to failures.

With an LLM client: the LLM writes more messages (llm_messages.py) and judges every final answer
(judge.py); usage goes to llm_usage. Without one: the templates only, the judge's columns NULL and
its metric rows missing with the reason."""

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
from eval.dialogue import judge as judge_module
from eval.dialogue import llm_messages, metrics, runner
from eval.dialogue import messages as messages_module
from eval.dialogue.messages import GOLD_FAQ_STORE, GOLD_TEMPLATES

NO_LLM = "no LLM configured: the templates wrote every message and nothing was judged"


def dialogue_code_version() -> str:
    """The benchmark's own code and what it measures (the engine, router, FAQ tier: the QA
    evaluation's code version)."""
    own = code_version(messages_module, metrics, runner, llm_messages, judge_module, sys.modules[__name__])
    return hashlib.sha256(f"{own}|{eval_store.evaluation_code_version()}".encode()).hexdigest()[:12]


def fingerprint(build_id: str, config_hash: str, messages_hash: str, code: str, llm: str | None = None) -> str:
    key = f"{build_id}|{config_hash}|{messages_hash}|{code}" + (f"|llm:{llm}" if llm else "")
    return hashlib.sha256(key.encode()).hexdigest()[:16]


GOLD_FROM = f"{GOLD_TEMPLATES}+{GOLD_FAQ_STORE}"  # where the expected behaviour comes from
GOLD_FROM_LLM = f"{GOLD_FROM}+{llm_messages.GOLD_LLM}"  # ... when an LLM wrote messages too


@dataclass(frozen=True)
class Outcome:
    run_id: str
    reused: bool  # True: an equal run was recorded before; nothing was sent to the engine
    build_id: str
    messages: int
    metrics: list[dict]
    llm_report: dict | None = None  # with an LLM: requests, failures, dropped items, judge failures


def find_run(con: duckdb.DuckDBPyConnection, fingerprint_: str) -> str | None:
    """A recorded run with this fingerprint that lost no LLM work (a failed LLM request or judge
    verdict is asked again, not reused; its successes come from the LLM cache)."""
    return scalar(con, "SELECT any_value(run_id) FROM dialogue_bench_metrics WHERE fingerprint = ? AND run_id NOT IN "
                       "(SELECT run_id FROM dialogue_bench_metrics WHERE metric IN ('judge_failure_rate', "
                       "'llm_message_failures') AND value > 0)", [fingerprint_])


def metrics_of(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict]:
    return con.sql("SELECT metric, scope, value, n, missing FROM dialogue_bench_metrics WHERE run_id = ? "
                   "ORDER BY rowid", params=[run_id]).pl().to_dicts()


def results_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    return con.sql("SELECT * FROM dialogue_bench_results WHERE run_id = ? ORDER BY message_id", params=[run_id]).pl()


def write_run(con: duckdb.DuckDBPyConnection, run_id: str, results: Sequence[runner.Result], scores: Sequence[dict],
              *, build_id: str, institution: str, messages_hash: str, code: str, fingerprint_: str,
              gold_from: str = GOLD_FROM) -> None:
    """Both tables of one run, in one transaction."""
    created = datetime.now(timezone.utc)
    common = {"run_id": run_id, "build_id": build_id, "institution": institution, "messages_hash": messages_hash,
              "created_at": created}
    result_rows = [{**r.as_dict(), **common, "effective_intent": metrics.effective_intent(r.as_dict())}
                   for r in results]
    metric_rows = [{**m, **common, "code_version": code, "fingerprint": fingerprint_, "gold_from": gold_from}
                   for m in scores]
    with transaction(con):
        insert_rows(con, "dialogue_bench_results", result_rows)
        insert_rows(con, "dialogue_bench_metrics", metric_rows)


def run_benchmark(con: duckdb.DuckDBPyConnection, advisor, config, run_id: str, *, llm_client=None,
                  llm_missing: str | None = None, build=None) -> Outcome:
    """Generate the messages for the advisor's build, run them once, score and record them;
    reuse the recorded run when build, code, config, messages and LLM are all unchanged.
    `advisor`: the engine, or a function that opens it, called only when the run is not reused
    (opening one starts Kiwi: seconds a no-change re-run need not spend); then `build` is the
    index build it will serve. `llm_client` (advisor.llm.client.LLMClient): the LLM writes more
    messages and judges the answers. `llm_missing`: without one, why (recorded on the LLM
    metrics' rows)."""
    eval_store.ensure_schema(con)
    if build is None:
        build = advisor.build
    messages = messages_module.generate(build, config.institution)
    tasks, report = [], None
    if llm_client is not None:
        written, written_report, tasks = llm_messages.write_messages(llm_client, con, build,
                                                                     config.institution, messages)
        messages = messages + written
        report = {"requests": written_report.requests, "request_failures": dict(written_report.failed),
                  "dropped": dict(written_report.dropped), "llm_written": written_report.kept}
    digest = messages_module.messages_hash(messages)
    code = dialogue_code_version()
    llm_tag = f"{llm_client.model}|{llm_messages.PROMPT_VERSION}|{judge_module.PROMPT_VERSION}" if llm_client else None
    key = fingerprint(build.build_id, config.fingerprint(), digest, code, llm_tag)
    if (seen := find_run(con, key)) is not None:
        _record_usage(tasks, run_id)
        return Outcome(seen, True, build.build_id, len(messages), metrics_of(con, seen), report)
    if callable(advisor):
        advisor = advisor()
    results = runner.run(advisor, messages)
    if llm_client is not None:
        results, judge_failures, judge_task = judge_module.judge(
            results, llm_client, con, judge_module.cited_texts(build, results))
        tasks.append(judge_task)
        report["judge_failures"] = dict(judge_failures)
    scores = metrics.compute(results, llm_missing=None if llm_client is not None else (llm_missing or NO_LLM))
    if report is not None:
        failed = sum(report["request_failures"].values())
        scores.append({"metric": "llm_message_failures", "scope": "all", "value": float(failed),
                       "n": report["requests"], "missing": None})
    write_run(con, run_id, results, scores, build_id=build.build_id, institution=config.institution,
              messages_hash=digest, code=code, fingerprint_=key,
              gold_from=GOLD_FROM_LLM if llm_client is not None else GOLD_FROM)
    _record_usage(tasks, run_id)
    return Outcome(run_id, False, build.build_id, len(messages), scores, report)


def _record_usage(tasks, run_id: str) -> None:
    for task in tasks:
        if task.usage.calls or task.usage.cache_hits or task.usage.failures:
            task.record_usage(run_id, "dialogue_benchmark")
