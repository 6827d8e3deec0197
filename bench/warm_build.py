"""An example's first build with its shipped e5 vectors beside the same build without them, in one
run (a script, not a test).

    .venv/bin/python bench/warm_build.py [--example demo_college] [--rounds 1]

Each round builds the example twice into fresh warehouses, each in a fresh process (`advisor
materialize` of everything but the evaluation, as the tests' builds are): once cold, reading no
shipped file (advisor/index/warm_vectors.py `record_cold`), once as `make demo` does. The two
alternate, cold first in odd rounds, so both see the same machine. Printed: the seconds of each
and warm / cold, and the index build's `texts_encoded` of each.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from advisor.config import example_config
from cli.warm_vectors import BUILD  # the writer's selection: what a build encodes
from eval.dialogue.realfaq import free_port
from eval.sets.build import config_on_port

# a child that reads no shipped file: the cold side
COLD = ("import sys; from advisor.index import warm_vectors; from advisor.index.embed_e5 import E5Embedder; "
        "warm_vectors.record_cold(E5Embedder().version); from cli.main import main; sys.exit(main(sys.argv[1:]))")
WARM = "import sys; from cli.main import main; sys.exit(main(sys.argv[1:]))"


def build(example: str, cold: bool) -> tuple[float, int]:
    """(seconds, texts encoded by the index build) of one build in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="warm-bench-") as folder:
        config = config_on_port(example_config(example), Path(folder), free_port())
        warehouse = Path(folder) / "warehouse"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", COLD if cold else WARM, "materialize", "--config", str(config),
                        "--warehouse", str(warehouse), "--select", BUILD],
                       check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        with duckdb.connect(str(warehouse / "lakehouse.duckdb"), read_only=True) as con:
            row = con.execute("SELECT metadata FROM materializations WHERE asset = 'index_build'").fetchone()
    assert row is not None, "the materialize recorded no index_build"
    return seconds, json.loads(row[0])["texts_encoded"]


def main() -> None:
    parser = argparse.ArgumentParser(description="An example's first build, warm beside cold.")
    parser.add_argument("--example", default="demo_college")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for round_ in range(1, args.rounds + 1):
        order = (True, False) if round_ % 2 else (False, True)
        results = {cold: build(args.example, cold) for cold in order}
        (cold_s, cold_n), (warm_s, warm_n) = results[True], results[False]
        print(f"round {round_} ({args.example}, {'cold first' if order[0] else 'warm first'}): "
              f"cold {cold_s:.1f} s ({cold_n} texts encoded), warm {warm_s:.1f} s ({warm_n} texts encoded), "
              f"warm / cold {warm_s / cold_s:.3f}", flush=True)


if __name__ == "__main__":
    main()
