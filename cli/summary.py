"""The summary `advisor materialize` prints: what was built, how it went, and where it is."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from advisor.lakehouse import LAKEHOUSE_FILE, connect

console = Console()


def _dir_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file()] if path.exists() else []
    return len(files), sum(p.stat().st_size for p in files)


def print_run_summary(result, warehouse: Path, seconds: float) -> None:
    run_id = result.run_id
    with connect(warehouse) as con:
        rows = con.execute(
            "SELECT asset, row_count, rows_added, rows_changed, rows_unchanged, rows_removed, failures, metadata "
            "FROM materializations WHERE run_id = ? ORDER BY started_at", [run_id]
        ).fetchall()
    table = Table(title=f"run {run_id[:8]} · {'succeeded' if result.success else 'FAILED'} in {seconds:.1f} s")
    for column in ("asset", "rows", "added", "changed", "unchanged", "removed", "failures"):
        table.add_column(column, justify="left" if column == "asset" else "right", no_wrap=True)
    for asset, total, added, changed, unchanged, removed, failures, _ in rows:
        table.add_row(asset, *(str(v if v is not None else "–") for v in (total, added, changed, unchanged, removed, failures)))
    console.print(table)
    for asset, *_, metadata in rows:
        console.print(f"  {asset}: {_notes(json.loads(metadata or '{}'))}")

    checks = [e for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    if checks:
        failed = [e.event_specific_data.check_name for e in checks if not e.event_specific_data.passed]
        console.print(f"checks: {len(checks) - len(failed)} passed" + (f", [red]failed: {', '.join(failed)}[/red]" if failed else ""))
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            console.print(f"[red]step failed:[/red] {event.step_key}: {event.event_specific_data.error.message.strip()}")

    n_raw, raw_bytes = _dir_size(warehouse / "raw")
    console.print("where:")
    console.print(f"  lakehouse  {warehouse / LAKEHOUSE_FILE}   (duckdb -readonly {warehouse / LAKEHOUSE_FILE})")
    console.print(f"  raw bytes  {warehouse / 'raw'}   ({n_raw} files, {raw_bytes / 1e6:.1f} MB)")
    console.print(f"  dagster    {warehouse / 'dagster'}   (run history; `make ui` shows it)")
    evaluated = {asset: json.loads(metadata or "{}") for asset, *_, metadata in rows}
    if evaluated.get("evaluation", {}).get("eval_run_id"):
        _print_table1(warehouse, evaluated["evaluation"]["eval_run_id"], evaluated.get("evaluation_report", {}))


def _print_table1(warehouse: Path, run_id: str, report: dict) -> None:
    """The paper's Table 1 layout for the run the evaluation asset stands for, last: it is what
    `make demo` is for. Under it: which instances it is over and where the gold came from."""
    from eval.reports.report import table1, table1_caption
    from eval.store import aggregates_frame, intervals_frame, run_info, tests_frame

    with connect(warehouse) as con:
        aggregates = aggregates_frame(con, run_id)
        gold_from = run_info(con, run_id).get("gold_from")
        table = table1(aggregates, intervals_frame(con, run_id), tests_frame(con, run_id))
    console.print(f"\n[bold]Table 1[/bold] (evaluation run {run_id}; SQL: eval_aggregates, eval_intervals, eval_tests)")
    print(table.markdown())  # plain Markdown, pasteable
    print("\n" + table1_caption(aggregates, gold_from))
    if report.get("report_html"):
        console.print(f"report with the ablations, slices, breakdowns, charts and every question: "
                      f"{report['report_html']} (`advisor report --open`; Markdown: {report['report_path']})",
                      highlight=False, soft_wrap=True)  # paths whole, never folded
    elif report.get("report_path"):
        console.print(f"report with the ablations, slices, breakdowns and charts: {report['report_path']}",
                      highlight=False)


def _notes(metadata: dict) -> str:
    """The asset's own figures (row counts are in the table already), zeros left out."""
    return ", ".join(
        f"{key}={value}" for key, value in metadata.items()
        if not key.startswith("dagster/") and isinstance(value, (int, float, str)) and value not in (0, "none", "")
    )
