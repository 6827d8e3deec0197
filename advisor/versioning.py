"""Hashes for lineage: code versions (a hash of the source files that produce an asset's rows)
and the text hash that keys stored text.

A row records the code version that made it, and Dagster marks an asset stale when it changes,
so a cleaner fix re-cleans everything while an unrelated edit re-cleans nothing.
"""

from __future__ import annotations

import hashlib
import inspect
from types import ModuleType


def code_version(*modules: ModuleType) -> str:
    digest = hashlib.sha256()
    for module in sorted(modules, key=lambda m: m.__name__):
        digest.update(module.__name__.encode())
        digest.update(inspect.getsource(module).encode())
    return digest.hexdigest()[:12]


def text_hash(text: str) -> str:
    """SHA-256 of UTF-8 text: the key of documents' and chunks' text, the token and embedding caches."""
    return hashlib.sha256(text.encode()).hexdigest()
