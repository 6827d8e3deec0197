"""The test sets' lock: `eval/testsets/LOCK.json` holds the SHA-256 of every set file, written once
when the sets were committed, before the change they measure. A test run refuses a set whose bytes
differ from its lock (a test set edited after it was locked is no longer the set it was), and a set
file the lock does not name."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

LOCK_FILE = "LOCK.json"
TESTSETS = Path(__file__).resolve().parents[1] / "testsets"
DEVSETS = Path(__file__).resolve().parents[1] / "devsets"


class LockError(RuntimeError):
    """A test set does not match its lock."""


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def set_files(folder: Path) -> dict[str, Path]:
    """The set files of a folder by set name (`demo.jsonl` -> "demo")."""
    return {path.stem: path for path in sorted(Path(folder).glob("*.jsonl"))}


def write_lock(folder: Path = TESTSETS) -> dict:
    lock = {"files": {path.name: file_hash(path) for path in set_files(folder).values()}}
    (Path(folder) / LOCK_FILE).write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return lock


def checked(folder: Path = TESTSETS) -> dict[str, str]:
    """{set name: its hash}, after checking every set file against the lock."""
    path = Path(folder) / LOCK_FILE
    if not path.is_file():
        raise LockError(f"{path}: no lock file; the test sets are not locked")
    locked = json.loads(path.read_text(encoding="utf-8"))["files"]
    found = {p.name: file_hash(p) for p in set_files(folder).values()}
    problems = [f"{name}: changed since it was locked" for name in found if name in locked and found[name] != locked[name]]
    problems += [f"{name}: not in the lock" for name in found if name not in locked]
    problems += [f"{name}: locked but missing" for name in locked if name not in found]
    if problems:
        raise LockError("; ".join(problems))
    return {Path(name).stem: digest for name, digest in found.items()}
