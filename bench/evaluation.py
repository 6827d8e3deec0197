"""How long the offline evaluation takes, per system x setting, on the built demo warehouse with
its synthesized benchmark (<warehouse>/benchmarks/qa.jsonl), and the MRR table it gives.

    make demo && .venv/bin/python bench/evaluation.py --instances 300            # the cached runner
    .venv/bin/python bench/evaluation.py --instances 60 --plain     # the plain per-query path (the baseline)
    .venv/bin/python bench/evaluation.py --instances 300 --profile  # + the cProfile hot spots

Speed belongs here, not in the tests (no timed assertions there).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.config import load_config  # noqa: E402
from advisor.index.layout import benchmark_path, builds_dir  # noqa: E402
from eval.benchmark.file import read_benchmark  # noqa: E402
from eval.benchmark.truth import true_labels  # noqa: E402
from eval.runner import SETTINGS, run_evaluation  # noqa: E402
from eval.systems.registry import OFFLINE  # noqa: E402
from serving.dialogue.engine import open_advisor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--warehouse", default="warehouse")
    parser.add_argument("--config", default=None)
    parser.add_argument("--plain", action="store_true", help="the uncached per-query path")
    parser.add_argument("--profile", action="store_true", help="print the cProfile hot spots")
    args = parser.parse_args()

    warehouse = Path(args.warehouse)
    config = load_config(args.config)
    advisor = open_advisor(builds_dir(warehouse), config)
    labels = true_labels(config, warehouse, advisor.build)
    every = read_benchmark(benchmark_path(warehouse), advisor.schema)
    instances = every[:: max(1, len(every) // args.instances)][: args.instances]
    profiler = cProfile.Profile()
    started = time.perf_counter()
    if args.profile:
        profiler.enable()
    outcome = run_evaluation(advisor, instances, OFFLINE, optimized=not args.plain, true_labels=labels)
    if args.profile:
        profiler.disable()
    total = time.perf_counter() - started
    print(f"build {advisor.build_id}: {len(instances)} instances, {len(OFFLINE)} systems x {len(SETTINGS)} settings, "
          f"{'plain' if args.plain else 'cached'} path: {total:.1f} s "
          f"(x {1800 / len(instances):.2f} -> {total * 1800 / len(instances):.0f} s for 1,800 if linear)\n")
    print(f"{'system':<26}{'setting':<22}{'wall s':>8}{'MRR':>7}{'S@1':>7}{'S@10':>7}{'R@10':>7}{'R@50':>7}"
          f"{'src':>7}{'kw':>7}{'q/q':>6}")
    for row in outcome.aggregates:
        if row.get("skipped"):
            continue
        wall = outcome.timings[f"{row['system']}/{row['setting']}"]
        print(f"{row['system']:<26}{row['setting']:<22}{wall:>8.2f}{row['mrr']:>7.3f}{row['success@1']:>7.3f}"
              f"{row['success@10']:>7.3f}{row['recall@10']:>7.3f}{row['recall@50']:>7.3f}{row['source_match']:>7.3f}"
              f"{row['keyword_match']:>7.3f}{row['questions_per_query']:>6.2f}")
    if args.profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
