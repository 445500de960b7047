"""The small JSON-schema validator."""

from __future__ import annotations

from typing import Any

from slop.tools.registry import ToolRegistry
from slop.tools.validate import parse_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
        },
        "either": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    },
    "required": ["name"],
}


def check(raw: str) -> tuple[Any, Any]:
    return parse_arguments(SCHEMA, raw)


def error(raw: str) -> str:
    args, err = check(raw)
    assert args is None and err is not None
    return err.removeprefix("Error: INVALID_ARGUMENT: ")


def test_valid_and_nulls_dropped() -> None:
    args, err = check(
        '{"name": "x", "count": 3, "ratio": 1, "flag": false, "mode": "a", "either": ["p"], "items": null}'
    )
    assert err is None
    assert args == {"name": "x", "count": 3, "ratio": 1, "flag": False, "mode": "a", "either": ["p"]}


def test_integer_strictness() -> None:
    assert error('{"name": "x", "count": "10"}') == 'count must be an integer, got a string "10"'
    assert error('{"name": "x", "count": true}').startswith("count must be an integer")
    assert error('{"name": "x", "count": 1.5}').startswith("count must be an integer")
    assert check('{"name": "x", "count": 10.0}')[0] == {"name": "x", "count": 10}  # Gemini sends doubles


def test_messages() -> None:
    assert error("{}") == "missing required field 'name'"
    assert error('{"name": null}') == "missing required field 'name'"
    assert error("[1]") == "arguments must be a JSON object, got an array"
    assert error("{oops").startswith("arguments are not valid JSON (")
    assert error('{"name": 1}') == "name must be a string, got an integer"
    assert error('{"name": "x", "flag": "yes"}').startswith("flag must be a boolean")
    assert error('{"name": "x", "mode": "c"}') == 'mode must be one of: a, b (got "c")'
    assert error('{"name": "x", "items": [{}]}') == "missing required field 'items[0].k'"
    assert error('{"name": "x", "items": "no"}') == "items must be an array, got a string"
    assert error('{"name": "x", "either": 3}') == "either must be a string or an array, got an integer"
    assert error('{"name": "x", "extra": 1}').startswith("unknown field 'extra' (accepted: name, count")


def test_empty_arguments_mean_empty_object() -> None:
    assert parse_arguments({"type": "object", "properties": {}}, "") == ({}, None)


def test_every_default_schema_is_well_formed() -> None:
    for spec in ToolRegistry().specs():
        params = spec.parameters
        assert params["type"] == "object" and isinstance(params["properties"], dict)
        assert set(params.get("required", [])) <= set(params["properties"])
        assert spec.description and len(spec.description) < 600
