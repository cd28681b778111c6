"""Schema install on the real server: idempotent, and the unique id constraint really holds."""

from __future__ import annotations

import pytest
from neo4j.exceptions import Neo4jError

from memoria.graph import driver
from memoria.graph.dialect import graph_dialect
from memoria.graph.schema import FULLTEXT, RANGE, UNIQUE, VECTOR, schema_install


def test_schema_install_twice_is_harmless() -> None:
    first = schema_install()
    second = schema_install()
    assert first == second
    assert first.dialect == "arcadedb"
    indexes = driver.read("SHOW INDEXES")
    names = {row["name"] for row in indexes}
    dialect = graph_dialect()
    for spec in FULLTEXT:
        assert dialect.fulltext_index_name(spec) in names
    for spec in VECTOR:
        assert dialect.vector_index_name(spec) in names
    assert len(driver.read("SHOW CONSTRAINTS")) >= len(UNIQUE)
    assert len(indexes) >= len(RANGE) + len(FULLTEXT) + len(VECTOR)


def test_memory_ids_are_unique(group: str) -> None:
    driver.write("CREATE (:Memory:Entity {id: $id, group_id: $g, name: 'one'})", id=f"{group}-x", g=group)
    with pytest.raises(Neo4jError) as caught:
        driver.write("CREATE (:Memory:Episode {id: $id, group_id: $g, name: 'two'})", id=f"{group}-x", g=group)
    assert graph_dialect().is_constraint_violation(caught.value)


def test_fulltext_and_vector_indexes_answer(group: str) -> None:
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
    name_embedding = next(spec for spec in VECTOR if spec.label == "Entity")
    near = driver.read(
        "CALL db.index.vector.queryNodes($index, 5, $v) YIELD node, score RETURN node.id AS id, score",
        index=graph_dialect().vector_index_name(name_embedding),
        v=[1.0] + [0.0] * 383,
    )
    assert near and near[0]["id"] == f"{group}-w" and near[0]["score"] == pytest.approx(1.0, abs=1e-3)
