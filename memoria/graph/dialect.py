"""The one place that knows which graph server we talk to: Neo4j 5 or ArcadeDB.

Everything else asks the dialect for index names and schema DDL; detection
reads the server's agent string once per process.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from neo4j import exceptions as neo4j_errors

from memoria.graph import driver
from memoria.graph.arcadedb_http import ArcadeHttp

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class IndexSpec:
    """One index on one property of a node label or relationship type."""

    label: str
    prop: str
    relationship: bool = False

    def __post_init__(self) -> None:
        # Names are spliced into DDL (labels cannot be parameters): only plain identifiers pass.
        if not (_NAME.match(self.label) and _NAME.match(self.prop)):
            raise ValueError(f"unsafe index target {self.label}.{self.prop}")

    @property
    def slug(self) -> str:
        return f"{self.label.lower()}_{self.prop.lower()}"

    def pattern(self) -> str:
        return f"()-[e:{self.label}]-()" if self.relationship else f"(e:{self.label})"


@dataclass(frozen=True)
class KeySpec:
    """A uniqueness constraint over the combination of several properties of one node label: a node's key."""

    label: str
    props: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.props or not all(_NAME.match(name) for name in (self.label, *self.props)):
            raise ValueError(f"unsafe key target {self.label}.{self.props}")

    @property
    def name(self) -> str:
        return f"memoria_{self.label.lower()}_{'_'.join(prop.lower() for prop in self.props)}_unique"


class GraphDialect(Protocol):
    name: str
    # ArcadeDB moves a node's record when its labels change and fails a second move in the same transaction.
    one_label_change_per_transaction: bool

    def fulltext_index_name(self, spec: IndexSpec) -> str: ...

    def vector_index_name(self, spec: IndexSpec) -> str: ...

    def unique_constraint(self, spec: KeySpec) -> None: ...

    def constraint_drop(self, name: str) -> None: ...

    def range_index(self, spec: IndexSpec) -> None: ...

    def fulltext_index(self, spec: IndexSpec) -> None: ...

    def vector_index(self, spec: IndexSpec, dimensions: int) -> None: ...

    def vector_index_drop(self, spec: IndexSpec) -> None: ...

    def serves_vector_indexes(self) -> bool: ...

    def is_constraint_violation(self, error: BaseException) -> bool: ...


def _is_constraint_violation(error: BaseException) -> bool:
    # Neo4j and ArcadeDB both report Neo.ClientError.Schema.ConstraintValidationFailed.
    return isinstance(error, neo4j_errors.ConstraintError) or (
        isinstance(error, neo4j_errors.Neo4jError) and "ConstraintValidationFailed" in (error.code or "")
    )


class _CypherDdl:
    """Constraint and range-index DDL that both servers accept from Cypher."""

    # Whether the server keeps vector indexes when MEMORIA_GRAPH_VECTOR_INDEXES is `auto`.
    vector_indexes_by_default: bool

    def serves_vector_indexes(self) -> bool:
        """Whether vector search asks the server's vector indexes; without them it scans the group's own vectors."""
        choice = settings.MEMORIA_GRAPH.get("VECTOR_INDEXES", "auto")
        return self.vector_indexes_by_default if choice == "auto" else choice == "on"

    def unique_statement(self, spec: KeySpec) -> str:
        # Both servers take the parenthesised list for one property as for several.
        columns = ", ".join(f"e.{prop}" for prop in spec.props)
        return f"CREATE CONSTRAINT {spec.name} IF NOT EXISTS FOR (e:{spec.label}) REQUIRE ({columns}) IS UNIQUE"

    def drop_statement(self, name: str) -> str:
        if not _NAME.match(name):
            raise ValueError(f"unsafe constraint name {name!r}")
        return f"DROP CONSTRAINT {name} IF EXISTS"

    def range_statement(self, spec: IndexSpec) -> str:
        return f"CREATE INDEX memoria_{spec.slug} IF NOT EXISTS FOR {spec.pattern()} ON (e.{spec.prop})"

    def unique_constraint(self, spec: KeySpec) -> None:
        driver.write(self.unique_statement(spec))

    def constraint_drop(self, name: str) -> None:
        driver.write(self.drop_statement(name))

    def range_index(self, spec: IndexSpec) -> None:
        driver.write(self.range_statement(spec))

    def is_constraint_violation(self, error: BaseException) -> bool:
        return _is_constraint_violation(error)


class Neo4jDialect(_CypherDdl):
    name = "neo4j"
    one_label_change_per_transaction = False
    # Neo4j's HNSW indexes take each write as it comes.
    vector_indexes_by_default = True

    def fulltext_index_name(self, spec: IndexSpec) -> str:
        return f"memoria_{spec.slug}_fulltext"

    def vector_index_name(self, spec: IndexSpec) -> str:
        return f"memoria_{spec.slug}_vector"

    def fulltext_statement(self, spec: IndexSpec) -> str:
        return (
            f"CREATE FULLTEXT INDEX {self.fulltext_index_name(spec)} IF NOT EXISTS "
            f"FOR {spec.pattern()} ON EACH [e.{spec.prop}]"
        )

    def vector_statement(self, spec: IndexSpec, dimensions: int) -> str:
        # Index options are literals in Neo4j's DDL, so the (integer) dimension count is inlined.
        return (
            f"CREATE VECTOR INDEX {self.vector_index_name(spec)} IF NOT EXISTS FOR {spec.pattern()} "
            f"ON (e.{spec.prop}) OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimensions)}, "
            f"`vector.similarity_function`: 'cosine'}}}}"
        )

    def fulltext_index(self, spec: IndexSpec) -> None:
        driver.write(self.fulltext_statement(spec))

    def vector_index(self, spec: IndexSpec, dimensions: int) -> None:
        driver.write(self.vector_statement(spec, dimensions))

    def vector_index_drop(self, spec: IndexSpec) -> None:
        driver.write(f"DROP INDEX {self.vector_index_name(spec)} IF EXISTS")


class ArcadeDialect(_CypherDdl):
    """ArcadeDB refuses vector and full-text DDL in Cypher; its SQL over HTTP creates them."""

    name = "arcadedb"
    one_label_change_per_transaction = True
    # Its LSM vector index (JVector) is rebuilt whole, every group's vectors on one thread, after a burst of writes
    # or a quiet spell: 26 minutes of a core at 500k facts (docs/benchmarks.md). A cost that grows with every other
    # group's writes, so groups scan their own vectors instead.
    vector_indexes_by_default = False

    def __init__(self, http: ArcadeHttp) -> None:
        self.http = http

    def fulltext_index_name(self, spec: IndexSpec) -> str:
        return f"{spec.label}[{spec.prop}]"

    def vector_index_name(self, spec: IndexSpec) -> str:
        return f"{spec.label}[{spec.prop}]"

    def _declare(self, spec: IndexSpec, property_type: str) -> None:
        kind = "EDGE" if spec.relationship else "VERTEX"
        self.http.sql(f"CREATE {kind} TYPE {spec.label} IF NOT EXISTS")
        self.http.sql(f"CREATE PROPERTY {spec.label}.{spec.prop} IF NOT EXISTS {property_type}")

    def fulltext_index(self, spec: IndexSpec) -> None:
        self._declare(spec, "STRING")
        self.http.sql(f"CREATE INDEX IF NOT EXISTS ON {spec.label} ({spec.prop}) FULL_TEXT")

    def vector_index(self, spec: IndexSpec, dimensions: int) -> None:
        self._declare(spec, "ARRAY_OF_FLOATS")
        self.http.sql(
            f"CREATE INDEX IF NOT EXISTS ON {spec.label} ({spec.prop}) LSM_VECTOR "
            f"METADATA {{dimensions: {int(dimensions)}, similarity: 'COSINE'}}"
        )

    def vector_index_drop(self, spec: IndexSpec) -> None:
        self.http.sql(f"DROP INDEX `{self.vector_index_name(spec)}` IF EXISTS")


def dialect_for_agent(agent: str) -> GraphDialect:
    if "arcadedb" in agent.lower():
        graph = settings.MEMORIA_GRAPH
        host = driver_host(graph["URL"])
        return ArcadeDialect(ArcadeHttp(host, graph["HTTP_PORT"], graph["USER"], graph["PASSWORD"], graph["DATABASE"]))
    return Neo4jDialect()


def driver_host(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or "127.0.0.1"


@functools.cache
def graph_dialect() -> GraphDialect:
    """The dialect of the configured server, detected once (raises GraphUnavailable if it is down)."""
    return dialect_for_agent(driver.server_agent())
