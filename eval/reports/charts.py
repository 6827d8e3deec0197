"""The evaluation report's charts (eval.reports.report.charts is the entry point): matplotlib's object
API on the Agg canvas (no pyplot global state, no display) at exactly 1200x700 px, ASCII labels
only (no CJK font is guaranteed: eval.reports.report names the stand-ins in the report)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from eval.reports.data import (
    CHART_DPI,
    CHART_FILES,
    CHART_SIZE_INCHES,
    SETTING_ORDER,
    SLICE_ORDER,
    _aggregate_rows,
    _ascii_labels,
    _breakdown_cells,
    _embedder_name,
    _has_embedders,
    _ordered,
    _row_order,
    main_slice_rows,
)
from eval.reports.table import number

__all__ = ["draw_charts", "usage_shares_chart"]


def _ascii(text: str) -> str:
    # System and embedder names are ASCII by contract; a stray other character becomes "?".
    return text if text.isascii() else text.encode("ascii", "replace").decode()


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


def _grouped_bars(axes, rows: Sequence[Mapping], column: str, title: str, ylabel: str, top: float | None,
                  group: str = "setting", group_order: Sequence[str] = SETTING_ORDER) -> None:
    """Bars per system label, one bar per `group` value (setting, or slice) side by side; "n/a"
    where not computed."""
    with_embedder = _has_embedders(rows)
    labels = list(dict.fromkeys(_bar_label(r, with_embedder) for r in sorted(rows, key=lambda r: _row_order(r)[1:])))
    groups = _ordered((r[group] for r in rows), group_order)
    if not labels:
        _empty_panel(axes, title, "no results")
        return
    values = {(r[group], _bar_label(r, with_embedder)): number(r.get(column)) for r in rows}
    width = 0.8 / len(groups)
    for k, name in enumerate(groups):
        xs = [i + (k - (len(groups) - 1) / 2) * width for i in range(len(labels))]
        heights = [values.get((name, label)) for label in labels]
        axes.bar(xs, [h or 0.0 for h in heights], width=width, label=_ascii(name))
        for x, h in zip(xs, heights):
            if h is None:
                axes.text(x, 0, "n/a", ha="center", va="bottom", fontsize=7, rotation=90)
    axes.set_xticks(range(len(labels)), labels, rotation=35, ha="right", fontsize=9)
    axes.set_title(title)
    axes.set_ylabel(ylabel)
    # Headroom above the tallest possible bar, so the legend has a place that hides no bar.
    present = [v for v in values.values() if v is not None]
    axes.set_ylim(0, 1.15 * (top if top is not None else max(present, default=0.0) or 1.0))
    axes.legend(fontsize=9, loc="upper right", ncols=len(groups))
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


def _slice_chart(slices: pl.DataFrame | None, path: Path) -> Path:
    """Deployment setting: MRR, and questions asked per query, per system with one bar per slice."""
    figure, axes = _new_figure(1, 2)
    rows = [] if slices is None or slices.is_empty() else slices.filter(pl.col("setting") == "deployment").to_dicts()
    if not rows:
        for panel, title in zip(axes[0], ("MRR per slice (deployment)", "Questions per query per slice")):
            _empty_panel(panel, title, "no per-slice results")
        return _save(figure, path)
    _grouped_bars(axes[0][0], rows, "mrr", "MRR per slice (deployment)", "MRR", 1.0, "slice", SLICE_ORDER)
    _grouped_bars(axes[0][1], rows, "questions_per_query", "Questions per query per slice (deployment)",
                  "questions per query", None, "slice", SLICE_ORDER)
    return _save(figure, path)


def draw_charts(aggregates: pl.DataFrame, per_query: pl.DataFrame, directory: Path,
                slices: pl.DataFrame | None = None) -> list[Path]:
    """eval.reports.report.charts: the PNGs in CHART_FILES order."""
    rows = _aggregate_rows(aggregates)
    main_rows, _ = main_slice_rows(per_query)
    by_category = _breakdown_cells(main_rows, "category")
    by_query_type = _breakdown_cells(main_rows, "query_type")
    directory.mkdir(parents=True, exist_ok=True)
    retrieval, category, query_type, questions, by_slice = (directory / name for name in CHART_FILES)
    return [
        _retrieval_chart(rows, retrieval),
        _category_chart(by_category, category),
        _query_type_chart(by_query_type, query_type),
        _questions_chart(rows, questions),
        _slice_chart(slices, by_slice),
    ]


USAGE_SERIES = (("share_faq", "FAQ"), ("share_documents", "documents"), ("share_fallback", "fallback (not answered)"))


def usage_shares_chart(days: Sequence[Mapping], path: Path) -> Path:
    """The "What students asked" chart: per day, the share of the logged questions each tier answered
    (eval/reports/usage.py), with the day's number of questions under each date."""
    figure, axes = _new_figure()
    panel = axes[0][0]
    title = "Share of the day's questions per answering tier"
    if not days:
        _empty_panel(panel, title, "no questions logged")
        return _save(figure, path)
    x = list(range(len(days)))
    for key, label in USAGE_SERIES:
        panel.plot(x, [number(d.get(key)) or 0.0 for d in days], marker="o", label=label)
    step = max(1, math.ceil(len(days) / 12))  # at most 12 date labels, month-day: they fit side by side
    panel.set_xticks(x[::step], [f"{str(d['day'])[5:]}\n(n={d['questions']})" for d in days][::step])
    first, last = str(days[0]["day"])[:4], str(days[-1]["day"])[:4]
    panel.set_xlabel(f"UTC day, {first}" + (f"-{last}" if last != first else ""))
    panel.set_ylim(0, 1.0)
    panel.set_ylabel("share of questions")
    panel.set_title(title)
    panel.grid(axis="y", alpha=0.3)
    panel.legend(loc="upper left")
    path.parent.mkdir(parents=True, exist_ok=True)
    return _save(figure, path)
