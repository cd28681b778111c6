"""Prompt: the facts an episode states between its extracted entities, each with a category, weight and tags."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoria.graph import kinds
from memoria.graph.rules import MAX_RELATION_LENGTH, MAX_TAG_LENGTH, MAX_TAGS_PER_FACT
from memoria.llm.client import Message
from memoria.llm.prompts import strict_object, system, user

SCHEMA_NAME = "extracted_facts"
MAX_FACTS = 200
MAX_FACT_LENGTH = 2000
# A date (taken as UTC midnight) or a date-time with its zone; anything else is refused, never guessed.
TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$"

SYSTEM = f"""You extract facts from the CURRENT EPISODE of an AI agent's memory.
A fact is a relationship the episode states between two of the listed ENTITIES, given by their numbers.
Rules:
- source and target are two different entity numbers from the list.
- relation: a short verb phrase in snake_case, e.g. works_at, moved_to, prefers.
- category: one of {", ".join(kinds.RELATION_CATEGORIES)}.
- fact: one sentence stating the fact, with the entities' names.
- valid_at: when the fact became true, as an ISO 8601 UTC date-time (2024-05-07T00:00:00Z), resolved against the
  episode's time when the episode says "yesterday" or "last year"; null when the episode does not say.
- weight: how sure and how important the fact is, from 0.25 (a passing mention) to 1.0 (stated plainly).
- tags: up to {MAX_TAGS_PER_FACT} lower-case keywords of the fact's topic.
- negated: true when the episode says the relationship does not (or no longer) hold.
Extract only what the CURRENT EPISODE states; do not repeat a fact."""


def answer_schema(*, entity_count: int) -> dict[str, Any]:
    end = {"type": "integer", "minimum": 0, "maximum": max(0, entity_count - 1)}
    fact = strict_object(
        {
            "source": end,
            "target": end,
            "relation": {"type": "string", "minLength": 1, "maxLength": MAX_RELATION_LENGTH},
            "category": {"type": "string", "enum": list(kinds.RELATION_CATEGORIES)},
            "fact": {"type": "string", "minLength": 1, "maxLength": MAX_FACT_LENGTH},
            "valid_at": {"type": ["string", "null"], "pattern": TIMESTAMP_PATTERN},
            "weight": {"type": "number"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": MAX_TAG_LENGTH},
                "maxItems": MAX_TAGS_PER_FACT,
            },
            "negated": {"type": "boolean"},
        }
    )
    return strict_object({"facts": {"type": "array", "items": fact, "maxItems": MAX_FACTS}})


def messages(*, content: str, reference_time: str, entity_names: Sequence[str]) -> list[Message]:
    listed = "\n".join(f"{number}: {name}" for number, name in enumerate(entity_names))
    return [
        system(SYSTEM),
        user(
            f"<ENTITIES>\n{listed}\n</ENTITIES>\n\n"
            f"<CURRENT EPISODE time={reference_time}>\n{content}\n</CURRENT EPISODE>"
        ),
    ]
