"""Every tool's input schema as the real server lists it (tools/list, the SDK's client over HTTP), held to the rules
of OpenAI's structured outputs in strict mode, which the OpenAI Agents SDK converts each MCP tool to when it can
(agents/strict_schema.py, ensure_strict_json_schema): a tool that breaks one is used without strict mode.

The SDK itself is not installed here: openai-agents 0.24.0 requires websockets<17 and the project pins 17.4, so
its rules are written out as this test's own checks, from OpenAI's strict-mode documentation and the SDK's
converter: the root a plain object; no `$ref` or `$defs`; every object closed (`additionalProperties: false`);
every property required once converted, so an optional one must admit null; only the keywords strict mode
reads. And since a strict client sends every property, null where it has nothing to say, the tools are called
that way too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoria.accounts.roles import Role
from memoria.mcp.client import http_session
from memoria.mcp.schemas import arguments_given, tool_input_schema
from memoria.mcp.tools import TOOLS
from tests.mcp.conftest import TOOL_NAMES, problem_of
from tests.search.memory import node_id

# What strict mode reads (OpenAI's "supported schemas"), with the annotations a client passes on to the model.
STRICT_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "default",
    "examples",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
}


def _schemas(schema: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema inside `schema` (itself first), each with where it is."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for name, item in schema.get("properties", {}).items():
        yield from _schemas(item, f"{path}.{name}")
    for index, option in enumerate(schema.get("anyOf", ())):
        yield from _schemas(option, f"{path}|{index}")
    yield from _schemas(schema.get("items"), f"{path}[]")


def _admits_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind) or {"type": "null"} in schema.get("anyOf", ())


def strict_problems(name: str, schema: dict[str, Any]) -> list[str]:
    """Where `schema` breaks strict mode's rules or leaves a property undescribed; none is the goal."""
    problems = []
    if schema.get("type") != "object" or {"anyOf", "oneOf", "allOf", "not"} & set(schema):
        problems.append(f"{name}: the root must be a plain object")
    for path, part in _schemas(schema, name):
        if unknown := set(part) - STRICT_KEYWORDS:
            problems.append(f"{path}: keywords strict mode does not take: {sorted(unknown)}")
        if part.get("type") == "object" and part.get("additionalProperties") is not False:
            problems.append(f"{path}: an open object")
        required = set(part.get("required", ()))
        for key, item in part.get("properties", {}).items():
            if not item.get("description"):
                problems.append(f"{path}.{key}: no description")
            if key not in required and not _admits_null(item):
                problems.append(f"{path}.{key}: optional but not nullable (strict mode requires every property)")
    return problems


def test_the_checks_find_what_strict_mode_refuses() -> None:
    """The rules catch each thing that made the SDK give up strict mode on search_memory, add_memory and retrieve."""
    shared = {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}}
    open_params = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"params": {"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]}},
    }
    one_of = {"type": "object", "additionalProperties": False, "properties": {}, "anyOf": [{"required": ["a"]}]}
    quiet = {"type": "object", "additionalProperties": False, "properties": {"limit": {"type": "integer"}}}
    assert any("$ref" in problem or "$defs" in problem for problem in strict_problems("shared", shared))
    assert any("open object" in problem for problem in strict_problems("open", open_params))
    assert any("plain object" in problem for problem in strict_problems("one_of", one_of))
    assert {"quiet.limit: no description", "quiet.limit: optional but not nullable"} <= {
        problem.split(" (")[0] for problem in strict_problems("quiet", quiet)
    }


@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_each_tools_schema_keeps_the_strict_rules(spec) -> None:
    assert strict_problems(spec.name, tool_input_schema(spec.input_model)) == []


def test_null_is_not_given_at_every_depth() -> None:
    sent = {"group": "g", "limit": None, "episodes": [{"content": "x", "id": None}], "tags": ["a"]}
    assert arguments_given(sent) == {"group": "g", "episodes": [{"content": "x"}], "tags": ["a"]}


@pytest.mark.django_db(transaction=True)
async def test_the_listed_schemas_are_strict_and_a_strict_client_can_call_every_tool(
    daphne_url: str, memory: str, token_for_role
) -> None:
    token = await token_for_role("mcp-curator", Role.CURATOR, [memory])
    alice, works = node_id(memory, "alice"), node_id(memory, "works")
    # What a model in strict mode must send besides nulls: the required properties, and a value for each property
    # that does not admit null (none: every optional one does).
    required = {
        "group": memory,
        "query": "Alice Martin",
        "entity_id": alice,
        "fact_id": works,
        "episodes": [{"content": "Alice Martin visited Lyon.", "id": None, "name": None, "source": None}],
        "confirm": memory,
    }
    async with http_session(daphne_url, token) as session:
        listed = {tool.name: tool.input_schema for tool in (await session.list_tools()).tools}
        assert set(listed) == TOOL_NAMES
        problems = [problem for name, schema in listed.items() for problem in strict_problems(name, schema)]
        assert problems == []
        assert "$ref" not in str(listed) and "$defs" not in str(listed)
        for name in ("search_memory", "add_memory", "get_context", "get_facts", "retrieve", "list_episodes"):
            schema = listed[name]
            sent = {key: required[key] if key in schema["required"] else None for key in schema["properties"]}
            sent |= {"query": "Alice Martin"} if name == "retrieve" else {}  # query or seeds: one is needed
            sent |= {"episodes": required["episodes"]} if name == "add_memory" else {}  # or messages: one is needed
            answer = await session.call_tool(name, sent)
            assert not answer.is_error, (name, answer.content)
        nothing = dict.fromkeys(listed["retrieve"]["properties"]) | {"group": memory}
        refused = await session.call_tool("retrieve", nothing)
        assert problem_of(refused)["errors"] == ["body: give seeds or a query"]  # null is not given: neither was
