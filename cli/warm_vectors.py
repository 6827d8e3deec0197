"""Write an example institution's shipped e5 vectors (advisor/index/warm_vectors.py).

    python -m cli.warm_vectors demo_college        (one example per process: what it computed)

Builds the example from cold in this process (`advisor materialize` of everything but the
evaluation, with no shipped file read), runs the evaluation's router check on the held-out intent
examples, then writes every vector this process computed to examples/<name>/e5_vectors.npz. The
evaluation's own queries are left out: thousands of profile-augmented questions (the demo's were
8,500 of 14,100 vectors, 20 MB in all) whose cost falls on a full `advisor eval` only, not on a
build. Run it after changing an example's site or what the pipeline encodes;
tests/test_warm_vectors.py says when a file has fallen behind (a vector missing from it only costs
its encoding).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import duckdb

from advisor.config import example_config
from advisor.index import warm_vectors
from advisor.index.embed_e5 import E5Embedder
from advisor.index.layout import builds_dir, latest_build_dir
from advisor.intents.dataset import load_intent_examples
from cli.main import main as advisor_cli
from eval.dialogue.realfaq import free_port
from eval.entry import intent_evaluation
from eval.sets.build import config_on_port

BUILD = "not key:evaluation and not key:evaluation_report"  # what a build encodes, not the evaluation


def write_example(name: str) -> int:
    """Build `name` cold and write its vectors; returns how many."""
    version = E5Embedder().version
    warm_vectors.record_cold(version)  # what the build needs, not what an older file held
    with tempfile.TemporaryDirectory(prefix=f"warm-{name}-") as folder:
        warehouse = Path(folder) / "warehouse"
        config = config_on_port(example_config(name), Path(folder), free_port())
        code = advisor_cli(["materialize", "--config", str(config), "--warehouse", str(warehouse), "--select", BUILD])
        if code != 0:
            raise SystemExit(f"advisor materialize failed for {name} (exit {code}): no file written")
        build = latest_build_dir(builds_dir(warehouse))
        assert build is not None  # the materialize succeeded
        with duckdb.connect(str(warehouse / "lakehouse.duckdb")) as con:  # `advisor eval`'s router check
            held_out = [e for e in load_intent_examples(con) if e.split == "test"]
            intent_evaluation(build, held_out, con)
    return warm_vectors.write(example_config(name).parent / warm_vectors.FILE_NAME, version, warm_vectors.recorded())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m cli.warm_vectors <example>   (one per process)")
    count = write_example(sys.argv[1])
    print(f"{sys.argv[1]}: {count} vectors -> {example_config(sys.argv[1]).parent / warm_vectors.FILE_NAME}",
          file=sys.stderr)
