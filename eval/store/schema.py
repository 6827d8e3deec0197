"""The evaluation's tables in the lakehouse (their overview: eval/store/__init__.py): the DDL,
the macros, the columns added since the first version and the migration of older lakehouses."""

from __future__ import annotations

import duckdb
import polars as pl

from advisor.lakehouse import transaction
from eval.metrics import registry as metric_registry
from eval.metrics.slices import UNSLICED
from eval.metrics.sources import gold_ranks
from eval.study import DDL as STUDY_DDL

LINEAGE_FIELDS = ("build_id", "annotator", "embedder", "code_version", "config_hash", "benchmark", "benchmark_hash")



def _metric_ddl() -> str:
    """A column per registered metric (eval/metrics/registry.py), as the aggregate tables have them."""
    return ",\n".join(f"    {m.column:<20} DOUBLE" for m in metric_registry.METRICS)


def _scored_ddl() -> str:
    """The scored metrics' per-query columns, as eval_query_results has them."""
    return "".join(f"    {name:<20} DOUBLE,\n" for name in metric_registry.per_query_columns())

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

def schema() -> str:
    """Every evaluation table's DDL, with a column for each registered metric."""
    return f"""
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
{_scored_ddl()}    seconds              DOUBLE,
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
{_metric_ddl()},
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
{_metric_ddl()},
    tiers                JSON,
    {_LINEAGE_DDL},
    PRIMARY KEY (run_id, system, setting, slice)
);

CREATE TABLE IF NOT EXISTS eval_intervals (   -- eval/metrics/stats.py: how sure each figure is
    run_id               VARCHAR NOT NULL,
    system               VARCHAR NOT NULL,
    setting              VARCHAR NOT NULL,
    slice                VARCHAR NOT NULL,
    metric               VARCHAR NOT NULL,  -- eval.metrics.stats.interval_metrics(): mrr, success@1, … judged@10
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

CREATE TABLE IF NOT EXISTS eval_tests (   -- eval/metrics/stats.py: each system against each baseline, paired
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


def added_columns() -> tuple[tuple[str, str, str], ...]:
    """(table, column, type) of every column added since the first version of these tables: added
    to an older lakehouse on open. Every registered metric's columns are among them, so a metric
    added to the registry reaches the lakehouses recorded before it."""
    metric_columns = (*(("eval_query_results", name, "DOUBLE") for name in metric_registry.per_query_columns()),
                      *((table, m.column, "DOUBLE") for table in ("eval_aggregates", "eval_slice_aggregates")
                        for m in metric_registry.METRICS))
    return tuple(dict.fromkeys((
        ("eval_runs", "gold_from", "VARCHAR"),
        ("eval_query_results", "slice", "VARCHAR"),
        ("eval_query_results", "gold_ranks", "INTEGER[]"),
        *metric_columns,
        ("eval_aggregates", "slice", "VARCHAR"),
        *(("dialogue_bench_results", name, kind) for name, kind in (
            ("answer", "VARCHAR"), ("cited_chunk_ids", "VARCHAR[]"), ("judge_answers", "BOOLEAN"),
            ("judge_supported", "BOOLEAN"), ("judge_admits_unknown", "BOOLEAN"), ("judge_reason", "VARCHAR"),
            ("judge_model", "VARCHAR"), ("judge_failure", "VARCHAR"))),
        ("dialogue_bench_metrics", "missing", "VARCHAR"),
    )))


# per-query row key -> column; list columns hold URLs / ids / attribute names
_QUERY_ANSWER = (
    "system", "setting", "instance_id", "category", "query_type", "slice", "gold_sources", "rank", "gold_ranks",
    "retrieved_urls", "retrieved_chunk_ids", "questions_asked", "questions", "answer", "citations", "tier",
    "answer_method",
)
_QUERY_COST = ("seconds", "llm_calls", "llm_tokens")


def query_columns() -> tuple[str, ...]:
    """eval_query_results' columns of a per-query row: the answer's, the scored metrics', the cost."""
    return (*_QUERY_ANSWER, *metric_registry.per_query_columns(), *_QUERY_COST)


def table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
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
    before = table_columns(con)
    pending = [(t, c, kind) for t, c, kind in added_columns() if t in before and c not in before[t]]
    con.execute(schema())
    con.execute(STUDY_DDL)  # the preference study's tables (eval/study.py, the preference_study asset)
    if pending:
        with transaction(con):
            for table, column, kind in pending:
                con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
            if ("eval_aggregates", "success_at_1", "DOUBLE") in pending:
                _correct_runs_before_success(con)
    con.execute(MACROS)  # after the migration: they read the added columns


def _column(name: str) -> str:
    return metric_registry.metric(name).column


def _correct_runs_before_success(con: duckdb.DuckDBPyConnection) -> None:
    """Runs recorded before success@k existed stored success@k as recall_at_k and no gold ranks:
    move the values to success_at_k, and recompute gold_ranks and TREC recall_at_k from each
    query's stored top-50 distinct sources with the same rule (`eval.metrics.sources.gold_ranks`)."""
    old = con.execute("SELECT run_id, system, setting, instance_id, gold_sources, retrieved_urls "
                      "FROM eval_query_results WHERE gold_ranks IS NULL AND gold_sources IS NOT NULL "
                      "AND len(gold_sources) > 0 AND retrieved_urls IS NOT NULL").fetchall()
    if old:
        ranks = pl.DataFrame(
            [{"run_id": r, "system": s, "setting": t, "instance_id": i, "gold_ranks": gold_ranks(urls, golds)}
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
    con.execute(f"UPDATE eval_query_results SET slice = '{UNSLICED}' WHERE slice IS NULL")
    moved = ", ".join(f"{_column(f'success@{k}')} = {_column(f'recall@{k}')}" for k in metric_registry.CUTOFFS)
    con.execute(f"UPDATE eval_aggregates SET {moved}, slice = '{UNSLICED}' WHERE slice IS NULL")
    recall = ", ".join(
        f"avg(len(list_filter(gold_ranks, lambda r: r <= {k})) / len(list_distinct(gold_sources))) AS r{k}"
        for k in metric_registry.CUTOFFS)
    assign = ", ".join(f"{_column(f'recall@{k}')} = q.r{k}" for k in metric_registry.CUTOFFS)
    con.execute(f"UPDATE eval_aggregates a SET {assign} FROM (SELECT run_id, system, setting, {recall} "
                "FROM eval_query_results GROUP BY ALL) q "
                "WHERE a.run_id = q.run_id AND a.system = q.system AND a.setting = q.setting AND a.skipped IS NULL")
