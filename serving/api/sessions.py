"""Conversations in memory only: idle sessions expire, the number of sessions is capped (least
recently used evicted first), and each session has a lock so that two requests on one session
run one after the other (the engine is only safe across *different* sessions).

Nothing here is ever written to disk or logged: a session holds a student's profile.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SessionEntry:
    session: Any  # the engine's opaque Session
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)


class SessionStore:
    def __init__(self, ttl: float, max_sessions: int, clock: Callable[[], float] = time.monotonic):
        self.ttl, self.max_sessions, self._clock = ttl, max_sessions, clock
        # Insertion order is kept as "least recently used first": every touch moves the entry to
        # the end, so expired entries and the eviction victim are always at the front.
        self._entries: OrderedDict[str, SessionEntry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._drop_expired(self._clock())
            return len(self._entries)

    def add(self, session: Any) -> tuple[str, SessionEntry]:
        now = self._clock()
        entry = SessionEntry(session=session, last_used=now)
        with self._lock:
            self._drop_expired(now)
            while len(self._entries) >= self.max_sessions:
                self._entries.popitem(last=False)
            session_id = secrets.token_urlsafe(24)
            while session_id in self._entries:  # 192 random bits: never in practice, but cheap to rule out
                session_id = secrets.token_urlsafe(24)
            self._entries[session_id] = entry
        return session_id, entry

    def get(self, session_id: str) -> SessionEntry | None:
        """The live entry (and marks it used), or None when unknown, expired or evicted."""
        now = self._clock()
        with self._lock:
            self._drop_expired(now)
            entry = self._entries.get(session_id)
            if entry is None:
                return None
            entry.last_used = now
            self._entries.move_to_end(session_id)
            return entry

    def touch(self, session_id: str) -> None:
        """Marks a session used again, e.g. after a long engine call, so its idle time starts now."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is not None:
                entry.last_used = now
                self._entries.move_to_end(session_id)

    def delete(self, session_id: str) -> bool:
        with self._lock:
            self._drop_expired(self._clock())
            return self._entries.pop(session_id, None) is not None

    def _drop_expired(self, now: float) -> None:
        while self._entries:
            oldest_id, oldest = next(iter(self._entries.items()))
            if now - oldest.last_used <= self.ttl:
                return
            del self._entries[oldest_id]
