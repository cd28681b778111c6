"""The shared request types and the adapter: the project's words for each kind of bad value, and field paths."""

from __future__ import annotations

import enum
from typing import Annotated

import pytest
from pydantic import AfterValidator

from memoria.errors import InvalidInput
from memoria.requests.vocabulary import (
    Flag,
    GroupName,
    ListOf,
    Number,
    OneOf,
    RequestModel,
    WholeNumber,
    input_parse,
    problems_raise,
)


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


def _engine_rule(values: list[int]) -> list[int]:
    """An engine's own check, written with its own path (`numbers[1]: …`)."""
    problems_raise("numbers", [f"numbers[{i}]: {v} is odd" for i, v in enumerate(values) if v % 2], where="numbers")
    return values


class Inner(RequestModel):
    count: WholeNumber = 1
    numbers: Annotated[ListOf(int, "whole numbers"), AfterValidator(_engine_rule)] = []  # type: ignore[valid-type]


class Outer(RequestModel):
    group: GroupName
    ratio: Number = 0.5
    on: Flag = False
    colour: OneOf(Colour) = Colour.RED  # type: ignore[valid-type]
    items: ListOf(Inner, "{count}", non_empty=True, most=2) | None = None  # type: ignore[valid-type]


def problems(raw: object, **kwargs: str) -> list[str]:
    with pytest.raises(InvalidInput) as caught:
        input_parse(Outer, raw, **kwargs)
    return caught.value.problems


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"group": 5}, "group: must be 1–64 letters, digits, '_' or '-'"),
        ({"group": "g\n"}, "group: must be 1–64 letters, digits, '_' or '-'"),
        ({"group": "g", "ratio": "0.5"}, "ratio: must be a number"),
        ({"group": "g", "ratio": True}, "ratio: must be a number"),
        ({"group": "g", "on": "yes"}, "on: must be true or false"),
        ({"group": "g", "colour": "green"}, "colour: 'green' is not one of red, blue"),
        ({"group": "g", "items": []}, "items: must be a non-empty list of {count}"),
        ({"group": "g", "items": {}}, "items: must be a non-empty list of {count}"),
        ({"group": "g", "items": [{}, {}, {}]}, "items: at most 2 items, got 3"),
        ({"group": "g", "items": [{"count": 2.5}]}, "items[0].count: must be a whole number"),
        ({"group": "g", "items": [{"size": 1}]}, "items[0]: unknown field(s) size"),
        ({"group": "g", "items": [{"numbers": [2, 3]}]}, "items[0].numbers[1]: 3 is odd"),
        ({"group": "g", "items": [{}], "shade": 1}, "body: unknown field(s) shade"),
    ],
)
def test_each_problem_names_its_field_in_the_projects_words(raw: object, expected: str) -> None:
    assert expected in problems(raw)


def test_whole_numbers_may_be_written_with_a_point_and_every_problem_comes_at_once() -> None:
    parsed = input_parse(Outer, {"group": "g", "items": [{"count": 2.0}]})
    assert parsed.items[0].count == 2 and isinstance(parsed.items[0].count, int)
    assert problems({"group": "g", "ratio": "x", "items": [{"numbers": [1]}, {"count": "2"}]}) == [
        "ratio: must be a number",
        "items[0].numbers[0]: 1 is odd",
        "items[1].count: must be a whole number",
    ]


def test_where_and_root_name_the_whole_input() -> None:
    assert problems([], root="parameters") == ["parameters: must be a JSON object"]
    assert problems({"group": "g", "on": 1}, where="frame") == ["frame.on: must be true or false"]


def test_an_engine_problem_at_the_top_keeps_its_own_path() -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(Inner, {"numbers": [1]})
    assert caught.value.problems == ["numbers[0]: 1 is odd"]
