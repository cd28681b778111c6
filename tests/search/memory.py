"""A small memory for the search tests: a chain of facts (for hop distances), near-duplicate facts (for MMR),
facts valid at different times, episodes that mention entities, and two communities.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex

# Hops over RELATES from alice: lyon 1, gloves 2, rotterdam 3, bolts 4, nordbalt 5 (party 1, bob 4).
ENTITIES = {
    "alice": ("Alice Martin", "Supply planner at the Lyon warehouse"),
    "lyon": ("Lyon warehouse", "Main depot for safety equipment in France"),
    "gloves": ("Safety gloves", "Nitrile safety gloves, size L"),
    "rotterdam": ("Rotterdam port", "Port where the imports arrive"),
    "bolts": ("Steel bolt kit", "Bolt kits for assembly lines"),
    "nordbalt": ("Nordbalt Metals", "Supplier of steel parts"),
    "bob": ("Bob Novak", "Truck driver"),
    "party": ("Team birthday party", "A celebration in June"),
}
# id: (source, relation, target)
FACT_ENDS = {
    "works": ("alice", "works_at", "lyon"),
    "stocks": ("lyon", "stocks", "gloves"),
    "ran-out": ("lyon", "ran_out_of", "gloves"),
    "stockout": ("lyon", "stockout_of", "gloves"),
    "arrive": ("gloves", "arrives_at", "rotterdam"),
    "shipped": ("bolts", "shipped_via", "rotterdam"),
    "supplies": ("nordbalt", "supplies", "bolts"),
    "drove": ("bob", "drove_for", "nordbalt"),
    "drives": ("bob", "drives_to", "rotterdam"),
    "party": ("alice", "organises", "party"),
}
FACT_TEXTS = {
    "works": "Alice Martin works at the Lyon warehouse as a supply planner",
    "stocks": "The Lyon warehouse keeps 40 pallets of safety gloves",
    "ran-out": "The Lyon warehouse ran out of safety gloves in March",
    "stockout": "The Lyon warehouse had a stockout of safety gloves in March",
    "arrive": "Safety gloves arrive through the Rotterdam port",
    "shipped": "Steel bolt kits are shipped through the Rotterdam port",
    "supplies": "Nordbalt Metals supplies the steel bolt kit",
    "drove": "Bob Novak worked as a truck driver for Nordbalt Metals",
    "drives": "Bob Novak drives trucks to the Rotterdam port",
    "party": "Alice Martin organises the team birthday party",
}
# id: (valid_at, invalid_at); every other fact holds from 2023-01-01 on.
FACT_TIMES = {
    "drove": ("2020-01-01", "2022-06-01"),
    "drives": ("2022-06-01", None),
    "ran-out": ("2024-03-01", None),
    "stockout": ("2024-03-02", None),
    "party": ("2024-06-01", None),
}
EPISODES = {
    "ep1": ("Alice said the Lyon warehouse ran out of safety gloves", ("alice", "lyon", "gloves")),
    "ep2": ("Alice ordered more safety gloves through Rotterdam", ("alice", "gloves", "rotterdam")),
    "ep3": ("Nordbalt Metals delayed the steel bolt kit again", ("nordbalt", "bolts")),
}
COMMUNITIES = {
    "safety": ("Safety equipment supply", "Gloves stocked at the Lyon warehouse", ("gloves", "lyon")),
    "metal": ("Metal parts logistics", "Bolts shipped via Rotterdam by Nordbalt", ("bolts", "nordbalt", "rotterdam")),
}


def node_id(group: str, key: str) -> str:
    return f"{group}-{key}"


def search_memory(group: str) -> dict:
    def at(day: str | None) -> str | None:
        return f"{day}T00:00:00Z" if day else None

    nodes = [
        {"id": node_id(group, key), "name": name, "labels": ["Entity"], "summary": summary}
        for key, (name, summary) in ENTITIES.items()
    ]
    nodes += [
        {
            "id": node_id(group, key),
            "name": key,
            "labels": ["Episode"],
            "content": content,
            "valid_at": at("2024-03-10"),
        }
        for key, (content, _) in EPISODES.items()
    ]
    nodes += [
        {"id": node_id(group, key), "name": name, "labels": ["Community"], "summary": summary}
        for key, (name, summary, _) in COMMUNITIES.items()
    ]
    edges = [
        {
            "id": node_id(group, key),
            "source": node_id(group, source),
            "target": node_id(group, target),
            "relation": relation,
            "weight": 0.5,
            "tags": [],
            "fact": FACT_TEXTS[key],
            "valid_at": at(FACT_TIMES.get(key, ("2023-01-01", None))[0]),
            "invalid_at": at(FACT_TIMES.get(key, ("2023-01-01", None))[1]),
        }
        for key, (source, relation, target) in FACT_ENDS.items()
    ]
    mentions = [
        {"episode": node_id(group, key), "entity": node_id(group, entity)}
        for key, (_, entities) in EPISODES.items()
        for entity in entities
    ]
    memberships = [
        {"community": node_id(group, key), "entity": node_id(group, entity)}
        for key, (_, _, members) in COMMUNITIES.items()
        for entity in members
    ]
    return {"nodes": nodes, "edges": edges, "mentions": mentions, "memberships": memberships}


def store_search_memory(group: str) -> str:
    """Import the memory into the group and embed it, as a real group would be."""
    graph_document_import(document=parse_graph_document(search_memory(group), group=group), group=group)
    group_reindex(group=group)
    return group


@contextlib.contextmanager
def search_memory_group() -> Iterator[str]:
    """A fresh group holding this memory, deleted afterwards: for fixtures shared by a module's tests."""
    group = f"c-{uuid.uuid4().hex[:10]}"
    store_search_memory(group)
    try:
        yield group
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)
