"""Prompt: the entities an episode mentions, with the kind of mention and any allowed kind labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from memoria.graph.rules import MAX_NAME_LENGTH
from memoria.llm.client import Message
from memoria.llm.prompts import clipped, strict_object, system, user

SCHEMA_NAME = "extracted_entities"
MAX_ENTITIES = 100

SYSTEM = """You extract entity nodes from the CURRENT EPISODE of an AI agent's memory.
An entity is a person, place, organisation, object, product, identifier, event, data source or concept that the
CURRENT EPISODE mentions explicitly or implicitly. The PREVIOUS EPISODES are context only: use them to understand
who "I", "you" or "she" is, but extract only what the CURRENT EPISODE mentions.
Rules:
- In a message episode, the speaker of each "Name: text" line is an entity.
- Use the most complete name the episode gives ("Dr. Jane Goodall", not "she"); never a pronoun.
- Do not extract dates, times, amounts or quantities, nor relationships or actions.
- List each entity once."""


class PriorText(Protocol):
    """What the prompt reads of an earlier episode (ingestion's PriorEpisode has it): plain data, no import."""

    @property
    def valid_at(self) -> str: ...

    @property
    def content(self) -> str: ...


KIND_MEANINGS = {
    "speaker": "a person speaking or spoken to in the episode",
    "proper": "a proper name (person, place, organisation, product)",
    "phrase": "a common noun phrase or concept ('support group', 'painting')",
    "identifier": "a code such as a SKU, ticket or order number",
}


def answer_schema(*, labels: Sequence[str], kinds: Sequence[str]) -> dict[str, Any]:
    entity = strict_object(
        {
            "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH},
            "kind": {"type": "string", "enum": list(kinds)},
            "labels": {"type": "array", "items": {"type": "string", "enum": list(labels)}, "maxItems": len(labels)},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        }
    )
    return strict_object({"entities": {"type": "array", "items": entity, "maxItems": MAX_ENTITIES}})


def messages(
    *,
    content: str,
    source: str,
    reference_time: str,
    context: Sequence[PriorText],
    labels: Sequence[str],
    kinds: Sequence[str],
) -> list[Message]:
    kinds_text = "\n".join(f"- {kind}: {KIND_MEANINGS[kind]}" for kind in kinds)
    previous = "\n".join(
        f"[{prior.valid_at}] {clipped(prior.content)}" for prior in reversed(context)
    )  # oldest first, as the conversation went
    return [
        system(SYSTEM),
        user(
            f"<PREVIOUS EPISODES>\n{previous or '(none)'}\n</PREVIOUS EPISODES>\n\n"
            f"<CURRENT EPISODE source={source} time={reference_time}>\n{content}\n</CURRENT EPISODE>\n\n"
            f"For each entity give its name, its kind:\n{kinds_text}\n"
            f"the labels among {', '.join(labels)} that describe it (often none), "
            "and your confidence from 0 to 1 that it is an entity the episode really mentions."
        ),
    ]
