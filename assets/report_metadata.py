"""Report tables as Dagster metadata a data engineer sees on an asset's page.

How the Dagster UI (1.13) renders them, read from dagster-webserver's bundled ui-core source
(metadata/MetadataEntry.tsx, ui/MarkdownWithPlugins.tsx):
- a table entry (`MetadataValue.table`) is drawn as a table right in the Metadata list, in a
  column too narrow for a wide one (Table 1 showed its first column and a half);
- a Markdown entry is drawn inline only when shorter than 1,000 characters, else behind a
  "[Show Markdown]" link that opens it in a dialog (clipped at 1280 px).
So the evaluation report is a page of its own (report.html, eval/reports/page.py) that the
`evaluation_report` asset links; the typed table stays for what is read as records (the
`evaluation` asset's Table 1).
"""

from __future__ import annotations

from dagster import MetadataValue, TableColumn, TableRecord, TableSchema

from eval.reports.table import ReportTable

__all__ = ["table_value"]

_TYPES = {"text": "string", "int": "int", "float": "float"}


def table_value(table: ReportTable) -> MetadataValue:
    """The report table as a Dagster table: the same rows and rounded numbers as its Markdown,
    null where a metric was not computed, plus columns the Markdown keeps in footnotes."""
    schema = TableSchema(columns=[TableColumn(name=c.name, type=_TYPES[c.kind]) for c in table.columns])
    return MetadataValue.table(records=[TableRecord(data=record) for record in table.records()], schema=schema)
