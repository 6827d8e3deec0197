"""Code versions for lineage: a hash of the source files that produce an asset's rows.

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
