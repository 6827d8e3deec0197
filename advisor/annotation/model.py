"""Profile annotations: for each attribute of the institution's profile schema, whom a chunk
applies to. The format is the ground-truth manifest's `applies_to`, so both compare directly:

    {"department": ["CS"], "admission_year": [2021, 2022], "grade": None, ...}

None: the attribute does not limit who the chunk applies to. A categorical attribute: a sorted
list of canonical values. A year/integer attribute: an inclusive [min, max].
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol, Sequence

from advisor.config import CategoricalAttribute, InstitutionConfig

Applicability = dict[str, list | None]


@dataclass(frozen=True)
class ChunkContext:
    """Everything an annotator may look at for one chunk."""

    chunk_id: str
    text: str  # the raw chunk text
    doc_url: str
    doc_title: str
    kind: str  # page | pdf | notice | faq
    collection: str  # static | dynamic
    breadcrumbs: tuple[str, ...] = ()
    heading_path: tuple[str, ...] = ()
    published_on: date | None = None
    doc_lead: str = ""  # the document's opening text: its general context
    alias_urls: tuple[str, ...] = ()  # consolidated FAQ duplicates: the same entry on other pages
    alias_contexts: tuple[tuple[str, ...], ...] = ()  # their pages' breadcrumbs, one tuple each


@dataclass(frozen=True)
class ChunkAnnotation:
    applies_to: Applicability
    needs: tuple[str, ...]  # attributes a reader must know before trusting the chunk


@dataclass(frozen=True)
class AnnotationFailure:
    reason: str  # stable code: llm_invalid_output, llm_http_429, llm_timeout, ...
    detail: str = ""


class Annotator(Protocol):
    name: str  # rules | llm
    version: str  # changes whenever its output for the same input may change

    def annotate(self, chunks: Sequence[ChunkContext]) -> list[ChunkAnnotation | AnnotationFailure]: ...


def normalize(applies_to: Applicability, config: InstitutionConfig) -> Applicability:
    """Canonical form: every schema attribute present; values sorted, deduplicated and inside
    the schema; a range covering the schema's whole span is None (it limits nobody)."""
    result: Applicability = {}
    for name, attribute in config.profile.items():
        value = applies_to.get(name)
        if not value:
            result[name] = None
        elif isinstance(attribute, CategoricalAttribute):
            kept = sorted({v for v in value if v in attribute.values})
            result[name] = None if not kept or len(kept) == len(attribute.values) else kept
        else:
            low, high = max(int(min(value)), attribute.min), min(int(max(value)), attribute.max)
            if low > high or (low, high) == (attribute.min, attribute.max):
                result[name] = None
            else:
                result[name] = [low, high]
    return result


def needs_of(applies_to: Applicability) -> tuple[str, ...]:
    """By the method's definition, the non-null attributes are what a reader must know."""
    return tuple(name for name, value in applies_to.items() if value is not None)


def allowed_values(value: list | None, attribute) -> set:
    """The set of student values an annotation admits (None: all), for set-based comparison."""
    if isinstance(attribute, CategoricalAttribute):
        return set(attribute.values) if value is None else set(value)
    low, high = (attribute.min, attribute.max) if value is None else value
    return set(range(int(low), int(high) + 1))
