"""What a context block is made of, read from the group: the search's hits, the episodes facts came from, the
graph walk's chains of facts, and who mentions an entity (so a summary written after `as_of` is not shown).

Reads are by (group, id) under the `Memory` label, so the key's index finds them; one query per kind of read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from asgiref.sync import async_to_sync

from memoria.browse.records import FACT_COLUMNS, EdgeCard
from memoria.graph import driver, kinds
from memoria.graph.asof import valid_time
from memoria.retrieval.activation import Seed
from memoria.retrieval.event_types import EventType
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_run
from memoria.search.methods import FACT_HOLDS
from memoria.search.service import SearchHit

ACTIVATION_SEEDS = 5  # the best entities found, as the retriever's own seed search takes
# The episodes each fact came from, read through its source node so the id index finds it.
FACT_EPISODES = f"""
UNWIND $facts AS fact
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group, id: fact.source}})-[r:{kinds.RELATES}]->()
WHERE r.id = fact.id
RETURN r.id AS id, coalesce(r.episodes, []) AS episodes
"""
EPISODE_ROWS = f"""
UNWIND $ids AS episode_id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: episode_id}})
WHERE n:{kinds.EPISODE}
RETURN n.id AS id, n.name AS name, coalesce(n.content, '') AS content, coalesce(n.valid_at, n.created_at) AS at
"""
# When each entity was last mentioned, and by which episodes: its summary is written from them.
ENTITY_MENTIONS = f"""
UNWIND $ids AS entity_id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: entity_id}})<-[:{kinds.MENTIONS}]-(e:{kinds.EPISODE})
RETURN n.id AS entity, e.id AS id, e.name AS name, coalesce(e.valid_at, e.created_at) AS at
"""
# The facts met on activation paths that hold at the moment, by (id, stored source, stored target) so the id index
# is used; the rule of holding is search's own (FACT_HOLDS), not a copy.
HOLDING_FACTS = f"""
UNWIND $rows AS row
MATCH (:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->(:Memory {{group_id: $group, id: row.target}})
WHERE r.id = row.id AND r.group_id = $group AND {FACT_HOLDS}
RETURN {FACT_COLUMNS}
"""


@dataclass(frozen=True)
class EpisodeRow:
    id: str
    name: str
    content: str
    at: str | None  # its reference time (valid_at), else when it was stored


@dataclass(frozen=True)
class Mention:
    id: str
    name: str
    at: str | None


@dataclass(frozen=True)
class Walk:
    """The facts on activation's paths that hold at the moment, with their best transfer energy, and the paths of
    two hops or more as chains of fact ids in hop order, strongest first."""

    facts: tuple[tuple[EdgeCard, float], ...] = ()
    chains: tuple[tuple[str, ...], ...] = ()


def fact_episodes(group: str, facts: Sequence[SearchHit]) -> dict[str, tuple[str, ...]]:
    """Each fact's source episodes, in stored order."""
    if not facts:
        return {}
    rows = driver.read(FACT_EPISODES, facts=[{"id": hit.id, "source": hit.source} for hit in facts], group=group)
    return {row["id"]: tuple(row["episodes"]) for row in rows}


def episode_rows(group: str, ids: Sequence[str]) -> dict[str, EpisodeRow]:
    if not ids:
        return {}
    rows = driver.read(EPISODE_ROWS, ids=list(ids), group=group)
    return {row["id"]: EpisodeRow(row["id"], row["name"] or row["id"], row["content"], row["at"]) for row in rows}


def entity_mentions(group: str, ids: Sequence[str]) -> dict[str, list[Mention]]:
    """Each entity's mentioning episodes, newest first (ties by id)."""
    if not ids:
        return {}
    found: dict[str, list[Mention]] = {entity: [] for entity in ids}
    for row in driver.read(ENTITY_MENTIONS, ids=list(ids), group=group):
        found[row["entity"]].append(Mention(row["id"], row["name"] or row["id"], row["at"]))
    for mentions in found.values():
        mentions.sort(key=lambda mention: (mention.at or "", mention.id), reverse=True)
    return found


async def _finished(request: ActivationRequest) -> list[dict]:
    return [event async for event in activation_run(request) if event["type"] == EventType.SEED_FINISHED]


def walk(*, group: str, entities: Sequence[SearchHit], moment: str) -> Walk:
    """Activation Energy from the best entities found, at `moment`: a fact that ended before it (or began after)
    neither carries energy nor counts in a degree, and HOLDING_FACTS keeps the facts exact."""
    best = entities[0].score if entities else 0.0
    if best <= 0:
        return Walk()
    seeds = tuple(Seed(hit.id, hit.score / best) for hit in entities[:ACTIVATION_SEEDS])
    at = valid_time(moment)
    finished = async_to_sync(_finished)(ActivationRequest(group=group, seeds=seeds, query_tags=(), moment=at))
    energy: dict[str, float] = {}
    ends: dict[str, tuple[str, str]] = {}
    paths: list[tuple[float, tuple[str, ...]]] = []
    for event in finished:
        for path in event["paths"]:
            hops = path["hops"]
            for hop in hops:
                stored = (hop["source"], hop["target"]) if hop["direction"] == "out" else (hop["target"], hop["source"])
                ends[hop["edge_id"]] = stored
                energy[hop["edge_id"]] = max(energy.get(hop["edge_id"], 0.0), hop["transfer_energy"])
            if len(hops) > 1:
                paths.append((float(path["energy"]), tuple(hop["edge_id"] for hop in hops)))
    if not ends:
        return Walk()
    rows = [{"id": edge_id, "source": source, "target": target} for edge_id, (source, target) in ends.items()]
    holding = driver.read(HOLDING_FACTS, rows=rows, group=group, **at.nullable_parameters())
    cards = {card.id: card for card in map(EdgeCard.from_fact_row, holding)}
    facts = sorted(((card, energy[card.id]) for card in cards.values()), key=lambda pair: (-pair[1], pair[0].id))
    chains: dict[tuple[str, ...], float] = {}
    for strength, chain in sorted(paths, key=lambda pair: (-pair[0], pair[1])):
        if all(edge in cards for edge in chain) and chain not in chains:
            chains[chain] = strength
    longest = [
        chain
        for chain in chains
        if not any(len(other) > len(chain) and other[: len(chain)] == chain for other in chains)
    ]
    return Walk(facts=tuple(facts), chains=tuple(longest))
