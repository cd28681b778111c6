"""The Activation Energy formulas of the seed (sections 3 and 4): floored-Jaccard tag similarity and transfer energy.

The Cypher expansion computes the same expressions in the same order, so both
sides produce bit-identical floats; keep the two in step.
"""

from __future__ import annotations

import math
from collections.abc import Collection

MISSING_WEIGHT = 0.01  # the seed's coalesce(r.weight, 0.01)


def tag_similarity(edge_tags: Collection[str], query_tags: Collection[str], floor: float) -> float:
    """Floored Jaccard: 1 without query tags, the floor for untagged edges, else floor + (1 − floor)·J."""
    if not query_tags:
        return 1.0
    if not edge_tags:
        return floor
    return floored_jaccard(sum(1 for tag in edge_tags if tag in query_tags), len(edge_tags), len(query_tags), floor)


def floored_jaccard(shared: int, edge_tags: int, query_tags: int, floor: float) -> float:
    """floor + (1 − floor)·J from the counts alone (J = shared / (edge + query − shared)), for a tagged edge and a
    query with tags: the view engine counts tag codes, not strings."""
    return floor + (1.0 - floor) * float(shared) / (edge_tags + query_tags - shared)


def sqrt_degree(degree: int) -> float:
    """√d: the softened hub penalty (Cypher's sqrt(toFloat(degree)); both are correctly rounded, so equal)."""
    return math.sqrt(float(degree))


def transfer_energy(activation: float, weight: float | None, degree: int, tag_sim: float) -> float:
    """T(Mi→Mj) = R(Mi) · w / √d(Mi) · tag_sim, with a missing weight read as 0.01."""
    return (activation * (MISSING_WEIGHT if weight is None else weight) / sqrt_degree(degree)) * tag_sim
