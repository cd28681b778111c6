"""What a community build takes (POST /api/groups/{group}/communities): one pydantic model, documented from itself.

The resolution's rules stay with the build (memoria.ingest.communities.check_resolution); the model applies them
before anything is read, so a bad body is a 400 naming `resolution`, and the schema says the same bounds.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from memoria.errors import InvalidInput
from memoria.ingest.communities import (
    ALGORITHMS,
    DEFAULT_RESOLUTION,
    LABEL_PROPAGATION,
    MAX_RESOLUTION,
    MIN_RESOLUTION,
    check_resolution,
)
from memoria.requests.vocabulary import RequestModel

# A JSON number only: lax floats would take "1.5" and true, which the body never meant.
Resolution = Annotated[
    float,
    Field(
        strict=True,
        ge=MIN_RESOLUTION,
        le=MAX_RESOLUTION,
        description=f"Leiden only, greater than 0 (default {DEFAULT_RESOLUTION})",
    ),
]


class CommunityBuild(RequestModel):
    """`resolution` only with Leiden; absent means the default, and null is refused rather than read as absent."""

    algorithm: Literal[ALGORITHMS] = LABEL_PROPAGATION  # type: ignore[valid-type]
    resolution: Resolution = None  # type: ignore[assignment]

    @field_validator("resolution", mode="before")
    @classmethod
    def _resolution_fits_algorithm(cls, value: object, info: ValidationInfo) -> object:
        """The build's own check, so its wording ("only the leiden algorithm takes one", the range) is the 400's."""
        algorithm = info.data.get("algorithm")
        if algorithm is None or value is None or isinstance(value, bool) or not isinstance(value, int | float):
            return value  # a bad algorithm is named on its own; a non-number by the type check
        try:
            check_resolution(algorithm, value)
        except InvalidInput as error:
            raise ValueError("; ".join(p.removeprefix("resolution: ") for p in error.problems)) from None
        return value
