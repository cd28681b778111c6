"""Step 3 on the real server: stored candidates by full text and by vector, fused, then the offline rules."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from memoria.embeddings import embedder
from memoria.graph import driver
from memoria.ingest.extract_entities import PHRASE, PROPER, ExtractedEntity
from memoria.ingest.resolve_entities import (
    Candidate,
    EntityState,
    OfflineEntityResolver,
    ResolveEntitiesInput,
    entities_resolve,
    entity_candidates,
    entity_id,
)
from memoria.ingest.text import name_key
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.readmodel.cache import ViewCache
from memoria.reindex import group_reindex

STORED = ["Northwind Freight Logistics", "Ilse Varga", "Melisande", "color palette", "Berlin Marathon"]


def mention(name: str, kind: str = PROPER) -> ExtractedEntity:
    return ExtractedEntity(name=name, key=name_key(name), kind=kind, confidence=0.8)


def embed(names: list[str]) -> list[list[float]]:
    return embedder().embed(names)


@pytest.fixture
def stored(group: str) -> str:
    nodes = [{"id": f"{group}-{index}", "name": name} for index, name in enumerate(STORED)]
    graph_document_import(document=parse_graph_document({"nodes": nodes, "edges": []}, group=group), group=group)
    group_reindex(group=group)
    return group


def test_candidates_come_from_both_indexes_and_stay_in_the_group(stored: str) -> None:
    names = {"northwind": "Northwind", "palette": "colour palette"}
    vectors = dict(zip(names, embed(list(names.values())), strict=True))
    found = entity_candidates(group=stored, names=names, vectors=vectors)
    assert found["northwind"][0].entity.name == "Northwind Freight Logistics"
    palette = next(c for c in found["palette"] if c.entity.name == "color palette")
    assert palette.vector_score >= 0.6  # found by meaning: the full-text index does not know "colour"
    assert all(c.vector_score is None or c.vector_score >= 0.6 for cs in found.values() for c in cs)
    assert entity_candidates(group="someone-else", names=names, vectors={}) == {"northwind": [], "palette": []}


@pytest.mark.parametrize(
    ("name", "kind", "expected", "reason"),
    [
        ("northwind freight logistics", PHRASE, "Northwind Freight Logistics", "same name"),
        ("Varga", PROPER, "Ilse Varga", "part of the name"),
        ("Mel", PROPER, "Melisande", "nickname"),
        ("colour palette", PHRASE, "color palette", "same meaning"),
        ("Berlin", PROPER, None, "new"),
    ],
)
def test_offline_rules(stored: str, name: str, kind: str, expected: str | None, reason: str) -> None:
    resolution = entities_resolve(request=ResolveEntitiesInput(stored, (mention(name, kind),), embed))
    entity = resolution.entity(name_key(name))
    assert resolution.reasons[name_key(name)] == reason
    if expected is None:
        assert entity.is_new and entity.id == entity_id(stored, name_key(name))
    else:
        assert entity.name == expected and not entity.is_new
        assert name in entity.aliases or name_key(name) == entity.key


def test_initials_rule() -> None:
    stored = EntityState(id="n1", name="Northwind Freight Logistics", key="northwind freight logistic")
    entity, reason = OfflineEntityResolver().resolve_entity(mention("NFL"), None, [Candidate(stored, 1.0, 0.7)])
    assert (entity, reason) == (stored, "initials")
    assert OfflineEntityResolver().resolve_entity(mention("NWF"), None, [Candidate(stored, 1.0, 0.7)])[0] is None


def test_new_names_meet_names_made_earlier_in_the_batch(group: str) -> None:
    mentions = (mention("Kestrel Foods"), mention("kestrel food", PHRASE), mention("Melisande"), mention("Mel"))
    resolution = entities_resolve(request=ResolveEntitiesInput(group, mentions, embed))
    ids = {key: resolution.resolved[key] for key in resolution.resolved}
    assert len(set(ids.values())) == 2
    assert ids["mel"] == ids["melisande"]
    assert resolution.entities.by_id[ids["mel"]].aliases == ("Mel",)


def test_names_already_met_are_not_embedded_again(group: str) -> None:
    first = entities_resolve(request=ResolveEntitiesInput(group, (mention("Kestrel Foods"),), embed))
    asked: list[str] = []

    def counting(names: list[str]) -> list[list[float]]:
        asked.extend(names)
        return embed(names)

    again = entities_resolve(request=ResolveEntitiesInput(group, (mention("Kestrel Foods"),), counting, first.entities))
    assert asked == []
    assert again.resolved == first.resolved


def test_a_derived_id_held_by_another_group_is_a_new_entity_here(group: str) -> None:
    other = f"{group}-other"
    taken = {"nodes": [{"id": entity_id(group, name_key("Kestrel Foods")), "name": "Kestrel Foods"}], "edges": []}
    graph_document_import(document=parse_graph_document(taken, group=other), group=other)
    try:
        resolution = entities_resolve(request=ResolveEntitiesInput(group, (mention("Kestrel Foods"),), embed))
        (entity,) = resolution.entities.by_id.values()
        assert entity.is_new and entity.id == entity_id(group, name_key("Kestrel Foods"))
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)


@pytest.fixture
def crowd() -> Iterator[str]:
    """Another group holding many copies of one name, closer to the query than anything of the searched group."""
    name = f"t-crowd-{uuid.uuid4().hex[:8]}"
    nodes = [{"id": f"{name}-{index}", "name": "Northwind Freight Logistics"} for index in range(60)]
    graph_document_import(document=parse_graph_document({"nodes": nodes, "edges": []}, group=name), group=name)
    group_reindex(group=name)
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


def test_vector_candidates_are_found_past_other_groups_copies(
    group: str, crowd: str, vector_search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = [{"id": f"{group}-0", "name": "Northwind Freight Logistics GmbH"}]
    graph_document_import(document=parse_graph_document({"nodes": own, "edges": []}, group=group), group=group)
    group_reindex(group=group)
    names = {"northwind": "Northwind Freight Logistics"}
    vectors = dict(zip(names, embed(list(names.values())), strict=True))

    from_view = entity_candidates(group=group, names=names, vectors=vectors)
    monkeypatch.setattr("memoria.readmodel.cache._cache", ViewCache(max_bytes=1))
    from_server = entity_candidates(group=group, names=names, vectors=vectors)

    for found in (from_view, from_server):
        assert [(c.entity.id, c.vector_score is not None) for c in found["northwind"]] == [(f"{group}-0", True)]


def test_past_the_view_budget_the_server_gives_the_same_candidates(
    stored: str, monkeypatch: pytest.MonkeyPatch, vector_search: str
) -> None:
    names = {"northwind": "Northwind", "palette": "colour palette", "varga": "Ilse Varga"}
    vectors = dict(zip(names, embed(list(names.values())), strict=True))
    from_view = entity_candidates(group=stored, names=names, vectors=vectors)
    monkeypatch.setattr("memoria.readmodel.cache._cache", ViewCache(max_bytes=1))
    from_server = entity_candidates(group=stored, names=names, vectors=vectors)
    for key in names:
        assert [c.entity.id for c in from_view[key]][:2] == [c.entity.id for c in from_server[key]][:2]
        scores = {c.entity.id: c.vector_score for c in from_server[key]}
        for candidate in from_view[key]:
            if candidate.vector_score is not None and scores.get(candidate.entity.id) is not None:
                assert candidate.vector_score == pytest.approx(scores[candidate.entity.id], abs=1e-4)
