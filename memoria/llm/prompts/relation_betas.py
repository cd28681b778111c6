"""Prompt: MARA-RAG's manager — how much each relation category should weigh in the walk for this question."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memoria.llm.client import Message
from memoria.llm.prompts import clipped, strict_object, system, user

SCHEMA_NAME = "relation_betas"

ROLE_MEANINGS = {
    "PRIMARY": "the passage is mainly about the entity",
    "SECONDARY": "the passage says something notable about the entity",
    "PERIPHERAL": "the passage only mentions the entity in passing",
}

SYSTEM = """You steer a random walk over an AI agent's memory graph to find what answers a QUESTION.
The walk follows facts between entities (entity–entity relations, one of five categories) and links between
passages and the entities they mention (entity–passage relations, one of three roles).
Give each category and each role a weight from 0 to 1: how useful following that kind of relation is for
answering the QUESTION. Within each family the weights should sum to 1; give none of them a negative weight,
and a category that does not matter a small weight rather than 0 unless it is certainly useless."""


def answer_schema(*, families: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """`families`: each relation family's answer key and its members (the entity–entity categories, then the
    entity–passage roles), passed in by the step so the prompt holds no graph vocabulary of its own."""
    weight = {"type": "number", "minimum": 0}  # normalised per family afterwards: only the ratios count
    return strict_object(
        {family: strict_object(dict.fromkeys(members, weight)) for family, members in families.items()}
    )


def messages(
    *, query: str, categories: Mapping[str, str], roles: Sequence[str], entity_entity: str, entity_passage: str
) -> list[Message]:
    """`categories`: each entity–entity category and the questions it answers; `roles`: the mention roles."""
    category_lines = "\n".join(f"- {c}: {description}" for c, description in categories.items())
    role_lines = "\n".join(f"- {role}: {ROLE_MEANINGS[role]}" for role in roles)
    return [
        system(SYSTEM),
        user(
            f"<QUESTION>\n{clipped(query)}\n</QUESTION>\n\n"
            f"Entity–entity categories ({entity_entity}), with the questions each answers:\n{category_lines}\n\n"
            f"Entity–passage roles ({entity_passage}):\n{role_lines}"
        ),
    ]
