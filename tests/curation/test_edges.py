"""Edge edits, invalidation, deletion and addition against the real graph server, each audited and undoable."""

from __future__ import annotations

import pytest

from memoria.curation.audit import audit_entries_page
from memoria.curation.create import edge_create
from memoria.curation.delete import edge_delete
from memoria.curation.edit import edge_update
from memoria.curation.errors import CurationConflict, ItemNotFound
from memoria.curation.inputs import (
    EdgeInvalidation,
    edge_create_parse,
    edge_invalidation_parse,
    edge_patch_parse,
)
from memoria.curation.invalidate import edge_invalidate
from memoria.curation.models import AuditEntry
from memoria.curation.selectors import edge_detail, edge_state_get
from memoria.curation.state import timestamp_now
from memoria.curation.undo import audit_entry_undo
from memoria.embeddings import embedder
from memoria.errors import InvalidInput
from memoria.graph.searchable import fact_text
from memoria.graph.versions import group_version
from memoria.interchange.exporter import graph_document_export
from tests.curation.memory import edge_id, graph_snapshot, node_id, vectors_of

pytestmark = pytest.mark.django_db


def patch(group: str, key: str, body: dict, actor: str = "cura"):
    return edge_update(group=group, edge_id=edge_id(group, key), patch=edge_patch_parse(body), actor=actor)


def test_edit_changes_only_the_sent_fields_and_records_who_and_what(embedded_memory: str) -> None:
    before = graph_snapshot(embedded_memory)
    outcome = patch(
        embedded_memory, "lives", {"weight": 0.9, "tags": ["Home Town", "home town", "city"], "category": None}
    )
    after = graph_snapshot(embedded_memory)
    key = edge_id(embedded_memory, "lives")
    old, new = before["edges"][key][2], after["edges"][key][2]
    assert new["weight"] == 0.9 and new["tags"] == ["home_town", "city"]  # normalised and de-duplicated
    assert "relation_category" not in new and old["relation_category"] == "SPATIAL"
    assert {k: v for k, v in new.items() if k not in ("weight", "tags")} == {
        k: v for k, v in old.items() if k not in ("weight", "tags", "relation_category")
    }
    assert {k: v for k, v in after["edges"].items() if k != key} == {
        k: v for k, v in before["edges"].items() if k != key
    }
    entry = outcome.entry
    assert entry.actor == "cura" and entry.action == "edge.update" and (entry.item_kind, entry.item_id) == ("edge", key)
    assert entry.before["edges"][key]["props"]["weight"] == 0.6 and entry.after["edges"][key]["props"]["weight"] == 0.9
    assert outcome.reindexed == 0  # neither text nor ends changed: the fact keeps its vector, nothing to embed


def test_a_new_fact_text_loses_its_vector_and_gets_the_new_texts(embedded_memory: str) -> None:
    key = edge_id(embedded_memory, "lives")
    kept = vectors_of(embedded_memory)
    outcome = patch(embedded_memory, "lives", {"fact": "Liv has lived in Tallinn since 2019"})
    assert outcome.reindexed == 1
    vectors = vectors_of(embedded_memory)
    text = fact_text(
        source_name="Liv Varga", relation="lives_in", target_name="Tallinn", fact="Liv has lived in Tallinn since 2019"
    )
    assert vectors[key] == pytest.approx(embedder().embed([text])[0], abs=1e-5)
    assert {k: v for k, v in vectors.items() if k != key} == {k: v for k, v in kept.items() if k != key}


def test_an_edit_that_changes_nothing_writes_nothing(memory: str) -> None:
    outcome = patch(memory, "lives", {"weight": 0.6, "tags": ["home"]})
    assert outcome.entry is None and AuditEntry.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"weight": 1.5}, "edge.weight: 1.5 is outside [0.25, 1.0]"),
        ({"weight": "heavy"}, "edge.weight: must be a number"),
        ({"weight": True}, "edge.weight: must be a number"),
        ({"tags": "home"}, "edge.tags: must be a list of strings"),
        ({"tags": ["x" * 80]}, "edge.tags: tag"),
        ({"category": "COLOUR"}, "edge.category: must be one of HIERARCHICAL"),
        ({"relation": "  "}, "edge.relation: must not be empty"),
        ({"relation": "r" * 101}, "edge.relation: is longer than 100"),
        ({"valid_at": "yesterday"}, "edge.valid_at: 'yesterday' is not a usable ISO 8601"),
        ({"valid_at": "2024-03-01T00:00:00"}, "has no time zone"),
        ({"colour": "red"}, "edge: unknown field(s) colour"),
        ({"source": "elsewhere"}, "edge: unknown field(s) source"),
        ({}, "edge: give at least one of"),
        ({"weight": 0.7, "version": "not a version"}, "edge.version: must be a version string"),
    ],
)
def test_bad_edits_name_the_field_and_write_nothing(memory: str, body: dict, problem: str) -> None:
    exported = graph_document_export(group=memory)
    with pytest.raises(InvalidInput) as refused:
        patch(memory, "lives", body)
    assert problem in str(refused.value)
    assert graph_document_export(group=memory) == exported
    assert AuditEntry.objects.count() == 0


def test_valid_at_may_not_pass_invalid_at(memory: str) -> None:
    exported = graph_document_export(group=memory)
    with pytest.raises(InvalidInput, match=r"edge.invalid_at: is before valid_at"):
        patch(memory, "old-job", {"valid_at": "2024-06-01T00:00:00+02:00"})
    assert graph_document_export(group=memory) == exported


def test_unknown_and_foreign_edges_are_not_found(memory: str, group: str) -> None:
    with pytest.raises(ItemNotFound):
        patch(memory, "nope", {"weight": 0.5})
    with pytest.raises(ItemNotFound):  # the id exists, but in another group
        edge_update(
            group="someone-else", edge_id=edge_id(memory, "lives"), patch=edge_patch_parse({"weight": 0.5}), actor="x"
        )


def test_a_stale_version_is_a_conflict_and_writes_nothing(memory: str) -> None:
    seen = edge_detail(group=memory, edge_id=edge_id(memory, "lives"))["version"]
    patch(memory, "lives", {"weight": 0.7, "version": seen})  # the first edit on that version lands
    snapshot = graph_snapshot(memory)
    with pytest.raises(CurationConflict, match="changed since you read it"):
        patch(memory, "lives", {"weight": 0.8, "version": seen}, actor="someone-else")
    assert graph_snapshot(memory) == snapshot
    assert AuditEntry.objects.count() == 1
    fresh = edge_detail(group=memory, edge_id=edge_id(memory, "lives"))["version"]
    assert fresh != seen
    patch(memory, "lives", {"weight": 0.8, "version": fresh})
    assert edge_state_get(group=memory, edge_id=edge_id(memory, "lives")).props["weight"] == 0.8


def test_invalidate_keeps_the_edge_and_stamps_both_times(memory: str) -> None:
    key = edge_id(memory, "lives")
    started = timestamp_now()
    outcome = edge_invalidate(
        group=memory,
        edge_id=key,
        invalidation=edge_invalidation_parse({"invalid_at": "2024-05-01T12:00:00+02:00"}),
        actor="cura",
    )
    props = edge_state_get(group=memory, edge_id=key).props
    assert props["invalid_at"] == "2024-05-01T10:00:00Z"
    assert started <= props["expired_at"] <= timestamp_now()
    assert outcome.entry.action == "edge.invalidate"
    with pytest.raises(CurationConflict, match="already invalid since 2024-05-01T10:00:00Z"):
        edge_invalidate(group=memory, edge_id=key, invalidation=EdgeInvalidation(), actor="cura")


def test_invalidate_defaults_to_now_and_refuses_a_time_before_valid_at(memory: str) -> None:
    key = edge_id(memory, "maren-lives")
    with pytest.raises(
        InvalidInput, match=r"invalidate.invalid_at: 2023-01-01T00:00:00Z is before the fact's valid_at"
    ):
        edge_invalidate(
            group=memory,
            edge_id=key,
            invalidation=edge_invalidation_parse({"invalid_at": "2023-01-01T00:00:00Z"}),
            actor="c",
        )
    with pytest.raises(InvalidInput, match="invalidate: unknown field"):
        edge_invalidation_parse({"when": "now"})
    edge_invalidate(group=memory, edge_id=key, invalidation=EdgeInvalidation(), actor="c")
    props = edge_state_get(group=memory, edge_id=key).props
    assert props["invalid_at"] == props["expired_at"]


def test_create_adds_an_edge_between_two_nodes_of_the_group(memory: str) -> None:
    body = {
        "source": node_id(memory, "maren"),
        "target": node_id(memory, "globex"),
        "relation": "works_at",
        "weight": 0.7,
        "tags": ["Work Place"],
        "fact": "Maren works at Globex",
        "episodes": [node_id(memory, "ep3")],
    }
    record = edge_create_parse(body, group=memory)
    outcome = edge_create(group=memory, record=record, actor="cura")
    detail = edge_detail(group=memory, edge_id=record.id)
    assert detail["source"]["name"] == "Maren" and detail["target"]["name"] == "Globex"
    assert detail["tags"] == ["work_place"] and detail["episodes"][0]["name"] == "message 3"
    assert detail["created_at"] is not None and outcome.entry.action == "edge.create"
    with pytest.raises(CurationConflict, match="already exists"):
        edge_create(group=memory, record=edge_create_parse(body, group=memory), actor="cura")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"target": "{maren}"}, "edge.target: must differ from source"),
        ({"target": "nowhere"}, "edge.target: 'nowhere' is not a node of this group"),
        ({"episodes": ["{maren}"]}, "is not an episode of this group"),
        ({"weight": 0.1}, "edge.weight: 0.1 is outside [0.25, 1.0]"),
        ({"relation": None}, "edge.relation: is required"),
        ({"expired_at": "2024-01-01T00:00:00Z"}, "edge: unknown field(s) expired_at"),
    ],
)
def test_bad_new_edges_name_the_field_and_write_nothing(memory: str, change: dict, problem: str) -> None:
    body = {"source": node_id(memory, "maren"), "target": node_id(memory, "globex"), "relation": "r", "weight": 0.5}
    body.update({k: (v.format(maren=node_id(memory, "maren")) if isinstance(v, str) else v) for k, v in change.items()})
    if "episodes" in change:
        body["episodes"] = [node_id(memory, "maren")]
    exported = graph_document_export(group=memory)
    with pytest.raises(InvalidInput) as refused:
        edge_create(group=memory, record=edge_create_parse(body, group=memory), actor="cura")
    assert problem in str(refused.value)
    assert graph_document_export(group=memory) == exported and AuditEntry.objects.count() == 0


def test_nodes_of_another_group_cannot_be_joined(memory: str, group: str) -> None:
    body = {"source": node_id(memory, "maren"), "target": node_id(memory, "globex"), "relation": "r", "weight": 0.5}
    with pytest.raises(InvalidInput, match="is not a node of this group"):
        edge_create(group="another-group", record=edge_create_parse(body, group="another-group"), actor="cura")


def test_delete_removes_the_edge_and_undo_puts_it_back_exactly(memory: str) -> None:
    before = graph_snapshot(memory)
    key = edge_id(memory, "sister")
    outcome = edge_delete(group=memory, edge_id=key, version=None, actor="cura")
    assert key not in graph_snapshot(memory)["edges"]
    audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="cura")
    assert graph_snapshot(memory) == before


@pytest.mark.parametrize("action", ["update", "invalidate", "delete", "create"])
def test_every_edge_action_undoes_to_the_exact_state_and_redoes(memory: str, action: str) -> None:
    before = graph_snapshot(memory)
    key = edge_id(memory, "works")
    if action == "update":
        outcome = patch(
            memory, "works", {"relation": "employed_by", "fact": "Liv V. is employed by Globex", "tags": []}
        )
    elif action == "invalidate":
        outcome = edge_invalidate(group=memory, edge_id=key, invalidation=EdgeInvalidation(), actor="cura")
    elif action == "delete":
        outcome = edge_delete(group=memory, edge_id=key, version=None, actor="cura")
    else:
        body = {
            "source": node_id(memory, "tallinn"),
            "target": node_id(memory, "globex"),
            "relation": "hosts",
            "weight": 1,
        }
        outcome = edge_create(group=memory, record=edge_create_parse(body, group=memory), actor="cura")
    changed = graph_snapshot(memory)
    assert changed != before
    undo = audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="boss")
    assert graph_snapshot(memory) == before
    assert undo.entry.action == "undo" and undo.entry.undoes_id == outcome.entry.pk and undo.entry.actor == "boss"
    assert AuditEntry.objects.get(pk=outcome.entry.pk).undone_by_id == undo.entry.pk
    redo = audit_entry_undo(group=memory, entry_id=undo.entry.pk, actor="boss")  # undoing the undo is a redo
    assert graph_snapshot(memory) == changed
    assert AuditEntry.objects.get(pk=outcome.entry.pk).undone_by_id is None  # the change is in force again
    audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="boss")  # so it can be undone again
    assert graph_snapshot(memory) == before
    assert AuditEntry.objects.get(pk=undo.entry.pk).undone_by_id == redo.entry.pk


def test_changes_come_off_an_item_latest_first_like_an_editors_undo(memory: str) -> None:
    original = graph_snapshot(memory)
    first = patch(memory, "lives", {"weight": 0.7})
    second = patch(memory, "lives", {"weight": 0.8})
    snapshot = graph_snapshot(memory)
    with pytest.raises(CurationConflict, match=f"entry {second.entry.pk} .* only the latest change"):
        audit_entry_undo(group=memory, entry_id=first.entry.pk, actor="cura")
    assert graph_snapshot(memory) == snapshot and AuditEntry.objects.count() == 2
    undo_second = audit_entry_undo(group=memory, entry_id=second.entry.pk, actor="cura")
    with pytest.raises(CurationConflict, match="already undone"):
        audit_entry_undo(group=memory, entry_id=second.entry.pk, actor="cura")
    audit_entry_undo(group=memory, entry_id=first.entry.pk, actor="cura")  # next on the stack
    assert graph_snapshot(memory) == original
    with pytest.raises(CurationConflict, match="changed these items later"):  # a redo only while nothing is newer
        audit_entry_undo(group=memory, entry_id=undo_second.entry.pk, actor="cura")


def test_undo_refuses_when_the_item_changed_outside_curation(memory: str) -> None:
    from memoria.graph import driver

    outcome = patch(memory, "lives", {"weight": 0.7})
    driver.write("MATCH ()-[r:RELATES]->() WHERE r.id = $id SET r.episodes = ['x']", id=edge_id(memory, "lives"))
    snapshot = graph_snapshot(memory)
    with pytest.raises(CurationConflict, match="changed"):
        audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="cura")
    assert graph_snapshot(memory) == snapshot
    assert AuditEntry.objects.count() == 1 and AuditEntry.objects.get().undone_by_id is None


def test_audit_pages_newest_first_and_filters_by_item(memory: str) -> None:
    for weight in (0.7, 0.8, 0.9):
        patch(memory, "lives", {"weight": weight})
    patch(memory, "sister", {"weight": 0.4})
    page = audit_entries_page(group=memory, limit=3)
    assert [e["changes"][0]["after"] for e in page.entries] == [0.4, 0.9, 0.8]
    assert [e["undoable"] for e in page.entries] == [True, True, False]
    rest = audit_entries_page(group=memory, limit=3, before=page.next_before)
    assert [e["changes"][0]["after"] for e in rest.entries] == [0.7] and rest.next_before is None
    only = audit_entries_page(group=memory, item_id=edge_id(memory, "sister"), item_kind="edge")
    assert [e["item_id"] for e in only.entries] == [edge_id(memory, "sister")]
    assert audit_entries_page(group="another-group").entries == ()


def test_a_change_bumps_the_group_version_and_a_refused_one_does_not(memory: str) -> None:
    start = group_version(group=memory).version
    with pytest.raises(InvalidInput):
        patch(memory, "lives", {"weight": 2})
    with pytest.raises(CurationConflict):
        patch(memory, "lives", {"weight": 0.7, "version": "0" * 16})
    assert group_version(group=memory).version == start
    outcome = patch(memory, "lives", {"weight": 0.7})
    assert group_version(group=memory).version == start + 1
    audit_entry_undo(group=memory, entry_id=outcome.entry.pk, actor="cura")
    assert group_version(group=memory).version == start + 2
