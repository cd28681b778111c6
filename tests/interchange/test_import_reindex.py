"""Imports keep the reindex contract on the real server: a changed text loses its vector in the import's own
transaction and only that item is embedded again; an unchanged re-import embeds nothing; full-text sees it all."""

from __future__ import annotations

import copy

import pytest

from memoria.embeddings import embedder
from memoria.graph import driver, kinds
from memoria.graph.dialect import IndexSpec, graph_dialect
from memoria.graph.searchable import fact_text, node_text
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import ImportReport, graph_document_import
from memoria.reindex import reindex_backlog
from memoria.search.methods import facts_cosine
from tests.test_reindex import vectors_of

FULLTEXT_NODES = "CALL db.index.fulltext.queryNodes($index, $text) YIELD node RETURN node.id AS id"
FULLTEXT_FACTS = "CALL db.index.fulltext.queryRelationships($index, $text) YIELD relationship AS r RETURN r.id AS id"


def memory(group: str) -> dict:
    """Two facts (one with a fact text, one without), an entity with an extra kind label, an episode, a community."""
    return {
        "nodes": [
            {"id": f"{group}-stock", "name": "Warehouse stock levels", "labels": ["Entity", "DataSource"]},
            {"id": f"{group}-delay", "name": "Supplier delay", "labels": ["Entity", "Event"], "summary": "late"},
            {"id": f"{group}-plan", "name": "Forecast Q3 demand", "labels": ["Entity", "UserRequest"]},
            {"id": f"{group}-ep", "name": "message 1", "labels": ["Episode"], "content": "Forecast Q3 please"},
            {"id": f"{group}-c", "name": "Forecasting", "labels": ["Community"], "summary": "demand planning"},
        ],
        "edges": [
            {
                "id": f"{group}-reads",
                "source": f"{group}-plan",
                "target": f"{group}-stock",
                "relation": "uses_data",
                "weight": 0.8,
                "tags": [],
                "fact": "The Q3 forecast reads the warehouse stock levels",
            },
            {
                "id": f"{group}-delays",
                "source": f"{group}-delay",
                "target": f"{group}-plan",
                "relation": "delays",
                "weight": 0.5,
                "tags": [],
            },
        ],
    }


def load(data: dict, group: str, *, embed: bool = True) -> ImportReport:
    return graph_document_import(document=parse_graph_document(data, group=group), group=group, embed=embed)


def similarity(vector: list[float], text: str) -> float:
    return sum(x * y for x, y in zip(vector, embedder().embed_one(text), strict=True))


@pytest.fixture
def stored(group: str) -> str:
    report = load(memory(group), group)
    assert report.embedding is not None and report.embedding.error is None
    assert (report.embedding.embedded, report.embedding.left, report.texts_changed) == (7, 0, 0)
    return group


def changed(group: str, edit) -> dict:
    data = copy.deepcopy(memory(group))
    edit(data)
    return data


def test_an_unchanged_reimport_keeps_every_vector_and_embeds_nothing(stored: str) -> None:
    before = vectors_of(stored)
    report = load(memory(stored), stored)
    assert report.texts_changed == 0
    assert report.embedding is not None and (report.embedding.embedded, report.embedding.left) == (0, 0)
    assert vectors_of(stored) == before


def test_a_changed_fact_text_reembeds_only_that_fact(stored: str) -> None:
    before = vectors_of(stored)
    text = "The Q3 forecast ignores the warehouse stock levels"
    report = load(changed(stored, lambda data: data["edges"][0].update(fact=text)), stored)
    assert report.texts_changed == 1 and report.embedding.embedded == 1
    after = vectors_of(stored)
    full = fact_text(
        source_name="Forecast Q3 demand", relation="uses_data", target_name="Warehouse stock levels", fact=text
    )
    assert similarity(after[f"{stored}-reads"], full) > 0.9999
    assert {key: value for key, value in after.items() if key != f"{stored}-reads"} == {
        key: value for key, value in before.items() if key != f"{stored}-reads"
    }


def test_without_embedding_a_changed_text_leaves_no_stale_vector(stored: str) -> None:
    old_text = memory(stored)["edges"][0]["fact"]
    edit = changed(stored, lambda data: data["edges"][0].update(fact="Trucks leave at dawn"))
    report = load(edit, stored, embed=False)
    assert report.embedding is None and report.texts_changed == 1
    assert vectors_of(stored)[f"{stored}-reads"] is None
    assert reindex_backlog(group=stored) == 1
    found = facts_cosine(vector=embedder().embed_one(old_text), groups=[stored], limit=5)
    assert f"{stored}-reads" not in [hit.id for hit in found]


def test_renaming_an_entity_reembeds_it_and_its_facts(stored: str) -> None:
    before = vectors_of(stored)
    report = load(changed(stored, lambda data: data["nodes"][1].update(name="Port strike")), stored)
    # The entity, and the fact that names it; the other fact names neither the old nor the new name.
    assert report.texts_changed == 2 and report.embedding.embedded == 2
    after = vectors_of(stored)
    assert (
        similarity(after[f"{stored}-delay"], node_text(is_episode=False, name="Port strike", summary="late")) > 0.9999
    )
    assert similarity(after[f"{stored}-delays"], "Port strike delays Forecast Q3 demand") > 0.9999
    assert after[f"{stored}-reads"] == before[f"{stored}-reads"]


def test_renaming_an_end_reembeds_a_fact_with_its_own_sentence_too(stored: str) -> None:
    report = load(changed(stored, lambda data: data["nodes"][0].update(name="Depot inventory")), stored)
    assert report.texts_changed == 2 and report.embedding.embedded == 2
    text = fact_text(
        source_name="Forecast Q3 demand",
        relation="uses_data",
        target_name="Depot inventory",
        fact="The Q3 forecast reads the warehouse stock levels",
    )
    assert similarity(vectors_of(stored)[f"{stored}-reads"], text) > 0.9999


def test_episode_names_and_summaries_are_embedded_with_the_rest(stored: str) -> None:
    before = vectors_of(stored)

    def edit(data: dict) -> None:
        data["nodes"][3]["name"] = "message one"
        data["nodes"][1]["summary"] = "three weeks late"
        data["nodes"][4]["summary"] = "forecasts"

    report = load(changed(stored, edit), stored)
    assert report.texts_changed == 3 and report.embedding.embedded == 3
    after = vectors_of(stored)
    expected = {
        "ep": node_text(is_episode=True, name="message one", content="Forecast Q3 please"),
        "delay": node_text(is_episode=False, name="Supplier delay", summary="three weeks late"),
        "c": node_text(is_episode=False, name="Forecasting", summary="forecasts"),
    }
    for key, text in expected.items():
        assert similarity(after[f"{stored}-{key}"], text) > 0.9999
    assert after[f"{stored}-stock"] == before[f"{stored}-stock"]


def test_a_fact_moved_to_other_ends_is_embedded_again(stored: str) -> None:
    def move(data: dict) -> None:
        data["edges"][1]["target"] = f"{stored}-stock"

    report = load(changed(stored, move), stored)
    assert report.edges_updated == 2 and report.embedding.embedded == 1
    text = "Supplier delay delays Warehouse stock levels"
    assert similarity(vectors_of(stored)[f"{stored}-delays"], text) > 0.9999


@pytest.mark.parametrize(
    ("label", "prop", "word", "item"),
    [
        (kinds.ENTITY, "name", "warehouse", "stock"),
        (kinds.ENTITY, "summary", "late", "delay"),
        (kinds.EPISODE, "content", "please", "ep"),
        (kinds.COMMUNITY, "name", "forecasting", "c"),
        (kinds.COMMUNITY, "summary", "planning", "c"),
    ],
)
def test_full_text_indexes_see_what_imports_write(group: str, label: str, prop: str, word: str, item: str) -> None:
    load(memory(group), group, embed=False)
    index = graph_dialect().fulltext_index_name(IndexSpec(label, prop))
    assert f"{group}-{item}" in {row["id"] for row in driver.read(FULLTEXT_NODES, index=index, text=word)}


def test_full_text_sees_imported_and_reimported_fact_texts(group: str) -> None:
    load(memory(group), group, embed=False)
    index = graph_dialect().fulltext_index_name(IndexSpec(kinds.RELATES, "fact", relationship=True))
    assert f"{group}-reads" in {row["id"] for row in driver.read(FULLTEXT_FACTS, index=index, text="reads")}
    load(changed(group, lambda data: data["edges"][0].update(fact="Trucks leave at dawn")), group, embed=False)
    assert f"{group}-reads" in {row["id"] for row in driver.read(FULLTEXT_FACTS, index=index, text="dawn")}
    assert f"{group}-reads" not in {row["id"] for row in driver.read(FULLTEXT_FACTS, index=index, text="reads")}
