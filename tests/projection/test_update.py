"""An incrementally updated projection is, field by field, the projection a full load of the same version gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from memoria.curation.edit import edge_update
from memoria.curation.inputs import edge_patch_parse, entity_merge_parse
from memoria.curation.merge import entity_merge
from memoria.graph import driver
from memoria.graph.versions import group_stamps_compact, group_version, group_version_bump
from memoria.graphindex.service import node_remove
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episode_add
from memoria.projection.cache import ProjectionCache
from memoria.projection.projection import FULL, INCREMENTAL, Projection, projection_load
from memoria.projection.update import projection_update
from tests.projection.graphs import random_memory, store

pytestmark = pytest.mark.django_db  # curation edits write their audit entries


def decoded_edges(projection: Projection) -> list[tuple]:
    """Every edge with everything read of it, in the projection's order."""
    facts = projection.facts
    return [
        (
            projection.ids[source],
            projection.ids[target],
            float(projection.weights[edge]),
            int(projection.categories[edge]),
            int(projection.links[edge]),
            facts.ids[edge],
            int(facts.id_ranks[edge]),
            facts.relation(edge),
            facts.weight(edge),
            facts.tags(edge),
            tuple(column.value(edge) for column in facts.validity.values()),
        )
        for edge, (source, target) in enumerate(zip(projection.sources, projection.targets, strict=True))
    ]


def assert_same(updated: Projection, loaded: Projection) -> None:
    assert updated.version == loaded.version and updated.stamps == loaded.stamps
    assert updated.ids == loaded.ids and updated.names == loaded.names
    assert [updated.name(p) for p in range(updated.size)] == [loaded.name(p) for p in range(loaded.size)]
    assert [updated.labels(p) for p in range(updated.size)] == [loaded.labels(p) for p in range(loaded.size)]
    for name in ("kinds", "indptr", "targets", "weights", "categories", "links", "unnamed", "relates_degrees", "keys"):
        left, right = getattr(updated, name), getattr(loaded, name)
        assert left.dtype == right.dtype and np.array_equal(left, right), name
    assert decoded_edges(updated) == decoded_edges(loaded)
    walks = updated.walk(directed=False, mentions=True), loaded.walk(directed=False, mentions=True)
    assert (walks[0].symmetric != walks[1].symmetric).nnz == 0  # PPR walks the same graph


def updated(previous: Projection) -> Projection:
    projection = projection_update(previous)
    assert projection is not None and projection.update == INCREMENTAL
    return projection


@pytest.fixture
def memory(group: str) -> str:
    document = random_memory(group, entities=40, episodes=6, facts=120, seed=12)
    for index, edge in enumerate(document["edges"]):
        if index % 3 == 0:
            edge["tags"] = [f"t{index % 4}", "shared"]
        if index % 5 == 0:
            edge["valid_at"] = f"2024-01-{1 + index % 28:02d}T00:00:00Z"
    store(group, document)
    return group


def test_random_small_writes_update_to_what_a_full_load_gives(memory: str) -> None:
    rng = random.Random(3)
    projection = projection_load(group=memory)
    assert projection.update == FULL
    for round_ in range(4):
        entities = [node_id for node_id in projection.ids if "-e" in node_id]
        new_node = f"{memory}-n{round_}"
        store(
            memory,
            {
                "nodes": [{"id": new_node, "name": f"new {round_}", "labels": ["Entity"]}],
                "edges": [
                    {
                        "source": rng.choice(entities),
                        "target": target,
                        "relation": f"added{round_}",
                        "weight": 0.4,
                        "id": f"{memory}-a{round_}-{index}",
                        "tags": ["fresh", "shared"],
                        "valid_at": "2025-05-05T00:00:00Z",
                    }
                    for index, target in enumerate([new_node, rng.choice(entities), rng.choice(entities)])
                ],
            },
        )
        edge_update(
            group=memory,
            edge_id=f"{memory}-f{rng.randrange(120)}",
            patch=edge_patch_parse({"weight": 0.9, "tags": ["edited"]}),
            actor="test",
        )
        node_remove(group=memory, node_id=rng.choice(entities))
        projection = updated(projection)
        assert_same(projection, projection_load(group=memory))


def test_a_node_that_goes_takes_its_edges_and_positions_shift(memory: str) -> None:
    projection = projection_load(group=memory)
    duplicate, kept = f"{memory}-e5", f"{memory}-e6"
    entity_merge(group=memory, entity_id=kept, merge=entity_merge_parse({"from": duplicate}), actor="test")
    after = updated(projection)
    assert after.position(duplicate) is None and after.size == projection.size - 1
    assert_same(after, projection_load(group=memory))


def test_a_node_at_the_front_shifts_every_position(memory: str) -> None:
    projection = projection_load(group=memory)
    store(memory, {"nodes": [{"id": f"{memory}-a-first", "name": "first", "labels": ["Entity"]}], "edges": []})
    after = updated(projection)
    assert after.ids[0] == f"{memory}-a-first"
    assert_same(after, projection_load(group=memory))


def test_nothing_touched_updates_to_the_same_arrays(memory: str) -> None:
    projection = projection_load(group=memory)
    assert_same(updated(projection), projection_load(group=memory))


def test_a_write_that_cannot_say_what_it_touched_forces_a_full_load(memory: str) -> None:
    projection = projection_load(group=memory)
    driver.write_transaction(lambda tx: group_version_bump(tx, memory))
    assert projection_update(projection) is None


def test_writes_folded_before_the_update_saw_them_are_still_read_again(memory: str) -> None:
    projection = projection_load(group=memory)
    node_remove(group=memory, node_id=f"{memory}-e3")
    store(memory, {"nodes": [{"id": f"{memory}-late", "name": "late", "labels": ["Entity"]}], "edges": []})
    assert group_stamps_compact(group=memory, after=0) == 3  # the import's, and two the projection never saw
    assert_same(updated(projection), projection_load(group=memory))


def test_too_much_touched_forces_a_full_load(memory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memoria.projection.update.INCREMENTAL_NODES", 1)
    projection = projection_load(group=memory)
    node_remove(group=memory, node_id=f"{memory}-e1")
    assert projection_update(projection) is None


def test_the_cache_updates_incrementally_and_says_so(memory: str) -> None:
    cache = ProjectionCache()
    _, first = cache.get(memory, wait=30)
    assert first.update == FULL and first.as_dict()["update"] == FULL
    node_remove(group=memory, node_id=f"{memory}-e2")
    after, second = cache.get(memory, wait=30)
    assert second.update == INCREMENTAL and second.state == "ready" and second.as_dict()["update"] == INCREMENTAL
    assert second.version == group_version(group=memory).version == first.version + 1
    assert_same(after, projection_load(group=memory))
    driver.write_transaction(lambda tx: group_version_bump(tx, memory))
    assert cache.get(memory, wait=30)[1].update == FULL


def test_ingested_episodes_update_to_what_a_full_load_gives(group: str) -> None:
    """Episodes through the real pipeline: new entities, facts, mentions, a merged fact and a contradiction."""
    conversation = [
        EpisodeInput(
            "Liv: Hi Oren! My sister Maren lives in Tallinn.", id=f"{group}-c1", valid_at="2024-03-01T10:00:00Z"
        ),
        EpisodeInput("Liv: Maren lives in Tallinn, she loves it.", id=f"{group}-c2", valid_at="2024-03-03T10:00:00Z"),
        EpisodeInput("Liv: Maren moved to Riga last week.", id=f"{group}-c3", valid_at="2024-04-10T10:00:00Z"),
    ]
    projection = projection_load(group=group)
    for episode in conversation:
        episode_add(group=group, episode=episode)
        projection = updated(projection)
        assert_same(projection, projection_load(group=group))
    assert projection.facts.validity["invalid_at"].codes.size and any(
        projection.facts.validity["invalid_at"].value(edge) for edge in range(projection.edge_count)
    )
