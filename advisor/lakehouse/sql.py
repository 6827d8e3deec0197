"""Small DuckDB helpers every stage writes through: rows in by column name, one transaction,
single values out. No schema here (that is the package's `__init__`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import duckdb
import polars as pl


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[dict]) -> None:
    """Insert dict rows by column name; columns missing from a row are NULL."""
    if not rows:
        return
    schema = con.sql(f"SELECT * FROM {table} LIMIT 0").pl().schema
    frame = pl.DataFrame(
        [{c: row.get(c) for c in schema} for row in rows],
        schema=schema,
        strict=False,
    )
    con.register("_rows", frame.to_arrow())
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _rows")
    finally:
        con.unregister("_rows")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def delete_where_in(con: duckdb.DuckDBPyConnection, table: str, column: str, values: Iterable[str]) -> None:
    values = list(values)
    if values:
        con.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT unnest(?))", [values])


def replace_rows(
    con: duckdb.DuckDBPyConnection, table: str, key: str, keys: Iterable[str], rows: Sequence[dict]
) -> None:
    """Delete the rows whose `key` is in `keys`, then insert `rows`: one upsert in a transaction."""
    with transaction(con):
        delete_where_in(con, table, key, keys)
        insert_rows(con, table, rows)


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple | None:
    """The first row of a query, with its result fully consumed: DuckDB 2.0 refuses other work on a
    connection whose last result is still open, which `fetchone()` leaves behind."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    row = one(con, sql, params)
    return row[0] if row else None
