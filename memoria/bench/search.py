"""Hybrid search benchmark: a synthetic memory of sentence-like facts, embedded, then timed recipe by recipe.

Latency is the wall time of one `search()` call, query embedding included,
because that is what a caller waits for.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memoria.embeddings import embedder
from memoria.evaluation.timing import percentile
from memoria.graph import driver
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.reindex import group_reindex, reindex_backlog
from memoria.search import recipes
from memoria.search.service import search

ENTITIES_PER_FACT = 0.2
FACTS_PER_EPISODE = 10
FACTS_PER_COMMUNITY = 500
WRITE_CHUNK = 10_000
START = datetime(2023, 1, 1, tzinfo=UTC)
DAYS = 1000
INVALID_SHARE = 0.1
BENCH_RECIPES = (
    "facts_hybrid_rrf",
    "facts_hybrid_mmr",
    "facts_node_distance",
    "entities_hybrid_rrf",
    "entities_episode_mentions",
    "episodes_hybrid_rrf",
    "episodes_hybrid_graph_gated",  # the episodes default: the text methods and the gated walk
    "communities_hybrid_rrf",
    "combined_hybrid_rrf",
)
WALK_QUERIES = 120
WALKING = " (naming a rare entity: the walk runs)"
COUNT_FACTS = "MATCH (n:Memory {group_id: $group})-[r:RELATES]->() RETURN count(r) AS c"

# Vocabularies, "|"-separated so multi-word names stay whole.
VOCABULARY = {
    "first_names": "Alice|Bruno|Chloe|Dmitri|Elena|Farid|Greta|Hugo|Ines|Jonas|Kira|Luca|Maya|Nils|Olga|Pavel|"
    "Quentin|Rosa|Sven|Tara|Umar|Vera|Wim|Xenia|Yusuf|Zoe",
    "last_names": "Martin|Novak|Schmidt|Rossi|Dubois|Kowalski|Jensen|Silva|Moreau|Berger|Costa|Lindqvist|Horvat|"
    "Meyer|Petit|Fischer|Romero|Nowak|Weber|Santos",
    "org_stems": "Nordbalt|Corvane|Helio|Tesmer|Aldana|Vireo|Kestrel|Ostral|Brantis|Meridel|Sorvik|Calder",
    "org_kinds": "Metals|Plastics|Packaging|Components|Safety|Logistics|Foods|Textiles|Pharma|Energy",
    "places": "Lyon|Rotterdam|Gdansk|Valencia|Leipzig|Porto|Turin|Brno|Ghent|Aarhus|Bilbao|Graz",
    "products": "bolt kit|hydraulic hose|LED panel|pallet wrap|safety gloves|cordless drill|cable tray|thermal labels|"
    "bearing set|PVC conduit|workbench lamp|seal pack|solar inverter|coffee beans|cotton yarn|vaccine vials",
    "projects": "Atlas|Beacon|Cobalt|Delta|Ember|Falcon|Granite|Harbor|Iris|Juniper",
    "issues": "stockout|late delivery|quality defect|price increase|customs hold|forecast error|damaged pallet",
    "roles": "buyer|planner|analyst|warehouse manager|controller|engineer|account manager",
    "topics": "demand forecasting|safety stock|supplier risk|transport costs|cash flow|returns|capacity planning",
}
WORDS = {name: tuple(text.split("|")) for name, text in VOCABULARY.items()}
FIRST_NAMES, LAST_NAMES = WORDS["first_names"], WORDS["last_names"]
ORG_STEMS, ORG_KINDS, PLACES = WORDS["org_stems"], WORDS["org_kinds"], WORDS["places"]
PRODUCTS, PROJECTS, ISSUES = WORDS["products"], WORDS["projects"], WORDS["issues"]
ROLES, TOPICS = WORDS["roles"], WORDS["topics"]

# (relation, subject kind, object kind, sentence); {s} and {o} are the endpoints' names.
FACT_TEMPLATES: tuple[tuple[str, str, str, str], ...] = (
    ("works_at", "person", "org", "{s} works at {o} as a {role}"),
    ("located_in", "org", "place", "{s} runs its main warehouse in {o}"),
    ("supplies", "org", "product", "{s} supplies the {o} under a contract renewed every {n} months"),
    ("manages", "person", "project", "{s} manages the {o} project on {topic}"),
    ("reported", "person", "product", "{s} reported a {issue} affecting the {o}"),
    ("prefers", "person", "topic", "{s} prefers weekly reports about {o}"),
    ("delayed", "org", "place", "A shipment from {s} to {o} was delayed by {n} days after a {issue}"),
    ("stocks", "place", "product", "The {s} site keeps {n} pallets of {o} as safety stock"),
    ("partners_with", "org", "org", "{s} signed a partnership with {o} on {topic}"),
    ("uses", "project", "product", "The {s} project uses the {o} for its pilot"),
    ("reports_to", "person", "person", "{s} reports to {o} on {topic}"),
    ("affected", "project", "place", "The {s} project was slowed down by a {issue} in {o}"),
)


@dataclass(frozen=True)
class SyntheticMemory:
    """A generated graph document for one group, plus the query texts used to time it."""

    document: dict[str, Any]
    queries: tuple[str, ...]
    # Each names one person or organisation that few episodes mention, so the episodes default's gated walk runs:
    # the queries above name first names only, which half the group's entities share, and never open the gate.
    walk_queries: tuple[str, ...] = ()


def _timestamp(rng: random.Random) -> str:
    return (START + timedelta(days=rng.randrange(DAYS), hours=rng.randrange(24))).strftime(TIMESTAMP_FORMAT)


def _entity_names(rng: random.Random, count: int) -> Iterator[tuple[str, str]]:
    """(kind, name) pairs; kinds cycle so every template finds endpoints of each kind."""
    makers: dict[str, Callable[[int], str]] = {
        "person": lambda i: f"{FIRST_NAMES[i % len(FIRST_NAMES)]} {LAST_NAMES[(i // len(FIRST_NAMES)) % 20]}",
        "org": lambda i: f"{ORG_STEMS[i % len(ORG_STEMS)]} {ORG_KINDS[(i // len(ORG_STEMS)) % len(ORG_KINDS)]}",
        "place": lambda i: f"{PLACES[i % len(PLACES)]} depot {i // len(PLACES) + 1}",
        "product": lambda i: f"{PRODUCTS[i % len(PRODUCTS)]} model {i // len(PRODUCTS) + 1}",
        "project": lambda i: f"{PROJECTS[i % len(PROJECTS)]} {i // len(PROJECTS) + 1}",
        "topic": lambda i: f"{TOPICS[i % len(TOPICS)]} in {PLACES[(i // len(TOPICS)) % len(PLACES)]}",
    }
    kinds = tuple(makers)
    made = dict.fromkeys(kinds, 0)
    for index in range(count):
        kind = kinds[index % len(kinds)] if index < 6 * len(kinds) else rng.choice(kinds)
        made[kind] += 1
        yield kind, makers[kind](made[kind] - 1)


def synthetic_memory(*, group: str, facts: int, seed: int = 4) -> SyntheticMemory:
    """A deterministic memory of `facts` facts over facts/5 entities, with episodes mentioning them and communities."""
    rng = random.Random(seed)
    entity_count = max(12, int(facts * ENTITIES_PER_FACT))
    by_kind: dict[str, list[str]] = {}
    nodes: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for index, (kind, name) in enumerate(_entity_names(rng, entity_count)):
        node_id = f"{group}-e{index}"
        by_kind.setdefault(kind, []).append(node_id)
        names[node_id] = name
        summary = f"{name} is a {kind} in the supply network, often seen around {rng.choice(TOPICS)}"
        nodes.append({"id": node_id, "name": name, "labels": ["Entity"], "summary": summary})
    edges: list[dict[str, Any]] = []
    for index in range(facts):
        relation, subject_kind, object_kind, sentence = FACT_TEMPLATES[index % len(FACT_TEMPLATES)]
        source = rng.choice(by_kind[subject_kind])
        target = rng.choice(by_kind[object_kind])
        while target == source:
            target = rng.choice(by_kind[object_kind])
        words = {"role": rng.choice(ROLES), "topic": rng.choice(TOPICS), "issue": rng.choice(ISSUES)}
        fact = sentence.format(s=names[source], o=names[target], n=rng.randrange(2, 40), **words)
        valid_at = _timestamp(rng)
        edge = {
            "id": f"{group}-f{index}",
            "source": source,
            "target": target,
            "relation": relation,
            "weight": round(rng.uniform(0.25, 1.0), 3),
            "tags": [],
            "fact": fact,
            "valid_at": valid_at,
        }
        if rng.random() < INVALID_SHARE:
            edge["invalid_at"] = max(valid_at, _timestamp(rng))
        edges.append(edge)
    mentions: list[dict[str, str]] = []
    for index in range(0, facts, FACTS_PER_EPISODE):
        told = edges[index : index + 3]
        episode_id = f"{group}-ep{index // FACTS_PER_EPISODE}"
        content = ". ".join(edge["fact"] for edge in told) + "."
        nodes.append(
            {
                "id": episode_id,
                "name": f"message {index // FACTS_PER_EPISODE}",
                "labels": ["Episode"],
                "content": content,
                "valid_at": told[0]["valid_at"],
            }
        )
        for entity in dict.fromkeys(end for edge in told for end in (edge["source"], edge["target"])):
            mentions.append({"episode": episode_id, "entity": entity})
    memberships: list[dict[str, str]] = []
    for index in range(max(1, facts // FACTS_PER_COMMUNITY)):
        topic, place = TOPICS[index % len(TOPICS)], PLACES[index % len(PLACES)]
        community_id = f"{group}-c{index}"
        nodes.append(
            {
                "id": community_id,
                "name": f"{topic} around {place}",
                "labels": ["Community"],
                "summary": f"Entities that deal with {topic} near {place}",
            }
        )
        for entity in rng.sample(range(entity_count), min(20, entity_count)):
            memberships.append({"community": community_id, "entity": f"{group}-e{entity}"})
    queries = tuple(
        text.format(
            person=rng.choice(FIRST_NAMES),
            place=rng.choice(PLACES),
            product=rng.choice(PRODUCTS),
            issue=rng.choice(ISSUES),
            topic=rng.choice(TOPICS),
            org=rng.choice(ORG_STEMS),
        )
        for text in (
            "Who works on {topic} with {person}?",
            "{issue} of {product} in {place}",
            "Which supplier delivers {product}?",
            "delays of shipments from {org}",
            "What did {person} report about the {product}?",
            "safety stock of {product} in {place}",
        )
        for _ in range(20)
    )
    return SyntheticMemory(
        document={"nodes": nodes, "edges": edges, "mentions": mentions, "memberships": memberships},
        queries=queries,
        walk_queries=_walk_queries(rng, names, by_kind, mentions),
    )


def _walk_queries(
    rng: random.Random, names: dict[str, str], by_kind: dict[str, list[str]], mentions: list[dict[str, str]]
) -> tuple[str, ...]:
    """Questions naming a person or organisation that at most the gate's share of the episodes mention."""
    episodes = len({mention["episode"] for mention in mentions})
    counts = Counter(mention["entity"] for mention in mentions)
    rare = [
        node
        for kind in ("person", "org")
        for node in by_kind.get(kind, [])
        if 0 < counts[node] <= recipes.GRAPH_GATE_SHARE * episodes
    ]
    chosen = rng.sample(rare, min(WALK_QUERIES, len(rare)))
    return tuple(f"What do we know about {names[node]} and its suppliers?" for node in chosen)


def bench_group(facts: int) -> str:
    return f"bench-search-{facts}"


def build_memory(*, facts: int, say: Callable[[str], None], embed: bool = True) -> tuple[str, SyntheticMemory]:
    """Write and (unless told not to) embed the synthetic memory unless the group already holds it whole."""
    group = bench_group(facts)
    memory = synthetic_memory(group=group, facts=facts)
    stored = driver.read(COUNT_FACTS, group=group)[0]["c"]
    if stored != facts:
        started = time.perf_counter()
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)
        document = memory.document
        graph_document_import(
            document=parse_graph_document({"nodes": document["nodes"], "edges": []}, group=group), group=group
        )
        for start in range(0, facts, WRITE_CHUNK):
            chunk = {"nodes": [], "edges": document["edges"][start : start + WRITE_CHUNK]}
            graph_document_import(document=parse_graph_document(chunk, group=group), group=group)
            say(f"  facts written: {min(start + WRITE_CHUNK, facts)}/{facts}")
        links = {"nodes": [], "edges": [], "mentions": document["mentions"], "memberships": document["memberships"]}
        graph_document_import(document=parse_graph_document(links, group=group), group=group)
        say(f"wrote group {group} in {time.perf_counter() - started:.1f} s")
    backlog = reindex_backlog(group=group) if embed else 0
    if backlog:
        say(f"embedding {backlog} texts (about {backlog / 300:.0f} s at 300 texts/s)")
        report = group_reindex(group=group)
        say(f"embedded {report.texts} texts in {report.seconds:.1f} s ({report.texts_per_second:.0f}/s)")
    elif embed:
        say(f"reusing group {group} ({facts} facts, every text embedded)")
    return group, memory


@contextmanager
def query_vectors_known(queries: Sequence[str]) -> Iterator[None]:
    """The embedder answers these queries from vectors made beforehand: searches timed inside show what they
    cost when the caller already holds the query's vector."""
    model = embedder()
    original = model.embed_one
    known = {query: original(query) for query in dict.fromkeys(queries)}

    def embed_known(text: str) -> list[float]:
        return known[text] if text in known else original(text)

    model.embed_one = embed_known  # type: ignore[method-assign]
    try:
        yield
    finally:
        model.embed_one = original  # type: ignore[method-assign]


def _timed(queries: list[str], warmup: int, run: Callable[[str], int]) -> dict[str, float]:
    """Latency of `run` per query after the warm-up ones; `run` returns how many hits it found."""
    latencies: list[float] = []
    hits: list[int] = []
    for index, query in enumerate(queries):
        started = time.perf_counter()
        found = run(query)
        if index >= warmup:
            latencies.append(time.perf_counter() - started)
            hits.append(found)
    return {
        "runs": len(latencies),
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "hits": statistics.mean(hits),
    }


def search_benchmark(
    *,
    group: str,
    memory: SyntheticMemory,
    runs: int,
    warmup: int,
    names: tuple[str, ...] = BENCH_RECIPES,
    embedding_threads: int | None = None,
    walking: tuple[str, ...] = (),
) -> dict[str, dict[str, float]]:
    """p50 and p95 per recipe over the same queries (each search embeds its query itself), and of the query
    embedding alone, for scale; the `walking` recipes are timed again over the walk queries (WALKING series).
    """
    model = embedder()  # loading the model is a one-time cost, not a query's
    if embedding_threads:
        model.threads_set(embedding_threads)  # the benchmark owns its process's threads
    queries = [memory.queries[index % len(memory.queries)] for index in range(runs + warmup)]

    def embed_only(query: str) -> int:
        model.embed_one(query)
        return 0

    results = {"query embedding alone": _timed(queries, warmup, embed_only)}
    center = f"{group}-e0"
    for name in names:
        config = recipes.recipe(name, limit=10, center_node_id=center, origin_ids=(center,))
        results[name] = _timed(
            queries, warmup, lambda query, config=config: search(query=query, groups=[group], config=config).size
        )
    walks = memory.walk_queries  # none in a group too small for a rare entity: no walking series then
    for name in walking if walks else ():
        config = recipes.recipe(name, limit=10)
        results[f"{name}{WALKING}"] = _timed(
            [walks[index % len(walks)] for index in range(runs + warmup)],
            warmup,
            lambda query, config=config: search(query=query, groups=[group], config=config).size,
        )
    return results
