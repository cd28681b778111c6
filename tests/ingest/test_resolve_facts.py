"""Step 5: duplicates merge their episodes, contradictions end the stored fact (kept, with invalid_at)."""

from __future__ import annotations

from dataclasses import replace

from memoria.ingest.resolve_facts import (
    FactState,
    FactWorkingSet,
    NewFact,
    ResolveFactsInput,
    contradiction_relations,
    facts_resolve,
    noisy_or,
)

NOW = "2024-06-01T00:00:00Z"


def new(relation: str, target: str, valid_at: str = "2024-05-01T00:00:00Z", **changes: object) -> NewFact:
    fact = NewFact("maren", target, relation, "SPATIAL", f"Maren {relation} {target}", valid_at, 0.6, ("x",))
    return replace(fact, **changes)


def stored(relation: str, target: str, valid_at: str = "2024-01-01T00:00:00Z", **changes: object) -> FactState:
    fact = FactState(
        f"old-{relation}-{target}", "maren", target, relation, "SPATIAL", "old", 0.5, ("y",), ("ep0",), valid_at
    )
    return replace(fact, **changes)


def resolve(facts: list[NewFact], known: list[FactState]) -> tuple:
    working = FactWorkingSet()
    for fact in known:
        working.put(fact, changed=False)
    result = facts_resolve(request=ResolveFactsInput("g", "ep1", tuple(facts), working, NOW))
    return result, result.facts


def test_a_duplicate_adds_its_episode_and_weight_to_the_stored_fact() -> None:
    result, facts = resolve([new("live_in", "tallinn")], [stored("live_in", "tallinn")])
    assert result.created == () and result.merged == ("old-live_in-tallinn",)
    merged = facts.by_id["old-live_in-tallinn"]
    assert merged.episodes == ("ep0", "ep1") and merged.tags == ("y", "x")
    assert merged.weight == noisy_or(0.5, 0.6) == 0.8
    assert facts.changed == {"old-live_in-tallinn"}


def test_a_duplicate_by_meaning_between_the_same_entities() -> None:
    vector = [1.0, 0.0]
    result, _ = resolve(
        [new("reside_at", "tallinn", vector=vector)], [stored("live_in", "tallinn", vector=[0.999, 0.0447])]
    )
    assert result.merged == ("old-live_in-tallinn",)
    result, _ = resolve([new("reside_at", "tallinn", vector=vector)], [stored("live_in", "tallinn", vector=[0.0, 1.0])])
    assert result.merged == () and len(result.created) == 1


def test_a_new_object_of_a_functional_relation_ends_the_old_fact() -> None:
    result, facts = resolve([new("move_to", "riga")], [stored("live_in", "tallinn")])
    assert result.invalidated == ("old-live_in-tallinn",)
    ended = facts.by_id["old-live_in-tallinn"]
    assert (ended.invalid_at, ended.expired_at) == ("2024-05-01T00:00:00Z", NOW)
    assert ended.episodes == ("ep0",)  # history kept as it was
    created = facts.by_id[result.created[0]]
    assert created.invalid_at is None and created.episodes == ("ep1",)


def test_negation_ends_the_fact_and_the_fact_can_return() -> None:
    result, facts = resolve([new("not_work_at", "kestrel")], [stored("work_at", "kestrel")])
    assert result.invalidated == ("old-work_at-kestrel",)
    negation = facts.by_id[result.created[0]]
    back = facts_resolve(
        request=ResolveFactsInput("g", "ep2", (new("work_at", "kestrel", valid_at="2024-05-20T00:00:00Z"),), facts, NOW)
    )
    assert back.invalidated == (negation.id,)
    assert back.created[0] != "old-work_at-kestrel"  # a new fact, the old one stays ended


def test_leaving_ends_what_it_names_only() -> None:
    result, _ = resolve([new("leave", "kestrel")], [stored("work_at", "kestrel"), stored("work_at", "harbour")])
    assert result.invalidated == ("old-work_at-kestrel",)


def test_a_fact_older_than_the_stored_one_arrives_already_ended() -> None:
    result, facts = resolve([new("live_in", "riga", valid_at="2023-01-01T00:00:00Z")], [stored("live_in", "tallinn")])
    assert result.invalidated == ()
    late = facts.by_id[result.created[0]]
    assert late.invalid_at == "2024-01-01T00:00:00Z" and late.expired_at == NOW


def test_unrelated_relations_do_not_contradict() -> None:
    result, _ = resolve([new("visit", "riga")], [stored("visit", "tallinn"), stored("live_in", "tallinn")])
    assert result.invalidated == () and len(result.created) == 1


def test_what_a_relation_asks_the_store_for() -> None:
    assert contradiction_relations("move_to") == [
        "base_in", "live_at", "live_in", "move_to", "not_move_to", "relocate_to", "reside_in",
    ]  # fmt: skip
    assert "work_at" in contradiction_relations("quit")


def test_the_stored_facts_a_decision_is_drawn_from_are_kept_with_the_reads() -> None:
    # Merged into, ended, and ending a late fact: a writer checks these still stand before it writes.
    known = [stored("live_in", "tallinn"), stored("work_at", "kestrel"), stored("visit", "riga")]
    late = new("move_to", "bergen", valid_at="2023-01-01T00:00:00Z")
    facts = [new("work_at", "kestrel"), new("move_to", "oslo"), late]
    result, working = resolve(facts, known)
    assert working.reads.relied_on == {"old-work_at-kestrel", "old-live_in-tallinn"}
    assert "old-visit-riga" not in working.reads.relied_on and len(result.created) == 2
