"""Random small memories written through the real importer: what projection and PPR tests load back."""

from __future__ import annotations

import random
from collections import Counter

from memoria.graph import driver, kinds
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import

STORED_EDGES = """
MATCH (a:Memory {group_id: $group})-[r:RELATES|MENTIONS]->(b:Memory)
RETURN a.id AS source, b.id AS target, type(r) AS link, r.weight AS weight, r.relation_category AS category
"""


def random_memory(group: str, *, entities: int, episodes: int, facts: int, seed: int) -> dict:
    """Entities joined by weighted facts (parallel ones included), episodes mentioning a few of them."""
    rng = random.Random(seed)
    entity_ids = [f"{group}-e{index}" for index in range(entities)]
    nodes = [
        {"id": node_id, "name": f"entity {index}", "labels": ["Entity"]} for index, node_id in enumerate(entity_ids)
    ]
    nodes += [
        {"id": f"{group}-p{index}", "name": f"episode {index}", "labels": ["Episode"], "content": f"text {index}"}
        for index in range(episodes)
    ]
    edges = []
    for index in range(facts):
        source, target = rng.sample(entity_ids, 2)
        edge = {
            "source": source,
            "target": target,
            "relation": f"rel{index % 7}",
            "weight": round(rng.uniform(0.25, 1.0), 3),
            "id": f"{group}-f{index}",
        }
        if rng.random() < 0.7:
            edge["category"] = rng.choice(kinds.RELATION_CATEGORIES)
        edges.append(edge)
    mentions = [
        {"episode": f"{group}-p{index}", "entity": entity}
        for index in range(episodes)
        for entity in rng.sample(entity_ids, 3)
    ]
    return {"nodes": nodes, "edges": edges, "mentions": mentions}


def store(group: str, document: dict) -> None:
    graph_document_import(document=parse_graph_document(document, group=group), group=group)


def stored_edges(group: str) -> Counter:
    """(source, target, link, weight, category) of every stored edge, read row by row: the independent truth."""
    return Counter(
        (
            row["source"],
            row["target"],
            row["link"],
            row["weight"] if row["link"] == kinds.RELATES else 1.0,
            row["category"],
        )
        for row in driver.read(STORED_EDGES, group=group)
    )
