"""Synonymy edges inferred from entity name embeddings: created with their provenance, idempotent, removable,
and never touching a fact someone else wrote. On the real graph server and the real embedding model."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.graph.versions import group_version
from memoria.linking.synonyms import INFERRED_TAG, RELATION, synonyms_infer, synonyms_remove
from tests.linking.memory import two_hop_group

# "Helsinki Cathedral" and "Helsinki Cathedral (Finland)" embed near alike; measured with all-MiniLM-L6-v2.
THRESHOLD = 0.9
INFERRED = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory)
WHERE r.group_id = $group AND $tag IN r.tags
RETURN a.name AS source, b.name AS target, r.relation AS relation, r.tags AS tags, r.fact AS fact,
       r.weight AS weight, r.relation_category AS category
ORDER BY source, target
"""


@pytest.fixture
def two_hop(graph_server: object) -> Iterator[str]:
    with two_hop_group() as group:
        yield group


def inferred(group: str) -> list[dict]:
    return driver.read(INFERRED, group=group, tag=INFERRED_TAG)


def facts(group: str) -> int:
    return driver.read("MATCH ()-[r:RELATES]->() WHERE r.group_id = $group RETURN count(r) AS c", group=group)[0]["c"]


def test_near_names_get_an_inferred_fact_with_its_provenance(two_hop: str) -> None:
    report = synonyms_infer(group=two_hop, threshold=THRESHOLD)
    found = inferred(two_hop)
    pairs = {frozenset((row["source"], row["target"])) for row in found}
    assert frozenset(("Helsinki Cathedral", "Helsinki Cathedral (Finland)")) in pairs
    assert not any("Apple pie" in pair for pair in pairs)
    assert report.pairs == report.written == len(found) and report.removed == 0
    for row in found:
        assert row["relation"] == RELATION and row["category"] == "ATTRIBUTION"
        assert set(row["tags"]) == {INFERRED_TAG, f"model:{report.model}".lower(), "threshold:0.9"}
        assert THRESHOLD <= row["weight"] <= 1.0
        assert "inferred" in row["fact"] and report.model in row["fact"]


def test_a_second_run_changes_nothing(two_hop: str) -> None:
    first = synonyms_infer(group=two_hop, threshold=THRESHOLD)
    version = group_version(group=two_hop).version
    again = synonyms_infer(group=two_hop, threshold=THRESHOLD)
    assert (again.pairs, again.written, again.removed) == (first.pairs, 0, 0)
    assert group_version(group=two_hop).version == version  # nothing written: no projection or view reloads


def test_a_higher_threshold_removes_what_it_no_longer_finds(two_hop: str) -> None:
    low = synonyms_infer(group=two_hop, threshold=0.5)
    high = synonyms_infer(group=two_hop, threshold=0.99)
    assert low.pairs > high.pairs
    assert high.removed == low.pairs - high.pairs
    assert len(inferred(two_hop)) == high.pairs


def test_remove_deletes_only_inferred_facts(two_hop: str) -> None:
    before = facts(two_hop)
    report = synonyms_infer(group=two_hop, threshold=THRESHOLD)
    assert facts(two_hop) == before + report.pairs
    assert synonyms_remove(group=two_hop) == report.pairs
    assert inferred(two_hop) == [] and facts(two_hop) == before  # the three stated facts stay
    assert synonyms_remove(group=two_hop) == 0


def test_bad_threshold_is_refused_and_writes_nothing(two_hop: str) -> None:
    with pytest.raises(InvalidInput, match="threshold"):
        synonyms_infer(group=two_hop, threshold=1.5)
    assert inferred(two_hop) == []


def test_command(two_hop: str) -> None:
    out = StringIO()
    call_command("infer_synonyms", "--group", two_hop, "--threshold", "0.9", stdout=out)
    assert "synonymy edge(s)" in out.getvalue() and "0 removed" in out.getvalue()
    out = StringIO()
    call_command("infer_synonyms", "--group", two_hop, "--remove", stdout=out)
    assert f"group {two_hop}: removed" in out.getvalue()
    with pytest.raises(CommandError, match="threshold"):
        call_command("infer_synonyms", "--group", two_hop, "--threshold", "0")
