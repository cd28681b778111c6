"""Step 7 on the real server: one transaction per plan, so every failure leaves the group as it was."""

from __future__ import annotations

import pytest
from neo4j import exceptions as neo4j_errors

from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.ingest import persist
from memoria.ingest.persist import EntityRow, EpisodeRow, FactRow, PlanConflict, WritePlan, plan_persist
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.conftest import count_group

NOW = "2024-03-13T15:30:00Z"


def plan(group: str, *, labels: tuple[str, ...] = ("Event",), entity: str | None = None) -> WritePlan:
    first, second = entity or f"{group}-regatta", f"{group}-maren"
    return WritePlan(
        group=group,
        now=NOW,
        episodes=(EpisodeRow(f"{group}-ep", {"id": f"{group}-ep", "group_id": group, "name": "e", "content": "c"}),),
        entities=(
            EntityRow(first, labels, {"id": first, "group_id": group, "name": "regatta"}, {"summary": "s"}, True),
            EntityRow(second, (), {"id": second, "group_id": group, "name": "Maren"}, {"summary": "t"}, True),
        ),
        facts=(
            FactRow(
                f"{group}-f",
                second,
                first,
                {"id": f"{group}-f", "group_id": group, "relation": "win", "weight": 0.5, "episodes": [f"{group}-ep"]},
                True,
            ),
        ),
        mentions=((f"{group}-ep", first), (f"{group}-ep", second)),
    )


def test_a_plan_lands_whole_with_its_labels(group: str) -> None:
    report = plan_persist(plan=plan(group))
    assert (report.episodes, report.entities_created, report.facts_created, report.mentions) == (1, 2, 1, 2)
    assert count_group(group) == {"nodes": 3, "edges": 3}
    labels = driver.read("MATCH (n:Memory {id: $id}) RETURN labels(n) AS labels", id=f"{group}-regatta")[0]
    assert set(labels["labels"]) == {"Memory", "Entity", "Event"}
    fact = driver.read("MATCH ()-[r:RELATES {group_id: $g}]->() RETURN r.created_at AS at", g=group)[0]
    assert fact["at"] == NOW


def test_an_episode_already_stored_changes_nothing(group: str) -> None:
    plan_persist(plan=plan(group))
    before = count_group(group)
    with pytest.raises(PlanConflict):
        plan_persist(plan=plan(group))
    assert count_group(group) == before


def test_an_entity_created_meanwhile_makes_the_plan_stale(group: str) -> None:
    meanwhile = {"nodes": [{"id": f"{group}-maren", "name": "Maren"}], "edges": []}
    graph_document_import(document=parse_graph_document(meanwhile, group=group), group=group)
    with pytest.raises(PlanConflict, match="was stored meanwhile"):
        plan_persist(plan=plan(group))
    assert count_group(group) == {"nodes": 1, "edges": 0}


def test_a_label_off_the_allow_list_writes_nothing(group: str) -> None:
    with pytest.raises(InvalidInput, match="label 'Person' is not allowed"):
        plan_persist(plan=plan(group, labels=("Person",)))
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_an_entity_id_of_another_group_is_a_new_entity_here(group: str) -> None:
    other = f"{group}-other"
    taken = {"nodes": [{"id": f"{other}-regatta", "name": "Regatta"}], "edges": []}
    graph_document_import(document=parse_graph_document(taken, group=other), group=other)
    try:
        plan_persist(plan=plan(group, entity=f"{other}-regatta"))
        assert count_group(group) == {"nodes": 3, "edges": 3}  # the fact and two mentions
        named = "MATCH (n:Memory {group_id: $g, id: $id}) RETURN n.name AS name"
        assert driver.read(named, g=group, id=f"{other}-regatta") == [{"name": "regatta"}]
        assert driver.read(named, g=other, id=f"{other}-regatta") == [{"name": "Regatta"}]
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)


def test_a_failure_in_the_last_statement_rolls_back_the_rest(group: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(persist, "MERGE_MENTIONS", "UNWIND $rows AS row THIS IS NOT CYPHER")
    with pytest.raises(neo4j_errors.Neo4jError):
        plan_persist(plan=plan(group))
    assert count_group(group) == {"nodes": 0, "edges": 0}
