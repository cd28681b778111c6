"""Prompt: MARA-RAG's manager — how much each relation category should weigh in the walk for this question."""

from __future__ import annotations

from typing import Any

from memoria.graph import kinds
from memoria.graphindex.projection import MENTION_ROLES
from memoria.llm.client import Message
from memoria.llm.prompts import clipped, strict_object, system, user
from memoria.ppr.relations import CATEGORY_DESCRIPTIONS, ENTITY_ENTITY, ENTITY_PASSAGE

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


def answer_schema() -> dict[str, Any]:
    weight = {"type": "number", "minimum": 0}  # normalised per family afterwards: only the ratios count
    return strict_object(
        {
            ENTITY_ENTITY: strict_object({category: weight for category in kinds.RELATION_CATEGORIES}),
            ENTITY_PASSAGE: strict_object({role: weight for role in MENTION_ROLES}),
        }
    )


def messages(*, query: str) -> list[Message]:
    categories = "\n".join(f"- {c}: {CATEGORY_DESCRIPTIONS[c]}" for c in kinds.RELATION_CATEGORIES)
    roles = "\n".join(f"- {role}: {ROLE_MEANINGS[role]}" for role in MENTION_ROLES)
    return [
        system(SYSTEM),
        user(
            f"<QUESTION>\n{clipped(query)}\n</QUESTION>\n\n"
            f"Entity–entity categories ({ENTITY_ENTITY}), with the questions each answers:\n{categories}\n\n"
            f"Entity–passage roles ({ENTITY_PASSAGE}):\n{roles}"
        ),
    ]
