"""A memory scope as a caller gives it: ids and metadata checked by the shared types, refused by field name."""

from __future__ import annotations

import pytest

from memoria.errors import InvalidInput
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import MAX_METADATA_BYTES, MAX_METADATA_KEYS, input_parse


def _problems(raw: object) -> list[str]:
    with pytest.raises(InvalidInput) as refused:
        input_parse(MemoryScope, raw)
    return refused.value.problems


def test_a_scope_is_read_with_its_metadata_normalised():
    scope = input_parse(
        MemoryScope, {"user_id": "alice@example.org", "session_id": "s-1", "metadata": {"n": 2.0, "vip": True}}
    )
    assert (scope.user_id, scope.agent_id, scope.session_id) == ("alice@example.org", None, "s-1")
    assert scope.metadata == {"n": 2, "vip": True}
    assert type(scope.metadata["n"]) is int  # a whole number is stored as one, so a filter by 2 finds 2.0
    assert not scope.empty
    assert input_parse(MemoryScope, {}).empty


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"user_id": ""}, "user_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"),
        ({"agent_id": "a b"}, "agent_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"),
        ({"session_id": "s\n"}, "session_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"),
        ({"user_id": 7}, "user_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"),
        ({"user_id": "x" * 129}, "user_id: must be a scope id: 1–128 letters, digits or ._:/@#+-"),
        ({"metadata": []}, "metadata: must be a JSON object of names to texts, numbers or true/false"),
        ({"metadata": {"a": {"b": 1}}}, "metadata: a: must be a text, a number or true/false, not dict"),
        ({"metadata": {"a": [1]}}, "metadata: a: must be a text, a number or true/false, not list"),
        ({"metadata": {"a": None}}, "metadata: a: must be a text, a number or true/false, not NoneType"),
        ({"metadata": {"a`) DETACH DELETE n //": 1}}, "metadata: 'a`) DETACH DELETE n //' is not a metadata key"),
        ({"metadata": {"a": "x" * 501}}, "metadata: a: is longer than 500 characters"),
        ({"metadata": {f"k{i}": i for i in range(MAX_METADATA_KEYS + 1)}}, f"metadata: at most {MAX_METADATA_KEYS}"),
        ({"metadata": {f"k{i}": "x" * 400 for i in range(12)}}, "metadata: is 4"),
        ({"colour": "red"}, "body: unknown field(s) colour"),
    ],
)
def test_bad_scopes_are_refused_by_field(raw, expected):
    problems = _problems(raw)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_metadata_bytes_bound_is_named():
    problems = _problems({"metadata": {f"k{i}": "é" * 250 for i in range(10)}})
    assert problems == [f"metadata: is 5081 bytes as JSON, more than {MAX_METADATA_BYTES}"]


def test_the_stored_form_and_the_condition_agree():
    scope = MemoryScope(user_id="alice", metadata={"channel": "support", "priority": 2})
    assert scope.stored_properties() == {
        "user_id": "alice",
        "metadata": '{"channel":"support","priority":2}',
        "metadata_pairs": ['channel="support"', "priority=2"],
    }
    condition, parameters = scope.episode_condition("ep")
    assert condition == (
        "ep.user_id = $scope_user_id AND $scope_pair0 IN coalesce(ep.metadata_pairs, [])"
        " AND $scope_pair1 IN coalesce(ep.metadata_pairs, [])"
    )
    assert parameters == {"scope_user_id": "alice", "scope_pair0": 'channel="support"', "scope_pair1": "priority=2"}
    assert MemoryScope().episode_condition() == ("true", {})
    assert MemoryScope().stored_properties() == {}


@pytest.mark.parametrize(
    ("given", "kept"),
    [(2**60, float(2**60)), (2**53, 2**53), (-(2**53), -(2**53)), (3.0, 3), (1.5, 1.5)],
)
def test_metadata_numbers_are_kept_as_json_readers_keep_them(given: float, kept: float) -> None:
    scope = input_parse(MemoryScope, {"metadata": {"n": given}})
    assert scope.metadata == {"n": kept} and type(scope.metadata["n"]) is type(kept)


def test_a_number_past_a_floats_range_is_refused_not_a_crash() -> None:
    """float() of it raises OverflowError, which pydantic does not turn into a refusal: it was a 500."""
    with pytest.raises(InvalidInput, match=r"metadata.*too large"):
        input_parse(MemoryScope, {"metadata": {"n": 10**400}})


def test_the_schema_promises_what_the_model_takes() -> None:
    """JSON Schema's pattern is a search: unanchored, "!!x" would pass a schema the server then refuses."""
    schema = MemoryScope.model_json_schema()
    user = next(item for item in schema["properties"]["user_id"]["anyOf"] if item.get("type") == "string")
    assert user["pattern"].startswith("^") and user["pattern"].endswith("$")
    metadata = next(item for item in schema["properties"]["metadata"]["anyOf"] if item.get("type") == "object")
    assert metadata["maxProperties"] == 20
    assert metadata["propertyNames"]["pattern"].startswith("^")
    text = next(item for item in metadata["additionalProperties"]["anyOf"] if item.get("type") == "string")
    assert text["maxLength"] == 500
