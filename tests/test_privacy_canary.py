"""The privacy canary (issue 27): with the question log on, a conversation through the real HTTP
API and the real engine that states a profile and carries a student number, a phone number and an
e-mail address, then is forgotten (DELETE /v1/sessions/{id}), leaves none of them, and no profile
value, on disk under the warehouse or in Redis.

What is scanned: every file under the warehouses (the served build's and the one the usage log
writes to) for the identifiers, which no page of the demo college holds; for the profile values,
the files written or changed during the conversation only, since the built index names every
department and status (its pages are about them) and is not written by serving at all."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import httpx
import pytest

from advisor.index.layout import BUILDS_DIR
from advisor.usage.logfiles import read_records
from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api.server import builds_holder
from tests.fake_advisor import running_server

STUDENT_NUMBER, PHONE, EMAIL = "2016482913", "010-4821-7395", "canary.student@example.org"
IDENTIFIERS = (STUDENT_NUMBER, PHONE, "01048217395", "4821-7395", EMAIL, "canary.student")
MESSAGES = (f"안녕하세요, 학번 {STUDENT_NUMBER}이고 연락처는 {PHONE}, 메일은 {EMAIL} 입니다. "
            "졸업하려면 전공 몇 학점 들어야 해요?",
            "저는 데이터과학과 휴학생인데 장학금 받을 수 있나요?")
PROFILE = {"department": "DS", "admission_year": 2016, "major_type": "double", "grade": 3, "student_status": "on_leave"}
# every profile value as it can be written: the codes, the labels and the words the student used
# (grade 3 is left out: a digit on its own is in every file)
PROFILE_WORDS = ("DS", "데이터과학과", "2016", "double", "이중전공", "on_leave", "휴학생")


@pytest.fixture(scope="module")
def engine(demo_warehouse, tmp_path_factory):
    """The demo build loaded once (shared by both session stores), and a warehouse of the canary's
    own whose builds/ is the demo's: the usage log goes there, not into the shared demo warehouse."""
    warehouse = tmp_path_factory.mktemp("canary") / "warehouse"
    warehouse.mkdir()
    (warehouse / BUILDS_DIR).symlink_to(demo_warehouse.builds, target_is_directory=True)
    loaded = builds_holder(warehouse / BUILDS_DIR, demo_warehouse.config())
    assert loaded.refresh()
    return loaded.current(), warehouse, demo_warehouse.root


def snapshot(*roots: Path) -> dict[Path, tuple[int, int]]:
    return {path: (path.stat().st_mtime_ns, path.stat().st_size)
            for root in roots for path in _files(root)}


def _files(root: Path):
    for folder, _, names in os.walk(root, followlinks=True):
        for name in names:
            path = Path(folder) / name
            if path.is_file():
                yield path


def found_in(paths, needles: tuple[str, ...], ignore: tuple[str, ...]) -> list[tuple[str, str]]:
    """(file, needle) for each needle in a file, as UTF-8 bytes; the `ignore` strings taken out
    first: the build id and the answer ids, random hex whose digits can spell a year by chance
    (an answer id held "2016" in one CI run in about ten)."""
    hits = []
    for path in paths:
        content = path.read_bytes()
        for known in ignore:
            content = content.replace(known.encode(), b"")
        hits += [(str(path), needle) for needle in needles if needle.encode() in content]
    return hits


def converse(client: httpx.Client) -> tuple[str, list[str]]:
    session_id, answer_ids = None, []
    for message in MESSAGES:
        body = client.post("/v1/chat", json={"session_id": session_id, "message": message}).raise_for_status().json()
        session_id = body["session_id"]
        while body["type"] == "ask":
            answers = {q["attribute"]: PROFILE.get(q["attribute"]) for q in body["questions"]}
            body = client.post("/v1/chat", json={"session_id": session_id, "profile": answers}).raise_for_status().json()
        answer_ids.append(body["answer_id"])
        assert client.post("/v1/feedback", json={"answer_id": body["answer_id"], "helpful": False,
                                                 "reason": "not_my_case"}).status_code == 204
    return session_id, answer_ids


def redis_dump(url: str) -> str:
    """Every key and value in the Redis database, as text; numbers left out (the rate limit's
    bucket holds a token count and a time, whose digits could spell a year) and so are the
    rate limit's key hashes (hex digits could too), after checking that they are only that."""
    import redis

    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        parts = []
        for key in client.scan_iter("*"):
            kind = client.type(key)
            if key.startswith("advisor:r:"):
                assert kind == "hash" and set(client.hgetall(key)) == {"tokens", "at"}, key
                assert all(re.fullmatch(r"[0-9.eE+-]+", v) for v in client.hgetall(key).values())
                continue
            value = (client.get(key) if kind == "string" else client.hgetall(key) if kind == "hash"
                     else client.lrange(key, 0, -1) if kind == "list" else client.smembers(key) if kind == "set"
                     else client.zrange(key, 0, -1, withscores=True) if kind == "zset" else "")
            parts.append(f"{key} {value}")
        return "\n".join(parts)
    finally:
        client.close()


@pytest.fixture
def session_store(tmp_path):
    """Redis when redis-server is installed (what is on disk is checked either way, and Redis
    besides), else the memory store: one conversation, not two, for the test's time."""
    from tests.test_sessions_shared import REDIS_SERVER, redis_server

    if REDIS_SERVER is None:
        yield "memory"
        return
    with redis_server(tmp_path) as url:
        yield url


def test_a_forgotten_conversation_leaves_no_identifier_and_no_profile_value(engine, session_store):
    advisor, warehouse, demo_root = engine
    usage = warehouse / "usage"
    shutil.rmtree(usage, ignore_errors=True)
    holder = AdvisorHolder(lambda: advisor)
    holder.refresh()
    app = create_app(holder, ServingSettings(usage_dir=str(usage), session_store=session_store))
    before = snapshot(warehouse, demo_root)
    with running_server(app) as base, httpx.Client(base_url=base, timeout=120) as client:
        session_id, answer_ids = converse(client)
        assert client.delete(f"/v1/sessions/{session_id}").status_code == 204
        assert client.post("/v1/chat", json={"session_id": session_id, "message": "안녕"}).status_code == 404
    after = snapshot(warehouse, demo_root)
    changed = [path for path, stamp in after.items() if before.get(path) != stamp]

    # the log is on and kept the conversation, scrubbed: the canary is not vacuous
    questions = list(read_records(usage, "questions"))
    assert [q["answer_id"] for q in questions] == answer_ids
    logged = " ".join(q["question"] for q in questions)
    assert all(placeholder in logged for placeholder in ("[학번]", "[전화번호]", "[이메일]")), logged
    assert len(list(read_records(usage, "feedback"))) == 2
    assert any(path.is_relative_to(usage) for path in changed)

    known_ids = (advisor.build_id, *answer_ids)
    assert found_in(after, IDENTIFIERS, known_ids) == []
    assert found_in(changed, PROFILE_WORDS + (session_id,), known_ids) == []
    if session_store != "memory":
        dump = redis_dump(session_store)
        assert [needle for needle in IDENTIFIERS + PROFILE_WORDS + (session_id,) if needle in dump] == []
