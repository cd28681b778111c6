"""Group views against the real graph server: built from the group alone, caught up by the stamps a write leaves,
never showing another group's items, and refused (with the server's indexes answering) past the memory budget."""

from __future__ import annotations

import numpy as np
import pytest

from memoria.embeddings import embedder
from memoria.graph import driver
from memoria.graph.versions import COMPACT_AFTER, group_stamps, group_version, group_version_bump
from memoria.graphindex.service import edge_remove
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.readmodel import scopes
from memoria.readmodel.cache import ViewCache, ViewTooLarge, view_cache
from memoria.readmodel.text_index import query_terms
from memoria.reindex import group_reindex
from memoria.search import view_methods
from memoria.search.recipes import recipe
from memoria.search.service import Engine, search
from tests.search.memory import FACT_TEXTS, node_id, store_search_memory


def terms(text: str) -> list[str]:
    """The text's words as the index stores them (stemmed), as a search sends them."""
    return query_terms(text, stop_words=frozenset(), max_terms=32)


@pytest.fixture
def memory(group: str) -> str:
    store_search_memory(group)
    yield group
    view_cache().forget(group)


def read(cache: ViewCache, group: str, scope: str = "facts"):
    with cache.reading(group, scope) as (scopes, state):
        return scopes[scope], state


def test_a_view_holds_the_group_and_nothing_else(memory: str, other_memory: str) -> None:
    cache = ViewCache()
    facts, state = read(cache, memory)
    assert set(facts.items) == {node_id(memory, key) for key in FACT_TEXTS}
    assert state.engine == "view" and state.group == memory and not state.rebuilt
    assert all(facts.vectors.vector(item) is not None for item in facts.items)
    hits = facts.text.search(terms("gloves"), limit=50)
    assert hits and all(key.startswith(memory) for key, _ in hits)
    entities, _ = read(cache, memory, "entities")
    assert all(key.startswith(memory) for key in entities.items)


def test_search_answers_from_views_and_says_so(memory: str, other_memory: str) -> None:
    found = search(query="safety gloves", groups=[memory], config=recipe("combined_hybrid_rrf"))
    assert found.engine["name"] == "view"
    assert set(found.engine["views"]) == {memory}
    for scope in ("facts", "entities", "episodes", "communities"):
        assert all(hit.id.startswith(memory) for hit in getattr(found, scope))
    assert found.facts and found.entities and found.episodes


def test_the_view_and_the_server_indexes_find_the_same_best_facts(memory: str) -> None:
    config = recipe("facts_hybrid_rrf")
    by_view = search(query="Lyon warehouse gloves", groups=[memory], config=config, engine=Engine.VIEW)
    by_server = search(query="Lyon warehouse gloves", groups=[memory], config=config, engine=Engine.CYPHER)
    assert by_server.engine == {"name": "cypher"}
    # As sets: the view's BM25 also reads a fact's relation words, which the server's indexes lack, so two facts
    # with the same ends and near-equal sentences ("ran out of", "had a stockout of") may swap places.
    assert {hit.id for hit in by_view.facts[:3]} == {hit.id for hit in by_server.facts[:3]}


def test_a_view_read_in_many_small_pages_is_the_view_read_in_one(memory: str, monkeypatch) -> None:
    whole = {name: read(ViewCache(), memory, name)[0] for name in ("facts", "entities")}
    monkeypatch.setattr(scopes, "PAGE_ITEMS", 2)  # pages stream two at a time into one matrix reserved at the end
    paged = {name: read(ViewCache(), memory, name)[0] for name in ("facts", "entities")}
    query = embedder().embed_one("trucks to the port")
    for name, scope in whole.items():
        assert paged[name].items == scope.items
        assert paged[name].nbytes == scope.nbytes
        for key in scope.items:
            assert paged[name].vectors.vector(key) == scope.vectors.vector(key)
        assert paged[name].vectors.nearest(query, limit=50) == scope.vectors.nearest(query, limit=50)
        assert paged[name].text.search(terms("port gloves"), limit=50) == scope.text.search(
            terms("port gloves"), limit=50
        )


def test_cosine_is_exact_over_the_stored_vectors(memory: str) -> None:
    rows = driver.read(
        "MATCH (:Memory {group_id: $group})-[r:RELATES]->() RETURN r.id AS id, r.fact_embedding AS v", group=memory
    )
    query = embedder().embed_one("trucks to the port")
    matrix = np.asarray([row["v"] for row in rows], dtype=np.float64)
    cosines = matrix @ np.asarray(query) / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    expected = [rows[i]["id"] for i in np.argsort(-cosines)[:5]]
    found = view_methods.cosine("facts", vector=query, groups=[memory], limit=5, report=view_methods.ViewReport())
    assert [hit.id for hit in found] == expected


def test_an_import_is_caught_up_by_rereading_only_what_it_touched(memory: str) -> None:
    cache = ViewCache()
    read(cache, memory)
    document = {
        "nodes": [{"id": node_id(memory, "oslo"), "name": "Oslo depot", "labels": ["Entity"]}],
        "edges": [
            {
                "id": node_id(memory, "moved"),
                "source": node_id(memory, "alice"),
                "target": node_id(memory, "oslo"),
                "relation": "moved_to",
                "weight": 0.5,
                "fact": "Alice Martin moved to the Oslo depot",
            }
        ],
    }
    graph_document_import(document=parse_graph_document(document, group=memory), group=memory)
    facts, state = read(cache, memory)
    assert node_id(memory, "moved") in facts.items
    assert not state.rebuilt and 0 < state.refreshed_items < len(FACT_TEXTS)
    assert [key for key, _ in facts.text.search(terms("oslo"), limit=5)] == [node_id(memory, "moved")]


def test_a_removed_fact_leaves_the_view(memory: str) -> None:
    cache = ViewCache()
    read(cache, memory)
    assert (
        edge_remove(
            group=memory, source=node_id(memory, "bob"), target=node_id(memory, "rotterdam"), relation="drives_to"
        )
        == 1
    )
    facts, state = read(cache, memory)
    assert node_id(memory, "drives") not in facts.items
    # "truck" also stems the words of another fact ("truck driver"): the removed one alone must be gone.
    assert node_id(memory, "drives") not in dict(facts.text.search(terms("trucks"), limit=5))
    assert dict(facts.text.search(terms("trucks"), limit=5))
    assert not state.rebuilt


def test_a_write_that_cannot_say_what_it_touched_rebuilds(memory: str) -> None:
    cache = ViewCache()
    read(cache, memory)
    driver.write_transaction(lambda tx: group_version_bump(tx, memory))
    _, state = read(cache, memory)
    assert state.rebuilt


def test_folded_stamps_do_not_rebuild_a_view_that_saw_them(memory: str) -> None:
    cache = ViewCache()
    read(cache, memory)
    for _ in range(COMPACT_AFTER + 1):
        driver.write_transaction(lambda tx: group_version_bump(tx, memory, touched=[node_id(memory, "bob")]))
    _, state = read(cache, memory)  # catches up, then folds the stamps
    assert not state.rebuilt
    assert len(group_stamps(group=memory)) == 1
    _, state = read(cache, memory)
    assert not state.rebuilt and state.refreshed_items == 0
    fresh = ViewCache()  # a view that never saw them loads whole, at the same version
    _, other_state = read(fresh, memory)
    assert other_state.version == state.version


def test_past_the_budget_a_view_is_refused_and_search_uses_the_server(memory: str, monkeypatch) -> None:
    tiny = ViewCache(max_bytes=1000)
    with pytest.raises(ViewTooLarge, match="budget"):
        read(tiny, memory)
    assert tiny.sizes() == []
    monkeypatch.setattr("memoria.readmodel.cache._cache", tiny)
    found = search(query="safety gloves", groups=[memory], config=recipe("facts_hybrid_rrf"))
    assert found.engine["name"] == "cypher" and "budget" in found.engine["fallback"]
    assert found.facts
    with pytest.raises(ViewTooLarge):
        search(query="safety gloves", groups=[memory], config=recipe("facts_hybrid_rrf"), engine=Engine.VIEW)


def test_least_recently_used_views_go_first(memory: str, other_memory: str) -> None:
    cache = ViewCache()
    _, _ = read(cache, memory)
    one = cache.sizes()[0].bytes
    cache.max_bytes = int(one * 1.5)
    read(cache, other_memory)
    assert [size.group for size in cache.sizes()] == [other_memory]


def test_stored_vectors_reach_the_view_without_changing_the_version(memory: str) -> None:
    cache = ViewCache()
    document = {"nodes": [{"id": node_id(memory, "oslo"), "name": "Oslo depot", "labels": ["Entity"]}], "edges": []}
    graph_document_import(document=parse_graph_document(document, group=memory), group=memory)
    entities, _ = read(cache, memory, "entities")
    assert node_id(memory, "oslo") in entities.items and entities.vectors.vector(node_id(memory, "oslo")) is None
    version = group_version(group=memory).version
    group_reindex(group=memory, ids=[node_id(memory, "oslo")])
    assert group_version(group=memory).version == version  # projections of the graph need not reload
    entities, state = read(cache, memory, "entities")
    assert entities.vectors.vector(node_id(memory, "oslo")) is not None
    assert not state.rebuilt and state.refreshed_items == 1
