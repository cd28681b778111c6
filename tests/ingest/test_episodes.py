"""Episode input: every bad field named, ids derived when absent and stable across runs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoria.errors import InvalidInput
from memoria.ingest.episodes import (
    EpisodeInput,
    derived_episode_id,
    episode_input_parse,
    episode_inputs_parse,
    episode_prepare,
)


def test_a_full_episode_parses_and_normalises_its_time() -> None:
    episode = episode_input_parse(
        {
            "id": "chat-1",
            "name": "first",
            "content": "Oren: the pallets arrived",
            "source": "message",
            "source_description": "ops chat",
            "valid_at": "2024-03-13T16:30:00+01:00",
        }
    )
    assert episode == EpisodeInput(
        content="Oren: the pallets arrived",
        id="chat-1",
        name="first",
        source="message",
        source_description="ops chat",
        valid_at="2024-03-13T15:30:00Z",
    )


def test_every_bad_field_is_named() -> None:
    with pytest.raises(InvalidInput) as caught:
        episode_inputs_parse(
            [
                {"content": "ok"},
                {"content": "", "id": "bad id!", "source": "fax", "valid_at": "yesterday", "colour": "red"},
                {"content": 3},
                "not an object",
            ]
        )
    problems = "\n".join(caught.value.problems)
    for expected in (
        "episodes[1]: unknown key(s) 'colour'",
        "episodes[1].content: must not be empty",
        "episodes[1].id",
        "episodes[1].source: must be one of message, text, json",
        "episodes[1].valid_at",
        "episodes[2].content: must be a string",
        "episodes[3]: must be an object",
    ):
        assert expected in problems
    assert "episodes[0]" not in problems


def test_repeated_ids_are_refused() -> None:
    with pytest.raises(InvalidInput, match=r"episodes\[1\]\.id: 'a' repeats episodes\[0\]"):
        episode_inputs_parse([{"id": "a", "content": "x"}, {"id": "a", "content": "y"}])


def test_derived_ids_depend_on_group_and_content_only() -> None:
    episode = EpisodeInput(content="the pallets arrived", valid_at="2024-03-13T15:30:00Z")
    assert derived_episode_id("g1", episode) == derived_episode_id("g1", EpisodeInput(**vars(episode)))
    assert derived_episode_id("g1", episode) != derived_episode_id("g2", episode)
    other = EpisodeInput(content="the pallets arrived late", valid_at="2024-03-13T15:30:00Z")
    assert derived_episode_id("g1", episode) != derived_episode_id("g1", other)


def test_prepare_fills_name_and_reference_time() -> None:
    now = datetime(2024, 3, 13, 15, 30, tzinfo=UTC)
    prepared = episode_prepare(group="g1", episode=EpisodeInput(content="word " * 40), now=now)
    assert prepared.id.startswith("ep-") and prepared.reference_time == "2024-03-13T15:30:00Z"
    assert prepared.name.endswith("…") and len(prepared.name) <= 81
