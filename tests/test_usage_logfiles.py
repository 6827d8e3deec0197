"""The usage record files (advisor/usage/logfiles.py): several writers, torn lines, retention."""

from __future__ import annotations

import multiprocessing
from datetime import date, datetime, timezone

import pytest

from advisor.config import InstitutionConfig, load_config
from advisor.usage.logfiles import ReadReport, UsageLog, hour_of, prune, read_records

NOON = datetime(2026, 12, 7, 12, 34, 56, tzinfo=timezone.utc)


def _write_many(root: str, count: int) -> None:
    log = UsageLog(root)
    for i in range(count):
        log.append("questions", {"question": f"질문 {i} " + "가" * 500, "n": i}, NOON)


def test_processes_appending_at_once_lose_no_record_and_tear_no_line(tmp_path):
    workers = [multiprocessing.get_context("spawn").Process(target=_write_many, args=(str(tmp_path), 200))
               for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    report = ReadReport()
    records = list(read_records(tmp_path, "questions", report))
    assert len(records) == 600 and report.skipped_lines == 0 and report.files == 3
    assert {r["day"] for r in records} == {"2026-12-07"}


def test_a_half_written_line_is_skipped_and_counted(tmp_path):
    UsageLog(tmp_path).append("feedback", {"helpful": True}, NOON)
    path = next(tmp_path.glob("feedback/*/*.jsonl"))
    with path.open("ab") as handle:
        handle.write(b'{"helpful": fa')  # a worker killed mid-write
    report = ReadReport()
    assert [r["helpful"] for r in read_records(tmp_path, "feedback", report)] == [True]
    assert report.skipped_lines == 1


def test_retention_deletes_whole_days_older_than_the_window(tmp_path):
    log = UsageLog(tmp_path)
    for day in (1, 5, 7):
        log.append("questions", {"d": day}, datetime(2026, 12, day, 9, tzinfo=timezone.utc))
    removed = prune(tmp_path, retention_days=3, today=date(2026, 12, 7))
    assert [p.name for p in removed] == ["2026-12-01"]  # the 5th is the window's first day
    assert sorted(r["d"] for r in read_records(tmp_path, "questions")) == [5, 7]


def test_records_carry_the_hour_only_and_unknown_kinds_are_refused(tmp_path):
    assert hour_of(NOON) == "2026-12-07T12:00Z"
    with pytest.raises(ValueError, match="unknown usage record kind"):
        UsageLog(tmp_path).append("profiles", {}, NOON)


def test_usage_settings_are_not_part_of_the_fingerprint():
    config = load_config()
    quiet = InstitutionConfig.model_validate({**config.model_dump(), "usage": {"question_log": False}})
    assert quiet.usage.question_log is False and quiet.fingerprint() == config.fingerprint()
    with pytest.raises(Exception, match="retention_days"):
        InstitutionConfig.model_validate({**config.model_dump(), "usage": {"retention_days": 0}})
