"""One table of the evaluation report, rendered two ways from the same rows: GitHub Markdown (the
report file, the README, the terminal) and plain records with typed columns (what an asset turns
into a Dagster table; assets/report_metadata.py). Keeping one model means the two can never
disagree about a number.

A cell that was not computed is None: "–" in Markdown, null in the records. Numbers are rounded
to the column's decimals in both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["MISSING", "Column", "ReportTable", "metric_columns", "number", "text_columns"]

MISSING = "–"  # en dash: a metric that was not computed
KINDS = ("text", "int", "float")


def number(value: object) -> float | None:
    """The value as a finite float, or None when it was not computed (None, NaN, not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if math.isfinite(result) else None


@dataclass(frozen=True)
class Column:
    name: str  # the header
    key: str  # the row's key
    kind: str = "float"  # text | int | float
    decimals: int = 3
    markdown: bool = True  # False: only in the records (e.g. the skip reason, a footnote in Markdown)
    right: bool = False  # right-align a text column in Markdown (preformatted numbers); numbers always are

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"column {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")

    def value(self, row: Mapping):
        raw = row.get(self.key)
        if self.kind == "text":
            return None if raw is None else str(raw)
        value = number(raw)
        if value is None:
            return None
        return int(round(value)) if self.kind == "int" else round(value, self.decimals)

    def cell(self, row: Mapping) -> str:
        value = self.value(row)
        if value is None:
            return "" if self.kind == "text" else MISSING
        if self.kind == "float":
            return f"{value + 0.0:.{self.decimals}f}"  # + 0.0: never "-0.000"
        return str(value)


def _escaped(text: str) -> str:
    # A pipe or newline inside a cell would break the Markdown table.
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


@dataclass(frozen=True)
class ReportTable:
    columns: tuple[Column, ...]
    rows: tuple[Mapping, ...]
    notes: tuple[str, ...] = field(default=())  # lines printed under the Markdown table
    empty: str = "No results."  # what the Markdown says when there is no row

    def markdown(self) -> str:
        if not self.rows:
            return self.empty
        shown = [c for c in self.columns if c.markdown]
        align = ["---" if c.kind == "text" and not c.right else "---:" for c in shown]
        lines = ["| " + " | ".join(_escaped(c.name) for c in shown) + " |", "| " + " | ".join(align) + " |"]
        lines += ["| " + " | ".join(_escaped(c.cell(row)) for c in shown) + " |" for row in self.rows]
        table = "\n".join(lines)
        return table + ("\n\n" + "\n".join(self.notes) if self.notes else "")

    def records(self) -> list[dict]:
        """One dict per row, column name -> rounded value (None = not computed)."""
        return [{c.name: c.value(row) for c in self.columns} for row in self.rows]

    def has_missing(self) -> bool:
        """True when a Markdown cell shows MISSING (a number not computed, or a preformatted one)."""
        return any(c.markdown and c.cell(row) == MISSING for row in self.rows for c in self.columns)


def text_columns(*names: str) -> list[Column]:
    return [Column(name, name, "text") for name in names]


def metric_columns(spec: Sequence[tuple[str, str, int]]) -> list[Column]:
    """Columns from (header, key, decimals) triples; 0 decimals is a count."""
    return [Column(header, key, "int" if decimals == 0 else "float", decimals) for header, key, decimals in spec]
