"""What a context block is made of, read from the group: the facts found (with the episodes they came from), the
graph walk's chains of facts, the episodes, and who mentions an entity (so a summary written after `as_of` is not
shown).

Reads are by (group, id) under the `Memory` label, so the key's index finds them; one query per kind of read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from asgiref.sync import async_to_sync

from memoria.browse.records import FACT_COLUMNS, EdgeCard
from memoria.graph import driver, kinds
from memoria.graph.asof import valid_time
from memoria.retrieval.activation import Seed
from memoria.retrieval.event_types import SeedFinished
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_run
from memoria.search.methods import FACT_HOLDS
from memoria.search.service import SearchHit

ACTIVATION_SEEDS = 5  # the best entities found, as the retriever's own seed search takes
# The facts asked for that hold at the moment, with their source episodes: read from each source node once (a
# speaker may be the source of hundreds of facts, and matching fact by fact walked them once per fact). The rule of
# holding is search's own (FACT_HOLDS), not a copy.
FACT_ROWS = f"""
UNWIND $sources AS source_id
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group, id: source_id}})-[r:{kinds.RELATES}]->(:{kinds.MEMORY_LABEL})
WHERE r.id IN $ids AND r.group_id = $group AND {FACT_HOLDS}
RETURN {FACT_COLUMNS}
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
    """The facts on activation's paths (the walk ran at the moment) with their best transfer energy and stored ends,
    and the paths of two hops or more as chains of fact ids in hop order, strongest first, none a prefix of another."""

    energy: dict[str, float] = field(default_factory=dict)
    ends: dict[str, tuple[str, str]] = field(default_factory=dict)
    chains: tuple[tuple[str, ...], ...] = ()


def fact_cards(group: str, ends: dict[str, tuple[str, str]], moment: str | None) -> dict[str, EdgeCard]:
    """The facts named by id (with their stored source and target) that hold at `moment` (None: every one), each
    with its episodes."""
    if not ends:
        return {}
    sources = sorted({source for source, _ in ends.values()})
    at = valid_time(moment).nullable_parameters()
    rows = driver.read(FACT_ROWS, sources=sources, ids=list(ends), group=group, **at)
    return {card.id: card for card in map(EdgeCard.from_fact_row, rows)}


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


async def _finished(request: ActivationRequest) -> list[SeedFinished]:
    return [event async for event in activation_run(request) if isinstance(event, SeedFinished)]


def walk(*, group: str, entities: Sequence[SearchHit], moment: str) -> Walk:
    """Activation Energy from the best entities found, at `moment`: a fact that ended before it (or began after)
    neither carries energy nor counts in a degree."""
    best = entities[0].score if entities else 0.0
    if best <= 0:
        return Walk()
    seeds = tuple(Seed(hit.id, hit.score / best) for hit in entities[:ACTIVATION_SEEDS])
    request = ActivationRequest(group=group, seeds=seeds, query_tags=(), moment=valid_time(moment))
    energy: dict[str, float] = {}
    ends: dict[str, tuple[str, str]] = {}
    paths: list[tuple[float, tuple[str, ...]]] = []
    for event in async_to_sync(_finished)(request):
        for path in event.paths:
            hops = path["hops"]
            for hop in hops:
                stored = (hop["source"], hop["target"]) if hop["direction"] == "out" else (hop["target"], hop["source"])
                ends[hop["edge_id"]] = stored
                energy[hop["edge_id"]] = max(energy.get(hop["edge_id"], 0.0), hop["transfer_energy"])
            if len(hops) > 1:
                paths.append((float(path["energy"]), tuple(hop["edge_id"] for hop in hops)))
    chains = list(dict.fromkeys(chain for _, chain in sorted(paths, key=lambda pair: (-pair[0], pair[1]))))
    longest = tuple(
        chain
        for chain in chains
        if not any(len(other) > len(chain) and other[: len(chain)] == chain for other in chains)
    )
    return Walk(energy=energy, ends=ends, chains=longest)
