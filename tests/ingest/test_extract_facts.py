"""The offline fact extractor: relations from clause patterns, categories by keywords, times from the text."""

from __future__ import annotations

from memoria.graph import kinds
from memoria.graph.rules import MAX_WEIGHT, MIN_WEIGHT, normalise_tag
from memoria.ingest.context import PriorEpisode
from memoria.ingest.extract_entities import EntityExtractionInput, OfflineEntityExtractor
from memoria.ingest.extract_facts import (
    ExtractedFact,
    FactExtractionInput,
    OfflineFactExtractor,
    category_for,
    relation_weight,
)

REFERENCE = "2024-03-13T15:30:00Z"


def facts(content: str, source: str = "message", context: tuple[PriorEpisode, ...] = ()) -> list[ExtractedFact]:
    extraction = OfflineEntityExtractor().extract_entities(EntityExtractionInput(content, source, REFERENCE, context))
    return list(OfflineFactExtractor().extract_facts(FactExtractionInput(content, REFERENCE, extraction)).facts)


def triples(found: list[ExtractedFact]) -> set[tuple[str, str, str]]:
    return {(fact.source, fact.stored_relation, fact.target) for fact in found}


def test_the_speaker_is_the_subject_of_first_person_clauses() -> None:
    found = facts("Oren: I went to the pottery workshop with Liv yesterday.")
    assert triples(found) == {("oren", "go_to", "pottery workshop"), ("oren", "go_with", "liv")}
    fact = found[0]
    assert fact.fact == "Oren: I went to the pottery workshop with Liv yesterday."
    assert fact.valid_at == "2024-03-12T00:00:00Z"  # "yesterday", not the reference time
    assert fact.category == "SPATIAL"


def test_named_subjects_prepositions_and_possessives() -> None:
    found = facts("Liv: My sister Maren lives in Tallinn.")
    assert triples(found) == {
        ("liv", "has", "sister"),
        ("liv", "has_sister", "maren"),
        ("maren", "live_in", "tallinn"),
    }


def test_passive_voice_turns_around_and_is_a_cause() -> None:
    found = facts("The delay was caused by a strike at the port.", source="text")
    assert ("strike", "cause", "delay") in triples(found)
    assert next(f for f in found if f.relation == "cause").category == "CAUSALITY"


def test_negation_is_kept_in_the_relation() -> None:
    found = facts("Tomas no longer works at Kestrel Foods.", source="text")
    assert triples(found) == {("tomas", "not_work_at", "kestrel food")}
    assert found[0].negated and found[0].relation == "work_at"


def test_copulas_and_coreference() -> None:
    found = facts("Tallinn is a city in Estonia. Maren visited Tallinn. She joined Kestrel Foods in May.", "text")
    assert {("tallinn", "is_a", "city"), ("maren", "visit", "tallinn"), ("maren", "join", "kestrel food")} <= triples(
        found
    )
    joined = next(f for f in found if f.relation == "join")
    assert joined.valid_at == "2024-05-01T00:00:00Z"
    visited = next(f for f in found if f.relation == "visit")
    assert joined.weight < visited.weight  # "she" is a guess


def test_every_fact_is_within_the_document_rules() -> None:
    content = (
        "Oren: I'm so proud of you! Kestrel Foods shipped 400 units of SKU-4471 to the Harbour depot on "
        "2 March 2024 because Tomas asked. The delay was caused by a strike."
    )
    context = (PriorEpisode("e1", "1", "Liv: we won the regatta", "message", REFERENCE),)
    found = facts(content, context=context)
    assert found
    for fact in found:
        assert MIN_WEIGHT <= fact.weight <= MAX_WEIGHT
        assert fact.category in kinds.RELATION_CATEGORIES
        assert fact.relation == fact.relation.lower() and " " not in fact.relation
        assert all(tag == normalise_tag(tag) for tag in fact.tags)
        assert fact.source != fact.target


def test_category_rules_and_weights() -> None:
    assert category_for(["part_of"]) == "HIERARCHICAL"
    assert category_for(["start", "before"]) == "TEMPORAL"
    assert category_for(["live", "in"]) == "SPATIAL"
    assert category_for(["trigger"]) == "CAUSALITY"
    assert category_for(["paint"]) == "ATTRIBUTION"
    assert relation_weight("co-occurrence", confidences=[0.45], coreferent=True, specific=False) == MIN_WEIGHT
    assert relation_weight("verb", confidences=[1.0], coreferent=False, specific=True) == 0.8
