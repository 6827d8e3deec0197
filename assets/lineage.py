"""Shared wiring for assets: lineage rows in the lakehouse and the metadata the UI shows."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

import duckdb
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    MetadataValue,
)

from advisor.config import InstitutionConfig
from advisor.lakehouse import history, latest_run, record_materialization


def failures_markdown(failures: list[dict], limit: int = 30) -> MetadataValue:
    if not failures:
        return MetadataValue.md("No failures.")
    lines = ["| url | reason | detail |", "|---|---|---|"]
    for f in failures[:limit]:
        detail = (f.get("detail") or "").replace("|", "\\|")[:120]
        lines.append(f"| {f.get('url')} | {f['reason']} | {detail} |")
    if len(failures) > limit:
        lines.append(f"| … | {len(failures) - limit} more in `ingest_failures` | |")
    return MetadataValue.md("\n".join(lines))


def record_lineage(
    context: AssetExecutionContext,
    con: duckdb.DuckDBPyConnection,
    config: InstitutionConfig,
    *,
    asset: str,
    started_at: datetime,
    code_version: str,
    row_count: int,
    counts: dict,
    metadata: dict,
) -> None:
    """One `materializations` row: what ran, on what inputs, with which code and config. The
    inputs are the asset's declared `deps`, so the lineage cannot drift from the asset graph."""
    upstream = upstream_of(context.assets_def, context.asset_key)
    inputs = [{"asset": name, "run_id": latest_run(con, name)} for name in upstream]
    record_materialization(
        con,
        run_id=context.run_id,
        asset=asset,
        started_at=started_at,
        finished_at=datetime.now(timezone.utc),
        code_version=code_version,
        config_hash=config.fingerprint(),
        institution=config.institution,
        inputs=inputs,
        counts={"row_count": row_count, **counts},
        metadata=metadata,
    )


def upstream_of(assets_def: AssetsDefinition, key: AssetKey) -> list[str]:
    """The asset's upstream assets as declared in its `deps`, in declaration order."""
    return [dep.asset_key.to_user_string() for dep in assets_def.get_asset_spec(key).deps]


def check_result(check_name: str, outcomes: list, asset_key: str | None = None) -> AssetCheckResult:
    """One asset check from the GX expectation outcomes (advisor.quality) behind it."""
    failed = [o for o in outcomes if not o.success]
    return AssetCheckResult(
        check_name=check_name,
        asset_key=asset_key,
        passed=not failed,
        metadata={
            "expectations": MetadataValue.json([o.name for o in outcomes]),
            "failed": MetadataValue.json([{"name": o.name, "unexpected": o.unexpected_count, "examples": o.examples}
                                          for o in failed]),
        },
    )


HISTORY_CHECK = "history_matches_current"  # declared by assets.stage.HISTORY


def history_check(con: duckdb.DuckDBPyConnection, table: history.History) -> AssetCheckResult:
    gaps = history.drift(con, table)
    return AssetCheckResult(check_name=HISTORY_CHECK, passed=not any(gaps.values()),
                            severity=AssetCheckSeverity.WARN, metadata=gaps)


def versions_metadata(versions: Counter, table: history.History, con: duckdb.DuckDBPyConnection) -> dict:
    """What this run added to the asset's history, for the UI."""
    return {"versions_opened": versions["opened"], "versions_retired": versions["retired"],
            "versions_total": history.version_rows(con, table)}
