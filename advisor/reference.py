"""The reference tables of docs/contracts.md, generated from the objects they describe: every
environment variable (§1, from advisor/settings.py's `Settings`) and every institution config field
(§2, from advisor/config.py's `InstitutionConfig`). Each sits between its markers in the page;
tests/test_settings.py fails when a table and its object differ.

    .venv/bin/python -m advisor.reference           # rewrite the tables in docs/contracts.md
    .venv/bin/python -m advisor.reference --check   # exit 1 when they are stale
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import types
import typing
from pathlib import Path

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from advisor.config import InstitutionConfig
from advisor.settings import Settings

CONTRACTS = Path(__file__).resolve().parents[1] / "docs" / "contracts.md"
MARKERS = {"settings": ("<!-- settings:begin -->", "<!-- settings:end -->"),
           "config": ("<!-- config:begin -->", "<!-- config:end -->")}


def _value(value: object) -> str:
    """A default as the docs write it: numbers bare (60, not 60.0), words in backticks."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "`null`"
    if isinstance(value, (tuple, list)) and not value:
        return "`[]`"
    if isinstance(value, dict) and not value:
        return "`{}`"
    return f"`{value}`"


def _extra(field: FieldInfo, key: str) -> str | None:
    extra = field.json_schema_extra
    return extra.get(key) if isinstance(extra, dict) else None


def settings_table() -> str:
    """Every environment variable: its meaning and what an unset one means."""
    rows = ["| variable | meaning | default |", "| --- | --- | --- |"]
    for group in Settings.groups().values():
        for field in group.model_fields.values():
            if field.alias:
                rows.append(f"| `{field.alias}` | {field.description} | {_extra(field, 'unset') or _value(field.default)} |")
    return "\n".join(rows)


def _models(annotation: object) -> list[type[BaseModel]]:
    """The config models inside a field's type (a section, a tuple of sources, a union of attribute kinds)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _type(annotation: object) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _type(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(dict.fromkeys(_type(a) for a in typing.get_args(annotation)))
    if origin in (tuple, list):
        return f"list of {_type(typing.get_args(annotation)[0])}"
    if origin is dict:
        key, value = typing.get_args(annotation)
        return f"map {_type(key)} → {_type(value)}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return {type(None): "`null`", str: "text", int: "integer", float: "number", bool: "`true` \\| `false`"}.get(
        annotation, getattr(annotation, "__name__", str(annotation)))


def _constraints(annotation: object) -> list:
    """The constraints inside an optional field's type (`Annotated[int, Field(gt=0)] | None`)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return [m for meta in typing.get_args(annotation)[1:] for m in getattr(meta, "metadata", [meta])]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _constraints(arg)]
    return []


def _limits(field: FieldInfo) -> str:
    words = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "at least", "max_length": "at most",
             "pattern": "matches"}
    found = []
    for meta in [*field.metadata, *_constraints(field.annotation)]:
        for name, word in words.items():
            value = getattr(meta, name, None)
            if value is not None:
                found.append(f"{word} `{value}`" if name == "pattern" else f"{word} {_value(value)}")
    return ", ".join(found)


def _comments(model: type[BaseModel]) -> dict[str, str]:
    """field -> the comment written beside it in the model's source (the lines just above it and the
    end of its own line): the config's fields are documented where they are declared, once."""
    found: dict[str, str] = {}
    above: list[str] = []
    sources = [inspect.getsource(c) for c in model.__mro__ if c not in (model, BaseModel) and issubclass(c, BaseModel)]
    for line in "\n".join([inspect.getsource(model), *sources]).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            above.append(stripped.lstrip("#").strip())
            continue
        match = re.match(r"\s+(\w+): [^#]*?(?:#\s*(.*))?$", line)
        if match and match[1] in model.model_fields and match[1] not in found:
            found[match[1]] = " ".join([*above, match[2] or ""]).strip()
        above = []
    return found


def _summary(model: type[BaseModel]) -> str:
    """A section's meaning: the first sentence of its model's docstring."""
    doc = " ".join((model.__doc__ or "").split())
    return doc.split(". ")[0].rstrip(".") if doc else ""


def _config_rows(model: type[BaseModel], prefix: str) -> list[str]:
    rows = []
    comments = _comments(model)
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        required = field.default is PydanticUndefined and field.default_factory is None
        kind = _type(field.annotation)
        if required:
            default = "required"
        elif kind == "section":
            default = "its fields'"
        else:
            default = _value(field.default_factory() if field.default_factory else field.default)
        nested = [m for m in _models(field.annotation) if m is not model]
        limits = _limits(field)
        meaning = field.description or comments.get(name) or (_summary(nested[0]) if len(nested) == 1 else "")
        meaning = meaning.replace("|", "\\|")
        rows.append(f"| `{path}` | {kind}{f' ({limits})' if limits else ''} | {default} | {meaning} |")
        inner = "[]." if typing.get_origin(field.annotation) in (tuple, list) else ".<name>." if (
            typing.get_origin(field.annotation) is dict) else "."
        for sub in nested:
            rows += [row for row in _config_rows(sub, f"{path}{inner}") if row not in rows]  # kinds share fields
    return rows


def config_table() -> str:
    """Every field of the institution config, by its path in the YAML file."""
    rows = ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    return "\n".join(rows + _config_rows(InstitutionConfig, ""))


TABLES = {"settings": settings_table, "config": config_table}


def render(text: str) -> str:
    """`text` (the page) with every generated table replaced by the objects' current one."""
    for name, (begin, end) in MARKERS.items():
        head, found, rest = text.partition(begin)
        if not found or end not in rest:
            raise ValueError(f"{CONTRACTS.name} has no {begin} … {end}")
        text = f"{head}{begin}\n{TABLES[name]()}\n{end}{rest.partition(end)[2]}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the generated tables of docs/contracts.md")
    parser.add_argument("--check", action="store_true", help="exit 1 when the page differs from the objects")
    args = parser.parse_args(argv)
    text = CONTRACTS.read_text(encoding="utf-8")
    fresh = render(text)
    if args.check:
        if fresh != text:
            print(f"{CONTRACTS} is stale: run python -m advisor.reference", file=sys.stderr)
            return 1
        return 0
    CONTRACTS.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
