"""The HTTP API's mechanics (docs/contracts.md §4) against a fake Advisor on a real uvicorn server:
sessions, limits, error bodies, privacy of logs, health, and the build swap."""

from __future__ import annotations

import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api.logs import AccessLogRedactor
from serving.api.models import AnswerReply, AskReply, ErrorBody, SourceOut
from serving.api.ratelimit import RateLimiter
from serving.api.sessions import MemorySessionStore
from tests.fake_advisor import (
    DEFAULT_SCHEMA,
    FakeAdvisor,
    ManualClock,
    open_fake,
    publish_fake_build,
    running_server,
    wait_for,
)

NEEDS_PROFILE = "졸업하려면 몇 학점 들어야 해요?"


def loaded_holder(advisor) -> AdvisorHolder:
    holder = AdvisorHolder(lambda: advisor)
    assert holder.refresh()
    return holder


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def advisor():
    return FakeAdvisor("build-a")


@pytest.fixture
def serve(advisor, clock):
    """serve(**settings) -> (base URL, httpx client) of a server on the fake advisor."""
    with contextlib_exit_stack() as stack:
        def start(**overrides):
            app = create_app(loaded_holder(advisor), ServingSettings(**overrides), clock=clock)
            base = stack.enter_context(running_server(app))
            client = stack.enter_context(httpx.Client(base_url=base, timeout=30))
            return client
        yield start


def contextlib_exit_stack():
    import contextlib

    return contextlib.ExitStack()


def assert_error(response: httpx.Response, status: int, field: str | None = "-") -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = ErrorBody.model_validate(response.json())
    assert body.error.code and body.error.message
    if field != "-":
        assert body.error.field == field
    return response.json()["error"]


# ------------------------------------------------------------------------------- sessions

def test_a_question_that_needs_the_profile_asks_then_answers_in_the_same_session(serve):
    client = serve()
    first = client.post("/v1/chat", json={"session_id": None, "message": NEEDS_PROFILE})
    assert first.status_code == 200
    ask = AskReply.model_validate(first.json())
    assert [q.attribute for q in ask.questions] == list(DEFAULT_SCHEMA)
    assert [o.value for o in ask.questions[0].options] == [v for v, _ in DEFAULT_SCHEMA["campus"][1]]

    answers = {"campus": ask.questions[0].options[1].value, "year_level": None}  # None: "don't know"
    second = client.post("/v1/chat", json={"session_id": ask.session_id, "profile": answers})
    assert second.status_code == 200
    answer = AnswerReply.model_validate(second.json())
    assert answer.session_id == ask.session_id
    assert answer.profile_used == {"campus": answers["campus"]}
    assert answer.citations and answer.citations[0].url.startswith("http://fake.example/build-a/")
    assert "trace" not in second.json()

    # the same session remembers the profile: the next profile question is answered at once
    third = client.post("/v1/chat", json={"session_id": ask.session_id, "message": NEEDS_PROFILE})
    assert third.json()["type"] == "answer"


def test_new_sessions_get_distinct_unguessable_ids(serve):
    client = serve()
    ids = {client.post("/v1/chat", json={"message": "안녕하세요"}).json()["session_id"] for _ in range(5)}
    assert len(ids) == 5
    assert all(len(i) >= 32 for i in ids)


def test_unknown_session_is_404_json(serve):
    client = serve()
    assert_error(client.post("/v1/chat", json={"session_id": "nope", "message": "안녕"}), 404, "session_id")
    assert_error(client.post("/v1/chat", json={"session_id": "nope", "profile": {"campus": "north"}}), 404)


def test_idle_sessions_expire_after_the_ttl(serve, clock):
    client = serve(ttl=600)
    sid = client.post("/v1/chat", json={"message": NEEDS_PROFILE}).json()["session_id"]
    clock.advance(599)  # used just in time: the idle time starts again
    assert client.post("/v1/chat", json={"session_id": sid, "message": "안녕"}).status_code == 200
    clock.advance(599)
    assert client.post("/v1/chat", json={"session_id": sid, "message": "안녕"}).status_code == 200
    clock.advance(601)
    assert_error(client.post("/v1/chat", json={"session_id": sid, "message": "안녕"}), 404)


def test_delete_forgets_a_session_at_once(serve):
    client = serve()
    sid = client.post("/v1/chat", json={"message": NEEDS_PROFILE}).json()["session_id"]
    response = client.delete(f"/v1/sessions/{sid}")
    assert response.status_code == 204 and response.content == b""
    assert_error(client.post("/v1/chat", json={"session_id": sid, "profile": {"campus": "north"}}), 404)
    assert_error(client.delete(f"/v1/sessions/{sid}"), 404)


def test_when_full_the_least_recently_used_session_is_evicted(serve):
    client = serve(max_sessions=3)
    first, second, third = (client.post("/v1/chat", json={"message": "안녕"}).json()["session_id"] for _ in range(3))
    assert client.post("/v1/chat", json={"session_id": first, "message": "안녕"}).status_code == 200  # first is now recent
    fourth = client.post("/v1/chat", json={"message": "안녕"}).json()["session_id"]
    assert_error(client.post("/v1/chat", json={"session_id": second, "message": "안녕"}), 404)
    for alive in (first, third, fourth):
        assert client.post("/v1/chat", json={"session_id": alive, "message": "안녕"}).status_code == 200


def test_concurrent_requests_on_one_session_are_serialized(serve, advisor):
    client = serve(rate_per_minute=0)
    sid = client.post("/v1/chat", json={"message": "안녕"}).json()["session_id"]
    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(lambda _: client.post("/v1/chat", json={"session_id": sid, "message": "SLOW"}).status_code,
                                 range(12)))
    assert statuses == [200] * 12
    assert advisor.overlaps == 0


def test_session_store_unit_expiry_and_lru():
    clock = ManualClock()
    store = MemorySessionStore(ttl=10, max_sessions=2, clock=clock)

    def session_of(session_id):
        with store.checkout(session_id) as entry:
            return None if entry is None else entry.session

    a = store.add("A")
    clock.advance(5)
    b = store.add("B")
    assert session_of(a) == "A"  # a is now the most recent
    c = store.add("C")
    assert session_of(b) is None and session_of(a) == "A" and session_of(c) == "C"
    clock.advance(10.5)
    assert session_of(a) is None and len(store) == 0


# ------------------------------------------------------------------------------- limits

def test_message_length_is_limited(serve):
    client = serve(max_message_chars=50)
    assert client.post("/v1/chat", json={"message": "가" * 50}).status_code == 200
    error = assert_error(client.post("/v1/chat", json={"message": "가" * 51}), 422, "message")
    assert error["code"] == "message_too_long"
    assert_error(client.post("/v1/chat", json={"message": "  \n "}), 422, "message")


def test_the_apis_default_message_limit_is_the_engines():
    """One number: what the API promises students is what the engine itself accepts."""
    from advisor.message_limit import MAX_MESSAGE_CHARS

    assert ServingSettings().max_message_chars == MAX_MESSAGE_CHARS == 1_000


def test_a_serving_process_loads_no_build_time_code():
    """The API and the terminal read builds; the writer and the build-time stages stay unloaded."""
    import subprocess
    import sys

    code = ("import sys, serving.api.app, cli.terminal; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('advisor', 'examples')))))")
    loaded = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split())
    assert "advisor.index.store" in loaded
    build_time = ("advisor.index_build", "advisor.index.writer", "advisor.faq.calibrate", "advisor.faq.paraphrase",
                  "advisor.faq.enrichment", "examples")
    assert not [m for m in loaded if m.startswith(build_time)]


def test_body_size_is_checked_before_parsing(serve):
    client = serve(max_body_bytes=2048)
    big = json.dumps({"message": "a" * 3000})
    assert_error(client.post("/v1/chat", content=big, headers={"content-type": "application/json"}), 413)

    def chunked():  # no Content-Length: the limit still holds while reading
        for _ in range(4):
            yield b"x" * 1000

    assert_error(client.post("/v1/chat", content=chunked(), headers={"content-type": "application/json"}), 413)
    # not JSON at all, but small: the parser answers (400), so the size check did not misfire
    assert_error(client.post("/v1/chat", content=b"{" * 100, headers={"content-type": "application/json"}), 400)


def test_rate_limit_per_client_answers_429_with_retry_after(serve, clock):
    client = serve(rate_per_minute=5)
    for _ in range(5):
        assert client.get("/v1/index").status_code == 200
    limited = client.get("/v1/index")
    assert_error(limited, 429)
    assert int(limited.headers["retry-after"]) == 12  # one token every 60/5 s
    # another client (uvicorn takes X-Forwarded-For from a loopback proxy) has its own budget
    assert client.get("/v1/index", headers={"x-forwarded-for": "203.0.113.9"}).status_code == 200
    assert client.get("/healthz").status_code == 200  # only the API is limited, not health checks
    clock.advance(12)
    assert client.get("/v1/index").status_code == 200
    assert client.get("/v1/index").status_code == 429


def test_rate_limiter_unit_refills_gradually():
    clock = ManualClock()
    limiter = RateLimiter(per_minute=2, clock=clock)
    assert limiter.check("x") is None and limiter.check("x") is None
    assert limiter.check("x") == pytest.approx(30.0)
    clock.advance(29)
    assert limiter.check("x") == pytest.approx(1.0)
    clock.advance(1)
    assert limiter.check("x") is None


# ------------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("body, status, field", [
    (b'{"message": "hi"', 400, None),  # truncated JSON
    (b"not json", 400, None),
    (b"[]", 422, None),
    (b'"just a string"', 422, None),
    (b"", 422, None),
    (b'{"message": 5}', 422, "message"),
    (b'{"message": ["a"]}', 422, "message"),
    (b'{"session_id": 3, "message": "hi"}', 422, "session_id"),
    (b'{"session_id": "x", "profile": "CS"}', 422, "profile"),
    (b'{"session_id": "x", "profile": {"campus": ["north"]}}', 422, "profile.campus"),
    (b'{"session_id": "x", "profile": {"year_level": 2.5}}', 422, "profile.year_level"),
    (b'{"message": "hi", "profile": {"campus": "north"}, "session_id": "x"}', 422, None),
    (b"{}", 422, "message"),
    (b'{"session_id": null}', 422, "message"),
    (b'{"message": "hi", "admin": true}', 422, "admin"),
    (b'{"profile": {"campus": "north"}}', 422, "session_id"),
])
def test_malformed_bodies_get_a_4xx_json_error(serve, body, status, field):
    client = serve()
    response = client.post("/v1/chat", content=body, headers={"content-type": "application/json"})
    assert_error(response, status, field)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_not_sent_as_json_is_415_json(serve, content_type):
    client = serve()
    response = client.post("/v1/chat", content=b'{"message": "hi"}', headers={"content-type": content_type})
    assert assert_error(response, 415, None)["code"] == "unsupported_media_type"
    # JSON under its other names is still read
    for json_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
        assert client.post("/v1/chat", content=b'{"message": 5}', headers={"content-type": json_type}).status_code == 422


def test_bad_profile_answers_name_the_field(serve):
    client = serve()
    sid = client.post("/v1/chat", json={"message": NEEDS_PROFILE}).json()["session_id"]
    error = assert_error(client.post("/v1/chat", json={"session_id": sid, "profile": {"favourite_colour": "blue"}}),
                         422, "profile.favourite_colour")
    assert error["code"] == "invalid_input"
    assert_error(client.post("/v1/chat", json={"session_id": sid, "profile": {"campus": "east"}}), 422, "profile.campus")
    assert_error(client.post("/v1/chat", json={"session_id": sid, "profile": {}}), 422, "profile")


def test_unknown_routes_and_methods_are_json_errors(serve):
    client = serve()
    assert_error(client.get("/v1/nothing-here"), 404)
    assert_error(client.get("/v1/chat"), 405)
    assert_error(client.get("/static/missing.js"), 404)


# ------------------------------------------------------------------------------- privacy

@pytest.fixture
def captured_logs():
    """Every server-side log record (access log included), formatted; the test's own HTTP client
    (httpx, httpcore) logs full URLs and is not the server."""
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            if record.name.split(".")[0] in ("httpx", "httpcore"):
                return
            records.append(self.format(record) + (f"\n{record.exc_text}" if record.exc_text else ""))

    handler = Keep(level=logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    loggers = [logging.getLogger(), logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")]
    saved = [(lg, lg.level) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
    logging.getLogger().addHandler(handler)
    try:
        yield records
    finally:
        logging.getLogger().removeHandler(handler)
        for lg, level in saved:
            lg.setLevel(level)


def test_engine_failure_is_500_json_and_logs_nothing_of_the_request(serve, captured_logs, capfd):
    client = serve()
    secret_message = "BOOM 내 학번은 2019123456이고 휴학 예정입니다"
    response = client.post("/v1/chat", json={"message": secret_message})
    error = assert_error(response, 500)
    assert error["code"] == "engine_error"
    assert "2019123456" not in response.text

    sid = client.post("/v1/chat", json={"message": NEEDS_PROFILE}).json()["session_id"]
    secret_value = "south"
    client.post("/v1/chat", json={"session_id": sid, "profile": {"campus": secret_value, "year_level": 3}})
    client.post("/v1/chat", json={"session_id": sid, "profile": {"unknown_attr": "zzsecretzz"}})
    client.delete(f"/v1/sessions/{sid}")

    logged = "\n".join(captured_logs)
    out, err = capfd.readouterr()
    everything = logged + out + err
    assert "RuntimeError" in logged  # the failure itself is logged ...
    for secret in ("2019123456", "휴학", secret_value, "zzsecretzz", sid):  # ... but nothing the student sent
        assert secret not in everything
    access = [line for line in captured_logs if line.startswith("uvicorn.access")]
    assert any('"POST /v1/chat HTTP/1.1" 500' in line for line in access)
    assert any('"DELETE /v1/sessions/… HTTP/1.1" 204' in line for line in access)
    assert not any("127.0.0.1" in line for line in access)


def test_access_log_redactor_keeps_only_method_path_status():
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("198.51.100.7:5123", "DELETE", "/v1/sessions/abc123?who=kim", "1.1", 204), None)
    assert AccessLogRedactor().filter(record)
    assert record.getMessage() == '- - "DELETE /v1/sessions/… HTTP/1.1" 204'


# ------------------------------------------------------------------------------- builds

def test_healthz_is_503_until_a_build_is_published_then_200(tmp_path):
    builds = tmp_path / "builds"
    holder = AdvisorHolder.for_builds(builds, open_fake, reload_interval=0.05)
    with running_server(create_app(holder, ServingSettings(reload_interval=0.05))) as base, \
            httpx.Client(base_url=base, timeout=30) as client:
        error = assert_error(client.get("/healthz"), 503)
        assert error["code"] == "no_build"
        assert_error(client.get("/v1/index"), 503)
        assert_error(client.post("/v1/chat", json={"message": "안녕"}), 503)

        publish_fake_build(builds, "build-1")
        wait_for(lambda: client.get("/healthz").status_code == 200)
        assert client.get("/healthz").json() == {"status": "ok", "build_id": "build-1"}
        assert client.get("/v1/index").json()["counts"] == {"static": 3, "dynamic": 1}


def test_a_build_swap_under_concurrent_chats_fails_no_request(tmp_path):
    builds = tmp_path / "builds"
    publish_fake_build(builds, "build-1")
    holder = AdvisorHolder.for_builds(builds, lambda root: open_fake(root, load_seconds=0.3), reload_interval=0.05)
    settings = ServingSettings(rate_per_minute=0, reload_interval=0.05)
    failures, seen_builds, stop = [], set(), threading.Event()

    with running_server(create_app(holder, settings)) as base:
        with httpx.Client(base_url=base, timeout=30) as probe:
            wait_for(lambda: probe.get("/healthz").status_code == 200)

        def chat_until_stopped():
            with httpx.Client(base_url=base, timeout=30) as client:
                sid = None
                while not stop.is_set():
                    r = client.post("/v1/chat", json={"session_id": sid, "message": NEEDS_PROFILE})
                    if r.status_code != 200:
                        failures.append(r.status_code)
                        continue
                    sid = r.json()["session_id"]  # the session carries over the swap
                    if r.json()["type"] == "ask":
                        r = client.post("/v1/chat", json={"session_id": sid, "profile": {"campus": "north", "year_level": 2}})
                        if r.status_code != 200:
                            failures.append(r.status_code)
                            continue
                    seen_builds.add(r.json()["answer"].split("]")[0].lstrip("["))

        threads = [threading.Thread(target=chat_until_stopped) for _ in range(8)]
        for t in threads:
            t.start()
        try:
            wait_for(lambda: "build-1" in seen_builds)
            publish_fake_build(builds, "build-2")
            with httpx.Client(base_url=base, timeout=30) as probe:
                wait_for(lambda: probe.get("/v1/index").json()["build_id"] == "build-2")
            wait_for(lambda: "build-2" in seen_builds)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=30)
    assert failures == []
    assert seen_builds == {"build-1", "build-2"}


def test_a_build_that_fails_to_load_keeps_the_old_one_serving(tmp_path):
    builds = tmp_path / "builds"
    publish_fake_build(builds, "good")

    def opener(root):
        advisor = open_fake(root)
        if advisor.build_id == "broken":
            raise ValueError("index format 0, this code reads 1")
        return advisor

    holder = AdvisorHolder.for_builds(builds, opener)
    assert holder.refresh() and holder.current().build_id == "good"
    publish_fake_build(builds, "broken")
    assert not holder.refresh()
    assert holder.current().build_id == "good" and "index format" in holder.last_error
    publish_fake_build(builds, "better")
    assert holder.refresh() and holder.current().build_id == "better"


# ------------------------------------------------------------------------------- documentation, page

def test_openapi_documents_the_request_and_response_models(serve):
    client = serve()
    spec = client.get("/openapi.json").json()
    chat = spec["paths"]["/v1/chat"]["post"]
    assert chat["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/ChatRequest")
    schemas = spec["components"]["schemas"]
    assert {"ChatRequest", "AskReply", "AnswerReply", "ErrorBody", "IndexInfo"} <= set(schemas)
    assert set(schemas["ChatRequest"]["properties"]) == {"session_id", "message", "profile"}
    assert {"422", "404", "429"} <= set(chat["responses"])
    assert "/v1/sessions/{session_id}" in spec["paths"] and "/healthz" in spec["paths"]


def test_the_page_and_its_files_are_served_without_outside_resources(serve):
    client = serve()
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    for text in (page.text, client.get("/static/app.js").text, client.get("/static/style.css").text):
        assert "//cdn" not in text and "fonts.googleapis" not in text and "https://" not in text



def test_the_page_may_probe_only_its_sources_sites_and_a_hostile_origin_is_never_written():
    from serving.api.guards import page_policy

    policy = page_policy(["https://www.univ.ac.kr", "http://127.0.0.1:8765", "https://x.edu; script-src *",
                          "javascript:alert(1)", "https://www.univ.ac.kr"])
    connect = next(d.strip() for d in policy.split(";") if d.strip().startswith("connect-src"))
    assert connect == "connect-src 'self' http://127.0.0.1:8765 https://www.univ.ac.kr"
    assert "script-src 'self';" in policy and "*" not in policy
    assert "connect-src 'self';" in page_policy()


def test_the_served_policy_names_the_builds_source_sites_on_the_page_only(tmp_path):
    class Citing(FakeAdvisor):
        def source_origins(self):
            return ("https://www.univ.ac.kr",)

    with running_server(create_app(loaded_holder(Citing("b1")), ServingSettings())) as base, \
            httpx.Client(base_url=base, timeout=30) as client:
        assert "connect-src 'self' https://www.univ.ac.kr;" in client.get("/").headers["content-security-policy"]
        assert "connect-src 'self';" in client.get("/v1/index").headers["content-security-policy"]
    holder = AdvisorHolder.for_builds(tmp_path / "builds", open_fake, reload_interval=60)  # nothing published
    with running_server(create_app(holder, ServingSettings())) as base, httpx.Client(base_url=base, timeout=30) as client:
        page = client.get("/")  # no build yet: the page is still served, talking to its own origin only
        assert page.status_code == 200 and "connect-src 'self';" in page.headers["content-security-policy"]

# ------------------------------------------------------------------------------- source snapshots (a real build)

@pytest.fixture(scope="module")
def real_advisor(demo_warehouse):
    from serving.dialogue.engine import open_advisor

    return open_advisor(demo_warehouse.builds, demo_warehouse.config(), None)


@pytest.fixture
def real_client(real_advisor):
    with running_server(create_app(loaded_holder(real_advisor), ServingSettings(rate_per_minute=0))) as base, \
            httpx.Client(base_url=base, timeout=60) as client:
        yield client


def answered(client: httpx.Client, question: str) -> dict:
    body = client.post("/v1/chat", json={"message": question}).raise_for_status().json()
    while body["type"] == "ask":  # "don't know" to every profile question
        answers = {q["attribute"]: None for q in body["questions"]}
        body = client.post("/v1/chat", json={"session_id": body["session_id"], "profile": answers}).raise_for_status().json()
    return body


def test_a_citation_opens_the_saved_copy_of_its_document(real_client, real_advisor):
    import polars as pl

    from advisor.index.layout import CHUNKS_FILE

    reply = answered(real_client, "졸업하려면 전공 몇 학점 들어야 해요?")
    citation = AnswerReply.model_validate(reply).citations[0]
    assert citation.snapshot == f"/v1/sources/{citation.chunk_id}"  # an added field; the others unchanged
    response = real_client.get(citation.snapshot)
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    source = SourceOut.model_validate(response.json())
    chunk = pl.read_parquet(real_advisor.build.directory / CHUNKS_FILE).filter(pl.col("chunk_id") == citation.chunk_id)
    assert source.url == chunk["doc_url"][0] and source.build_id == real_advisor.build_id
    assert source.fetched_at and source.title
    assert source.chunk.text and source.text[source.chunk.start:source.chunk.end] == source.chunk.text
    assert chunk["text"][0].endswith(source.chunk.text)


def test_an_faq_citation_opens_too(real_client):
    reply = answered(real_client, "휴학 신청은 어떻게 하나요?")
    for citation in reply["citations"]:
        if citation["snapshot"]:
            assert real_client.get(citation["snapshot"]).status_code == 200


@pytest.mark.parametrize("chunk_id", ["0" * 65, "<script>alert(1)</script>", "a b", "한글아이디", "' OR 1=1 --",
                                      "abc%00def", "..", "a.b"])
def test_hostile_chunk_ids_get_a_json_4xx(real_client, chunk_id):
    from urllib.parse import quote

    response = real_client.get("/v1/sources/" + quote(chunk_id, safe=""))
    assert 400 <= response.status_code < 500
    error = assert_error(response, response.status_code)
    assert error["code"] in ("invalid_chunk_id", "not_found")
    assert "<script>" not in response.text


def test_unknown_chunk_id_is_404(real_client):
    for path in ("/v1/sources/0123456789abcdef", "/v1/sources/../../etc/passwd", "/v1/sources/"):
        response = real_client.get(path)
        assert response.status_code == 404
        assert_error(response, 404)
    assert real_client.get("/v1/sources/0123456789abcdef").json()["error"]["code"] == "unknown_chunk"


def test_an_old_build_without_snapshots_serves_with_a_clear_404(demo_warehouse, tmp_path):
    import shutil

    from advisor.index.layout import LATEST, SOURCES_FILE, latest_build_id
    from serving.dialogue.engine import open_advisor

    build_id = latest_build_id(demo_warehouse.builds)
    builds = tmp_path / "builds"
    shutil.copytree(demo_warehouse.builds / build_id, builds / build_id)
    (builds / build_id / SOURCES_FILE).unlink()  # as written before snapshots existed
    (builds / LATEST).write_text(build_id + "\n", encoding="utf-8")
    advisor = open_advisor(builds, demo_warehouse.config(), None)
    with running_server(create_app(loaded_holder(advisor), ServingSettings(rate_per_minute=0))) as base, \
            httpx.Client(base_url=base, timeout=60) as client:
        reply = answered(client, "졸업하려면 전공 몇 학점 들어야 해요?")
        assert reply["citations"] and all(c["snapshot"] is None for c in reply["citations"])
        response = client.get(f"/v1/sources/{reply['citations'][0]['chunk_id']}")
        error = assert_error(response, 404)
        assert error["code"] == "no_snapshots" and "original URL" in error["message"]


def test_an_engine_without_snapshots_answers_404_and_the_endpoint_is_documented(serve):
    client = serve()
    reply = client.post("/v1/chat", json={"message": "안녕"}).json()
    assert reply["citations"][0]["snapshot"] is None
    assert assert_error(client.get("/v1/sources/c1"), 404)["code"] == "no_snapshots"
    spec = client.get("/openapi.json").json()
    assert "/v1/sources/{chunk_id}" in spec["paths"] and "SourceOut" in spec["components"]["schemas"]
