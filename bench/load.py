"""API latency under concurrent students, beside the single-client figure, in one run.

Starts `advisor serve` on the built warehouse (or uses --url), then for 1, 8 and 32 concurrent
clients sends three kinds of first turns, each on a new conversation: a greeting (template tier),
an FAQ entry's own question (FAQ tier) and a question answered from the documents (retrieval;
with its profile questions, the turn that answers is timed after the one that asks). Prints p50
and p95 per kind and level, and p95 against the single client as a ratio (these machines are
noisy: compare within a run).

    make demo && .venv/bin/python bench/load.py --requests 200
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --levels 1,8,32,64 --workers 2

Targets (issue 13): p95 < 200 ms at 32 clients for template and FAQ answers, < 500 ms for
retrieval answers.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
GREETING = "안녕하세요!"
DOCUMENT_QUESTION = "졸업하려면 전공 몇 학점 들어야 해요?"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_server(warehouse: Path, config: str | None, workers: int, session_store: str | None):
    port = _free_port()
    command = [str(ROOT / ".venv" / "bin" / "advisor"), "serve", "--port", str(port), "--rate-limit", "0",
               "--warehouse", str(warehouse)]
    if config:
        command += ["--config", config]
    if workers > 1:
        command += ["--workers", str(workers), "--session-store", session_store or ""]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not become ready in 120 s")


def _faq_question(warehouse: Path) -> str | None:
    """The question of an FAQ entry that applies to everyone (its answer needs no profile), from
    the published build's FAQ store."""
    import polars as pl

    builds = warehouse / "builds"
    entries = builds / (builds / "LATEST").read_text().strip() / "faq" / "entries.parquet"
    if not entries.is_file():
        return None
    for row in pl.read_parquet(entries).iter_rows(named=True):
        if not any(value is not None for value in json.loads(row["applies_to"] or "{}").values()):
            return row["question"]
    return None


def _document_question(base: str, warehouse: Path) -> str:
    """A benchmark question that the documents tier answers (not the FAQ's, not a fallback), found
    by asking: the retrieval row must time retrieval."""
    benchmark = warehouse / "benchmarks" / "qa.jsonl"
    candidates = [json.loads(line)["query"] for line in benchmark.read_text(encoding="utf-8").splitlines()[:200]
                  if line.strip()] if benchmark.is_file() else []
    with httpx.Client(base_url=base, timeout=60) as client:
        for question in candidates:
            if _turn(client, question)[1] == "documents":
                return question
    return DOCUMENT_QUESTION


def _turn(client: httpx.Client, message: str) -> tuple[float, str]:
    """Seconds until the answer of a new conversation (profile questions answered "don't know"),
    and the tier that answered."""
    started = time.perf_counter()
    reply = client.post("/v1/chat", json={"message": message}).json()
    while reply.get("type") == "ask":
        reply = client.post("/v1/chat", json={"session_id": reply["session_id"],
                                              "profile": {q["attribute"]: None for q in reply["questions"]}}).json()
    elapsed = time.perf_counter() - started
    if reply.get("session_id"):
        client.delete(f"/v1/sessions/{reply['session_id']}")
    return elapsed, reply.get("tier", "error")


def _level(base: str, message: str, clients: int, requests: int) -> tuple[list[float], dict]:
    def one(_: int) -> tuple[float, str]:
        with httpx.Client(base_url=base, timeout=60) as client:
            return _turn(client, message)

    with ThreadPoolExecutor(clients) as pool:
        outcomes = list(pool.map(one, range(requests)))
    tiers: dict[str, int] = {}
    for _, tier in outcomes:
        tiers[tier] = tiers.get(tier, 0) + 1
    return [seconds for seconds, _ in outcomes], tiers


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", default=os.environ.get("ADVISOR_WAREHOUSE", str(ROOT / "warehouse")))
    parser.add_argument("--config", default=None)
    parser.add_argument("--url", help="a running server instead of starting one")
    parser.add_argument("--levels", default="1,8,32")
    parser.add_argument("--requests", type=int, default=120, help="conversations per kind and level")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--session-store", default=None, help="redis://... (needed for --workers > 1)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    process = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        process, base = _start_server(Path(args.warehouse), args.config, args.workers, args.session_store)
    try:
        kinds = {"template": GREETING, "faq": _faq_question(Path(args.warehouse)) or "학생증 재발급은 어떻게 하나요?",
                 "retrieval": _document_question(base, Path(args.warehouse))}
        levels = [int(n) for n in args.levels.split(",")]
        rows = []
        for kind, message in kinds.items():
            _level(base, message, 2, 6)  # warm: caches, first-import costs
            single_p95 = None
            for clients in levels:
                times, tiers = _level(base, message, clients, max(args.requests, clients))
                p50, p95 = _p(times, 50) * 1000, _p(times, 95) * 1000
                single_p95 = single_p95 or p95
                rows.append({"kind": kind, "clients": clients, "requests": len(times), "p50_ms": round(p50, 1),
                             "p95_ms": round(p95, 1), "p95_vs_1_client": round(p95 / single_p95, 2), "tiers": tiers})
        print(f"server: {base} (workers: {args.workers})\n")
        print("| kind | clients | requests | p50 ms | p95 ms | p95 / 1 client | answered by |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for row in rows:
            tiers = ", ".join(f"{tier} {count}" for tier, count in sorted(row["tiers"].items()))
            print(f"| {row['kind']} | {row['clients']} | {row['requests']} | {row['p50_ms']} | {row['p95_ms']} | "
                  f"{row['p95_vs_1_client']} | {tiers} |")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    sys.exit(main())
