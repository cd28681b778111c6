"""Search's `valid_at` filter is the one definition of memoria/graph/asof.py, on the server's indexes (Cypher) and on
the group's view alike: random facts with all four times, random moments, both engines against `AsOf.counts`."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator

import pytest

from memoria.graph import driver
from memoria.graph.asof import valid_time
from memoria.search.config import ScopeConfig, SearchConfig, SearchMethod
from memoria.search.service import Engine, search
from tests.browse.graphs import entity, fact, load

FACTS = 40
SET_TIMES = """
UNWIND $rows AS row
MATCH (:Memory {group_id: $group})-[r:RELATES]->() WHERE r.id = row.id
SET r.valid_at = row.valid_at, r.invalid_at = row.invalid_at, r.created_at = row.created_at,
    r.expired_at = row.expired_at
"""
READ_TIMES = """
MATCH (:Memory {group_id: $group})-[r:RELATES]->()
RETURN r.id AS id, r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.created_at AS created_at,
       r.expired_at AS expired_at
"""
# Years 2020-2030 and now: transaction times after now (a fact the memory has not learned yet, an end learned
# later) are the cases where plain valid time and the definition could part.
YEARS = range(2020, 2031)


def _stamp(rng: random.Random) -> str:
    return f"{rng.choice(YEARS)}-{rng.randint(1, 12):02d}-01T00:00:00Z"


def _maybe(rng: random.Random) -> str | None:
    return _stamp(rng) if rng.random() < 0.6 else None


@pytest.fixture(scope="module")
def timed_group(graph_server: object) -> Iterator[str]:
    group = f"validity-{uuid.uuid4().hex[:10]}"
    load(
        group,
        nodes=[entity(f"{group}-n{i}", f"Quokka station {i}") for i in range(FACTS + 1)],
        edges=[
            fact(f"{group}-n{i}", f"{group}-n{i + 1}", 0.5, "observed", id=f"{group}-f{i}", fact=f"quokka sighting {i}")
            for i in range(FACTS)
        ],
    )
    rng = random.Random(14)
    rows = [
        {"id": f"{group}-f{i}", "valid_at": _maybe(rng), "invalid_at": _maybe(rng), "created_at": _maybe(rng)}
        for i in range(FACTS)
    ]
    for row in rows:
        row["expired_at"] = row["invalid_at"] and (_stamp(rng) if rng.random() < 0.7 else None)
    driver.write(SET_TIMES, rows=rows, group=group)  # before any search, so the view is built with them
    yield group
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)


def _found(group: str, moment: str | None, engine: Engine) -> set[str]:
    config = SearchConfig(facts=ScopeConfig(methods=(SearchMethod.BM25,), limit=FACTS))
    results = search(query="quokka sighting", groups=[group], config=config, valid_at=moment, engine=engine)
    return {hit.id for hit in results.facts}


@pytest.mark.parametrize("engine", [Engine.CYPHER, Engine.VIEW])
def test_search_keeps_exactly_the_facts_that_count_at_valid_at(timed_group: str, engine: Engine) -> None:
    stored = driver.read(READ_TIMES, group=timed_group)
    assert len(stored) == FACTS
    rng = random.Random(26)
    moments = [None, *(f"{rng.choice(YEARS)}-{rng.randint(1, 12):02d}-15T00:00:00Z" for _ in range(8))]
    for moment in moments:
        at = valid_time(moment)
        expected = {
            row["id"]
            for row in stored
            if at.counts(row["valid_at"], row["invalid_at"], row["created_at"], row["expired_at"])
        }
        assert _found(timed_group, moment, engine) == expected, moment
