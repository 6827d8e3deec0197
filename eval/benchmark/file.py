"""Reading a benchmark file (docs/contracts.md §3): JSONL, one instance per line.

    instances = read_benchmark(path)                # the format only
    instances = read_benchmark(path, build.schema)  # and the profiles against an index build's schema

Required: id (unique), query, gold_sources (non-empty list of URLs). Optional: query_type,
category, profile, keywords, reference_answer, intent; other keys are kept (the format may grow).
Blank lines are skipped. Every error is a BenchmarkError whose message starts with
"<file>:<line>:" and names the field (and the instance id when it has one), because a researcher
fixes the file, not the code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from advisor.intents import INTENTS
from serving.dialogue.profiling import canonical_answer

__all__ = ["BenchmarkError", "benchmark_hash", "read_benchmark"]

REQUIRED = ("id", "query", "gold_sources")
OPTIONAL_TEXT = ("query_type", "category", "reference_answer")


class BenchmarkError(ValueError):
    """A benchmark file that cannot be used; `line` is 1-based (None: the file as a whole)."""

    def __init__(self, path: Path | str, line: int | None, message: str):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path, self.line = str(path), line


def benchmark_hash(path: Path | str) -> str:
    """SHA-256 of the file's bytes (first 16 hex): the benchmark's identity in the lakehouse."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _nonempty_text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name!r} must be a non-empty string, got {value!r}")
    return value


def _text_list(value, name: str, allow_empty: bool) -> list[str]:
    if not isinstance(value, list):
        raise ValueError(f"{name!r} must be a list of strings, got {type(value).__name__}")
    if not value and not allow_empty:
        raise ValueError(f"{name!r} is empty: at least one is required")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise ValueError(f"{name}[{i}] must be a non-empty string, got {item!r}")
    return value


def _checked_instance(data: dict) -> dict:
    """The instance with its fields checked; ValueError names the field."""
    missing = [name for name in REQUIRED if name not in data]
    if missing:
        raise ValueError(f"missing required field(s) {missing}")
    if isinstance(data["id"], bool) or not isinstance(data["id"], (str, int)) or not str(data["id"]).strip():
        raise ValueError(f"'id' must be a non-empty string, got {data['id']!r}")
    instance = dict(data)
    instance["id"] = str(data["id"])
    _nonempty_text(data["query"], "query")
    _text_list(data["gold_sources"], "gold_sources", allow_empty=False)
    for name in OPTIONAL_TEXT:
        if data.get(name) is not None:
            _nonempty_text(data[name], name)
    if data.get("keywords") is not None:
        _text_list(data["keywords"], "keywords", allow_empty=True)
    profile = data.get("profile")
    if profile is not None and not isinstance(profile, dict):
        raise ValueError(f"'profile' must be an object of attribute -> value, got {type(profile).__name__}")
    intent = data.get("intent")
    if intent is not None and intent not in INTENTS:
        raise ValueError(f"'intent' must be one of {list(INTENTS)}, got {intent!r}")
    return instance


def _canonical_profile(profile: Mapping, schema: Mapping) -> dict:
    """Profile values made canonical for `schema`: an alias or a label becomes the canonical value,
    "2021" becomes 2021; a null value means the attribute is absent, so it is dropped.
    DialogueInputError names the attribute when the schema does not have it or refuses the value."""
    canonical = {}
    for name, value in profile.items():
        value = canonical_answer(name, value, schema)
        if value is not None:
            canonical[name] = value
    return canonical


def read_benchmark(path: Path | str, schema: Mapping | None = None) -> list[dict]:  # noqa: C901 - one check per field of the benchmark line, each naming the line
    """The instances of a JSONL benchmark, in file order, each a dict with every key it had (id
    as a string). With `schema` (an index build's profile schema) the profiles are checked against
    it and made canonical. Raises BenchmarkError naming the line for bad JSON, a missing or
    mistyped field, an id used twice or a profile value the schema does not allow; and for a file
    that is missing, not UTF-8 or has no instance."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM from a spreadsheet export is not an error
    except FileNotFoundError:
        raise BenchmarkError(path, None, "benchmark file not found") from None
    except IsADirectoryError:
        raise BenchmarkError(path, None, "is a directory, not a benchmark file") from None
    except UnicodeDecodeError as exc:
        raise BenchmarkError(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    instances: list[dict] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BenchmarkError(path, number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise BenchmarkError(path, number, f"expected a JSON object per line, got {type(data).__name__}")
        label = f"instance {data['id']!r}: " if isinstance(data.get("id"), (str, int)) else ""
        try:
            instance = _checked_instance(data)
            if schema is not None and instance.get("profile") is not None:
                instance["profile"] = _canonical_profile(instance["profile"], schema)
        except ValueError as exc:  # DialogueInputError is one
            raise BenchmarkError(path, number, f"{label}{exc}") from None
        if instance["id"] in first_line:
            first = first_line[instance["id"]]
            raise BenchmarkError(path, number, f"duplicate id {instance['id']!r} (first on line {first})")
        first_line[instance["id"]] = number
        instances.append(instance)
    if not instances:
        raise BenchmarkError(path, None, "no instances (the file is empty)")
    return instances
