"""Ground truth for the evaluation: the institution's truth file (`pipeline.annotation_truth` in
its config; JSON lines, one record per source document: its true applicability per profile
attribute, and `sections` for parts that apply to a narrower group; the demo colleges write one).

Only the evaluation and the annotation accuracy read it. Nothing the pipeline builds or serves
does: the benchmark's gold sources and the `profill-true-labels` system come from here, so an
annotation error shows up as a miss of the system that used the annotations.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from advisor.annotation.accuracy import base_url_of, load_manifest, truth_for
from advisor.config import InstitutionConfig
from advisor.index import fields

Applicability = dict[str, Any]  # attribute -> None | [values] | [min, max], canonical


def truth_file(config: InstitutionConfig, warehouse: Path) -> Path | None:
    """The config's truth file (relative paths are under the warehouse), or None when it names
    none. A named file that does not exist is an error, not a silent fallback to annotations."""
    name = config.pipeline.annotation_truth
    if name is None:
        return None
    path = Path(name) if Path(name).is_absolute() else Path(warehouse) / name
    if not path.is_file():
        raise FileNotFoundError(f"the config's truth file {path} does not exist (pipeline.annotation_truth)")
    return path


@dataclass(frozen=True)
class Truth:
    """The truth file read for one institution: true applicability per document and per chunk."""

    path: Path
    digest: str  # sha256 of the file (first 16 hex): which truth a benchmark was made from
    records: dict[str, dict]  # URL path (FAQ entries path#anchor) -> record
    base_url: str  # the site root the paths are relative to
    schema: fields.Schema

    @classmethod
    def load(cls, path: Path, config: InstitutionConfig) -> "Truth":
        path = Path(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return cls(path, digest, load_manifest(path), base_url_of(config.sources[0].seeds[0]), dict(config.profile))

    def copies(self) -> dict[str, frozenset[str]]:
        """FAQ entry path -> the paths of every copy of that entry (the site's own duplicates on
        other pages, `duplicate_of`), for the entries that have copies: an answer from any copy is
        an answer from the entry, whichever copy the pipeline kept."""
        groups: dict[str, set[str]] = {}
        for path, record in self.records.items():
            if record.get("duplicate_of"):
                groups.setdefault(record["duplicate_of"], {record["duplicate_of"]}).add(path)
        return {path: frozenset(group) for group in groups.values() for path in group}

    def of_chunk(self, doc_url: str, heading_path: Sequence[str] = ()) -> Applicability | None:
        """Whom a chunk truly applies to (its section's record, else its document's), canonical;
        None when its document is not in the truth file."""
        found = truth_for(doc_url, tuple(heading_path), self.records, self.base_url)
        return None if found is None else fields.canonical_applies_to(found, self.schema)

    def labels(self, chunks: Sequence[Mapping[str, Any]]) -> dict[str, Applicability]:
        """chunk_id -> true applicability for chunks with `chunk_id`, `doc_url`, `heading_path`
        (those whose document the truth file lacks are left out)."""
        labels = {}
        for chunk in chunks:
            found = self.of_chunk(chunk["doc_url"], chunk.get("heading_path") or ())
            if found is not None:
                labels[chunk["chunk_id"]] = found
        return labels


def true_labels(config: InstitutionConfig, warehouse: Path, build) -> dict[str, Applicability] | None:
    """chunk id -> true applicability for every chunk of an index build the truth file covers
    (what `profill-true-labels` searches with); None when the config names no truth file."""
    path = truth_file(config, warehouse)
    return Truth.load(path, config).labels(chunk_rows(build)) if path is not None else None


def chunk_rows(build) -> list[dict]:
    """Every chunk of the build as a dict (id, URL, title, text, kind, headings, collection, its
    annotation as `applies_to`)."""
    rows = []
    for name, collection in build.collections.items():
        columns = collection.chunks.select("chunk_id", "doc_url", "title", "text", "kind", "heading_path").to_dict(as_series=False)
        for row, chunk_id in enumerate(columns["chunk_id"]):
            rows.append({"chunk_id": chunk_id, "doc_url": columns["doc_url"][row], "title": columns["title"][row] or "",
                         "text": columns["text"][row], "kind": columns["kind"][row], "collection": name,
                         "heading_path": list(columns["heading_path"][row] or ()), "applies_to": collection.applies_to[row]})
    return rows


def applies(applicability: Mapping[str, Any], profile: Mapping[str, Any], schema: fields.Schema) -> bool:
    """Whether a source applies to a student: every attribute the source limits admits the
    student's value (an attribute the student's profile lacks limits nothing)."""
    for name, value in profile.items():
        limit = applicability.get(name)
        if limit is None or name not in schema:
            continue
        if fields.is_categorical(schema[name]):
            if value not in limit:
                return False
        elif not limit[0] <= value <= limit[1]:
            return False
    return True


def limited(applicability: Mapping[str, Any]) -> bool:
    """Whether a source applies to some students only."""
    return any(v is not None for v in applicability.values())
