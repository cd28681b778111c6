"""Query parameters in the OpenAPI schema from the pydantic model that validates them, so the two cannot drift."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel


def query_parameters(model: type[BaseModel]) -> list[OpenApiParameter]:
    """One OpenApiParameter per field of `model` (by its alias), typed by the field's JSON Schema.

    A query string is text: a field the model reads from `"2"` or `"true"` is documented as the number or
    boolean it means, which is how OpenAPI's form style serialises those types.
    """
    schema = model.model_json_schema(mode="validation")
    required = set(schema.get("required", ()))
    parameters = []
    for name, field in schema["properties"].items():
        # The default is the model's value, not always the query's text (a tuple, a bool): descriptions say it.
        kind: dict[str, Any] = {
            key: value for key, value in field.items() if key not in ("title", "description", "default")
        }
        # An optional parameter is left out of the URL, never sent as null: its null alternative is not documented.
        options = [option for option in kind.pop("anyOf", ()) if option != {"type": "null"}]
        if len(options) == 1:
            kind = {**options[0], **kind}
        elif options:
            kind["anyOf"] = options
        parameters.append(
            OpenApiParameter(name, kind, required=name in required, description=field.get("description", ""))
        )
    return parameters
