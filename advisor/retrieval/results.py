"""What a search returns: the chunks in order with everything a citation or an evaluation row
needs, and (debug) why other candidates were filtered out."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import NamedTuple


class Hit(NamedTuple):
    """One row of a collection-local ranking (before the chunk store is consulted). A tuple, not
    a dataclass: a search makes hundreds of them, and frozen dataclasses are slow to create."""

    row: int
    score: float  # bm25 | cosine | RRF, by mode (recency-weighted in the dynamic collection of a search)
    bm25_rank: int | None = None  # 1-based, within the collection's filtered candidate list
    dense_rank: int | None = None
    recency: float = 1.0


@dataclass(frozen=True)
class RetrievedChunk:
    rank: int  # 1-based position in the final list
    chunk_id: str
    score: float
    bm25_rank: int | None
    dense_rank: int | None
    collection: str
    doc_url: str
    title: str | None
    text: str
    applies_to: dict
    kind: str | None = None
    published_on: date | None = None
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    recency: float = 1.0  # the weight applied (dynamic only)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class RetrievalResult:
    query: str
    query_text: str  # what was searched: the soft-augmentation prefix + the query
    mode: str
    time_sensitive: bool
    chunks: list[RetrievedChunk]
    profile: dict = field(default_factory=dict)  # the known, canonical profile that was applied
    debug: dict | None = None  # tokens, quotas, eligible counts, filtered_out [...] (debug=True only)

    @property
    def chunk_ids(self) -> list[str]:
        return [c.chunk_id for c in self.chunks]
