"""Recording an evaluation run in the lakehouse: its metadata (RunMeta, the code version), its
rows checked and written in one transaction, and the benchmark's instances."""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from advisor.lakehouse import insert_rows, one, transaction
from eval.benchmark.provenance import gold_from_of, instance_gold_from
from eval.metrics import registry as metric_registry
from eval.metrics.slices import slice_of
from eval.store.schema import LINEAGE_FIELDS, ensure_schema, query_columns

_LIST_COLUMNS = ("gold_sources", "retrieved_urls", "retrieved_chunk_ids", "questions", "citations")
_AGGREGATE_KNOWN = ("system", "setting", "n", "skipped", "tiers", "slice", "slices")  # and every metric
# benchmark instance keys with a column of their own; every other key goes to `provenance`
_INSTANCE_COLUMNS = ("id", "query", "query_type", "category", "slice", "profile", "gold_sources", "keywords",
                     "reference_answer", "premise", "gold_from")


# --- run metadata ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunMeta:
    """What one evaluation run evaluated, on what, with which code and config."""

    benchmark: str
    benchmark_hash: str
    instances: int
    build_id: str
    annotator: str | None
    embedder: str | None
    code_version: str
    config_hash: str
    systems: tuple[str, ...]
    settings: tuple[str, ...]
    started_at: datetime
    finished_at: datetime | None = None  # None: when the run is recorded
    annotator_version: str | None = None
    embedder_version: str | None = None
    institution: str | None = None
    llm_model: str | None = None
    dagster_run_id: str | None = None
    gold_from: str | None = None  # eval.benchmark.provenance.gold_from_of(instances); None: derived when recording them
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def lineage(self) -> dict:
        return {name: getattr(self, name) for name in LINEAGE_FIELDS}

    @property
    def fingerprint(self) -> str:
        """Equal for two runs whose results must be equal: same build, benchmark bytes, code,
        config, systems, settings and LLM. (The benchmark's name is left out: a copy is the same.)"""
        decisive = [self.build_id, self.benchmark_hash, self.code_version, self.config_hash,
                    sorted(self.systems), sorted(self.settings), self.llm_model]
        return hashlib.sha256(json.dumps(decisive).encode()).hexdigest()[:16]


def meta_from_build(manifest: Mapping, *, config, benchmark: str, benchmark_hash: str, instances: int,
                    systems: Sequence[str], settings: Sequence[str], started_at: datetime,
                    llm_model: str | None = None, dagster_run_id: str | None = None,
                    gold_from: str | None = None) -> RunMeta:
    """The RunMeta of an evaluation of the build whose manifest is given (annotator and embedder
    come from the build itself, so they are what was actually evaluated)."""
    lineage = manifest.get("lineage") or {}
    embedder = manifest.get("embedder") or {}
    return RunMeta(
        benchmark=benchmark, benchmark_hash=benchmark_hash, instances=instances, build_id=manifest["build_id"],
        annotator=lineage.get("annotator"), annotator_version=lineage.get("annotator_version"),
        embedder=embedder.get("name"), embedder_version=embedder.get("version"),
        code_version=evaluation_code_version(), config_hash=config.fingerprint(), institution=config.institution,
        systems=tuple(systems), settings=tuple(settings), started_at=started_at, llm_model=llm_model,
        dagster_run_id=dagster_run_id, gold_from=gold_from,
    )


# Code that decides evaluation results: the eval package minus its presentation and storage, the
# serving code the systems run, the library code they search and route with (retrieval, the FAQ
# store, intents), and the LLM prompts. Hashing the files (not imported modules) gives the same
# version in every process, whatever it happened to import.
_CODE_PATHS = ("eval", "serving", "advisor/retrieval", "advisor/faq", "advisor/intents", "advisor/llm",
               "assets/evaluation.py")
_NOT_RESULT_CODE = ("eval/store/",  # records and reads runs
                    "eval/reports/",  # render stored runs
                    "eval/benchmark/provenance.py",
                    "serving/api/", "serving/web/",
                    "eval/dialogue/")  # the dialogue benchmark: its own runs, its own code version


def evaluation_code_version(root: Path | None = None) -> str:
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for name in _CODE_PATHS:
        top = root / name
        for path in sorted(top.rglob("*.py")) if top.is_dir() else ([top] if top.is_file() else []):
            relative = path.relative_to(root).as_posix()
            if relative.startswith(_NOT_RESULT_CODE):
                continue
            digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


# --- writing -----------------------------------------------------------------------------------


def _json(value) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _finite(value, where: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected a number or null, got {value!r}")
    return value if math.isfinite(value) else None


def _string_list(value, where: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"{where}: expected a list of strings, got {value!r}")
    if any(not isinstance(v, str) for v in value):
        raise ValueError(f"{where}: expected a list of strings, got {list(value)!r}")
    return list(value)


_NUMERIC_QUERY = ("rank", "questions_asked", "seconds", "llm_calls", "llm_tokens")  # and the scored metrics'


def _rank_list(value, where: str) -> list[int] | None:
    if value is None:
        return None
    if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence):
        raise ValueError(f"{where}: expected a list of 1-based ranks, got {value!r}")
    if any(isinstance(r, bool) or not isinstance(r, int) or r < 1 for r in value):
        raise ValueError(f"{where}: expected a list of 1-based ranks, got {list(value)!r}")
    return sorted(value)


def _query_row(row: Mapping, lineage: dict, run_id: str) -> dict:
    where = f"per-query row {row.get('system')}/{row.get('setting')}/{row.get('instance_id')}"
    for key in ("system", "setting", "instance_id"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    out = {"run_id": run_id, **lineage}
    columns, numeric = query_columns(), (*_NUMERIC_QUERY, *metric_registry.per_query_columns())
    for key in columns:
        value = row.get(key)
        if key in _LIST_COLUMNS:
            value = _string_list(value, f"{where}.{key}")
        elif key in numeric:
            value = _finite(value, f"{where}.{key}")
        elif key == "gold_ranks":
            value = _rank_list(value, f"{where}.{key}")
        elif key == "slice":
            value = slice_of(row)
        out[key] = value
    extra = {k: v for k, v in row.items() if k not in columns}
    out["extra"] = _json(extra) if extra else None
    return out


def _count(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: n must be a non-negative int, got {value!r}")
    return value


def _metric_columns(row: Mapping, where: str) -> dict:
    return {m.column: _finite(row.get(m.name), f"{where}.{m.name}") for m in metric_registry.METRICS}


def _aggregate_row(row: Mapping, lineage: dict, run_id: str) -> dict:
    where = f"aggregate row {row.get('system')}/{row.get('setting')}"
    for key in ("system", "setting"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    n = row.get("n")
    if n is None and row.get("skipped") is not None:
        n = 0  # a skipped system evaluated no query
    out = {"run_id": run_id, **lineage, "system": row["system"], "setting": row["setting"], "n": _count(n, where),
           "skipped": row.get("skipped"), "tiers": _json(row.get("tiers")), "slice": row.get("slice"),
           **_metric_columns(row, where)}
    known = (*_AGGREGATE_KNOWN, *metric_registry.fields())
    extra = {k: v for k, v in row.items() if k not in known}
    out["extra"] = _json(extra) if extra else None
    return out


def _slice_rows(row: Mapping, lineage: dict, run_id: str) -> list[dict]:
    """One eval_slice_aggregates row per entry of an aggregate's "slices" (none when skipped)."""
    slices = row.get("slices")
    if slices is None:
        return []
    where = f"aggregate row {row.get('system')}/{row.get('setting')}.slices"
    if not isinstance(slices, Mapping):
        raise ValueError(f"{where}: expected an object of slice -> aggregate, got {slices!r}")
    out = []
    for name, aggregate in slices.items():
        if not isinstance(name, str) or not name or not isinstance(aggregate, Mapping):
            raise ValueError(f"{where}: expected a slice name and an object of its metrics, got {name!r}")
        out.append({"run_id": run_id, **lineage, "system": row["system"], "setting": row["setting"], "slice": name,
                    "n": _count(aggregate.get("n"), f"{where}.{name}"), "tiers": _json(aggregate.get("tiers")),
                    **_metric_columns(aggregate, f"{where}.{name}")})
    return out


def _intent_rows(report: Mapping, lineage: dict, run_id: str, router: str | None) -> list[dict]:
    """Rows from `advisor.intents.metrics.intent_report` (or the classifier's `evaluate`): one per intent."""
    per_class = report.get("per_class")
    if not isinstance(per_class, Mapping) or not per_class:
        raise ValueError("intent report: 'per_class' must be a non-empty object of intent -> scores")
    return [
        {"run_id": run_id, **lineage, "intent": intent, "precision": scores["precision"], "recall": scores["recall"],
         "f1": scores["f1"], "support": scores["support"], "n": report["n"], "accuracy": report["accuracy"],
         "macro_f1": report["macro_f1"], "router": router}
        for intent, scores in per_class.items()
    ]


def _prediction_rows(predictions: Sequence[Mapping], lineage: dict, run_id: str, router: str | None) -> list[dict]:
    """intent_predictions rows from {example_id, text, intent (gold), predicted, confidence?}."""
    rows = []
    for i, p in enumerate(predictions):
        where = f"intent prediction {i} ({p.get('example_id') if isinstance(p, Mapping) else p!r})"
        if not isinstance(p, Mapping):
            raise ValueError(f"{where}: expected an object")
        for key in ("example_id", "text", "intent", "predicted"):
            if not isinstance(p.get(key), str) or not p[key]:
                raise ValueError(f"{where}: {key!r} must be a non-empty string")
        confidence = _finite(p.get("confidence"), f"{where}.confidence")
        if confidence is not None and not 0.0 <= confidence <= 1.0:
            raise ValueError(f"{where}: confidence must be in [0, 1], got {confidence!r}")
        rows.append({"run_id": run_id, **lineage, "example_id": p["example_id"], "text": p["text"],
                     "intent": p["intent"], "predicted": p["predicted"], "confidence": confidence, "router": router})
    return rows


def _benchmark_rows(name: str, benchmark_hash: str, instances: Sequence[Mapping]) -> list[dict]:
    recorded_at = datetime.now(timezone.utc)
    rows = []
    for i, inst in enumerate(instances):
        if not isinstance(inst, Mapping):
            raise ValueError(f"benchmark instance {i}: expected an object, got {type(inst).__name__}")
        where = f"benchmark instance {inst.get('id')!r}"
        if inst.get("id") is None or not str(inst["id"]).strip():
            raise ValueError(f"benchmark instance {i}: 'id' is required")
        if not isinstance(inst.get("query"), str) or not inst["query"].strip():
            raise ValueError(f"{where}: 'query' must be a non-empty string")
        golds = _string_list(inst.get("gold_sources"), f"{where}.gold_sources")
        if not golds:
            raise ValueError(f"{where}: 'gold_sources' must be a non-empty list of URLs")
        premise = inst.get("premise")
        rows.append({
            "benchmark_hash": benchmark_hash, "instance_id": str(inst["id"]), "benchmark": name,
            "query": inst["query"], "query_type": inst.get("query_type"), "category": inst.get("category"),
            "slice": slice_of(inst), "profile": _json(inst.get("profile")), "gold_sources": golds,
            "keywords": _string_list(inst.get("keywords"), f"{where}.keywords"),
            "reference_answer": inst.get("reference_answer"),
            "premise": None if premise is None else str(premise).lower(),
            "gold_from": instance_gold_from(inst),
            "provenance": _json({k: v for k, v in inst.items() if k not in _INSTANCE_COLUMNS} or None),
            "recorded_at": recorded_at,
        })
    _unique(rows, ("instance_id",), f"benchmark {name}")
    return rows


def _insert_benchmark(con: duckdb.DuckDBPyConnection, benchmark_hash: str, rows: Sequence[dict]) -> bool:
    """Inserts a benchmark's instance rows unless that benchmark (by hash) is already recorded:
    the same bytes are the same instances. True when it inserted."""
    if one(con, "SELECT 1 FROM benchmark_instances WHERE benchmark_hash = ? LIMIT 1", [benchmark_hash]):
        return False
    insert_rows(con, "benchmark_instances", rows)
    return True


def record_benchmark(con: duckdb.DuckDBPyConnection, name: str, benchmark_hash: str,
                     instances: Sequence[Mapping]) -> bool:
    """Records a benchmark's instances in benchmark_instances (one transaction); recording the same
    benchmark (by hash) again is a no-op. Returns whether anything was written."""
    if not isinstance(benchmark_hash, str) or not benchmark_hash:
        raise ValueError("benchmark_hash must be a non-empty string")
    rows = _benchmark_rows(name, benchmark_hash, instances)
    ensure_schema(con)
    with transaction(con):
        return _insert_benchmark(con, benchmark_hash, rows)


def _unique(rows: Sequence[dict], keys: tuple[str, ...], what: str) -> None:
    seen = set()
    for row in rows:
        key = tuple(row[k] for k in keys)
        if key in seen:
            raise ValueError(f"{what}: more than one row for {dict(zip(keys, key))}")
        seen.add(key)


_RUN_TABLES = ("eval_query_results", "eval_aggregates", "eval_slice_aggregates", "eval_intervals", "eval_tests",
               "intent_eval", "intent_predictions", "eval_runs")


def record_run(con: duckdb.DuckDBPyConnection, *, outcome, run_meta: RunMeta, intent: Mapping | None = None,
               intent_router: str | None = None, instances: Sequence[Mapping] | None = None,
               intent_predictions: Sequence[Mapping] | None = None) -> str:
    """Writes one run in one transaction and returns its run_id: its eval_runs row, per-query rows,
    aggregates, per-slice aggregates, the outcome's intervals and paired tests (eval/metrics/stats.py; none
    when it has none), and when given, the intent evaluation (`intent`, a
    report) with every held-out example's prediction (`intent_predictions`), and the benchmark's
    `instances` (benchmark_instances, once per benchmark hash; every per-query row must name one
    of them). `outcome` is an EvalOutcome (or any object with per_query, aggregates and params).
    The run's gold_from is run_meta.gold_from, else derived from `instances`. Recording the same
    run_id again replaces it."""
    run_id = run_meta.run_id
    lineage = run_meta.lineage()
    missing = [name for name in ("build_id", "code_version", "config_hash", "benchmark", "benchmark_hash")
               if not lineage.get(name)]
    if missing:
        raise ValueError(f"run_meta lacks lineage: {missing}")
    query_rows = [_query_row(r, lineage, run_id) for r in outcome.per_query]
    aggregate_rows = [_aggregate_row(r, lineage, run_id) for r in outcome.aggregates]
    slice_rows = [row for r in outcome.aggregates for row in _slice_rows(r, lineage, run_id)]
    _unique(query_rows, ("system", "setting", "instance_id"), "per-query results")
    _unique(aggregate_rows, ("system", "setting"), "aggregates")
    _unique(slice_rows, ("system", "setting", "slice"), "slice aggregates")
    intervals, tests = getattr(outcome, "intervals", None) or [], getattr(outcome, "tests", None) or []
    intent_rows = _intent_rows(intent, lineage, run_id, intent_router) if intent is not None else []
    prediction_rows = _prediction_rows(intent_predictions or [], lineage, run_id, intent_router)
    _unique(prediction_rows, ("example_id",), "intent predictions")
    gold_from = run_meta.gold_from
    benchmark_rows = None
    if instances is not None:
        benchmark_rows = _benchmark_rows(run_meta.benchmark, run_meta.benchmark_hash, instances)
        known = {row["instance_id"] for row in benchmark_rows}
        strays = sorted({row["instance_id"] for row in query_rows} - known)
        if strays:
            raise ValueError(f"per-query results name instances the benchmark does not have: {strays[:5]}")
        gold_from = gold_from or gold_from_of(instances)
    run_row = {
        "run_id": run_id, "started_at": run_meta.started_at,
        "finished_at": run_meta.finished_at or datetime.now(timezone.utc),
        "benchmark": run_meta.benchmark, "benchmark_hash": run_meta.benchmark_hash, "instances": run_meta.instances,
        "build_id": run_meta.build_id, "annotator": run_meta.annotator, "annotator_version": run_meta.annotator_version,
        "embedder": run_meta.embedder, "embedder_version": run_meta.embedder_version,
        "code_version": run_meta.code_version, "config_hash": run_meta.config_hash,
        "institution": run_meta.institution, "systems": list(run_meta.systems), "settings": list(run_meta.settings),
        "llm_model": run_meta.llm_model, "fingerprint": run_meta.fingerprint,
        "params": _json(getattr(outcome, "params", None) or {}), "dagster_run_id": run_meta.dagster_run_id,
        "gold_from": gold_from,
    }
    ensure_schema(con)
    with transaction(con):
        for table in _RUN_TABLES:
            con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        insert_rows(con, "eval_runs", [run_row])
        insert_rows(con, "eval_query_results", query_rows)
        insert_rows(con, "eval_aggregates", aggregate_rows)
        insert_rows(con, "eval_slice_aggregates", slice_rows)
        insert_rows(con, "eval_intervals", [{"run_id": run_id, **lineage, **r} for r in intervals])
        insert_rows(con, "eval_tests", [{"run_id": run_id, **lineage, **r} for r in tests])
        insert_rows(con, "intent_eval", intent_rows)
        insert_rows(con, "intent_predictions", prediction_rows)
        if benchmark_rows is not None:
            _insert_benchmark(con, run_meta.benchmark_hash, benchmark_rows)
    return run_id
