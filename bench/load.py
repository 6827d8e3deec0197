"""API latency under concurrent students, beside the single-client figure, in one run.

Starts `advisor serve` on the built warehouse (or uses --url), then for 1, 8 and 32 concurrent
clients sends three kinds of first turns, each on a new conversation: a greeting (template tier),
the question of an FAQ entry that applies to everyone (FAQ tier) and a benchmark question answered
from the documents (retrieval; with its profile questions, the turn that answers is timed after
the one that asks). Each kind cycles through up to 100 distinct messages: the engine remembers
recent texts' morphemes and FAQ matches, and popular questions do repeat, but one message asked
200 times would measure nothing but those caches. Each client keeps one connection open, as a
browser does, and the client is plain asyncio: the load generator shares the machine with the
server, and its CPU (printed beside the server's) must stay small next to the server's. Prints
p50 and p95 per kind and level, and p95 against the single client as a ratio (these machines are
noisy: compare within a run).

    make demo && .venv/bin/python bench/load.py --requests 200
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --levels 1,8,32,64 --workers 2
    .venv/bin/python bench/load.py --warehouse /tmp/copy --log-ratio --requests 200 --levels 32 [--blocks 4]

Targets (issue 13): p95 < 200 ms at 32 clients for template and FAQ answers, < 500 ms for
retrieval answers.

`--log-ratio` (issue 27) starts pairs of servers on the same warehouse, one with the question log
on (`usage: question_log: true`, records under <warehouse>/usage: run it on a copy) and one with
it off, a fresh pair per block, and sends each level to both in alternating rounds (off, on, on,
off: a drift of the machine falls on both), then prints p95 per kind for each and the ratio on /
off, with a 95 % interval (rounds resampled), and a row for the three kinds pooled (the chat
endpoint as a whole). `--control` gives the "on" server the log off too: the ratios of no
difference. Target: at most 1.05 at 32 clients.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]
# Each kind cycles through many messages: a cache that only remembers one text must not pass for speed
GREETINGS = ("안녕하세요!", "안녕", "반가워요", "hello", "hi", "안녕하세요 반갑습니다", "하이", "좋은 아침이에요")
DOCUMENT_QUESTION = "졸업하려면 전공 몇 학점 들어야 해요?"
DISTINCT = 100  # FAQ and document questions per kind, at most


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _config_with_log(config: str | None, question_log: bool, directory: Path, name: str) -> str:
    """A copy of the institution config (the default one when None) with the question log on or off."""
    import yaml

    from advisor.config import DEMO_CONFIG_PATH
    from advisor.settings import config_path

    source = Path(config_path(config) or DEMO_CONFIG_PATH)
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data.setdefault("usage", {})["question_log"] = question_log
    path = directory / f"{source.stem}.{name}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return str(path)


def _start_server(warehouse: Path, config: str | None, workers: int, session_store: str | None):
    port = _free_port()
    # this checkout's code (run from its root), with the interpreter running the bench
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--rate-limit", "0",
               "--warehouse", str(warehouse)]
    if config:
        command += ["--config", config]
    if workers > 1:
        command += ["--workers", str(workers), "--session-store", session_store or ""]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300  # loading the engine took over 120 s on two cores shared with builds
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not become ready in 300 s")


def _faq_questions(warehouse: Path) -> list[str]:
    """The questions of FAQ entries that apply to everyone (their answers need no profile), from
    the published build's FAQ store."""
    import polars as pl

    from advisor.faq.store import ENTRIES_FILE
    from advisor.index.layout import FAQ_DIR, builds_dir, latest_build_dir

    build = latest_build_dir(builds_dir(warehouse))
    if build is None:
        raise SystemExit(f"{warehouse} has no published index build: run `make demo` first")
    entries = build / FAQ_DIR / ENTRIES_FILE
    if not entries.is_file():
        return []
    return [row["question"] for row in pl.read_parquet(entries).iter_rows(named=True)
            if not any(value is not None for value in json.loads(row["applies_to"] or "{}").values())][:DISTINCT]


def _document_questions(base: str, warehouse: Path) -> list[str]:
    """Benchmark questions that the documents tier answers (not the FAQ's, not a fallback), found
    by asking: the retrieval row must time retrieval."""
    from advisor.index.layout import benchmark_path

    benchmark = benchmark_path(warehouse)
    candidates = [json.loads(line)["query"] for line in benchmark.read_text(encoding="utf-8").splitlines()[:200]
                  if line.strip()] if benchmark.is_file() else []

    async def answered() -> list[str]:
        found: list[str] = []
        async with _Connection(base) as connection:
            for question in candidates:
                if len(found) < DISTINCT and (await _turn(connection, question))[1] == "documents":
                    found.append(question)
        return found or [DOCUMENT_QUESTION]

    return asyncio.run(answered())


class _Connection:
    """One student's browser: a keep-alive HTTP/1.1 connection, JSON in and out. Written on
    asyncio streams rather than an HTTP client library because the load generator shares the
    machine with the server: httpx spent ~2.4x the server's own CPU per request, so the figures
    measured the client as much as the server."""

    def __init__(self, base: str) -> None:
        url = urlsplit(base)
        self.host, self.port = url.hostname, url.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> "_Connection":
        return self

    async def __aexit__(self, *_) -> None:
        await self.close()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def request(self, method: str, path: str, payload: dict | None = None) -> dict:
        body = json.dumps(payload).encode() if payload is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\n\r\n").encode()
        for attempt in (1, 2):  # the server may have closed an idle kept-alive connection
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            try:
                self.writer.write(head + body)
                status_and_headers = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
                declared = re.search(r"content-length: *(\d+)", status_and_headers)
                length = int(declared.group(1)) if declared else 0  # 204: no body, no length
                reply = await self.reader.readexactly(length)
                if "connection: close" in status_and_headers:
                    await self.close()
                return json.loads(reply) if reply else {}
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


async def _turn(connection: _Connection, message: str) -> tuple[float, str]:
    """Seconds until the answer of a new conversation (profile questions answered "don't know"),
    and the tier that answered."""
    started = time.perf_counter()
    reply = await connection.request("POST", "/v1/chat", {"message": message})
    while reply.get("type") == "ask":
        reply = await connection.request("POST", "/v1/chat", {
            "session_id": reply["session_id"], "profile": {q["attribute"]: None for q in reply["questions"]}})
    elapsed = time.perf_counter() - started
    if reply.get("session_id"):
        await connection.request("DELETE", f"/v1/sessions/{reply['session_id']}")
    return elapsed, reply.get("tier", "error")


def _level(base: str, messages: list[str], clients: int, requests: int) -> tuple[list[float], dict]:
    """`requests` conversations, `clients` at a time, each client on its own connection; the
    conversations open with the messages in turn."""
    async def run() -> list[tuple[float, str]]:
        remaining = iter(range(requests))
        outcomes: list[tuple[float, str]] = []

        async def client() -> None:
            async with _Connection(base) as connection:
                for i in remaining:
                    outcomes.append(await _turn(connection, messages[i % len(messages)]))

        await asyncio.gather(*(client() for _ in range(clients)))
        return outcomes

    outcomes = asyncio.run(run())
    tiers: dict[str, int] = {}
    for _, tier in outcomes:
        tiers[tier] = tiers.get(tier, 0) + 1
    return [seconds for seconds, _ in outcomes], tiers


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU so far of a process and its live children (uvicorn's workers), from
    Linux /proc; None elsewhere or without a process."""
    def stat(path: Path) -> list[str]:
        return path.read_text().rsplit(")", 1)[1].split()  # fields after the command name

    try:
        tree = [p for p in Path("/proc").glob("[0-9]*/stat") if p.parent.name == str(pid) or _parent(p, stat) == pid]
        return sum(int(f) for path in tree for f in stat(path)[11:13]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, TypeError):
        return None


def _parent(path: Path, stat) -> int | None:
    try:
        return int(stat(path)[1])
    except (OSError, ValueError):  # the process ended while we looked
        return None


def _p(values: list[float], q: float) -> float:
    """The q-th percentile, interpolated between the ordered values (statistics.quantiles'
    "inclusive" method; that module is not importable here: run as a script, this folder's
    statistics.py comes first)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _log_ratio(start_pair: Callable[[], tuple[dict[str, str], dict[str, list[str]], Callable[[], None]]],
               levels: list[int], requests: int, blocks: int = 1) -> list[dict]:
    """Each kind and level sent to a server with the log off and one with it on, in `blocks` blocks
    of rounds off, on, on, off (`requests` per server in all); p50 and p95 of each, and p95 on /
    off. Each block starts a fresh pair of servers (`start_pair`): with one pair serving every
    round, a server process's own luck (what its memory and caches hold) moved the ratio of one run
    by up to 30 % either way, on any kind; fresh pairs make that luck fall on both sides alike. More
    blocks: shorter rounds, so a machine whose load comes and goes weighs on both alike."""
    rounds: dict[tuple[str, int], dict[str, list[list[float]]]] = {}
    tiers: dict[tuple[str, int], dict[str, int]] = {}
    for _ in range(blocks):
        bases, kinds, stop = start_pair()
        try:
            for kind, messages in kinds.items():
                for base in bases.values():
                    _level(base, messages[:1], 2, 6)  # warm both alike
                for clients in levels:
                    share = max(requests // (2 * blocks), clients)
                    for mode in ("off", "on", "on", "off"):
                        seconds, answered = _level(bases[mode], messages, clients, share)
                        rounds.setdefault((kind, clients), {"off": [], "on": []})[mode].append(seconds)
                        counts = tiers.setdefault((kind, clients), {})
                        for tier, count in answered.items():
                            counts[tier] = counts.get(tier, 0) + count
        finally:
            stop()
    rows = [_ratio_row(kind, clients, by_mode, tiers[kind, clients]) for (kind, clients), by_mode in rounds.items()]
    for clients in levels:  # the chat endpoint as a whole: the three kinds in equal numbers
        pooled = {mode: [r for (_, level), by_mode in rounds.items() if level == clients for r in by_mode[mode]]
                  for mode in ("off", "on")}
        rows.append(_ratio_row("all three", clients, pooled, {}))
    return rows


def _ratio_row(kind: str, clients: int, rounds: dict[str, list[list[float]]], tiers: dict[str, int]) -> dict:
    times = {mode: [t for one in by_round for t in one] for mode, by_round in rounds.items()}
    p95 = {mode: _p(times[mode], 95) * 1000 for mode in times}
    low, high = _ratio_interval(rounds["off"], rounds["on"])
    return {"kind": kind, "clients": clients, "requests_each": len(times["on"]),
            "p50_off_ms": round(_p(times["off"], 50) * 1000, 1), "p50_on_ms": round(_p(times["on"], 50) * 1000, 1),
            "p95_off_ms": round(p95["off"], 1), "p95_on_ms": round(p95["on"], 1),
            "p95_on_vs_off": round(p95["on"] / p95["off"], 3), "interval_95": [low, high], "tiers": tiers}


def _ratio_interval(off: list[list[float]], on: list[list[float]], draws: int = 2000) -> tuple[float, float]:
    """A 95 % bootstrap interval of p95(on) / p95(off), resampling whole rounds (the times of one
    round share the machine's state of that moment, so they are not independent draws): how far
    one run's ratio can be from the machine's."""
    import numpy as np

    generator = np.random.default_rng(0)

    def p95_of_a_resample(by_round: list[list[float]]) -> float:
        picked = generator.integers(0, len(by_round), len(by_round))
        return float(np.percentile(np.concatenate([by_round[i] for i in picked]), 95))

    ratios = [p95_of_a_resample(on) / p95_of_a_resample(off) for _ in range(draws)]
    low, high = np.percentile(ratios, [2.5, 97.5])
    return round(float(low), 3), round(float(high), 3)


def _print_log_ratio(rows: list[dict]) -> None:
    print("| kind | clients | requests each | p50 off ms | p50 on ms | p95 off ms | p95 on ms | p95 on / off "
          "| 95 % interval | answered by |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for row in rows:
        tiers = ", ".join(f"{tier} {count}" for tier, count in sorted(row["tiers"].items()))
        low, high = row["interval_95"]
        print(f"| {row['kind']} | {row['clients']} | {row['requests_each']} | {row['p50_off_ms']} | {row['p50_on_ms']} | "
              f"{row['p95_off_ms']} | {row['p95_on_ms']} | {row['p95_on_vs_off']} | {low}-{high} | {tiers} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", help="the built warehouse (default: $ADVISOR_WAREHOUSE, else warehouse/)")
    parser.add_argument("--config", default=None)
    parser.add_argument("--url", help="a running server instead of starting one")
    parser.add_argument("--levels", default="1,8,32")
    parser.add_argument("--blocks", type=int, default=1,
                        help="--log-ratio: blocks of rounds off, on, on, off, each on a fresh pair of servers")
    parser.add_argument("--requests", type=int, default=120, help="conversations per kind and level")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--session-store", default=None, help="redis://... (needed for --workers > 1)")
    parser.add_argument("--log-ratio", action="store_true",
                        help="the question log on against off: two servers, p95 of each and their ratio")
    parser.add_argument("--control", action="store_true",
                        help="--log-ratio with the log off on both servers: the ratio the bench gives for no difference")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    from advisor.settings import warehouse_path

    # resolved here: the server starts in the checkout's root, this process may run elsewhere
    args.warehouse = warehouse_path(args.warehouse).resolve()
    if args.log_ratio:
        return _main_log_ratio(args)
    process = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        process, base = _start_server(Path(args.warehouse), args.config, args.workers, args.session_store)
    try:
        kinds = _kinds(base, Path(args.warehouse))
        levels = [int(n) for n in args.levels.split(",")]
        rows = []
        server_cpu, client_cpu = _cpu_seconds(process.pid if process else None), time.process_time()
        for kind, messages in kinds.items():
            _level(base, messages[:1], 2, 6)  # warm: first-import costs (one message: the others stay unseen)
            single_p95 = None
            for clients in levels:
                times, tiers = _level(base, messages, clients, max(args.requests, clients))
                p50, p95 = _p(times, 50) * 1000, _p(times, 95) * 1000
                single_p95 = single_p95 or p95
                rows.append({"kind": kind, "clients": clients, "requests": len(times), "messages": len(messages),
                             "p50_ms": round(p50, 1),
                             "p95_ms": round(p95, 1), "p95_vs_1_client": round(p95 / single_p95, 2), "tiers": tiers})
        server_cpu = None if server_cpu is None or process is None else _cpu_seconds(process.pid) - server_cpu
        client_cpu = time.process_time() - client_cpu
        print(f"server: {base} (workers: {args.workers}); CPU seconds during the levels: load client "
              f"{client_cpu:.1f}" + ("" if server_cpu is None else f", server {server_cpu:.1f}") + "\n")
        print("| kind | clients | requests | distinct messages | p50 ms | p95 ms | p95 / 1 client | answered by |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for row in rows:
            tiers = ", ".join(f"{tier} {count}" for tier, count in sorted(row["tiers"].items()))
            print(f"| {row['kind']} | {row['clients']} | {row['requests']} | {row['messages']} | {row['p50_ms']} | "
                  f"{row['p95_ms']} | "
                  f"{row['p95_vs_1_client']} | {tiers} |")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)


def _kinds(base: str, warehouse: Path) -> dict[str, list[str]]:
    return {"template": list(GREETINGS),
            "faq": _faq_questions(warehouse) or ["학생증 재발급은 어떻게 하나요?"],
            "retrieval": _document_questions(base, warehouse)}


def _main_log_ratio(args) -> None:
    import tempfile

    if args.url:
        raise SystemExit("--log-ratio starts its own servers: leave out --url")
    warehouse = Path(args.warehouse)
    with tempfile.TemporaryDirectory(prefix="load-log-") as directory:
        # --control: the "on" server has the log off too, so the ratio shows the bench's own noise
        configs = {mode: _config_with_log(args.config, mode == "on" and not args.control, Path(directory), mode)
                   for mode in ("off", "on")}

        def start_pair():
            processes, bases = {}, {}

            def stop() -> None:
                for process in processes.values():
                    process.terminate()
                    process.wait(30)

            try:
                for mode in ("off", "on"):
                    processes[mode], bases[mode] = _start_server(warehouse, configs[mode], args.workers,
                                                                 args.session_store)
                kinds = _kinds(bases["off"], warehouse)
                # the same history on both: the engine caches what it read of recent messages, so the
                # server that did not answer the search for document questions would start colder
                _document_questions(bases["on"], warehouse)
            except BaseException:
                stop()
                raise
            return bases, kinds, stop

        rows = _log_ratio(start_pair, [int(n) for n in args.levels.split(",")], args.requests, args.blocks)
    what = "both with the question log off (--control)" if args.control else "the question log off and on"
    print(f"{args.blocks} pair(s) of servers on {warehouse} (workers: {args.workers} each), {what}; usage records "
          f"under {warehouse / 'usage'}\n")
    _print_log_ratio(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    sys.exit(main())
