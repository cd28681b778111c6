"""LLM versions of ingestion steps 2 and 4, behind the same Protocols as the offline extractors.

The model names entities and facts; everything it says is checked before use, and an answer with any bad item
is refused whole (LlmInvalidAnswer): an episode is never half-extracted. Sentences, dates and quantities still
come from the offline rules, so summaries and timestamps work the same with either extractor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from memoria.errors import LlmInvalidAnswer
from memoria.graph import kinds
from memoria.graph.rules import (
    MAX_RELATION_LENGTH,
    MAX_TAG_LENGTH,
    MAX_WEIGHT,
    MIN_WEIGHT,
    normalise_tag,
    normalise_timestamp,
)
from memoria.ingest import text
from memoria.ingest.extract_entities import (
    ENTITY_KINDS,
    EntityExtraction,
    EntityExtractionInput,
    ExtractedEntity,
    addressee_of,
    speakers_in,
)
from memoria.ingest.extract_facts import ExtractedFact, FactExtraction, FactExtractionInput
from memoria.ingest.temporal import dates_in, parse_timestamp, quantities_in
from memoria.llm.client import MAX_SHOWN_PROBLEMS, ChatClient, chat_client
from memoria.llm.prompts import extract_entities as entities_prompt
from memoria.llm.prompts import extract_facts as facts_prompt

DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
T = TypeVar("T")


class _Unusable(ValueError):
    """One item of an answer that cannot be used; its message starts with the field's place in the item."""


def name_spans(content: str, name: str) -> tuple[tuple[int, int], ...]:
    """Where the episode writes the name (any case, whole words): summaries quote the sentences around them."""
    pattern = re.compile(r"(?<!\w)" + re.escape(name.strip()) + r"(?!\w)", re.IGNORECASE)
    return tuple((match.start(), match.end()) for match in pattern.finditer(content))


def _all_usable(items: list[dict[str, Any]], where: str, build: Callable[[dict[str, Any]], T]) -> list[T]:
    """Every item built, or LlmInvalidAnswer naming each unusable one: an answer is used whole or not at all."""
    built: list[T] = []
    problems: list[str] = []
    for index, item in enumerate(items):
        try:
            built.append(build(item))
        except _Unusable as error:
            problems.append(f"{where}[{index}]{error}")
    if problems:
        shown = "; ".join(problems[:MAX_SHOWN_PROBLEMS])
        raise LlmInvalidAnswer(f"the LLM's {where} are unusable: {shown}")
    return built


def _finite(value: float, where: str) -> float:
    # Python's JSON reader takes NaN and Infinity, which pass a schema's minimum and maximum unnoticed.
    if not math.isfinite(value):
        raise _Unusable(f"{where}: must be a finite number")
    return float(value)


def entities_from_answer(
    answer: dict[str, Any], *, content: str, allowed_labels: Sequence[str]
) -> tuple[ExtractedEntity, ...]:
    """The entities of an answer already checked against its schema, one per name key (the surer mention wins)."""

    def build(item: dict[str, Any]) -> ExtractedEntity:
        name = " ".join(item["name"].split())
        key = text.name_key(name)
        if not key:
            raise _Unusable(f".name: {item['name']!r} names nothing (an article or punctuation)")
        outside = [label for label in item["labels"] if label not in allowed_labels]
        if outside:
            raise _Unusable(f".labels: {outside} are not allowed here")
        return ExtractedEntity(
            name=name,
            key=key,
            kind=item["kind"],
            confidence=round(_finite(item["confidence"], ".confidence"), 3),
            labels=tuple(dict.fromkeys(item["labels"])),
            spans=name_spans(content, name),
        )

    found: dict[str, ExtractedEntity] = {}
    for entity in _all_usable(answer["entities"], "entities", build):
        if entity.key not in found or found[entity.key].confidence < entity.confidence:
            found[entity.key] = entity
    return tuple(found.values())


def _valid_at(value: str | None, *, reference_time: str) -> str:
    if value is None:
        return reference_time
    try:
        return normalise_timestamp(value + "T00:00:00Z" if DATE_ONLY.match(value) else value)
    except ValueError as error:
        raise _Unusable(f".valid_at: {value!r} is not a usable date-time: {error}") from error


def facts_from_answer(
    answer: dict[str, Any], *, entities: Sequence[ExtractedEntity], reference_time: str
) -> tuple[ExtractedFact, ...]:
    """The facts of an answer already checked against its schema: weights clamped, tags normalised, repeats merged."""

    def build(item: dict[str, Any]) -> ExtractedFact:
        source, target = item["source"], item["target"]
        if not (0 <= source < len(entities) and 0 <= target < len(entities)):
            raise _Unusable(f": names an entity number outside 0–{len(entities) - 1}")
        if entities[source].key == entities[target].key:
            raise _Unusable(": relates an entity to itself")
        relation = text.snake_case([item["relation"]])[:MAX_RELATION_LENGTH]
        if not relation:
            raise _Unusable(f".relation: {item['relation']!r} holds no letters or digits")
        if item["category"] not in kinds.RELATION_CATEGORIES:
            raise _Unusable(f".category: {item['category']!r} is not a relation category")
        fact_text = " ".join(item["fact"].split())
        if not fact_text:
            raise _Unusable(".fact: is empty")
        # A tag of only spaces or dashes normalises to underscores: it names no topic, so it is dropped.
        tags = tuple(dict.fromkeys(tag for tag in map(normalise_tag, item["tags"]) if any(c.isalnum() for c in tag)))
        if any(len(tag) > MAX_TAG_LENGTH for tag in tags):
            raise _Unusable(f".tags: a tag is longer than {MAX_TAG_LENGTH} characters")
        weight = _finite(item["weight"], ".weight")
        return ExtractedFact(
            source=entities[source].key,
            target=entities[target].key,
            relation=relation,
            category=item["category"],
            fact=fact_text,
            valid_at=_valid_at(item["valid_at"], reference_time=reference_time),
            weight=round(min(MAX_WEIGHT, max(MIN_WEIGHT, weight)), 3),
            tags=tags,
            negated=bool(item["negated"]),
        )

    facts: dict[tuple[str, str, str], ExtractedFact] = {}
    for fact in _all_usable(answer["facts"], "facts", build):
        key = (fact.source, fact.stored_relation, fact.target)
        if key not in facts or facts[key].weight < fact.weight:
            facts[key] = fact
    return tuple(facts.values())


class LlmEntityExtractor:
    """An EntityExtractor that asks the configured LLM (or the given client) which entities an episode names."""

    def __init__(self, client: ChatClient | None = None) -> None:
        self.client = client or chat_client()

    def extract_entities(self, request: EntityExtractionInput) -> EntityExtraction:
        labels = kinds.entity_labels()
        answer = self.client.complete_json(
            messages=entities_prompt.messages(
                content=request.content,
                source=request.source,
                reference_time=request.reference_time,
                context=request.context,
                labels=labels,
                kinds=ENTITY_KINDS,
            ),
            schema_name=entities_prompt.SCHEMA_NAME,
            schema=entities_prompt.answer_schema(labels=labels, kinds=ENTITY_KINDS),
        )
        entities = entities_from_answer(answer, content=request.content, allowed_labels=labels)
        is_message = request.source == "message"
        addressee = addressee_of(speakers=speakers_in(request.content), context=request.context) if is_message else None
        return EntityExtraction(
            entities=entities,
            sentences=tuple(text.sentences_of(request.content, speakers=is_message)),
            dates=tuple(dates_in(request.content, reference=parse_timestamp(request.reference_time))),
            quantities=tuple(quantities_in(request.content)),
            addressee=addressee,
        )


class LlmFactExtractor:
    """A FactExtractor that asks the configured LLM (or the given client) for the facts between the entities."""

    def __init__(self, client: ChatClient | None = None) -> None:
        self.client = client or chat_client()

    def extract_facts(self, request: FactExtractionInput) -> FactExtraction:
        entities = request.extraction.entities
        if len(entities) < 2:  # a fact needs two ends: no question worth asking
            return FactExtraction(())
        answer = self.client.complete_json(
            messages=facts_prompt.messages(
                content=request.content,
                reference_time=request.reference_time,
                entity_names=[entity.name for entity in entities],
            ),
            schema_name=facts_prompt.SCHEMA_NAME,
            schema=facts_prompt.answer_schema(entity_count=len(entities)),
        )
        return FactExtraction(facts_from_answer(answer, entities=entities, reference_time=request.reference_time))
