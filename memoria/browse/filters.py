"""Which facts a graph view shows: those that count at a moment (memoria/graph/asof.py), a least weight, relation
categories.

One filter serves the neighbourhood reads, the subgraph and the path finder, so a path never uses an edge the view
hides. Unlike retrieval, a view with no moment shows every fact: a curator sees ended facts to audit or restore them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memoria.graph import kinds
from memoria.graph.asof import EVERY_FACT, AsOf, moment_cypher
from memoria.graph.rules import MIN_WEIGHT

# Facts stored without a category are asked for by this name.
UNCATEGORISED = "NONE"
CATEGORY_CHOICES: tuple[str, ...] = (*kinds.RELATION_CATEGORIES, UNCATEGORISED)

# A WHERE fragment over the RELATES variable `r`; its parameters come from EdgeFilter.parameters().
FACT_PASSES = f"""{moment_cypher("r")}
AND r.weight >= $min_weight
AND ($categories IS NULL OR r.relation_category IN $categories OR (r.relation_category IS NULL AND $uncategorised))"""


@dataclass(frozen=True)
class EdgeFilter:
    """The default moment is every fact (callers' requests resolve theirs, now by default, through
    asof.view_moment); `categories` None means every category (UNCATEGORISED included)."""

    moment: AsOf = EVERY_FACT
    min_weight: float = MIN_WEIGHT
    categories: tuple[str, ...] | None = None

    def parameters(self) -> dict[str, Any]:
        named = None if self.categories is None else [c for c in self.categories if c != UNCATEGORISED]
        return {
            **self.moment.nullable_parameters(),
            "min_weight": self.min_weight,
            "categories": named,
            "uncategorised": self.categories is None or UNCATEGORISED in self.categories,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "time": self.moment.as_dict(),
            "min_weight": self.min_weight,
            "categories": list(self.categories) if self.categories is not None else None,
        }
