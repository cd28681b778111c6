"""Merging duplicate entities against the real graph server: what moves, what folds, what goes, and exact undo."""

from __future__ import annotations

import json

import pytest

from memoria.curation.errors import CurationConflict, ItemNotFound
from memoria.curation.inputs import entity_merge_parse
from memoria.curation.merge import entity_merge
from memoria.curation.models import AuditEntry
from memoria.curation.selectors import entity_state_get
from memoria.curation.undo import audit_entry_undo
from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.ingest.resolve_facts import noisy_or
from memoria.interchange.exporter import graph_document_export
from tests.curation.memory import edge_id, graph_snapshot, node_id, vectors_of

pytestmark = pytest.mark.django_db


def merge(group: str, into: str = "liv", duplicate: str = "livdup", **body: object):
    request = entity_merge_parse({"from": node_id(group, duplicate), **body})
    return entity_merge(group=group, entity_id=node_id(group, into), merge=request, actor="cura")


def test_merge_moves_facts_mentions_and_memberships_and_deletes_the_duplicate(memory: str) -> None:
    n = lambda key: node_id(memory, key)  # noqa: E731
    e = lambda key: edge_id(memory, key)  # noqa: E731
    before = graph_snapshot(memory)
    outcome = merge(memory)
    after = graph_snapshot(memory)

    assert n("livdup") not in after["nodes"]
    # Moved facts keep their ids and every property; only the duplicate's end becomes Liv.
    for key, (source, target) in {
        "works": ("liv", "globex"),
        "sister": ("maren", "liv"),
        "old-job": ("liv", "initech"),
    }.items():
        assert after["edges"][e(key)] == (n(source), n(target), before["edges"][e(key)][2])
    # The duplicate of "Liv lives in Tallinn" folded into it as ingestion folds a repeated fact.
    assert e("dup-lives") not in after["edges"]
    kept, folded = before["edges"][e("lives")][2], before["edges"][e("dup-lives")][2]
    merged = after["edges"][e("lives")][2]
    assert merged["episodes"] == [n("ep1"), n("ep2")]
    assert merged["tags"] == ["home", "city"]
    assert merged["weight"] == noisy_or(kept["weight"], folded["weight"])
    assert {k: v for k, v in merged.items() if k not in ("episodes", "tags", "weight")} == {
        k: v for k, v in kept.items() if k not in ("episodes", "tags", "weight")
    }
    # The fact joining the two would be a loop: gone.
    assert e("loop") not in after["edges"]
    # Facts not touching the duplicate are untouched.
    assert after["edges"][e("maren-lives")] == before["edges"][e("maren-lives")]

    assert after["links"]["MENTIONS"] == sorted(
        {(s, t if t != n("livdup") else n("liv")) for s, t in before["links"]["MENTIONS"]}
    )
    assert (n("c2"), n("liv")) in after["links"]["HAS_MEMBER"]
    attributes = json.loads(after["nodes"][n("liv")][1]["attributes"])
    assert attributes == {"aliases": ["Liv", "Liv V.", "L. Varga"], "role": "sister"}
    assert after["nodes"][n("liv")][1]["name"] == "Liv Varga"

    entry = outcome.entry
    assert (entry.action, entry.item_kind, entry.item_id) == ("entity.merge", "entity", n("liv"))
    touched = {(item.kind, item.item_id) for item in entry.items.all()}
    assert {("entity", n("liv")), ("entity", n("livdup")), ("edge", e("works")), ("edge", e("lives"))} <= touched
    assert ("edge", e("maren-lives")) not in touched


def test_merge_keeps_vectors_whose_text_stays_and_reembeds_the_rest(embedded_memory: str) -> None:
    before = vectors_of(embedded_memory)
    outcome = merge(embedded_memory)
    after = vectors_of(embedded_memory)
    e = lambda key: edge_id(embedded_memory, key)  # noqa: E731
    assert after[e("lives")] == before[e("lives")]  # Liv's own facts read the same
    assert after[e("maren-lives")] == before[e("maren-lives")]
    assert (
        after[node_id(embedded_memory, "liv")] == before[node_id(embedded_memory, "liv")]
    )  # Liv's name and summary did not change
    # A fact's text names its ends: "Liv V. works at Globex" became "Liv Varga works at Globex", and so on.
    for moved in ("works", "sister", "old-job"):
        assert after[e(moved)] != before[e(moved)]
    assert outcome.reindexed == 3


def test_undo_of_a_merge_restores_everything_exactly_vectors_included(embedded_memory: str) -> None:
    before, vectors = graph_snapshot(embedded_memory), vectors_of(embedded_memory)
    outcome = merge(embedded_memory)
    undo = audit_entry_undo(group=embedded_memory, entry_id=outcome.entry.pk, actor="cura")
    assert graph_snapshot(embedded_memory) == before
    restored = vectors_of(embedded_memory)
    assert set(restored) == set(vectors)
    for key, vector in vectors.items():  # re-embedded from the same texts, or kept
        assert restored[key] == pytest.approx(vector, abs=1e-5), key
    # Liv V., the folded duplicate and the loop came back without vectors; the facts that moved back to Liv V.
    # read differently from their restored end again (works, sister, old-job). The rest kept theirs.
    assert undo.reindexed == 6


@pytest.mark.parametrize(
    ("body", "problem", "error"),
    [
        ({"from": "{liv}"}, "merge.from: must differ", InvalidInput),
        ({"from": "{ep1}"}, "is not an entity of this group", InvalidInput),
        ({"from": "{c1}"}, "is not an entity of this group", InvalidInput),
        ({"from": "nobody"}, "merge.from: 'nobody' is not an entity of this group", InvalidInput),
        ({}, "merge.from: is required", InvalidInput),
        ({"from": 7}, "merge.from: must be a node id", InvalidInput),
        ({"from": "{livdup}", "into": "x"}, "merge: unknown field(s) into", InvalidInput),
        ({"from": "{livdup}", "version": "0000"}, "entity", CurationConflict),
        ({"from": "{livdup}", "from_version": "0000"}, "changed since you read it", CurationConflict),
    ],
)
def test_bad_merges_write_nothing(memory: str, body: dict, problem: str, error: type) -> None:
    ids = {key: node_id(memory, key) for key in ("liv", "livdup", "ep1", "c1")}
    body = {k: (v.format(**ids) if isinstance(v, str) else v) for k, v in body.items()}
    exported = graph_document_export(group=memory)
    with pytest.raises(error) as refused:
        entity_merge(group=memory, entity_id=ids["liv"], merge=entity_merge_parse(body), actor="cura")
    assert problem in str(refused.value)
    assert graph_document_export(group=memory) == exported and AuditEntry.objects.count() == 0


def test_merging_into_a_missing_entity_is_not_found(memory: str) -> None:
    with pytest.raises(ItemNotFound):
        merge(memory, into="nobody")
    with pytest.raises(ItemNotFound):  # an episode is not an entity
        merge(memory, into="ep1")


def test_a_fact_added_to_the_duplicate_meanwhile_is_a_conflict(memory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The transaction re-reads what it moves: a fact another writer adds between plan and write stops the merge."""
    from memoria.curation import merge as merge_module

    planned = merge_module._moved_facts

    def plan_then_race(group: str, entity_id: str, duplicate_id: str):
        result = planned(group, entity_id, duplicate_id)
        driver.write(
            "MATCH (a:Memory {id: $a}), (b:Memory {id: $b}) "
            "CREATE (a)-[:RELATES {id: $id, group_id: $group, relation: 'likes', weight: 0.5}]->(b)",
            a=duplicate_id,
            b=node_id(group, "globex"),
            id=f"{group}-late",
            group=group,
        )
        return result

    monkeypatch.setattr(merge_module, "_moved_facts", plan_then_race)
    snapshot = graph_snapshot(memory)
    with pytest.raises(CurationConflict, match="gained a RELATES relationship meanwhile"):
        merge(memory)
    after = graph_snapshot(memory)
    assert {k: v for k, v in after["edges"].items() if k != f"{memory}-late"} == snapshot["edges"]
    assert after["nodes"] == snapshot["nodes"] and AuditEntry.objects.count() == 0


def test_undo_of_a_merge_refuses_once_a_moved_fact_changed(memory: str) -> None:
    outcome = merge(memory)
    driver.write("MATCH ()-[r:RELATES]->() WHERE r.id = $id SET r.weight = 0.99", id=edge_id(memory, "sister"))
    snapshot = graph_snapshot(memory)
    with pytest.raises(CurationConflict, match=f"fact '{edge_id(memory, 'sister')}' changed"):
        audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="cura")
    assert graph_snapshot(memory) == snapshot
    assert entity_state_get(group=memory, entity_id=node_id(memory, "livdup")) is None
