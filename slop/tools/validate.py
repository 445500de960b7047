"""Checking a model's tool arguments against the tool's JSON schema.

Models send malformed or mistyped arguments regularly; the answer must be a
clear `Error: INVALID_ARGUMENT: ...` the model can fix on its next try, never an
exception. Only the schema subset our tools use is supported: object
(properties, required, additionalProperties), string, integer, number, boolean,
array (items), enum and anyOf. No jsonschema dependency for that.
"""

from __future__ import annotations

import json
from typing import Any

from slop.parser import decode_json
from slop.tools.base import ErrorCode, error_text

Args = dict[str, Any]

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
}


class _Invalid(Exception):
    """Internal: one validation failure; the message is the user-facing text."""


def parse_arguments(schema: dict[str, Any], raw: str | None) -> tuple[Args | None, str | None]:
    """Decode the raw JSON argument text and validate it.

    Returns (args, None) on success, (None, "Error: INVALID_ARGUMENT: ...") on
    failure. Explicit nulls for optional fields are dropped (treated as absent)."""
    try:
        data = _decode(raw)
        return _check_object(data, schema, ""), None
    except _Invalid as exc:
        return None, error_text(ErrorCode.INVALID_ARGUMENT, str(exc))


def _decode(raw: str | None) -> Any:
    """Empty text means "no arguments": some models send "" for tools without parameters."""
    if raw is None or not raw.strip():
        return {}
    try:
        return decode_json(raw)
    except ValueError as exc:
        detail = " ".join(str(exc).split())[:200]
        raise _Invalid(f"arguments are not valid JSON ({detail})") from None


def _type_name(value: Any) -> str:
    """Describe a JSON value's type in the words of the messages above."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _where(path: str) -> str:
    return path or "arguments"


def _check(value: Any, schema: dict[str, Any], path: str) -> Any:
    """Validate one value; return it, normalised (integral floats become ints)."""
    if "anyOf" in schema:
        return _check_any_of(value, schema["anyOf"], path)
    kind = schema.get("type")
    checker = _CHECKERS.get(kind) if isinstance(kind, str) else None
    result = checker(value, schema, path) if checker else value
    if "enum" in schema and result not in schema["enum"]:
        allowed = ", ".join(str(v) for v in schema["enum"])
        raise _Invalid(f"{_where(path)} must be one of: {allowed} (got {json.dumps(value)})")
    return result


def _check_any_of(value: Any, options: list[dict[str, Any]], path: str) -> Any:
    for option in options:
        try:
            return _check(value, option, path)
        except _Invalid:
            continue
    kinds = " or ".join(_TYPE_NAMES.get(o.get("type", ""), "a value") for o in options)
    raise _Invalid(f"{_where(path)} must be {kinds}, got {_type_name(value)}")


def _check_object(value: Any, schema: dict[str, Any], path: str) -> Args:
    if not isinstance(value, dict):
        raise _Invalid(f"{_where(path)} must be a JSON object, got {_type_name(value)}")
    props: dict[str, Any] = schema.get("properties", {})
    prefix = f"{path}." if path else ""
    unknown = [k for k in value if k not in props]
    extra = schema.get("additionalProperties", False)
    if unknown and extra is False:
        accepted = ", ".join(props) or "no fields"
        raise _Invalid(f"unknown field '{prefix}{unknown[0]}' (accepted: {accepted})")
    # Fields the schema allows beyond its properties (free-form maps in MCP schemas) are
    # kept, checked against `additionalProperties` when that is a schema.
    result: Args = {
        k: _check(value[k], extra, f"{prefix}{k}") if isinstance(extra, dict) else value[k] for k in unknown
    }
    for name, sub in props.items():
        if value.get(name) is None:
            continue  # absent or explicit null: both mean "not given"
        result[name] = _check(value[name], sub, f"{prefix}{name}")
    for name in schema.get("required", []):
        if name not in result:
            raise _Invalid(f"missing required field '{prefix}{name}'")
    return result


def _check_string(value: Any, schema: dict[str, Any], path: str) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"{_where(path)} must be a string, got {_type_name(value)}")
    return value


def _check_integer(value: Any, schema: dict[str, Any], path: str) -> int:
    # Gemini sends every number as a double (10.0), so integral floats are accepted;
    # strings like "10" are not: the schema says integer and the model should learn that.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = f" {json.dumps(value)}" if isinstance(value, str | float) else ""
        raise _Invalid(f"{_where(path)} must be an integer, got {_type_name(value)}{shown}")
    return value


def _check_number(value: Any, schema: dict[str, Any], path: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid(f"{_where(path)} must be a number, got {_type_name(value)}")
    return value


def _check_boolean(value: Any, schema: dict[str, Any], path: str) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"{_where(path)} must be a boolean (true or false), got {_type_name(value)}")
    return value


def _check_array(value: Any, schema: dict[str, Any], path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Invalid(f"{_where(path)} must be an array, got {_type_name(value)}")
    items = schema.get("items")
    if not items:
        return value
    out = []
    for index, item in enumerate(value):
        if item is None:
            raise _Invalid(f"{_where(path)}[{index}] must not be null")
        out.append(_check(item, items, f"{_where(path)}[{index}]"))
    return out


_CHECKERS = {
    "object": _check_object,
    "string": _check_string,
    "integer": _check_integer,
    "number": _check_number,
    "boolean": _check_boolean,
    "array": _check_array,
}
