"""Read a build's source snapshots (layout.SOURCES_FILE, written by writer.py): for a chunk id, the
document it was cut from as the crawl saved it (cleaned text, original URL, fetch date) and the
chunk's span in that text. Serving-side: polars only, no lakehouse, no build-time code.

Builds written before snapshots existed have no file: `load_sources` then returns None, and the
caller says so (the API answers 404 `no_snapshots`). `load_source_dates` reads only the dates
(posted, updated, fetched) of each chunk's document, what every citation shows, without the texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import polars as pl

from advisor.index.layout import SOURCES_FILE


@dataclass(frozen=True)
class SourceSnapshot:
    chunk_id: str
    doc_url: str
    title: str | None
    text: str  # the document's cleaned text (headings, list items and table rows kept)
    source: str | None
    kind: str | None
    fetched_at: datetime | None
    published_on: date | None  # when it was posted, as the page states it (a notice's date)
    chunk_start: int | None  # the chunk's body in `text`; None when it could not be located
    chunk_end: int | None
    updated_on: date | None = None  # when it was last updated, as the page states it

    def as_api(self, build_id: str) -> dict:
        passage = self.text[self.chunk_start:self.chunk_end] if self.chunk_start is not None else None
        return {
            "chunk_id": self.chunk_id, "build_id": build_id, "url": self.doc_url, "title": self.title,
            "source": self.source, "kind": self.kind,
            "fetched_at": self.fetched_at.isoformat() if self.fetched_at else None,
            "published_on": self.published_on.isoformat() if self.published_on else None,
            "updated_on": self.updated_on.isoformat() if self.updated_on else None,
            "text": self.text,
            "chunk": {"start": self.chunk_start, "end": self.chunk_end, "text": passage},
        }


class SourceSnapshots:
    """chunk id -> its document's snapshot. Documents are held once; chunks point at them."""

    def __init__(self, documents: pl.DataFrame) -> None:
        self._documents = documents.drop("chunk_ids", "chunk_starts", "chunk_ends").to_dicts()
        self._chunks: dict[str, tuple[int, int | None, int | None]] = {}
        for position, (ids, starts, ends) in enumerate(zip(documents["chunk_ids"].to_list(),
                                                           documents["chunk_starts"].to_list(),
                                                           documents["chunk_ends"].to_list())):
            for chunk_id, start, end in zip(ids or [], starts or [], ends or []):
                self._chunks[chunk_id] = (position, start, end)

    def __len__(self) -> int:
        return len(self._documents)

    def __contains__(self, chunk_id: str) -> bool:
        return chunk_id in self._chunks

    def get(self, chunk_id: str) -> SourceSnapshot | None:
        found = self._chunks.get(chunk_id)
        if found is None:
            return None
        position, start, end = found
        doc = self._documents[position]
        return SourceSnapshot(chunk_id=chunk_id, doc_url=doc["doc_url"], title=doc.get("title"), text=doc["text"] or "",
                              source=doc.get("source"), kind=doc.get("kind"), fetched_at=doc.get("fetched_at"),
                              published_on=doc.get("published_on"), chunk_start=start, chunk_end=end,
                              updated_on=doc.get("updated_on"))  # None in builds made before it existed


def load_sources(build_dir: Path) -> SourceSnapshots | None:
    """The build's snapshots, or None for a build written without them."""
    path = Path(build_dir) / SOURCES_FILE
    if not path.is_file():
        return None
    return SourceSnapshots(pl.read_parquet(path))


@dataclass(frozen=True)
class SourceDates:
    """A cited document's dates: as the page states them (posted, updated) and when it was fetched."""

    published_on: date | None = None
    updated_on: date | None = None
    fetched_at: datetime | None = None

    def as_api(self) -> dict:
        return {"published_on": self.published_on.isoformat() if self.published_on else None,
                "updated_on": self.updated_on.isoformat() if self.updated_on else None,
                "fetched_at": self.fetched_at.isoformat() if self.fetched_at else None}


UNKNOWN_DATES = SourceDates()
_DATE_COLUMNS = ("fetched_at", "published_on", "updated_on")


def load_source_dates(build_dir: Path) -> dict[str, SourceDates]:
    """chunk id -> its document's dates ({} for a build without snapshots; a build made before
    `updated_on` existed gives it as None). One instance per document, shared by its chunks."""
    path = Path(build_dir) / SOURCES_FILE
    if not path.is_file():
        return {}
    present = set(pl.read_parquet_schema(path))
    frame = pl.read_parquet(path, columns=["chunk_ids", *(c for c in _DATE_COLUMNS if c in present)])
    result: dict[str, SourceDates] = {}
    for row in frame.to_dicts():
        dates = SourceDates(row.get("published_on"), row.get("updated_on"), row.get("fetched_at"))
        for chunk_id in row["chunk_ids"] or []:
            result[chunk_id] = dates
    return result
