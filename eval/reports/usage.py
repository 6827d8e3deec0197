"""The evaluation report's "What students asked" section: read from the usage tables the pipeline's
`coverage` asset writes (advisor/usage/tables.py; docs/lakehouse.md, "Usage"), when they hold rows.

The benchmark says how well the system answers the questions it was given; this section says which
questions students actually asked, how each tier answered them day by day, and which ones the
material did not answer: the two together tell an office where to write next. Reads only (a
lakehouse opened read-only works; one made before the usage tables existed has no section rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from eval.reports.table import Column, ReportTable

__all__ = ["NO_USAGE", "UsageReport", "clusters_table", "read_usage", "shares_table", "usage_markdown"]

HEADING = "What students asked"
CLUSTERS_HEADING = "Questions the material did not answer well"
NO_USAGE = ("No usage data yet: the served assistant logs its questions under <warehouse>/usage/ and the "
            "`coverage` asset reads them (advisor materialize); this section fills once it has.")
TOP_CLUSTERS = 15
CHART_FILE = "usage_shares.png"
CHART_CAPTION = "Share of each day's questions answered by the FAQ, the documents and the fallback"


@dataclass(frozen=True)
class UsageReport:
    days: tuple[dict, ...]  # usage_coverage_daily rows, oldest first
    clusters: tuple[dict, ...]  # usage_clusters rows, rank order
    chart: Path | None = None  # the shares chart, once drawn


def read_usage(con: duckdb.DuckDBPyConnection) -> UsageReport | None:
    """The coverage tables' rows, or None when there are none (no tables yet, or no question logged)."""
    present = {name for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if not {"usage_coverage_daily", "usage_clusters"} <= present:
        return None
    days = con.sql("SELECT * FROM usage_coverage_daily ORDER BY day").pl().to_dicts()
    if not days:
        return None
    clusters = con.sql(f"SELECT * FROM usage_clusters ORDER BY rank LIMIT {TOP_CLUSTERS}").pl().to_dicts()
    return UsageReport(tuple(days), tuple(clusters))


def shares_table(days: Sequence[dict]) -> ReportTable:
    columns = (Column("day", "day", "text"), Column("questions", "questions", "int"),
               Column("FAQ", "share_faq", decimals=2), Column("documents", "share_documents", decimals=2),
               Column("fallback", "share_fallback", decimals=2), Column("template", "share_template", decimals=2),
               Column("low score", "low_score", "int"))
    return ReportTable(columns, tuple(days), notes=(
        "Shares of the day's logged questions by the tier that answered; low score: FAQ answers below the "
        "build's calibrated threshold (advisor/usage/coverage.py).",), empty=NO_USAGE)


def clusters_table(clusters: Sequence[dict]) -> ReportTable:
    rows = tuple({**c, "examples_text": " / ".join(c.get("examples") or []),
                  "page": c.get("nearest_page_title") or c.get("nearest_page_url")} for c in clusters)
    columns = (Column("#", "rank", "int"), Column("asked", "questions", "int"),
               Column("unanswered", "unanswered", "int"), Column("low score", "low_score", "int"),
               Column("example questions", "examples_text", "text"),
               Column("nearest FAQ entry", "nearest_faq_question", "text"),
               Column("FAQ score", "nearest_faq_score", decimals=2), Column("nearest page", "page", "text"))
    return ReportTable(columns, rows, notes=(
        "Unanswered and low-score questions grouped by meaning (the encoder), most asked first; the whole list is "
        "the lakehouse table usage_clusters and reports/coverage_clusters.csv.",),
        empty="No unanswered or low-score questions in the retention window.")


def usage_markdown(usage: UsageReport | None) -> str:
    if usage is None:
        return f"## {HEADING}\n\n{NO_USAGE}"
    chart = f"\n\n![{CHART_CAPTION}]({usage.chart.name})" if usage.chart is not None else ""
    return (f"## {HEADING}\n\n{shares_table(usage.days[-31:]).markdown()}{chart}\n\n### {CLUSTERS_HEADING}\n\n"
            f"{clusters_table(usage.clusters).markdown()}")
