"""Sessions in Redis, shared by every worker and replica of the API (docs/contracts.md §4).

Each session is one JSON record (`Session.to_dict`) under `<prefix>s:<id>`, expiring after the idle
TTL; every turn refreshes it. A turn takes the session's lock `<prefix>l:<id>` (SET NX PX, a random
token) before it loads the record, and writes the record back only while it still holds that lock,
so two requests on one session run one after the other whichever processes they land on. A
heartbeat keeps the lock while a long turn runs (an LLM answer and its retries); a crashed worker's
lock expires within LOCK_SECONDS.

A profile must never reach a disk: `connect` refuses a server that saves snapshots or an
append-only file, and says so loudly when the server will not tell. Record values are never logged.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from serving.api.sessions.base import (
    SESSION_ID,
    SessionEntry,
    SessionStoreError,
    SessionStoreUnavailable,
    new_session_id,
)
from serving.dialogue.session import Session

log = logging.getLogger("serving.api.sessions")

PREFIX = "advisor:"
LOCK_SECONDS = 10.0  # a lock outlives its holder by at most this; a live holder extends it every third of it
POLL_SECONDS = (0.005, 0.1)  # first and longest wait between two tries for a busy session's lock

# Lua, so that checking the token and acting on it is one step: no other process can take the lock between.
_WRITE_IF_OWNER = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if redis.call('SET', KEYS[1], ARGV[2], 'XX', 'PX', ARGV[3]) then return 1 end
return 0
"""
_EXTEND_IF_OWNER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE_IF_OWNER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def redacted(url: str) -> str:
    """The URL without its user and password, for messages."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


def persistence_problem(config: dict[str, str]) -> str | None:
    """What in a server's CONFIG GET answer writes its data to disk, or None."""
    problems = []
    if (config.get("save") or "").strip():
        problems.append(f"RDB snapshots (save {config['save']!r})")
    if (config.get("appendonly") or "no").strip().lower() == "yes":
        problems.append("an append-only file (appendonly yes)")
    return " and ".join(problems) or None


class RedisSessionStore:
    shared = True

    def __init__(self, client: redis.Redis, ttl: float, prefix: str = PREFIX,
                 dump: Callable[[Any], dict] = Session.to_dict, load: Callable[[dict], Any] = Session.from_dict):
        self.client = client  # public: the rate limit shares it (serving/api/app.py), one connection pool
        self._prefix, self._dump, self._load = prefix, dump, load
        self.ttl_ms = max(1, int(ttl * 1000))
        self.lock_ms = int(LOCK_SECONDS * 1000)
        self._write_if_owner = client.register_script(_WRITE_IF_OWNER)
        self._extend_if_owner = client.register_script(_EXTEND_IF_OWNER)
        self._release_if_owner = client.register_script(_RELEASE_IF_OWNER)

    @classmethod
    def connect(cls, url: str, ttl: float, **options) -> RedisSessionStore:
        """A store on the server at `url`, checked now: SessionStoreError (naming the server, never
        its password) when it cannot be reached or saves its data to disk."""
        where = redacted(url)
        try:
            client = redis.Redis.from_url(
                url, socket_connect_timeout=2, socket_timeout=5, client_name="advisor-sessions",
                # a blip is retried; a server that is down answers 503 within a second, not after ten tries
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2))
        except ValueError as exc:  # its message may quote the URL, password included
            raise SessionStoreError(f"session store {where}: not a valid Redis URL ({type(exc).__name__})") from None
        try:
            client.ping()
        except redis.RedisError as exc:
            raise SessionStoreError(f"session store {where}: cannot reach the Redis server "
                                    f"({type(exc).__name__}); start it, or serve one process with the "
                                    "memory store") from None
        try:
            config = client.config_get("save") | client.config_get("appendonly")
        except redis.RedisError as exc:  # a provider that disables CONFIG
            log.warning("SESSION STORE %s: the server does not say whether it saves to disk (CONFIG GET: %s). "
                        "Student profiles are kept there: make sure it has no RDB snapshots and no "
                        "append-only file (save \"\", appendonly no).", where, type(exc).__name__)
        else:
            problem = persistence_problem(config)
            if problem:
                raise SessionStoreError(
                    f"session store {where}: the Redis server writes its data to disk ({problem}), and "
                    "sessions hold student profiles, which must not be persisted. Run it with "
                    "`--save \"\" --appendonly no` (or CONFIG SET save \"\" and CONFIG SET appendonly no), "
                    "or use a Redis of its own for sessions.")
        return cls(client, ttl, **options)

    def add(self, session: Any) -> str:
        record = self._encode(session)
        while True:
            session_id = new_session_id()
            if self._call(self.client.set, self._key(session_id), record, nx=True, px=self.ttl_ms):
                return session_id

    @contextmanager
    def checkout(self, session_id: str) -> Iterator[SessionEntry | None]:
        if not SESSION_ID.fullmatch(session_id):  # not an id this API gave out: unknown, without a look-up
            yield None
            return
        key, lock = self._key(session_id), self._lock_key(session_id)
        token = self._acquire(lock)
        heartbeat = _Heartbeat(lambda: self._extend_if_owner(keys=[lock], args=[token, self.lock_ms]),
                               self.lock_ms / 3000)
        try:
            record = self._call(self.client.getex, key, px=self.ttl_ms)  # used now: the idle time starts again
            session = self._decode(record) if record is not None else None
            if session is None:
                yield None
                return
            entry = SessionEntry(session)
            try:
                yield entry
            finally:
                # also after an engine failure: the memory store keeps what the turn changed, and so does this
                written = self._call(self._write_if_owner, keys=[key, lock],
                                     args=[token, self._encode(entry.session), self.ttl_ms])
                if not written:  # forgotten during the turn (DELETE), expired, or the lock was lost
                    log.info("session not written back: forgotten, expired or its lock lost during the turn")
        finally:
            heartbeat.stop()
            with contextlib.suppress(redis.RedisError):  # else the lock expires by itself
                self._release_if_owner(keys=[lock], args=[token])

    def delete(self, session_id: str) -> bool:
        if not SESSION_ID.fullmatch(session_id):
            return False
        return bool(self._call(self.client.delete, self._key(session_id)))

    def _acquire(self, lock: str) -> str:
        token = new_session_id()
        wait = POLL_SECONDS[0]
        while not self._call(self.client.set, lock, token, nx=True, px=self.lock_ms):
            time.sleep(wait)  # another request on this session is running: it goes first
            wait = min(wait * 2, POLL_SECONDS[1])
        return token

    def _call(self, method: Callable, *args, **kwargs) -> Any:
        try:
            return method(*args, **kwargs)
        except redis.RedisError as exc:
            log.error("session store unavailable: %s", type(exc).__name__)
            raise SessionStoreUnavailable() from None

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}s:{session_id}"

    def _lock_key(self, session_id: str) -> str:
        return f"{self._prefix}l:{session_id}"

    def _encode(self, session: Any) -> bytes:
        return json.dumps(self._dump(session), ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def _decode(self, record: bytes) -> Any | None:
        try:
            return self._load(json.loads(record))
        except ValueError as exc:  # another release's record, or not ours: an unknown session
            log.warning("unreadable session record: %s", type(exc).__name__)
            return None


class _Heartbeat:
    """Calls `extend` every `interval` seconds in a thread until stopped (or until it fails)."""

    def __init__(self, extend: Callable[[], Any], interval: float):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(extend, interval), name="session-lock", daemon=True)
        self._thread.start()

    def _run(self, extend: Callable[[], Any], interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                if not extend():
                    return
            except redis.RedisError:
                return

    def stop(self) -> None:
        self._stop.set()
