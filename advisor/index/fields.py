"""How a chunk's profile annotation is encoded in an index build, shared by the writer (build.py)
and every reader (store.py, advisor/retrieval), so both sides agree on field names and sentinels;
the tantivy schema and tokenizer are here too, so a serving process never imports the writer.

A chunk is eligible for a profile unless a non-null annotation conflicts with a KNOWN profile
value (docs/method.md §A online step 5). To make that one query per attribute:

- categorical: a multi-valued raw text field holding the chunk's values, or ANY for null; the
  filter is "field in {ANY, profile value}".
- range (year / integer): integer fast fields <attr>_min / <attr>_max; null is stored as the
  sentinels NULL_MIN / NULL_MAX (not the schema's bounds: a profile value outside the schema's
  span, say a 2014 cohort, must still see the chunks that do not limit the cohort); the filter is
  "min <= value AND max >= value".
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import tantivy
from pydantic import TypeAdapter

from advisor.config import Attribute, CategoricalAttribute

ANY = "__any__"  # categorical null: the chunk does not limit this attribute
NULL_MIN = -(2**62)  # range null, lower end (fits tantivy's i64 with room to spare)
NULL_MAX = 2**62

ROW_FIELD = "row"  # the chunk's row within its collection (vectors.npy, chunk store)
BODY_FIELD = "body"  # the pre-tokenized morphemes joined by spaces
BODY_TOKENIZER = "advisor_ws"  # whitespace + lowercase; NOT persisted by tantivy: re-register on open

Schema = dict[str, Attribute]
_SCHEMA_ADAPTER = TypeAdapter(dict[str, Attribute])


def cat_field(attribute: str) -> str:
    return f"p_{attribute}"


def min_field(attribute: str) -> str:
    return f"p_{attribute}_min"


def max_field(attribute: str) -> str:
    return f"p_{attribute}_max"


def is_categorical(attribute: Attribute) -> bool:
    return isinstance(attribute, CategoricalAttribute)


def schema_to_json(schema: Mapping[str, Attribute]) -> dict:
    return {name: attr.model_dump(mode="json") for name, attr in schema.items()}


def schema_from_json(data: Mapping[str, Any]) -> Schema:
    """The schema a build was annotated with, as config objects (dict order = asking order)."""
    return dict(_SCHEMA_ADAPTER.validate_python(dict(data)))


def canonical_applies_to(applies_to: Mapping[str, Any] | None, schema: Mapping[str, Attribute]) -> dict:
    """Every schema attribute present; categorical: sorted list of str or None; range: [min, max]
    ints or None. Attributes outside the schema are dropped (the index has no field for them)."""
    applies_to = applies_to or {}
    result: dict[str, list | None] = {}
    for name, attribute in schema.items():
        value = applies_to.get(name)
        if not value:
            result[name] = None
        elif is_categorical(attribute):
            result[name] = sorted({str(v) for v in value})
        else:
            result[name] = [int(min(value)), int(max(value))]
    return result


def applies_to_json(applies_to: Mapping[str, Any]) -> str:
    return json.dumps(applies_to, ensure_ascii=False, sort_keys=True)


def tantivy_schema(schema: Mapping[str, Attribute]) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field(ROW_FIELD, stored=True, indexed=False, fast=True)
    # Term frequencies are all BM25 needs; positions would only serve phrase queries we never run.
    builder.add_text_field(BODY_FIELD, stored=False, tokenizer_name=BODY_TOKENIZER, index_option="freq")
    for name, attribute in schema.items():
        if is_categorical(attribute):
            builder.add_text_field(cat_field(name), stored=False, tokenizer_name="raw", index_option="basic")
        else:
            builder.add_integer_field(min_field(name), stored=False, indexed=True, fast=True)
            builder.add_integer_field(max_field(name), stored=False, indexed=True, fast=True)
    return builder.build()


def register_tokenizer(index: tantivy.Index) -> None:
    """Whitespace + lowercase over Kiwi morphemes joined by spaces. Tantivy does not persist it:
    call after every Index(...) / Index.open(...)."""
    analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.lowercase()).build()
    index.register_tokenizer(BODY_TOKENIZER, analyzer)
