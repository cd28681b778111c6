"""Prompts: a community's summary by pairwise reduction of its members' summaries, then its short name."""

from __future__ import annotations

from typing import Any

from memoria.llm.client import Message
from memoria.llm.prompts import strict_object, system, user

PAIR_SCHEMA_NAME = "community_summary"
NAME_SCHEMA_NAME = "community_name"
MAX_SUMMARY_LENGTH = 2000
MAX_NAME_LENGTH = 120

PAIR_SYSTEM = """You combine two summaries of parts of an AI agent's memory into one.
Synthesize the information from both summaries into a single succinct summary of at most 250 words that keeps
every important name, fact and date. Do not invent anything."""

NAME_SYSTEM = """You name a community of related entities in an AI agent's memory from its summary.
Give a short name of at most 8 words saying what kind of information the summary holds
(e.g. "Lyon warehouse stockouts and suppliers")."""

PAIR_SCHEMA: dict[str, Any] = strict_object(
    {"summary": {"type": "string", "minLength": 1, "maxLength": MAX_SUMMARY_LENGTH}}
)
NAME_SCHEMA: dict[str, Any] = strict_object({"name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH}})


def pair_messages(*, first: str, second: str) -> list[Message]:
    return [system(PAIR_SYSTEM), user(f"<SUMMARY>\n{first}\n</SUMMARY>\n\n<SUMMARY>\n{second}\n</SUMMARY>")]


def name_messages(*, summary: str) -> list[Message]:
    return [system(NAME_SYSTEM), user(f"<SUMMARY>\n{summary}\n</SUMMARY>")]
