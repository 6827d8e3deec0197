"""Append-only record files, one per kind, day and writing process: `<root>/<kind>/<YYYY-MM-DD>/<worker>.jsonl`.

Several server workers append at once without a lock: each process writes only its own file, a
record is one JSON line written with one `write` on a file opened in append mode, and readers skip
a line a killed process left half-written (the next worker starting on that day opens a new file).
Days are UTC dates; a record carries no finer time than its hour (see `hour_of`).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from secrets import token_hex

KINDS = ("questions", "feedback", "votes")


def hour_of(moment: datetime) -> str:
    """The UTC hour of `moment` ("2026-12-07T11:00Z"): enough to chart a day, too coarse to pick
    one student's visit out of an access log."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:00Z")


@dataclass
class UsageLog:
    """The writing side, one per server process."""

    root: Path
    # this process's files: the pid tells workers apart, the random part a restarted process
    # that got an old pid back
    worker: str = field(default_factory=lambda: f"{os.getpid()}-{token_hex(3)}")

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self._lock = threading.Lock()  # the threads of one worker share its file

    def append(self, kind: str, record: dict, now: datetime | None = None) -> None:
        self.append_many(kind, [(record, now or datetime.now(timezone.utc))])

    def append_many(self, kind: str, records: Iterable[tuple[dict, datetime]]) -> None:
        """Appends (record, when) pairs: one `write` per day file, so a batch costs one open."""
        if kind not in KINDS:
            raise ValueError(f"unknown usage record kind {kind!r} (one of {', '.join(KINDS)})")
        by_day: dict[str, list[bytes]] = {}
        for record, now in records:
            day = now.astimezone(timezone.utc).date().isoformat()
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
            by_day.setdefault(day, []).append(line.encode("utf-8"))
        with self._lock:
            for day, lines in by_day.items():
                path = self.root / kind / day / f"{self.worker}.jsonl"
                path.parent.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
                try:
                    os.write(descriptor, b"".join(lines))
                finally:
                    os.close(descriptor)

    def prune(self, retention_days: int, today: date | None = None) -> list[Path]:
        """Delete the day folders older than `retention_days` (every kind); returns what went."""
        return prune(self.root, retention_days, today)


def prune(root: Path, retention_days: int, today: date | None = None) -> list[Path]:
    today = today or datetime.now(timezone.utc).date()
    oldest_kept = today - timedelta(days=retention_days - 1)
    removed = []
    for kind in KINDS:
        for folder in sorted((Path(root) / kind).glob("????-??-??")):
            try:
                day = date.fromisoformat(folder.name)
            except ValueError:
                continue
            if day < oldest_kept:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed


@dataclass
class ReadReport:
    files: int = 0
    records: int = 0
    skipped_lines: int = 0  # half-written (a killed process) or not a JSON object


def read_records(root: Path, kind: str, report: ReadReport | None = None) -> Iterator[dict]:
    """Every record of `kind`, day by day, each with its `day`; bad lines are counted in `report`."""
    if kind not in KINDS:
        raise ValueError(f"unknown usage record kind {kind!r} (one of {', '.join(KINDS)})")
    report = report if report is not None else ReadReport()
    for path in sorted((Path(root) / kind).glob("????-??-??/*.jsonl")):
        report.files += 1
        with path.open("rb") as handle:
            for raw in handle:
                try:
                    record = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    report.skipped_lines += 1
                    continue
                if not isinstance(record, dict):
                    report.skipped_lines += 1
                    continue
                report.records += 1
                yield {**record, "day": path.parent.name}
