"""The HTTP surface under hostile input (issue 13): a seeded fuzz of well-formed HTTP carrying
odd JSON, paths, methods and headers, and of raw-socket malformed HTTP, against a real uvicorn
server with the serving's own protocol and limits (serving/api/protocol.py). Every case must get a
response below 500, every error response must be the API's JSON error with the security headers,
and nothing a client sent may reach the log."""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import socket
import time

import httpx
import pytest

from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api.protocol import GuardedH11Protocol, uvicorn_options
from tests.fake_advisor import FakeAdvisor, running_server

MARKER = "개인정보MARKER"  # put into every body; must never appear in a log line
SECURITY_HEADERS = ("x-content-type-options", "referrer-policy", "content-security-policy")
SEED = 20261203


@pytest.fixture(scope="module")
def server():
    """(base URL, port) of a server on a fake advisor, headers timing out after 0.5 s."""
    settings = ServingSettings(rate_per_minute=0, max_header_bytes=8 * 1024)
    holder = AdvisorHolder(lambda: FakeAdvisor("fuzz"))
    assert holder.refresh()
    options = uvicorn_options(settings)
    options.pop("server_header")
    patch = pytest.MonkeyPatch()
    patch.setattr(GuardedH11Protocol, "header_timeout", 0.5)
    try:
        with running_server(create_app(holder, settings), **options) as base:
            yield base, int(base.rsplit(":", 1)[1])
    finally:
        patch.undo()


@pytest.fixture
def captured_logs():
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage() + (self.format(record) if record.exc_info else ""))

    handler = Keep(level=logging.DEBUG)
    loggers = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access", "serving")]
    for logger in loggers:
        logger.addHandler(handler)
    yield records
    for logger in loggers:
        logger.removeHandler(handler)


# --- generators ----------------------------------------------------------------------------------

def _odd_string(rng: random.Random) -> str:
    pieces = [MARKER, "", " ", "\x00", "\ud800", "\udfff", "\U0001F600", "a" * rng.choice((1, 999, 1001, 20000)),
              "<script>alert(1)</script>", "'; DROP TABLE x; --", "../../etc/passwd", "%00", "\u202e", "null",
              "졸업 학점", "\r\n", "\\", '"', "{}", "0" * 30, "\ufeff"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))


def _odd_value(rng: random.Random, depth: int = 0):
    kinds = ["str", "int", "float", "bool", "null", "list", "dict", "big"]
    kind = rng.choice(kinds if depth < 3 else kinds[:5])
    if kind == "str":
        return _odd_string(rng)
    if kind == "int":
        return rng.choice((0, -1, 1, 2, 2**31, -(2**63)))
    if kind == "float":
        return rng.choice((0.5, -0.0, 1e308, 3.14))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "big":
        return 10**rng.randint(20, 400)
    if kind == "list":
        return [_odd_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {_odd_string(rng): _odd_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _chat_body(rng: random.Random, session_id: str) -> bytes:
    fields = {"session_id": lambda: rng.choice((None, session_id, _odd_string(rng), 7, [])),
              "message": lambda: _odd_value(rng) if rng.random() < 0.5 else _odd_string(rng),
              "profile": lambda: {_odd_string(rng) if rng.random() < 0.6 else "campus": _odd_value(rng)
                                  for _ in range(rng.randint(0, 3))},
              _odd_string(rng): lambda: _odd_value(rng)}
    body = {name: make() for name, make in fields.items() if rng.random() < 0.6}
    text = json.dumps(body, ensure_ascii=rng.random() < 0.5)
    shape = rng.random()
    if shape < 0.1:
        return text[: rng.randint(0, len(text))].encode("utf-8", "surrogatepass")  # truncated JSON
    if shape < 0.15:
        return json.dumps(_odd_value(rng)).encode()  # not an object
    if shape < 0.2:
        return text.encode("utf-8", "surrogatepass")[:-1] + b"\xff"  # not UTF-8
    return text.encode("utf-8", "surrogatepass")


def _odd_path(rng: random.Random) -> str:
    segment = rng.choice(("x", "%ED%A0%80", "%00", "..%2F..%2F", "a" * 70, "%", "%zz", "é", "🙂", MARKER, ""))
    return rng.choice(("/v1/sessions/", "/v1/sources/", "/v1/", "/static/", "/", "/v1/chat/", "/healthz/",
                       "//", "/v1/index?")) + segment


def _header_value(text: str) -> bytes:
    """What a client library lets through as a header value: UTF-8 bytes, no controls."""
    raw = text.encode("utf-8", "replace").decode("latin-1")
    return ("".join(ch for ch in raw if 32 <= ord(ch) < 127 or ord(ch) > 159).strip() or "x").encode("latin-1")


def _assert_json_error(response: httpx.Response) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/json"), response.headers
        assert set(response.json()) == {"error"}
    for header in SECURITY_HEADERS:
        assert header in response.headers, (response.status_code, response.request.url)


def test_well_formed_http_with_hostile_content_never_gets_a_5xx(server, captured_logs):
    base, _ = server
    rng = random.Random(SEED)
    statuses: dict[int, int] = {}
    with httpx.Client(base_url=base, timeout=10) as client:
        session_id = client.post("/v1/chat", json={"message": "학점 알려줘"}).json()["session_id"]
        cases = 0
        for _ in range(300):
            kind = rng.random()
            headers = {"content-type": rng.choice(("application/json", "text/plain", "application/json; charset=latin-1",
                                                   "multipart/form-data", ""))}
            if kind < 0.6:
                response = client.post("/v1/chat", content=_chat_body(rng, session_id), headers=headers)
            elif kind < 0.8:
                response = client.request(rng.choice(("GET", "DELETE", "POST", "PUT", "PATCH", "OPTIONS", "HEAD", "FOO")),
                                          _odd_path(rng), content=_odd_string(rng).encode("utf-8", "surrogatepass"))
            else:
                response = client.get(rng.choice(("/healthz", "/v1/index", "/v1/sources/abc", "/")),
                                      headers={"x-forwarded-for": _header_value(_odd_string(rng)),
                                               "accept": _header_value(_odd_string(rng))})
            if response.request.method != "HEAD":
                _assert_json_error(response)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            cases += 1
    assert cases == 300 and max(statuses) < 500
    assert len([s for s in statuses if s >= 400]) >= 4  # the fuzz reached several kinds of refusal
    _assert_nothing_sent_was_logged(captured_logs)


# --- raw sockets ---------------------------------------------------------------------------------

VALID = (b"POST /v1/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         b"Content-Length: 24\r\n\r\n{\"message\": \"MARKER hi\"}")


def _mutations(rng: random.Random):
    """Malformed variants of a valid request: byte flips, cuts, insertions, framing conflicts."""
    fixed = [
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999\r\n\r\n",
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        b"POST /v1/chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"FOO / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"b" * 200_000 + b"\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
        b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        b"GET / HTTP/1.1\r\n\r\n",
        b" / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n folded: header\r\n\r\n",
        b"GET / HTTP/1.1\nHost: x\n\n",
        b"\r\n\r\n\r\n",
    ]
    yield from fixed
    for _ in range(250 - len(fixed)):
        data = bytearray(VALID)
        for _ in range(rng.randint(1, 4)):
            action, at = rng.random(), rng.randrange(len(data))
            if action < 0.4:
                data[at] = rng.randrange(256)
            elif action < 0.6:
                data[at:at] = rng.choice((b"\r\n", b"\x00", b":", b" ", b"\r", b"\n\n", b"\xff", b"%"))
            elif action < 0.8:
                del data[at: at + rng.randint(1, 8)]
            else:
                data = data[:at] + b"\r\n\r\n"
        yield bytes(data)


def _may_wait_for_a_body(data: bytes) -> bool:
    """A complete head that names a Content-Length: the server may rightly wait for the rest."""
    return b"\r\n\r\n" in data and re.search(rb"(?i)content-length", data) is not None


def _exchange(port: int, data: bytes) -> bytes:
    """Sends the bytes and reads one response (to its Content-Length), or whatever came before the
    server closed or went quiet for a second (a quarter of one where silence is an allowed answer:
    about 25 such cases would otherwise idle this test for 25 s). The connection stays open for
    writing: a client that half-closes races uvicorn, which treats end-of-input as the end of the
    connection."""
    quiet = 0.25 if _may_wait_for_a_body(data) else 1.0
    with socket.create_connection(("127.0.0.1", port), timeout=quiet) as connection:
        with contextlib.suppress(OSError):  # the server may refuse before all is sent; its answer counts
            connection.sendall(data)
        received = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            received += chunk
            head, found, body = received.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            if found and length and len(body) >= int(length.group(1)):
                break
    return received


def test_malformed_http_gets_json_errors_on_raw_sockets(server, captured_logs):
    _, port = server
    rng = random.Random(SEED)
    outcomes: dict[str, int] = {}
    cases = 0
    for data in _mutations(rng):
        cases += 1
        reply = _exchange(port, data)
        if not reply:
            # only a request whose head is complete and whose body is still short of its
            # Content-Length goes unanswered: the server is waiting for the rest
            assert _may_wait_for_a_body(data), data[:200]
            outcomes["waiting_for_body"] = outcomes.get("waiting_for_body", 0) + 1
            continue
        head, _, body = reply.partition(b"\r\n\r\n")
        status_line, *header_lines = head.split(b"\r\n")
        status = int(status_line.split()[1])
        assert status < 500, (data[:120], reply[:300])
        outcomes[str(status)] = outcomes.get(str(status), 0) + 1
        headers = {line.split(b":", 1)[0].strip().lower(): line.split(b":", 1)[1].strip() for line in header_lines}
        for header in SECURITY_HEADERS:
            assert header.encode() in headers, (data[:120], reply[:300])
        if status >= 400:
            assert headers[b"content-type"].startswith(b"application/json"), (data[:120], reply[:300])
            if b"transfer-encoding" not in headers:
                assert set(json.loads(body[: int(headers[b"content-length"])])) == {"error"}
    assert cases >= 250
    assert outcomes.get("waiting_for_body", 0) <= cases // 10, outcomes
    for status in ("400", "414", "431"):
        assert status in outcomes, outcomes
    _assert_nothing_sent_was_logged(captured_logs)


def test_slow_headers_are_timed_out_and_oversized_bodies_get_a_readable_413(server):
    base, port = server
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # ... and never the blank line
        started = time.monotonic()
        reply = connection.recv(65536)
        assert reply.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 3
    # a 300 KB body: the client still sending when the server refuses must read the 413, not a reset
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + "/v1/chat", data=json.dumps({"message": "a" * 300_000}).encode(),
                                     headers={"content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 413 and json.loads(refused.value.read())["error"]["code"] == "body_too_large"


def test_a_client_still_sending_a_huge_header_reads_the_json_431_not_a_reset(server):
    _, port = server
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ")
        for _ in range(100):  # 1 MB in pieces, as a slow client sends it: refused after the first
            connection.sendall(b"a" * 10_000)
        connection.sendall(b"\r\n\r\n")
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431") and json.loads(body)["error"]["code"] == "headers_too_large"


def test_a_lone_surrogate_is_a_422_with_headers_and_an_engine_crash_a_json_500(server, captured_logs):
    base, _ = server
    with httpx.Client(base_url=base, timeout=10) as client:
        session_id = client.post("/v1/chat", json={"message": "학점"}).json()["session_id"]
        response = client.post("/v1/chat", content=f'{{"session_id": "{session_id}", "profile": {{"\\ud800": 1}}}}',
                               headers={"content-type": "application/json"})
        assert response.status_code == 422 and response.json()["error"]["field"] == "profile"
        assert all(h in response.headers for h in SECURITY_HEADERS)
        crashed = client.post("/v1/chat", json={"message": f"BOOM {MARKER}"})  # the fake engine raises, quoting it
        assert crashed.status_code == 500 and crashed.json()["error"]["code"] == "engine_error"
        assert all(h in crashed.headers for h in SECURITY_HEADERS)
    _assert_nothing_sent_was_logged(captured_logs)


def test_an_unexpected_exception_outside_the_engine_is_a_json_500_with_headers(captured_logs):
    class Broken(FakeAdvisor):
        def index_info(self):
            raise RuntimeError(f"leaks {MARKER}")

    holder = AdvisorHolder(lambda: Broken("b"))
    assert holder.refresh()
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as base, \
            httpx.Client(base_url=base, timeout=10) as client:
        response = client.get("/v1/index")
        assert response.status_code == 500 and response.json() == {"error": {"code": "internal_error",
                                                                             "message": "internal error"}}
        assert all(h in response.headers for h in SECURITY_HEADERS)
        assert client.get("/healthz").status_code == 200  # the server is still up
    _assert_nothing_sent_was_logged(captured_logs)
    assert any("RuntimeError at" in line for line in captured_logs)  # type and place are logged


def _assert_nothing_sent_was_logged(lines: list[str]) -> None:
    assert not [line for line in lines if MARKER in line or "MARKER" in line], lines[:5]
    assert not [line for line in lines if "Traceback" in line], [line for line in lines if "Traceback" in line][:1]


# --- who a client is, and readiness under load ----------------------------------------------------

def _limited_server(**settings):
    values = {"rate_per_minute": 5, **settings}
    holder = AdvisorHolder(lambda: FakeAdvisor("limits"))
    assert holder.refresh()
    options = uvicorn_options(ServingSettings(**values))
    options.pop("server_header")
    return running_server(create_app(holder, ServingSettings(**values)), **options)


def test_forwarded_headers_are_believed_only_from_configured_proxies():
    def statuses(base: str) -> list[int]:
        with httpx.Client(base_url=base, timeout=10) as client:
            return [client.get("/v1/index", headers={"x-forwarded-for": f"10.0.0.{n}"}).status_code for n in range(8)]

    with _limited_server() as base:  # nobody trusted (the default): a rotating header is one client
        assert statuses(base).count(429) == 3
    with _limited_server(trusted_proxies=("127.0.0.1",)) as base:  # a proxy on loopback: its clients count
        assert statuses(base).count(429) == 0


def test_the_rate_limit_is_set_by_option_or_environment():
    assert ServingSettings.from_env({"ADVISOR_RATE_LIMIT": "300"}).rate_per_minute == 300
    assert ServingSettings.from_env({"ADVISOR_RATE_LIMIT": "300"}, rate_per_minute=7).rate_per_minute == 7  # the option wins
    assert ServingSettings.from_env({"ADVISOR_TRUSTED_PROXIES": "10.0.0.1, 10.2.0.0/16"}).trusted_proxies == (
        "10.0.0.1", "10.2.0.0/16")
    with pytest.raises(ValueError, match="ADVISOR_RATE_LIMIT"):
        ServingSettings.from_env({"ADVISOR_RATE_LIMIT": "lots"})
    with pytest.raises(ValueError, match="not an IP address"):
        ServingSettings.from_env({"ADVISOR_TRUSTED_PROXIES": "proxy.example"})


def test_readiness_is_answered_while_every_worker_thread_is_busy():
    """/healthz runs on the event loop: 60 slow dialogue turns fill the thread pool (40 threads)
    and queue behind it; readiness is answered before any of them ends."""
    from concurrent.futures import ThreadPoolExecutor

    holder = AdvisorHolder(lambda: FakeAdvisor("busy", slow_seconds=3.0))
    assert holder.refresh()
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as base, \
            ThreadPoolExecutor(60) as pool, httpx.Client(base_url=base, timeout=30) as client:
        turns = [pool.submit(httpx.post, base + "/v1/chat", json={"message": f"SLOW {n}"}, timeout=60)
                 for n in range(60)]
        time.sleep(0.5)  # let them reach the server and take the threads
        assert client.get("/healthz").status_code == 200
        assert not any(turn.done() for turn in turns)  # readiness did not wait for the engine
        assert all(turn.result().status_code == 200 for turn in turns)
