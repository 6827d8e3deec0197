"""The usage records the API writes (issue 27): the scrubbing of a question, the "questions" record
of each answer, POST /v1/feedback, the log off, a failing writer, and `advisor serve` turning the
log on from the institution config. The privacy canary is tests/test_privacy_canary.py."""

from __future__ import annotations

import logging
import threading
from datetime import date, datetime, timezone

import httpx
import pytest

from advisor.usage.logfiles import read_records
from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api import usage as usage_module
from serving.api.scrub import scrub
from serving.api.usage import FeedbackRequest, UsageRecorder
from tests.fake_advisor import FakeAdvisor, running_server

NEEDS_PROFILE = "졸업하려면 몇 학점 들어야 해요? 제 번호는 010-4821-7395예요"
PROFILE = {"campus": "south", "year_level": 3}


# ------------------------------------------------------------------------------- scrubbing

@pytest.mark.parametrize("text, expected", [
    ("제 번호는 010-4821-7395 이에요", "제 번호는 [전화번호] 이에요"),
    ("연락처 01048217395로 주세요", "연락처 [전화번호]로 주세요"),
    ("학과사무실 02-2123-4567 맞나요?", "학과사무실 [전화번호] 맞나요?"),
    ("call me at +1 415-555-2671 please", "call me at [전화번호] please"),
    ("my number is (415) 555-2671", "my number is [전화번호]"),  # an English question: also read as a US number
    ("메일은 hong.gildong+adv@hanbit.ac.kr 입니다", "메일은 [이메일] 입니다"),
    ("write to Jane.Doe@mail.example.com", "write to [이메일]"),
    ("주민번호 900101-1234567 필요해요?", "주민번호 [주민등록번호] 필요해요?"),
    ("주민번호 9001011234567", "주민번호 [주민등록번호]"),
    ("학번 2021123456 인데 졸업학점 알려주세요", "학번 [학번] 인데 졸업학점 알려주세요"),
    ("20211234 학생인데요", "[학번] 학생인데요"),
    ("제 학번은 19-12345요", "제 학번은 [학번]요"),
    ("My student ID is 87654321", "My student ID is [학번]"),
    ("SSN 123-45-6789?", "SSN [주민등록번호]?"),
])
def test_identifiers_become_the_institutions_placeholders(text, expected):
    assert scrub(text, "ko") == expected


@pytest.mark.parametrize("text", [
    "졸업하려면 전공 몇 학점 들어야 해요?",
    "21학번 컴공인데 2024년 3월 2일 개강이죠? 130학점 맞아요?",  # a cohort, a date, credits: no identifiers
    "2026-03-02 개강 맞나요",
    "How many credits do I need to graduate in 2026?",
])
def test_text_without_identifiers_is_unchanged(text):
    assert scrub(text, "ko") == text


def test_an_english_institution_gets_english_placeholders():
    assert scrub("reach me at jane@example.com or +82 10-4821-7395", "en") == "reach me at [email] or [phone]"


def test_the_students_profile_values_leave_the_question_as_written_or_as_stored():
    from types import SimpleNamespace

    from advisor.config import DEMO_CONFIG_PATH, load_config
    from serving.api.usage import without_profile

    advisor = SimpleNamespace(config=load_config(DEMO_CONFIG_PATH))  # no `stated` reader: the session's values only
    profile = {"department": "DS", "admission_year": 2016, "grade": 3}
    assert without_profile("데이터과학과요, 2016학번 졸업 요건은 DS 기준인가요? DSP 3학년", advisor, profile, "ko") == (
        "[프로필]요, [프로필]학번 졸업 요건은 [프로필] 기준인가요? DSP 3학년")
    assert without_profile("AI학과 전필이 뭐예요?", advisor, profile, "ko") == "AI학과 전필이 뭐예요?"  # not theirs: a topic


def test_the_score_is_the_answering_tiers_own_top_score():
    from types import SimpleNamespace

    from serving.api.usage import tier_score
    from serving.dialogue.types import Reply

    retrieval = SimpleNamespace(chunks=[SimpleNamespace(score=0.032787), SimpleNamespace(score=0.03)])
    assert tier_score(Reply("answer", tier="faq", trace={"faq_score": 0.912345, "last_retrieval": retrieval})) == 0.9123
    assert tier_score(Reply("answer", tier="documents", trace={"last_retrieval": retrieval})) == 0.0328
    assert tier_score(Reply("answer", tier="documents", trace={})) is None  # a trace without the retrieval
    assert tier_score(Reply("answer", tier="fallback", trace={"last_retrieval": retrieval})) is None
    assert tier_score(Reply("answer", tier="template")) is None


# ------------------------------------------------------------------------------- the API with the log on

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server on a fake advisor with the usage log on: (client, its records); `records(kind)`
    waits for the writer thread first."""
    usage = tmp_path_factory.mktemp("usage")
    advisor = FakeAdvisor("build-log")
    holder = AdvisorHolder(lambda: advisor)
    holder.refresh()
    app = create_app(holder, ServingSettings(usage_dir=str(usage), rate_per_minute=0))
    with running_server(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        yield client, lambda kind: records(usage, kind, app.state.usage.flush)


def records(usage, kind, flush=lambda: None):
    flush()
    return list(read_records(usage, kind))


def test_each_answer_gets_one_scrubbed_record_without_profile_or_session(server):
    client, written_records = server
    before = len(written_records("questions"))
    ask = client.post("/v1/chat", json={"message": NEEDS_PROFILE}).json()
    assert ask["type"] == "ask" and "answer_id" not in ask
    assert len(written_records("questions")) == before  # an "ask" reply is no answer
    answer = client.post("/v1/chat", json={"session_id": ask["session_id"], "profile": PROFILE}).json()
    assert answer["type"] == "answer" and len(answer["answer_id"]) == 32
    written = written_records("questions")[before:]
    assert len(written) == 1
    record = written[0]
    assert record["answer_id"] == answer["answer_id"]
    # the question is the one the profile answers were for, scrubbed
    assert record["question"] == "졸업하려면 몇 학점 들어야 해요? 제 번호는 [전화번호]예요"
    assert {k: record[k] for k in ("language", "intent", "tier", "answer_method", "score", "answered", "build_id")} == {
        "language": "ko", "intent": "retrieval", "tier": "documents", "answer_method": "extractive", "score": None,
        "answered": True, "build_id": "build-log"}
    assert record["hour"].endswith(":00Z") and record["day"] == record["hour"][:10]
    text = str(record)
    assert ask["session_id"] not in text and "south" not in text and "7395" not in text

    again = client.post("/v1/chat", json={"message": "휴학은 어떻게 해요?"}).json()
    assert again["answer_id"] != answer["answer_id"]
    assert [r["answer_id"] for r in written_records("questions")[before:]] == [answer["answer_id"], again["answer_id"]]


def test_feedback_is_stored_without_anything_about_the_student(server):
    client, written_records = server
    answer_id = client.post("/v1/chat", json={"message": "장학금 있나요?"}).json()["answer_id"]
    response = client.post("/v1/feedback", json={"answer_id": answer_id, "helpful": False, "reason": "outdated"})
    assert response.status_code == 204 and response.content == b""
    assert client.post("/v1/feedback", json={"answer_id": answer_id, "helpful": True}).status_code == 204
    stored = [{k: v for k, v in r.items() if k not in ("hour", "day")} for r in written_records("feedback")[-2:]]
    assert stored == [{"answer_id": answer_id, "helpful": False, "reason": "outdated"},
                      {"answer_id": answer_id, "helpful": True, "reason": None}]


@pytest.mark.parametrize("body, field", [
    ({"answer_id": "not-hex", "helpful": True}, "answer_id"),
    ({"answer_id": "A" * 32, "helpful": True}, "answer_id"),
    ({"answer_id": "a" * 32, "helpful": "yes"}, "helpful"),
    ({"answer_id": "a" * 32}, "helpful"),
    ({"answer_id": "a" * 32, "helpful": False, "reason": "boring"}, "reason"),
    ({"answer_id": "a" * 32, "helpful": False, "session_id": "x"}, "session_id"),
])
def test_a_bad_feedback_body_gets_422_naming_the_field(server, body, field):
    client, written_records = server
    before = len(written_records("feedback"))
    response = client.post("/v1/feedback", json=body)
    assert response.status_code == 422 and response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["field"] == field
    assert len(written_records("feedback")) == before


def test_feedback_is_in_the_openapi_contract(server):
    client, _ = server
    spec = client.get("/openapi.json").json()
    assert "204" in spec["paths"]["/v1/feedback"]["post"]["responses"]
    assert "answer_id" in spec["components"]["schemas"]["AnswerReply"]["properties"]


# ------------------------------------------------------------------------------- off, failing, pruned

def test_without_a_usage_folder_or_with_the_question_log_off_no_question_is_written(tmp_path):
    from fastapi.testclient import TestClient

    advisor = FakeAdvisor("build-off")
    for settings in (ServingSettings(rate_per_minute=0),
                     ServingSettings(usage_dir=str(tmp_path / "usage"), question_log=False, rate_per_minute=0)):
        with TestClient(create_app(lambda: advisor, settings)) as client:
            answer = client.post("/v1/chat", json={"message": "휴학은 어떻게 해요?"}).json()
            assert answer["type"] == "answer"
            assert client.post("/v1/feedback", json={"answer_id": answer["answer_id"], "helpful": True}).status_code == 204
    assert not (tmp_path / "usage" / "questions").exists()
    assert len(records(tmp_path / "usage", "feedback")) == 1  # the question log off keeps the feedback


def test_a_failing_writer_never_fails_the_answer_and_warns_once_by_type(tmp_path, caplog):
    from fastapi.testclient import TestClient

    blocker = tmp_path / "usage"
    blocker.write_text("a file where the folder should be", encoding="utf-8")  # every append: OSError
    app = create_app(lambda: FakeAdvisor("build-fail"), ServingSettings(usage_dir=str(blocker), rate_per_minute=0))
    with caplog.at_level(logging.WARNING, logger="serving.api.usage"), TestClient(app) as client:
        for _ in range(3):
            response = client.post("/v1/chat", json={"message": "제 메일 kim@example.com 로 휴학 안내 주세요"})
            assert response.status_code == 200 and response.json()["type"] == "answer"
    warnings = [r.getMessage() for r in caplog.records if r.name == "serving.api.usage"]
    assert len(warnings) == 1 and "Error" in warnings[0]  # NotADirectoryError here: an OSError, named
    assert "kim@example.com" not in warnings[0] and str(blocker) not in warnings[0]


def test_an_answer_never_waits_for_the_disk_and_a_full_queue_drops_records_instead(tmp_path, monkeypatch, caplog):
    """The writer thread appends; the request's thread only queues. A disk that stalls holds up no
    feedback call, and past the queue's limit records are dropped (said once), not piled up."""
    monkeypatch.setattr(usage_module, "QUEUE_LIMIT", 3)
    recorder = UsageRecorder(tmp_path / "usage")
    disk, writing = threading.Event(), threading.Event()
    append_many = recorder.log.append_many

    def stalled(kind, records):
        writing.set()
        disk.wait(30)
        append_many(kind, records)

    monkeypatch.setattr(recorder.log, "append_many", stalled)
    body = FeedbackRequest(answer_id="c" * 32, helpful=False, reason="unclear")
    recorder.feedback(body)
    assert writing.wait(10)  # the writer holds the first record, stalled on the disk
    with caplog.at_level(logging.WARNING, logger="serving.api.usage"):
        for _ in range(6):
            recorder.feedback(body)  # returns at once: 3 queue up, 3 are dropped
    assert [r.getMessage() for r in caplog.records].count(
        "usage log: a record could not be written (LogBacklogFull); answers go on, this is said once") == 1
    disk.set()
    recorder.flush()
    assert len(records(tmp_path / "usage", "feedback")) == 4


def test_close_writes_what_is_left_and_stops_the_writer_and_a_later_record_starts_another(tmp_path):
    recorder = UsageRecorder(tmp_path / "usage")
    body = FeedbackRequest(answer_id="d" * 32, helpful=True)
    recorder.feedback(body)
    writer = recorder._writer
    assert writer is not None and writer.is_alive()
    recorder.close()
    assert not writer.is_alive() and len(records(tmp_path / "usage", "feedback")) == 1
    recorder.feedback(body)
    assert recorder._writer is not None and recorder._writer is not writer
    recorder.close()
    assert len(records(tmp_path / "usage", "feedback")) == 2


def test_day_folders_past_the_retention_are_pruned_at_start_and_once_a_day(tmp_path):
    usage = tmp_path / "usage"
    for day in ("2026-09-01", "2026-11-30", "2026-12-01"):
        (usage / "questions" / day).mkdir(parents=True)
    clock = {"now": datetime(2026, 12, 7, 9, tzinfo=timezone.utc)}
    recorder = UsageRecorder(usage, retention_days=7, now=lambda: clock["now"])
    assert sorted(p.name for p in (usage / "questions").iterdir()) == ["2026-12-01"]
    clock["now"] = datetime(2026, 12, 8, 0, 5, tzinfo=timezone.utc)  # the next day: its first write prunes
    recorder.log.append("feedback", {"x": 1}, datetime(2026, 12, 1, tzinfo=timezone.utc))
    recorder.feedback(FeedbackRequest(answer_id="b" * 32, helpful=True))
    recorder.flush()
    assert not (usage / "questions" / "2026-12-01").exists() and not (usage / "feedback" / "2026-12-01").exists()
    assert [p.name for p in (usage / "feedback").iterdir()] == [date(2026, 12, 8).isoformat()]


# ------------------------------------------------------------------------------- `advisor serve`

@pytest.mark.parametrize("section, on, days", [("", True, 90), ("usage:\n  question_log: false\n  retention_days: 30\n",
                                                                 False, 30)])
def test_advisor_serve_keeps_usage_under_the_warehouse_as_the_config_says(tmp_path, monkeypatch, section, on, days):
    from advisor.config import DEMO_CONFIG_PATH
    from cli.main import main

    config = tmp_path / "institution.yaml"
    config.write_text(DEMO_CONFIG_PATH.read_text(encoding="utf-8") + "\n" + section, encoding="utf-8")
    seen = {}
    monkeypatch.setattr("cli.serve.serve_command",
                        lambda *args, settings, **kwargs: seen.setdefault("settings", settings) and 0)
    assert main(["serve", "--config", str(config), "--warehouse", str(tmp_path / "wh")]) == 0
    settings = seen["settings"]
    assert settings.usage_dir == str(tmp_path / "wh" / "usage")
    assert (settings.question_log, settings.usage_retention_days) == (on, days)


def test_each_worker_of_advisor_serve_gets_the_usage_settings(tmp_path):
    import json

    from serving.api.worker import describe

    settings = ServingSettings(usage_dir=str(tmp_path / "usage"), question_log=False, usage_retention_days=30)
    given = json.loads(describe(None, tmp_path / "builds", settings))["settings"]
    assert ServingSettings(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()}) == settings
