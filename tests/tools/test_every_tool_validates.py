"""Every built-in tool, called by a model with arguments it got wrong, answers with one
`Error: INVALID_ARGUMENT: ...` line naming the field, and runs nothing: the model can
fix its call from the message alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slop.records import ToolCall, ToolResult, ToolSpec
from slop.tools.base import ToolContext
from slop.tools.dispatch import dispatch
from slop.tools.registry import ToolRegistry

SPECS = ToolRegistry().specs()
WITH_REQUIRED = [s for s in SPECS if s.parameters.get("required")]
WRONG = {"string": 42, "integer": "ten", "number": "ten", "boolean": "yes", "array": "not a list", "object": [1]}
TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "a JSON object",
}


def good_value(schema: dict[str, Any]) -> Any:
    """A value a schema accepts (the first enum choice, or an empty one of its type)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return good_value(schema["anyOf"][0])
    return {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}[schema["type"]]


def required_args(spec: ToolSpec) -> dict[str, Any]:
    props = spec.parameters["properties"]
    return {name: good_value(props[name]) for name in spec.parameters.get("required", [])}


def call(ctx: ToolContext, name: str, args: dict[str, Any]) -> ToolResult:
    (result,) = dispatch([ToolCall("c1", name, json.dumps(args))], ToolRegistry(), ctx, None)
    return result


def assert_nothing_ran(root: Path) -> None:
    assert list(root.iterdir()) == [], "a refused call changed the project"


@pytest.mark.parametrize("spec", WITH_REQUIRED, ids=lambda s: s.name)
def test_each_missing_required_field_is_named(spec: ToolSpec, ctx: ToolContext, root: Path) -> None:
    for missing in spec.parameters["required"]:
        args = {k: v for k, v in required_args(spec).items() if k != missing}
        result = call(ctx, spec.name, args)
        assert result.status == "error"
        assert result.content == f"Error: INVALID_ARGUMENT: missing required field '{missing}'"
    assert_nothing_ran(root)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_an_unknown_field_lists_the_accepted_ones(spec: ToolSpec, ctx: ToolContext, root: Path) -> None:
    result = call(ctx, spec.name, {**required_args(spec), "bogus_field": 1})
    accepted = ", ".join(spec.parameters["properties"]) or "no fields"
    assert result.content == f"Error: INVALID_ARGUMENT: unknown field 'bogus_field' (accepted: {accepted})"
    assert_nothing_ran(root)


TYPED_FIELDS = [
    (spec, name, schema["type"])
    for spec in SPECS
    for name, schema in spec.parameters["properties"].items()
    if isinstance(schema.get("type"), str) and "anyOf" not in schema
]


@pytest.mark.parametrize(
    ("spec", "field", "kind"), TYPED_FIELDS, ids=lambda v: v.name if isinstance(v, ToolSpec) else v
)
def test_a_field_of_the_wrong_type_says_what_it_must_be(
    spec: ToolSpec, field: str, kind: str, ctx: ToolContext, root: Path
) -> None:
    result = call(ctx, spec.name, {**required_args(spec), field: WRONG[kind]})
    assert result.status == "error"
    assert result.content.startswith(f"Error: INVALID_ARGUMENT: {field} must be {TYPE_WORDS[kind]}")
    assert "\n" not in result.content
    assert_nothing_ran(root)


def test_arguments_that_are_not_json_are_refused_with_the_parser_s_reason(ctx: ToolContext, root: Path) -> None:
    (result,) = dispatch([ToolCall("c1", "write_file", '{"path": "a.txt", "content": ')], ToolRegistry(), ctx, None)
    assert result.content.startswith("Error: INVALID_ARGUMENT: arguments are not valid JSON (")
    assert_nothing_ran(root)


def test_a_tool_that_does_not_exist_names_the_ones_that_do(ctx: ToolContext) -> None:
    result = call(ctx, "delete_everything", {})
    assert result.content.startswith("Error: UNKNOWN_TOOL: no tool named 'delete_everything'. Available: ")
    for spec in SPECS:
        assert spec.name in result.content
