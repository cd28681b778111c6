"""Parameters of an Activation Energy retrieval: the seed's defaults, and the bounds that reject nonsense early."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from memoria.errors import InvalidInput, unknown_keys_problem

MAX_SEEDS = 5


@dataclass(frozen=True)
class ActivationParams:
    max_depth: int = 5
    min_activation: float = 0.005
    tag_sim_floor: float = 0.15
    max_branches: int = 3

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# name → (type, lowest, highest, whether the lowest value itself is allowed)
BOUNDS: dict[str, tuple[type, float, float, bool]] = {
    "max_depth": (int, 1, 10, True),
    "min_activation": (float, 0.0, 1.0, False),
    "tag_sim_floor": (float, 0.0, 1.0, True),
    "max_branches": (int, 1, 20, True),
}


def parse_params(raw: Any, *, where: str = "params") -> ActivationParams:
    """Validate caller-supplied overrides of the defaults; every problem is named."""
    if raw is None:
        return ActivationParams()
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: must be an object")
    problems: list[str] = []
    if unknown := unknown_keys_problem(raw, BOUNDS, where=where, noun="parameter(s)"):
        problems.append(unknown)
    values: dict[str, Any] = {}
    for name, (kind, low, high, low_ok) in BOUNDS.items():
        if name not in raw:
            continue
        value = raw[name]
        number_ok = isinstance(value, int | float) and not isinstance(value, bool)
        if kind is int and not (number_ok and float(value).is_integer()):
            problems.append(f"{where}.{name}: must be a whole number")
            continue
        if kind is float and not (number_ok and math.isfinite(value)):
            problems.append(f"{where}.{name}: must be a number")
            continue
        if not ((low <= value if low_ok else low < value) and value <= high):
            interval = f"{'[' if low_ok else '('}{low:g}, {high:g}]"
            problems.append(f"{where}.{name}: {value} is outside {interval}")
            continue
        values[name] = kind(value)
    if problems:
        raise InvalidInput(problems)
    return ActivationParams(**values)
