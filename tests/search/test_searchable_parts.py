"""Everything an item has finds it, on both engines: an episode by its name (a document's title), an entity by
its summary, a fact by the names of its ends; in the views a fact's relation words too, and a rename is seen
after the write without rebuilding the view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria.embeddings import embedder
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import ImportReport, graph_document_import
from memoria.readmodel.cache import view_cache
from memoria.search.config import ScopeConfig, SearchConfig, SearchMethod
from memoria.search.service import Engine, search
from tests.test_reindex import vectors_of

BM25 = ScopeConfig(methods=(SearchMethod.BM25,), limit=5)
COSINE = ScopeConfig(methods=(SearchMethod.COSINE,), limit=5)


def document(group: str, *, port_name: str = "Rotterdam port") -> dict:
    return {
        "nodes": [
            {"id": f"{group}-ottoman", "name": "Ottoman Empire", "labels": ["Episode"], "content": "It lasted."},
            {"id": f"{group}-other", "name": "Weather", "labels": ["Episode"], "content": "Rain all week in Bergen."},
            {"id": f"{group}-gloves", "name": "Safety gloves", "labels": ["Entity"], "summary": "Nitrile, size L"},
            {"id": f"{group}-port", "name": port_name, "labels": ["Entity"], "summary": "Where imports land"},
            {"id": f"{group}-bolts", "name": "Steel bolts", "labels": ["Entity"], "summary": "For assembly"},
        ],
        "edges": [
            {
                "id": f"{group}-arrive",
                "source": f"{group}-gloves",
                "target": f"{group}-port",
                "relation": "arrives_through",
                "weight": 0.5,
                "tags": [],
                "fact": "They come in by sea",
            },
            {
                "id": f"{group}-made",
                "source": f"{group}-bolts",
                "target": f"{group}-gloves",
                "relation": "packed_with",
                "weight": 0.5,
                "tags": [],
                "fact": "Both ship in one crate",
            },
        ],
    }


def load(data: dict, group: str) -> ImportReport:
    return graph_document_import(document=parse_graph_document(data, group=group), group=group, embed=True)


@pytest.fixture
def stored(group: str) -> Iterator[str]:
    report = load(document(group), group)
    assert report.embedding is not None and report.embedding.error is None
    yield group
    view_cache().forget(group)


def found(group: str, query: str, scope: str, config: ScopeConfig, engine: Engine) -> list[str]:
    answer = search(query=query, groups=[group], config=SearchConfig(**{scope: config}), engine=engine)
    return [hit.id.removeprefix(f"{group}-") for hit in getattr(answer, scope)]


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_an_episode_is_found_by_its_name(stored: str, engine: Engine) -> None:
    assert found(stored, "ottoman", "episodes", BM25, engine) == ["ottoman"]
    assert found(stored, "the Ottoman Empire", "episodes", COSINE, engine)[0] == "ottoman"


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_an_entity_is_found_by_its_summary(stored: str, engine: Engine) -> None:
    assert found(stored, "nitrile", "entities", BM25, engine) == ["gloves"]
    assert found(stored, "nitrile gloves", "entities", COSINE, engine)[0] == "gloves"


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_a_fact_is_found_by_the_names_of_its_ends(stored: str, engine: Engine) -> None:
    assert found(stored, "rotterdam", "facts", BM25, engine) == ["arrive"]
    assert set(found(stored, "gloves", "facts", BM25, engine)) == {"arrive", "made"}
    assert found(stored, "gloves arriving at the Rotterdam port", "facts", COSINE, engine)[0] == "arrive"


def test_a_fact_is_found_by_its_relation_words_in_the_view(stored: str) -> None:
    assert found(stored, "packed", "facts", BM25, Engine.VIEW) == ["made"]


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_a_renamed_end_finds_its_facts_by_the_new_name_at_once(stored: str, engine: Engine) -> None:
    assert found(stored, "antwerp", "facts", BM25, engine) == []  # the view (if any) is built now
    load(document(stored, port_name="Antwerp harbour"), stored)
    assert found(stored, "antwerp", "facts", BM25, engine) == ["arrive"]
    assert found(stored, "rotterdam", "facts", BM25, engine) == []
    text = "Safety gloves arrives through Antwerp harbour\nThey come in by sea"
    assert vectors_of(stored)[f"{stored}-arrive"] == pytest.approx(embedder().embed_one(text), abs=1e-5)
    assert found(stored, "gloves arriving at Antwerp harbour", "facts", COSINE, engine)[0] == "arrive"
