"""A delta build: when only the dynamic collection changed (a new or edited notice), the next build
reuses the latest one's static side instead of redoing it (docs/architecture.md, "Notices on
their own cadence").

Reused from the base build, unchanged: the embedder (LSA is not retrained: the new notices are
embedded with the vocabulary and projection the base learned, and BM25 indexes their every word;
e5 is one fixed model whose vectors the lakehouse caches),
the static collection's indexes (hard links, never rewritten), and the dialogue's artifacts (the
FAQ store, its scorer and calibrated threshold, the intent model). Written anew: the dynamic
collection, the chunk store, the source snapshots and the manifest. A full build happens whenever
anything the static side depends on changed (its chunks, annotations, augmentations, the intent
dataset, the profile schema, the tokenizer, the code), when the embedder is not one saved in the
build (LOCAL_EMBEDDERS: the OpenAI embedder caches its vectors, so a full build costs no calls), or when asked
(`full=True`: the nightly refresh, which also recalibrates the FAQ threshold on the new notices).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb

from advisor.config import InstitutionConfig
from advisor.faq.store import FAQ_KIND
from advisor.index import layout
from advisor.index.embedders import LOCAL_EMBEDDERS
from advisor.index.store import latest_build_dir
from advisor.lakehouse import scalar

STATIC = "static"
# Chunks the static side is made of: the static collection, and FAQ entries wherever configured
# (the FAQ store is built from them: a changed entry of an FAQ source in the dynamic collection
# makes the next build a full one).
_STATIC_SIDE = f"(collection = '{STATIC}' OR kind = '{FAQ_KIND}')"
SERVING_ARTIFACTS = (layout.FAQ_DIR, layout.INTENT_DIR, layout.SERVING_FILE)


def static_fingerprint(con: duckdb.DuckDBPyConnection, annotator: str, common: str, config: InstitutionConfig) -> str:
    """What the static side of a build depends on. `common`: the parts every build shares (code,
    tokenizer, embedder choice, intent dataset, enrichment: `stage.common_fingerprint`); of the
    config, what the FAQ store and its calibration read (the profile schema and its aliases, the
    language), not where the site is served."""
    digest = hashlib.sha256()
    dumped = config.model_dump(mode="json")
    for part in (
        common,
        json.dumps({name: dumped[name] for name in ("institution", "language", "profile")}, sort_keys=True,
                   ensure_ascii=False),
        scalar(con, f"SELECT string_agg(chunk_id || text_hash || indexed_text, '|' ORDER BY chunk_id) FROM chunks "
                    f"WHERE {_STATIC_SIDE}"),
        scalar(con, f"""SELECT string_agg(concat_ws(',', chunk_id, attribute, annotator_version, value_set::VARCHAR,
                                           range_min, range_max), '|' ORDER BY chunk_id, attribute)
                        FROM chunk_annotations WHERE annotator = ?
                        AND chunk_id IN (SELECT chunk_id FROM chunks WHERE {_STATIC_SIDE})""", [annotator]),
        scalar(con, f"""SELECT string_agg(chunk_id || method || md5(augmented_text), '|' ORDER BY chunk_id, method)
                        FROM chunk_augmentations WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE {_STATIC_SIDE})"""),
    ):
        digest.update(str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def delta_base(builds_root: Path, fingerprint: str) -> Path | None:
    """The latest build, when its static side is the one `fingerprint` describes and it can lend it
    (an embedder saved in it, a static collection folder)."""
    directory = latest_build_dir(builds_root)
    if directory is None:
        return None
    manifest = layout.read_manifest(directory)
    if manifest.get("lineage", {}).get("static_fingerprint") != fingerprint:
        return None
    if manifest.get("embedder", {}).get("name") not in LOCAL_EMBEDDERS or not (directory / STATIC).is_dir():
        return None
    if not all((directory / name).exists() for name in SERVING_ARTIFACTS):
        return None
    return directory


def reuse_serving(base: Path, folder: Path) -> dict:
    """The base build's dialogue artifacts linked into `folder`; returns its manifest's "serving"."""
    for name in SERVING_ARTIFACTS:
        source = base / name
        if source.is_dir():
            layout.link_tree(source, folder / name)
        else:
            shutil.copy2(source, folder / name)
    return layout.read_manifest(base).get("serving", {})
