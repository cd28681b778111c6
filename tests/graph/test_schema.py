"""Schema install on the real server: idempotent, the (group, id) key really holds, and old stores migrate."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from neo4j.exceptions import Neo4jError

from memoria.graph import driver
from memoria.graph.dialect import graph_dialect
from memoria.graph.embedded import EmbeddedServer
from memoria.graph.schema import FULLTEXT, RANGE, UNIQUE, VECTOR, retired_constraints, schema_install
from tests.conftest import dedicated_graph_server


def index_names() -> set[str]:
    return {row["name"] for row in driver.read("SHOW INDEXES")}


def test_schema_install_twice_is_harmless() -> None:
    first = schema_install()
    second = schema_install()
    assert first == second
    assert first.dialect == "arcadedb"
    names = index_names()
    dialect = graph_dialect()
    for spec in FULLTEXT:
        assert dialect.fulltext_index_name(spec) in names
    assert len(driver.read("SHOW CONSTRAINTS")) >= len(UNIQUE)
    assert len(names) >= len(RANGE) + len(FULLTEXT)


def test_arcadedb_keeps_no_vector_index_unless_asked(settings: Any, group: str) -> None:
    """ArcadeDB rebuilds a vector index whole after writes, so by default there is none; `on` makes them, they
    answer, and going back to `auto` drops them from the store again."""
    dialect = graph_dialect()
    vector_names = {dialect.vector_index_name(spec) for spec in VECTOR}
    assert schema_install().vector_indexes == 0 and not vector_names & index_names()
    settings.MEMORIA_GRAPH = {**settings.MEMORIA_GRAPH, "VECTOR_INDEXES": "on"}
    try:
        assert schema_install().vector_indexes == len(VECTOR)
        assert vector_names <= index_names()
        unit = [1.0] + [0.0] * 383
        driver.write(
            "CREATE (:Memory:Entity {id: $id, group_id: $g, name: 'Lyon warehouse', name_embedding: $v})",
            id=f"{group}-w",
            g=group,
            v=unit,
        )
        near = driver.read(
            "CALL db.index.vector.queryNodes($index, 5, $v) YIELD node, score RETURN node.id AS id, score",
            index=dialect.vector_index_name(next(spec for spec in VECTOR if spec.label == "Entity")),
            v=unit,
        )
        assert near and near[0]["id"] == f"{group}-w" and near[0]["score"] == pytest.approx(1.0, abs=1e-3)
    finally:
        settings.MEMORIA_GRAPH = {**settings.MEMORIA_GRAPH, "VECTOR_INDEXES": "auto"}
        assert schema_install().vector_indexes == 0
    assert not vector_names & index_names()


def test_a_node_is_keyed_by_group_and_id(group: str) -> None:
    """The same id lives in two groups as two nodes; twice in one group, it is refused."""
    other = f"{group}-b"
    try:
        driver.write("CREATE (:Memory:Entity {id: 'x', group_id: $g, name: 'one'})", g=group)
        driver.write("CREATE (:Memory:Entity {id: 'x', group_id: $g, name: 'two'})", g=other)
        with pytest.raises(Neo4jError) as caught:
            driver.write("CREATE (:Memory:Episode {id: 'x', group_id: $g, name: 'three'})", g=group)
        assert graph_dialect().is_constraint_violation(caught.value)
        names = driver.read(
            "MATCH (n:Memory {id: 'x'}) WHERE n.group_id IN $gs RETURN n.name AS name", gs=[group, other]
        )
        assert sorted(row["name"] for row in names) == ["one", "two"]
    finally:
        driver.write("MATCH (n:Memory {group_id: $g}) DETACH DELETE n", g=other)


def test_schema_install_migrates_a_store_of_global_ids(
    graph_server: EmbeddedServer, settings: Any, tmp_path: Path
) -> None:
    """A store made when ids were unique across groups: `graph_schema` retires that constraint, once."""
    with dedicated_graph_server(graph_server, settings, tmp_path / "graphdb"):
        driver.write("CREATE CONSTRAINT memoria_memory_id_unique IF NOT EXISTS FOR (e:Memory) REQUIRE e.id IS UNIQUE")
        driver.write("CREATE (:Memory:Entity {id: 'n1', group_id: 'a', name: 'one'})")
        with pytest.raises(Neo4jError):
            driver.write("CREATE (:Memory:Entity {id: 'n1', group_id: 'b', name: 'two'})")
        assert retired_constraints() == ["memoria_memory_id_unique"]
        out = io.StringIO()
        call_command("graph_schema", stdout=out)
        assert "retired memoria_memory_id_unique" in out.getvalue()
        assert retired_constraints() == []
        driver.write("CREATE (:Memory:Entity {id: 'n1', group_id: 'b', name: 'two'})")
        with pytest.raises(Neo4jError):
            driver.write("CREATE (:Memory:Entity {id: 'n1', group_id: 'a', name: 'again'})")
        again = io.StringIO()
        call_command("graph_schema", stdout=again)
        assert "retired" not in again.getvalue()


def test_fulltext_indexes_answer(group: str) -> None:
    driver.write(
        "CREATE (:Memory:Entity {id: $id, group_id: $g, name: 'Lyon warehouse', name_embedding: $v})",
        id=f"{group}-w",
        g=group,
        v=[1.0] + [0.0] * 383,
    )
    entity_name = next(spec for spec in FULLTEXT if spec.label == "Entity" and spec.prop == "name")
    hits = driver.read(
        "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score RETURN node.id AS id",
        index=graph_dialect().fulltext_index_name(entity_name),
        q="warehouse",
    )
    assert {"id": f"{group}-w"} in hits


def test_the_schema_is_what_the_models_declare() -> None:
    """memoria/graph/models.py is the one declaration: each flag becomes one index, nothing else is indexed."""
    assert [(key.label, key.props) for key in UNIQUE] == [("Memory", ("group_id", "id"))]
    assert {(spec.label, spec.prop) for spec in RANGE} == {
        *((label, "group_id") for label in ("Memory", "Episode", "Entity", "Community", "GroupStamp", "RELATES")),
        ("Episode", "valid_at"),
        ("RELATES", "id"),  # a fact's id is stored as `id` though neomodel calls it `uid`
    }
    assert {(spec.label, spec.prop) for spec in FULLTEXT} == {
        *((label, prop) for label in ("Entity", "Community") for prop in ("name", "summary")),
        ("Episode", "name"),
        ("Episode", "content"),
        ("RELATES", "fact"),
    }
    assert {(spec.label, spec.prop, spec.relationship) for spec in VECTOR} == {
        ("Entity", "name_embedding", False),
        ("Episode", "embedding", False),
        ("Community", "name_embedding", False),
        ("RELATES", "fact_embedding", True),
    }
