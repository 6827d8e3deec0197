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
    from advisor.summary import print_run_summary
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
    """The configured LLM (as pipelines/resources.py decides "configured"), else None: offline."""
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
    from advisor.index.pipeline import BUILDS_DIR

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


def not_yet(name: str, issue: str):
    def run(args: argparse.Namespace) -> int:
        console.print(f"[yellow]`advisor {name}` is not available in this version yet ({issue}).[/yellow]")
        return 2

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="advisor", description="Profile-aware academic-advising assistant.")
    sub = parser.add_subparsers(dest="command", required=True)

    m = sub.add_parser("materialize", help="materialize the Dagster assets for one institution, in-process")
    m.add_argument("--config", help="institution config (default: $ADVISOR_CONFIG, else the demo college)")
    m.add_argument("--warehouse", help="warehouse folder (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    m.add_argument("--select", help="Dagster asset selection, e.g. 'raw_documents' or '+documents'")
    m.set_defaults(func=materialize)

    e = sub.add_parser("eval", help="evaluate systems on a benchmark")
    e.add_argument("--benchmark", required=True)
    e.add_argument("--systems")
    e.add_argument("--settings", default="deployment,oracle")
    e.add_argument("--out")
    e.set_defaults(func=not_yet("eval", "the evaluation lakehouse lands with issue 6"))

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
