"""Communities: a group's entities clustered (label propagation or Leiden), each with a name, a summary and members.

A build replaces the group's communities in one transaction. An update after an episode refreshes each affected
community once, from its current members, and commits only if nobody changed the community meanwhile
(docs/communities.md): concurrent updates never overwrite one another's members or summaries.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import graspologic_native
import neo4j

from memoria.accounts.roles import check_group_name
from memoria.embeddings import configured_model_id
from memoria.errors import InvalidInput, LlmInvalidAnswer, WriteConflict
from memoria.graph import driver, kinds
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.schema import VECTOR_MODEL, VECTOR_TEXT
from memoria.graph.searchable import SEARCHABLE_TEXT_VERSION, node_text
from memoria.graph.versions import group_version_bump
from memoria.interchange.importer import DEFAULT_BATCH_SIZE, MERGE_LINKS, batched
from memoria.llm.client import ChatClient, chat_client_or_none
from memoria.llm.modes import StepMode
from memoria.llm.prompts import summarize_community as prompt

logger = logging.getLogger(__name__)

LABEL_PROPAGATION = "label_propagation"
LEIDEN = "leiden"
ALGORITHMS = (LABEL_PROPAGATION, LEIDEN)
MAX_ITERATIONS = 50
DEFAULT_RESOLUTION = 1.0  # modularity's own: higher splits into more, smaller communities
LEIDEN_SEED = 7  # fixed, so the same graph always gives the same communities
LEIDEN_ITERATIONS = 2  # full Leiden cycles, each starting from the previous partition (docs/communities.md)
MIN_MEMBERS = 2  # a lone entity is not a community; it joins one when a fact links it to a member
NAME_MEMBERS = 3  # members named in an extractive community name
SUMMARY_MEMBERS = 5  # members quoted in an extractive summary, most connected first
SUMMARY_TAGS = 5
MEMBER_SUMMARY_CHARS = 200
MAX_NAME_CHARS = 120
MAX_SUMMARY_CHARS = 1000
LLM_MEMBERS = 16  # summaries reduced pairwise by the LLM: 15 pair calls and one name call per community at most
LLM_WORKERS = 4
MAX_UPDATE_ROUNDS = 6
RETRY_PAUSE_SECONDS = 0.05
EXTRACTIVE = "extractive"

EmbedNames = Callable[[list[str]], list[list[float]]]
BuildProgress = Callable[[str, int, int], None]  # (stage, done, total)


def _no_progress(stage: str, done: int, total: int) -> None:
    """The default progress: nobody listens."""


GROUP_ENTITIES = f"""
MATCH (n:{kinds.ENTITY} {{group_id: $group}})
RETURN n.id AS id, n.name AS name, coalesce(n.summary, '') AS summary
"""
# Both directions of a pair arrive as separate rows; projection() adds them up.
GROUP_LINKS = f"""
MATCH (a:{kinds.ENTITY} {{group_id: $group}})-[r:{kinds.RELATES}]->(b:{kinds.ENTITY} {{group_id: $group}})
WHERE a.id <> b.id
RETURN a.id AS source, b.id AS target, count(r) AS facts, collect(r.tags) AS tags
"""
DELETE_COMMUNITIES = f"""
MATCH (c:{kinds.COMMUNITY} {{group_id: $group}})
DETACH DELETE c
RETURN count(*) AS removed
"""
CREATE_COMMUNITIES = f"""
UNWIND $rows AS row
CREATE (c:{kinds.MEMORY_LABEL}:{kinds.COMMUNITY})
SET c = row.props
"""
MERGE_MEMBERS = MERGE_LINKS.format(rel_type=kinds.HAS_MEMBER)
ANY_COMMUNITY = f"""
MATCH (c:{kinds.COMMUNITY} {{group_id: $group}})
RETURN c.id AS id LIMIT 1
"""
# Where each touched entity belongs now: its own community, else the communities of its neighbours.
OWN_COMMUNITIES = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
MATCH (c:{kinds.COMMUNITY})-[:{kinds.HAS_MEMBER}]->(n)
WHERE c.group_id = $group
RETURN n.id AS entity, c.id AS community
"""
NEIGHBOUR_COMMUNITIES = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})-[r:{kinds.RELATES}]-(m:{kinds.ENTITY})
MATCH (c:{kinds.COMMUNITY})-[:{kinds.HAS_MEMBER}]->(m)
WHERE $entity IN labels(n) AND c.group_id = $group AND m.id <> n.id
RETURN n.id AS entity, c.id AS community, count(r) AS facts
"""
COMMUNITY_STATE = f"""
MATCH (c:{kinds.MEMORY_LABEL} {{group_id: $group, id: $id}})
WHERE $community IN labels(c)
OPTIONAL MATCH (c)-[:{kinds.HAS_MEMBER}]->(m:{kinds.ENTITY})
RETURN c.revision AS revision, collect(m.id) AS members
"""
MEMBERS = f"""
UNWIND $ids AS id
MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})
WHERE $entity IN labels(n)
RETURN n.id AS id, n.name AS name, coalesce(n.summary, '') AS summary
"""
MEMBER_LINKS = f"""
UNWIND $ids AS id
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: id}})-[r:{kinds.RELATES}]->(b:{kinds.ENTITY})
WHERE b.id IN $ids AND b.id <> a.id
RETURN a.id AS source, b.id AS target, count(r) AS facts, collect(r.tags) AS tags
"""
# Writing a property takes the node's write lock on Neo4j, so the revision read after it is the latest one;
# ArcadeDB fails the later of two such transactions at commit, and the driver runs it again.
CLAIM_COMMUNITY = f"""
MATCH (c:{kinds.MEMORY_LABEL} {{group_id: $group, id: $id}})
WHERE $community IN labels(c)
SET c.claimed = true
REMOVE c.claimed
RETURN c.revision AS revision
"""
REFRESH_COMMUNITY = f"""
MATCH (c:{kinds.MEMORY_LABEL} {{group_id: $group, id: $id}})
SET c += $props
"""


class CommunityConflict(WriteConflict):
    """A community kept changing under an update for every allowed round; running the update again is safe."""


@dataclass(frozen=True)
class Member:
    id: str
    name: str
    summary: str
    degree: int = 0  # facts shared with other members of the community


@dataclass(frozen=True)
class Links:
    """The facts between a group's entities, as an undirected weighted graph with each pair's fact tags."""

    weights: dict[tuple[str, str], int] = field(default_factory=dict)  # (smaller id, larger id) → fact count
    tags: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> Links:
        links = cls()
        for row in rows:
            pair = tuple(sorted((row["source"], row["target"])))
            links.weights[pair] = links.weights.get(pair, 0) + int(row["facts"])
            counter = links.tags.setdefault(pair, Counter())
            for tags in row["tags"]:
                counter.update(tags or ())
        return links

    def among(self, ids: Iterable[str]) -> tuple[dict[str, int], Counter[str]]:
        """Each member's degree inside the set, and the tags of the facts inside it."""
        inside = set(ids)
        degrees: dict[str, int] = dict.fromkeys(inside, 0)
        tags: Counter[str] = Counter()
        for (a, b), weight in self.weights.items():
            if a in inside and b in inside:
                degrees[a] += weight
                degrees[b] += weight
                tags.update(self.tags.get((a, b), Counter()))
        return degrees, tags


@dataclass(frozen=True)
class CommunityText:
    name: str
    summary: str


@dataclass(frozen=True)
class BuiltCommunity:
    id: str
    name: str
    members: int


@dataclass(frozen=True)
class CommunityReport:
    group: str
    algorithm: str
    resolution: float | None  # Leiden's; None for label propagation
    summaries: str  # "extractive" or "llm"
    communities: tuple[BuiltCommunity, ...]
    clustered_entities: int
    unclustered_entities: int  # in a cluster smaller than MIN_MEMBERS
    removed: int  # communities the build replaced
    iterations: int  # label propagation's sweeps, or Leiden's cycles
    seconds: float


@dataclass(frozen=True)
class CommunityUpdateReport:
    group: str
    updated: tuple[str, ...]  # community ids, each refreshed once
    attached: tuple[str, ...]  # touched entities that joined their neighbours' community
    unplaced: tuple[str, ...]  # touched entities with no community of their own or among their neighbours
    retries: int  # refreshes done again because another writer changed the community first
    memberships: tuple[tuple[str, str], ...] = ()  # (touched entity, community) for each refreshed community


def _now() -> str:
    return datetime.now(UTC).strftime(TIMESTAMP_FORMAT)


def community_id(*, group: str, members: Iterable[str]) -> str:
    """The same members give the same id, so a rebuild that finds the same community keeps its id."""
    digest = hashlib.sha256("\x1f".join([group, *sorted(members)]).encode()).hexdigest()
    return f"com-{digest[:24]}"


def label_propagation(
    nodes: Iterable[str], weights: Mapping[tuple[str, str], int], *, max_iterations: int = MAX_ITERATIONS
) -> tuple[dict[str, str], int]:
    """Each node's label (a node id) after label propagation, and the sweeps it took.

    Sweeps are synchronous and visit nodes in id order, so the result depends on nothing but the graph. A node
    takes the label its neighbours carry with the most facts; among equals it keeps its own label if that is
    one of them, else takes the smallest. A node that would go back to its label of two sweeps before (two
    nodes joined by several facts swap labels forever otherwise) moves only to a smaller label; once a whole
    sweep repeats an earlier one, every node does, so labels only shrink and the sweeps must end.
    Why not Graphiti's rule or asynchronous sweeps: docs/communities.md.
    """
    order = sorted(set(nodes))
    neighbours: dict[str, dict[str, int]] = {node: {} for node in order}
    for (a, b), weight in weights.items():
        if a != b and a in neighbours and b in neighbours:
            neighbours[a][b] = neighbours[a].get(b, 0) + weight
            neighbours[b][a] = neighbours[b].get(a, 0) + weight
    labels = {node: node for node in order}
    earlier: dict[str, str] = labels
    seen: set[int] = set()  # hashes of past sweeps: a collision only starts the settling a little early
    settling = False
    for sweep in range(1, max_iterations + 1):
        proposed = {
            node: _label_for(neighbours[node], labels, labels[node], earlier[node], settling=settling) for node in order
        }
        if proposed == labels:
            return labels, sweep
        state = hash(tuple(proposed[node] for node in order))
        settling = settling or state in seen
        seen.add(state)
        earlier, labels = labels, proposed
    logger.info("label propagation stopped after %d sweeps without settling", max_iterations)
    return labels, max_iterations


def _label_for(neighbours: dict[str, int], labels: dict[str, str], current: str, before: str, *, settling: bool) -> str:
    votes: dict[str, int] = defaultdict(int)
    for neighbour, weight in neighbours.items():
        votes[labels[neighbour]] += weight
    if not votes:
        return current
    most = max(votes.values())
    best = current if votes.get(current) == most else min(label for label, weight in votes.items() if weight == most)
    return min(best, current) if settling or best == before != current else best


def leiden(
    nodes: Iterable[str],
    weights: Mapping[tuple[str, str], int],
    *,
    resolution: float = DEFAULT_RESOLUTION,
    seed: int = LEIDEN_SEED,
) -> tuple[dict[str, str], int]:
    """Each node's label (the smallest id in its Leiden community, as label propagation's are ids) and the cycles run.

    graspologic-native (MIT) maximises modularity at `resolution`. Its result depends on the order edges arrive
    in as well as on the seed, so edges go in sorted: the same graph gives the same communities. A node with no
    edges keeps its own label, a community of one.
    """
    labels = {node: node for node in sorted(set(nodes))}
    edges = [
        (a, b, float(weight))
        for (a, b), weight in sorted(weights.items())
        if a != b and weight > 0 and a in labels and b in labels
    ]
    if not edges:
        return labels, 0  # the library refuses an empty network
    _, partition = graspologic_native.leiden(
        edges, resolution=resolution, seed=seed, iterations=LEIDEN_ITERATIONS, use_modularity=True
    )
    grouped: dict[int, list[str]] = defaultdict(list)
    for node, community in partition.items():
        grouped[community].append(node)
    for members in grouped.values():
        labels.update(dict.fromkeys(members, min(members)))
    return labels, LEIDEN_ITERATIONS


# graspologic-native refuses subnormal resolutions (5e-324) and panics on huge ones (1.7e308; found by the API fuzz
# test); both bounds lie far past any useful resolution.
MIN_RESOLUTION = 1e-6
MAX_RESOLUTION = 1e6


def check_resolution(algorithm: str, resolution: float | None) -> float | None:
    """The resolution Leiden will use; None for label propagation, which has none and so must not be given one."""
    if algorithm != LEIDEN:
        if resolution is not None:
            raise InvalidInput(f"resolution: only the {LEIDEN} algorithm takes one")
        return None
    if resolution is None:
        return DEFAULT_RESOLUTION
    if isinstance(resolution, bool) or not isinstance(resolution, int | float) or not math.isfinite(resolution):
        raise InvalidInput(f"resolution: {resolution!r} is not a number")
    if resolution <= 0:
        raise InvalidInput(f"resolution: must be greater than 0, got {resolution}")
    if not MIN_RESOLUTION <= resolution <= MAX_RESOLUTION:
        raise InvalidInput(f"resolution: must be {MIN_RESOLUTION:g}–{MAX_RESOLUTION:g}, got {resolution}")
    return float(resolution)


def clusters_of(labels: Mapping[str, str], *, min_members: int = MIN_MEMBERS) -> list[list[str]]:
    """Nodes grouped by label, large clusters first (then by smallest id); clusters below min_members dropped."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for node, label in labels.items():
        grouped[label].append(node)
    clusters = [sorted(members) for members in grouped.values() if len(members) >= min_members]
    return sorted(clusters, key=lambda members: (-len(members), members[0]))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _first_sentence(text: str) -> str:
    for end in (". ", "! ", "? ", "\n"):
        if end in text:
            text = text.split(end, 1)[0] + end.strip()
    return text


def ranked(members: Iterable[Member]) -> list[Member]:
    """Most connected first; the name and id make the order total, so equal inputs give equal summaries."""
    return sorted(members, key=lambda member: (-member.degree, member.name.lower(), member.id))


def _listing(names: list[str], total: int) -> str:
    if total > len(names):
        return f"{', '.join(names)} and {total - len(names)} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def extractive_text(members: Sequence[Member], tags: Counter[str]) -> CommunityText:
    """A summary without a model: the most connected members with their summaries' first sentences, and topics."""
    order = ranked(members)
    name = _listing([member.name for member in order[:NAME_MEMBERS]], len(order))
    quoted = [
        f"{member.name}: {_clip(_first_sentence(member.summary), MEMBER_SUMMARY_CHARS).rstrip('.')}"
        if member.summary
        else member.name
        for member in order[:SUMMARY_MEMBERS]
    ]
    if len(order) > SUMMARY_MEMBERS:
        quoted.append(f"and {len(order) - SUMMARY_MEMBERS} more")
    summary = "; ".join(quoted) + "."
    topics = [tag for tag, _ in sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:SUMMARY_TAGS]]
    if topics:
        summary += f" Frequent topics: {', '.join(topics)}."
    return CommunityText(_clip(name, MAX_NAME_CHARS), _clip(summary, MAX_SUMMARY_CHARS))


def _answer_text(answer: dict[str, Any], key: str) -> str:
    value = " ".join(answer[key].split())
    if not value:
        raise LlmInvalidAnswer(f"the LLM's community {key} is blank")
    return value


def llm_text(members: Sequence[Member], client: ChatClient) -> CommunityText:
    """Graphiti's summary: member summaries merged pairwise until one is left, then named from it."""
    texts = [f"{m.name}: {m.summary}" if m.summary else m.name for m in ranked(members)[:LLM_MEMBERS]]

    def merge(pair: tuple[str, str]) -> str:
        answer = client.complete_json(
            messages=prompt.pair_messages(first=pair[0], second=pair[1]),
            schema_name=prompt.PAIR_SCHEMA_NAME,
            schema=prompt.PAIR_SCHEMA,
        )
        return _answer_text(answer, "summary")

    with ThreadPoolExecutor(max_workers=LLM_WORKERS) as pool:
        while len(texts) > 1:
            pairs = [(texts[index], texts[index + 1]) for index in range(0, len(texts) - 1, 2)]
            texts = [*pool.map(merge, pairs), *texts[len(pairs) * 2 :]]
    summary = texts[0]
    answer = client.complete_json(
        messages=prompt.name_messages(summary=summary), schema_name=prompt.NAME_SCHEMA_NAME, schema=prompt.NAME_SCHEMA
    )
    return CommunityText(_clip(_answer_text(answer, "name"), MAX_NAME_CHARS), summary)


def community_text(members: Sequence[Member], tags: Counter[str], client: ChatClient | None) -> CommunityText:
    return llm_text(members, client) if client is not None else extractive_text(members, tags)


def _members_with_degrees(rows: Iterable[Mapping[str, Any]], degrees: Mapping[str, int]) -> list[Member]:
    return [Member(row["id"], row["name"] or row["id"], row["summary"], degrees.get(row["id"], 0)) for row in rows]


def _searchable(text: CommunityText) -> str:
    """What a community's vector embeds: its name and summary (memoria.graph.searchable)."""
    return node_text(is_episode=False, name=text.name, summary=text.summary)


def _default_embed_names() -> EmbedNames:
    from memoria.embeddings import embedder  # the model loads on first use only

    return embedder().embed


def communities_build(
    *,
    group: str,
    algorithm: str = LABEL_PROPAGATION,
    resolution: float | None = None,
    llm: ChatClient | None = None,
    embed_names: EmbedNames | None = None,
    progress: BuildProgress | None = None,
) -> CommunityReport:
    """Cluster the group's entities and replace its communities with the clusters, all in one transaction.

    `resolution` is Leiden's (DEFAULT_RESOLUTION when not given). Summaries come from the LLM when one is
    configured (or given), else they are extractive. `progress(stage, done, total)` is told each step; the last
    calls come inside the writing transaction, so an exception it raises (a cancel) leaves the old communities.
    """
    check_group_name(group)
    if algorithm not in ALGORITHMS:
        raise InvalidInput(f"algorithm: {algorithm!r} is not one of {', '.join(ALGORITHMS)}")
    resolution = check_resolution(algorithm, resolution)
    started = time.perf_counter()
    client = llm if llm is not None else chat_client_or_none()
    step = progress or _no_progress
    step("reading", 0, 1)
    entities = {row["id"]: row for row in driver.read(GROUP_ENTITIES, group=group)}
    links = Links.from_rows(driver.read(GROUP_LINKS, group=group))
    step("clustering", 0, len(entities))
    if resolution is None:
        labels, iterations = label_propagation(entities, links.weights)
    else:
        labels, iterations = leiden(entities, links.weights, resolution=resolution)
    clusters = clusters_of(labels)

    def describe(cluster: list[str]) -> CommunityText:
        degrees, tags = links.among(cluster)
        return community_text(_members_with_degrees((entities[i] for i in cluster), degrees), tags, client)

    texts = []
    for done, cluster in enumerate(clusters):  # the LLM's pair calls run in parallel inside each
        step("summarising", done, len(clusters))
        texts.append(describe(cluster))
    step("embedding", 0, len(texts))
    vectors = (embed_names or _default_embed_names())([_searchable(text) for text in texts]) if texts else []
    now, model = _now(), configured_model_id()
    rows, memberships = [], []
    for cluster, text, vector in zip(clusters, texts, vectors, strict=True):
        cid = community_id(group=group, members=cluster)
        props = {
            "id": cid,
            "group_id": group,
            "created_at": now,
            "revision": uuid.uuid4().hex,
            VECTOR_MODEL: model,
            VECTOR_TEXT: SEARCHABLE_TEXT_VERSION,
        }
        rows.append({"props": props | {"name": text.name, "summary": text.summary, "name_embedding": vector}})
        memberships.extend({"source": cid, "target": member} for member in cluster)

    def replace(tx: neo4j.ManagedTransaction) -> int:
        step("writing", 0, len(rows) + len(memberships))
        group_version_bump(tx, group)
        removed = tx.run(DELETE_COMMUNITIES, group=group).single()["removed"]
        written = 0
        for items, query, extra in ((rows, CREATE_COMMUNITIES, {}), (memberships, MERGE_MEMBERS, {"group": group})):
            for batch in batched(items, DEFAULT_BATCH_SIZE):
                tx.run(query, rows=batch, **extra).consume()
                written += len(batch)
                step("writing", written, len(rows) + len(memberships))
        return removed

    removed = driver.write_transaction(replace)
    clustered = sum(len(cluster) for cluster in clusters)
    return CommunityReport(
        group=group,
        algorithm=algorithm,
        resolution=resolution,
        summaries=StepMode.LLM if client else EXTRACTIVE,
        communities=tuple(
            BuiltCommunity(row["props"]["id"], row["props"]["name"], len(cluster))
            for row, cluster in zip(rows, clusters, strict=True)
        ),
        clustered_entities=clustered,
        unclustered_entities=len(entities) - clustered,
        removed=removed,
        iterations=iterations,
        seconds=time.perf_counter() - started,
    )


def communities_exist(*, group: str) -> bool:
    """Whether the group has communities at all: an update never creates the first one, only a build does."""
    return bool(driver.read(ANY_COMMUNITY, group=group))


def _placements(group: str, entity_ids: list[str]) -> tuple[dict[str, set[str]], dict[str, set[str]], list[str]]:
    """Touched entities by community: those already members, those joining it, and those with none near."""
    members: dict[str, set[str]] = defaultdict(set)
    placed: set[str] = set()
    for row in driver.read(OWN_COMMUNITIES, ids=entity_ids, group=group):
        members[row["community"]].add(row["entity"])
        placed.add(row["entity"])
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    homeless = [entity for entity in entity_ids if entity not in placed]
    if homeless:
        for row in driver.read(NEIGHBOUR_COMMUNITIES, ids=homeless, group=group, entity=kinds.ENTITY):
            votes[row["entity"]][row["community"]] += row["facts"]
    joining: dict[str, set[str]] = defaultdict(set)
    for entity, counts in votes.items():
        most = max(counts.values())
        joining[min(community for community, facts in counts.items() if facts == most)].add(entity)
    unplaced = [entity for entity in homeless if entity not in votes]
    return members, joining, unplaced


def _community_refresh(
    group: str, community: str, joining: set[str], client: ChatClient | None, embed_names: EmbedNames
) -> bool:
    """Recompute one community from its current members plus `joining`; False if it changed before the commit."""
    state = driver.read(COMMUNITY_STATE, id=community, group=group, community=kinds.COMMUNITY)
    if not state:
        return False  # replaced by a build meanwhile: the caller places the entities again
    revision, current = state[0]["revision"], state[0]["members"]
    ids = sorted({*current, *joining})
    rows = driver.read(MEMBERS, ids=ids, group=group, entity=kinds.ENTITY)
    degrees, tags = Links.from_rows(driver.read(MEMBER_LINKS, ids=ids, group=group)).among(ids)
    text = community_text(_members_with_degrees(rows, degrees), tags, client)
    [vector] = embed_names([_searchable(text)])
    props = {
        "name": text.name,
        "summary": text.summary,
        "name_embedding": vector,
        VECTOR_MODEL: configured_model_id(),
        VECTOR_TEXT: SEARCHABLE_TEXT_VERSION,
        "revision": uuid.uuid4().hex,
        "updated_at": _now(),
    }
    links = [{"source": community, "target": entity} for entity in sorted(joining)]

    def commit(tx: neo4j.ManagedTransaction) -> bool:
        claimed = tx.run(CLAIM_COMMUNITY, id=community, group=group, community=kinds.COMMUNITY).single()
        if claimed is None or claimed["revision"] != revision:
            return False  # someone else's change landed first: ours was computed from stale members
        group_version_bump(tx, group)
        if links:
            tx.run(MERGE_MEMBERS, rows=links, group=group).consume()
        tx.run(REFRESH_COMMUNITY, id=community, props=props, group=group).consume()
        return True

    return driver.write_transaction(commit)


def communities_update(
    *,
    group: str,
    touched_entity_ids: Iterable[str],
    llm: ChatClient | None = None,
    embed_names: EmbedNames | None = None,
    offline: bool = False,
) -> CommunityUpdateReport:
    """Bring the communities of the touched entities up to date after an episode or a batch (Graphiti's phase 8).

    Touched entities are grouped by their community (a new one joins the community most of its facts lead to),
    and each affected community is refreshed once, in one transaction, from its current members. The commit
    checks the community's revision: if another writer changed it meanwhile, the refresh is computed again
    from the new state instead of overwriting it. Summaries come from `llm`, else the configured LLM, else are
    extractive; `offline` makes them extractive whatever is configured.
    """
    check_group_name(group)
    client = None if offline else llm if llm is not None else chat_client_or_none()
    embed = embed_names or _default_embed_names()
    pending = sorted(set(touched_entity_ids))
    updated: list[str] = []
    placed: dict[str, str] = {}
    attached: set[str] = set()
    unplaced: list[str] = []
    retries = 0
    for round_number in range(MAX_UPDATE_ROUNDS):
        if not pending:
            break
        if round_number:
            time.sleep(RETRY_PAUSE_SECONDS * round_number * (1 + random.random()))  # de-synchronise rivals
        members, joining, homeless = _placements(group, pending)
        unplaced.extend(homeless)
        stale: list[str] = []
        for community in sorted(set(members) | set(joining)):
            if _community_refresh(group, community, joining.get(community, set()), client, embed):
                updated.append(community)
                attached.update(joining.get(community, ()))
                placed.update(dict.fromkeys(members.get(community, set()) | joining.get(community, set()), community))
            else:
                retries += 1
                stale.extend(members.get(community, set()) | joining.get(community, set()))
        pending = sorted(stale)
    if pending:
        raise CommunityConflict(
            f"communities of group {group!r} kept changing during {MAX_UPDATE_ROUNDS} rounds; run the update again"
        )
    return CommunityUpdateReport(
        group=group,
        updated=tuple(dict.fromkeys(updated)),
        attached=tuple(sorted(attached)),
        unplaced=tuple(sorted(set(unplaced))),
        retries=retries,
        memberships=tuple(sorted(placed.items())),
    )
