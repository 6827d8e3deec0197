"""Requests per client per minute, as a token bucket per client: a burst of up to `per_minute`
requests is allowed, then one more every 60/per_minute seconds."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class RateLimiter:
    # Clients whose bucket has refilled completely carry no state worth keeping; the table is
    # pruned of them when it grows past this many entries, so memory stays bounded.
    PRUNE_ABOVE = 10_000

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute, self._clock = per_minute, clock
        self._refill_per_second = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at time)
        self._lock = threading.Lock()

    def check(self, client: str) -> float | None:
        """Takes one token for `client`: None when allowed, else the seconds to wait."""
        if self.per_minute <= 0:
            return None
        now = self._clock()
        with self._lock:
            tokens, at = self._buckets.get(client, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - at) * self._refill_per_second)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                if len(self._buckets) > self.PRUNE_ABOVE:
                    self._prune(now)
                return None
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / self._refill_per_second

    @staticmethod
    def retry_after_header(wait_seconds: float) -> str:
        return str(max(1, math.ceil(wait_seconds)))

    def _prune(self, now: float) -> None:
        full_after = 60.0  # an empty bucket is full again after a minute
        self._buckets = {c: (t, at) for c, (t, at) in self._buckets.items() if now - at < full_after}
