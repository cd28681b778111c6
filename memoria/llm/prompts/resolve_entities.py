"""Prompt: whether a newly extracted name means one of the stored candidate entities, and which."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoria.llm.client import Message
from memoria.llm.prompts import clipped, strict_object, system, user

SCHEMA_NAME = "entity_resolution"
NO_MATCH = -1

SYSTEM = """You decide whether a NEW ENTITY, extracted from the CURRENT EPISODE, is the same real-world thing or
concept as one of the EXISTING ENTITIES of an AI agent's memory.
Answer with the number of the existing entity it is, or -1 when it is none of them. Two entities are the same only
when they refer to the same object or concept: a similar name alone is not enough ("Anna" the sister and "Anna"
the colleague differ), while a nickname or an abbreviation of the same thing is a match ("NYC", "New York City")."""


def answer_schema(*, candidate_count: int) -> dict[str, Any]:
    return strict_object(
        {
            "match": {"type": "integer", "minimum": NO_MATCH, "maximum": candidate_count - 1},
            "reason": {"type": "string", "maxLength": 500},
        }
    )


def messages(*, name: str, episode: str, candidates: Sequence[tuple[str, str]]) -> list[Message]:
    """`candidates`: (name, summary) of each stored entity, numbered in this order."""
    listed = "\n".join(
        f"{number}: {candidate} — {clipped(summary, 500) or '(no summary)'}"
        for number, (candidate, summary) in enumerate(candidates)
    )
    return [
        system(SYSTEM),
        user(
            f"<CURRENT EPISODE>\n{clipped(episode)}\n</CURRENT EPISODE>\n\n"
            f"<NEW ENTITY>\n{name}\n</NEW ENTITY>\n\n"
            f"<EXISTING ENTITIES>\n{listed}\n</EXISTING ENTITIES>"
        ),
    ]
