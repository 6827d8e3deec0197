"""What the statistics (eval/metrics/stats.py: every interval and paired test) cost beside the evaluation they
describe: the latest run's per-query rows, read from a built warehouse, with the statistics timed
in this process and the evaluation asset's own wall time for that run (its materialization) as the
baseline.

    make demo && .venv/bin/python bench/statistics.py [--warehouse warehouse] [--repeat 3]

Speed belongs here, not in the tests (no timed assertions there).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.lakehouse import LAKEHOUSE_FILE  # noqa: E402
from eval import store  # noqa: E402
from eval.metrics import stats  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", default="warehouse")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with duckdb.connect(str(Path(args.warehouse) / LAKEHOUSE_FILE), read_only=True) as con:
        run = store.latest_run(con)
        if run is None:
            sys.exit(f"no evaluation run in {args.warehouse}: run make demo first")
        rows = store.per_query_frame(con, run["run_id"]).to_dicts()
        texts = dict(con.execute("SELECT instance_id, query FROM benchmark_instances WHERE benchmark_hash = ?",
                                 [run["benchmark_hash"]]).fetchall())
        evaluation = con.execute(
            "SELECT epoch(finished_at - started_at) FROM materializations WHERE asset = 'evaluation' "
            "AND json_extract_string(metadata, '$.eval_run_id') = ? ORDER BY finished_at LIMIT 1",
            [run["run_id"]]).fetchall()
    seconds = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        intervals, tests = stats.run_statistics(rows, texts)
        seconds.append(time.perf_counter() - started)
    best = min(seconds)
    print(f"run {run['run_id']}: {len(rows)} per-query rows, {len(set(texts.values()))} question texts")
    print(f"statistics: {len(intervals)} intervals, {len(tests)} tests in {best:.2f} s (best of {args.repeat})")
    if evaluation and evaluation[0][0]:
        print(f"the evaluation asset's run: {evaluation[0][0]:.1f} s; statistics / evaluation = "
              f"{best / evaluation[0][0]:.3%}")
    else:
        print("the evaluation asset's time for this run is not recorded (an `advisor eval` run)")


if __name__ == "__main__":
    main()
