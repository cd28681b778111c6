"""The dialect is chosen from the server's agent string, and the Neo4j DDL it would emit is well-formed."""

from __future__ import annotations

import pytest

from memoria.graph.dialect import ArcadeDialect, IndexSpec, KeySpec, Neo4jDialect, dialect_for_agent, graph_dialect


def test_detection() -> None:
    assert isinstance(dialect_for_agent("Neo4j/5.26.0 compatible (ArcadeDB 26.10.2)"), ArcadeDialect)
    assert isinstance(dialect_for_agent("Neo4j/5.20.0"), Neo4jDialect)
    assert graph_dialect().name == "arcadedb"  # the test server


def test_index_names_per_server() -> None:
    spec = IndexSpec("Entity", "name")
    rel = IndexSpec("RELATES", "fact", relationship=True)
    assert Neo4jDialect().fulltext_index_name(spec) == "memoria_entity_name_fulltext"
    assert ArcadeDialect(http=None).fulltext_index_name(spec) == "Entity[name]"  # type: ignore[arg-type]
    assert rel.pattern() == "()-[e:RELATES]-()"


def test_neo4j_ddl_statements() -> None:
    dialect = Neo4jDialect()
    assert dialect.fulltext_statement(IndexSpec("RELATES", "fact", relationship=True)) == (
        "CREATE FULLTEXT INDEX memoria_relates_fact_fulltext IF NOT EXISTS FOR ()-[e:RELATES]-() ON EACH [e.fact]"
    )
    assert dialect.vector_statement(IndexSpec("Entity", "name_embedding"), 384) == (
        "CREATE VECTOR INDEX memoria_entity_name_embedding_vector IF NOT EXISTS FOR (e:Entity) "
        "ON (e.name_embedding) OPTIONS {indexConfig: {`vector.dimensions`: 384, "
        "`vector.similarity_function`: 'cosine'}}"
    )
    assert dialect.unique_statement(KeySpec("Memory", ("group_id", "id"))) == (
        "CREATE CONSTRAINT memoria_memory_group_id_id_unique IF NOT EXISTS FOR (e:Memory) "
        "REQUIRE (e.group_id, e.id) IS UNIQUE"
    )
    assert dialect.drop_statement("memoria_memory_id_unique") == "DROP CONSTRAINT memoria_memory_id_unique IF EXISTS"
    with pytest.raises(ValueError, match="unsafe constraint name"):
        dialect.drop_statement("x IF EXISTS; DROP INDEX y")


@pytest.mark.parametrize("label", ["Entity)-[:X]->(", "a b", "", "1abc"])
def test_unsafe_names_never_reach_ddl(label: str) -> None:
    with pytest.raises(ValueError, match="unsafe index target"):
        IndexSpec(label, "name")
    with pytest.raises(ValueError, match="unsafe key target"):
        KeySpec(label, ("group_id", "id"))


@pytest.mark.parametrize(
    ("choice", "neo4j", "arcadedb"),
    [("auto", True, False), ("on", True, True), ("off", False, False)],
)
def test_which_servers_keep_vector_indexes(settings: object, choice: str, neo4j: bool, arcadedb: bool) -> None:
    """Neo4j's vector indexes take writes one by one; ArcadeDB's are rebuilt whole, so `auto` leaves them out."""
    settings.MEMORIA_GRAPH = {**settings.MEMORIA_GRAPH, "VECTOR_INDEXES": choice}  # type: ignore[attr-defined]
    assert Neo4jDialect().serves_vector_indexes() is neo4j
    assert ArcadeDialect(http=None).serves_vector_indexes() is arcadedb  # type: ignore[arg-type]
