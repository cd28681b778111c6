"""The invariant checker catches what it is for: a lost contribution, a duplicate current fact, an episode
never stored, an audit entry without an acknowledged change (each made on the real server on purpose)."""

from __future__ import annotations

import pytest

from memoria.curation.models import AuditEntry
from memoria.graph import driver
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episodes_add
from memoria.loadtest.invariants import writers_invariants
from memoria.loadtest.writers import CurationAck, CuratorLedger, EpisodeAck, WriterLedger

pytestmark = pytest.mark.django_db

EPISODES = [
    EpisodeInput("Alice Moreau lives in Lyon.", id="run-w0-1", valid_at="2024-01-01T00:00:00Z"),
    EpisodeInput("Alice Moreau lives in Lyon again.", id="run-w0-2", valid_at="2024-01-02T00:00:00Z"),
]


def ledger(group: str) -> WriterLedger:
    results = episodes_add(group=group, episodes=EPISODES, update_communities=False)
    acks = [EpisodeAck(r.episode_id, r.added, r.facts_created, r.facts_merged, r.facts_invalidated) for r in results]
    return WriterLedger(sent=[episode.id for episode in EPISODES], acknowledged=acks)


def check(group: str, writers: WriterLedger, curators: CuratorLedger | None = None):
    return writers_invariants(group=group, label="run", writers=writers, curators=curators or CuratorLedger())


def test_what_the_writers_were_told_holds(group: str) -> None:
    report = check(group, ledger(group))
    assert report.ok, report.summary()
    assert report.claims_checked == 2 and report.episodes_checked == 2


def test_an_episode_missing_from_its_fact_is_a_lost_contribution(group: str) -> None:
    writers = ledger(group)
    driver.write("MATCH ()-[r:RELATES {group_id: $g}]->() SET r.episodes = ['run-w0-1']", g=group)
    report = check(group, writers)
    assert report.violations["lost contribution"] == [
        f"run-w0-2 → {writers.acknowledged[1].facts_merged[0]} (episodes ['run-w0-1'])"
    ]


def test_two_current_facts_saying_the_same_are_duplicates_and_a_repeated_episode_is_listed_twice(group: str) -> None:
    writers = ledger(group)
    driver.write(
        "MATCH (a)-[r:RELATES {group_id: $g}]->(b) CREATE (a)-[:RELATES {id: 'copy', group_id: $g,"
        " relation: r.relation, episodes: ['run-w0-1', 'run-w0-1']}]->(b)",
        g=group,
    )
    report = check(group, writers)
    assert len(report.violations["duplicate current fact"]) == 1
    assert report.violations["episode listed twice in a fact"] == ["copy: ['run-w0-1']"]


def test_episodes_never_stored_or_never_sent_are_reported(group: str) -> None:
    """(Twice is what the unique constraint on Memory's (group_id, id) already refuses.)"""
    writers = ledger(group)
    driver.write("CREATE (:Memory:Episode {group_id: $g, id: 'run-w9-1'})", g=group)
    writers.acknowledged.append(EpisodeAck("run-w0-3", True, (), (), ()))
    writers.sent.append("run-w0-3")
    report = check(group, writers)
    assert report.violations["acknowledged episode not stored once"] == ["run-w0-3 ×0"]
    assert report.violations["episode stored that was never sent"] == ["run-w9-1"]


def test_the_audit_trail_must_match_the_acknowledged_changes_one_to_one(group: str) -> None:
    writers = ledger(group)
    entry = AuditEntry.objects.create(
        group=group, actor="run-c0", action="edge.update", item_kind="edge", item_id="f", before={}, after={}
    )
    unacknowledged = check(group, writers)
    assert unacknowledged.violations["audit entry of no acknowledged change"] == [f"#{entry.pk} edge.update"]
    told = CuratorLedger(acknowledged=[CurationAck(entry.pk, "edge.update", "f"), CurationAck(-1, "edge.update", "g")])
    report = check(group, writers, told)
    assert report.violations["acknowledged change without an audit entry"] == ["-1"]
    assert "audit entry of no acknowledged change" not in report.as_dict()["violations"]
