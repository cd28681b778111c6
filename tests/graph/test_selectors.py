"""Group summaries and the counted version on the real server: the model reads answer what the Cypher ones did."""

from __future__ import annotations

from memoria.graph import driver
from memoria.graph.selectors import GroupSummary, group_summary, group_version_counted
from memoria.graph.versions import group_stamps_compact, group_stamps_delete, group_version, group_version_bump
from tests.interchange.test_import_export import do_import, sample

# The reads the model queries replaced, kept here as the reference they must agree with.
NODE_COUNTS = """
MATCH (n:Memory {group_id: $group})
RETURN
  sum(CASE WHEN 'Episode' IN labels(n) THEN 1 ELSE 0 END) AS episodes,
  sum(CASE WHEN 'Entity' IN labels(n) THEN 1 ELSE 0 END) AS entities,
  sum(CASE WHEN 'Community' IN labels(n) THEN 1 ELSE 0 END) AS communities
"""
FACT_COUNT = "MATCH (n:Memory {group_id: $group})-[r:RELATES]->() RETURN count(r) AS facts"


def test_an_empty_group_counts_nothing(group: str) -> None:
    assert group_summary(group=group) == GroupSummary(group, 0, 0, 0, 0)
    assert group_version_counted(group=group) == 0


def test_the_summary_counts_each_kind_of_the_group_only(group: str) -> None:
    do_import(sample(group), group)
    other = f"{group}-other"
    try:
        do_import(sample(other), other)  # the same ids in another group are not counted
        summary = group_summary(group=group)
        assert summary == GroupSummary(group, episodes=1, entities=3, communities=1, facts=2)
        counts = driver.read(NODE_COUNTS, group=group)[0]
        facts = driver.read(FACT_COUNT, group=group)[0]["facts"]
        assert (summary.episodes, summary.entities, summary.communities, summary.facts) == (
            counts["episodes"],
            counts["entities"],
            counts["communities"],
            facts,
        )
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)
        group_stamps_delete(group=other)


def test_the_counted_version_is_the_version(group: str) -> None:
    for _ in range(5):
        driver.write_transaction(lambda tx: group_version_bump(tx, group, touched=["a"]))
        assert group_version_counted(group=group) == group_version(group=group).version
    group_stamps_compact(group=group, after=2)  # a fold keeps the sum
    assert group_version_counted(group=group) == group_version(group=group).version == 5
