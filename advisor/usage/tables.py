"""The usage records in the lakehouse: the tables the `question_log`, `feedback` and `coverage`
assets write (their DDL is advisor/lakehouse's USAGE_SCHEMA; docs/lakehouse.md, "Usage"), and
reading the record files into their rows.

Each table holds the retention window and nothing else: a run replaces it whole from the files
(`replace_table`), so a day pruned from the files leaves the table too, and running twice on the
same files writes the same rows. What a run read is named by `files_fingerprint` (every file's
name and size: an appended line changes a size, a new worker or day a name), so an asset whose
files, code and settings are unchanged skips its work (`previous_fingerprint`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path

import duckdb

from advisor.lakehouse import insert_rows, scalar, transaction
from advisor.usage.logfiles import ReadReport, read_records

USAGE_DIR = "usage"  # <warehouse>/usage: what serving appends (advisor/usage/logfiles.py)
CLUSTERS_CSV = "coverage_clusters.csv"  # <warehouse>/reports/coverage_clusters.csv: the office's copy

TABLES = ("usage_questions", "usage_feedback", "usage_coverage_daily", "usage_clusters")  # lakehouse.USAGE_SCHEMA


def usage_root(warehouse: Path) -> Path:
    return Path(warehouse) / USAGE_DIR


def files_fingerprint(root: Path, kinds: Iterable[str], *extra: object) -> str:
    """A hash of every record file of `kinds` (its path under `root` and its size) and `extra`
    (code version, settings, a build id): equal fingerprints, equal rows."""
    digest = hashlib.sha256()
    for kind in sorted(kinds):
        for path in sorted((Path(root) / kind).glob("????-??-??/*.jsonl")):
            digest.update(f"{path.relative_to(root).as_posix()}\t{path.stat().st_size}\n".encode())
    for value in extra:
        digest.update(f"{value}\n".encode())
    return digest.hexdigest()[:16]


def previous_fingerprint(con: duckdb.DuckDBPyConnection, asset: str) -> str | None:
    """The fingerprint the asset's last run recorded in its `materializations` row."""
    return scalar(con, "SELECT json_extract_string(metadata, '$.fingerprint') FROM materializations "
                       "WHERE asset = ? ORDER BY finished_at DESC LIMIT 1", [asset])


def replace_table(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Mapping]) -> None:
    """The table's rows become `rows` (one transaction): it mirrors the files' window."""
    with transaction(con):
        con.execute(f"DELETE FROM {table}")
        insert_rows(con, table, list(rows))


def read_questions(root: Path, report: ReadReport | None = None) -> list[dict]:
    """Every "questions" record in the files, as rows of usage_questions (without low_score and
    run_id, which the caller sets)."""
    rows = []
    for record in read_records(root, "questions", report):
        rows.append({
            "answer_id": _text(record.get("answer_id")), "day": date.fromisoformat(record["day"]),
            "hour": _text(record.get("hour")), "question": _text(record.get("question")),
            "language": _text(record.get("language")), "intent": _text(record.get("intent")),
            "tier": _text(record.get("tier")), "answer_method": _text(record.get("answer_method")),
            "score": _number(record.get("score")), "answered": _answered(record),
            "build_id": _text(record.get("build_id")),
        })
    return rows


def read_feedback(root: Path, questions: Sequence[Mapping], report: ReadReport | None = None) -> list[dict]:
    """Every "feedback" record as a row of usage_feedback, with the tier, method and language of
    the answer it rated where that answer's question is in the log (matched by answer_id)."""
    by_answer = {q["answer_id"]: q for q in questions if q.get("answer_id")}
    rows = []
    for record in read_records(root, "feedback", report):
        rated = by_answer.get(_text(record.get("answer_id")), {})
        helpful = record.get("helpful")
        rows.append({
            "answer_id": _text(record.get("answer_id")), "day": date.fromisoformat(record["day"]),
            "hour": _text(record.get("hour")), "helpful": helpful if isinstance(helpful, bool) else None,
            "reason": _text(record.get("reason")), "tier": rated.get("tier"),
            "answer_method": rated.get("answer_method"), "language": rated.get("language"),
        })
    return rows


def questions_from_table(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """usage_questions as dicts (what the feedback and coverage assets read: the question log's
    rows, already pruned to the window)."""
    frame = con.sql("SELECT * FROM usage_questions ORDER BY day, hour, answer_id").pl()
    return frame.to_dicts()


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _answered(record: Mapping) -> bool | None:
    answered = record.get("answered")
    if isinstance(answered, bool):
        return answered
    tier = record.get("tier")
    return None if tier is None else tier != "fallback"


CSV_COLUMNS = ("rank", "questions", "unanswered", "low_score", "example_1", "example_2", "example_3", "languages",
               "first_day", "last_day", "nearest_faq_question", "nearest_faq_url", "nearest_faq_score",
               "nearest_page_title", "nearest_page_url", "build_id")


def write_clusters_csv(path: Path, rows: Sequence[Mapping]) -> Path:
    """usage_clusters as a CSV an office opens in a spreadsheet: UTF-8 with a byte-order mark (Excel
    reads Korean right only with one), one row per group, its examples in three columns. A cell that
    a spreadsheet would take for a formula (a student's text starting with =, +, - or @) is written
    with a leading apostrophe, so opening the file never runs what a student typed."""
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            examples = list(row.get("examples") or [])[:3] + [""] * 3
            values = {**row, "example_1": examples[0], "example_2": examples[1], "example_3": examples[2],
                      "languages": " ".join(row.get("languages") or [])}
            writer.writerow([_cell(values.get(column)) for column in CSV_COLUMNS])
    tmp.replace(path)  # a spreadsheet open on the old file never sees half a new one
    return path


def _cell(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        return str(value)  # a number or a date: never a formula
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
