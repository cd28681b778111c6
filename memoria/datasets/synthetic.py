"""A synthetic memory graph for benchmarks: preferential attachment (hubs), six kinds, tagged weighted edges.

Deterministic for a seed. Nodes carry a topic, and an edge draws most of its
3–8 tags from its source's topic, so query tags select paths as they would in
a real memory.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from memoria.graph.kinds import DEFAULT_ENTITY_LABELS

VOCABULARY_SIZE = 200
TOPICS = 20
ATTACHMENT_SHARE = 0.8  # of edge targets chosen by preferential attachment; the rest uniformly
RELATIONS = ("uses_data", "caused_by", "answers", "based_on", "triggered", "constrains", "follows_up", "reports")


@dataclass(frozen=True)
class SyntheticNode:
    id: str
    kind: str
    topic: int


@dataclass(frozen=True)
class SyntheticEdge:
    id: str
    source: str
    target: str
    relation: str
    weight: float
    tags: tuple[str, ...]


def vocabulary() -> list[str]:
    return [f"topic{index // 10:02d}_term{index % 10}" for index in range(VOCABULARY_SIZE)]


def topic_tags(topic: int) -> list[str]:
    words = vocabulary()
    return words[topic * 10 : topic * 10 + 10]


def synthetic_nodes(*, group: str, count: int, seed: int = 1) -> list[SyntheticNode]:
    rng = random.Random(seed)
    return [
        SyntheticNode(
            f"{group}-n{index}", DEFAULT_ENTITY_LABELS[index % len(DEFAULT_ENTITY_LABELS)], rng.randrange(TOPICS)
        )
        for index in range(count)
    ]


def synthetic_edges(*, group: str, nodes: list[SyntheticNode], count: int, seed: int = 1) -> Iterator[SyntheticEdge]:
    rng = random.Random(seed + 1)
    words = vocabulary()
    endpoints: list[int] = []  # every edge end once: uniform picks from it are proportional to degree
    for index in range(count):
        source = rng.randrange(len(nodes))
        while True:
            if endpoints and rng.random() < ATTACHMENT_SHARE:
                target = endpoints[rng.randrange(len(endpoints))]
            else:
                target = rng.randrange(len(nodes))
            if target != source:
                break
        endpoints.extend((source, target))
        own = topic_tags(nodes[source].topic)
        size = rng.randint(3, 8)
        tags = set(rng.sample(own, size - 1))
        while len(tags) < size:  # one tag from anywhere, so topics overlap a little
            tags.add(words[rng.randrange(len(words))])
        yield SyntheticEdge(
            id=f"{group}-e{index}",
            source=nodes[source].id,
            target=nodes[target].id,
            relation=RELATIONS[rng.randrange(len(RELATIONS))],
            weight=round(rng.uniform(0.25, 1.0), 3),
            tags=tuple(sorted(tags)),
        )
