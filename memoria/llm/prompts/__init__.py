"""Prompts, one module per LLM task (as Graphiti's prompts/): each builds its messages and names its answer's schema.

Schemas follow OpenAI's strict structured outputs: every property required, no extra properties.
"""

from __future__ import annotations

from typing import Any

from memoria.llm.client import Message

MAX_CONTEXT_CHARS = 2000  # of each earlier episode shown as context: enough to resolve "she", bounded in cost


def system(content: str) -> Message:
    return {"role": "system", "content": content}


def user(content: str) -> Message:
    return {"role": "user", "content": content}


def strict_object(properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON object schema in the strict form: all of `properties` required, nothing else allowed."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def clipped(text: str, limit: int = MAX_CONTEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
