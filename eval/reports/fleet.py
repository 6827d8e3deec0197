"""Many institutions side by side: one DuckDB query over every institution's lakehouse.

    .venv/bin/advisor fleet compare --root DIR        (docs/contracts.md §1)

A fleet root holds one warehouse per institution, `<root>/<key>/lakehouse.duckdb` (what the
`institution_build` asset of pipelines/fleet.py writes). `attach_fleet` opens an in-memory DuckDB
and ATTACHes each lakehouse READ_ONLY as the catalog `<key>` (made a plain identifier), so a query
can read `demo.eval_aggregates` beside `business.eval_aggregates`. Each institution keeps its own
single-writer file; reading attaches never block a reader, and a lakehouse being written right now
is skipped with the reason instead of failing the whole comparison.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import polars as pl

from advisor.lakehouse import LAKEHOUSE_FILE
from eval.metrics import registry as metric_registry
from eval.metrics.metric import RETRIEVAL

__all__ = ["Fleet", "attach_fleet", "catalog_name", "overview", "table1_rows"]



def _retrieval_metrics() -> tuple:
    """The metrics the fleet's Table 1 compares: every retrieval metric of the registry."""
    return tuple(m for m in metric_registry.METRICS if m.kind == RETRIEVAL)


def catalog_name(key: str) -> str:
    """A partition key as a DuckDB identifier: word characters only, never starting with a digit."""
    name = re.sub(r"\W", "_", key, flags=re.ASCII).lower() or "_"
    return f"i_{name}" if name[0].isdigit() else name


@dataclass
class Fleet:
    con: duckdb.DuckDBPyConnection
    catalogs: dict[str, str] = field(default_factory=dict)  # institution key -> attached catalog
    skipped: dict[str, str] = field(default_factory=dict)  # institution key -> why it is not attached

    def tables(self, catalog: str) -> set[str]:
        rows = self.con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ?", [catalog]).fetchall()
        return {r[0] for r in rows}

    def columns(self, catalog: str, table: str) -> set[str]:
        rows = self.con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND table_name = ?",
                                [catalog, table]).fetchall()
        return {r[0] for r in rows}

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Fleet:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def attach_fleet(root: Path, keys: Collection[str] | None = None) -> Fleet:
    """Every `<root>/*/lakehouse.duckdb` (or only those of `keys`), attached read-only in one
    in-memory database."""
    fleet = Fleet(duckdb.connect(":memory:"))
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()) if Path(root).is_dir() else []:
        path = folder / LAKEHOUSE_FILE
        if not path.is_file() or (keys is not None and folder.name not in keys):
            continue
        catalog = catalog_name(folder.name)
        if catalog in fleet.catalogs.values():
            fleet.skipped[folder.name] = f"its identifier {catalog!r} is another institution's"
            continue
        escaped = str(path).replace("'", "''")
        try:
            fleet.con.execute(f"ATTACH '{escaped}' AS \"{catalog}\" (READ_ONLY)")
        except duckdb.Error as exc:  # held by a writer in another process, or not a DuckDB file
            fleet.skipped[folder.name] = str(exc).splitlines()[0]
            continue
        fleet.catalogs[folder.name] = catalog
    return fleet


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def overview(fleet: Fleet) -> pl.DataFrame:
    """One row per attached institution: its name, documents, chunks, latest index build and
    latest evaluation run (NULL where the warehouse has not got that far)."""
    parts = []
    for key, catalog in fleet.catalogs.items():
        tables = fleet.tables(catalog)

        def count(table: str, tables=tables, catalog=catalog) -> str:
            return f"(SELECT count(*) FROM \"{catalog}\".{table})" if table in tables else "NULL::BIGINT"

        def latest(table: str, column: str, at: str, tables=tables, catalog=catalog) -> str:
            return (f"(SELECT {column} FROM \"{catalog}\".{table} ORDER BY {at} DESC LIMIT 1)"
                    if table in tables else "NULL::VARCHAR")

        parts.append(
            f"SELECT {_literal(key)} AS key, {latest('eval_runs', 'institution', 'finished_at')} AS institution, "
            f"{count('documents')} AS documents, {count('chunks')} AS chunks, "
            f"{latest('index_builds', 'build_id', 'built_at')} AS build_id, "
            f"{latest('eval_runs', 'run_id', 'finished_at')} AS eval_run_id")
    if not parts:
        return pl.DataFrame(schema={"key": pl.String, "institution": pl.String, "documents": pl.Int64,
                                    "chunks": pl.Int64, "build_id": pl.String, "eval_run_id": pl.String})
    return fleet.con.sql(" UNION ALL ".join(parts) + " ORDER BY key").pl()


def table1_rows(fleet: Fleet) -> pl.DataFrame:
    """Table 1 of every institution's latest evaluation run, one row per institution x setting x
    system, in one query (institutions without an evaluation run have no rows)."""
    wanted = _retrieval_metrics()
    parts = []
    for key, catalog in fleet.catalogs.items():
        if not {"eval_runs", "eval_aggregates"} <= fleet.tables(catalog):
            continue
        present = fleet.columns(catalog, "eval_aggregates")  # a lakehouse recorded before a metric lacks it
        metrics = ", ".join(f"{'a.' + m.column if m.column in present else 'NULL::DOUBLE'} AS \"{m.name}\""
                            for m in wanted)
        parts.append(
            f"SELECT {_literal(key)} AS key, r.institution, r.run_id, r.finished_at, a.setting, a.system, a.n, "
            f"{metrics}, a.skipped FROM \"{catalog}\".eval_aggregates a JOIN "
            f"(SELECT * FROM \"{catalog}\".eval_runs ORDER BY finished_at DESC LIMIT 1) r USING (run_id)")
    if not parts:
        return pl.DataFrame(schema={"key": pl.String, "institution": pl.String, "setting": pl.String,
                                    "system": pl.String, "n": pl.Int32, **{m.name: pl.Float64 for m in wanted}})
    return fleet.con.sql(" UNION ALL ".join(parts) + " ORDER BY setting, system, key").pl()
