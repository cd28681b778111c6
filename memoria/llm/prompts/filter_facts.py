"""Prompt: MARA-RAG's recognition memory — which of the facts retrieved for a question help answer it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoria.llm.client import Message
from memoria.llm.prompts import clipped, strict_object, system, user

SCHEMA_NAME = "fact_filter"
MAX_FACT_CHARS = 500

SYSTEM = """You are the recognition memory of an AI agent. Given a QUESTION and CANDIDATE FACTS retrieved from its
memory by similarity, pick the facts that help answer the QUESTION, including facts that need a step of
reasoning to connect to it (a fact about an entity the answer depends on). Leave out facts that are merely
similar in wording. Answer with the numbers of the facts to keep, most useful first, at most {most} of them;
an empty list when none helps."""


def answer_schema(*, candidate_count: int, most: int) -> dict[str, Any]:
    number = {"type": "integer", "minimum": 0, "maximum": max(0, candidate_count - 1)}
    return strict_object({"keep": {"type": "array", "items": number, "maxItems": most}})


def messages(*, query: str, facts: Sequence[str], most: int) -> list[Message]:
    """`facts`: each candidate's text, numbered in this order."""
    listed = "\n".join(f"{number}: {clipped(fact, MAX_FACT_CHARS)}" for number, fact in enumerate(facts))
    return [
        system(SYSTEM.format(most=most)),
        user(f"<QUESTION>\n{clipped(query)}\n</QUESTION>\n\n<CANDIDATE FACTS>\n{listed}\n</CANDIDATE FACTS>"),
    ]
