"""Usage stage: what students asked and what they said about the answers, from the record files
serving appends under `<warehouse>/usage/` (advisor/usage/logfiles.py) into the lakehouse, and the
coverage report an advising office reads (advisor/usage/coverage.py). Serving never writes DuckDB:
these assets do. Each one skips its work when the files it reads (names and sizes), its code and
its settings are what its last run saw; with no record files yet, each writes empty tables and says so."""


import time
from collections import Counter
from datetime import datetime, timezone

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue

from advisor.usage import coverage as coverage_logic
from advisor.usage import logfiles, tables
from advisor.usage import nearest as nearest_module
from advisor.usage.logfiles import ReadReport
from advisor.versioning import code_version
from assets.indexing import index_build
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, WarehouseResource
from assets.stage import begin, stage_asset

GROUP = "usage"
QUESTION_LOG_CODE = code_version(logfiles, tables, coverage_logic)
FEEDBACK_CODE = code_version(logfiles, tables)
COVERAGE_CODE = code_version(tables, coverage_logic, nearest_module) + coverage_logic.words_version()
NO_FILES = "no usage records yet: serving writes them under <warehouse>/usage/ once students ask"


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=QUESTION_LOG_CODE)
def question_log(context: AssetExecutionContext, institution: InstitutionResource,
                 warehouse: WarehouseResource) -> MaterializeResult:
    """The anonymized question log (scrubbed question, language, tier, answer method, score, hour) of the retention
    window in `usage_questions`, each row marked low_score when answered below the build's own bar; day folders older
    than usage.retention_days are deleted from the record files first. Lines a killed writer left half-written are
    skipped and counted."""
    config, started = begin(context, institution, "reading the question log")
    clock = time.perf_counter()
    root = tables.usage_root(warehouse.root)
    pruned = logfiles.prune(root, config.usage.retention_days, datetime.now(timezone.utc).date())
    served = nearest_module.served_build(warehouse.root)
    fingerprint = tables.files_fingerprint(root, ["questions"], QUESTION_LOG_CODE, config.usage.retention_days,
                                           served.name if served else None)
    report = ReadReport()
    with warehouse.connect() as con:
        reused = not pruned and tables.previous_fingerprint(con, "question_log") == fingerprint
        if reused:
            rows = tables.questions_from_table(con)
        else:
            rows = tables.read_questions(root, report)
            thresholds = nearest_module.build_thresholds(warehouse.root, {r["build_id"] for r in rows})
            for row in rows:
                row["low_score"] = coverage_logic.is_low_score(row, thresholds)
                row["run_id"] = context.run_id
            tables.replace_table(con, "usage_questions", rows)
        tiers = Counter(r["tier"] for r in rows)
        metadata = {
            "dagster/row_count": len(rows), "fingerprint": fingerprint, "reused": reused,
            "files": report.files, "skipped_lines": report.skipped_lines, "pruned_days": len(pruned),
            "retention_days": config.usage.retention_days, "low_score": sum(bool(r["low_score"]) for r in rows),
            **{f"tier_{tier}": tiers.get(tier, 0) for tier in coverage_logic.TIERS},
            "first_day": str(min(r["day"] for r in rows)) if rows else "none",
            "last_day": str(max(r["day"] for r in rows)) if rows else "none",
            "seconds": round(time.perf_counter() - clock, 3),
            **({} if rows else {"note": NO_FILES}),
        }
        record_lineage(context, con, config, asset="question_log", started_at=started, code_version=QUESTION_LOG_CODE,
                       row_count=len(rows), counts={"rows_added": 0 if reused else len(rows),
                                                    "rows_unchanged": len(rows) if reused else 0,
                                                    "failures": report.skipped_lines}, metadata=metadata)
    return MaterializeResult(metadata=metadata)


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=FEEDBACK_CODE, deps=[question_log])
def feedback(context: AssetExecutionContext, institution: InstitutionResource,
             warehouse: WarehouseResource) -> MaterializeResult:
    """Every helpful / not helpful of the retention window in `usage_feedback`, with the tier and answer method of
    the answer it rated (joined through answer_id to the question log); the share found helpful per tier and the
    reasons given."""
    config, started = begin(context, institution, "reading the answers' feedback")
    clock = time.perf_counter()
    root = tables.usage_root(warehouse.root)
    report = ReadReport()
    with warehouse.connect() as con:
        # the join reads the question log's rows: a new question_log run can change it
        fingerprint = tables.files_fingerprint(root, ["feedback"], FEEDBACK_CODE,
                                               tables.previous_fingerprint(con, "question_log"))
        reused = tables.previous_fingerprint(con, "feedback") == fingerprint
        if reused:
            rows = con.sql("SELECT * FROM usage_feedback").pl().to_dicts()
        else:
            rows = tables.read_feedback(root, tables.questions_from_table(con), report)
            for row in rows:
                row["run_id"] = context.run_id
            tables.replace_table(con, "usage_feedback", rows)
        summary = feedback_summary(rows)
        metadata = {"dagster/row_count": len(rows), "fingerprint": fingerprint, "reused": reused,
                    "files": report.files, "skipped_lines": report.skipped_lines, **summary,
                    "seconds": round(time.perf_counter() - clock, 3), **({} if rows else {"note": NO_FILES})}
        record_lineage(context, con, config, asset="feedback", started_at=started, code_version=FEEDBACK_CODE,
                       row_count=len(rows), counts={"rows_added": 0 if reused else len(rows),
                                                    "rows_unchanged": len(rows) if reused else 0,
                                                    "failures": report.skipped_lines}, metadata=metadata)
    return MaterializeResult(metadata={**metadata, "per_tier": MetadataValue.md(feedback_markdown(rows))})


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=COVERAGE_CODE, deps=[question_log, index_build])
def coverage(context: AssetExecutionContext, institution: InstitutionResource,
             warehouse: WarehouseResource) -> MaterializeResult:
    """What the material answers: the share of each day's questions answered by the FAQ, the documents and the
    fallback (`usage_coverage_daily`), and the unanswered and low-score questions grouped by meaning with the
    encoder and ranked by how often they were asked, each group with up to 3 example questions and the served build's
    nearest FAQ entry and page (`usage_clusters`, and `<warehouse>/reports/coverage_clusters.csv` for the office)."""
    config, started = begin(context, institution, "grouping the questions the material did not answer")
    clock = time.perf_counter()
    served = nearest_module.served_build(warehouse.root)
    csv_path = warehouse.root / "reports" / tables.CLUSTERS_CSV
    with warehouse.connect() as con:
        fingerprint = tables.files_fingerprint(tables.usage_root(warehouse.root), [], COVERAGE_CODE,
                                               tables.previous_fingerprint(con, "question_log"),
                                               served.name if served else None)
        reused = tables.previous_fingerprint(con, "coverage") == fingerprint and csv_path.exists()
        if reused:
            days = con.sql("SELECT * FROM usage_coverage_daily ORDER BY day").pl().to_dicts()
            clusters = con.sql("SELECT * FROM usage_clusters ORDER BY rank").pl().to_dicts()
            clustering = "reused"
        else:
            questions = tables.questions_from_table(con)
            days = [{**d, "run_id": context.run_id} for d in coverage_logic.daily_shares(questions)]
            clusters, clustering = _clusters(questions, served, config)
            clusters = [{**c, "run_id": context.run_id} for c in clusters]
            tables.replace_table(con, "usage_coverage_daily", days)
            tables.replace_table(con, "usage_clusters", clusters)
            tables.write_clusters_csv(csv_path, clusters)
        window = coverage_logic.window_shares(days)
        latest = days[-1] if days else {}
        metadata = {
            "dagster/row_count": len(clusters), "fingerprint": fingerprint, "reused": reused, "days": len(days),
            "questions": window["questions"], "clusters": len(clusters), "clustering": clustering,
            # numbers the UI plots across materializations: the window's shares, and the newest day's
            **{f"share_{tier}": round(window[f"share_{tier}"], 4) for tier in coverage_logic.TIERS
               if window[f"share_{tier}"] is not None},
            **{f"latest_day_share_{tier}": round(latest[f"share_{tier}"], 4)
               for tier in ("faq", "documents", "fallback") if latest},
            "unanswered": sum(c["unanswered"] for c in clusters), "low_score": sum(c["low_score"] for c in clusters),
            "build_id": served.name if served else "none", "csv": str(csv_path),
            "seconds": round(time.perf_counter() - clock, 3),
            **({} if days else {"note": NO_FILES}),
        }
        record_lineage(context, con, config, asset="coverage", started_at=started, code_version=COVERAGE_CODE,
                       row_count=len(clusters), counts={"rows_added": 0 if reused else len(clusters) + len(days),
                                                        "rows_unchanged": len(clusters) + len(days) if reused else 0},
                       metadata=metadata)
    return MaterializeResult(metadata={
        **metadata, "csv": MetadataValue.path(str(csv_path)),
        "shares_per_day": MetadataValue.md(coverage_logic.shares_markdown(days)),
        "top_clusters": MetadataValue.md(coverage_logic.clusters_markdown(clusters)),
    })


def _clusters(questions, served, config) -> tuple[list[dict], str]:
    """The ranked groups and how they were made (for the metadata)."""
    if not any(coverage_logic.needs_material(q) for q in questions):
        return [], "nothing unanswered"
    from advisor.chunking.token_cache import tokenizer_for
    from advisor.index.embedders import E5Embedder, EncoderUnavailable
    from advisor.retrieval.glossary import shipped_glossary

    try:
        # the offline encoder of the index, without the lakehouse's embedding cache: a student's question
        # (its hash and vector) must not outlive the retention window in a table no pruning reaches
        encoder = E5Embedder()
    except EncoderUnavailable as exc:
        return [], f"not clustered: {exc}"
    background = coverage_logic.seed_background(coverage_logic.SEED_VECTORS, encoder.version)
    glossary = shipped_glossary()

    def prepare(text: str) -> str:
        return glossary.translate(text)[0]  # English words in the institution's terms, as serving searches

    groups = coverage_logic.cluster_questions(
        questions, lambda texts: coverage_logic.centered(encoder.embed_queries(texts), background),
        tokenizer_for(config).key_words, prepare)
    lookup = nearest_module.NearestMaterial(served, config).lookup if served is not None and groups else None
    how = (f"e5 and topic terms ({coverage_logic.LEXICAL_SHARE}), average linkage at distance "
           f"{coverage_logic.CLUSTER_DISTANCE}")
    return coverage_logic.cluster_rows(groups, lookup, prepare), how + ("" if lookup else "; no build to compare with")


def feedback_summary(rows) -> dict:
    """The share found helpful, overall and per tier of the rated answer, and the reasons given."""
    rated = [r for r in rows if r["helpful"] is not None]
    out: dict = {"helpful_share": round(sum(r["helpful"] for r in rated) / len(rated), 4) if rated else None}
    for tier in coverage_logic.TIERS:
        of_tier = [r for r in rated if r["tier"] == tier]
        if of_tier:
            out[f"helpful_share_{tier}"] = round(sum(r["helpful"] for r in of_tier) / len(of_tier), 4)
    reasons = Counter(r["reason"] for r in rows if r["reason"])
    out.update({f"reason_{reason}": n for reason, n in sorted(reasons.items())})
    out["unmatched"] = sum(r["tier"] is None for r in rows)  # rated answers whose question is not in the log
    return {k: v for k, v in out.items() if v is not None}


def feedback_markdown(rows) -> str:
    if not rows:
        return "No feedback in the retention window."
    lines = ["| tier | rated | helpful | not helpful | reasons |", "|---|---:|---:|---:|---|"]
    for tier in (*coverage_logic.TIERS, None):
        of_tier = [r for r in rows if r["tier"] == tier]
        if not of_tier:
            continue
        reasons = Counter(r["reason"] for r in of_tier if r["reason"])
        helpful, unhelpful = (sum(r["helpful"] is value for r in of_tier) for value in (True, False))
        lines.append(f"| {tier or '(not in the log)'} | {len(of_tier)} | {helpful} | {unhelpful} | "
                     f"{', '.join(f'{k} {n}' for k, n in reasons.most_common()) or '—'} |")
    return "\n".join(lines)
