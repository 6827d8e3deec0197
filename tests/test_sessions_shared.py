"""Sessions shared across processes (issue 13): the engine's Session as JSON, the one store interface
(memory and Redis) and its locking, the Redis store's refusals, the 503 when Redis is down, and
`advisor serve --workers 2` against a real build with conversations spread over both workers.

Each test that needs Redis starts its own redis-server on a free loopback port with persistence
off; without redis-server (`make test` installs it as root) they are skipped."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api.sessions import MemorySessionStore, SessionStoreError, new_session_id, open_session_store
from serving.dialogue.session import Pending, Session
from tests.conftest import free_port
from tests.fake_advisor import FakeAdvisor, ManualClock, running_server, wait_for

REDIS_SERVER = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (`make test` installs "
                                                              "Debian's redis-server when run as root)")


@contextlib.contextmanager
def redis_server(directory: Path, *options: str):
    """A redis-server on 127.0.0.1:<free port>, persistence off unless `options` turn it on; its URL."""
    import redis

    port = free_port()
    process = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
                                "--save", "", "--appendonly", "no", *options],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        wait_for(lambda: _pings(client), timeout=10)
        client.close()
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _pings(client) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (`make test` installs Debian's redis-server when run as root)")
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    """make_store(ttl=60) -> a new store of the parametrized kind; with Redis, each call is another
    client of the same server (as another worker's would be)."""

    memory = {}

    def make(ttl: float = 60, clock=time.monotonic):
        if request.param == "memory":  # one process: every caller gets the one store
            return memory.setdefault("store", MemorySessionStore(ttl, 100, clock))
        return open_session_store(request.getfixturevalue("redis_url"), ttl, 100)

    make.kind = request.param
    return make


def a_session() -> Session:
    pending = Pending(message="졸업하려면 전공 몇 학점?", intent="graduation", stage="evidence",
                      asked=("major_type", "admission_year"), questions_so_far=2,
                      relevant=frozenset({"department", "major_type"}), search_text="졸업 전공 학점",
                      faq_text="컴퓨터학과 졸업 전공 학점", differing=frozenset({"major_type", "department"}), pages_differing=frozenset({"major_type"}),
                      trace={"time_sensitive_llm": True, "questions": [{"attribute": "major_type"}],
                             "glossary": [{"english": "credits", "korean": "학점"}], "last_retrieval": object()})
    return Session(known={"department": "CS", "admission_year": 2021}, declined={"grade", "student_status"},
                   pending=pending, turns=3)


def through_json(session: Session) -> Session:
    return Session.from_dict(json.loads(json.dumps(session.to_dict(), ensure_ascii=False)))


# ----------------------------------------------------------------------------- the session as JSON

def test_a_session_survives_json_with_its_types():
    original = a_session()
    copy = through_json(original)
    assert copy.known == original.known and copy.declined == original.declined and copy.turns == 3
    assert isinstance(copy.declined, set)
    pending = copy.pending
    assert pending.asked == ("major_type", "admission_year") and isinstance(pending.asked, tuple)
    assert pending.relevant == frozenset({"department", "major_type"}) and isinstance(pending.relevant, frozenset)
    assert pending.differing == frozenset({"major_type", "department"}) and isinstance(pending.differing, frozenset)
    assert pending.pages_differing == frozenset({"major_type"}) and isinstance(pending.pages_differing, frozenset)
    assert (pending.message, pending.intent, pending.stage, pending.questions_so_far, pending.search_text) == (
        original.pending.message, "graduation", "evidence", 2, "졸업 전공 학점")
    assert pending.faq_text == "컴퓨터학과 졸업 전공 학점" and pending.faq_query == pending.faq_text
    # what the engine reads back on a later turn is kept; the evaluation trace is not
    assert pending.trace == {"time_sensitive_llm": True, "glossary": [{"english": "credits", "korean": "학점"}]}
    assert through_json(copy).to_dict() == copy.to_dict()
    assert through_json(Session()).to_dict() == Session().to_dict()
    # a record stored before the FAQ tier kept its own text reads as "the FAQ compares the query"
    record = copy.to_dict()
    del record["pending"]["faq_text"]
    assert Session.from_dict(record).pending.faq_query == "졸업 전공 학점"


@pytest.mark.parametrize("record", [{}, {"format": 99}, {"format": 1, "known": {}}, [], "x"])
def test_a_record_of_another_shape_is_refused(record):
    with pytest.raises(ValueError):
        Session.from_dict(record)


def test_a_restored_session_continues_like_the_original_with_the_real_engine(demo_warehouse):
    """A conversation stopped after the engine's question and restored from JSON gets the same
    answer as the one that stayed in memory."""
    from datetime import date

    from serving.dialogue.engine import open_advisor

    advisor = open_advisor(demo_warehouse.builds, demo_warehouse.config(), None)
    today = date(2026, 3, 16)
    session = advisor.new_session()
    first = advisor.respond(session, message="졸업하려면 전공 몇 학점 들어야 해요?", today=today)
    assert first.type == "ask"
    restored = through_json(session)
    assert restored.to_dict() == session.to_dict()
    profile = {"department": "DS", "admission_year": 2020, "major_type": "double", "grade": 3, "student_status": "enrolled"}
    answers = {q.attribute: profile.get(q.attribute) for q in first.questions}
    replies = [advisor.respond(s, profile=answers, today=today).as_api("sid") for s in (session, restored)]
    assert replies[0].pop("answer_id") != replies[1].pop("answer_id")  # random per answer; the rest the same
    assert replies[0] == replies[1]
    assert restored.to_dict() == session.to_dict()


# ----------------------------------------------------------------------------- the store contract

def test_store_contract(make_store):
    store = make_store()
    session_id = store.add(a_session())
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", session_id)
    with store.checkout(session_id) as entry:
        assert entry.session.to_dict() == a_session().to_dict()
        entry.session.known["grade"] = 3  # a turn changes the session in place...
        entry.session.declined.discard("grade")
    with store.checkout(session_id) as entry:
        assert entry.session.known["grade"] == 3  # ...and the next turn sees it
        entry.session = Session(turns=9)  # or replaces it
    with store.checkout(session_id) as entry:
        assert entry.session.turns == 9
    for unknown in (new_session_id(), "not-an-id", "advisor:s:x", ""):
        with store.checkout(unknown) as entry:
            assert entry is None
    assert store.delete(session_id) is True
    with store.checkout(session_id) as entry:
        assert entry is None
    assert store.delete(session_id) is False
    assert store.shared is (make_store.kind == "redis")


def test_idle_sessions_expire_and_each_turn_restarts_the_idle_time(make_store):
    if make_store.kind == "memory":
        clock = ManualClock()
        store, wait = make_store(ttl=10, clock=clock), clock.advance
        ttl = 10
    else:
        ttl = 0.4
        store, wait = make_store(ttl=ttl), time.sleep
    session_id = store.add(Session())
    for _ in range(3):  # used within the TTL again and again: it lives past 3 x 0.7 TTL
        wait(0.7 * ttl)
        with store.checkout(session_id) as entry:
            assert entry is not None
    wait(1.3 * ttl)
    with store.checkout(session_id) as entry:
        assert entry is None


def test_concurrent_turns_on_one_session_run_one_after_the_other(make_store):
    """12 turns from 6 threads through two clients (two workers' stores, with Redis): none overlaps
    another and none is lost."""
    stores = [make_store(), make_store()]
    session_id = stores[0].add(Session())
    running, overlaps, guard = [0], [0], threading.Lock()

    def turn(number: int) -> None:
        with stores[number % 2].checkout(session_id) as entry:
            with guard:
                running[0] += 1
                overlaps[0] += running[0] > 1
            seen = entry.session.turns
            time.sleep(0.02)
            entry.session.turns = seen + 1
            with guard:
                running[0] -= 1

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(turn, range(12)))
    assert overlaps[0] == 0
    with stores[1].checkout(session_id) as entry:
        assert entry.session.turns == 12


def test_a_session_forgotten_during_a_turn_stays_forgotten(make_store):
    store, other = make_store(), make_store()
    session_id = store.add(a_session())
    with store.checkout(session_id) as entry:
        assert other.delete(session_id)  # DELETE /v1/sessions/{id} while a turn runs
        entry.session.turns += 1
    with other.checkout(session_id) as entry:
        assert entry is None  # the turn's write-back did not bring the profile back


def test_records_hold_no_evaluation_trace_and_expire(redis_url):
    import redis

    store = open_session_store(redis_url, 60, 100)
    session_id = store.add(a_session())
    client = redis.Redis.from_url(redis_url)
    (key,) = client.keys(f"*{session_id}")
    assert json.loads(client.get(key)) == a_session().to_dict()
    assert 0 < client.pttl(key) <= 60_000


# ----------------------------------------------------------------------------- the Redis server checked at start

@needs_redis
@pytest.mark.parametrize("persisting, named", [(("--save", "60 1"), "save"), (("--appendonly", "yes"), "appendonly")])
def test_a_redis_that_writes_to_disk_is_refused(tmp_path, persisting, named):
    with redis_server(tmp_path, *persisting) as url, pytest.raises(SessionStoreError, match=named) as refused:
        open_session_store(url, 60, 100)
    assert "must not be persisted" in str(refused.value)


@needs_redis
def test_a_redis_that_hides_its_config_is_used_with_a_loud_warning(tmp_path, caplog):
    with redis_server(tmp_path, "--rename-command", "CONFIG", "") as url:
        with caplog.at_level(logging.WARNING, logger="serving.api.sessions"):
            store = open_session_store(url, 60, 100)
        session_id = store.add(Session())
        with store.checkout(session_id) as entry:
            assert entry is not None
    assert any("does not say whether it saves to disk" in r.getMessage() for r in caplog.records)


def test_an_unreachable_redis_is_a_clear_error_at_start():
    url = f"redis://:secret-password@127.0.0.1:{free_port()}/0"
    with pytest.raises(SessionStoreError, match="cannot reach") as refused:
        open_session_store(url, 60, 100)
    assert "secret-password" not in str(refused.value)
    with pytest.raises(SessionStoreError, match="not a valid Redis URL") as refused:
        open_session_store("redis://:secret-password@localhost:port/0", 60, 100)
    assert "secret-password" not in str(refused.value)
    with pytest.raises(SessionStoreError, match="expected 'memory' or a redis"):
        open_session_store("memcached://x", 60, 100)


# ----------------------------------------------------------------------------- the API over a shared store

class PlainAdvisor(FakeAdvisor):
    """FakeAdvisor over the engine's own Session, which a shared store can hold: every turn answers
    at once, with the profile known so far."""

    def new_session(self, profile=None) -> Session:
        return Session()

    def respond(self, session: Session, message=None, profile=None):
        if profile is not None:
            self._apply(session, profile)
        session.turns += 1
        return self._answer(session, message or "(profile)")


def two_apps(settings: ServingSettings):
    advisor = PlainAdvisor("build-a")
    holders = [AdvisorHolder(lambda: advisor) for _ in range(2)]
    for holder in holders:
        holder.refresh()
    return [create_app(holder, settings) for holder in holders]


@needs_redis
def test_two_apps_on_one_redis_continue_each_others_conversations(redis_url):
    apps = two_apps(ServingSettings(session_store=redis_url, rate_per_minute=0))
    with running_server(apps[0]) as first, running_server(apps[1]) as second:
        sid = httpx.post(f"{first}/v1/chat", json={"message": "안녕"}).json()["session_id"]
        reply = httpx.post(f"{second}/v1/chat", json={"session_id": sid, "profile": {"campus": "north"}})
        assert reply.status_code == 200 and reply.json()["session_id"] == sid
        reply = httpx.post(f"{first}/v1/chat", json={"session_id": sid, "message": "다음 질문"}).json()
        assert reply["profile_used"] == {"campus": "north"}
        assert httpx.delete(f"{second}/v1/sessions/{sid}").status_code == 204
        assert httpx.post(f"{first}/v1/chat", json={"session_id": sid, "message": "또"}).status_code == 404


@needs_redis
def test_two_apps_on_one_redis_enforce_one_rate_limit(redis_url):
    """Per process, two workers would allow twice the limit; through Redis they share each
    client's bucket. The bucket's key holds a hash, not the address."""
    import redis

    apps = two_apps(ServingSettings(session_store=redis_url, rate_per_minute=5))
    with running_server(apps[0]) as first, running_server(apps[1]) as second:
        statuses = [httpx.get(f"{base}/v1/index").status_code for base in (first, second) * 4]
    assert statuses.count(200) == 5 and statuses.count(429) == 3
    keys = [key.decode() for key in redis.Redis.from_url(redis_url).keys("advisor:r:*")]
    assert keys and not any("127.0.0.1" in key for key in keys)


def test_with_the_memory_store_the_other_app_does_not_know_the_conversation():
    """The issue's failure, as the control: what two workers with per-process sessions do."""
    apps = two_apps(ServingSettings(rate_per_minute=0))
    with running_server(apps[0]) as first, running_server(apps[1]) as second:
        sid = httpx.post(f"{first}/v1/chat", json={"message": "안녕"}).json()["session_id"]
        reply = httpx.post(f"{second}/v1/chat", json={"session_id": sid, "profile": {"campus": "north"}})
        assert reply.status_code == 404 and reply.json()["error"]["code"] == "unknown_session"


@needs_redis
def test_redis_down_answers_503_json_not_500(tmp_path):
    import redis

    with redis_server(tmp_path) as url:
        app = two_apps(ServingSettings(session_store=url, rate_per_minute=0))[0]
        with running_server(app) as base:
            sid = httpx.post(f"{base}/v1/chat", json={"message": "안녕"}).json()["session_id"]
            with contextlib.suppress(redis.ConnectionError):  # the server exits (redis_server reaps it)
                redis.Redis.from_url(url).shutdown(nosave=True)
            started = time.monotonic()
            replies = [httpx.post(f"{base}/v1/chat", json={"message": "안녕"}),
                       httpx.post(f"{base}/v1/chat", json={"session_id": sid, "message": "안녕"}),
                       httpx.delete(f"{base}/v1/sessions/{sid}")]
            assert time.monotonic() - started < 10
    for reply in replies:
        assert reply.status_code == 503, reply.text
        assert reply.headers["content-type"].startswith("application/json")
        assert reply.json()["error"]["code"] == "session_store_unavailable"


# ----------------------------------------------------------------------------- `advisor serve --workers`

def serve_exit(args: list[str], tmp_path, capfd, environ: dict | None = None) -> tuple[int, str]:
    from cli.main import main

    with pytest.MonkeyPatch.context() as mp:
        for name in ("ADVISOR_WORKERS", "ADVISOR_SESSION_STORE"):
            mp.delenv(name, raising=False)
        for name, value in (environ or {}).items():
            mp.setenv(name, value)
        code = main(["serve", "--warehouse", str(tmp_path), "--port", str(free_port()), *args])
    return code, capfd.readouterr().err


def test_several_workers_with_the_memory_store_are_refused(tmp_path, capfd):
    code, err = serve_exit(["--workers", "2"], tmp_path, capfd)
    assert code == 2 and "needs a shared session store" in err
    code, err = serve_exit([], tmp_path, capfd, {"ADVISOR_WORKERS": "3"})
    assert code == 2 and "--workers 3 needs a shared session store" in err
    code, err = serve_exit(["--workers", "0"], tmp_path, capfd)
    assert code == 2 and "at least 1" in err


def test_serve_refuses_a_session_store_it_cannot_use(tmp_path, capfd):
    code, err = serve_exit(["--workers", "2", "--session-store", f"redis://127.0.0.1:{free_port()}/0"], tmp_path, capfd)
    assert code == 2 and "cannot reach the Redis server" in err
    if REDIS_SERVER is not None:
        with redis_server(tmp_path, "--save", "60 1") as url:
            code, err = serve_exit([], tmp_path, capfd, {"ADVISOR_SESSION_STORE": url})
        assert code == 2 and "writes its data to disk" in err


QUESTIONS = ["졸업하려면 전공 몇 학점 들어야 해요?", "제가 받을 수 있는 장학금이 있나요?", "전공필수 과목이 뭐예요?",
             "휴학 신청은 어떻게 하나요?"]
PROFILE = {"department": "DS", "admission_year": 2020, "major_type": "double", "grade": 3, "student_status": "enrolled"}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@pytest.mark.e2e
@needs_redis
def test_two_workers_share_every_conversation(demo_warehouse, redis_url, tmp_path):
    """`advisor serve --workers 2 --session-store redis://…` on a real build: 40 conversations of 2-4
    turns at once, each request on a new connection so that turns land on either worker; none fails,
    and both workers answered."""
    port = free_port()
    log_path = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "advisor"), "serve", "--workers", "2", "--session-store", redis_url,
             "--config", str(demo_warehouse.config_path), "--warehouse", str(demo_warehouse.root),
             "--port", str(port), "--rate-limit", "0"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        # each worker says so once its engine is loaded
        wait_for(lambda: server.poll() is not None or log_path.read_text().count("Application startup complete") >= 2,
                 timeout=300, interval=0.2)  # two engines loading on two busy cores take minutes
        assert server.poll() is None, log_path.read_text()
        workers = [int(pid) for pid in re.findall(r"Started server process \[(\d+)\]", log_path.read_text())]
        assert len(workers) == 2
        cpu_before = [cpu_seconds(pid) for pid in workers]

        def post(body: dict) -> dict:
            reply = httpx.post(f"{base}/v1/chat", json=body, headers={"Connection": "close"}, timeout=60)
            assert reply.status_code == 200, reply.text
            return reply.json()

        def conversation(number: int) -> int:
            turns = 1
            body = post({"message": QUESTIONS[number % len(QUESTIONS)]})
            sid = body["session_id"]
            while body["type"] == "ask":
                turns += 1
                body = post({"session_id": sid, "profile": {q["attribute"]: PROFILE.get(q["attribute"])
                                                            for q in body["questions"]}})
            turns += 1  # a follow-up in the same conversation, its profile already known
            assert post({"session_id": sid, "message": QUESTIONS[(number + 1) % len(QUESTIONS)]})["session_id"] == sid
            return turns

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=8) as pool:
            turns = list(pool.map(conversation, range(40)))
        elapsed = time.monotonic() - started
        cpu_used = [cpu_seconds(pid) - before for pid, before in zip(workers, cpu_before)]
    finally:
        os.killpg(server.pid, 15)  # the parent and its workers: the group this test started
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()
    assert len(turns) == 40 and all(t >= 2 for t in turns) and sum(t > 2 for t in turns) >= 10
    # both workers did dialogue work (an idle worker only checks builds/LATEST every 5 s)
    assert min(cpu_used) > 0.1 * sum(cpu_used), (cpu_used, elapsed)
    assert "Traceback" not in log_path.read_text()
