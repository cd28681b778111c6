"""Query-string values as pydantic types: text in, checked values out, each with the JSON Schema it accepts.

A query string carries only text, and its readers always took an empty value for "the default": these types
say so in their schema (`anyOf [integer, ""]`), so the OpenAPI document built from a query model (see
memoria.api.parameters) accepts exactly what the model does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, TypeAdapter, WithJsonSchema
from pydantic_core import PydanticUseDefault

from memoria.errors import InvalidInput, names_shown
from memoria.graph.rules import ID_PATTERN
from memoria.requests.vocabulary import Model, input_parse

EMPTY = {"type": "string", "maxLength": 0}
# One id, as the parsers check it (ID_PATTERN without its anchors: JSON Schema has no "\Z").
ID_CHARACTERS = ID_PATTERN.pattern.removeprefix("^").removesuffix(r"\Z")


def whole_or_empty(low: int, high: int | None = None) -> dict[str, Any]:
    """A whole number in [low, high] (no upper bound without `high`); empty means the default."""
    whole = {"type": "integer", "minimum": low} | ({"maximum": high} if high is not None else {})
    return {"anyOf": [whole, EMPTY]}


def number_or_empty(low: float, high: float) -> dict[str, Any]:
    """A number in [low, high]; empty means the default."""
    return {"anyOf": [{"type": "number", "minimum": low, "maximum": high}, EMPTY]}


def choice_list(choices: Iterable[str]) -> dict[str, Any]:
    """A comma-separated list of at least one of `choices` (spaces and empty items ignored)."""
    choice = "(?:" + "|".join(re.escape(choice) for choice in choices) + ")"
    return {"type": "string", "pattern": rf"^[\s,]*{choice}(?:\s*,[\s,]*{choice})*[\s,]*$"}


def id_list(id_characters: str) -> dict[str, Any]:
    """Comma-separated ids, each `id_characters` (a regex), empty items ignored, at least one."""
    return {"type": "string", "pattern": rf"^,*{id_characters}(?:,+{id_characters})*,*$"}


def _whole(low: int, high: int) -> Any:
    def check(raw: Any) -> Any:
        if raw is None or raw == "":
            raise PydanticUseDefault
        text = str(raw)
        if isinstance(raw, bool) or not text.isdigit() or not low <= int(text) <= high:
            raise ValueError(f"{raw!r} is not a whole number in [{low}, {high}]")
        return int(text)

    return check


def WholeQuery(low: int, high: int) -> Any:
    """A whole number in [low, high]; empty is the field's default; the problem quotes the value as sent."""
    return Annotated[int, BeforeValidator(_whole(low, high)), WithJsonSchema(whole_or_empty(low, high))]


def _empty_is_default(raw: Any) -> Any:
    if raw == "":
        raise PydanticUseDefault
    return raw


def OrEmpty(kind: Any) -> Any:
    """`kind`, or an empty parameter, which is one not given (the field's default)."""
    schema = TypeAdapter(kind).json_schema()
    return Annotated[kind, BeforeValidator(_empty_is_default), WithJsonSchema({"anyOf": [schema, EMPTY]})]


def _choices(choices: tuple[str, ...]) -> Any:
    def check(raw: Any) -> tuple[str, ...]:
        given = tuple(dict.fromkeys(item.strip().upper() for item in str(raw).split(",") if item.strip()))
        if not given or any(item not in choices for item in given):
            raise ValueError(f"give a comma-separated list of {', '.join(choices)}")
        return given

    return check


def ChoiceList(choices: tuple[str, ...]) -> Any:
    """A comma-separated subset of `choices`, any case, each once."""
    return Annotated[tuple[str, ...], BeforeValidator(_choices(choices)), WithJsonSchema(choice_list(choices))]


def query_parse(model: type[Model], params: Mapping[str, str]) -> Model:
    """A query string through `model`: a parameter it does not know is named with the ones it does, and every
    problem, unknown or not, is answered at once."""
    known = {field.alias or name for name, field in model.model_fields.items()}
    problems = []
    unknown = sorted(set(params) - known)
    if unknown:
        problems.append(f"unknown parameter(s): {names_shown(unknown)} (known: {', '.join(sorted(known))})")
    try:
        wanted = input_parse(model, {name: params[name] for name in params if name in known})
    except InvalidInput as error:
        raise InvalidInput(problems + error.problems) from None
    if problems:
        raise InvalidInput(problems)
    return wanted
