"""The import's embedding pass on the real server and the real model: each distinct text goes to the model once,
items that read alike get the same vector, search answers as if every item had been embedded on its own, and a
write that fails leaves the store as it was, with nothing sent to the model."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from memoria import reindex
from memoria.bench.graph_import import item_texts
from memoria.embeddings import Embedder, embedder
from memoria.errors import GraphUnavailable
from memoria.graph import driver
from memoria.graph.versions import group_stamps_delete
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex, reindex_backlog
from memoria.search.recipes import recipe
from memoria.search.service import search
from tests.test_reindex import vectors_of

NODES_AND_FACTS = """
MATCH (n:Memory {group_id: $group})
OPTIONAL MATCH (n)-[r]->()
RETURN n.id AS id, properties(n) AS node, collect(properties(r)) AS out
ORDER BY id
"""
QUERIES = ("late deliveries of bolts", "who buys pallets", "forecast of demand in Lyon", "Alice Martin")


class CountingEmbedder:
    """The process's model, recording every text it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.asked.extend(texts)
        return self.inner.embed(texts)


def memory(group: str) -> dict:
    """Two entities of one name and summary (as a name-only extraction makes them), two facts that read alike
    between them and a third, an episode, a community: 8 items, 6 distinct texts."""
    alike = {"name": "Alice Martin", "labels": ["Entity"], "summary": "a buyer in Lyon"}

    def fact(index: int, source: str, target: str, text: str) -> dict:
        return {
            "id": f"{group}-f{index}",
            "source": f"{group}-{source}",
            "target": f"{group}-{target}",
            "relation": "buys",
            "weight": 0.5,
            "tags": [],
            "fact": text,
        }

    return {
        "nodes": [
            {"id": f"{group}-a1", **alike},
            {"id": f"{group}-a2", **alike},
            {"id": f"{group}-bolts", "name": "bolt kit", "labels": ["Entity"], "summary": "arrived late twice"},
            {"id": f"{group}-ep", "name": "message 1", "labels": ["Episode"], "content": "Alice buys pallets"},
            {"id": f"{group}-c", "name": "Purchasing", "labels": ["Community"], "summary": "buyers and goods"},
        ],
        "edges": [
            fact(1, "a1", "bolts", "Alice buys bolt kits every month"),
            fact(2, "a2", "bolts", "Alice buys bolt kits every month"),
            fact(3, "bolts", "a1", "The bolt kits were late for Alice"),
        ],
    }


@pytest.fixture
def other_group(group: str) -> str:
    name = f"{group}-b"
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)
    group_stamps_delete(group=name)


def test_each_distinct_text_is_embedded_once(group: str) -> None:
    data = memory(group)
    counting = CountingEmbedder(embedder())
    report = graph_document_import(
        document=parse_graph_document(data, group=group), group=group, embed=True, model=counting
    )
    texts = item_texts(data)
    assert len(texts) == 8 and len(set(texts)) == 6
    assert Counter(counting.asked) == Counter(set(texts))  # every distinct text, once
    assert report.embedding is not None and (report.embedding.embedded, report.embedding.left) == (8, 0)
    vectors = vectors_of(group)
    assert all(vector is not None for vector in vectors.values())
    assert vectors[f"{group}-a1"] == vectors[f"{group}-a2"]
    assert vectors[f"{group}-f1"] == vectors[f"{group}-f2"]
    assert reindex_backlog(group=group) == 0


def test_search_answers_as_if_every_item_were_embedded_alone(
    group: str, other_group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One group imported as the import does it, the other's items embedded one by one (windows of one row and no
    texts remembered: the model sees each item's text alone, as before deduplication): the same hits in order."""
    graph_document_import(document=parse_graph_document(memory(group), group=group), group=group, embed=True)
    graph_document_import(document=parse_graph_document(memory(other_group), group=other_group), group=other_group)
    monkeypatch.setattr(reindex, "EMBED_WINDOW", 1)
    monkeypatch.setattr(reindex, "REMEMBERED_TEXTS", 0)
    alone = CountingEmbedder(embedder())
    group_reindex(group=other_group, batch_size=1, model=alone)
    assert len(alone.asked) == 8  # every item's text on its own, duplicates included

    def answers(name: str, query: str) -> dict[str, list[tuple[str, float]]]:
        found = search(query=query, groups=[name], config=recipe("combined_hybrid_rrf", limit=10))
        return {
            scope: [(hit.id.removeprefix(name), round(hit.score, 4)) for hit in getattr(found, scope)]
            for scope in ("facts", "entities", "episodes", "communities")
        }

    for query in QUERIES:
        assert answers(group, query) == answers(other_group, query)
        assert any(answers(group, query).values())


def test_a_failing_write_leaves_the_store_as_before_and_asks_the_model_nothing(group: str) -> None:
    data = memory(group)
    graph_document_import(document=parse_graph_document(data, group=group), group=group, embed=True)
    before = driver.read(NODES_AND_FACTS, group=group)
    vectors = vectors_of(group)
    edited = copy.deepcopy(data)
    edited["nodes"][2]["summary"] = "on time now"
    edited["edges"][2]["fact"] = "The bolt kits came on time"
    edited["nodes"].append({"id": f"{group}-new", "name": "Lyon depot", "labels": ["Entity"]})
    edited["edges"].append({**edited["edges"][0], "id": f"{group}-f4", "target": f"{group}-new"})
    statements: list[int] = []

    def fails_at_the_third_statement() -> None:
        statements.append(1)
        if len(statements) == 3:
            raise RuntimeError("the write failed")

    counting = CountingEmbedder(embedder())
    with pytest.raises(RuntimeError, match="the write failed"):
        graph_document_import(
            document=parse_graph_document(edited, group=group),
            group=group,
            embed=True,
            model=counting,
            checkpoint=fails_at_the_third_statement,
        )
    assert len(statements) == 3  # it failed inside the transaction, after two statements had run
    assert driver.read(NODES_AND_FACTS, group=group) == before
    assert vectors_of(group) == vectors
    assert counting.asked == []


def test_a_failing_vector_write_stops_the_pass_and_the_import_stands(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedding pass runs after the import committed: a vector write that fails ends the pass, the document
    stays stored whole, the vectors written before stay, and the outcome counts what is left for `reindex`."""
    real_store = reindex._vectors_store
    writes: list[int] = []

    def second_write_fails(*args: object) -> int:
        writes.append(1)
        if len(writes) == 2:
            raise GraphUnavailable("the graph server went away")
        return real_store(*args)

    monkeypatch.setattr(reindex, "EMBED_WINDOW", 2)
    monkeypatch.setattr(reindex, "_vectors_store", second_write_fails)
    report = graph_document_import(document=parse_graph_document(memory(group), group=group), group=group, embed=True)
    assert report.nodes_created == 5 and report.edges_created == 3
    outcome = report.embedding
    assert outcome is not None and outcome.error == "the graph server went away"
    assert len(writes) == 2  # the entities' window, then the community's, which failed; nothing after it
    stored = {item for item, vector in vectors_of(group).items() if vector is not None}
    assert stored == {f"{group}-a1", f"{group}-a2", f"{group}-bolts"} and outcome.embedded == 3
    assert outcome.left == 5 == reindex_backlog(group=group)
