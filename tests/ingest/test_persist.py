"""Step 7 on the real server: one transaction per plan, so every failure leaves the group as it was."""

from __future__ import annotations

import pytest
from neo4j import exceptions as neo4j_errors

from memoria.errors import InvalidInput
from memoria.graph import driver
from memoria.graph.searchable import node_text
from memoria.ingest import persist
from memoria.ingest.persist import (
    EntityRow,
    EntityUpdate,
    EpisodeRow,
    FactRow,
    FactUpdate,
    PlanConflict,
    WritePlan,
    plan_persist,
)
from memoria.ingest.resolve_facts import FactReads, Sighting, noisy_or
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
            EntityRow(first, labels, {"id": first, "group_id": group, "name": "regatta", "summary": "s"}),
            EntityRow(second, (), {"id": second, "group_id": group, "name": "Maren", "summary": "t"}),
        ),
        facts=(
            FactRow(
                f"{group}-f",
                second,
                first,
                {"id": f"{group}-f", "group_id": group, "relation": "win", "weight": 0.5, "episodes": [f"{group}-ep"]},
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


def stored(group: str) -> dict:
    """The two entities and the fact a first plan stored, for plans that extend them."""
    plan_persist(plan=plan(group))
    return {"regatta": f"{group}-regatta", "maren": f"{group}-maren", "fact": f"{group}-f"}


def episode(group: str, name: str) -> EpisodeRow:
    return EpisodeRow(f"{group}-{name}", {"id": f"{group}-{name}", "group_id": group, "name": name, "content": "c"})


def fact_of(group: str) -> dict:
    """The group's one fact: what sightings fold into."""
    return {key: stored_fact(group)[key] for key in ("episodes", "weight", "tags")}


def stored_fact(group: str) -> dict:
    return driver.read(
        "MATCH ()-[r:RELATES {group_id: $g}]->() RETURN r.episodes AS episodes, r.weight AS weight, r.tags AS tags,"
        " r.id AS id, r.relation AS relation, r.fact AS fact, r.valid_at AS valid_at",
        g=group,
    )[0]


def test_a_sighting_folds_into_the_fact_as_stored_when_written_not_as_planned(group: str) -> None:
    ids = stored(group)
    sighting = FactUpdate(ids["fact"], ids["maren"], ids["regatta"], (Sighting(f"{group}-ep2", ("sail",), 0.6),))
    extend = WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), fact_updates=(sighting,))
    # Another writer merges its own episode into the fact between this plan and its write.
    driver.write(
        "MATCH ()-[r:RELATES {group_id: $g}]->() SET r.episodes = r.episodes + [$other], r.weight = 0.7",
        g=group,
        other=f"{group}-other",
    )
    report = plan_persist(plan=extend)
    assert report.facts_updated == 1
    assert fact_of(group) == {
        "episodes": [f"{group}-ep", f"{group}-other", f"{group}-ep2"],
        "weight": noisy_or(0.7, 0.6),
        "tags": ["sail"],
    }


def test_an_episode_sighted_twice_is_listed_once(group: str) -> None:
    ids = stored(group)
    again = (Sighting(f"{group}-ep", (), 0.5), Sighting(f"{group}-ep2", (), 0.5), Sighting(f"{group}-ep2", (), 0.5))
    update = FactUpdate(ids["fact"], ids["maren"], ids["regatta"], again)
    plan_persist(plan=WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), fact_updates=(update,)))
    assert fact_of(group)["episodes"] == [f"{group}-ep", f"{group}-ep2"]


def test_a_summary_folds_into_the_summary_stored_meanwhile_and_is_embedded_as_stored(group: str) -> None:
    ids = stored(group)
    update = EntityUpdate(
        id=ids["maren"],
        name="Maren",
        summary_read="t",
        summary="t Maren sails.",
        sentences=(("Maren sails.",),),
        vector=[1.0] * 4,
        aliases=("Marenka",),
    )
    extend = WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), entity_updates=(update,), model="m")
    driver.write(  # another writer's sentence lands first
        "MATCH (n:Entity {group_id: $g, id: $id}) SET n.summary = 't Maren races.'", g=group, id=ids["maren"]
    )
    embedded: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embedded.append(texts)
        return [[float(len(text))] * 4 for text in texts]

    plan_persist(plan=extend, embed=embed)
    row = driver.read(
        "MATCH (n:Entity {group_id: $g, id: $id}) RETURN n.summary AS summary, n.name_embedding AS vector,"
        " n.attributes AS attributes",
        g=group,
        id=ids["maren"],
    )[0]
    summary = "t Maren races. Maren sails."
    assert row["summary"] == summary
    assert embedded == [[node_text(is_episode=False, name="Maren", summary=summary)]]
    assert row["vector"] == [float(len(embedded[0][0]))] * 4
    assert '"aliases": ["Marenka"]' in row["attributes"]


def test_a_summary_nobody_changed_keeps_the_planned_vector(group: str) -> None:
    ids = stored(group)
    update = EntityUpdate(ids["maren"], "Maren", "t", "t Maren sails.", (("Maren sails.",),), [0.5] * 4)
    extend = WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), entity_updates=(update,), model="m")
    plan_persist(plan=extend, embed=lambda texts: pytest.fail(f"embedded {texts}"))
    row = driver.read(
        "MATCH (n:Entity {group_id: $g, id: $id}) RETURN n.summary AS s, n.name_embedding AS v, n.embedding_model AS m",
        g=group,
        id=ids["maren"],
    )[0]
    assert row == {"s": "t Maren sails.", "v": [0.5] * 4, "m": "m"}


def test_an_entity_merged_away_meanwhile_makes_the_plan_stale(group: str) -> None:
    ids = stored(group)
    extend = WritePlan(
        group=group,
        now=NOW,
        episodes=(episode(group, "ep2"),),
        mentions=((f"{group}-ep2", ids["maren"]),),
    )
    driver.write("MATCH (n:Entity {group_id: $g, id: $id}) DETACH DELETE n", g=group, id=ids["maren"])
    before = count_group(group)
    with pytest.raises(PlanConflict, match="merged or deleted meanwhile"):
        plan_persist(plan=extend)
    assert count_group(group) == before


def test_a_fact_created_between_the_same_entities_meanwhile_makes_the_plan_stale(group: str) -> None:
    ids = stored(group)
    reads = FactReads(pairs=((ids["maren"], ids["regatta"]),), found=frozenset({(ids["fact"], "win", "", None)}))
    new = FactRow(f"{group}-f2", ids["maren"], ids["regatta"], {"id": f"{group}-f2", "group_id": group, "weight": 0.5})
    extend = WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), facts=(new,), reads=reads)
    driver.write(
        "MATCH (a:Entity {group_id: $g, id: $a}), (b:Entity {group_id: $g, id: $b})"
        " CREATE (a)-[:RELATES {id: $id, group_id: $g, relation: 'win', fact: '', weight: 0.5}]->(b)",
        g=group,
        a=ids["maren"],
        b=ids["regatta"],
        id=f"{group}-meanwhile",
    )
    before = count_group(group)
    with pytest.raises(PlanConflict, match="changed meanwhile"):
        plan_persist(plan=extend)
    assert count_group(group) == before


def ended_meanwhile(group: str, *, relied_on: frozenset[str]) -> WritePlan:
    """A plan that read the stored fact (and drew a decision from it or not); the fact ends before the write."""
    ids = stored(group)
    row = stored_fact(group)
    signature = (row["id"], row["relation"], row["fact"], row["valid_at"])
    reads = FactReads(pairs=((ids["maren"], ids["regatta"]),), found=frozenset({signature}), relied_on=relied_on)
    new = FactRow(f"{group}-f2", ids["maren"], ids["regatta"], {"id": f"{group}-f2", "group_id": group, "weight": 0.5})
    driver.write(
        "MATCH ()-[r:RELATES {group_id: $g, id: $id}]->() SET r.invalid_at = $at", g=group, id=ids["fact"], at=NOW
    )
    return WritePlan(group=group, now=NOW, episodes=(episode(group, "ep2"),), facts=(new,), reads=reads)


def test_a_fact_read_but_not_drawn_from_may_end_meanwhile(group: str) -> None:
    # A curator ending an unrelated fact between the same entities: the batch's decisions still hold.
    report = plan_persist(plan=ended_meanwhile(group, relied_on=frozenset()))
    assert (report.episodes, report.facts_created) == (1, 1)
    assert count_group(group) == {"nodes": 4, "edges": 4}


def test_a_fact_a_decision_was_drawn_from_ending_meanwhile_makes_the_plan_stale(group: str) -> None:
    extend = ended_meanwhile(group, relied_on=frozenset({f"{group}-f"}))
    before = count_group(group)
    with pytest.raises(PlanConflict, match="changed meanwhile"):
        plan_persist(plan=extend)
    assert count_group(group) == before
