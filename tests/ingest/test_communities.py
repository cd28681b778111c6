"""Communities on the real server: clusters found, builds replace atomically with stable ids, updates never race."""

from __future__ import annotations

import io
import itertools
import random
import threading
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from memoria.embeddings import embedder
from memoria.graph import driver, kinds
from memoria.ingest import communities
from memoria.ingest.communities import (
    Links,
    communities_build,
    communities_update,
    community_id,
    community_text,
    label_propagation,
)
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.llm.client import ChatClient, LlmSettings
from tests.llm.fake_openai import FakeOpenAI, Reply, chat_reply, fake_openai

SUPPLY = {
    "lyon": ("Lyon warehouse", "The Lyon warehouse stores summer stock. It ships to the south."),
    "sku": ("SKU-42", "SKU-42 is a garden chair."),
    "stockout": ("Stockout", ""),
    "nordbalt": ("Nordbalt Metals", "Nordbalt Metals supplies steel frames."),
}
FAMILY = {
    "caroline": ("Caroline", "Caroline paints landscapes."),
    "anna": ("Anna", "Anna is Caroline's sister."),
    "painting": ("Painting", ""),
    "melanie": ("Melanie", "Melanie runs a support group."),
}
COMMUNITIES = f"""
MATCH (c:{kinds.COMMUNITY} {{group_id: $group}})
OPTIONAL MATCH (c)-[:{kinds.HAS_MEMBER}]->(m)
WITH c, collect(m.id) AS members
RETURN c.id AS id, c.name AS name, c.summary AS summary, c.name_embedding AS vector, labels(c) AS labels,
       c.revision AS revision, members
ORDER BY id
"""
SET_SUMMARY = "MATCH (n:Memory {id: $id}) SET n.summary = $summary"


def ids(group: str, keys: object) -> set[str]:
    return {f"{group}-{key}" for key in keys}


def edge(group: str, source: str, target: str, relation: str, tags: list[str]) -> dict:
    return {
        "source": f"{group}-{source}",
        "target": f"{group}-{target}",
        "relation": relation,
        "weight": 0.8,
        "tags": tags,
        "fact": f"{source} {relation} {target}",
    }


def add_memory(group: str, nodes: dict[str, tuple[str, str]], edges: list[dict]) -> None:
    document = {
        "nodes": [{"id": f"{group}-{key}", "name": name, "summary": summary} for key, (name, summary) in nodes.items()],
        "edges": edges,
    }
    graph_document_import(document=parse_graph_document(document, group=group), group=group)


def clique(group: str, keys: list[str], tags: list[str]) -> list[dict]:
    return [edge(group, a, b, "relates_to", tags) for a, b in itertools.combinations(keys, 2)]


@pytest.fixture
def memory(group: str) -> str:
    """Two clear clusters joined by one fact, and one entity with no facts."""
    edges = [
        *clique(group, list(SUPPLY), ["supply", "stock"]),
        edge(group, "sku", "stockout", "suffers", ["stock"]),  # a second fact between one pair
        *clique(group, list(FAMILY), ["family"]),
        edge(group, "nordbalt", "caroline", "employs", ["work"]),
    ]
    add_memory(group, {**SUPPLY, **FAMILY, "lonely": ("Lonely island", "")}, edges)
    return group


@pytest.fixture(scope="module")
def embed_names() -> Iterator[communities.EmbedNames]:
    yield embedder().embed


def stored(group: str) -> list[dict]:
    return driver.read(COMMUNITIES, group=group)


def memberships(group: str) -> set[frozenset[str]]:
    return {frozenset(row["members"]) for row in stored(group)}


def test_two_clear_clusters_are_found(memory: str) -> None:
    report = communities_build(group=memory)
    assert memberships(memory) == {frozenset(ids(memory, SUPPLY)), frozenset(ids(memory, FAMILY))}
    assert (report.clustered_entities, report.unclustered_entities, report.removed) == (8, 1, 0)
    assert report.summaries == "extractive" and report.iterations <= communities.MAX_ITERATIONS
    assert sorted(c.members for c in report.communities) == [4, 4]
    by_members = {frozenset(row["members"]): row for row in stored(memory)}
    supply = by_members[frozenset(ids(memory, SUPPLY))]
    assert set(supply["labels"]) == {kinds.MEMORY_LABEL, kinds.COMMUNITY}
    # The most connected member first (SKU-42 has the extra fact), then by name; topics from the facts' tags.
    assert supply["name"] == "SKU-42, Stockout, Lyon warehouse and 1 more"
    assert supply["summary"] == (
        "SKU-42: SKU-42 is a garden chair; Stockout; Lyon warehouse: The Lyon warehouse stores summer stock; "
        "Nordbalt Metals: Nordbalt Metals supplies steel frames. Frequent topics: stock, supply."
    )
    assert len(supply["vector"]) == 384


def test_the_build_is_deterministic(memory: str) -> None:
    first = communities_build(group=memory)
    before = [(row["id"], row["name"], row["summary"], row["members"]) for row in stored(memory)]
    second = communities_build(group=memory)
    assert [(row["id"], row["name"], row["summary"], row["members"]) for row in stored(memory)] == before
    assert first.communities == second.communities and second.removed == 2


def test_label_propagation_does_not_depend_on_input_order() -> None:
    nodes = [f"n{index:02d}" for index in range(30)]
    rng = random.Random(7)
    weights = {tuple(sorted(rng.sample(nodes, 2))): rng.randint(1, 3) for _ in range(60)}
    expected = label_propagation(nodes, weights)
    for seed in range(5):
        shuffled_nodes = random.Random(seed).sample(nodes, len(nodes))
        shuffled_weights = dict(random.Random(seed).sample(list(weights.items()), len(weights)))
        assert label_propagation(shuffled_nodes, shuffled_weights) == expected


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ({("x", "y"): 2}, {"x": "x", "y": "x"}),  # two nodes with several facts would swap labels forever
        ({("x", "y"): 1}, {"x": "x", "y": "x"}),
        ({("a", "b"): 1, ("b", "c"): 1, ("c", "d"): 1}, dict.fromkeys("abcd", "a")),  # a chain settles
        ({("a", "b"): 1}, {"a": "a", "b": "a", "z": "z"}),  # a node without facts keeps its own label
    ],
)
def test_label_propagation_settles(weights: dict, expected: dict) -> None:
    labels, sweeps = label_propagation(expected, weights)
    assert labels == expected and sweeps < communities.MAX_ITERATIONS


def test_label_propagation_finds_planted_clusters() -> None:
    """Four clusters of ten, facts inside a cluster 35 times likelier than across: found in most graphs, never stuck."""
    exact = 0
    for seed in range(10):
        rng = random.Random(seed)
        truth = {f"e{rng.getrandbits(48):012x}": index // 10 for index in range(40)}
        weights = {
            (a, b): rng.randint(1, 3)
            for a, b in itertools.combinations(sorted(truth), 2)
            if rng.random() < (0.7 if truth[a] == truth[b] else 0.02)
        }
        labels, sweeps = label_propagation(truth, weights)
        found = {frozenset(node for node in truth if labels[node] == label) for label in set(labels.values())}
        exact += found == {frozenset(node for node in truth if truth[node] == index) for index in range(4)}
        assert sweeps < communities.MAX_ITERATIONS
    assert exact >= 7


def test_label_propagation_is_bounded() -> None:
    labels, sweeps = label_propagation("abcd", {("a", "b"): 1, ("b", "c"): 1, ("c", "d"): 1}, max_iterations=1)
    assert sweeps == 1 and labels != dict.fromkeys("abcd", "a")


def test_a_rebuild_replaces_the_old_communities_and_ids_follow_memberships(memory: str) -> None:
    communities_build(group=memory)
    old = {row["id"]: frozenset(row["members"]) for row in stored(memory)}
    assert all(cid == community_id(group=memory, members=members) for cid, members in old.items())
    # Melanie moves to the supply side: the family community changes, so it gets a new id; the other one too.
    driver.write(
        "MATCH (a:Memory {id: $a})-[r:RELATES]-(b:Memory) WHERE b.id IN $family DELETE r",
        a=f"{memory}-melanie",
        family=sorted(ids(memory, FAMILY)),
    )
    add_memory(memory, {}, [edge(memory, "melanie", key, "orders_from", ["supply"]) for key in SUPPLY])
    report = communities_build(group=memory)
    new = {row["id"]: frozenset(row["members"]) for row in stored(memory)}
    assert set(new.values()) == {
        frozenset(ids(memory, [*SUPPLY, "melanie"])),
        frozenset(ids(memory, FAMILY) - ids(memory, ["melanie"])),
    }
    assert not set(new) & set(old) and report.removed == 2
    assert (
        driver.read(f"MATCH (c:{kinds.COMMUNITY}) WHERE c.id IN $old RETURN count(c) AS n", old=list(old))[0]["n"] == 0
    )


def test_a_failed_rebuild_leaves_the_old_communities(memory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    communities_build(group=memory)
    before = stored(memory)
    monkeypatch.setattr(communities, "MERGE_MEMBERS", "UNWIND $rows AS row RETURN row.missing.property + 1 / 0")
    with pytest.raises(Exception):  # noqa: B017 - whatever the server says, the transaction must roll back
        communities_build(group=memory)
    assert stored(memory) == before


def test_every_member_has_one_has_member_edge(memory: str) -> None:
    report = communities_build(group=memory)
    rows = driver.read(
        f"MATCH (c:{kinds.COMMUNITY} {{group_id: $group}})-[m:{kinds.HAS_MEMBER}]->(n:{kinds.ENTITY}) "
        "RETURN n.id AS entity, count(m) AS edges",
        group=memory,
    )
    assert {row["entity"] for row in rows} == ids(memory, [*SUPPLY, *FAMILY])
    assert {row["edges"] for row in rows} == {1}
    assert len(rows) == report.clustered_entities


def counting(embed: communities.EmbedNames, calls: list[list[str]]) -> communities.EmbedNames:
    def wrapped(names: list[str]) -> list[list[float]]:
        calls.append(list(names))
        return embed(names)

    return wrapped


def test_an_update_touching_two_members_refreshes_their_community_once(
    memory: str, embed_names: communities.EmbedNames
) -> None:
    communities_build(group=memory)
    supply_id = community_id(group=memory, members=ids(memory, SUPPLY))
    driver.write(SET_SUMMARY, id=f"{memory}-stockout", summary="Stockouts hit Lyon in July.")
    driver.write(SET_SUMMARY, id=f"{memory}-sku", summary="SKU-42 is sold out.")
    calls: list[list[str]] = []
    report = communities_update(
        group=memory,
        touched_entity_ids=[f"{memory}-sku", f"{memory}-stockout"],
        embed_names=counting(embed_names, calls),
    )
    assert (report.updated, report.attached, report.unplaced, report.retries) == ((supply_id,), (), (), 0)
    assert len(calls) == 1  # one refresh: one summary, one name embedded
    [row] = [row for row in stored(memory) if row["id"] == supply_id]
    assert "Stockout: Stockouts hit Lyon in July" in row["summary"] and "SKU-42: SKU-42 is sold out" in row["summary"]


def scripted_summaries(request: dict) -> Reply:
    """A model that joins two summaries with ' + ' and names every community 'Supply chain'."""
    name = request["response_format"]["json_schema"]["name"]
    text = request["messages"][-1]["content"]
    if name == "community_name":
        return chat_reply({"name": "  Supply   chain "})
    first, second = (part.split("\n</SUMMARY>")[0] for part in text.split("<SUMMARY>\n")[1:])
    return chat_reply({"summary": f"{first} + {second}"})


@pytest.fixture
def summarising_llm() -> Iterator[tuple[FakeOpenAI, ChatClient]]:
    with fake_openai() as server:
        server.respond = scripted_summaries
        yield server, ChatClient(LlmSettings(url=server.url, model="test-model", timeout=5.0), backoff_seconds=0.01)


def test_llm_summaries_reduce_member_summaries_pairwise(
    memory: str, summarising_llm: tuple[FakeOpenAI, ChatClient], embed_names: communities.EmbedNames
) -> None:
    server, client = summarising_llm
    report = communities_build(group=memory, llm=client, embed_names=embed_names)
    assert report.summaries == "llm"
    # Four members: two pair calls, one for the two merged summaries, one name; per community.
    assert server.schema_names().count("community_summary") == 6
    assert server.schema_names().count("community_name") == 2
    supply = next(row for row in stored(memory) if frozenset(row["members"]) == ids(memory, SUPPLY))
    assert supply["name"] == "Supply chain"
    assert supply["summary"] == (
        "SKU-42: SKU-42 is a garden chair. + Stockout + Lyon warehouse: The Lyon warehouse stores summer stock. "
        "It ships to the south. + Nordbalt Metals: Nordbalt Metals supplies steel frames."
    )
    server.requests.clear()
    communities_update(
        group=memory, touched_entity_ids=[f"{memory}-sku", f"{memory}-lyon"], llm=client, embed_names=embed_names
    )
    assert len(server.requests) == 4  # the community was summarised once, not once per touched member


def test_a_new_entity_joins_the_community_most_of_its_facts_lead_to(
    memory: str, embed_names: communities.EmbedNames
) -> None:
    communities_build(group=memory)
    add_memory(
        memory,
        {"truck": ("Delivery truck", "A truck for Lyon."), "nowhere": ("Nowhere", "")},
        [
            edge(memory, "truck", "lyon", "serves", ["delivery"]),
            edge(memory, "truck", "sku", "carries", ["delivery"]),
            edge(memory, "truck", "anna", "driven_by", ["work"]),
        ],
    )
    report = communities_update(
        group=memory,
        touched_entity_ids=[f"{memory}-truck", f"{memory}-nowhere", "not-an-entity"],
        embed_names=embed_names,
    )
    supply_id = community_id(group=memory, members=ids(memory, SUPPLY))
    assert report.updated == (supply_id,) and report.attached == (f"{memory}-truck",)
    assert report.unplaced == ("not-an-entity", f"{memory}-nowhere")
    [row] = [row for row in stored(memory) if row["id"] == supply_id]
    assert set(row["members"]) == ids(memory, [*SUPPLY, "truck"])
    assert "Delivery truck" in row["summary"] and "delivery" in row["summary"]


def current_text(group: str, community: str) -> communities.CommunityText:
    """What a community's name and summary should be, computed from scratch from its members now."""
    members = next(row["members"] for row in stored(group) if row["id"] == community)
    rows = driver.read(communities.MEMBERS, ids=members, group=group, entity=kinds.ENTITY)
    degrees, tags = Links.from_rows(driver.read(communities.MEMBER_LINKS, ids=members, group=group)).among(members)
    return community_text(communities._members_with_degrees(rows, degrees), tags, None)


def test_concurrent_updates_of_one_community_both_land(memory: str, embed_names: communities.EmbedNames) -> None:
    communities_build(group=memory)
    supply_id = community_id(group=memory, members=ids(memory, SUPPLY))
    add_memory(
        memory,
        {"truck": ("Delivery truck", ""), "forklift": ("Forklift", "")},
        [
            edge(memory, "truck", "lyon", "serves", ["delivery"]),
            edge(memory, "forklift", "lyon", "lifts", ["handling"]),
        ],
    )
    # Both updaters read the community before either commits: the race of Graphiti's phase 8.
    barrier = threading.Barrier(2)
    waited = threading.local()

    def embed_after_both_read(names: list[str]) -> list[list[float]]:
        if not getattr(waited, "done", False):
            waited.done = True
            barrier.wait(timeout=60)
        return embed_names(names)

    reports, errors = [], []

    def update(entity: str) -> None:
        try:
            reports.append(
                communities_update(group=memory, touched_entity_ids=[entity], embed_names=embed_after_both_read)
            )
        except Exception as error:  # reported below, so a failure names itself
            errors.append(error)

    threads = [threading.Thread(target=update, args=(f"{memory}-{key}",)) for key in ("truck", "forklift")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert sorted(report.updated for report in reports) == [(supply_id,), (supply_id,)]
    [row] = [row for row in stored(memory) if row["id"] == supply_id]
    assert set(row["members"]) == ids(memory, [*SUPPLY, "truck", "forklift"])  # no lost member
    expected = current_text(memory, supply_id)
    assert (row["name"], row["summary"]) == (expected.name, expected.summary)  # no stale summary
    assert "and 1 more" in row["summary"]
    assert sum(report.retries for report in reports) >= 1  # one of them found its view stale and recomputed


def test_the_command_builds_a_groups_communities(memory: str) -> None:
    out = io.StringIO()
    call_command("build_communities", "--group", memory, stdout=out)
    assert f"group {memory}: 2 communities of 8 entities" in out.getvalue()
    assert len(stored(memory)) == 2


def test_the_command_refuses_a_bad_group_name(db: None) -> None:
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        call_command("build_communities", "--group", "no spaces please")
