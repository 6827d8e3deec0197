"""Evaluation results in the lakehouse: every run, every system, every query, queryable in SQL and
comparable across index builds, annotators, embedders, code and configs (docs/method.md, "What neither
paper has").

    eval_runs              one row per run: what was evaluated, on what, with which code and config,
                           and where its gold came from (gold_from: truth | annotations | benchmark)
    eval_query_results     one row per run x system x setting x benchmark instance
    eval_aggregates        one row per run x system x setting (the `advisor eval --out` fields), over
                           the main slice (profile_dependent when the benchmark has it, else all)
    eval_slice_aggregates  one row per run x system x setting x benchmark slice
    eval_intervals         one row per run x system x setting x slice x metric: its 95% interval
                           (eval/stats.py: a bootstrap over distinct question texts)
    eval_tests             one row per run x setting x metric x system x baseline: a paired test,
                           Holm-corrected, with wins / ties / losses over question texts
    compare_runs(a, b)     a table macro: two runs' intervals side by side; flipped_questions(a, b)
                           the instances whose first-ranked source turned gold or stopped being
    intent_eval            one row per run x intent: the build's intent router on the held-out split
    intent_predictions     one row per run x held-out example: what the router said, and how sure
    benchmark_instances    one row per benchmark (by hash) x instance: the question, its hidden
                           profile and gold, so every eval_query_results row joins to them on
                           (benchmark_hash, instance_id)

Every result row repeats the run's lineage (build_id, annotator, embedder, code_version,
config_hash, benchmark, benchmark_hash), so "one system across builds" or "this embedder vs that
one" is a WHERE clause, not a join. Metric columns are `recall_at_k` / `success_at_k` (SQL
identifiers without quoting); the frames give them back as "recall@k" / "success@k", the names the
reports and the `--out` file use. recall_at_k is TREC recall (share of the instance's gold sources
in the top k); success_at_k is "any gold source in the top k" (eval/metrics.py). A run is written
in one transaction: a half-recorded run never exists. The benchmark profiles stored are the
benchmark's synthetic (or outside) test personas, never a student's.

Older lakehouses are migrated on open (`ensure_schema`): new columns are added, no row is lost,
and the runs recorded before success@k existed are corrected once: what they stored as recall@k
was success@k, so it moves to success_at_k, and recall_at_k and gold_ranks are recomputed from
the stored top-50 sources (eval_query_results.retrieved_urls) by the same rule as a new run.
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
from eval import metrics
from eval.outfile import METRIC_FIELDS
from eval.registry import REFERENCE_SYSTEM, TRUE_LABEL_SYSTEM
from eval.provenance import gold_from_of, instance_gold_from
from eval.study import DDL as STUDY_DDL

__all__ = [
    "LINEAGE_FIELDS",
    "RunMeta",
    "aggregates_frame",
    "benchmark_frame",
    "comparison_frame",
    "ensure_schema",
    "evaluation_code_version",
    "find_run",
    "flipped_frame",
    "gold_from_of",
    "intent_frame",
    "intent_predictions_frame",
    "intervals_frame",
    "label_gap_inputs",
    "latest_run",
    "meta_from_build",
    "per_query_frame",
    "previous_run",
    "record_benchmark",
    "record_run",
    "run_info",
    "slice_aggregates_frame",
    "tests_frame",
]

LINEAGE_FIELDS = ("build_id", "annotator", "embedder", "code_version", "config_hash", "benchmark", "benchmark_hash")

def _column(field_name: str) -> str:
    return field_name.replace("@", "_at_")  # "recall@10" -> recall_at_10


_METRIC_DDL = ",\n".join(f"    {_column(name):<20} DOUBLE" for name in METRIC_FIELDS)

_LINEAGE_DDL = """
    build_id        VARCHAR NOT NULL,
    annotator       VARCHAR,
    embedder        VARCHAR,
    code_version    VARCHAR NOT NULL,
    config_hash     VARCHAR NOT NULL,
    benchmark       VARCHAR NOT NULL,
    benchmark_hash  VARCHAR NOT NULL"""

# the message sets' runs (advisor eval --testsets / --devsets; eval/sets/runs.py writes them)
TESTSET_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS testset_runs (   -- one row per message set per run (test and development sets)
    run_id        VARCHAR NOT NULL,
    set_name      VARCHAR NOT NULL,          -- demo | business | realfaq | …
    purpose       VARCHAR NOT NULL,          -- test (locked, aggregates only) | development
    file_hash     VARCHAR NOT NULL,          -- sha256 of the set file as run
    items         INTEGER NOT NULL,
    code_version  VARCHAR NOT NULL,          -- the git commit ("+dirty" with uncommitted changes)
    build_id      VARCHAR NOT NULL,          -- the index build that answered
    embedder      VARCHAR,
    started_at    TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ NOT NULL,
    metrics       JSON NOT NULL,             -- {metric: {value, n}}
    PRIMARY KEY (run_id, set_name)
);
"""

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
    dagster_run_id  VARCHAR,               -- NULL for `advisor eval` runs
    gold_from       VARCHAR                -- truth | annotations | benchmark (comma-joined when mixed); NULL = unknown
);

CREATE TABLE IF NOT EXISTS eval_query_results (
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,  -- deployment | deployment-dont-know | oracle
    instance_id          VARCHAR NOT NULL,  -- the benchmark instance's id (-> benchmark_instances)
    category             VARCHAR,
    query_type           VARCHAR,           -- formal | first_person | verification | verification_true ...
    slice                VARCHAR,           -- profile_dependent | profile_independent | stated_profile | all
    gold_sources         VARCHAR[],
    rank                 INTEGER,           -- first gold's rank among the distinct top-50 sources; NULL = none
    gold_ranks           INTEGER[],         -- ranks of every gold source found (one per gold matched), sorted
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
    n                    INTEGER NOT NULL,  -- instances of `slice` (skipped: 0)
{_METRIC_DDL},
    skipped              VARCHAR,           -- NULL, or why the system did not run
    tiers                JSON,              -- urag: template, faq, documents, fallback -> share (+ accuracy)
    slice                VARCHAR,           -- the slice these numbers are over: profile_dependent, else all
    extra                JSON,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting)
);

CREATE TABLE IF NOT EXISTS eval_slice_aggregates (
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,
    slice                VARCHAR NOT NULL,
    n                    INTEGER NOT NULL,
{_METRIC_DDL},
    tiers                JSON,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting, slice)
);

CREATE TABLE IF NOT EXISTS eval_intervals (   -- eval/stats.py: how sure each figure is
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,
    slice                VARCHAR NOT NULL,
    metric               VARCHAR NOT NULL,  -- eval.stats.INTERVAL_METRICS: mrr, success@1, … judged@10
    value                DOUBLE NOT NULL,   -- the mean over the slice's instances (as eval_slice_aggregates)
    lower                DOUBLE NOT NULL,   -- the interval, `level` two-sided
    upper                DOUBLE NOT NULL,
    level                DOUBLE NOT NULL,
    instances            INTEGER NOT NULL,
    texts                INTEGER NOT NULL,  -- distinct question texts: the resampling unit
    too_small            BOOLEAN NOT NULL,  -- under 30 distinct texts: not evidence of anything
    resamples            INTEGER NOT NULL,
    method               VARCHAR NOT NULL,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting, slice, metric)
);

CREATE TABLE IF NOT EXISTS eval_tests (   -- eval/stats.py: each system against each baseline, paired
    run_id               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,
    slice                VARCHAR NOT NULL,  -- the headline slice
    metric               VARCHAR NOT NULL,  -- mrr | success@10
    system               VARCHAR NOT NULL,
    baseline             VARCHAR NOT NULL,  -- bm25 | hybrid
    baseline_setting     VARCHAR NOT NULL,  -- deployment where the baseline asks nothing (deployment-dont-know)
    system_value         DOUBLE NOT NULL,
    baseline_value       DOUBLE NOT NULL,
    difference           DOUBLE NOT NULL,   -- system - baseline, over the same instances
    p_value              DOUBLE NOT NULL,   -- two-sided, paired randomization over per-text means
    p_holm               DOUBLE NOT NULL,   -- Holm-adjusted within (run, setting, metric)
    significant          BOOLEAN NOT NULL,  -- p_holm < 0.05
    family_size          INTEGER NOT NULL,  -- the comparisons Holm corrected together
    wins                 INTEGER NOT NULL,  -- question texts where the system's per-text mean is higher
    ties                 INTEGER NOT NULL,
    losses               INTEGER NOT NULL,
    instances            INTEGER NOT NULL,
    texts                INTEGER NOT NULL,
    permutations         INTEGER NOT NULL,
    method               VARCHAR NOT NULL,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, setting, metric, system, baseline)
);

CREATE TABLE IF NOT EXISTS intent_predictions (
    run_id           VARCHAR NOT NULL,
    example_id       VARCHAR NOT NULL,      -- -> intent_examples.example_id
    text             VARCHAR NOT NULL,
    intent           VARCHAR NOT NULL,      -- the gold label
    predicted        VARCHAR NOT NULL,
    confidence       DOUBLE,                -- the predicted intent's probability; NULL = the router gives none
    router           VARCHAR,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, example_id)
);

CREATE TABLE IF NOT EXISTS benchmark_instances (
    benchmark_hash   VARCHAR NOT NULL,      -- sha256 of the benchmark file's bytes (first 16 hex)
    instance_id      VARCHAR NOT NULL,
    benchmark        VARCHAR NOT NULL,      -- the file as first recorded (path or name)
    query            VARCHAR NOT NULL,
    query_type       VARCHAR,
    category         VARCHAR,
    slice            VARCHAR NOT NULL,      -- all = the instance names none
    profile          JSON,                  -- the hidden (test) profile
    gold_sources     VARCHAR[] NOT NULL,
    keywords         VARCHAR[],
    reference_answer VARCHAR,
    premise          VARCHAR,               -- verification questions: true | false
    gold_from        VARCHAR NOT NULL,      -- truth | annotations | benchmark (the instance gave none)
    provenance       JSON,                  -- every other key of the instance (gold_chunk_id, written_by ...)
    recorded_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (benchmark_hash, instance_id)
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

-- The dialogue benchmark (eval/dialogue/): one row per message per run, one row per metric per run.
CREATE TABLE IF NOT EXISTS dialogue_bench_results (
    run_id             VARCHAR NOT NULL,
    message_id         VARCHAR NOT NULL,
    text               VARCHAR NOT NULL,
    category           VARCHAR NOT NULL,    -- greeting | ability | smalltalk | faq | retrieval | profile_independent | out_of_scope
    register           VARCHAR NOT NULL,    -- polite | banmal | typo | nospace | emoji | english | mixed
    expected_intent    VARCHAR,             -- NULL: out_of_scope (any non-answer will do)
    expected_behaviour VARCHAR NOT NULL,    -- template | faq_entry | answer | no_question | fallback
    gold_from          VARCHAR NOT NULL,    -- templates | faq_store
    expected_faq       VARCHAR,             -- the FAQ entry (source_url) that should answer
    routed_intent      VARCHAR,
    effective_intent   VARCHAR,             -- what the student got, as an intent (eval/dialogue/metrics.py)
    reply_kind         VARCHAR NOT NULL,    -- template | question | answer (the first reply)
    tier               VARCHAR,             -- the final reply's tier
    answer_method      VARCHAR,
    faq_cited          VARCHAR,
    first_citation     VARCHAR,
    verbatim           BOOLEAN NOT NULL,
    questions_asked    INTEGER NOT NULL,
    seconds            DOUBLE,
    build_id           VARCHAR NOT NULL,
    institution        VARCHAR NOT NULL,
    messages_hash      VARCHAR NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    answer             VARCHAR,             -- the final reply's text
    cited_chunk_ids    VARCHAR[],           -- what it cited (the judge reads these chunks)
    judge_answers      BOOLEAN,             -- LLM judge (NULL without an LLM, or when judging failed)
    judge_supported    BOOLEAN,             -- every claim in the cited text (NULL: nothing cited)
    judge_admits_unknown BOOLEAN,           -- the reply says it does not know
    judge_reason       VARCHAR,
    judge_model        VARCHAR,
    judge_failure      VARCHAR,             -- why judging this row failed
    PRIMARY KEY (run_id, message_id)
);

CREATE TABLE IF NOT EXISTS dialogue_bench_metrics (
    run_id             VARCHAR NOT NULL,
    metric             VARCHAR NOT NULL,
    scope              VARCHAR NOT NULL,    -- all | an intent | a register
    value              DOUBLE,              -- NULL: no message fits (n = 0)
    n                  INTEGER NOT NULL,
    build_id           VARCHAR NOT NULL,
    institution        VARCHAR NOT NULL,
    messages_hash      VARCHAR NOT NULL,
    code_version       VARCHAR NOT NULL,
    fingerprint        VARCHAR NOT NULL,    -- build, code, config, messages: an equal one is reused
    gold_from          VARCHAR NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    missing            VARCHAR,             -- why value is NULL when an LLM metric has no LLM
    PRIMARY KEY (run_id, metric, scope)
);
""" + TESTSET_RUNS_DDL

# After the tables they read.
MACROS = """
-- Two runs side by side (docs/lakehouse.md "Comparing runs"): every interval of both, and whether
-- the later value left the earlier one's interval; the questions whose first answer flipped.
CREATE OR REPLACE MACRO compare_runs(before_run, after_run) AS TABLE
SELECT coalesce(b.system, a.system) AS system, coalesce(b.setting, a.setting) AS setting,
       coalesce(b.slice, a.slice) AS slice, coalesce(b.metric, a.metric) AS metric,
       a.value AS before, a.lower AS before_lower, a.upper AS before_upper,
       b.value AS after, b.lower AS after_lower, b.upper AS after_upper,
       b.value - a.value AS change,
       coalesce(b.value NOT BETWEEN a.lower AND a.upper, false) AS moved,
       coalesce(a.too_small OR b.too_small, false) AS too_small
FROM (SELECT * FROM eval_intervals WHERE run_id = before_run) a
FULL JOIN (SELECT * FROM eval_intervals WHERE run_id = after_run) b
  ON a.system = b.system AND a.setting = b.setting AND a.slice = b.slice AND a.metric = b.metric;

CREATE OR REPLACE MACRO flipped_questions(before_run, after_run) AS TABLE
SELECT b.system, b.setting, b.instance_id, b.slice, i.query, a.rank AS before_rank, b.rank AS after_rank,
       CASE WHEN b.rank = 1 THEN 'now first' ELSE 'no longer first' END AS flip
FROM (SELECT * FROM eval_query_results WHERE run_id = before_run) a
JOIN (SELECT * FROM eval_query_results WHERE run_id = after_run) b
  ON a.system = b.system AND a.setting = b.setting AND a.instance_id = b.instance_id
LEFT JOIN benchmark_instances i ON i.benchmark_hash = b.benchmark_hash AND i.instance_id = b.instance_id
WHERE coalesce(a.rank = 1, false) <> coalesce(b.rank = 1, false);
"""

# Columns added since the first version of these tables: added to an older lakehouse on open.
ADDED_COLUMNS = (
    ("eval_runs", "gold_from", "VARCHAR"),
    ("eval_query_results", "slice", "VARCHAR"),
    ("eval_query_results", "gold_ranks", "INTEGER[]"),
    *(("eval_aggregates", _column(f"success@{k}"), "DOUBLE") for k in metrics.CUTOFFS),
    ("eval_aggregates", "slice", "VARCHAR"),
    *(("dialogue_bench_results", column, kind) for column, kind in (
        ("answer", "VARCHAR"), ("cited_chunk_ids", "VARCHAR[]"), ("judge_answers", "BOOLEAN"),
        ("judge_supported", "BOOLEAN"), ("judge_admits_unknown", "BOOLEAN"), ("judge_reason", "VARCHAR"),
        ("judge_model", "VARCHAR"), ("judge_failure", "VARCHAR"))),
    ("dialogue_bench_metrics", "missing", "VARCHAR"),
)

# per-query row key -> column; list columns hold URLs / ids / attribute names
QUERY_COLUMNS = (
    "system", "setting", "instance_id", "category", "query_type", "slice", "gold_sources", "rank", "gold_ranks",
    "retrieved_urls", "retrieved_chunk_ids", "questions_asked", "questions", "answer", "citations", "tier",
    "answer_method", "rouge_l", "token_f1", "keyword_match", "source_match", "answer_correctness",
    "grounded_correctness", "seconds", "llm_calls", "llm_tokens",
)
_LIST_COLUMNS = ("gold_sources", "retrieved_urls", "retrieved_chunk_ids", "questions", "citations")
_AGGREGATE_KNOWN = ("system", "setting", "n", *METRIC_FIELDS, "skipped", "tiers", "slice", "slices")
# benchmark instance keys with a column of their own; every other key goes to `provenance`
_INSTANCE_COLUMNS = ("id", "query", "query_type", "category", "slice", "profile", "gold_sources", "keywords",
                     "reference_answer", "premise", "gold_from")


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    rows = con.execute("SELECT table_name, column_name FROM information_schema.columns "
                       "WHERE table_schema = current_schema()").fetchall()
    found: dict[str, set[str]] = {}
    for table, column in rows:
        found.setdefault(table, set()).add(column)
    return found


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Creates the evaluation tables if absent and migrates older ones (safe to call on every
    open): added columns are added, no row is lost, and runs recorded before success@k existed
    are corrected once (module docstring)."""
    before = _columns(con)
    pending = [(t, c, kind) for t, c, kind in ADDED_COLUMNS if t in before and c not in before[t]]
    con.execute(SCHEMA)
    con.execute(STUDY_DDL)  # the preference study's tables (eval/study.py, the preference_study asset)
    if pending:
        with transaction(con):
            for table, column, kind in pending:
                con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
            if ("eval_aggregates", "success_at_1", "DOUBLE") in pending:
                _correct_runs_before_success(con)
    con.execute(MACROS)  # after the migration: they read the added columns


def _correct_runs_before_success(con: duckdb.DuckDBPyConnection) -> None:
    """Runs recorded before success@k existed stored success@k as recall_at_k and no gold ranks:
    move the values to success_at_k, and recompute gold_ranks and TREC recall_at_k from each
    query's stored top-50 distinct sources with the same rule (`metrics.gold_ranks`)."""
    old = con.execute("SELECT run_id, system, setting, instance_id, gold_sources, retrieved_urls "
                      "FROM eval_query_results WHERE gold_ranks IS NULL AND gold_sources IS NOT NULL "
                      "AND len(gold_sources) > 0 AND retrieved_urls IS NOT NULL").fetchall()
    if old:
        ranks = pl.DataFrame(
            [{"run_id": r, "system": s, "setting": t, "instance_id": i, "gold_ranks": metrics.gold_ranks(urls, golds)}
             for r, s, t, i, golds, urls in old],
            schema={"run_id": pl.String, "system": pl.String, "setting": pl.String, "instance_id": pl.String,
                    "gold_ranks": pl.List(pl.Int32)})
        con.register("_gold_ranks", ranks.to_arrow())
        try:
            con.execute("UPDATE eval_query_results q SET gold_ranks = g.gold_ranks FROM _gold_ranks g "
                        "WHERE q.run_id = g.run_id AND q.system = g.system AND q.setting = g.setting "
                        "AND q.instance_id = g.instance_id")
        finally:
            con.unregister("_gold_ranks")
    con.execute(f"UPDATE eval_query_results SET slice = '{metrics.UNSLICED}' WHERE slice IS NULL")
    moved = ", ".join(f"{_column(f'success@{k}')} = {_column(f'recall@{k}')}" for k in metrics.CUTOFFS)
    con.execute(f"UPDATE eval_aggregates SET {moved}, slice = '{metrics.UNSLICED}' WHERE slice IS NULL")
    recall = ", ".join(
        f"avg(len(list_filter(gold_ranks, lambda r: r <= {k})) / len(list_distinct(gold_sources))) AS r{k}"
        for k in metrics.CUTOFFS)
    assign = ", ".join(f"{_column(f'recall@{k}')} = q.r{k}" for k in metrics.CUTOFFS)
    con.execute(f"UPDATE eval_aggregates a SET {assign} FROM (SELECT run_id, system, setting, {recall} "
                "FROM eval_query_results GROUP BY ALL) q "
                "WHERE a.run_id = q.run_id AND a.system = q.system AND a.setting = q.setting AND a.skipped IS NULL")


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
    gold_from: str | None = None  # eval.provenance.gold_from_of(instances); None: derived when recording them
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
_NOT_RESULT_CODE = ("eval/store.py", "eval/outfile.py", "eval/reports.py", "eval/report_data.py",
                    "eval/report_tables.py", "eval/report_charts.py", "eval/readme_results.py", "eval/provenance.py",
                    "eval/fleet.py",  # compares stored runs across institutions; produces none
                    "eval/report_html.py", "eval/run_report.py",  # render a stored run's report page
                    "serving/api/", "serving/web/",
                    "eval/dialogue/")  # the dialogue benchmark: its own runs, its own code version


def evaluation_code_version(root: Path | None = None) -> str:
    root = Path(root) if root is not None else Path(__file__).resolve().parent.parent
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


_NUMERIC_QUERY = ("rank", "questions_asked", "rouge_l", "token_f1", "keyword_match", "source_match",
                  "answer_correctness", "grounded_correctness", "seconds", "llm_calls", "llm_tokens")


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
    for key in QUERY_COLUMNS:
        value = row.get(key)
        if key in _LIST_COLUMNS:
            value = _string_list(value, f"{where}.{key}")
        elif key in _NUMERIC_QUERY:
            value = _finite(value, f"{where}.{key}")
        elif key == "gold_ranks":
            value = _rank_list(value, f"{where}.{key}")
        elif key == "slice":
            value = metrics.slice_of(row)
        out[key] = value
    extra = {k: v for k, v in row.items() if k not in QUERY_COLUMNS}
    out["extra"] = _json(extra) if extra else None
    return out


def _count(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: n must be a non-negative int, got {value!r}")
    return value


def _metric_columns(row: Mapping, where: str) -> dict:
    return {_column(name): _finite(row.get(name), f"{where}.{name}") for name in METRIC_FIELDS}


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
    extra = {k: v for k, v in row.items() if k not in _AGGREGATE_KNOWN}
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
            "slice": metrics.slice_of(inst), "profile": _json(inst.get("profile")), "gold_sources": golds,
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
    aggregates, per-slice aggregates, the outcome's intervals and paired tests (eval/stats.py; none
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


# Reading works on a lakehouse opened read-only before it was migrated: a column or table that
# does not exist yet reads as NULL / no rows, so the reports of old runs still render.
_COLUMN_TYPES = {"gold_ranks": "INTEGER[]", "n": "INTEGER", "confidence": "DOUBLE",
                 **dict.fromkeys(("system", "setting", "slice", "tiers", "example_id", "text", "intent", "predicted",
                                  "router"), "VARCHAR")}


def _select(con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[tuple[str, str]], run_id: str,
            order: str) -> pl.DataFrame:
    """SELECT column AS alias, ... FROM table WHERE run_id = ? ORDER BY order; absent columns NULL."""
    _require_run(con, run_id)
    present = _columns(con).get(table)
    if present is None:
        nulls = ", ".join(f'CAST(NULL AS {_COLUMN_TYPES.get(c, "DOUBLE")}) AS "{a}"' for c, a in columns)
        return con.sql(f"SELECT {nulls} LIMIT 0").pl()
    listed = ", ".join(f'{c} AS "{a}"' if c in present else f'CAST(NULL AS {_COLUMN_TYPES.get(c, "DOUBLE")}) AS "{a}"'
                       for c, a in columns)
    return con.sql(f"SELECT {listed} FROM {table} WHERE run_id = ? ORDER BY {order}", params=[run_id]).pl()


def _metric_select(con: duckdb.DuckDBPyConnection | None = None) -> list[tuple[str, str]]:
    """(column, field) of every metric. A lakehouse not migrated yet (read-only) stored success@k
    under recall_at_k: read it as success@k, and recall@k as not computed (NULL)."""
    old = con is not None and "success_at_1" not in _columns(con).get("eval_aggregates", {"success_at_1"})
    pairs = []
    for name in METRIC_FIELDS:
        if old and name.startswith("success@"):
            pairs.append((_column(name.replace("success@", "recall@")), name))
        elif old and name.startswith("recall@"):
            pairs.append(("__not_recorded", name))
        else:
            pairs.append((_column(name), name))
    return pairs


def aggregates_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting of a run, with the `--out` field names (recall@k, success@k),
    `slice` (what the row is over) and the lineage columns, shaped for eval.reports
    (table1_markdown, write_report ...). `tiers` stays JSON text."""
    columns = [("system", "system"), ("setting", "setting"), ("n", "n"), *_metric_select(con),
               ("skipped", "skipped"), ("tiers", "tiers"), ("slice", "slice"), *((f, f) for f in LINEAGE_FIELDS)]
    return _select(con, "eval_aggregates", columns, run_id, "setting, system")


def slice_aggregates_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting x slice of a run (empty for runs recorded before slices)."""
    columns = [("system", "system"), ("setting", "setting"), ("slice", "slice"), ("n", "n"), *_metric_select(),
               ("tiers", "tiers")]
    return _select(con, "eval_slice_aggregates", columns, run_id, "setting, system, slice")


def run_aggregates(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict]:
    """A recorded run's aggregates as the runner gave them (system, setting, n, the metric fields,
    skipped, tiers, slice, slices), in the run's system x setting order: what a reused run's
    `--out` file is written from."""
    slices: dict[tuple, dict] = {}
    for row in slice_aggregates_frame(con, run_id).to_dicts():
        entry = {k: v for k, v in row.items() if k not in ("system", "setting", "slice")}
        entry["tiers"] = json.loads(entry["tiers"]) if entry["tiers"] else None
        slices.setdefault((row["system"], row["setting"]), {})[row["slice"]] = entry
    run = run_info(con, run_id)
    order = {name: i for i, name in enumerate(run["systems"])}, {name: i for i, name in enumerate(run["settings"])}
    out = []
    for row in aggregates_frame(con, run_id).to_dicts():
        aggregate = {k: row[k] for k in ("system", "setting", "n", *METRIC_FIELDS, "skipped", "slice")}
        aggregate["tiers"] = json.loads(row["tiers"]) if row["tiers"] else None
        aggregate["slices"] = slices.get((row["system"], row["setting"]))
        out.append(aggregate)
    return sorted(out, key=lambda a: (order[0].get(a["system"], len(order[0])), order[1].get(a["setting"], 0)))


def per_query_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """One row per system x setting x instance of a run (the per-query keys), for the breakdowns."""
    return _select(con, "eval_query_results", [(c, c) for c in QUERY_COLUMNS], run_id, "setting, system, instance_id")


def intent_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The intent evaluation of a run (empty when the run had none)."""
    _require_run(con, run_id)
    return con.sql("SELECT intent, precision, recall, f1, support, n, accuracy, macro_f1, router FROM intent_eval "
                   "WHERE run_id = ? ORDER BY intent", params=[run_id]).pl()


def intent_predictions_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """Every held-out example the run's intent router saw (empty when none was recorded)."""
    columns = [(c, c) for c in ("example_id", "text", "intent", "predicted", "confidence", "router")]
    return _select(con, "intent_predictions", columns, run_id, "example_id")


def label_gap_inputs(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[dict, dict]:
    """What eval/label_gap.py splits proFILL's gap with: ({setting: (profill rows, true-label rows)}
    with instance_id, rank and label_errors, {attribute: exact_match / precision / recall} of the
    run's annotator, latest measurement). Settings without both systems are left out."""
    _require_run(con, run_id)
    rows: dict[str, dict[str, list]] = {}
    for system, setting, instance_id, rank, errors in con.execute(
            "SELECT system, setting, instance_id, rank, json_extract_string(extra, '$.label_errors') "
            "FROM eval_query_results WHERE run_id = ? AND system IN (?, ?) "
            "AND slice = (SELECT any_value(slice) FILTER (WHERE slice IS NOT NULL) FROM eval_aggregates WHERE run_id = ?) "
            "ORDER BY instance_id", [run_id, REFERENCE_SYSTEM, TRUE_LABEL_SYSTEM, run_id]).fetchall():
        rows.setdefault(setting, {}).setdefault(system, []).append(
            {"instance_id": instance_id, "rank": rank, "label_errors": json.loads(errors) if errors else []})
    pairs = {setting: (found[REFERENCE_SYSTEM], found[TRUE_LABEL_SYSTEM]) for setting, found in rows.items()
             if REFERENCE_SYSTEM in found and TRUE_LABEL_SYSTEM in found}
    accuracy = {}
    if "annotation_accuracy" in _columns(con):
        for attribute, exact, precision, recall in con.execute(
                "SELECT attribute, arg_max(exact_match, measured_at), arg_max(precision, measured_at), "
                "arg_max(recall, measured_at) FROM annotation_accuracy WHERE annotator = "
                "(SELECT annotator FROM eval_runs WHERE run_id = ?) GROUP BY attribute", [run_id]).fetchall():
            accuracy[attribute] = {"exact_match": exact, "precision": precision, "recall": recall}
    return pairs, accuracy


def benchmark_frame(con: duckdb.DuckDBPyConnection, benchmark_hash: str) -> pl.DataFrame:
    """The recorded instances of one benchmark (by hash); empty when it was never recorded."""
    if "benchmark_instances" not in _columns(con):
        return pl.DataFrame()
    return con.sql("SELECT * FROM benchmark_instances WHERE benchmark_hash = ? ORDER BY instance_id",
                   params=[benchmark_hash]).pl()


def intervals_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The 95% intervals of a run (eval/stats.py), one row per system x setting x slice x metric;
    empty for runs recorded before intervals existed."""
    columns = [(c, c) for c in ("system", "setting", "slice", "metric", "value", "lower", "upper", "instances",
                                "texts", "too_small")]
    return _select(con, "eval_intervals", columns, run_id, "setting, system, slice, metric")


def tests_frame(con: duckdb.DuckDBPyConnection, run_id: str) -> pl.DataFrame:
    """The paired tests of a run against its baselines (eval/stats.py); empty before they existed."""
    columns = [(c, c) for c in ("setting", "slice", "metric", "system", "baseline", "baseline_setting",
                                "system_value", "baseline_value", "difference", "p_value", "p_holm", "significant",
                                "family_size", "wins", "ties", "losses", "texts")]
    return _select(con, "eval_tests", columns, run_id, "setting, metric, baseline, system")


def previous_run(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """The run finished last before `run_id` on the same benchmark (by name, so a regenerated
    benchmark still compares) and the same institution, with statistics to compare; None when none
    (also in a lakehouse from before the statistics, opened read-only before it was migrated)."""
    if "eval_intervals" not in _columns(con):
        return None
    return scalar(con, "SELECT p.run_id FROM eval_runs p, eval_runs r WHERE r.run_id = ? AND p.run_id <> r.run_id "
                       "AND p.benchmark = r.benchmark AND p.institution IS NOT DISTINCT FROM r.institution "
                       "AND p.finished_at < r.finished_at "
                       "AND EXISTS (SELECT 1 FROM eval_intervals i WHERE i.run_id = p.run_id) "
                       "ORDER BY p.finished_at DESC LIMIT 1", [run_id])


def comparison_frame(con: duckdb.DuckDBPyConnection, before: str, after: str) -> pl.DataFrame:
    """compare_runs(before, after) (the lakehouse's macro): every interval of both runs side by side."""
    return con.sql("SELECT * FROM compare_runs(?, ?) ORDER BY setting, system, slice, metric",
                   params=[before, after]).pl()


def flipped_frame(con: duckdb.DuckDBPyConnection, before: str, after: str) -> pl.DataFrame:
    """flipped_questions(before, after): the instances whose first-ranked source turned gold or stopped being."""
    return con.sql("SELECT * FROM flipped_questions(?, ?) ORDER BY setting, system, instance_id",
                   params=[before, after]).pl()
