"""Requests per client per minute, as a token bucket per client: a burst of up to `per_minute`
requests is allowed, then one more every 60/per_minute seconds."""

from __future__ import annotations

import hashlib
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


# The same token bucket, kept in Redis so every worker and replica draws from one bucket per
# client (per process, N workers would allow N times the limit). Redis's clock, not each
# machine's, so replicas agree. The client address is hashed: the key says which bucket, not who.
_TAKE_TOKEN = """
local capacity, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = math.min(capacity, (tonumber(state[1]) or capacity) + (now - (tonumber(state[2]) or now)) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) + 1)
return tostring(wait)
"""


class SharedRateLimiter(RateLimiter):
    """RateLimiter over a Redis client (the session store's). When Redis fails, the request is let
    through: the limit protects the engine, and a dialogue turn answers 503 on its own."""

    PREFIX = "advisor:r:"

    def __init__(self, per_minute: int, client):
        import redis  # only with a Redis session store: not a dependency of the per-process limit

        super().__init__(per_minute)
        self._take = client.register_script(_TAKE_TOKEN) if per_minute > 0 else None
        self._redis_error = redis.RedisError

    def check(self, client: str) -> float | None:
        if self._take is None:
            return None
        key = self.PREFIX + hashlib.sha256(client.encode("utf-8", "replace")).hexdigest()[:32]
        try:
            wait = float(self._take(keys=[key], args=[self.per_minute, self._refill_per_second]))
        except self._redis_error:
            return None
        return wait if wait > 0 else None
