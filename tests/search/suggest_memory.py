"""A small memory for search-as-you-type: two entities with the same name (told apart by date and id), a third
of another kind with a similar name, and facts that date them; embedded, as imports are."""

from __future__ import annotations

from memoria.reindex import group_reindex
from tests.browse.graphs import entity, fact, load

SAME_NAME = "Drafted an expedite request to Nordbalt Metals"


def store_suggest_memory(group: str) -> dict[str, str]:
    ids = {name: f"{group}-{name}" for name in ("first", "second", "feed", "wh", "lyons", "service")}
    nodes = [
        entity(ids["first"], SAME_NAME, "AgentAction", summary="Asked Nordbalt to pull 300 bolt kits forward."),
        entity(ids["second"], SAME_NAME, "AgentAction", summary="Asked again after the customs hold in Lyon."),
        entity(ids["feed"], "Nordbalt Metals ASN feed", "DataSource", summary="Advance shipping notices, hourly."),
        entity(ids["wh"], "Warehouse Lyon", summary="The Lyon distribution centre."),
        # Near "Lyon" and "supplier" in meaning, holding neither word: typing more letters must not drift to them.
        entity(ids["lyons"], "Lyons cycle count log", "DataSource", summary="Counts of the Lyons depot."),
        entity(ids["service"], "Prefers service level 97% over lower holding cost", "UserPreference"),
    ]
    edges = [
        fact(ids["first"], ids["feed"], 0.8, "uses_data", valid_at="2025-02-03T10:00:00Z"),
        fact(ids["second"], ids["feed"], 0.8, "uses_data", valid_at="2025-06-20T10:00:00Z"),
        fact(ids["second"], ids["wh"], 0.6, "concerns", valid_at="2025-06-21T10:00:00Z"),
    ]
    load(group, nodes=nodes, edges=edges)
    group_reindex(group=group)
    return ids
