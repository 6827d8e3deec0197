"""The LLM response cache and usage log, in the lakehouse (DuckDB).

A response is keyed by (task, input hash, prompt version, model): a re-run over unchanged chunks
makes no calls, while a new prompt or model misses on purpose. Only validated responses are stored;
failures are not, so the next run tries them again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb

from advisor.lakehouse import LLM_SCHEMA  # noqa: E402  (the DDL lives with the rest of the schema)


@dataclass(frozen=True)
class CacheEntry:
    key: str
    task: str
    input_hash: str
    prompt_version: str
    model: str
    response: dict
    prompt_tokens: int = 0
    completion_tokens: int = 0


def ensure_tables(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(LLM_SCHEMA)


def input_hash(payload: object) -> str:
    """A stable hash of JSON-able input: key order and formatting do not matter."""
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def cache_key(task: str, input_hash: str, prompt_version: str, model: str) -> str:
    return hashlib.sha256(json.dumps([task, input_hash, prompt_version, model]).encode()).hexdigest()


def get_many(con: duckdb.DuckDBPyConnection, keys: Sequence[str]) -> dict[str, dict]:
    """The cached responses among `keys` (missing keys are simply absent)."""
    if not keys:
        return {}
    rows = con.execute(
        "SELECT cache_key, response FROM llm_cache WHERE cache_key IN (SELECT unnest(?::VARCHAR[]))",
        [list(set(keys))],
    ).fetchall()
    return {key: json.loads(response) for key, response in rows}


def put_many(con: duckdb.DuckDBPyConnection, entries: Iterable[CacheEntry]) -> int:
    rows = [
        (e.key, e.task, e.input_hash, e.prompt_version, e.model,
         json.dumps(e.response, ensure_ascii=False), e.prompt_tokens, e.completion_tokens)
        for e in entries
    ]
    if rows:
        # OR REPLACE: two concurrent runs producing the same key must not fail each other
        con.executemany(
            "INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?, ?, ?, now())", rows
        )
    return len(rows)


def record_usage(
    con: duckdb.DuckDBPyConnection, *, run_id: str, asset: str, task: str, model: str,
    calls: int, cache_hits: int, retries: int, failures: int,
    prompt_tokens: int, completion_tokens: int, cost_usd: float | None,
) -> None:
    con.execute(
        "INSERT INTO llm_usage VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [run_id, asset, task, model, calls, cache_hits, retries, failures,
         prompt_tokens, completion_tokens, cost_usd, datetime.now(timezone.utc)],
    )
