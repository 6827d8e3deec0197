"""The on-disk layout of index builds, in one place: every file and folder name of a build and of
the warehouse's builds folder, build ids, atomic publication through the LATEST pointer, and pruning.
The writers (build.py, serving_artifacts.py) and the readers (store.py, the dialogue, the evaluation)
all take the names from here, and the benchmark's writer and readers take its path (benchmark_path).

    <warehouse>/benchmarks/qa.jsonl   # benchmark_path(): the synthesized benchmark of the latest build
    <warehouse>/builds/           # BUILDS_DIR
      LATEST                      # one line: the published build id (replaced atomically)
      20260315T101502123456Z-1a2b3c4d/   # a finished build (content below)
      20260315T101502123456Z-1a2b3c4d.tmp-4242/   # a build being written by process 4242

    <build_id>/
      manifest.json               # MANIFEST: id, time, counts, schema, lineage, format version
      chunks.parquet              # CHUNKS_FILE: the chunk store
      embedder/                   # EMBEDDER_DIR: the embedder saved itself here (loaded for queries)
      static/ dynamic/            # COLLECTIONS, each: tantivy/ vectors.npy vectors.usearch
      augmented/static/ augmented/dynamic/   # AUGMENTED_DIR: URAG-D, the same chunks by augmented text
      faq/ intent/ serving.json   # FAQ_DIR, INTENT_DIR, SERVING_FILE: the dialogue's artifacts
      sources.parquet             # SOURCES_FILE: a readable snapshot of every document the chunks come from

A reader resolves LATEST once and then reads only that folder, which is never modified after its
rename; so it never sees a half-written build, and a build that fails leaves nothing published.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

BUILDS_DIR = "builds"  # the warehouse's folder of index builds
LATEST = "LATEST"
# The qa_benchmark asset writes it (eval/benchmark/synthesis.py); the evaluation asset and the
# benchmark scripts read it (docs/contracts.md §3 format).
BENCHMARK_DIR = "benchmarks"
BENCHMARK_FILE = "qa.jsonl"

# Inside one build.
FORMAT_VERSION = 2  # 2: tokens in the chunk store, optional augmented/ collections
READABLE_FORMATS = (1, 2)
MANIFEST = "manifest.json"
CHUNKS_FILE = "chunks.parquet"
EMBEDDER_DIR = "embedder"
COLLECTIONS = ("static", "dynamic")  # one folder each
TANTIVY_DIR = "tantivy"  # in a collection's folder
VECTORS_NPY = "vectors.npy"  # in a collection's folder
VECTORS_USEARCH = "vectors.usearch"  # in a collection's folder; absent when the collection is empty
AUGMENTED_DIR = "augmented"
FAQ_DIR = "faq"  # the URAG tier-1 FAQ store (advisor/faq/store.py)
INTENT_DIR = "intent"  # the intent classifier
SERVING_FILE = "serving.json"  # the calibrated FAQ threshold and how it was chosen
# One row per source document (its cleaned text, URL, fetch date) with the spans of its chunks: what a
# citation opens when the original page is gone. Optional like augmented/: builds written before it
# have none and still load (so FORMAT_VERSION is unchanged); advisor/index/sources.py reads it.
SOURCES_FILE = "sources.parquet"

# Time first (UTC, microseconds) so that name order is build order; the hash tells contents apart.
BUILD_ID = re.compile(r"^\d{8}T\d{12}Z-[0-9a-f]{8}$")
_TMP = re.compile(r"^(?P<id>.+)\.tmp-(?P<pid>\d+)$")


def new_build_id(content_hash: str, now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    return f"{now.astimezone(timezone.utc):%Y%m%dT%H%M%S%f}Z-{content_hash[:8]}"


def builds_dir(warehouse: Path) -> Path:
    """The builds folder of a warehouse."""
    return Path(warehouse) / BUILDS_DIR


def benchmark_path(warehouse: Path) -> Path:
    """The warehouse's synthesized benchmark (JSONL), beside its builds folder."""
    return Path(warehouse) / BENCHMARK_DIR / BENCHMARK_FILE


def read_manifest(build_dir: Path) -> dict:
    return json.loads((Path(build_dir) / MANIFEST).read_text(encoding="utf-8"))


def tmp_dir(builds_root: Path, build_id: str) -> Path:
    return Path(builds_root) / f"{build_id}.tmp-{os.getpid()}"


def latest_build_id(builds_root: Path) -> str | None:
    try:
        build_id = (Path(builds_root) / LATEST).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return build_id or None


def latest_build_dir(builds_root: Path) -> Path | None:
    """The published build's folder, or None when nothing was published yet."""
    build_id = latest_build_id(builds_root)
    if build_id is None:
        return None
    directory = Path(builds_root) / build_id
    return directory if directory.is_dir() else None


def publish(builds_root: Path, tmp: Path, build_id: str) -> Path:
    """Rename the finished folder into place, then point LATEST at it (write + os.replace, both
    atomic on one filesystem): LATEST always names a complete build."""
    final = Path(builds_root) / build_id
    os.replace(tmp, final)
    _fsync_dir(builds_root)
    pointer_tmp = Path(builds_root) / f"{LATEST}.tmp-{os.getpid()}"
    with open(pointer_tmp, "w", encoding="utf-8") as handle:
        handle.write(build_id + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(pointer_tmp, Path(builds_root) / LATEST)
    _fsync_dir(builds_root)
    return final


def list_builds(builds_root: Path) -> list[str]:
    """Finished build ids, oldest first."""
    root = Path(builds_root)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and BUILD_ID.match(p.name))


def prune(builds_root: Path, keep: int) -> list[str]:
    """Delete all but the `keep` newest builds, never the published one, and leftovers of
    crashed writers (tmp folders whose process is gone). Returns the deleted build ids."""
    builds = list_builds(builds_root)
    protected = {latest_build_id(builds_root)} | set(builds[-max(keep, 1):])
    deleted = [b for b in builds if b not in protected]
    for build_id in deleted:
        shutil.rmtree(Path(builds_root) / build_id, ignore_errors=True)
    for path in Path(builds_root).iterdir():
        match = _TMP.match(path.name)
        if match and path.is_dir() and not _pid_alive(int(match["pid"])):
            shutil.rmtree(path, ignore_errors=True)
    return deleted


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not available on every platform, and best effort is enough.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def link_tree(source: Path, target: Path) -> None:
    """`source` copied to `target` as hard links (a published build is never modified, so a later
    build may share its files for free); plain copies where links are impossible (another file system)."""

    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=link_or_copy)
