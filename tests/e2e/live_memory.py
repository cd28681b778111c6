"""A small tagged memory for the live retrieval tests. From the forecast request (four facts, so MAX_BRANCHES 3
leaves the weak policy link out) energy reaches the answer, ERP orders then the supplier, and the stockout then
Lyon; past Lyon only a lower MIN_ACTIVATION reaches the policy, and a higher one stops before the supplier."""

from __future__ import annotations

from typing import Any

from tests.browse.graphs import entity, fact, load

QUERY_TAGS = ["stockout", "demand_forecasting"]


def live_memory(group: str) -> dict[str, str]:
    names = ("request", "erp", "stockout", "lyon", "aldana", "policy", "expedite", "answer")
    ids = {name: f"{group}/{name}" for name in names}
    load(
        group,
        nodes=[
            entity(ids["request"], "Forecast gloves demand in Lyon", "UserRequest"),
            entity(ids["erp"], "ERP sales orders", "DataSource"),
            entity(ids["stockout"], "Stockout of safety gloves", "Event"),
            entity(ids["lyon"], "Lyon warehouse"),
            entity(ids["aldana"], "Aldana Safety supplier"),
            entity(ids["policy"], "Safety stock policy for gloves", "UserPreference"),
            entity(ids["expedite"], "Expedite gloves order", "AgentAction"),
            entity(ids["answer"], "Gloves forecast answer", "AgentAnswer"),
        ],
        edges=[
            fact(ids["request"], ids["erp"], 0.8, "uses_data", tags=["erp", "demand_forecasting"]),
            fact(ids["stockout"], ids["request"], 0.6, "explains", tags=["stockout"]),
            fact(ids["answer"], ids["request"], 0.9, "answers", tags=["demand_forecasting"]),
            fact(ids["policy"], ids["request"], 0.3, "constrains"),
            fact(ids["stockout"], ids["lyon"], 0.9, "happened_at", tags=["stockout", "warehouse"]),
            fact(ids["erp"], ids["aldana"], 0.95, "lists", tags=["supplier"]),
            fact(ids["aldana"], ids["lyon"], 0.9, "supplies", tags=["supplier"]),
            fact(ids["expedite"], ids["aldana"], 0.6, "contacts", tags=["supplier"]),
            fact(ids["policy"], ids["lyon"], 0.7, "governs", tags=["safety_stock"]),
        ],
    )
    return ids


def retrieval_body(group: str, seed: str, **params: Any) -> dict[str, Any]:
    """The request the live page sends for one seed chosen at score 1 (its REST twin gives the same answer)."""
    return {
        "group": group,
        "seeds": [{"id": seed, "score": 1.0}],
        "query_tags": QUERY_TAGS,
        "params": {"max_depth": 5, "min_activation": 0.005, "tag_sim_floor": 0.15, "max_branches": 3, **params},
        "explain": True,
    }
