"""Write a build to disk touching only what changed.

The loopback server derives Last-Modified from file mtimes, so an unchanged file must keep its
mtime (a no-change re-crawl then gets 304s); files the build no longer produces are removed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SyncResult:
    written: int
    unchanged: int
    deleted: int


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` unless it already holds exactly these bytes; True if written."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # atomic: the server never serves a half-written page
    return True


def sync_tree(root: Path, files: dict[str, bytes]) -> SyncResult:
    """Make ``root`` hold exactly ``files`` (relative path -> bytes)."""
    root.mkdir(parents=True, exist_ok=True)
    written = sum(write_if_changed(root / rel, data) for rel, data in sorted(files.items()))
    wanted = {root / rel for rel in files}
    deleted = 0
    for path in sorted(root.rglob("*"), reverse=True):  # children before their directories
        if path.is_file() and path not in wanted:
            path.unlink()
            deleted += 1
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return SyncResult(written=written, unchanged=len(files) - written, deleted=deleted)
