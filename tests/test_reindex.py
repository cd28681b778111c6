"""Reindexing on the real server: every vector filled, reruns embed nothing, ids limit the work, a vector is never
stored beside a newer text, and vector search finds by meaning."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria import embeddings, reindex
from memoria.embeddings import embedder
from memoria.graph import driver
from memoria.graph.schema import vector_model_parameters
from memoria.graph.searchable import fact_text, node_text
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex, reindex_after_write, reindex_backlog
from memoria.search.methods import entities_cosine

VECTORS = """
MATCH (n:Memory {group_id: $group})
RETURN n.id AS id, coalesce(n.name_embedding, n.embedding) AS vector
UNION ALL
MATCH (:Memory {group_id: $group})-[r:RELATES]->()
RETURN r.id AS id, r.fact_embedding AS vector
"""
EDGE_FROM = "MATCH (:Memory {id: $source})-[r:RELATES]->() RETURN r.id AS id"


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


def test_the_server_finds_the_reindexed_entity_by_meaning(stored: str, vector_search: str) -> None:
    group_reindex(group=stored)
    found = entities_cosine(vector=embedder().embed_one("inventory in the depot"), groups=[stored], limit=5)
    assert found[0].id == f"{stored}-stock"


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


def test_command_errors_are_command_errors(
    stored: str, settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        run("reindex", "--group", "no/slashes")
    monkeypatch.setattr(embeddings, "_embedder", None)  # the shared model is restored afterwards
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path / "no-model")
    with pytest.raises(CommandError, match="no-model does not exist"):
        run("reindex", "--group", stored, "--quiet")
    assert reindex_backlog(group=stored) == 9


def fact_id(group: str, source: str) -> str:
    return driver.read(EDGE_FROM, source=f"{group}-{source}")[0]["id"]


def test_ids_limit_the_work_to_those_items(stored: str) -> None:
    wanted = [f"{stored}-stock", fact_id(stored, "delay"), f"{stored}-ep", "absent-id"]
    assert reindex_backlog(group=stored, ids=wanted) == 3
    report = group_reindex(group=stored, ids=wanted, batch_size=2)
    assert (report.entities, report.communities, report.episodes, report.facts) == (1, 0, 1, 1)
    vectors = vectors_of(stored)
    assert {item for item, vector in vectors.items() if vector is not None} == set(wanted[:3])
    assert reindex_backlog(group=stored, ids=wanted) == 0 and reindex_backlog(group=stored) == 6
    assert group_reindex(group=stored, ids=wanted).texts == 0
    assert group_reindex(group=stored, ids=wanted, only_missing=False).texts == 3
    assert group_reindex(group=stored, ids=[]).texts == 0


def test_ids_of_another_group_are_ignored(stored: str) -> None:
    other = f"{stored}-other"
    try:
        graph_document_import(document=parse_graph_document(memory(other), group=other), group=other)
        assert group_reindex(group=stored, ids=[f"{other}-stock", fact_id(other, "delay")]).texts == 0
        assert reindex_backlog(group=other) == 9
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)


def test_one_string_is_not_a_list_of_ids(stored: str) -> None:
    with pytest.raises(ValueError, match="not one string"):
        group_reindex(group=stored, ids=f"{stored}-stock")


@pytest.mark.parametrize(
    ("store", "key"),
    [(reindex.SET_NAME_EMBEDDINGS, "stock"), (reindex.SET_EPISODE_EMBEDDINGS, "ep"), (reindex.SET_FACT_EMBEDDINGS, "")],
)
def test_a_vector_is_stored_only_beside_the_text_it_was_computed_from(stored: str, store: str, key: str) -> None:
    if key:
        row = {"id": f"{stored}-{key}"}
    else:
        row = {"id": fact_id(stored, "forecast"), "source": f"{stored}-forecast", "target": f"{stored}-stock"}
    texts = {
        "stock": node_text(is_episode=False, name="Warehouse stock levels"),
        "ep": node_text(is_episode=True, name="message 1", content="Forecast Q3 please"),
    }
    current = texts.get(key) or fact_text(
        source_name="Forecast Q3 demand",
        relation="uses_data",
        target_name="Warehouse stock levels",
        fact="The Q3 forecast reads the warehouse stock levels",
    )
    vector = embedder().embed_one(current)
    # As if a write had changed the text between the read and the store: the older text's vector is refused.
    model = embedder().model_id
    older = driver.write(
        store, rows=[{**row, "text": "an older text", "vector": vector}], group=stored, **vector_model_parameters(model)
    )
    assert older[0]["stored"] == 0
    assert vectors_of(stored)[row["id"]] is None
    newer = driver.write(
        store, rows=[{**row, "text": current, "vector": vector}], group=stored, **vector_model_parameters(model)
    )
    assert newer[0]["stored"] == 1
    assert vectors_of(stored)[row["id"]] == pytest.approx(vector)


def test_reindex_after_write_reports_instead_of_raising(
    stored: str, settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    wanted = [f"{stored}-stock", f"{stored}-party", fact_id(stored, "forecast")]
    embedder()
    monkeypatch.setattr(embeddings, "_embedder", None)
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path / "no-model")
    failed = reindex_after_write(group=stored, ids=wanted)
    assert (failed.embedded, failed.left) == (0, 3) and "no-model does not exist" in failed.error
    monkeypatch.undo()
    settings.MEMORIA_EMBEDDING_MODEL = ""
    done = reindex_after_write(group=stored, ids=wanted)
    assert (done.embedded, done.left, done.error) == (3, 0, None)
    assert reindex_after_write(group=stored, ids=wanted).embedded == 0
