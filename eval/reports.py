"""The evaluation report: the paper's tables as Markdown and the charts as PNG (method.md §A).

Pure: polars frames in, text and files out; no Dagster, no DuckDB, so an asset, the CLI and a
notebook all render the same report. Inputs:

- `aggregates`: one row per (system, setting[, embedder]) with the `advisor eval --out` fields
  (interfaces.md §1): n, mrr, recall@1/5/10/50, rouge_l, token_f1, keyword_match, source_match,
  grounded_correctness, seconds_per_query, questions_per_query, skipped (null or the reason).
- `per_query`: one row per (system, setting, query) with category, query_type, rank (1-based,
  null = gold not retrieved), source_match, seconds, questions.

Conventions:
- A metric that was not computed (null, NaN) prints as "–"; why is said once, in a footnote line
  under the table listing the skipped systems and their reasons, never in the cells.
- Rows follow the paper: settings deployment then oracle, systems in `SYSTEM_ORDER`, anything
  unknown after them alphabetically, so a new system or setting still appears.
- Charts are drawn with matplotlib's object API on the Agg canvas (no pyplot global state, no
  display) at exactly 1200x700 px. Their labels must be ASCII because no CJK font is guaranteed:
  a category or query type whose name is not ASCII is drawn as "<kind> k" (k = its column in the
  breakdown table) and `write_report` prints the key.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "ABLATION_SYSTEMS",
    "CHART_FILES",
    "MISSING",
    "SETTING_ORDER",
    "SYSTEM_ORDER",
    "breakdown_markdown",
    "charts",
    "generation_markdown",
    "table1_markdown",
    "table2_markdown",
    "write_report",
]

MISSING = "–"  # en dash: a metric that was not computed

SETTING_ORDER = ("deployment", "oracle")
ABLATION_SYSTEMS = ("profill-no-hard-filter", "profill-no-soft-prefix", "profill-no-reretrieval")
SYSTEM_ORDER = (
    "bm25", "dense", "hybrid", "hybrid+rerank", "hyde", "hyde+rerank", "profill", "profill+rerank",
    *ABLATION_SYSTEMS, "urag",
)
REFERENCE_SYSTEM = "profill"
BREAKDOWN_KINDS = ("category", "query_type")

# (header, aggregate column, decimals): the paper's Table 1 plus questions per query.
TABLE1_COLUMNS = (
    ("MRR", "mrr", 3),
    ("R@1", "recall@1", 3),
    ("R@5", "recall@5", 3),
    ("R@10", "recall@10", 3),
    ("R@50", "recall@50", 3),
    ("source match", "source_match", 3),
    ("GC", "grounded_correctness", 3),
    ("s/q", "seconds_per_query", 2),
    ("questions/q", "questions_per_query", 2),
)
# The answer-quality metrics Table 1 leaves out, so the report still shows every computed field.
GENERATION_COLUMNS = (
    ("n", "n", 0),
    ("ROUGE-L", "rouge_l", 3),
    ("token F1", "token_f1", 3),
    ("keyword match", "keyword_match", 3),
    ("source match", "source_match", 3),
    ("GC", "grounded_correctness", 3),
)

CHART_FILES = (
    "mrr_recall10_by_system.png",
    "mrr_by_category.png",
    "mrr_by_query_type.png",
    "questions_per_query.png",
)
CHART_SIZE_INCHES = (12, 7)
CHART_DPI = 100  # 12 x 7 in at 100 dpi = 1200 x 700 px

# Lineage fields in the order the report prints them; other keys follow alphabetically.
LINEAGE_FIELDS = (
    ("build_id", "build id"),
    ("annotator", "annotator"),
    ("embedder", "embedder"),
    ("code_version", "code version"),
    ("config_hash", "config hash"),
    ("benchmark", "benchmark"),
    ("benchmark_size", "benchmark size"),
)
# The `--out` JSON calls the benchmark size "instances"; accept it under either name.
LINEAGE_ALIASES = {"instances": "benchmark_size"}


# --- input checks ----------------------------------------------------------------------------


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


# --- ordering and formatting -----------------------------------------------------------------


def _rank_in(order: Sequence[str], name: str) -> tuple:
    # Known names in the paper's order first; unknown ones after, alphabetically.
    return (order.index(name), "") if name in order else (len(order), name)


def _row_order(row: Mapping) -> tuple:
    embedder = row.get("embedder")
    return (_rank_in(SETTING_ORDER, row["setting"]), _rank_in(SYSTEM_ORDER, row["system"]),
            "" if embedder is None else str(embedder))


def _ordered(names: Iterable[str], order: Sequence[str]) -> list[str]:
    return sorted(set(names), key=lambda n: _rank_in(order, n))


def _number(value: object) -> float | None:
    """The value as a finite float, or None when it was not computed."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _fmt(value: object, decimals: int) -> str:
    number = _number(value)
    return MISSING if number is None else f"{number:.{decimals}f}"


def _fmt_delta(value: float | None, decimals: int = 3) -> str:
    if value is None:
        return MISSING
    rounded = round(value, decimals)
    return f"{rounded + 0.0:+.{decimals}f}"  # + 0.0 turns -0.0 into 0.0: no "-0.000"


def _cell(text: object) -> str:
    # A pipe or newline inside a cell would break the Markdown table.
    return str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int) -> str:
    """A GitHub-flavoured Markdown table; columns from `right_from` on are right-aligned numbers."""
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _has_embedders(rows: Sequence[Mapping]) -> bool:
    return len({row.get("embedder") for row in rows}) > 1


def _embedder_name(value: object) -> str:
    return "unspecified" if value is None else str(value)


def _skip_reason(row: Mapping) -> str | None:
    reason = row.get("skipped")
    if reason is None:
        return None
    reason = str(reason).strip()
    return reason or None


def _footnotes(rows: Sequence[Mapping], cells_have_missing: bool) -> list[str]:
    """The lines under a table: what "–" means, and every skipped system with its reason."""
    skipped: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        reason = _skip_reason(row)
        if reason is not None:
            where = row["setting"] if row.get("embedder") is None else f"{row['setting']}, {row['embedder']}"
            skipped.setdefault((row["system"], reason), []).append(where)
    lines = []
    if cells_have_missing:
        lines.append(f"{MISSING} = not computed.")
    if skipped:
        entries = [f"{system} ({'; '.join(where)}): {reason}" for (system, reason), where in skipped.items()]
        lines.append("Skipped: " + " · ".join(entries) + ".")
    return lines


def _with_footnotes(table: str, rows: Sequence[Mapping], body: Sequence[Sequence[str]]) -> str:
    notes = _footnotes(rows, any(MISSING in cells for cells in body))
    return table + ("\n\n" + "\n".join(notes) if notes else "")


# --- tables ----------------------------------------------------------------------------------


def _metric_table(aggregates: pl.DataFrame, columns: Sequence[tuple[str, str, int]]) -> str:
    rows = _aggregate_rows(aggregates)
    if not rows:
        return "No results."
    with_embedder = _has_embedders(rows)
    header = ["setting", "system"] + (["embedder"] if with_embedder else []) + [h for h, _, _ in columns]
    body = []
    for row in rows:
        labels = [row["setting"], row["system"]] + ([_embedder_name(row.get("embedder"))] if with_embedder else [])
        body.append(labels + [_fmt(row.get(column), decimals) for _, column, decimals in columns])
    table = _markdown_table(header, body, right_from=3 if with_embedder else 2)
    return _with_footnotes(table, rows, body)


def table1_markdown(aggregates: pl.DataFrame) -> str:
    """The paper's Table 1: setting | system | MRR | R@1 | R@5 | R@10 | R@50 | source match | GC |
    s/q | questions/q, settings deployment then oracle, systems in the paper's order; an embedder
    column appears when the aggregates hold more than one embedder. Skipped systems keep their row
    (all "–") and are listed with their reasons under the table."""
    return _metric_table(aggregates, TABLE1_COLUMNS)


def generation_markdown(aggregates: pl.DataFrame) -> str:
    """The answer-quality metrics per setting and system (n, ROUGE-L, token F1, keyword match,
    source match, GC), same order and footnotes as Table 1."""
    return _metric_table(aggregates, GENERATION_COLUMNS)


def table2_markdown(aggregates: pl.DataFrame) -> str:
    """The ablation table (deployment setting): full profill and its three ablations, MRR per
    embedder (one "MRR" column when the aggregates have no `embedder` column) and the change of
    each ablation vs full profill under the same embedder."""
    rows = [r for r in _aggregate_rows(aggregates) if r["setting"] == "deployment"
            and r["system"] in (REFERENCE_SYSTEM, *ABLATION_SYSTEMS)]
    if "embedder" in aggregates.columns:
        embedders = sorted({_embedder_name(r.get("embedder")) for r in rows}) or ["unspecified"]
        header = ["system"]
        for embedder in embedders:
            header += [f"MRR ({embedder})", f"Δ vs profill ({embedder})"]
    else:
        embedders = ["unspecified"]
        header = ["system", "MRR", "Δ vs profill"]
    mrr = {(r["system"], _embedder_name(r.get("embedder"))): _number(r.get("mrr")) for r in rows}
    body = []
    for system in (REFERENCE_SYSTEM, *ABLATION_SYSTEMS):
        cells = [system]
        for embedder in embedders:
            value, reference = mrr.get((system, embedder)), mrr.get((REFERENCE_SYSTEM, embedder))
            if system == REFERENCE_SYSTEM:
                delta = "reference"
            else:
                delta = _fmt_delta(None if value is None or reference is None else value - reference)
            cells += [_fmt(value, 3), delta]
        body.append(cells)
    return _with_footnotes(_markdown_table(header, body, right_from=1), rows, body)


# --- per-query breakdowns --------------------------------------------------------------------


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
    "n": {system: count}}, groups in table-column order."""
    frame = _reciprocal_ranks(per_query, by)
    by_group = frame.group_by("setting", "system", "group").agg(pl.col("rr").mean().alias("mrr"))
    overall = frame.group_by("setting", "system").agg(pl.col("rr").mean().alias("mrr"), pl.len().alias("n"))
    cells: dict[str, dict] = {}
    for setting in _ordered(frame["setting"].to_list(), SETTING_ORDER):
        mine = by_group.filter(pl.col("setting") == setting)
        totals = overall.filter(pl.col("setting") == setting)
        cells[setting] = {
            "groups": sorted(set(mine["group"].to_list())),
            "systems": _ordered(mine["system"].to_list(), SYSTEM_ORDER),
            "mrr": {(r["system"], r["group"]): r["mrr"] for r in mine.iter_rows(named=True)},
            "all": {r["system"]: r["mrr"] for r in totals.iter_rows(named=True)},
            "n": {r["system"]: r["n"] for r in totals.iter_rows(named=True)},
        }
    return cells


def breakdown_markdown(per_query: pl.DataFrame, by: str) -> str:
    """MRR per system x `by` ("category" or "query_type") for each setting: one table per setting,
    columns the values of `by` (sorted), then "all" and the number of queries n."""
    cells = _breakdown_cells(per_query, by)
    if not cells:
        return "No per-query results."
    parts = []
    for setting, data in cells.items():
        header = ["system", *data["groups"], "all", "n"]
        body = [[system, *(_fmt(data["mrr"].get((system, g)), 3) for g in data["groups"]),
                 _fmt(data["all"][system], 3), str(data["n"][system])] for system in data["systems"]]
        table = _markdown_table(header, body, right_from=1)
        if any(MISSING in row for row in body):
            table += f"\n\n{MISSING} = no query of this {by.replace('_', ' ')} for this system."
        parts.append(f"**{setting}**: MRR by {by.replace('_', ' ')}\n\n{table}")
    return "\n\n".join(parts)


# --- charts ----------------------------------------------------------------------------------


def _ascii(text: str) -> str:
    # System and embedder names are ASCII by contract; a stray other character becomes "?".
    return text if text.isascii() else text.encode("ascii", "replace").decode()


def _ascii_labels(names: Sequence[str], kind: str) -> dict[str, str]:
    """name -> chart label: the name itself when ASCII, else "<kind> k" (k = 1-based position)."""
    return {name: name if name.isascii() else f"{kind} {i}" for i, name in enumerate(names, start=1)}


def _new_figure(rows: int = 1, cols: int = 1):
    figure = Figure(figsize=CHART_SIZE_INCHES, dpi=CHART_DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots(rows, cols, squeeze=False)


def _save(figure: Figure, path: Path) -> Path:
    # No bbox_inches="tight": it would change the pixel size. No metadata: same bytes every run.
    figure.savefig(path, dpi=CHART_DPI, format="png", metadata={"Software": None})
    return path


def _empty_panel(axes, title: str, message: str) -> None:
    axes.set_title(title)
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes)
    axes.set_axis_off()


def _bar_label(row: Mapping, with_embedder: bool) -> str:
    label = row["system"] if not with_embedder else f"{row['system']}\n{_embedder_name(row.get('embedder'))}"
    return _ascii(label)


def _grouped_bars(axes, rows: Sequence[Mapping], column: str, title: str, ylabel: str, top: float | None) -> None:
    """Bars per system label, one bar per setting side by side; "n/a" where not computed."""
    with_embedder = _has_embedders(rows)
    labels = list(dict.fromkeys(_bar_label(r, with_embedder) for r in sorted(rows, key=lambda r: _row_order(r)[1:])))
    settings = _ordered((r["setting"] for r in rows), SETTING_ORDER)
    if not labels:
        _empty_panel(axes, title, "no results")
        return
    values = {(r["setting"], _bar_label(r, with_embedder)): _number(r.get(column)) for r in rows}
    width = 0.8 / len(settings)
    for k, setting in enumerate(settings):
        xs = [i + (k - (len(settings) - 1) / 2) * width for i in range(len(labels))]
        heights = [values.get((setting, label)) for label in labels]
        axes.bar(xs, [h or 0.0 for h in heights], width=width, label=setting)
        for x, h in zip(xs, heights):
            if h is None:
                axes.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, rotation=90)
    axes.set_xticks(range(len(labels)), labels, rotation=35, ha="right", fontsize=9)
    axes.set_title(title)
    axes.set_ylabel(ylabel)
    # Headroom above the tallest possible bar, so the legend has a place that hides no bar.
    present = [v for v in values.values() if v is not None]
    axes.set_ylim(0, 1.15 * (top if top is not None else max(present, default=0.0) or 1.0))
    axes.legend(fontsize=9, loc="upper right", ncols=len(settings))
    axes.grid(axis="y", alpha=0.3)


def _heatmap(axes, data: Mapping, title: str, kind: str) -> None:
    """MRR per system (rows) x group (columns), each cell annotated with its value."""
    groups, systems = data["groups"], data["systems"]
    labels = _ascii_labels(groups, kind)
    matrix = [[data["mrr"].get((s, g), math.nan) for g in groups] for s in systems]
    image = axes.imshow(matrix, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    axes.set_xticks(range(len(groups)), [labels[g] for g in groups], rotation=30, ha="right", fontsize=9)
    axes.set_yticks(range(len(systems)), [_ascii(s) for s in systems], fontsize=9)
    small = len(groups) * len(systems) > 80
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if not math.isnan(value):
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7 if small else 9,
                          color="black" if value > 0.6 else "white")
    axes.set_title(title)
    axes.figure.colorbar(image, ax=axes, label="MRR")


def _retrieval_chart(rows: Sequence[Mapping], path: Path) -> Path:
    figure, axes = _new_figure(1, 2)
    _grouped_bars(axes[0][0], rows, "mrr", "MRR per system", "MRR", 1.0)
    _grouped_bars(axes[0][1], rows, "recall@10", "Recall@10 per system", "R@10", 1.0)
    return _save(figure, path)


def _category_chart(cells: Mapping[str, dict], path: Path) -> Path:
    figure, axes = _new_figure()
    title = "MRR per category (deployment)"
    if "deployment" in cells:
        _heatmap(axes[0][0], cells["deployment"], title, "category")
    else:
        _empty_panel(axes[0][0], title, "no deployment results")
    return _save(figure, path)


def _query_type_chart(cells: Mapping[str, dict], path: Path) -> Path:
    settings = list(cells) or ["deployment"]
    figure, axes = _new_figure(1, len(settings))
    for k, setting in enumerate(settings):
        title = f"MRR per query type ({setting})"
        if setting in cells:
            _heatmap(axes[0][k], cells[setting], title, "query type")
        else:
            _empty_panel(axes[0][k], title, "no per-query results")
    return _save(figure, path)


def _questions_chart(rows: Sequence[Mapping], path: Path) -> Path:
    figure, axes = _new_figure()
    _grouped_bars(axes[0][0], rows, "questions_per_query", "Profile questions asked per query",
                  "questions per query", None)
    return _save(figure, path)


def charts(aggregates: pl.DataFrame, per_query: pl.DataFrame, directory: Path | str) -> list[Path]:
    """Writes the report's PNGs (1200x700) into `directory` (created if needed) under the names
    in `CHART_FILES`, always all of them (a panel says so when it has no data), and returns
    their paths in that order: MRR and R@10 per system (deployment vs oracle bars), MRR per
    category per system (deployment), MRR per query type per system, questions per query."""
    rows = _aggregate_rows(aggregates)
    by_category = _breakdown_cells(per_query, "category")
    by_query_type = _breakdown_cells(per_query, "query_type")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    retrieval, category, query_type, questions = (directory / name for name in CHART_FILES)
    return [
        _retrieval_chart(rows, retrieval),
        _category_chart(by_category, category),
        _query_type_chart(by_query_type, query_type),
        _questions_chart(rows, questions),
    ]


# --- the report ------------------------------------------------------------------------------


def _lineage_value(value: object) -> str:
    if value is None:
        return MISSING
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return str(value).replace("\n", " ")


def _lineage_lines(lineage: Mapping) -> list[str]:
    if not isinstance(lineage, Mapping):
        raise TypeError(f"lineage must be a dict, got {type(lineage).__name__}")
    values = {LINEAGE_ALIASES.get(str(k), str(k)): v for k, v in lineage.items()}
    known = [key for key, _ in LINEAGE_FIELDS]
    lines = [f"- {label}: {_lineage_value(values.get(key))}" for key, label in LINEAGE_FIELDS]
    lines += [f"- {key.replace('_', ' ')}: {_lineage_value(values[key])}" for key in sorted(values) if key not in known]
    return lines


def _chart_key(per_query: pl.DataFrame) -> list[str]:
    """Lines naming the non-ASCII categories / query types the charts show as "<kind> k"."""
    lines = []
    # The category chart shows the deployment setting only; the query-type chart every setting.
    for by, kind, shown in (("category", "category", {"deployment"}), ("query_type", "query type", None)):
        for setting, data in _breakdown_cells(per_query, by).items():
            if shown is not None and setting not in shown:
                continue
            renamed = {label: name for name, label in _ascii_labels(data["groups"], kind).items() if label != name}
            if renamed:
                pairs = ", ".join(f"{label} = {name}" for label, name in renamed.items())
                lines.append(f"- {kind} ({setting}): {pairs}")
    return lines


def write_report(aggregates: pl.DataFrame, per_query: pl.DataFrame, directory: Path | str, title: str,
                 lineage: dict) -> dict:
    """Writes `report.md` and the charts into `directory` (created if needed) and returns
    {"markdown": Path, "charts": [Path], "table1": str} for an asset's metadata. The Markdown
    has the title, the lineage lines, Table 1, the ablation table, answer quality, the breakdowns
    by category and query type, and the charts linked by relative path. Same inputs, same bytes:
    no timestamps are added (put the run's time in `lineage` if it matters)."""
    if not isinstance(title, str) or not title.strip():
        raise ValueError("title must be a non-empty string")
    lineage_lines = _lineage_lines(lineage)
    table1 = table1_markdown(aggregates)
    sections = [
        f"# {title.strip()}",
        "\n".join(lineage_lines),
        "## Table 1: retrieval and answers per setting and system\n\n" + table1,
        "## Table 2: ablations (deployment)\n\n" + table2_markdown(aggregates),
        "## Answer quality\n\n" + generation_markdown(aggregates),
        "## MRR by category\n\n" + breakdown_markdown(per_query, "category"),
        "## MRR by query type\n\n" + breakdown_markdown(per_query, "query_type"),
    ]
    directory = Path(directory)
    chart_paths = charts(aggregates, per_query, directory)
    captions = ("MRR and R@10 per system", "MRR per category (deployment)", "MRR per query type",
                "Profile questions per query")
    chart_lines = [f"![{caption}]({path.name})" for caption, path in zip(captions, chart_paths)]
    key = _chart_key(per_query)
    if key:
        chart_lines.append("Chart labels:\n\n" + "\n".join(key))
    sections.append("## Charts\n\n" + "\n\n".join(chart_lines))
    markdown_path = directory / "report.md"
    markdown_path.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return {"markdown": markdown_path, "charts": chart_paths, "table1": table1}
