"""A scripted model for the fake server that answers every ingestion task from the prompt it is sent.

It reads like a crude model: entities are the capitalised names of the current episode, facts tie the first
entity to each other one, a new name is the candidate whose first word it shares. Tests read what it did in
the graph and in the requests the server recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memoria.llm.prompts import extract_entities as entities_prompt
from memoria.llm.prompts import extract_facts as facts_prompt
from memoria.llm.prompts import resolve_entities as resolve_prompt
from memoria.llm.prompts import summarize_community as community_prompt
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply, fake_openai

NAME = re.compile(r"\b[A-Z][\w-]*(?: [A-Z][\w-]*)*")
SPEAKER = re.compile(r"^([A-Z]\w*):", re.MULTILINE)
NOT_NAMES = {"I", "My", "The", "A", "An"}  # capitalised at a sentence start, but never a name


def between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def current_episode(prompt: str) -> str:
    return between(prompt, "<CURRENT EPISODE", "</CURRENT EPISODE>").split(">\n", 1)[1].strip()


def entities_answer(prompt: str) -> dict[str, Any]:
    content = current_episode(prompt)
    speakers = SPEAKER.findall(content)
    found = [" ".join(word for word in name.split() if word not in NOT_NAMES) for name in NAME.findall(content)]
    names = dict.fromkeys([*speakers, *(name for name in found if name and name not in speakers)])
    return {
        "entities": [
            {"name": name, "kind": "speaker" if name in speakers else "proper", "labels": [], "confidence": 0.9}
            for name in names
        ]
    }


def facts_answer(prompt: str) -> dict[str, Any]:
    listed = between(prompt, "<ENTITIES>\n", "\n</ENTITIES>").split("\n")
    content = current_episode(prompt)
    names = [line.split(": ", 1)[1] for line in listed]
    return {
        "facts": [
            {
                "source": 0,
                "target": number,
                "relation": "speaks_of",
                "category": "ATTRIBUTION",
                "fact": f"{names[0]} speaks of {names[number]}: {content}",
                "valid_at": None,
                "weight": 0.8,
                "tags": [],
                "negated": False,
            }
            for number in range(1, len(names))
        ]
    }


def resolution_answer(prompt: str) -> dict[str, Any]:
    name = between(prompt, "<NEW ENTITY>\n", "\n</NEW ENTITY>")
    listed = between(prompt, "<EXISTING ENTITIES>\n", "\n</EXISTING ENTITIES>").split("\n")
    first_word = name.split()[0].lower()
    for line in listed:
        number, rest = line.split(": ", 1)
        if rest.split(" — ")[0].split()[0].lower() == first_word:
            return {"match": int(number), "reason": "the same first name"}
    return {"match": -1, "reason": "none of them"}


def community_answer(schema_name: str, prompt: str) -> dict[str, Any]:
    if schema_name == community_prompt.NAME_SCHEMA_NAME:
        return {"name": "Scripted community"}
    first, second = (part.split("\n</SUMMARY>")[0] for part in prompt.split("<SUMMARY>\n")[1:])
    return {"summary": f"{first} + {second}"}


def reading_model(request: dict[str, Any]) -> Reply:
    """Answers each task the pipeline asks, chosen by the schema name of the request."""
    schema_name = request["response_format"]["json_schema"]["name"]
    prompt = request["messages"][-1]["content"]
    if schema_name == entities_prompt.SCHEMA_NAME:
        return chat_reply(entities_answer(prompt))
    if schema_name == facts_prompt.SCHEMA_NAME:
        return chat_reply(facts_answer(prompt))
    if schema_name == resolve_prompt.SCHEMA_NAME:
        return chat_reply(resolution_answer(prompt))
    return chat_reply(community_answer(schema_name, prompt))


@contextmanager
def configured_reading_model(settings: Any) -> Iterator[FakeOpenAI]:
    """The fake server as the configured LLM (pytest-django's `settings`), answering with reading_model."""
    with fake_openai() as server:
        server.respond = reading_model
        settings.MEMORIA_LLM_URL = server.url
        settings.MEMORIA_LLM_MODEL = "test-model"
        yield server
