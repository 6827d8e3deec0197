"""`testset_runs`: one lakehouse row per set per run of `advisor eval --testsets` / `--devsets`, so
how often each test set was run, on which code and build, is a query, not a memory
(docs/lakehouse.md, `testset_runs`). The table's DDL lives with the other evaluation tables in
eval/store/schema.py."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import duckdb

from advisor.lakehouse import insert_rows
from eval.store import TESTSET_RUNS_DDL

ROOT = Path(__file__).resolve().parents[2]


def git_version(root: Path = ROOT) -> str:
    """The checkout's commit, "+dirty" when it has uncommitted changes; "unknown" outside git."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def new_run_id() -> str:
    return uuid.uuid4().hex


def record(con: duckdb.DuckDBPyConnection, *, run_id: str, set_name: str, purpose: str, file_hash: str, items: int,
           build_id: str, embedder: str | None, started_at: datetime, finished_at: datetime,
           metrics: Mapping[str, tuple], code_version: str) -> None:
    con.execute(TESTSET_RUNS_DDL)
    insert_rows(con, "testset_runs", [{
        "run_id": run_id, "set_name": set_name, "purpose": purpose, "file_hash": file_hash, "items": items,
        "code_version": code_version, "build_id": build_id, "embedder": embedder, "started_at": started_at,
        "finished_at": finished_at,
        "metrics": json.dumps({name: {"value": value, "n": n} for name, (value, n) in metrics.items()}),
    }])


def run_counts(con: duckdb.DuckDBPyConnection, purpose: str = "test") -> dict[tuple[str, str], int]:
    """How many times each (set, file hash) was run for `purpose`."""
    con.execute(TESTSET_RUNS_DDL)
    rows = con.execute("SELECT set_name, file_hash, count(*) FROM testset_runs WHERE purpose = ? GROUP BY ALL",
                       [purpose]).fetchall()
    return {(name, digest): count for name, digest, count in rows}
