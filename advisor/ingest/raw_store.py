"""Content-addressed storage of fetched bytes under the warehouse.

A body is stored once under the SHA-256 of its bytes, whatever URL or run fetched it, so re-runs
and duplicate pages cost no space and a stored body is never overwritten or lost.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class RawStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def relative_path(self, digest: str) -> str:
        return f"raw/{digest[:2]}/{digest}"

    def path(self, digest: str) -> Path:
        return self.root / self.relative_path(digest)

    def put(self, data: bytes) -> str:
        """Store `data`; returns its digest. Atomic: a reader never sees a partial file."""
        digest = content_hash(data)
        target = self.path(digest)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        return digest

    def get(self, digest: str) -> bytes:
        return self.path(digest).read_bytes()

    def has(self, digest: str) -> bool:
        return self.path(digest).exists()
