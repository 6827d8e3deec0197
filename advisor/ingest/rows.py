"""How the cleaned text writes a table, one line per row: "- header: value | header: value", and
a row that is one cell across its table ("- 2025학년도 이후 입학생"), which heads the rows below
it. Written by `advisor/ingest/html_text.py`; read by the chunker, the annotator and the
extractive answer. One owner, so the writer and its readers cannot drift apart."""

from __future__ import annotations

ROW = "- "  # a row's (and a list item's) mark
CELLS = " | "  # between a row's cells
LABEL = ": "  # between a cell's column header and its value
MAX_GROUP_ROW = 80  # a row across the table is a short label, not a paragraph


def row_line(cells: list[str]) -> str:
    """A row of cells as the cleaned text writes it."""
    return ROW + CELLS.join(cells)


def labelled(label: str, value: str) -> str:
    """A cell with its column header."""
    return f"{label}{LABEL}{value}"


def cells(body: str) -> list[str]:
    """The cells of a row's `body` (the row without its mark), blank ones left out."""
    return [cell.strip() for cell in body.split(CELLS) if cell.strip()]


def header_and_value(cell: str) -> tuple[str, str]:
    """A cell as (its column header, its value); the header "" for a cell written without one."""
    header, sep, value = cell.partition(LABEL)
    return (header.strip(), value.strip()) if sep else ("", cell.strip())


def is_table_row(line: str) -> bool:
    """A row of several cells with their headers: "- 구분: 전공 | 학점: 60"."""
    line = line.strip()
    return line.startswith(ROW) and CELLS in line and LABEL in line


def is_group_row(line: str) -> bool:
    """A row that is one cell across its table ("- 2025학년도 이후 입학생"): one line, no second
    cell, no header."""
    line = line.strip()
    body = line[len(ROW):]
    return (line.startswith(ROW) and 0 < len(body) <= MAX_GROUP_ROW and "\n" not in body
            and CELLS not in line and LABEL not in line)
