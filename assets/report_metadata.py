"""Report tables and charts as Dagster metadata a data engineer sees on the asset's page.

How the Dagster UI (1.13) renders them, read from dagster-webserver's bundled ui-core source
(metadata/MetadataEntry.tsx, ui/MarkdownWithPlugins.tsx):
- a table entry (`MetadataValue.table`) is drawn as a table right in the Metadata list;
- a Markdown entry is drawn inline only when shorter than 1,000 characters, else behind a
  "[Show Markdown]" link that opens it in a dialog; its images may be `data:` URIs (the
  sanitizer allows the data protocol for `src`, and react-markdown leaves image URLs alone).
So each chart is its own Markdown entry holding the PNG as a base64 `data:` URI: one click on
the asset page shows the picture, and nothing depends on the UI reaching the warehouse's files.
"""

from __future__ import annotations

import base64
from pathlib import Path

from dagster import MetadataValue, TableColumn, TableRecord, TableSchema

from eval.report_tables import ReportTable

__all__ = ["chart_value", "table_value"]

_TYPES = {"text": "string", "int": "int", "float": "float"}


def table_value(table: ReportTable) -> MetadataValue:
    """The report table as a Dagster table: the same rows and rounded numbers as its Markdown,
    null where a metric was not computed, plus columns the Markdown keeps in footnotes."""
    schema = TableSchema(columns=[TableColumn(name=c.name, type=_TYPES[c.kind]) for c in table.columns])
    return MetadataValue.table(records=[TableRecord(data=record) for record in table.records()], schema=schema)


def chart_value(path: Path, caption: str) -> MetadataValue:
    """A PNG chart as Markdown with the image inline (data: URI), captioned."""
    encoded = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return MetadataValue.md(f"**{caption}**\n\n![{caption}](data:image/png;base64,{encoded})")
