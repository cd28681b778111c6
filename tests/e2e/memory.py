"""A small warehouse memory for the browser tests, with one invalidated fact and two paths that differ:
from the forecast request to the Lyon warehouse the shortest goes through the stockout (2 hops, 0.35 × 0.9) and
the strongest through ERP orders and the supplier (3 hops, 0.8 × 0.95 × 0.9)."""

from __future__ import annotations

from tests.browse.graphs import community, entity, episode, fact, load

DEPOT_BINS = 53  # more than a page of links (50), so the depot offers "more"


def warehouse_memory(group: str) -> dict[str, str]:
    names = ("forecast", "erp", "stockout", "lyon", "aldana", "policy", "expedite", "ep1", "ep2", "com", "depot")
    ids = {name: f"{group}/{name}" for name in names}
    nodes = [
        entity(ids["forecast"], "Forecast gloves demand in Lyon", "UserRequest", summary="A planner asked for it."),
        entity(ids["erp"], "ERP sales orders", "DataSource"),
        entity(ids["stockout"], "Stockout of safety gloves", "Event"),
        entity(ids["lyon"], "Lyon warehouse"),
        entity(ids["aldana"], "Aldana Safety supplier"),
        entity(ids["policy"], "Safety stock policy for gloves", "UserPreference", summary="Keep two weeks of cover."),
        entity(ids["expedite"], "Expedite gloves order", "AgentAction"),
        entity(ids["depot"], "Rotterdam depot"),
        *(entity(f"{group}/bin{i}", f"Bin {i}") for i in range(DEPOT_BINS)),
        episode(
            ids["ep1"],
            "planner message",
            "Forecast gloves demand in Lyon from the ERP sales orders.",
            "2025-02-10T09:00:00Z",
        ),
        episode(
            ids["ep2"], "policy change", "From March the safety stock policy governs Lyon.", "2025-03-01T09:00:00Z"
        ),
        community(ids["com"], "Lyon gloves supply", "Gloves around Lyon."),
    ]
    edges = [
        fact(
            ids["forecast"],
            ids["erp"],
            0.8,
            "uses_data",
            category="CAUSALITY",
            episodes=[ids["ep1"]],
            fact="The forecast uses the ERP sales orders",
            tags=["erp", "demand_forecasting"],
            valid_at="2025-02-10T00:00:00Z",
        ),
        fact(
            ids["forecast"],
            ids["stockout"],
            0.35,
            "explains",
            category="CAUSALITY",
            fact="The stockout explains the forecast request",
            valid_at="2025-02-12T00:00:00Z",
        ),
        fact(
            ids["stockout"],
            ids["lyon"],
            0.9,
            "happened_at",
            category="SPATIAL",
            fact="The stockout happened at Lyon",
            valid_at="2025-02-01T00:00:00Z",
        ),
        fact(ids["erp"], ids["aldana"], 0.95, "lists", fact="ERP orders list Aldana as supplier"),
        fact(ids["aldana"], ids["lyon"], 0.9, "supplies", category="SPATIAL", fact="Aldana supplies Lyon"),
        fact(
            ids["policy"],
            ids["lyon"],
            0.4,
            "applies_to",
            category="HIERARCHICAL",
            episodes=[ids["ep2"]],
            fact="The old safety stock policy applies to Lyon",
            valid_at="2025-01-05T00:00:00Z",
            invalid_at="2025-03-01T00:00:00Z",
        ),
        fact(
            ids["policy"],
            ids["lyon"],
            0.7,
            "governs",
            category="HIERARCHICAL",
            episodes=[ids["ep2"]],
            fact="The safety stock policy governs Lyon",
            valid_at="2025-03-01T00:00:00Z",
        ),
        fact(ids["expedite"], ids["aldana"], 0.6, "contacts", category="ATTRIBUTION", fact="Expediting calls Aldana"),
        *(fact(ids["depot"], f"{group}/bin{i}", round(0.3 + 0.01 * i, 2), "stores") for i in range(DEPOT_BINS)),
    ]
    mentions = [
        {"episode": ids["ep1"], "entity": ids["forecast"]},
        {"episode": ids["ep1"], "entity": ids["erp"]},
        {"episode": ids["ep2"], "entity": ids["policy"]},
        {"episode": ids["ep2"], "entity": ids["lyon"]},
    ]
    memberships = [{"community": ids["com"], "entity": ids[name]} for name in ("lyon", "stockout", "aldana", "policy")]
    load(group, nodes=nodes, edges=edges, mentions=mentions, memberships=memberships)
    return ids
