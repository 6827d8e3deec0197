"""Retrieval latency, side by side with a naive baseline in the same run (a script, not a test).

    .venv/bin/pip install rank-bm25        # the baseline's BM25 (the `bench` extra)
    make demo                              # a demo build to measure
    .venv/bin/python bench/retrieval.py [--queries 300] [--synthetic 100000]

Ours: advisor.retrieval (tantivy BM25 with the profile filter inside the query, dense search
chosen by size: exact over the eligible rows up to `dense_exact_max_rows` chunks per collection,
usearch HNSW above; RRF). Naive: the same method done the obvious way: rank-bm25 over the same
tokens plus numpy brute-force cosine over every chunk of each collection, filtering by a mask, RRF
in a dict, then the same recency weighting, 7 + 3 split and a record per returned chunk. Both get
the same pre-tokenized queries (Kiwi's per-query cost is printed apart) and both embed the query
with the build's embedder inside the timing.
Printed: p50 / p99 per query in ms, naive / ours (how many times faster ours is) and how often
both return the same chunks in the same order (dense must always; BM25 scores differ by design);
then, per scale, dense search exact against HNSW (timings, and HNSW's recall@10 of the exact top
10) and which one the default (`dense_exact: null`, by size) picks for each collection.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from advisor import clock  # noqa: E402
from advisor.chunking.token_cache import tokenizer_for  # noqa: E402
from advisor.config import load_config  # noqa: E402
from advisor.index.layout import builds_dir  # noqa: E402
from advisor.index.store import latest_build_dir, load_build  # noqa: E402
from advisor.index.writer import write_build  # noqa: E402
from advisor.retrieval import RetrievalParams, Retriever, fusion  # noqa: E402
from advisor.retrieval.profile import conflicts, known_profile  # noqa: E402
from eval.systems.registry import RETRIEVAL_SYSTEMS, Filtered  # noqa: E402  (bm25, dense, hybrid, hybrid+filter)
from tests.hashing_embedder import HashingEmbedder  # noqa: E402


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ms = np.array(seconds) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 99))


class NaiveBaseline:
    """The same method done naively: rank-bm25 + numpy, scoring every chunk of each collection for
    every query, filtering with a mask, fusing with RRF; then the method's own aggregation (recency
    weights computed per candidate, the 7 + 3 split) and a record per chunk returned, as ours
    returns. It answers the same question as ours, so the timings compare like with like, and
    the dense rankings, computed from the same vectors, must come out the same (printed)."""

    def __init__(self, build, tokens: list[list[str]], annotations: list[dict], params: RetrievalParams):
        from rank_bm25 import BM25Okapi  # pyright: ignore[reportMissingImports]  # the optional `bench` extra

        self.params, self.schema = params, build.schema
        self.parts = []  # per collection: (name, BM25, vectors, annotations, chunk columns)
        start = 0
        for name in ("static", "dynamic"):
            if name not in build.collections:
                continue
            collection = build.collections[name]
            end = start + len(collection)
            # plain Python columns, read once (as ours does): polars row access per hit is slow
            self.parts.append((name, BM25Okapi(tokens[start:end]), collection.vectors, annotations[start:end],
                               collection.chunks.to_dict(as_series=False)))
            start = end

    def search(self, tokens: list[str], query: str, vector: np.ndarray, mode: str, profile: dict | None,
               today, k: int = 10) -> list[dict]:
        p = self.params
        limit = max(k, p.candidates)
        ranked = {}
        for name, bm25, vectors, applies, chunks in self.parts:
            eligible = self.mask(applies, profile) if profile else None
            rankings = []
            if mode in ("bm25", "hybrid"):
                rankings.append(self._rank(bm25.get_scores(tokens), eligible, limit))
            if mode in ("dense", "hybrid"):
                rankings.append(self._rank(vectors @ vector, eligible, limit))
            hits = rankings[0] if len(rankings) == 1 else self._rrf(rankings, p.rrf_k)[:limit]
            if name == "dynamic" and hits:
                weights = [fusion.recency_weight(chunks["published_on"][row], today, p.half_life_days) for row, _ in hits]
                scores = fusion.weighted(np.array([score for _, score in hits]), np.array(weights)).tolist()
                hits = sorted(((row, score) for (row, _), score in zip(hits, scores)), key=lambda h: (-h[1], h[0]))
            ranked[name] = hits
        take = fusion.quotas(k, p.static_k, p.dynamic_k, fusion.is_time_sensitive(query, p.time_words),
                             {name: len(hits) for name, hits in ranked.items()})
        chosen = [(name, row, score) for name in sorted(take, key=lambda n: -take[n]) for row, score in ranked[name][:take[name]]]
        columns = {part[0]: part[-1] for part in self.parts}
        return [{**{field: values[row] for field, values in columns[name].items()}, "score": score, "collection": name}
                for name, row, score in sorted(chosen, key=lambda c: -c[2])]

    def mask(self, annotations: list[dict], profile: dict) -> np.ndarray:
        known = known_profile(profile, self.schema)
        return np.array([not conflicts(a, known, self.schema) for a in annotations])

    @staticmethod
    def _rank(scores: np.ndarray, eligible: np.ndarray | None, limit: int) -> list[tuple[int, float]]:
        if eligible is not None:
            scores = np.where(eligible, scores, -np.inf)
        order = np.argsort(-scores, kind="stable")
        return [(int(i), float(scores[i])) for i in order[:limit] if scores[i] > -np.inf]

    @staticmethod
    def _rrf(rankings, rrf_k: int) -> list[tuple[int, float]]:
        fused: dict[int, float] = {}
        for ranking in rankings:
            for rank, (row, _) in enumerate(ranking, start=1):
                fused[row] = fused.get(row, 0.0) + 1.0 / (rrf_k + rank)
        return sorted(fused.items(), key=lambda f: (-f[1], f[0]))


def _pretokenized(queries, tokenize):
    """The queries' tokens, computed once, and a tokenizer for the Retriever that reads them (so
    Kiwi's cost stays out of the timings)."""
    query_tokens = dict(zip(queries, tokenize(queries)))
    return query_tokens, lambda texts: [query_tokens.get(t) or tokenize([t])[0] for t in texts]


def measure(build, records_tokens, annotations, queries, profiles, tokenize) -> list[tuple]:
    """(system, ours p50, ours p99, naive p50, naive p99, share of queries where both return the same
    chunks in the same order) for each of the evaluation's retrieval systems (its registry's)."""
    query_tokens, pretokenized = _pretokenized(queries, tokenize)
    params = RetrievalParams()
    retriever = Retriever(build, pretokenized, params)
    naive = NaiveBaseline(build, records_tokens, annotations, params)
    today = clock.today()
    rows = []
    for system in RETRIEVAL_SYSTEMS:
        mode = system.mode  # the retriever's: bm25, dense or hybrid
        profile_for = (lambda p: p) if isinstance(system, Filtered) else (lambda p: None)  # the hard filter
        ours, theirs, same = [], [], 0
        for query, profile in zip(queries, profiles):
            started = time.perf_counter()
            found = retriever.search(query, profile_for(profile), mode=mode, soft=False, today=today)
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()  # the query is embedded inside the timing, as ours does
            vector = build.embedder.embed_queries([query], [query_tokens[query]])[0] if mode != "bm25" else None
            records = naive.search(query_tokens[query], query, vector, mode, profile_for(profile), today)
            theirs.append(time.perf_counter() - started)
            same += found.chunk_ids == [r["chunk_id"] for r in records]
        rows.append((system.name, *percentiles(ours), *percentiles(theirs), same / len(queries)))
    return rows


def exact_vs_approximate(build, queries, profiles, tokenize) -> list[tuple]:
    """(filter, exact p50, exact p99, HNSW p50, HNSW p99, HNSW recall@10 against exact, what `None`
    chooses) for dense search, unfiltered and under each query's profile filter."""
    _, pretokenized = _pretokenized(queries, tokenize)

    def searcher(exact):
        return Retriever(build, pretokenized, RetrievalParams(dense_exact=exact))

    exact, approximate, auto = searcher(True), searcher(False), searcher(None)
    chosen = ", ".join(f"{n}: {'exact' if auto._exact(n) else 'HNSW'}" for n in build.collections)
    rows = []
    for label, profile_for in (("none", lambda p: None), ("profile", lambda p: p)):
        timings: dict[bool, list[float]] = {True: [], False: []}
        found: dict[bool, list[list[str]]] = {True: [], False: []}
        for query, profile in zip(queries, profiles):
            for is_exact, retriever in ((True, exact), (False, approximate)):
                started = time.perf_counter()
                result = retriever.search(query, profile_for(profile), mode="dense", soft=False, k=10)
                timings[is_exact].append(time.perf_counter() - started)
                found[is_exact].append(result.chunk_ids)
        recall = np.mean([len(set(a) & set(e)) / len(e) for a, e in zip(found[False], found[True]) if e])
        rows.append((label, *percentiles(timings[True]), *percentiles(timings[False]), float(recall), chosen))
    return rows


def print_exact_rows(title: str, rows) -> None:
    print(f"\n{title}")
    print(f"{'filter':<9}{'exact p50':>10}{'exact p99':>10}{'HNSW p50':>10}{'HNSW p99':>10}{'exact/HNSW':>12}"
          f"{'HNSW recall@10':>16}   by size (dense_exact: null)")
    for label, e50, e99, a50, a99, recall, chosen in rows:
        print(f"{label:<9}{e50:>10.2f}{e99:>10.2f}{a50:>10.2f}{a99:>10.2f}{e50 / a50:>11.1f}x{recall:>16.3f}   {chosen}")


def random_profile(schema, rng: random.Random) -> dict:
    profile = {}
    for name, attribute in schema.items():
        values = getattr(attribute, "values", None)
        profile[name] = rng.choice(sorted(values)) if values else rng.randint(attribute.min, attribute.max)
    return profile


def demo_scale(args, config, tokenizer, rng):
    directory = latest_build_dir(builds_dir(ROOT / "warehouse"))
    if directory is None:
        sys.exit("no index build under warehouse/builds: run `make demo` first")
    build = load_build(directory)
    collections = [build.collections[name] for name in ("static", "dynamic") if name in build.collections]
    texts = [t for c in collections for t in c.chunks["indexed_text"]]
    faq = [t.split("\n", 1)[1].split("\n", 1)[0] for t, kind in
           ((t, k) for c in collections for t, k in zip(c.chunks["indexed_text"], c.chunks["kind"])) if kind == "faq"]
    queries = [rng.choice(faq) for _ in range(args.queries)]
    tokens = tokenizer.content_morphemes(texts)
    annotations = [a for c in collections for a in c.applies_to]
    return build, tokens, annotations, queries


def synthetic_scale(n: int, config, tokenizer, rng: random.Random, workdir: Path):
    """n chunks drawn from the demo's vocabulary with random annotations, hashing-embedded."""
    vocabulary = sorted({w for text in ("졸업 전공 학점 이수 과목 신청 장학금 휴학 복학 현장실습 교양 필수 선택 "
                                        "이중전공 융합전공 학기 학년 기간 서류 제출 성적 평점 수강 등록 상담 안내").split() for w in [text]})
    vocabulary += [f"용어{i}" for i in range(5000)]
    weights = 1 / np.arange(1, len(vocabulary) + 1)  # Zipf-like, as words are
    weights /= weights.sum()
    nrng = np.random.default_rng(0)
    records = []
    for i in range(n):
        words = list(nrng.choice(vocabulary, size=int(nrng.integers(30, 90)), p=weights))
        applies = {}
        for name, attribute in config.profile.items():
            values = getattr(attribute, "values", None)
            if rng.random() < 0.6:
                applies[name] = None
            elif values:
                applies[name] = sorted(rng.sample(sorted(values), rng.randint(1, max(1, len(values) - 1))))
            else:
                low = rng.randint(attribute.min, attribute.max)
                applies[name] = [low, min(attribute.max, low + rng.randint(0, 3))]
        text = " ".join(words)
        records.append({"chunk_id": f"s{i:07d}", "collection": "dynamic" if i % 7 == 0 else "static",
                        "doc_url": f"http://synthetic/{i // 3}", "title": f"문서 {i // 3}", "text": text,
                        "indexed_text": text, "tokens": words, "published_on": None, "kind": "page",
                        "heading_path": [], "page": None, "applies_to": applies})
    embedder = HashingEmbedder(256)
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    started = time.perf_counter()
    manifest = write_build(records, vectors, embedder, config.profile, workdir, {"synthetic": n})
    build_seconds = time.perf_counter() - started
    build = load_build(Path(manifest.directory), load_embedder=HashingEmbedder.load)
    ordered = [r for name in ("static", "dynamic") for r in records if r["collection"] == name]
    queries = [" ".join(rng.sample(vocabulary[:200], 4)) for _ in range(100)]
    return build, [r["tokens"] for r in ordered], [r["applies_to"] for r in ordered], queries, build_seconds


def print_rows(title: str, rows) -> None:
    print(f"\n{title}")
    print(f"{'mode':<15}{'ours p50':>10}{'ours p99':>10}{'naive p50':>11}{'naive p99':>11}{'naive/ours (p50)':>18}"
          f"{'same top 10':>13}")
    for mode, o50, o99, n50, n99, same in rows:
        print(f"{mode:<15}{o50:>10.2f}{o99:>10.2f}{n50:>11.2f}{n99:>11.2f}{n50 / o50:>17.1f}x{same:>13.0%}")
    print("same top 10: BM25 differs by design (rank-bm25's idf is not tantivy's); dense must be 100%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--synthetic", type=int, default=100_000, help="chunks in the synthetic build (0: skip)")
    args = parser.parse_args()
    config, rng = load_config(), random.Random(0)
    tokenizer = tokenizer_for(config)

    build, tokens, annotations, queries = demo_scale(args, config, tokenizer, rng)
    profiles = [random_profile(config.profile, rng) for _ in queries]
    started = time.perf_counter()
    tokenizer.content_morphemes(queries[:100])
    print(f"Kiwi query tokenization (both sides, not in the figures): {(time.perf_counter() - started) * 10:.2f} ms/query")
    print_rows(f"demo build {build.directory.name}: {len(tokens)} chunks, {len(queries)} queries, ms per query",
               measure(build, tokens, annotations, queries, profiles, tokenizer.content_morphemes))
    print_exact_rows("demo build, dense search: exact against HNSW, ms per query",
                     exact_vs_approximate(build, queries, profiles, tokenizer.content_morphemes))

    if args.synthetic:
        with tempfile.TemporaryDirectory() as workdir:
            build, tokens, annotations, queries, seconds = synthetic_scale(args.synthetic, config, tokenizer, rng, Path(workdir))
            profiles = [random_profile(config.profile, rng) for _ in queries]
            print(f"\nsynthetic build of {len(tokens)} chunks written in {seconds:.1f} s")
            print_rows(f"synthetic build: {len(tokens)} chunks, {len(queries)} queries, ms per query",
                       measure(build, tokens, annotations, queries, profiles, tokenizer.content_morphemes))
            print_exact_rows("synthetic build, dense search: exact against HNSW, ms per query",
                             exact_vs_approximate(build, queries, profiles, tokenizer.content_morphemes))


if __name__ == "__main__":
    main()
