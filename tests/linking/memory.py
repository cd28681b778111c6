"""A small two-hop memory: who was born where, and what flows through that city, with distractors that share
the question's words but not its entities."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex

ENTITIES = {
    "ada": ("Ada Lindqvist", {}),
    "vaasa": ("Vaasa", {"aliases": ["Vasa"]}),
    "kyro": ("Kyro River", {}),
    "rhine": ("Rhine", {}),
    "basel": ("Basel", {}),
    "river": ("river", {}),  # a common noun that open extraction keeps as an entity
    "cathedral": ("Helsinki Cathedral", {}),
    "cathedral2": ("Helsinki Cathedral (Finland)", {}),
    "pie": ("Apple pie", {}),
}
FACTS = {
    "born": ("ada", "born_in", "vaasa", "Ada Lindqvist was born in Vaasa"),
    "flows": ("kyro", "flows_through", "vaasa", "The Kyro River flows through Vaasa"),
    "rhine": ("rhine", "flows_through", "basel", "The Rhine flows through Basel"),
}
EPISODES = {
    "ep-born": ("Ada Lindqvist", "Ada Lindqvist was born in Vaasa in 1931 and painted all her life.", ("ada", "vaasa")),
    "ep-river": ("Kyro River", "The Kyro River flows through Vaasa before it reaches the sea.", ("kyro", "vaasa")),
    "ep-rhine": ("Rhine", "The Rhine is a river that flows through Basel, where many were born.", ("rhine", "basel")),
    "ep-rivers": ("Rivers", "Geography asks which rivers cross which towns.", ("river",)),
    "ep-river2": ("Painters", "Painters like to paint a river at dawn.", ("river",)),
    "ep-church": ("Cathedral", "Helsinki Cathedral stands on Senate Square.", ("cathedral",)),
}
QUESTION = "Which river flows through the city where Ada Lindqvist was born?"


def two_hop_document(group: str) -> dict:
    def node(key: str) -> str:
        return f"{group}-{key}"

    nodes = [
        {"id": node(key), "name": name, "labels": ["Entity"], "summary": "", "properties": attributes}
        for key, (name, attributes) in ENTITIES.items()
    ]
    nodes += [
        {"id": node(key), "name": name, "labels": ["Episode"], "content": content}
        for key, (name, content, _) in EPISODES.items()
    ]
    edges = [
        {
            "id": node(key),
            "source": node(source),
            "target": node(target),
            "relation": relation,
            "weight": 1.0,
            "tags": [],
            "fact": fact,
        }
        for key, (source, relation, target, fact) in FACTS.items()
    ]
    mentions = [
        {"episode": node(key), "entity": node(entity)} for key, (_, _, ends) in EPISODES.items() for entity in ends
    ]
    return {"nodes": nodes, "edges": edges, "mentions": mentions}


def store_two_hop(group: str) -> str:
    graph_document_import(document=parse_graph_document(two_hop_document(group), group=group), group=group)
    group_reindex(group=group)
    return group


def drop_group(group: str) -> None:
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


@contextlib.contextmanager
def two_hop_group() -> Iterator[str]:
    """A fresh group holding this memory, deleted afterwards: for fixtures shared by a module's tests."""
    group = store_two_hop(f"th-{uuid.uuid4().hex[:10]}")
    try:
        yield group
    finally:
        drop_group(group)
