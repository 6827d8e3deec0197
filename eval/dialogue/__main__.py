"""`python -m eval.dialogue <warehouse> [config.yaml]`: the dialogue benchmark on a warehouse's
latest build, offline, printed as a Markdown metric table. Nothing is written: the lakehouse
(one writer at a time) is the `dialogue_benchmark` asset's; this is for measuring by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

from advisor.config import load_config
from advisor.index.layout import builds_dir
from eval.dialogue.metrics import markdown
from eval.dialogue.record import run_benchmark
from serving.dialogue.engine import open_advisor


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    config = load_config(argv[1] if len(argv) > 1 else None)
    advisor = open_advisor(builds_dir(Path(argv[0])), config)
    outcome = run_benchmark(duckdb.connect(), advisor, config, "by-hand")  # in memory: nothing kept
    print(f"{config.institution} · build {outcome.build_id} · {outcome.messages} messages\n")
    print(markdown(outcome.metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
