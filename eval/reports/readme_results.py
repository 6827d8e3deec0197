"""The README's results, generated from the lakehouse instead of copied by hand.

    .venv/bin/python -m eval.reports.readme_results [--warehouse DIR ...] [--readme README.md] [--check]

Replaces what lies between `<!-- results:begin -->` and `<!-- results:end -->` in the README with,
per warehouse (one per institution), Table 1 of its evaluation run, stamped with the run id, build
id, date, instances, where the gold came from and the command that wrote it. The run is the one
the `evaluation` asset last stood for, else the latest in eval_runs (`--benchmark` picks the latest
of one benchmark, by name or hash). The lakehouse is opened read-only. The same runs give the same
bytes (the date is the run's, not today's), so `--check` can tell in CI whether the README is stale.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb

from advisor.lakehouse import LakehouseUnavailable, open_lakehouse
from advisor.settings import warehouse_path
from eval import store
from eval.reports.report import table1, table1_caption

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
COMMAND = ".venv/bin/python -m eval.reports.readme_results"
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class ResultsError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _open(warehouse: Path) -> duckdb.DuckDBPyConnection:
    try:
        return open_lakehouse(warehouse)
    except LakehouseUnavailable as exc:
        raise ResultsError(EXIT_FAILED, str(exc)) from None


def _asset_run(con: duckdb.DuckDBPyConnection) -> str | None:
    """The evaluation run the `evaluation` asset last stood for (None without that table or run)."""
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if "materializations" not in tables:
        return None
    rows = con.execute("SELECT json_extract_string(metadata, '$.eval_run_id') FROM materializations "
                       "WHERE asset = 'evaluation' ORDER BY finished_at DESC LIMIT 1").fetchall()
    return rows[0][0] if rows else None


def chosen_run(con: duckdb.DuckDBPyConnection, benchmark: str | None = None) -> dict:
    if benchmark is None:
        run_id = _asset_run(con)
        if run_id is not None:
            return store.run_info(con, run_id)
    run = store.latest_run(con, benchmark)
    if run is None:
        what = f" of benchmark {benchmark!r}" if benchmark else ""
        raise ResultsError(EXIT_FAILED, f"no evaluation run{what} in this lakehouse: materialize evaluation "
                                        "(or run `advisor eval`) first")
    return run


def section(con: duckdb.DuckDBPyConnection, run: dict) -> str:
    """One institution's results: heading, stamp, Table 1 (with MRR's 95% interval and the paired
    tests against the baselines when the run has them) and its caption."""
    aggregates = store.aggregates_frame(con, run["run_id"])
    backend = f"LLM {run['llm_model']}" if run.get("llm_model") else "offline"
    ran = [r for r in aggregates.to_dicts() if r.get("skipped") is None and r.get("n")]
    n = max((r["n"] for r in ran), default=0)
    institution = run.get("institution") or "(institution not recorded)"
    stamp = (f"Run `{run['run_id']}` finished {run['finished_at']:%Y-%m-%d} on build `{run['build_id']}` "
             f"({run['instances']} instances of benchmark `{run['benchmark_hash']}`, {n} per system in Table 1; "
             f"gold from: {run.get('gold_from') or 'not recorded'}).")
    return "\n\n".join([
        f"### Results on {institution} ({backend}: {run.get('annotator')} annotator, {run.get('embedder')} embedder)",
        stamp,
        table1(aggregates, store.intervals_frame(con, run["run_id"]), store.tests_frame(con, run["run_id"])).markdown(),
        table1_caption(aggregates, run.get("gold_from")),
    ])


def block(sections: Sequence[str], command: str) -> str:
    note = f"_Generated from the lakehouse by `{command}`; regenerate it rather than edit it._"
    return "\n\n".join([note, *sections])


def replace_block(readme: str, content: str) -> str:
    """The README text with everything between the markers replaced by `content`."""
    if readme.count(BEGIN) != 1 or readme.count(END) != 1:
        raise ResultsError(EXIT_BAD_INPUT, f"the README must hold {BEGIN} and {END} exactly once each")
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    if end < start:
        raise ResultsError(EXIT_BAD_INPUT, f"{END} comes before {BEGIN} in the README")
    return readme[:start] + "\n" + content.strip("\n") + "\n" + readme[end:]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eval.reports.readme_results", description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", action="append", metavar="DIR",
                        help="a warehouse folder, once per institution (default: $ADVISOR_WAREHOUSE, else warehouse)")
    parser.add_argument("--readme", default="README.md", help="the README to update (default: README.md)")
    parser.add_argument("--benchmark", help="take the latest run of this benchmark (name or hash) instead")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the README is stale")
    return parser


def run(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    warehouses = args.warehouse or [warehouse_path()]
    command = " ".join([COMMAND, *(shlex.quote(a) for a in argv if a != "--check")])
    sections = []
    for warehouse in warehouses:
        con = _open(Path(warehouse))
        try:
            sections.append(section(con, chosen_run(con, args.benchmark)))
        finally:
            con.close()
    readme = Path(args.readme)
    if not readme.is_file():
        raise ResultsError(EXIT_BAD_INPUT, f"no README at {readme}")
    before = readme.read_text(encoding="utf-8")
    after = replace_block(before, block(sections, command))
    if args.check:
        if after != before:
            print(f"{readme}: the results block is stale; run `{command}`", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK
    if after != before:
        partial = readme.with_name(readme.name + ".partial")
        partial.write_text(after, encoding="utf-8")
        partial.replace(readme)
    print(f"{readme}: results of {len(sections)} warehouse(s) written between the markers")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code


if __name__ == "__main__":
    sys.exit(main())
