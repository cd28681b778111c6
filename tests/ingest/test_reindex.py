"""Reindexing a group on the real server: every vector filled, reruns embed nothing, vector search finds by meaning."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from memoria.embeddings import embedder
from memoria.errors import EmbeddingModelError
from memoria.graph import driver, kinds
from memoria.graph.dialect import graph_dialect
from memoria.graph.schema import VECTOR
from memoria.ingest import reindex
from memoria.ingest.reindex import group_reindex, reindex_backlog
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import

VECTORS = """
MATCH (n:Memory {group_id: $group})
RETURN n.id AS id, coalesce(n.name_embedding, n.embedding) AS vector
UNION ALL
MATCH (:Memory {group_id: $group})-[r:RELATES]->()
RETURN r.id AS id, r.fact_embedding AS vector
"""
EDGE_FROM = "MATCH (:Memory {id: $source})-[r:RELATES]->() RETURN r.id AS id"
NEAREST_ENTITIES = """
CALL db.index.vector.queryNodes($index, 5, $vector) YIELD node, score
WHERE node.group_id = $group
RETURN node.id AS id, score
ORDER BY score DESC
"""


def memory(group: str) -> dict:
    entity = ["Entity"]
    return {
        "nodes": [
            {"id": f"{group}-stock", "name": "Warehouse stock levels", "labels": [*entity, "DataSource"]},
            {"id": f"{group}-party", "name": "Birthday party for the team", "labels": [*entity, "Event"]},
            {"id": f"{group}-delay", "name": "Supplier delay at Nordbalt Metals", "labels": [*entity, "Event"]},
            {"id": f"{group}-forecast", "name": "Forecast Q3 demand", "labels": [*entity, "UserRequest"]},
            {"id": f"{group}-ep", "name": "message 1", "labels": ["Episode"], "content": "Forecast Q3 please"},
            {"id": f"{group}-ep2", "name": "an empty message", "labels": ["Episode"], "content": ""},
            {"id": f"{group}-c", "name": "Forecasting", "labels": ["Community"], "summary": "forecast things"},
        ],
        "edges": [
            {
                "source": f"{group}-forecast",
                "target": f"{group}-stock",
                "relation": "uses_data",
                "weight": 0.8,
                "tags": [],
                "fact": "The Q3 forecast reads the warehouse stock levels",
            },
            {
                "source": f"{group}-delay",
                "target": f"{group}-forecast",
                "relation": "delays",
                "weight": 0.5,
                "tags": [],
            },
        ],
        "memberships": [{"community": f"{group}-c", "entity": f"{group}-forecast"}],
    }


@pytest.fixture
def stored(group: str) -> str:
    graph_document_import(document=parse_graph_document(memory(group), group=group), group=group)
    return group


def vectors_of(group: str) -> dict[str, list[float] | None]:
    return {row["id"]: row["vector"] for row in driver.read(VECTORS, group=group)}


def test_reindex_fills_every_vector_and_reruns_embed_only_what_is_missing(stored: str) -> None:
    assert reindex_backlog(group=stored) == 9
    seen: list[int] = []
    report = group_reindex(group=stored, batch_size=3, progress=seen.append)
    assert (report.entities, report.communities, report.episodes, report.facts) == (4, 1, 2, 2)
    assert sum(seen) == report.texts == 9
    vectors = vectors_of(stored)
    assert len(vectors) == 9 and all(vector is not None and len(vector) == 384 for vector in vectors.values())

    assert reindex_backlog(group=stored) == 0
    assert group_reindex(group=stored).texts == 0
    assert group_reindex(group=stored, only_missing=False).texts == 9
    assert reindex_backlog(group=stored, only_missing=False) == 9


def test_missing_texts_fall_back_to_names(stored: str) -> None:
    group_reindex(group=stored)
    vectors = vectors_of(stored)
    model = embedder()
    edge = driver.read(EDGE_FROM, source=f"{stored}-delay")[0]["id"]
    expected = {
        f"{stored}-ep2": "an empty message",
        edge: "Supplier delay at Nordbalt Metals delays Forecast Q3 demand",
    }
    for item, text in expected.items():
        similarity = sum(x * y for x, y in zip(vectors[item], model.embed_one(text), strict=True))
        assert similarity > 0.9999, item


def test_vector_index_finds_the_entity_by_meaning(stored: str) -> None:
    group_reindex(group=stored)
    spec = next(spec for spec in VECTOR if spec.label == kinds.ENTITY)
    rows = driver.read(
        NEAREST_ENTITIES,
        index=graph_dialect().vector_index_name(spec),
        vector=embedder().embed_one("inventory in the depot"),
        group=stored,
    )
    assert rows[0]["id"] == f"{stored}-stock"


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_command_reports_counts_and_throughput(stored: str) -> None:
    out, err = run("reindex", "--group", stored)
    assert "embedded 4 entity name(s), 1 community name(s), 2 episode(s) and 2 fact(s): 9 text(s)" in out
    assert "texts/s" in out and "9/9" in err
    assert ": 0 text(s)" in run("reindex", "--group", stored, "--quiet")[0]
    assert ": 9 text(s)" in run("reindex", "--group", stored, "--all", "--quiet")[0]


def test_command_errors_are_command_errors(stored: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        run("reindex", "--group", "no/slashes")

    def broken() -> None:
        raise EmbeddingModelError("weights do not match the pin")

    monkeypatch.setattr(reindex, "embedder", broken)
    with pytest.raises(CommandError, match="weights do not match the pin"):
        run("reindex", "--group", stored, "--quiet")
