"""The declared retrieval events against what the engines send, what docs/websocket.md shows, and the client."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import memoria_client.models as client_models
import pytest

from explorer.frames import FrameType
from memoria.ppr.events import ppr_events
from memoria.ppr.request import PprBody
from memoria.projection.cache import ProjectionCache
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.event_types import (
    EVENT_CLASSES,
    EventType,
    RetrievalFinished,
    SeedFinished,
)
from memoria.retrieval.params import ActivationParams
from tests.retrieval.test_activation import load

DOCS = Path(__file__).resolve().parents[2] / "docs" / "websocket.md"
JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.S)


def problems_of(frame: dict[str, Any]) -> list[str]:
    """What is wrong with an event frame against its declared class: a missing field, or one it does not have."""
    kind = EventType(frame["type"])
    required, allowed = EVENT_CLASSES[kind].field_names()
    keys = set(frame) - {"type"}
    if kind is EventType.PPR_FINISHED:  # the REST answer flattened in: owned by memoria/ppr/service.py
        return sorted(f"missing {name}" for name in required - keys)
    return sorted([f"missing {name}" for name in required - keys] + [f"unknown {name}" for name in keys - allowed])


def documented_objects() -> list[dict[str, Any]]:
    """Every JSON object in the doc's json blocks (a block may hold several, one after another)."""
    decoder = json.JSONDecoder()
    found = []
    for block in JSON_BLOCK.findall(DOCS.read_text()):
        at = 0
        while (start := block.find("{", at)) != -1:
            value, at = decoder.raw_decode(block, start)
            found.append(value)
    return found


def test_every_documented_frame_is_declared_and_every_documented_event_has_its_fields() -> None:
    objects = documented_objects()
    typed = [item for item in objects if "type" in item]
    assert {item["type"] for item in typed} >= {kind.value for kind in EventType} - {EventType.PPR_FINISHED}
    for item in typed:
        assert item["type"] in set(EventType) | set(FrameType), item["type"]
        if item["type"] in set(EventType):
            assert problems_of(item) == [], item


def test_a_frame_leaves_out_optional_fields_not_given_but_keeps_declared_nulls() -> None:
    cancelled = RetrievalFinished(retrieval_id="r", status="cancelled").frame()
    assert cancelled == {"type": "retrieval_finished", "retrieval_id": "r", "status": "cancelled", "error": None}
    assert next(iter(cancelled)) == "type"
    found = SeedFinished(
        retrieval_id="r",
        seed_id="s",
        status="completed",
        score=1.0,
        paths=[],
        round_trips=0,
        levels=0,
        candidates=0,
        elapsed_ms=1.0,
        name="S",
        labels=[],
    ).frame()
    assert "error" not in found and found["labels"] == [] and found["name"] == "S"


async def test_activation_sends_only_declared_events_with_their_declared_fields(group: str) -> None:
    load(group, ["a", "b", "c"], [("a", "b", 1.0, []), ("b", "c", 1.0, [])])
    seeds = [Seed(f"{group}-a", 1.0), Seed(f"{group}-missing", 0.5)]
    params = ActivationParams(min_activation=0.01)
    events = [event.frame() async for event in activation_events(group=group, seeds=seeds, params=params)]
    kinds = [event["type"] for event in events]
    assert kinds[0] == EventType.RETRIEVAL_STARTED and kinds[-1] == EventType.RETRIEVAL_FINISHED
    assert {EventType.SEED_STARTED, EventType.LEVEL_EXPANDED, EventType.PATH_COMPLETED} <= set(kinds)
    assert {event["status"] for event in events if event["type"] == EventType.SEED_FINISHED} == {
        "completed",
        "seed_not_found",
    }
    for event in events:
        assert problems_of(event) == [], event


async def test_ppr_sends_only_declared_events_with_their_declared_fields(group: str) -> None:
    load(group, ["a", "b", "c"], [("a", "b", 1.0, []), ("b", "c", 1.0, [])])
    request = input_parse(PprBody, {"group": group, "seeds": [{"id": f"{group}-a", "weight": 1}], "top_k": 3}).request()
    events = [event.frame() async for event in ppr_events(request, retrieval_id="p", cache=ProjectionCache())]
    assert [events[0]["type"], events[-2]["type"], events[-1]["type"]] == [
        EventType.RETRIEVAL_STARTED,
        EventType.PPR_FINISHED,
        EventType.RETRIEVAL_FINISHED,
    ]
    assert any(event["type"] == EventType.PPR_ITERATION for event in events)
    for event in events:
        assert problems_of(event) == [], event


@pytest.mark.parametrize("name", sorted(client_models.EVENT_TYPES))
def test_the_python_client_reads_names_and_fields_the_server_declares(name: str) -> None:
    # The client is its own distribution and cannot import the server: this is where the two are held together.
    assert name in set(EventType) | set(FrameType)
    client_class = client_models.EVENT_TYPES[name]
    if name in set(EventType) and dataclasses.is_dataclass(client_class):
        _, allowed = EVENT_CLASSES[EventType(name)].field_names()
        read = {item.name for item in dataclasses.fields(client_class)} - {"type", "data"}
        assert read <= allowed, read - allowed
