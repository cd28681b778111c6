"""The OpenAPI schema's shape: component names that stay unique, and the error answers every operation can give."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, is_serializer
from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.serializers import Serializer

from memoria.api.permissions import ReadOrCurate
from memoria.graph.rules import ID_PATTERN

PROBLEM = "Problem"
FIELD_ERRORS = "FieldErrors"
# What memoria.api.errors (and DRF's own handler) answer: `detail` always says what went wrong.
PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An error: `detail` names the offending field or item and the problem; `errors` lists each one.",
    "properties": {
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "string"}},
        "reason": {"type": "string"},
        "too_large": {"type": "string", "description": "(422 query_too_large) what the graph server found too large"},
    },
    "required": ["detail"],
}
# A DRF serializer's validation error: each offending field with its problems.
FIELD_ERRORS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Field name → the problems with that field.",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
    "minProperties": 1,
}
ERROR_DESCRIPTIONS = {
    "400": "The input was rejected (nothing was written): the body names the field and the problem.",
    "401": "No or an invalid token or session.",
    "403": "Changing the memory graph needs the curator role; a browser session's POST also needs its CSRF token.",
    "404": "No such group or item visible to you.",
    "409": "Concurrent writers kept changing what this write depends on; nothing was written, retrying is safe.",
    "413": "The body is larger than the server accepts (MEMORIA_MAX_REQUEST_BYTES).",
    "415": "The body must be JSON (Content-Type: application/json).",
    "422": "The graph server refused the query as too large for its memory budget (`query_too_large`, `too_large`"
    " names what, e.g. ORDER BY); the same request fails the same way again: ask for less at once.",
    "429": "Too many requests; retry after the Retry-After seconds.",
    "502": "The configured LLM answered with something unusable; nothing of it was used or written.",
    "503": "The graph server is unavailable (or a projection still loading); retry after Retry-After seconds.",
}


class MemoriaAutoSchema(AutoSchema):
    """Views declare their bodies as nested `Input`/`Output` serializers; the view's name keeps them apart.

    Error answers are added here, in one place, from what the view's permissions, parsers and inputs make
    possible, so a client (or a fuzzer) never meets a status the schema does not document.
    """

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        name = super().get_serializer_name(serializer, direction)
        owner, _, short = type(serializer).__qualname__.rpartition(".")
        if owner and name == short:
            return owner.removesuffix("View") + short
        return name

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_statuses():
            responses.setdefault(code, self._error_response(code))
        return responses

    def _error_statuses(self) -> list[str]:
        permissions = [permission() for permission in self.view.permission_classes]
        writes = self.method not in SAFE_METHODS and any(isinstance(p, ReadOrCurate) for p in permissions)
        has_body = self._request_body_serializer() is not None
        has_input = has_body or bool(self._get_parameters())
        touches_graph = not getattr(self.view, "graph_free", False)
        wanted = {
            "400": has_input,
            "401": not all(isinstance(p, AllowAny) for p in permissions),
            "403": self.method not in SAFE_METHODS,  # the curator role for writes; CSRF for any session POST
            "404": has_input,
            "409": writes,
            "413": has_body,
            "415": has_body,
            "422": touches_graph,
            "429": bool(self.view.get_throttles()),
            "502": getattr(self.view, "calls_llm", False),
            "503": touches_graph,
        }
        return [code for code, applies in wanted.items() if applies]

    def _error_response(self, code: str) -> dict[str, Any]:
        schema = self._component(PROBLEM, PROBLEM_SCHEMA)
        if code == "400" and (is_serializer(self._request_body_serializer()) or self._has_input_serializer()):
            schema = {"anyOf": [schema, self._component(FIELD_ERRORS, FIELD_ERRORS_SCHEMA)]}
        return {"description": ERROR_DESCRIPTIONS[code], "content": {"application/json": {"schema": schema}}}

    def _request_body_serializer(self) -> Any:
        # Only these methods get a documented body; asking others would make spectacular guess (and warn).
        return self.get_request_serializer() if self.method in ("PUT", "PATCH", "POST") else None

    def _has_input_serializer(self) -> bool:
        # A view that validates its body with a nested `Input` serializer answers its field errors, whatever schema
        # it declares for the body.
        declared = getattr(self.view, "Input", None)
        return isinstance(declared, type) and issubclass(declared, Serializer)

    def _component(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=schema)
        self.registry.register_on_missing(component)
        return component.ref


# Query parameter schemas that say what memoria's parsers accept, for views to declare their parameters with.
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


def model_parameters(model: type[BaseModel]) -> list[OpenApiParameter]:
    """A request model's fields as query parameters: spectacular expands only DRF serializers into parameters, so
    a URL's model (read by memoria.graph.vocabulary.input_parse) is documented from its own JSON schema."""
    schema = model.model_json_schema()
    required = set(schema.get("required", ()))
    parameters = []
    for name, field in schema["properties"].items():
        field = {key: value for key, value in field.items() if key != "title"}
        options = [option for option in field.pop("anyOf", ()) if option != {"type": "null"}]
        if len(options) == 1:  # an optional parameter is left out, never sent as null
            field = {**options[0], **field}
        elif options:
            field["anyOf"] = options
        if field.get("default", 0) is None:
            del field["default"]
        description = field.pop("description", None)
        parameters.append(OpenApiParameter(name, field, required=name in required, description=description))
    return parameters
