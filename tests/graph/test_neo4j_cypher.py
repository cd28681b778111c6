"""Every named Cypher constant, and the Neo4j dialect's DDL, as Neo4j's own parser and linter see them."""

from __future__ import annotations

import pytest

from tests.graph.neo4j_cypher import lint, linter_ready, refusals, static_texts

# Deprecated in Neo4j 5 but still run there, each on purpose.
KNOWN_DEPRECATIONS = {
    # The CSR projection keys nodes by the server's internal integer id, which ArcadeDB has and elementId() is
    # not; Neo4j 5 still answers id(). Replacing it means keying the projection by (group, id) text.
    "memoria.projection.projection.NODES",
    "memoria.projection.projection.NODES_NAMED",
    "memoria.projection.projection.EDGES",
    "memoria.projection.update.NODES_NAMED",
}


@pytest.fixture(scope="module")
def linted() -> tuple[dict[str, str], dict[str, list[str]]]:
    problem = linter_ready()
    assert problem is None, problem
    texts, _ = static_texts()
    return texts, lint(texts)


def test_neo4j_accepts_every_named_query_and_the_neo4j_ddl(linted: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    texts, found = linted
    assert len(texts) > 150  # the walk found the constants: a broken walk must not pass for a clean one
    assert any(where.startswith("neo4j DDL vector") for where in texts)
    assert refusals(found) == {}


def test_only_the_known_queries_use_deprecated_functions(linted: tuple[dict[str, str], dict[str, list[str]]]) -> None:
    _, found = linted
    deprecated = {where for where, problems in found.items() if any("deprecated" in item for item in problems)}
    assert deprecated == KNOWN_DEPRECATIONS


def test_the_linter_refuses_what_neo4j_would() -> None:
    found = refusals(
        lint(
            {
                "typo": "MATCH (n:Memory {group_id: $group}) RETRN n",
                "unbound": "MATCH (n:Memory) RETURN m",
                "unknown label": "MATCH (n:Memry {group_id: $group}) RETURN n",
                "unknown type": "MATCH (:Entity)-[r:RELATE]->(:Entity) RETURN r",
                "fine": "MATCH (n:Memory {group_id: $group, id: $id}) RETURN n.id AS id",
            }
        )
    )
    assert set(found) == {"typo", "unbound", "unknown label", "unknown type"}
