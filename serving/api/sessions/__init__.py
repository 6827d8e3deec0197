"""Where conversations live between turns: one interface, two stores.

- `MemorySessionStore` (the default): this process only. Idle sessions expire, the number of
  sessions is capped (least recently used evicted first).
- `RedisSessionStore` (redis_store.py): shared by every worker and replica of the
  API, each session a JSON record that Redis expires after the same idle time.

A request uses a session through `checkout`, which holds the session's lock for the whole turn, so
two requests on one session run one after the other (the engine is only safe across *different*
sessions); with Redis the lock is taken in Redis, before the session is loaded, across processes.

Nothing here is ever written to disk or logged: a session holds a student's profile.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from serving.api.sessions.base import (
    MEMORY,
    REDIS_SCHEMES,
    SESSION_ID,
    SessionEntry,
    SessionStore,
    SessionStoreError,
    SessionStoreUnavailable,
    new_session_id,
)
from serving.api.sessions.memory import MemorySessionStore


def open_session_store(setting: str, ttl: float, max_sessions: int,
                       clock: Callable[[], float] = time.monotonic) -> SessionStore:
    """The store `setting` names: "memory", or a Redis URL (redis://host:port/db, rediss://,
    unix://). SessionStoreError when the Redis server is unreachable or persists to disk."""
    if setting == MEMORY:
        return MemorySessionStore(ttl, max_sessions, clock)
    if setting.startswith(REDIS_SCHEMES):
        from serving.api.sessions.redis_store import RedisSessionStore

        return RedisSessionStore.connect(setting, ttl)
    raise SessionStoreError(f"session store {setting!r}: expected 'memory' or a redis://host:port/db URL")


__all__ = ["MEMORY", "SESSION_ID", "MemorySessionStore", "SessionEntry", "SessionStore", "SessionStoreError",
           "SessionStoreUnavailable", "new_session_id", "open_session_store"]
