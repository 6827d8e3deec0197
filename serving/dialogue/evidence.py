"""Evidence selection and the applicability check (docs/method.md §A online steps 7-8)."""

from __future__ import annotations

from typing import Sequence

from advisor.index import fields
from advisor.retrieval.results import RetrievedChunk
from serving.dialogue.profiling import limited_in
from serving.dialogue.session import Session

EVIDENCE_CHUNKS = 3  # what the answer is written from and cited


def select_evidence(chunks: Sequence[RetrievedChunk], n: int = EVIDENCE_CHUNKS) -> list[RetrievedChunk]:
    """The best chunks, one per document section: a second chunk of the same document and heading
    adds little and would crowd out another source."""
    chosen: list[RetrievedChunk] = []
    seen: set[tuple] = set()
    for chunk in chunks:
        key = (chunk.doc_url, tuple(chunk.heading_path[:2]))
        if key in seen:
            continue
        seen.add(key)
        chosen.append(chunk)
        if len(chosen) == n:
            break
    return chosen


def follow_up_attributes(evidence: Sequence[RetrievedChunk], session: Session, schema: fields.Schema) -> list[str]:
    """What to ask in the one follow-up before answering ([] when the evidence is settled)."""
    return evidence_attributes(evidence, schema, lambda name: not session.settled(name))


def evidence_attributes(evidence: Sequence[RetrievedChunk], schema: fields.Schema, wanted=lambda name: True) -> list[str]:
    """The attributes `wanted` accepts that the evidence depends on: every one the top chunk is
    limited on (it is what the answer leads with), and any the majority of the selected chunks
    are limited on; in the schema's order (the order questions are asked)."""
    if not evidence:
        return []
    found = limited_in(evidence[:1], schema, wanted)
    found += [name for name in limited_in(evidence, schema, wanted) if name not in found
              and sum(chunk.applies_to.get(name) is not None for chunk in evidence) * 2 > len(evidence)]
    return [name for name in schema if name in found]
