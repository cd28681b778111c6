"""Small hand-built memories for the browse and path tests, written through the graph document importer."""

from __future__ import annotations

from typing import Any

from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import


def entity(node_id: str, name: str | None = None, *labels: str, summary: str = "") -> dict[str, Any]:
    return {"id": node_id, "name": name or node_id, "labels": ["Entity", *labels], "summary": summary}


def episode(node_id: str, name: str, content: str, valid_at: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "name": name,
        "labels": ["Episode"],
        "source": "message",
        "content": content,
        "valid_at": valid_at,
    }


def community(node_id: str, name: str, summary: str) -> dict[str, Any]:
    return {"id": node_id, "name": name, "labels": ["Community"], "summary": summary}


def fact(source: str, target: str, weight: float, relation: str = "related_to", **extra: Any) -> dict[str, Any]:
    return {"source": source, "target": target, "relation": relation, "weight": weight, "tags": [], **extra}


def load(group: str, *, nodes: list[dict], edges: list[dict], mentions=(), memberships=()) -> None:
    document = {"nodes": nodes, "edges": edges, "mentions": list(mentions), "memberships": list(memberships)}
    graph_document_import(document=parse_graph_document(document, group=group), group=group)


def small_memory(group: str) -> dict[str, str]:
    """A request, its data source, an event that stopped affecting it, an answer, two episodes, one community,
    and a hub with seven leaves of rising weight; returns short names → ids (ids hold '/' on purpose)."""
    ids = {name: f"{group}/{name}" for name in ("req", "ds", "ev", "ans", "ep1", "ep2", "com", "hub")}
    ids |= {f"leaf{i}": f"{group}/leaf{i}" for i in range(7)}
    nodes = [
        entity(ids["req"], "Forecast Q3 demand for SKU-1", "UserRequest", summary="A planner wants a forecast."),
        entity(ids["ds"], "ERP orders", "DataSource"),
        entity(ids["ev"], "Supplier strike", "Event"),
        entity(ids["ans"], "Q3 forecast delivered", "AgentAnswer"),
        entity(ids["hub"], "Warehouse Lyon"),
        *(entity(ids[f"leaf{i}"], f"Bin {i}") for i in range(7)),
        episode(
            ids["ep1"], "message 1", "Please forecast Q3 demand for SKU-1 from the ERP orders.", "2025-03-01T09:00:00Z"
        ),
        episode(ids["ep2"], "message 2", "The supplier strike is over.", "2025-04-01T09:00:00Z"),
        community(ids["com"], "Forecasting", "Forecast requests and data."),
    ]
    edges = [
        fact(
            ids["req"],
            ids["ds"],
            0.8,
            "uses_data",
            category="CAUSALITY",
            fact="The forecast uses ERP orders",
            valid_at="2025-03-01T00:00:00Z",
            episodes=[ids["ep1"]],
            tags=["erp", "demand_forecasting"],
        ),
        fact(
            ids["ev"],
            ids["req"],
            0.4,
            "delays",
            category="TEMPORAL",
            fact="The strike delays the forecast",
            valid_at="2025-01-10T00:00:00Z",
            invalid_at="2025-04-01T00:00:00Z",
            episodes=[ids["ep2"]],
        ),
        fact(ids["ans"], ids["req"], 0.6, "answers", category="ATTRIBUTION", fact="The answer closes the request"),
        fact(
            ids["ds"], ids["ev"], 0.5, "reports", fact="ERP orders report the strike", valid_at="2025-02-01T00:00:00Z"
        ),
        *(fact(ids["hub"], ids[f"leaf{i}"], round(0.3 + 0.1 * i, 2), "stores") for i in range(7)),
    ]
    mentions = [
        {"episode": ids["ep1"], "entity": ids["req"]},
        {"episode": ids["ep1"], "entity": ids["ds"]},
        {"episode": ids["ep2"], "entity": ids["ev"]},
        {"episode": ids["ep2"], "entity": ids["req"]},
    ]
    memberships = [{"community": ids["com"], "entity": ids[name]} for name in ("req", "ds", "ev")]
    load(group, nodes=nodes, edges=edges, mentions=mentions, memberships=memberships)
    return ids
