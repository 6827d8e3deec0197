"""The JSON schemas we ask models for, and checking a model's JSON against them.

Strict structured output is a request, not a guarantee: vLLM, Ollama and llama.cpp honour it to
varying degrees, and a truncated reply breaks it anywhere. `jsonschema` (already present through
the pipeline's dependencies) does the full check; the fallback covers the keywords our own schemas
use, so the project adds nothing heavy for this.
"""

from __future__ import annotations

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def strict_object(properties: dict) -> dict:
    """An object with exactly these properties, all required: the form strict structured output
    asks for (OpenAI's strict mode rejects optional or extra keys)."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def schema_error(instance: object, schema: dict) -> str | None:
    """The first violation as a short message, or None when `instance` fits `schema`."""
    try:
        import jsonschema
    except ImportError:
        return hand_check(instance, schema)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{where}: {error.message}"


def hand_check(value: object, schema: dict, where: str = "(root)") -> str | None:
    """A small validator for the subset of JSON Schema our prompts use."""
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else types
        if not any(_TYPES[t](value) for t in allowed):
            return f"{where}: {value!r} is not of type {types}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: {value!r} is not one of {schema['enum']}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where}: {value} is less than the minimum of {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where}: {value} is greater than the maximum of {schema['maximum']}"
    if isinstance(value, list):
        return _check_array(value, schema, where)
    if isinstance(value, dict):
        return _check_object(value, schema, where)
    return None


def _check_array(value: list, schema: dict, where: str) -> str | None:
    if len(value) < schema.get("minItems", 0):
        return f"{where}: too short ({len(value)} < {schema['minItems']})"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where}: too long ({len(value)} > {schema['maxItems']})"
    for i, item in enumerate(value):
        if problem := hand_check(item, schema.get("items", {}), _join(where, i)):
            return problem
    return None


def _check_object(value: dict, schema: dict, where: str) -> str | None:
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"{where}: {name!r} is a required property"
    if schema.get("additionalProperties") is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            return f"{where}: additional properties are not allowed ({', '.join(extra)})"
    for name, item in value.items():
        if name in properties and (problem := hand_check(item, properties[name], _join(where, name))):
            return problem
    return None


def _join(where: str, part: object) -> str:
    return str(part) if where == "(root)" else f"{where}/{part}"
