"""What the report's tables (eval/reports/report.py) and charts (eval/reports/charts.py) are drawn from:
the paper's order of settings and systems (the registry's), the input checks, the aggregate rows in
report order, the main slice, MRR per group, and the charts' files and size. Pure polars: no
tables, no drawing; both renderers import it, neither imports the other's module at load time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import polars as pl

from eval.systems import registry

SETTING_ORDER = registry.SETTINGS
SYSTEM_ORDER = registry.NAMES  # the registry's order is the paper's
BREAKDOWN_KINDS = ("category", "query_type")
MAIN_SLICE, UNSLICED = "profile_dependent", "all"  # as eval.metrics (not imported: keep this module light)
SLICE_ORDER = (MAIN_SLICE, "answer_in_question", "profile_independent", "stated_profile", UNSLICED)

CHART_FILES = (
    "mrr_recall10_by_system.png",
    "mrr_by_category.png",
    "mrr_by_query_type.png",
    "questions_per_query.png",
    "mrr_by_slice.png",
)
CHART_SIZE_INCHES = (12, 7)
CHART_DPI = 100  # 12 x 7 in at 100 dpi = 1200 x 700 px


def _require_frame(frame: object, what: str, columns: Iterable[str]) -> pl.DataFrame:
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"{what} must be a polars.DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks required column(s) {missing}; it has {frame.columns}")
    return frame


def _aggregate_rows(aggregates: pl.DataFrame) -> list[dict]:
    """The aggregate rows as dicts, in report order; one row per (setting, system, embedder)."""
    _require_frame(aggregates, "aggregates", ("system", "setting"))
    rows = aggregates.to_dicts()
    seen: set[tuple] = set()
    for row in rows:
        if not isinstance(row["system"], str) or not isinstance(row["setting"], str):
            raise ValueError("aggregates: system and setting must be non-null strings, "
                             f"got {row['system']!r}, {row['setting']!r}")
        key = (row["setting"], row["system"], row.get("embedder"))
        if key in seen:
            raise ValueError(f"aggregates: more than one row for setting/system/embedder {key}")
        seen.add(key)
    return sorted(rows, key=_row_order)


def _rank_in(order: Sequence[str], name: str) -> tuple:
    # Known names in the paper's order first; unknown ones after, alphabetically.
    return (order.index(name), "") if name in order else (len(order), name)


def _row_order(row: Mapping) -> tuple:
    embedder = row.get("embedder")
    return (_rank_in(SETTING_ORDER, row["setting"]), _rank_in(SYSTEM_ORDER, row["system"]),
            "" if embedder is None else str(embedder))


def _ordered(names: Iterable[str], order: Sequence[str]) -> list[str]:
    return sorted(set(names), key=lambda n: _rank_in(order, n))


def _has_embedders(rows: Sequence[Mapping]) -> bool:
    return len({row.get("embedder") for row in rows}) > 1


def _embedder_name(value: object) -> str:
    return "unspecified" if value is None else str(value)


def main_slice_rows(per_query: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """(the per-query rows Table 1 is computed over, that slice's name): the profile_dependent
    rows when the run has them, else every row ("all")."""
    if "slice" in per_query.columns and per_query.filter(pl.col("slice") == MAIN_SLICE).height:
        return per_query.filter(pl.col("slice") == MAIN_SLICE), MAIN_SLICE
    return per_query, UNSLICED


def _reciprocal_ranks(per_query: pl.DataFrame, by: str) -> pl.DataFrame:
    """per_query with `rr` (1/rank; 0 when the gold was not retrieved, as `eval.metrics.mrr`) and
    the breakdown value as text (null -> "(none)")."""
    if by not in BREAKDOWN_KINDS:
        raise ValueError(f"by must be one of {BREAKDOWN_KINDS}, got {by!r}")
    _require_frame(per_query, "per_query", ("system", "setting", "rank", by))
    rank_type = per_query.schema["rank"]
    if rank_type != pl.Null and not rank_type.is_numeric():
        raise ValueError(f"per_query.rank must be numeric (1-based, null = not retrieved), got {rank_type}")
    if per_query.filter(pl.col("rank") < 1).height:
        raise ValueError("per_query.rank is 1-based: found a rank below 1")
    if per_query.filter(pl.col("system").is_null() | pl.col("setting").is_null()).height:
        raise ValueError("per_query: system and setting must not be null")
    return per_query.select(
        pl.col("system").cast(pl.String),
        pl.col("setting").cast(pl.String),
        pl.col(by).cast(pl.String).fill_null("(none)").alias("group"),
        pl.when(pl.col("rank").is_null()).then(0.0).otherwise(1.0 / pl.col("rank")).alias("rr"),
    )


def _breakdown_cells(per_query: pl.DataFrame, by: str) -> dict[str, dict]:
    """setting -> {"groups": [...], "systems": [...], "mrr": {(system, group): v}, "all": {system: v},
    "n": {system: count}, "group_n": {group: count}}, groups sorted."""
    frame = _reciprocal_ranks(per_query, by)
    by_group = frame.group_by("setting", "system", "group").agg(pl.col("rr").mean().alias("mrr"),
                                                                 pl.len().alias("n"))
    overall = frame.group_by("setting", "system").agg(pl.col("rr").mean().alias("mrr"), pl.len().alias("n"))
    cells: dict[str, dict] = {}
    for setting in _ordered(frame["setting"].to_list(), SETTING_ORDER):
        mine = by_group.filter(pl.col("setting") == setting)
        totals = overall.filter(pl.col("setting") == setting)
        group_n: dict[str, int] = {}
        for r in mine.iter_rows(named=True):  # every system runs the same queries: the most is the count
            group_n[r["group"]] = max(group_n.get(r["group"], 0), r["n"])
        cells[setting] = {
            "groups": sorted(set(mine["group"].to_list())),
            "systems": _ordered(mine["system"].to_list(), SYSTEM_ORDER),
            "mrr": {(r["system"], r["group"]): r["mrr"] for r in mine.iter_rows(named=True)},
            "all": {r["system"]: r["mrr"] for r in totals.iter_rows(named=True)},
            "n": {r["system"]: r["n"] for r in totals.iter_rows(named=True)},
            "group_n": group_n,
        }
    return cells


def _ascii_labels(names: Sequence[str], kind: str) -> dict[str, str]:
    """name -> chart label: the name itself when ASCII, else "<kind> k" (k = 1-based position)."""
    return {name: name if name.isascii() else f"{kind} {i}" for i, name in enumerate(names, start=1)}
