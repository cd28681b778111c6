"""The one definition of "this fact counts at time t": its three forms agree, and bad input names its field."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest

from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.graph.asof import EARLIEST, EVERY_FACT, LATEST, AsOf, FactIntervals, counts_cypher, moment_cypher, seconds
from memoria.requests.moment import AsOfInput
from memoria.requests.vocabulary import input_parse
from tests.graph.timed import COLUMNS, TIMES, random_times


def random_facts(rng: random.Random, count: int) -> list[dict[str, str | None]]:
    """Facts whose four times are drawn from a few months or missing, ties with the query times included."""
    return [random_times(rng, missing=1) for _ in range(count)]


def intervals_of(facts: list[dict[str, str | None]]) -> FactIntervals:
    columns = {}
    for name in COLUMNS:
        vocabulary = tuple(dict.fromkeys(fact[name] for fact in facts))
        codes = np.asarray([vocabulary.index(fact[name]) for fact in facts], dtype=np.int32)
        columns[name] = (vocabulary, codes)
    return FactIntervals.from_interned(columns)


def moments(rng: random.Random) -> list[AsOf]:
    return [EVERY_FACT, *(AsOf(rng.choice(TIMES), rng.choice(TIMES)) for _ in range(30))]


def test_the_array_mask_agrees_with_the_definition() -> None:
    rng = random.Random(1)
    facts = random_facts(rng, 400)
    intervals = intervals_of(facts)
    for moment in moments(rng):
        expected = [moment.counts(**fact) for fact in facts]
        mask = intervals.mask(moment)
        assert (mask is None) == moment.every_fact
        assert (mask.tolist() if mask is not None else [True] * len(facts)) == expected
        some = np.asarray([3, 7, 7, 100])
        if mask is not None:
            assert intervals.mask(moment, some).tolist() == [expected[i] for i in some.tolist()]


def test_the_cypher_predicate_agrees_with_the_definition(group: str) -> None:
    rng = random.Random(2)
    facts = random_facts(rng, 120)
    driver.write(
        """
        CREATE (a:Memory:Entity {group_id: $group, id: $group + '-a', name: 'a'})
        CREATE (b:Memory:Entity {group_id: $group, id: $group + '-b', name: 'b'})
        WITH a, b UNWIND range(0, size($facts) - 1) AS i
        CREATE (a)-[r:RELATES {group_id: $group, id: $group + '-f' + toString(i), relation: 'rel', weight: 1.0}]->(b)
        SET r += $facts[i]
        """,
        group=group,
        facts=[{key: value for key, value in fact.items() if value is not None} for fact in facts],
    )
    for moment in moments(rng):
        where = "true" if moment.every_fact else counts_cypher("r")
        rows = driver.read(
            f"MATCH (:Memory {{group_id: $group, id: $group + '-a'}})-[r:RELATES]->() WHERE {where} RETURN r.id AS id",
            group=group,
            **moment.parameters(),
        )
        expected = {f"{group}-f{i}" for i, fact in enumerate(facts) if moment.counts(**fact)}
        assert {row["id"] for row in rows} == expected
        shared = driver.read(  # the form for query texts shared by every moment, every fact by null parameters
            f"MATCH (:Memory {{group_id: $group, id: $group + '-a'}})-[r:RELATES]->() WHERE {moment_cypher('r')}"
            " RETURN r.id AS id",
            group=group,
            **moment.nullable_parameters(),
        )
        assert {row["id"] for row in shared} == expected


def test_the_defaults_ask_now_as_known_now() -> None:
    now = datetime(2026, 5, 1, 12, 30, 15, 999, tzinfo=UTC)
    assert AsOfInput().resolved(now) == AsOf("2026-05-01T12:30:15Z", "2026-05-01T12:30:15Z")
    assert AsOfInput(as_of="2026-01-01T01:00:00+01:00").resolved(now) == AsOf(
        "2026-01-01T00:00:00Z", "2026-05-01T12:30:15Z"
    )
    assert AsOfInput(include_invalidated=True).resolved(now) is EVERY_FACT
    assert input_parse(AsOfInput, {"include_invalidated": True}).resolved() is EVERY_FACT
    assert EVERY_FACT.as_dict() == {"as_of": None, "known_at": None, "include_invalidated": True}


def test_a_contradicted_fact_counts_before_its_end_and_until_its_end_was_learned() -> None:
    # Learned in January as holding from January; in April we learned it had ended in March.
    fact = {
        "valid_at": "2026-01-01T00:00:00Z",
        "invalid_at": "2026-03-01T00:00:00Z",
        "created_at": "2026-01-01T00:00:00Z",
        "expired_at": "2026-04-01T00:00:00Z",
    }
    now = "2026-06-01T00:00:00Z"
    assert not AsOf(now, now).counts(**fact)  # ended, and we know it
    assert AsOf("2026-02-01T00:00:00Z", now).counts(**fact)  # it held in February
    assert AsOf("2026-03-15T00:00:00Z", "2026-03-20T00:00:00Z").counts(**fact)  # then we did not know it had ended
    assert not AsOf("2026-02-01T00:00:00Z", "2025-12-01T00:00:00Z").counts(**fact)  # not learned yet
    assert not AsOf("2025-12-01T00:00:00Z", now).counts(**fact)  # not begun


@pytest.mark.parametrize(
    ("raw", "field", "says"),
    [
        ({"as_of": "yesterday"}, "as_of", "ISO 8601"),
        ({"known_at": "2026-02-30T00:00:00Z"}, "known_at", "ISO 8601"),
        ({"as_of": "2026-01-01T00:00:00"}, "as_of", "time zone"),
        ({"as_of": "0001-01-01T00:00:00+01:00"}, "as_of", "out of range"),
        ({"known_at": "9999-12-31T23:30:00-02:00"}, "known_at", "out of range"),
        ({"as_of": 20260101}, "as_of", "string"),
        ({"include_invalidated": "yes"}, "include_invalidated", "boolean"),
        ({"include_invalidated": True, "as_of": "2026-01-01T00:00:00Z"}, "include_invalidated", "as_of"),
        ({"include_invalidated": True, "known_at": "2026-01-01T00:00:00Z"}, "include_invalidated", "known_at"),
    ],
)
def test_bad_input_names_the_field(raw: dict, field: str, says: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(AsOfInput, raw).resolved()
    (problem,) = caught.value.problems
    assert problem.startswith(f"{field}: ") and says in problem, problem


def test_stored_stamps_are_read_as_the_parser_reads_them() -> None:
    rng = random.Random(3)
    stamps = [
        f"{rng.randint(1, 9999):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        for _ in range(2000)
    ]
    stamps += ["2000-02-29T23:59:59Z", "1900-03-01T00:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z"]
    intervals = FactIntervals.from_interned(
        {name: (tuple(stamps), np.arange(len(stamps), dtype=np.int32)) for name in COLUMNS}
    )
    assert intervals.valid_at.tolist() == [seconds(stamp) for stamp in stamps]
    # Not the stored form (written by hand): read one by one, as the parser reads it.
    odd = ("2026-01-01T01:00:00+01:00", None)
    intervals = FactIntervals.from_interned({name: (odd, np.asarray([0, 1], dtype=np.int32)) for name in COLUMNS})
    assert intervals.valid_at.tolist() == [seconds("2026-01-01T00:00:00Z"), EARLIEST]
    assert intervals.invalid_at.tolist() == [seconds("2026-01-01T00:00:00Z"), LATEST]
