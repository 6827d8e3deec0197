"""Sessions in this process's memory (the default): idle sessions expire, the number of sessions is
capped (least recently used evicted first), and each session has a lock for its turns."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from serving.api.sessions.base import SessionEntry, new_session_id


@dataclass
class _MemoryEntry(SessionEntry):
    last_used: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemorySessionStore:
    shared = False

    def __init__(self, ttl: float, max_sessions: int, clock: Callable[[], float] = time.monotonic):
        self.ttl, self.max_sessions, self._clock = ttl, max_sessions, clock
        # Insertion order is kept as "least recently used first": every touch moves the entry to
        # the end, so expired entries and the eviction victim are always at the front.
        self._entries: OrderedDict[str, _MemoryEntry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._drop_expired(self._clock())
            return len(self._entries)

    def add(self, session: Any) -> str:
        now = self._clock()
        entry = _MemoryEntry(session=session, last_used=now)
        with self._lock:
            self._drop_expired(now)
            while len(self._entries) >= self.max_sessions:
                self._entries.popitem(last=False)
            session_id = new_session_id()
            while session_id in self._entries:  # never in practice, but cheap to rule out
                session_id = new_session_id()
            self._entries[session_id] = entry
        return session_id

    @contextmanager
    def checkout(self, session_id: str) -> Iterator[SessionEntry | None]:
        entry = self._touch(session_id, drop_expired=True)
        if entry is None:
            yield None
            return
        with entry.lock:
            with self._lock:  # forgotten or evicted while this request waited for the one before it?
                alive = self._entries.get(session_id) is entry
            if not alive:
                yield None
                return
            try:
                yield entry
            finally:
                self._touch(session_id)  # after a long engine call the idle time starts now

    def delete(self, session_id: str) -> bool:
        with self._lock:
            self._drop_expired(self._clock())
            return self._entries.pop(session_id, None) is not None

    def _touch(self, session_id: str, drop_expired: bool = False) -> _MemoryEntry | None:
        """The live entry, marked used, or None."""
        now = self._clock()
        with self._lock:
            if drop_expired:
                self._drop_expired(now)
            entry = self._entries.get(session_id)
            if entry is not None:
                entry.last_used = now
                self._entries.move_to_end(session_id)
            return entry

    def _drop_expired(self, now: float) -> None:
        while self._entries:
            oldest_id, oldest = next(iter(self._entries.items()))
            if now - oldest.last_used <= self.ttl:
                return
            del self._entries[oldest_id]
