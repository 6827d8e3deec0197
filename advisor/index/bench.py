"""Measure index build time and query latency on a lakehouse COPY (never the live file: a
pipeline run may hold its write lock).

    python -m advisor.index.bench /tmp/idx.duckdb [--embedder lsa|hashing] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np

from advisor.config import load_config
from advisor.index.build import write_build
from advisor.index.records import records_from_lakehouse
from advisor.index.store import load_build

QUESTIONS = ["졸업에 필요한 전공 학점은 몇 학점인가요?", "휴학 신청은 언제까지 해야 하나요?", "이중전공 이수 요건이 궁금합니다",
             "장학금 신청 기간", "복학 절차를 알려주세요", "계절학기 수강 신청 일정", "전공필수 과목 목록", "졸업논문 제출 마감",
             "교환학생 지원 자격", "성적 평점 기준", "편입생 학점 인정", "외국인 유학생 졸업 요건"]


def make_embedder(kind: str, records: list[dict]):
    if kind == "lsa":
        from advisor.index.embed_lsa import LSAEmbedder
        return LSAEmbedder.train([r["indexed_text"] for r in records], [r["tokens"] for r in records], dim=256)
    from advisor.index.hashing import HashingEmbedder
    return HashingEmbedder(256)


def loader(kind: str):
    if kind == "lsa":
        from advisor.index.embedders import load_embedder
        return load_embedder
    from advisor.index.hashing import HashingEmbedder
    return HashingEmbedder.load


def sample_queries(records: list[dict], n: int, rng: random.Random) -> list[str]:
    titles = sorted({r["title"] for r in records if r["title"]})
    made = [f"{rng.choice(titles)} {rng.choice(['알려주세요', '언제인가요?', '조건은?', ''])}".strip() for _ in range(n)]
    return (QUESTIONS * (n // len(QUESTIONS) + 1))[: n // 4] + made[: n - n // 4]


def sample_profile(schema, rng: random.Random) -> dict:
    return {"department": rng.choice(list(schema["department"].values)),
            "admission_year": rng.randint(2017, 2025), "grade": rng.randint(1, 4)}


def percentiles(seconds: list[float]) -> dict:
    ms = np.array(seconds) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 3), "p99_ms": round(float(np.percentile(ms, 99)), 3)}


def main() -> None:
    from advisor.chunking.chunks import tokenizer_for
    from serving.retrieval import RetrievalParams, Retriever

    parser = argparse.ArgumentParser()
    parser.add_argument("lakehouse")
    parser.add_argument("--embedder", default="lsa", choices=["lsa", "hashing"])
    parser.add_argument("--queries", type=int, default=400)
    args = parser.parse_args()
    config, rng, report = load_config(), random.Random(0), {}

    t = time.perf_counter()
    con = duckdb.connect(args.lakehouse, read_only=True)
    records = records_from_lakehouse(con, config.profile)
    con.close()
    report["records"] = {"n": len(records), "seconds": round(time.perf_counter() - t, 3)}

    t = time.perf_counter()
    embedder = make_embedder(args.embedder, records)
    vectors = embedder.embed([r["indexed_text"] for r in records], [r["tokens"] for r in records])
    report["embed"] = {"embedder": args.embedder, "seconds": round(time.perf_counter() - t, 3)}

    root = Path(tempfile.mkdtemp(prefix="bench-builds-"))
    t = time.perf_counter()
    manifest = write_build(records, vectors, embedder, config.profile, root, {"bench": True})
    report["write_build"] = {"seconds": round(time.perf_counter() - t, 3), "counts": manifest.counts}
    t = time.perf_counter()
    build = load_build(Path(manifest.directory), load_embedder=loader(args.embedder))
    report["load_build_seconds"] = round(time.perf_counter() - t, 3)

    kiwi = tokenizer_for(config)
    queries = sample_queries(records, args.queries, rng)
    profiles = [sample_profile(config.profile, rng) for _ in queries]
    retriever = Retriever(build, kiwi.content_morphemes, RetrievalParams())
    cached: dict[str, list[str]] = {}

    def pretokenized(texts):  # latency of retrieval itself, Kiwi measured separately
        missing = [x for x in texts if x not in cached]
        if missing:
            cached.update(zip(missing, kiwi.content_morphemes(missing)))
        return [cached[x] for x in texts]

    for q, p in zip(queries, profiles):  # warm the token cache for both query texts
        retriever.search(q, p, mode="bm25")
        retriever.search(q, None, mode="bm25")
    kiwi_times = []
    for q in queries[:100]:
        t = time.perf_counter()
        kiwi.content_morphemes([q])
        kiwi_times.append(time.perf_counter() - t)
    report["kiwi_query_tokenize"] = percentiles(kiwi_times)

    fast = Retriever(build, pretokenized, RetrievalParams())
    for mode in ("bm25", "dense", "hybrid"):
        times = []
        for q in queries:
            t = time.perf_counter()
            fast.search(q, None, mode=mode)
            times.append(time.perf_counter() - t)
        report.setdefault("latency", {})[mode] = percentiles(times)
    for name, kwargs in {"hybrid+filters": {}, "hybrid+filters+debug": {"debug": True}}.items():
        times = []
        for q, p in zip(queries, profiles):
            t = time.perf_counter()
            fast.search(q, p, mode="hybrid", **kwargs)
            times.append(time.perf_counter() - t)
        report["latency"][name] = percentiles(times)
    times = []
    for q, p in zip(queries, profiles):
        t = time.perf_counter()
        retriever.search(q, p, mode="hybrid")
        times.append(time.perf_counter() - t)
    report["latency"]["hybrid+filters, Kiwi included"] = percentiles(times)
    t = time.perf_counter()
    fast.search_batch(queries, profiles, mode="hybrid")
    report["latency"]["hybrid+filters, search_batch per query"] = {
        "mean_ms": round((time.perf_counter() - t) * 1000 / len(queries), 3)}
    report["dense_exact_vs_ann"] = compare_dense(build, pretokenized, queries, profiles)
    print(json.dumps(report, ensure_ascii=False, indent=2))


def compare_dense(build, tokenize, queries, profiles) -> dict:
    """Filtered dense top-10: exact (numpy over eligible rows) vs usearch HNSW over-fetch x4."""
    from serving.retrieval import RetrievalParams, Retriever

    exact, ann = Retriever(build, tokenize, RetrievalParams()), Retriever(build, tokenize, RetrievalParams(dense_exact=False))
    out = {}
    for name, retriever in (("exact", exact), ("ann_overfetch4", ann)):
        times = []
        for q, p in zip(queries, profiles):
            t = time.perf_counter()
            retriever.rank("static", q, p, mode="dense", limit=10)
            times.append(time.perf_counter() - t)
        out[name] = percentiles(times)
    recall = []
    for q, p in zip(queries, profiles):
        truth = {h.row for h in exact.rank("static", q, p, mode="dense", limit=10)}
        got = {h.row for h in ann.rank("static", q, p, mode="dense", limit=10)}
        recall.append(len(truth & got) / max(len(truth), 1))
    out["ann_recall_at_10_vs_exact"] = round(float(np.mean(recall)), 4)
    return out


if __name__ == "__main__":
    main()
