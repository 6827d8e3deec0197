"""The session profile against chunk annotations: which values are known, the soft-augmentation
prefix, the conflict rule of hard filtering, and that rule as tantivy queries and numpy masks.

Conflict rule (docs/method.md §A online step 5): a chunk is dropped when a NON-NULL annotation conflicts
with a KNOWN profile value (categorical: the value is not in the chunk's set; range: the number
is outside [min, max]). Null annotations and unknown profile attributes never filter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import tantivy

from advisor.index import fields

Known = dict[str, Any]  # attribute -> canonical value (str for categorical, int for ranges)


@dataclass(frozen=True)
class Conflict:
    attribute: str
    chunk_value: list
    profile_value: Any

    def as_dict(self) -> dict:
        return {"attribute": self.attribute, "chunk_value": self.chunk_value, "profile_value": self.profile_value}


def known_profile(profile: Mapping[str, Any] | None, schema: fields.Schema) -> Known:
    """The known attributes, canonical: None values and attributes outside the schema dropped;
    a categorical alias or button label mapped to its canonical value; range values as int."""
    known: Known = {}
    for name, attribute in schema.items():
        value = (profile or {}).get(name)
        if value is None or value == "":
            continue
        if fields.is_categorical(attribute):
            known[name] = _canonical_value(str(value), attribute)
        else:
            try:
                known[name] = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"profile attribute {name!r} needs a number, got {value!r}") from None
    return known


def _canonical_value(value: str, attribute) -> str:
    if value in attribute.values:
        return value
    for canonical, aliases in attribute.values.items():
        if value in aliases or attribute.labels.get(canonical) == value:
            return canonical
    return value  # unknown value: still known, so it conflicts with every other annotated value


def profile_prefix(known: Known, schema: fields.Schema) -> str:
    """Soft augmentation text, e.g. "컴퓨터학과 2021학번 3학년" (schema order): categorical values
    by their button label, numbers with the unit their question asks in."""
    parts = []
    for name, attribute in schema.items():
        if name not in known:
            continue
        value = known[name]
        if fields.is_categorical(attribute):
            parts.append(attribute.label(value) if value in attribute.values else value)
        else:
            parts.append(attribute.value_text(value))
    return " ".join(parts)


def conflicts(applies_to: Mapping[str, Any], known: Known, schema: fields.Schema) -> list[Conflict]:
    """Why a chunk is not eligible for the profile (empty: eligible). The reference rule; the
    tantivy query and the numpy mask below are the same rule, made fast."""
    found = []
    for name, value in known.items():
        annotated = applies_to.get(name)
        if annotated is None:
            continue
        if fields.is_categorical(schema[name]):
            if value not in annotated:
                found.append(Conflict(name, list(annotated), value))
        elif not annotated[0] <= value <= annotated[1]:
            found.append(Conflict(name, list(annotated), value))
    return found


def tantivy_filter(known: Known, schema: fields.Schema, tschema: tantivy.Schema) -> tantivy.Query | None:
    """The conflict rule as one tantivy query (None: nothing known, nothing to filter)."""
    must = tantivy.Occur.Must
    clauses = []
    for name, value in known.items():
        if fields.is_categorical(schema[name]):
            clauses.append((must, tantivy.Query.term_set_query(tschema, fields.cat_field(name), [fields.ANY, value])))
        else:  # null is stored as (NULL_MIN, NULL_MAX), so "null or covering" is min <= v <= max
            integer = tantivy.FieldType.Integer
            clauses.append((must, tantivy.Query.range_query(tschema, fields.min_field(name), integer, None, value)))
            clauses.append((must, tantivy.Query.range_query(tschema, fields.max_field(name), integer, value, None)))
    return tantivy.Query.boolean_query(clauses) if clauses else None


class EligibilityTable:
    """The conflict rule over one collection as numpy arrays, for exact dense search over the
    eligible rows. Masks are cached per profile (evaluation reuses a few dozen profiles)."""

    def __init__(self, applies_to: list[Mapping[str, Any]], schema: fields.Schema, cache_size: int = 4096) -> None:
        self.schema, self.n = schema, len(applies_to)
        self._categorical: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
        self._ranges: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, attribute in schema.items():
            values = [a.get(name) for a in applies_to]
            if fields.is_categorical(attribute):
                self._categorical[name] = _categorical_masks(values)
            else:
                low = np.array([fields.NULL_MIN if v is None else v[0] for v in values], dtype=np.int64)
                high = np.array([fields.NULL_MAX if v is None else v[1] for v in values], dtype=np.int64)
                self._ranges[name] = (low, high)
        self._cache: dict[tuple, np.ndarray] = {}
        self._cache_size = cache_size

    def mask(self, known: Known) -> np.ndarray | None:
        if not known:
            return None
        key = tuple(sorted(known.items()))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._compute(known)
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            self._cache[key] = cached
        return cached

    def _compute(self, known: Known) -> np.ndarray:
        mask = np.ones(self.n, dtype=bool)
        for name, value in known.items():
            if name in self._categorical:
                null, by_value = self._categorical[name]
                mask &= by_value.get(value, null)
            else:
                low, high = self._ranges[name]
                mask &= (low <= value) & (high >= value)
        return mask


def _categorical_masks(values: list[list | None]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    null = np.array([v is None for v in values], dtype=bool)
    by_value: dict[str, np.ndarray] = {}
    for row, annotated in enumerate(values):
        for item in annotated or ():
            if item not in by_value:  # a value's mask starts as the null rows (null admits everyone)
                by_value[item] = null.copy()
            by_value[item][row] = True
    return null, by_value
