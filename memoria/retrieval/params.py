"""Parameters of an Activation Energy retrieval: the seed's defaults, and the bounds that reject nonsense early."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from memoria.requests.vocabulary import Number, RequestModel, WholeNumber

MAX_SEEDS = 5


@dataclass(frozen=True)
class ActivationParams:
    max_depth: int = 5
    min_activation: float = 0.005
    tag_sim_floor: float = 0.15
    max_branches: int = 3

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# name → (type, lowest, highest, whether the lowest value itself is allowed); the explorer's form reads them too.
BOUNDS: dict[str, tuple[type, float, float, bool]] = {
    "max_depth": (int, 1, 10, True),
    "min_activation": (float, 0.0, 1.0, False),
    "tag_sim_floor": (float, 0.0, 1.0, True),
    "max_branches": (int, 1, 20, True),
}
_DEFAULTS = ActivationParams()


def _bounded(name: str) -> Any:
    """The field `name`: its kind, its default and its BOUNDS, applied in their words ("0 is outside (0, 1]")."""
    kind, low, high, low_ok = BOUNDS[name]

    def check(value: float) -> float:
        if not ((low <= value if low_ok else low < value) and value <= high):
            raise ValueError(f"{value:g} is outside {'[' if low_ok else '('}{low:g}, {high:g}]")
        return value

    schema = {"minimum" if low_ok else "exclusiveMinimum": low, "maximum": high}
    return Annotated[
        WholeNumber if kind is int else Number,
        AfterValidator(check),
        Field(default=getattr(_DEFAULTS, name), json_schema_extra=schema),
    ]


class ActivationParamsInput(RequestModel):
    """Overrides of the seed's defaults (docs/retrieval.md); a parameter left out keeps its default."""

    max_depth: _bounded("max_depth")  # type: ignore[valid-type]
    min_activation: _bounded("min_activation")  # type: ignore[valid-type]
    tag_sim_floor: _bounded("tag_sim_floor")  # type: ignore[valid-type]
    max_branches: _bounded("max_branches")  # type: ignore[valid-type]

    def params(self) -> ActivationParams:
        return ActivationParams(**self.model_dump())
