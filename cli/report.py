"""`advisor report`: the path of an evaluation run's report.html (the latest run's, or `--run-id`'s),
rendered first when the run is in the lakehouse but its page is not on disk yet (by
eval/reports/run_report.py, as the `evaluation_report` asset renders it), opened in the browser with
`--open` (docs/contracts.md §1).

The lakehouse is opened read-only: rendering writes files under `<warehouse>/reports/`, never rows.
"""

from __future__ import annotations

import argparse
import webbrowser
from pathlib import Path

from rich.console import Console

from advisor.config import ConfigError, load_config
from cli.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

console = Console(stderr=True)


class ReportError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _open_lakehouse(warehouse: Path):
    from advisor.lakehouse import LakehouseUnavailable, open_lakehouse

    try:
        return open_lakehouse(warehouse)
    except LakehouseUnavailable as exc:
        raise ReportError(EXIT_BAD_INPUT if exc.missing else EXIT_FAILED, str(exc)) from None


def _run(con, run_id: str | None, warehouse: Path) -> dict:
    """The eval_runs row of `run_id`, else of the latest run; a one-line error when there is none."""
    from advisor.lakehouse import scalar
    from eval import store

    none = ReportError(EXIT_BAD_INPUT, f"no evaluation run in {warehouse}: run `advisor materialize` or "
                                       "`advisor eval` first")
    if not scalar(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'eval_runs'"):
        raise none
    if run_id is None:
        run = store.latest_run(con)
        if run is None:
            raise none
        return run
    try:
        return store.run_info(con, run_id)
    except KeyError:
        raise ReportError(EXIT_BAD_INPUT, f"no evaluation run {run_id!r} in {warehouse}") from None


def _profile_attributes(config_arg: str | None, institution: str | None) -> list[str] | None:
    """The config's profile attributes (the label gap's row order) when the config is the run's
    institution's; else None, and the run's benchmark names them."""
    try:
        config = load_config(config_arg)
    except ConfigError:
        return None
    return list(config.profile) if config.institution == institution else None


def report_path(warehouse: Path, run_id: str | None, config_arg: str | None = None) -> tuple[Path, bool]:
    """(report.html of the run, whether it was rendered now)."""
    from eval.reports.run_report import REPORT_HTML, report_directory, write_run_report

    con = _open_lakehouse(warehouse)
    try:
        run = _run(con, run_id, warehouse)
        page = report_directory(warehouse, run["run_id"]) / REPORT_HTML
        if page.is_file():
            return page, False
        written = write_run_report(con, warehouse, run["run_id"],
                                   profile_attributes=_profile_attributes(config_arg, run.get("institution")))
        return written["html"], True
    finally:
        con.close()


def report(args: argparse.Namespace, warehouse: Path) -> int:
    try:
        page, rendered = report_path(warehouse, args.run_id, args.config)
    except ReportError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)  # one line, however narrow
        return exc.code
    if rendered:
        console.print(f"rendered {page}", highlight=False, soft_wrap=True)
    print(page)
    if args.open and not webbrowser.open(page.as_uri()):
        console.print("[yellow]no browser to open it with[/yellow]; the path is above", highlight=False,
                      soft_wrap=True)
    return EXIT_OK
