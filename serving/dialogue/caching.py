"""Per-engine caches of what a message costs to read (Kiwi, the embedder, the FAQ search)."""

from __future__ import annotations

import weakref
from functools import lru_cache


def method_cache(method, maxsize: int):
    """An LRU cache of a bound method that does not hold its object: `lru_cache(self.method)`
    stored on self is a reference cycle, so a swapped-out Advisor (its build's matrices, ~48 MB
    on the demo) stayed in memory until a full garbage collection."""
    method_ref = weakref.WeakMethod(method)

    @lru_cache(maxsize=maxsize)
    def cached(*args):
        return method_ref()(*args)

    return cached
