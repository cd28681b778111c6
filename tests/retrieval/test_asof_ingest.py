"""Through the offline ingest: a preference changes between two episodes. Activation (both engines) and PPR from
the person reach the new preference now, the old one as of before the change, and both with include_invalidated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from memoria.graph import driver
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episodes_add
from memoria.ppr.request import PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import ProjectionCache
from memoria.projection.projection import projection_load
from memoria.requests.moment import AsOfInput
from memoria.retrieval.activation import Seed, activation_events
from memoria.retrieval.engines import CYPHER_ENGINE, VIEW, EngineChoice
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_run

BEFORE = "2024-03-15T00:00:00Z"  # between the episodes (known_at stays now: resolved in each test, after ingest)
FACTS = """
MATCH (a:Entity {group_id: $group, name: 'Liv'})-[r:RELATES]->(b)
RETURN a.id AS person, r.relation AS relation, b.name AS target, b.id AS target_id, r.id AS id
"""


@dataclass(frozen=True)
class Preferences:
    person: str
    old: str  # Liv prefers Acme (ended by the second episode)
    new: str  # Liv prefers Borealis
    negation: str  # Liv no longer prefers Acme
    acme: str
    borealis: str


@pytest.fixture
def preferences(group: str) -> Preferences:
    for episode in (
        EpisodeInput("Liv: I prefer Acme Supplies for steel.", id=f"{group}-p1", valid_at="2024-03-01T10:00:00Z"),
        EpisodeInput(
            "Liv: I no longer prefer Acme Supplies. I prefer Borealis Trading now.",
            id=f"{group}-p2",
            valid_at="2024-04-10T10:00:00Z",
        ),
    ):
        episodes_add(group=group, episodes=[episode])  # one after the other: the second contradicts the first
    facts = {(row["relation"], row["target"]): row for row in driver.read(FACTS, group=group)}
    return Preferences(
        person=facts["prefer", "Acme Supplies"]["person"],
        old=facts["prefer", "Acme Supplies"]["id"],
        new=facts["prefer", "Borealis Trading"]["id"],
        negation=facts["not_prefer", "Acme Supplies"]["id"],
        acme=facts["prefer", "Acme Supplies"]["target_id"],
        borealis=facts["prefer", "Borealis Trading"]["target_id"],
    )


def walked(events: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """(facts the seed's first level weighed, facts on the paths found), from an explained retrieval."""
    first = next(event for event in events if event["type"] == "level_expanded" and event["depth"] == 0)
    weighed = {candidate["edge_id"] for parent in first["parents"] for candidate in parent["candidates"]}
    paths = [event["path"] for event in events if event["type"] == "path_completed"]
    return weighed, {hop["edge_id"] for path in paths for hop in path["hops"]}


async def activation(group: str, person: str, moment: AsOf | None, engine: str) -> list[dict[str, Any]]:
    params = ActivationParams(max_branches=5, min_activation=0.001)
    if moment is None:  # as a caller's request gets it: the default moment, now
        request = ActivationRequest(group, seeds=(Seed(person, 1.0),), params=params, explain=True, engine=engine)
        return [event.frame() async for event in activation_run(request)]
    choice = EngineChoice(VIEW, projection_load(group=group)) if engine == VIEW else CYPHER_ENGINE
    stream = activation_events(
        group=group, seeds=[Seed(person, 1.0)], params=params, explain=True, engine=choice, moment=moment
    )
    return [event.frame() async for event in stream]


@pytest.mark.parametrize("engine", ["cypher", "view"])
async def test_activation_reaches_the_preference_of_the_moment(preferences: Preferences, group: str, engine: str):
    p = preferences
    now = await activation(group, p.person, None, engine)
    assert now[0]["engine"]["name"] == engine and not now[0]["time"]["include_invalidated"]
    weighed, used = walked(now)
    assert p.new in weighed and p.new in used and p.negation in weighed
    assert p.old not in weighed and p.old not in used
    first = next(event for event in now if event["type"] == "level_expanded")
    assert first["parents"][0]["degree"] == 3  # d counts the facts that count now: not the ended one

    weighed, used = walked(await activation(group, p.person, AsOfInput(as_of=BEFORE).resolved(), engine))
    assert p.old in weighed and p.old in used
    assert p.new not in weighed and p.negation not in weighed

    weighed, used = walked(await activation(group, p.person, EVERY_FACT, engine))
    assert {p.old, p.new, p.negation} <= weighed and p.new in used
    assert p.old in used or p.negation in used  # both lead to Acme, which one branch claims


def test_ppr_reaches_the_preference_of_the_moment(preferences: Preferences, group: str) -> None:
    p = preferences
    cache = ProjectionCache()

    def scores(moment: AsOf | None) -> tuple[dict[str, float], int]:
        request = PprRequest(group=group, seeds=(SeedWeight(p.person),), mentions=False, top_k=1000, moment=moment)
        answer = ppr_run(request, cache=cache, wait=30)
        return {node.id: node.score for node in answer.scores}, answer.facts_left_out

    now, left_out = scores(None)
    assert now[p.borealis] > 0 and left_out == 1  # the ended preference
    before, left_out = scores(AsOfInput(as_of=BEFORE).resolved())
    assert before[p.borealis] == 0 and before[p.acme] > 0 and left_out == 2  # the new one and its negation
    every, left_out = scores(EVERY_FACT)
    assert every[p.borealis] > 0 and every[p.acme] > 0 and left_out == 0
