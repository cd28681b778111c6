"""The OpenAPI schema's shape: component names that stay unique, and the error answers every operation can give."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, is_serializer
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.serializers import Serializer

from memoria.api.path_ids import PathIds
from memoria.api.permissions import ReadOrCurate

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
    "414": "The request line (path and query) is longer than the server accepts (MEMORIA_MAX_REQUEST_LINE_BYTES);"
    " send long inputs in a POST body.",
    "415": "The body must be JSON (Content-Type: application/json).",
    "422": "The graph server refused the query as too large for its memory budget (`query_too_large`, `too_large`"
    " names what, e.g. ORDER BY); the same request fails the same way again: ask for less at once.",
    "429": "Too many requests; retry after the Retry-After seconds.",
    "502": "The configured LLM answered with something unusable; nothing of it was used or written.",
    "503": "The graph server is unavailable (or a projection still loading); retry after Retry-After seconds.",
}

# Each path id's JSON Schema as PathIds declares it (a node id: its pattern), without the null of "not in this URL".
PATH_ID_SCHEMAS: dict[str, dict[str, Any]] = {
    name: next(option for option in field["anyOf"] if option != {"type": "null"})
    for name, field in PathIds.model_json_schema()["properties"].items()
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

    def _resolve_path_parameters(self, variables: list[str]) -> list[dict[str, Any]]:
        # An item id in the path is checked by PathIds before the view runs: the schema says what it accepts.
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            if parameter["name"] in PATH_ID_SCHEMAS:
                parameter["schema"] = PATH_ID_SCHEMAS[parameter["name"]]
        return parameters

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
            "414": bool(self._get_parameters()),  # the HTTP edge refuses a request line past its limit
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
