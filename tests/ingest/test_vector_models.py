"""Every stored vector records its model, on the real server: vectors of another model than the configured one are
never compared (search, both engines) and `reindex` replaces them; vectors stored before ids were recorded count as
the packaged model's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoria import embeddings
from memoria.embeddings import INT8_SUFFIX, ONNX_INT8, Embedder, configured_model_id, embedder, embedder_load
from memoria.graph import driver
from memoria.graph.schema import LEGACY_VECTOR_MODEL, VECTOR_MODEL, VECTOR_TEXT
from memoria.graph.searchable import SEARCHABLE_TEXT_VERSION
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex, reindex_backlog
from memoria.search.config import ScopeConfig, SearchConfig, SearchMethod
from memoria.search.service import Engine, search
from tests.test_reindex import memory

MODELS = f"""
MATCH (n:Memory {{group_id: $group}}) WHERE n.name_embedding IS NOT NULL OR n.embedding IS NOT NULL
RETURN n.id AS id, n.{VECTOR_MODEL} AS model
UNION ALL
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->() WHERE r.fact_embedding IS NOT NULL
RETURN r.id AS id, r.{VECTOR_MODEL} AS model
"""
FORGET_MODELS = f"""
MATCH (n:Memory {{group_id: $group}}) REMOVE n.{VECTOR_MODEL}
WITH count(n) AS nodes
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->() REMOVE r.{VECTOR_MODEL}
RETURN nodes, count(r) AS facts
"""
COSINE_ONLY = SearchConfig(
    entities=ScopeConfig(methods=(SearchMethod.COSINE,), limit=3),
    facts=ScopeConfig(methods=(SearchMethod.COSINE,), limit=3),
)


@pytest.fixture
def reindexed(group: str) -> str:
    graph_document_import(document=parse_graph_document(memory(group), group=group), group=group)
    group_reindex(group=group)
    return group


@pytest.fixture
def int8_configured(settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Embedder]:
    """The int8 backend configured and loaded as the process's embedder (its graph made on first use)."""
    settings.MEMORIA_EMBEDDING_BACKEND = ONNX_INT8
    loaded = embedder_load()
    monkeypatch.setattr(embeddings, "_embedder", loaded)
    yield loaded


def stored_models(group: str) -> dict[str, str | None]:
    return {row["id"]: row["model"] for row in driver.read(MODELS, group=group)}


def cosine_hits(group: str, engine: Engine) -> tuple[list[str], list[str]]:
    found = search(query="inventory in the depot", groups=[group], config=COSINE_ONLY, engine=engine)
    return [hit.id for hit in found.entities], [hit.id for hit in found.facts]


def test_reindex_records_the_model_beside_every_vector(reindexed: str) -> None:
    models = stored_models(reindexed)
    assert len(models) == 9 and set(models.values()) == {embedder().model_id} == {configured_model_id()}


@pytest.mark.parametrize("engine", [Engine.VIEW, Engine.CYPHER])
def test_vectors_of_another_model_are_never_compared_until_reindex_replaces_them(
    reindexed: str, int8_configured: Embedder, engine: Engine
) -> None:
    assert int8_configured.model_id == LEGACY_VECTOR_MODEL + INT8_SUFFIX == configured_model_id()
    assert reindex_backlog(group=reindexed) == 9  # every stored vector is the fp32 model's
    assert cosine_hits(reindexed, engine) == ([], [])

    report = group_reindex(group=reindexed)
    assert report.texts == 9
    assert set(stored_models(reindexed).values()) == {int8_configured.model_id}
    assert reindex_backlog(group=reindexed) == 0
    entities, facts = cosine_hits(reindexed, engine)
    assert entities[0] == f"{reindexed}-stock" and len(facts) == 2


def test_vectors_stored_before_models_were_recorded_count_as_the_packaged_model(reindexed: str, settings) -> None:
    settings.MEMORIA_EMBEDDING_BACKEND = embeddings.ONNX  # the same vectors as torch, so the same id
    assert driver.write(FORGET_MODELS, group=reindexed)[0] == {"nodes": 7, "facts": 2}
    assert set(stored_models(reindexed).values()) == {None}
    assert configured_model_id() == LEGACY_VECTOR_MODEL
    assert reindex_backlog(group=reindexed) == 0
    assert cosine_hits(reindexed, Engine.CYPHER)[0][0] == f"{reindexed}-stock"


FORGET_TEXT_VERSIONS = f"""
MATCH (n:Memory {{group_id: $group}}) REMOVE n.{VECTOR_TEXT}
WITH count(n) AS nodes
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->() REMOVE r.{VECTOR_TEXT}
RETURN nodes, count(r) AS facts
"""
TEXT_VERSIONS = f"""
MATCH (n:Memory {{group_id: $group}}) WHERE n.name_embedding IS NOT NULL OR n.embedding IS NOT NULL
RETURN n.{VECTOR_TEXT} AS version
UNION ALL
MATCH (:Memory {{group_id: $group}})-[r:RELATES]->() WHERE r.fact_embedding IS NOT NULL
RETURN r.{VECTOR_TEXT} AS version
"""


def test_reindex_records_the_text_version_and_replaces_vectors_of_an_older_definition(reindexed: str) -> None:
    assert [row["version"] for row in driver.read(TEXT_VERSIONS, group=reindexed)] == [SEARCHABLE_TEXT_VERSION] * 9
    # As a store embedded before names and summaries were searchable: its vectors record no text version.
    assert driver.write(FORGET_TEXT_VERSIONS, group=reindexed)[0] == {"nodes": 7, "facts": 2}
    assert reindex_backlog(group=reindexed) == 9
    entities, facts = cosine_hits(reindexed, Engine.VIEW)  # the same model's vectors are still compared meanwhile
    assert entities[0] == f"{reindexed}-stock" and len(facts) == 2

    assert group_reindex(group=reindexed).texts == 9
    assert reindex_backlog(group=reindexed) == 0
    assert [row["version"] for row in driver.read(TEXT_VERSIONS, group=reindexed)] == [SEARCHABLE_TEXT_VERSION] * 9
    assert group_reindex(group=reindexed).texts == 0
