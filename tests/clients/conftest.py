"""A small real memory for the framework packages' tests: a conversation ingested offline (facts with source
episodes, one of them invalidated by a later episode), a viewer token for its group only, and a second group that
token may not see."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph import driver
from memoria.graph.versions import group_stamps_delete
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episode_add


@dataclass(frozen=True)
class Memory:
    url: str
    token: str
    curator_token: str
    group: str
    hidden: str


def conversation(group: str) -> list[EpisodeInput]:
    """Maren lives in Tallinn (said twice: c1 and c3), then moves to Riga (c4), which ends the Tallinn fact."""
    return [
        EpisodeInput(
            "Liv: Hi Oren! My sister Maren lives in Tallinn.", id=f"{group}-c1", valid_at="2024-03-01T10:00:00Z"
        ),
        EpisodeInput(
            "Oren: Nice! I sailed with Maren at the Harbour Regatta.", id=f"{group}-c2", valid_at="2024-03-02T10:00:00Z"
        ),
        EpisodeInput("Liv: Maren lives in Tallinn, she loves it.", id=f"{group}-c3", valid_at="2024-03-03T10:00:00Z"),
        EpisodeInput("Liv: Maren moved to Riga last week.", id=f"{group}-c4", valid_at="2024-04-10T10:00:00Z"),
    ]


@pytest.fixture
def memory(daphne_url: str, group: str) -> Iterator[Memory]:
    for episode in conversation(group):  # one at a time, each seeing the previous: the move ends the Tallinn fact
        episode_add(group=group, episode=episode)
    hidden = f"t-{uuid.uuid4().hex[:12]}"
    episode_add(group=hidden, episode=EpisodeInput("Maren lives in Oslo.", id=f"{hidden}-h1"))
    suffix = uuid.uuid4().hex[:8]
    viewer = token_for(user=user_grant(username=f"agent-{suffix}", role=Role.VIEWER, groups=[group]))
    curator = token_for(user=user_grant(username=f"writer-{suffix}", role=Role.CURATOR, groups=[group]))
    yield Memory(daphne_url, viewer, curator, group, hidden)
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=hidden)
    group_stamps_delete(group=hidden)
