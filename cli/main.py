"""`advisor`: the command line (interfaces.md §1)."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

from rich.console import Console

from advisor.config import ConfigError, load_config

console = Console(stderr=True)


def _warehouse(arg: str | None) -> Path:
    return Path(arg or os.environ.get("ADVISOR_WAREHOUSE") or "warehouse").resolve()


def materialize(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)  # fail fast, naming the bad field, before Dagster starts
    except ConfigError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    warehouse = _warehouse(args.warehouse)
    config_path = str(Path(args.config).resolve()) if args.config else ""

    from advisor.instance import prepare_dagster_home

    prepare_dagster_home(warehouse)
    warnings.filterwarnings("ignore")  # Dagster's supersession/beta warnings are not for students
    from dagster import AssetSelection, DagsterInstance

    from advisor import progress
    from cli.summary import print_run_summary
    from pipelines.definitions import build_definitions

    defs = build_definitions(config_path=config_path, warehouse=str(warehouse))
    job = defs.resolve_implicit_global_asset_job_def()
    selection = None
    if args.select:
        try:
            keys = AssetSelection.from_string(args.select).resolve(defs.resolve_asset_graph())
        except Exception as exc:  # Dagster raises several types for a bad selection string
            console.print(f"[red]error:[/red] --select {args.select!r}: {exc}")
            return 2
        if not keys:
            console.print(f"[red]error:[/red] --select {args.select!r} matches no asset")
            return 2
        selection = sorted(keys)

    console.print(f"[bold]{config.institution}[/bold] → {warehouse}")
    started = time.monotonic()
    counts: Counter = Counter()
    with console.status("starting…") as status:

        def sink(stage: str, message: str) -> None:
            counts[stage] += 1
            status.update(f"[bold]{stage}[/bold] ({counts[stage]}) {message[:100]}")

        progress.set_sink(sink)
        try:
            result = job.execute_in_process(
                instance=DagsterInstance.get(),
                asset_selection=selection,
                raise_on_error=False,
                run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
            )
        finally:
            progress.set_sink(None)
    print_run_summary(result, warehouse, time.monotonic() - started)
    return 0 if result.success else 1


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
    from advisor.index.stage import BUILDS_DIR

    return config, _warehouse(args.warehouse) / BUILDS_DIR, llm_settings


def serve(args: argparse.Namespace) -> int:
    inputs = _serving_inputs(args)
    if inputs is None:
        return 2
    from serving.api.terminal import serve_command

    config, builds_root, llm_settings = inputs
    return serve_command(config, builds_root, llm_settings, args.host, args.port)


def ask(args: argparse.Namespace) -> int:
    inputs = _serving_inputs(args)
    if inputs is None:
        return 2
    from serving.api.terminal import ask_command

    config, builds_root, llm_settings = inputs
    return ask_command(args.question, args.profile, config, builds_root, llm_settings)


# --- advisor eval ------------------------------------------------------------------------------

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
LOCKED_HINT = ("the lakehouse is locked by another process (a running pipeline, or a DuckDB session "
               "writing to it); try again when it has finished")


class _EvalError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _names(value: str | None, allowed: tuple[str, ...], option: str) -> tuple[str, ...]:
    """A comma-separated option as names in the given order; unknown names are an input error."""
    if value is None:
        return allowed
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise _EvalError(EXIT_BAD_INPUT,
                         f"{option}: unknown name(s) {', '.join(unknown)}; expected some of {', '.join(allowed)}")
    if not names:
        raise _EvalError(EXIT_BAD_INPUT, f"{option}: give at least one of {', '.join(allowed)}")
    return names


def _lakehouse(warehouse: Path):
    """The lakehouse opened read-write, or a clear error when another process holds its lock."""
    import duckdb

    from advisor.lakehouse import connect

    try:
        return connect(warehouse)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise _EvalError(EXIT_FAILED, f"{warehouse}: {LOCKED_HINT}") from None
        raise


def evaluate(args: argparse.Namespace) -> int:
    try:
        return _evaluate(args)
    except _EvalError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return exc.code


def _evaluate(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from eval import runner  # lazily: the systems pull in the whole serving stack
    from eval.benchmark_io import BenchmarkError, benchmark_hash, read_benchmark

    systems = _names(args.systems, tuple(runner.SYSTEMS), "--systems")
    settings = _names(args.settings, tuple(runner.SETTINGS), "--settings")
    try:
        config = load_config(args.config)
        llm_settings = _llm_settings_or_none()
        read_benchmark(args.benchmark)  # the file's format, before minutes of loading
    except (ConfigError, ValueError) as exc:  # BenchmarkError is a ValueError and names the line
        raise _EvalError(EXIT_BAD_INPUT, str(exc)) from None
    warehouse = _warehouse(args.warehouse)
    from advisor.index.stage import BUILDS_DIR
    from advisor.index.store import latest_build_dir

    if latest_build_dir(warehouse / BUILDS_DIR) is None:
        raise _EvalError(EXIT_FAILED, f"no index build under {warehouse / BUILDS_DIR}: run `advisor materialize` first")
    _lakehouse(warehouse).close()  # fail now, not after the run, if a pipeline holds the lock

    import polars as pl

    from advisor.chunking.token_cache import tokenizer_for
    from eval.outfile import out_document, write_out
    from eval.provenance import gold_line
    from eval.reports import table1_caption, table1_markdown
    from eval.store import gold_from_of, meta_from_build, record_run
    from serving.dialogue.engine import NoBuildError, open_advisor

    started = datetime.now(timezone.utc)
    with console.status("loading the index build…"):
        tokenizer = tokenizer_for(config)
        try:
            advisor = open_advisor(warehouse / BUILDS_DIR, config, llm_settings, tokenizer=tokenizer)
        except NoBuildError as exc:
            raise _EvalError(EXIT_FAILED, f"{exc}") from None
    try:
        instances = read_benchmark(args.benchmark, advisor.schema)  # profiles against the build's schema
        gold_from = gold_from_of(instances)  # names the instance whose "gold_from" is not a string
    except ValueError as exc:  # BenchmarkError is one
        raise _EvalError(EXIT_BAD_INPUT, f"{args.benchmark}: {exc}" if not isinstance(exc, BenchmarkError)
                         else str(exc)) from None
    meta = meta_from_build(
        advisor.build.manifest, config=config, benchmark=str(args.benchmark),
        benchmark_hash=benchmark_hash(args.benchmark), instances=len(instances), systems=systems, settings=settings,
        started_at=started, llm_model=llm_settings.model if llm_settings is not None else None, gold_from=gold_from)
    backend = f"LLM {meta.llm_model}" if meta.llm_model else "offline"
    console.print(f"evaluating {len(systems)} system(s) x {len(settings)} setting(s) on {len(instances)} instances "
                  f"(build {meta.build_id}, {backend}). {gold_line(meta.gold_from)}", highlight=False)
    from eval.truth import true_labels

    try:
        labels = true_labels(config, warehouse, advisor.build)  # for profill-true-labels; None without truth
    except FileNotFoundError as exc:
        raise _EvalError(EXIT_BAD_INPUT, str(exc)) from None
    outcome = _run_with_status(runner, advisor, instances, systems, settings, tokenizer, labels)

    document = out_document(outcome.aggregates, build_id=meta.build_id, benchmark=str(args.benchmark),
                            instances=len(instances), run_id=meta.run_id, benchmark_hash=meta.benchmark_hash,
                            gold_from=meta.gold_from)
    if args.out:
        write_out(args.out, document)
    # The table before recording: a lock taken meanwhile must not hide minutes of results. Only the
    # flat fields go into the frame (the per-slice objects differ from row to row).
    flat = [{k: v for k, v in row.items() if not isinstance(v, dict)} for row in document["results"]]
    print(table1_markdown(pl.DataFrame(flat, infer_schema_length=None)))
    print("\n" + table1_caption(flat, meta.gold_from))
    try:
        con = _lakehouse(warehouse)
    except _EvalError as exc:
        kept = f"; the aggregates are in {args.out}" if args.out else ""
        raise _EvalError(exc.code, f"the run was not recorded: {exc}{kept}") from None
    try:
        record_run(con, outcome=outcome, run_meta=meta, instances=instances)
    finally:
        con.close()
    console.print(f"recorded as evaluation run {meta.run_id} in {warehouse}"
                  + (f"; aggregates written to {args.out}" if args.out else ""), highlight=False)
    return EXIT_OK


def _run_with_status(runner, advisor, instances, systems, settings, tokenizer, true_labels=None):
    """run_evaluation with a live status line fed by whatever progress the runner reports."""
    from advisor import progress

    with console.status("evaluating…") as status:

        def show(*parts, **named) -> None:  # tolerant: the runner decides what it reports
            text = " ".join(str(p) for p in (*parts, *named.values()))
            status.update(text[:120])

        progress.set_sink(lambda stage, message: show(stage, message))
        try:
            return runner.run_evaluation(advisor, instances, systems, settings, llm_client=advisor.llm_client,
                                         tokenizer=tokenizer, progress=show, true_labels=true_labels)
        finally:
            progress.set_sink(None)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="advisor", description="Profile-aware academic-advising assistant.")
    sub = parser.add_subparsers(dest="command", required=True)

    m = sub.add_parser("materialize", help="materialize the Dagster assets for one institution, in-process")
    m.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    m.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    m.add_argument("--select", help="Dagster asset selection, e.g. 'raw_documents' or '+documents'")
    m.set_defaults(func=materialize)

    e = sub.add_parser("eval", help="evaluate systems on a benchmark against the latest index build")
    e.add_argument("--benchmark", required=True, help="benchmark file, JSONL (interfaces.md §3)")
    e.add_argument("--systems", help="comma-separated system names (default: all)")
    e.add_argument("--settings", default="deployment,oracle", help="comma-separated: deployment, oracle")
    e.add_argument("--out", help="write the aggregates as JSON to this file")
    e.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    e.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    e.set_defaults(func=evaluate)

    s = sub.add_parser("serve", help="serve the student API and web page")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    s.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    s.set_defaults(func=serve)

    a = sub.add_parser("ask", help="ask one question from the terminal")
    a.add_argument("question")
    a.add_argument("--profile", action="append", default=[], metavar="attr=value",
                   help="a known profile fact, e.g. --profile department=CS (repeatable)")
    a.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    a.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    a.set_defaults(func=ask)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
