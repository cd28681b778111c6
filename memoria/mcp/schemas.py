"""A tool's input schema as strict clients take it: one self-contained JSON object, every object closed.

Strict clients (OpenAI's structured outputs, which the OpenAI Agents SDK turns every MCP tool into when it can)
require every property and accept no `$ref` alongside other keywords, no open object and no root union; a tool
that breaks one rule is used without strict mode, where the model may send anything. So the schema pydantic
writes is reshaped here: its `$defs` inlined where they are used, its titles dropped (the name already says
it), and every optional property admitting null, since a strict client sends every property and says "not
given" with null. The tools read null as not given (`arguments_given`, here too), so the schema tells the truth.

Written here rather than taken from a library: `jsonref` would inline the references (and is not installed),
but the nullability and the titles are ours to decide anyway, and the walk is short.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

NULL = {"type": "null"}
# Keywords whose value is a map of names to schemas, or a list of schemas, or one schema.
_SCHEMA_MAPS = ("properties",)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONES = ("items", "additionalProperties", "not")


def _admits_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind) or NULL in schema.get("anyOf", ())


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The same property, admitting null too; what describes it stays on the outside, where an agent reads it."""
    if _admits_null(schema):
        return schema
    outer = {key: schema[key] for key in ("description", "default", "examples") if key in schema}
    inner = {key: value for key, value in schema.items() if key not in outer}
    return {"anyOf": [inner, NULL], **outer}


def _inlined(schema: Any, defs: dict[str, Any]) -> Any:
    """The schema with each `$ref` replaced by what it names (its siblings kept over it) and titles dropped."""
    if isinstance(schema, list):
        return [_inlined(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        named = defs[schema["$ref"].removeprefix("#/$defs/")]
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        return _inlined({**named, **siblings}, defs)
    shaped: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS:
            shaped[key] = {name: _inlined(item, defs) for name, item in value.items()}
        elif key in _SCHEMA_LISTS or key in _SCHEMA_ONES:
            shaped[key] = _inlined(value, defs)
        else:
            shaped[key] = value
    if "description" in shaped and "anyOf" in shaped:  # the field's words, not its type's, say what goes there
        shaped["anyOf"] = [{k: v for k, v in option.items() if k != "description"} for option in shaped["anyOf"]]
    if "properties" in shaped:
        required = set(shaped.get("required", ()))
        shaped["properties"] = {
            name: item if name in required else _nullable(item) for name, item in shaped["properties"].items()
        }
    return shaped


def tool_input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`model`'s JSON schema without references or titles, every optional property nullable. The model's
    docstring is the code's, not the agent's: the tool's description says what the tool does."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    schema.pop("description", None)
    return _inlined(schema, defs)


def arguments_given(arguments: Any) -> Any:
    """The arguments without the properties sent as null, at every depth: a strict client sends every property
    and means "not given" by null, so a default applies as if it had been left out. No tool input has a field
    whose null means something else (tests/mcp/test_schemas.py sends every tool's nulls)."""
    if isinstance(arguments, dict):
        return {key: arguments_given(value) for key, value in arguments.items() if value is not None}
    if isinstance(arguments, list):
        return [arguments_given(item) for item in arguments]
    return arguments
