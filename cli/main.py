"""`advisor`: the command line (docs/contracts.md §1)."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

from rich.console import Console

from advisor.config import ConfigError, load_config
from advisor.settings import AskEnvironment, fleet_root, read, warehouse_path
from cli.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_RUN_IN_PROGRESS

console = Console(stderr=True, soft_wrap=True)  # an error names paths: whole, never folded at 80 columns


def _warehouse(arg: str | None) -> Path:
    return warehouse_path(arg).resolve()



def materialize(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)  # fail fast, naming the bad field, before Dagster starts
    except ConfigError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return EXIT_BAD_INPUT
    warehouse = _warehouse(args.warehouse)
    config_path = str(Path(args.config).resolve()) if args.config else ""

    from cli.dagster_home import prepare_dagster_home

    prepare_dagster_home(warehouse)
    warnings.filterwarnings("ignore")  # Dagster's supersession/beta warnings are not for students
    from dagster import AssetSelection, DagsterInstance

    from advisor import progress
    from cli.summary import print_run_summary
    from pipelines.definitions import build_definitions

    defs = build_definitions(config_path=config_path, warehouse=str(warehouse))
    job = defs.resolve_implicit_global_asset_job_def()
    selection = None
    run_config: dict = {}
    if args.notices:  # the hourly schedule's run, on request (pipelines/schedules.py)
        from advisor.index.layout import builds_dir, latest_build_dir
        from pipelines.schedules import NOTICES_ASSETS, NOTICES_RUN_CONFIG

        if latest_build_dir(builds_dir(warehouse)) is None:
            console.print(f"[red]error:[/red] --notices refreshes the notices of a published build, and "
                          f"{warehouse} has none: run `advisor materialize` first")
            return EXIT_BAD_INPUT

        args.select = " or ".join(f"key:{name}" for name in NOTICES_ASSETS)
        run_config = NOTICES_RUN_CONFIG
    if args.select:
        try:
            keys = AssetSelection.from_string(args.select).resolve(defs.resolve_asset_graph())
        except Exception as exc:  # Dagster raises several types for a bad selection string
            console.print(f"[red]error:[/red] --select {args.select!r}: {exc}")
            return EXIT_BAD_INPUT
        if not keys:
            console.print(f"[red]error:[/red] --select {args.select!r} matches no asset")
            return EXIT_BAD_INPUT
        selection = sorted(keys)

    from cli.run_lock import RUN_TAG, WAREHOUSE_TAG, RunInProgress, exclusive_warehouse, recover_dead_runs, this_process

    console.print(f"[bold]{config.institution}[/bold] → {warehouse}")
    started = time.monotonic()
    counts: Counter = Counter()
    try:
        with exclusive_warehouse(warehouse, wait=args.wait, on_wait=lambda busy: console.print(
                f"[yellow]waiting:[/yellow] {busy}; this run starts when it ends (Ctrl-C to give up)")):
            instance = DagsterInstance.get()
            for line in recover_dead_runs(instance, warehouse):
                console.print(f"[yellow]recovered:[/yellow] {line}")
            with console.status("starting…") as status:

                def sink(stage: str, message: str) -> None:
                    counts[stage] += 1
                    status.update(f"[bold]{stage}[/bold] ({counts[stage]}) {message[:100]}")

                progress.set_sink(sink)
                try:
                    result = job.execute_in_process(
                        instance=instance,
                        asset_selection=selection,
                        raise_on_error=False,
                        run_config={**run_config, "loggers": {"console": {"config": {"log_level": "WARNING"}}}},
                        tags={RUN_TAG: this_process(), WAREHOUSE_TAG: str(warehouse)},
                    )
                finally:
                    progress.set_sink(None)
    except RunInProgress as busy:
        console.print(f"[red]error:[/red] {busy}; wait for it to end, or pass --wait to queue behind it")
        return EXIT_RUN_IN_PROGRESS
    print_run_summary(result, warehouse, time.monotonic() - started)
    return EXIT_OK if result.success else EXIT_FAILED


def _llm_settings_or_none():
    """The configured LLM (as assets/resources.py decides "configured"), else None: offline."""
    from advisor.llm.settings import LLMSettings

    settings = LLMSettings.from_env()  # ValueError names the bad variable
    return settings if settings.configured else None


def _serving_inputs(args: argparse.Namespace):
    """(config, builds root, LLM settings) for serve / ask, or an exit code after a clear message."""
    try:
        config = load_config(args.config)
        llm_settings = _llm_settings_or_none()
    except (ConfigError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return None
    from advisor.index.layout import BUILDS_DIR

    return config, _warehouse(args.warehouse) / BUILDS_DIR, llm_settings


def serve(args: argparse.Namespace) -> int:
    inputs = _serving_inputs(args)
    if inputs is None:
        return EXIT_BAD_INPUT
    from cli.serve import serve_command

    config, builds_root, llm_settings = inputs
    from serving.api.settings import ServingSettings
    from serving.api.usage import USAGE_DIR

    try:
        settings = ServingSettings.from_env(rate_per_minute=args.rate_limit,
                                            trusted_proxies=tuple(args.trusted_proxy) or None,
                                            workers=args.workers, session_store=args.session_store,
                                            # what the office sees: <warehouse>/usage (serving/api/usage.py)
                                            usage_dir=str(builds_root.parent / USAGE_DIR),
                                            question_log=config.usage.question_log,
                                            usage_retention_days=config.usage.retention_days)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return EXIT_BAD_INPUT
    return serve_command(config, builds_root, llm_settings, args.host, args.port, settings=settings,
                         config_path=args.config)


def ask(args: argparse.Namespace) -> int:
    if args.server:  # a running server answers: no engine to start here
        from cli.remote import ask_remote
        from cli.terminal import BadInput, parse_profile_args

        try:
            profile = parse_profile_args(args.profile)
        except BadInput as exc:
            console.print(f"[red]error:[/red] {exc}", highlight=False)
            return EXIT_BAD_INPUT
        return ask_remote(args.server, args.question, profile)
    inputs = _serving_inputs(args)
    if inputs is None:
        return EXIT_BAD_INPUT
    from cli.terminal import ask_command

    config, builds_root, llm_settings = inputs
    return ask_command(args.question, args.profile, config, builds_root, llm_settings)


# --- advisor eval ------------------------------------------------------------------------------


class _EvalError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _names(value: str | None, allowed: tuple[str, ...], option: str) -> tuple[str, ...]:
    """A comma-separated option as names in the given order; unknown names are an input error."""
    from eval.systems.registry import checked_names

    if value is None:
        return allowed
    try:
        return checked_names([n.strip() for n in value.split(",") if n.strip()], allowed, "name")
    except ValueError as exc:
        raise _EvalError(EXIT_BAD_INPUT, f"{option}: {exc}") from None


def _lakehouse(warehouse: Path):
    """The lakehouse opened read-write, or a clear error when another process holds its lock."""
    from advisor.lakehouse import LakehouseUnavailable, open_lakehouse

    try:
        return open_lakehouse(warehouse, read_only=False)
    except LakehouseUnavailable as exc:
        raise _EvalError(EXIT_FAILED, str(exc)) from None


def evaluate(args: argparse.Namespace) -> int:
    try:
        chosen = [option for option in ("benchmark", "testsets", "devsets") if getattr(args, option) is not None]
        if len(chosen) != 1:
            raise _EvalError(EXIT_BAD_INPUT, "give exactly one of --benchmark, --testsets, --devsets")
        return _evaluate(args) if args.benchmark is not None else _run_sets(args)
    except _EvalError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return exc.code


def _evaluate(args: argparse.Namespace) -> int:
    """eval/entry.py's evaluation (shared with the pipeline's asset, run reuse included), shown here:
    Table 1 on stdout and the `--out` file, before recording, so a lock taken meanwhile cannot hide
    minutes of results."""
    from eval.systems import registry  # light: names only; the systems load when the run starts

    systems = _names(args.systems, registry.NAMES, "--systems")
    settings = _names(args.settings, registry.SETTINGS, "--settings")
    try:
        config = load_config(args.config)
        llm_settings = _llm_settings_or_none()
    except (ConfigError, ValueError) as exc:
        raise _EvalError(EXIT_BAD_INPUT, str(exc)) from None
    warehouse = _warehouse(args.warehouse)

    import polars as pl

    from advisor import progress
    from eval.entry import EvaluationError, evaluate
    from eval.reports.report import table1_caption, table1_markdown
    from eval.store.outfile import out_document, write_out

    shown = []
    status = console.status("evaluating…")

    def show(result) -> None:
        status.stop()  # the table goes to stdout, not through the live status line (stderr)
        document = out_document(result.aggregates, build_id=result.build_id, benchmark=str(args.benchmark),
                                instances=result.instances, run_id=result.run_id,
                                benchmark_hash=result.benchmark_hash, gold_from=result.gold_from)
        if args.out:
            write_out(args.out, document)
        # Only the flat fields go into the frame (the per-slice objects differ from row to row).
        flat = [{k: v for k, v in row.items() if not isinstance(v, dict)} for row in document["results"]]
        print(table1_markdown(pl.DataFrame(flat, infer_schema_length=None)))
        print("\n" + table1_caption(flat, result.gold_from))
        shown.append(result)

    with status:
        progress.set_sink(lambda stage, message: status.update(f"{stage} {message}"[:120]))
        try:
            result = evaluate(config, warehouse, args.benchmark, systems, settings, llm_settings=llm_settings,
                              connect=lambda: _lakehouse(warehouse), on_results=show,
                              say=lambda line: console.print(line, highlight=False))
        except EvaluationError as exc:
            raise _EvalError(EXIT_BAD_INPUT if exc.bad_input else EXIT_FAILED, str(exc)) from None
        except _EvalError as exc:  # the lakehouse was locked
            if not shown:
                raise
            kept = f"; the aggregates are in {args.out}" if args.out else ""
            raise _EvalError(exc.code, f"the run was not recorded: {exc}{kept}") from None
        finally:
            progress.set_sink(None)
    verb = "reused" if result.reused else "recorded as"
    console.print(f"{verb} evaluation run {result.run_id} in {warehouse}"
                  + (f"; aggregates written to {args.out}" if args.out else ""), highlight=False)
    return EXIT_OK


def _run_sets(args: argparse.Namespace) -> int:
    """The locked test sets (aggregates only) or the development sets (with their failures), each
    set's institution built in `--workdir`, one `testset_runs` row per set (eval/sets/)."""
    import tempfile

    from eval.sets import build, lock, show
    from eval.sets.items import SetFormatError
    from eval.sets.run import run_sets

    purpose = "test" if args.testsets is not None else "development"
    names = [n.strip() for n in (args.testsets or args.devsets or "").split(",") if n.strip() and n != "all"]
    warehouse = _warehouse(args.warehouse)
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.gettempdir()) / "advisor-sets"
    try:
        done = run_sets(purpose, names or None, workdir.resolve(), lambda: _lakehouse(warehouse),
                        real_faq=Path(args.real_faq) if args.real_faq else None,
                        say=lambda line: console.print(line, highlight=False))
    except (lock.LockError, SetFormatError, build.UnknownSet) as exc:
        raise _EvalError(EXIT_BAD_INPUT, str(exc)) from None
    except RuntimeError as exc:  # an institution that did not build
        raise _EvalError(EXIT_FAILED, str(exc)) from None
    for result in done:
        print(show.aggregates(result.name, purpose, result.build_id, result.metrics) + "\n")
        if purpose == "development":
            print(show.failures(result.outcomes, result.copies) + "\n")
    console.print(f"recorded in {warehouse} (testset_runs)", highlight=False)
    return EXIT_OK


def fleet_compare(args: argparse.Namespace) -> int:
    """Every institution of a fleet root side by side (eval/reports/fleet.py): one in-memory DuckDB with
    each `<root>/<key>/lakehouse.duckdb` attached read-only."""
    import polars as pl

    from eval.reports.fleet import attach_fleet, overview, table1_rows

    root = fleet_root(args.root)
    with attach_fleet(root) as fleet:
        for key, why in fleet.skipped.items():
            console.print(f"[yellow]skipped:[/yellow] {key}: {why}", highlight=False)
        if not fleet.catalogs:
            console.print(f"[red]error:[/red] no institution's lakehouse under {root}", highlight=False)
            return EXIT_FAILED
        institutions, table1 = overview(fleet), table1_rows(fleet)
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
        print(institutions)
        if table1.height:
            print(table1.drop("run_id", "finished_at"))
    return EXIT_OK


def report(args: argparse.Namespace) -> int:
    """`advisor report`: cli/report.py."""
    from cli.report import report as report_command

    return report_command(args, _warehouse(args.warehouse))


def ui(args: argparse.Namespace) -> int:
    """`advisor ui`: cli/ui.py."""
    from cli.ui import run_ui

    return run_ui(_warehouse(args.warehouse), args.config, args.host, args.port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="advisor", description="Profile-aware academic-advising assistant.")
    sub = parser.add_subparsers(dest="command", required=True)

    m = sub.add_parser("materialize", help="materialize the Dagster assets for one institution, in-process")
    m.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    m.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    what = m.add_mutually_exclusive_group()  # the notices run has its own selection
    what.add_argument("--select", help="Dagster asset selection, e.g. 'raw_documents' or '+documents'")
    what.add_argument("--notices", action="store_true",
                   help="refresh the notices only: crawl the dynamic collection and publish a build that reuses "
                        "the static side (the notices_hourly schedule's run; no benchmark, no evaluation)")
    m.add_argument("--wait", action="store_true",
                   help="when another materialize runs on this warehouse, wait for it instead of exiting 3")
    m.set_defaults(func=materialize)

    e = sub.add_parser("eval", help="evaluate systems on a benchmark against the latest index build")
    e.add_argument("--benchmark", help="benchmark file, JSONL (docs/contracts.md §3)")
    e.add_argument("--testsets", nargs="?", const="all", metavar="NAMES",
                   help="run the locked test sets (eval/testsets/; comma-separated names, default all): "
                        "aggregates only, one testset_runs row each")
    e.add_argument("--devsets", nargs="?", const="all", metavar="NAMES",
                   help="run the development sets (eval/devsets/), with the items that went wrong")
    e.add_argument("--workdir", help="where --testsets / --devsets build each set's institution "
                                     "(default: <tmp>/advisor-sets; kept, so a re-run is incremental)")
    e.add_argument("--real-faq", help="the real FAQ file the realfaq set is keyed to "
                                      "(default: ../shared/realdata/hobit-faq.jsonl beside the clone)")
    e.add_argument("--systems", help="comma-separated system names (default: all)")
    e.add_argument("--settings", default="deployment,oracle", help="comma-separated: deployment, oracle")
    e.add_argument("--out", help="write the aggregates as JSON to this file")
    e.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    e.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    e.set_defaults(func=evaluate)

    s = sub.add_parser("serve", help="serve the student API and web page")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--rate-limit", type=int, metavar="N",
                   help="requests per minute per client to /v1/* (0 = off; default: $ADVISOR_RATE_LIMIT, else 60)")
    s.add_argument("--trusted-proxy", action="append", default=[], metavar="IP[/BITS]",
                   help="a reverse proxy whose X-Forwarded-For is believed (repeatable; default: "
                        "$ADVISOR_TRUSTED_PROXIES, comma-separated, else none)")
    s.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    s.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    s.add_argument("--workers", type=int, metavar="N",
                   help="server processes (default: $ADVISOR_WORKERS, else 1); more than one needs --session-store")
    s.add_argument("--session-store", metavar="memory|redis://HOST:PORT/DB",
                   help="where conversations live between turns: this process's memory, or a Redis server that "
                        "every worker and replica shares, with persistence off (default: $ADVISOR_SESSION_STORE, "
                        "else memory)")
    s.set_defaults(func=serve)

    u = sub.add_parser("ui", help="the Dagster UI (webserver and daemon) over a warehouse")
    u.add_argument("--host", default="127.0.0.1")
    u.add_argument("--port", type=int, default=3000)
    u.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    u.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    u.set_defaults(func=ui)

    a = sub.add_parser("ask", help="ask one question from the terminal")
    a.add_argument("question")
    a.add_argument("--profile", action="append", default=[], metavar="attr=value",
                   help="a known profile fact, e.g. --profile department=CS (repeatable)")
    a.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    a.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    a.add_argument("--server", metavar="URL", default=read(AskEnvironment).server,
                   help="ask a running `advisor serve` at URL (http://host:port) instead of starting the "
                        "engine here: well under a second (default: $ADVISOR_SERVER, else start the engine)")
    a.set_defaults(func=ask)

    r = sub.add_parser("report", help="the path of an evaluation run's HTML report (rendered if missing); "
                                      "--open shows it in the browser")
    r.add_argument("--run-id", help="the evaluation run (default: the latest one in the lakehouse)")
    r.add_argument("--open", action="store_true", help="open the report in the default web browser")
    r.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    r.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    r.set_defaults(func=report)

    f = sub.add_parser("fleet", help="many institutions: compare every warehouse under a fleet root")
    fleet_sub = f.add_subparsers(dest="fleet_command", required=True)
    fc = fleet_sub.add_parser("compare", help="each institution's counts and latest Table 1, side by side")
    fc.add_argument("--root", help="the fleet root, one warehouse per institution (default: "
                                   "$ADVISOR_FLEET_ROOT, else <warehouse>/fleet)")
    fc.set_defaults(func=fleet_compare)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
