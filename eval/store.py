"""Evaluation results in the lakehouse: every run, every system, every query, queryable in SQL and
comparable across index builds, annotators, embedders, code and configs (method.md, "What neither
paper has").

    eval_runs            one row per run: what was evaluated, on what, with which code and config
    eval_query_results   one row per run x system x setting x benchmark instance
    eval_aggregates      one row per run x system x setting (the `advisor eval --out` fields)
    intent_eval          one row per run x intent: the build's intent router on the held-out split

Every row of the last three repeats the run's lineage (build_id, annotator, embedder,
code_version, config_hash, benchmark, benchmark_hash), so "one system across builds" or "this
embedder vs that one" is a WHERE clause, not a join. Recall columns are `recall_at_k` (SQL
identifiers without quoting); `aggregates_frame` gives them back as "recall@k", the name the
reports and the `--out` file use. A run is written in one transaction: a half-recorded run never
exists. Nothing personal is stored: benchmark profiles are not copied here (they are in the file
whose hash the run records).
"""

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
import polars as pl

from advisor.lakehouse import insert_rows, one, scalar, transaction
from eval.outfile import METRIC_FIELDS

__all__ = [
    "LINEAGE_FIELDS",
    "RunMeta",
    "aggregates_frame",
    "ensure_schema",
    "evaluation_code_version",
    "find_run",
    "intent_frame",
    "latest_run",
    "meta_from_build",
    "per_query_frame",
    "record_run",
    "run_info",
]

LINEAGE_FIELDS = ("build_id", "annotator", "embedder", "code_version", "config_hash", "benchmark", "benchmark_hash")

_LINEAGE_DDL = """
    build_id        VARCHAR NOT NULL,
    annotator       VARCHAR,
    embedder        VARCHAR,
    code_version    VARCHAR NOT NULL,
    config_hash     VARCHAR NOT NULL,
    benchmark       VARCHAR NOT NULL,
    benchmark_hash  VARCHAR NOT NULL"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS eval_runs (
    run_id          VARCHAR PRIMARY KEY,
    started_at      TIMESTAMPTZ NOT NULL,
    finished_at     TIMESTAMPTZ NOT NULL,
    benchmark       VARCHAR NOT NULL,      -- the benchmark file as given (path or name)
    benchmark_hash  VARCHAR NOT NULL,      -- sha256 of its bytes (first 16 hex)
    instances       INTEGER NOT NULL,
    build_id        VARCHAR NOT NULL,      -- -> index_builds.build_id
    annotator       VARCHAR,
    annotator_version VARCHAR,
    embedder        VARCHAR,
    embedder_version VARCHAR,
    code_version    VARCHAR NOT NULL,      -- hash of the evaluation + serving code
    config_hash     VARCHAR NOT NULL,      -- institution config fingerprint
    institution     VARCHAR,
    systems         VARCHAR[] NOT NULL,
    settings        VARCHAR[] NOT NULL,
    llm_model       VARCHAR,               -- the LLM behind LLM systems / judges; NULL = offline run
    fingerprint     VARCHAR NOT NULL,      -- everything that decides the results: same = reusable
    params          JSON,                  -- what the runner used (k, retrieval params, judges ...)
    dagster_run_id  VARCHAR                -- NULL for `advisor eval` runs
);

CREATE TABLE IF NOT EXISTS eval_query_results (
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,  -- deployment | oracle
    instance_id          VARCHAR NOT NULL,  -- the benchmark instance's id
    category             VARCHAR,
    query_type           VARCHAR,
    gold_sources         VARCHAR[],
    rank                 INTEGER,           -- gold source's rank among distinct top-50 sources; NULL = not retrieved
    retrieved_urls       VARCHAR[],         -- top-50 distinct sources
    retrieved_chunk_ids  VARCHAR[],         -- top-10 chunks
    questions_asked      INTEGER,           -- profile questions the system asked
    questions            VARCHAR[],         -- the attributes it asked about
    answer               VARCHAR,
    citations            VARCHAR[],
    tier                 VARCHAR,           -- urag: template | faq | documents | fallback
    answer_method        VARCHAR,
    rouge_l              DOUBLE,
    token_f1             DOUBLE,
    keyword_match        DOUBLE,
    source_match         DOUBLE,
    answer_correctness   DOUBLE,            -- LLM judges; NULL = not judged
    grounded_correctness DOUBLE,
    seconds              DOUBLE,
    llm_calls            INTEGER,
    llm_tokens           BIGINT,
    extra                JSON,              -- row keys this schema does not know yet
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting, instance_id)
);

CREATE TABLE IF NOT EXISTS eval_aggregates (
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,
    n                    INTEGER NOT NULL,
    mrr                  DOUBLE,
    recall_at_1          DOUBLE,
    recall_at_5          DOUBLE,
    recall_at_10         DOUBLE,
    recall_at_50         DOUBLE,
    rouge_l              DOUBLE,
    token_f1             DOUBLE,
    keyword_match        DOUBLE,
    source_match         DOUBLE,
    grounded_correctness DOUBLE,
    seconds_per_query    DOUBLE,
    questions_per_query  DOUBLE,
    skipped              VARCHAR,           -- NULL, or why the system did not run
    tiers                JSON,              -- urag: template, faq, documents, fallback -> share
    extra                JSON,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting)
);

CREATE TABLE IF NOT EXISTS intent_eval (
    run_id           VARCHAR NOT NULL,
    intent           VARCHAR NOT NULL,
    precision        DOUBLE NOT NULL,
    recall           DOUBLE NOT NULL,
    f1               DOUBLE NOT NULL,
    support          INTEGER NOT NULL,
    n                INTEGER NOT NULL,      -- test examples in all (same on every row of a run)
    accuracy         DOUBLE NOT NULL,
    macro_f1         DOUBLE NOT NULL,
    router           VARCHAR,               -- the classifier version evaluated
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, intent)
);
"""

# per-query row key -> column; list columns hold URLs / ids / attribute names
QUERY_COLUMNS = (
    "system", "setting", "instance_id", "category", "query_type", "gold_sources", "rank", "retrieved_urls",
    "retrieved_chunk_ids", "questions_asked", "questions", "answer", "citations", "tier", "answer_method",
    "rouge_l", "token_f1", "keyword_match", "source_match", "answer_correctness", "grounded_correctness",
    "seconds", "llm_calls", "llm_tokens",
)
_LIST_COLUMNS = ("gold_sources", "retrieved_urls", "retrieved_chunk_ids", "questions", "citations")
_AGGREGATE_KNOWN = ("system", "setting", "n", *METRIC_FIELDS, "skipped", "tiers")


def _column(field_name: str) -> str:
    return field_name.replace("@", "_at_")  # "recall@10" -> recall_at_10


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Creates the evaluation tables if absent (safe to call on every open)."""
    con.execute(SCHEMA)


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
                    llm_model: str | None = None, dagster_run_id: str | None = None) -> RunMeta:
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
        dagster_run_id=dagster_run_id,
    )


# Code that decides evaluation results: the eval package minus its presentation and storage, the
# serving code the systems run, and the LLM prompts. Hashing the files (not imported modules)
# gives the same version in every process, whatever it happened to import.
_CODE_PATHS = ("eval", "serving", "advisor/llm", "assets/evaluation.py")
_NOT_RESULT_CODE = ("eval/store.py", "eval/outfile.py", "eval/reports.py", "serving/api/", "serving/web/")


def evaluation_code_version(root: Path | None = None) -> str:
    root = Path(root) if root is not None else Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in _CODE_PATHS:
        top = root / name
        for path in sorted(top.rglob("*.py")) if top.is_dir() else [top]:
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


_NUMERIC_QUERY = ("rank", "questions_asked", "rouge_l", "token_f1", "keyword_match", "source_match",
                  "answer_correctness", "grounded_correctness", "seconds", "llm_calls", "llm_tokens")


def _query_row(row: Mapping, lineage: dict, run_id: str) -> dict:
    where = f"per-query row {row.get('system')}/{row.get('setting')}/{row.get('instance_id')}"
    for key in ("system", "setting", "instance_id"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    out = {"run_id": run_id, **lineage}
    for key in QUERY_COLUMNS:
        value = row.get(key)
        if key in _LIST_COLUMNS:
            value = _string_list(value, f"{where}.{key}")
        elif key in _NUMERIC_QUERY:
            value = _finite(value, f"{where}.{key}")
        out[key] = value
    extra = {k: v for k, v in row.items() if k not in QUERY_COLUMNS}
    out["extra"] = _json(extra) if extra else None
    return out


def _aggregate_row(row: Mapping, lineage: dict, run_id: str) -> dict:
    where = f"aggregate row {row.get('system')}/{row.get('setting')}"
    for key in ("system", "setting"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise ValueError(f"{where}: {key!r} must be a non-empty string")
    n = row.get("n")
    if n is None and row.get("skipped") is not None:
        n = 0  # a skipped system evaluated no query
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{where}: n must be a non-negative int, got {n!r}")
    out = {"run_id": run_id, **lineage, "system": row["system"], "setting": row["setting"], "n": n,
           "skipped": row.get("skipped"), "tiers": _json(row.get("tiers"))}
    for name in METRIC_FIELDS:
        out[_column(name)] = _finite(row.get(name), f"{where}.{name}")
    extra = {k: v for k, v in row.items() if k not in _AGGREGATE_KNOWN}
    out["extra"] = _json(extra) if extra else None
    return out


def _intent_rows(report: Mapping, lineage: dict, run_id: str, router: str | None) -> list[dict]:
    """Rows from `eval.metrics.intent_report` (or the classifier's `evaluate`): one per intent."""
    per_class = report.get("per_class")
    if not isinstance(per_class, Mapping) or not per_class:
        raise ValueError("intent report: 'per_class' must be a non-empty object of intent -> scores")
    return [
        {"run_id": run_id, **lineage, "intent": intent, "precision": scores["precision"], "recall": scores["recall"],
         "f1": scores["f1"], "support": scores["support"], "n": report["n"], "accuracy": report["accuracy"],
         "macro_f1": report["macro_f1"], "router": router}
        for intent, scores in per_class.items()
    ]


def _unique(rows: Sequence[dict], keys: tuple[str, ...], what: str) -> None:
    seen = set()
    for row in rows:
        key = tuple(row[k] for k in keys)
        if key in seen:
            raise ValueError(f"{what}: more than one row for {dict(zip(keys, key))}")
        seen.add(key)


def record_run(con: duckdb.DuckDBPyConnection, *, outcome, run_meta: RunMeta, intent: Mapping | None = None,
               intent_router: str | None = None) -> str:
    """Writes one run (its eval_runs row, per-query rows, aggregates and, when given, the intent
    evaluation) in one transaction and returns its run_id. `outcome` is an EvalOutcome (or any
    object with per_query, aggregates and params). Recording the same run_id again replaces it."""
    run_id = run_meta.run_id
    lineage = run_meta.lineage()
    missing = [name for name in ("build_id", "code_version", "config_hash", "benchmark", "benchmark_hash")
               if not lineage.get(name)]
    if missing:
        raise ValueError(f"run_meta lacks lineage: {missing}")
    query_rows = [_query_row(r, lineage, run_id) for r in outcome.per_query]
    aggregate_rows = [_aggregate_row(r, lineage, run_id) for r in outcome.aggregates]
    _unique(query_rows, ("system", "setting", "instance_id"), "per-query results")
    _unique(aggregate_rows, ("system", "setting"), "aggregates")
    intent_rows = _intent_rows(intent, lineage, run_id, intent_router) if intent is not None else []
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
    }
    ensure_schema(con)
    with transaction(con):
        for table in ("eval_query_results", "eval_aggregates", "intent_eval", "eval_runs"):
            con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        insert_rows(con, "eval_runs", [run_row])
        insert_rows(con, "eval_query_results", query_rows)
        insert_rows(con, "eval_aggregates", aggregate_rows)
        insert_rows(con, "intent_eval", intent_rows)
    return run_id


# --- reading -----------------------------------------------------------------------------------


def _run_dict(con: duckdb.DuckDBPyConnection, where: str, params: list) -> dict | None:
    frame = con.sql(f"SELECT * FROM eval_runs WHERE {where} ORDER BY finished_at DESC, run_id LIMIT 1",
                    params=params).pl()
    if frame.is_empty():
        return None
    row = frame.to_dicts()[0]
    row["params"] = json.loads(row["params"]) if row.get("params") else {}
    return row


def latest_run(con: duckdb.DuckDBPyConnection, benchmark: str | None = None) -> dict | None:
    """The most recently finished run (its eval_runs row as a dict, params parsed), optionally of
    one benchmark, given by the name it was recorded under or by its hash; None when none."""
    if benchmark is None:
        return _run_dict(con, "TRUE", [])
    return _run_dict(con, "benchmark = ? OR benchmark_hash = ?", [benchmark, benchmark])


def run_info(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The eval_runs row of one run as a dict (params parsed); KeyError when there is none."""
    row = _run_dict(con, "run_id = ?", [run_id])
    if row is None:
        raise KeyError(f"no evaluation run {run_id!r} in eval_runs")
    return row


def find_run(con: duckdb.DuckDBPyConnection, fingerprint: str) -> str | None:
    """The latest run with this fingerprint (its results can be reused), or None."""
    return scalar(con, "SELECT run_id FROM eval_runs WHERE fingerprint = ? ORDER BY finished_at DESC LIMIT 1",
                  [fingerprint])


def _require_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    if one(con, "SELECT 1 FROM eval_runs WHERE run_id = ?", [run_id]) is None:
        raise KeyError(f"no evaluation run {run_id!r} in eval_runs")


def aggregates_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting of a run, with the `--out` field names (recall@k) plus the
    lineage columns, shaped for eval.reports (table1_markdown, write_report ...). `tiers` stays
    JSON text."""
    _require_run(con, run_id)
    recall = ", ".join(f'{_column(f)} AS "{f}"' for f in METRIC_FIELDS if "@" in f)
    others = ", ".join(f for f in METRIC_FIELDS if "@" not in f)
    return con.sql(
        f"SELECT system, setting, n, {recall}, {others}, skipped, tiers, {', '.join(LINEAGE_FIELDS)} "
        "FROM eval_aggregates WHERE run_id = ? ORDER BY setting, system", params=[run_id]).pl()


def per_query_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting x instance of a run (the per-query keys), for the breakdowns."""
    _require_run(con, run_id)
    return con.sql(f"SELECT {', '.join(QUERY_COLUMNS)} FROM eval_query_results WHERE run_id = ? "
                   "ORDER BY setting, system, instance_id", params=[run_id]).pl()


def intent_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The intent evaluation of a run (empty when the run had none)."""
    _require_run(con, run_id)
    return con.sql("SELECT intent, precision, recall, f1, support, n, accuracy, macro_f1, router FROM intent_eval "
                   "WHERE run_id = ? ORDER BY intent", params=[run_id]).pl()

