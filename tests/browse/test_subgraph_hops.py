"""The subgraph around seeds (seed 001): the seeds and their neighbours up to k facts away, either direction,
through the facts the filter passes, with the facts among them; bounded, strongest-linked first."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.browse.filters import EdgeFilter
from memoria.browse.neighbourhood import subgraph
from memoria.browse.selectors import MAX_CARDS
from tests.browse.graphs import entity, fact, load

LEAVES = MAX_CARDS + 10


@pytest.fixture
def chain(group: str) -> dict[str, str]:
    """a → b ← c → d → e (weights 0.9, 0.5, 0.8, 0.7; d → e TEMPORAL, the rest CAUSALITY) and a lone x."""
    ids = {name: f"{group}/{name}" for name in "abcdex"}
    load(
        group,
        nodes=[entity(node_id, name.upper()) for name, node_id in ids.items()],
        edges=[
            fact(ids["a"], ids["b"], 0.9, category="CAUSALITY"),
            fact(ids["c"], ids["b"], 0.5, category="CAUSALITY"),
            fact(ids["c"], ids["d"], 0.8, category="CAUSALITY"),
            fact(ids["d"], ids["e"], 0.7, category="TEMPORAL"),
        ],
    )
    return ids


def names(found) -> list[str]:
    return sorted(node.name for node in found.nodes)


def test_each_hop_adds_the_next_ring_in_either_direction(group: str, chain: dict[str, str]) -> None:
    seeds = [chain["a"]]
    assert [names(subgraph(group=group, ids=seeds, hops=hops)) for hops in range(4)] == [
        ["A"],
        ["A", "B"],
        ["A", "B", "C"],
        ["A", "B", "C", "D"],
    ]
    around = subgraph(group=group, ids=seeds, hops=3)
    assert sorted(edge.weight for edge in around.edges) == [0.5, 0.8, 0.9]  # every fact among them, and no other
    assert not around.truncated and around.as_dict()["truncated"] is False
    two_seeds = subgraph(group=group, ids=[chain["a"], chain["e"]], hops=1)
    assert names(two_seeds) == ["A", "B", "D", "E"]


def test_the_filter_decides_which_facts_are_walked(group: str, chain: dict[str, str]) -> None:
    strong = subgraph(group=group, ids=[chain["a"]], hops=3, edge_filter=EdgeFilter(min_weight=0.6))
    assert names(strong) == ["A", "B"]  # c → b weighs 0.5: the walk stops at b
    causal = subgraph(group=group, ids=[chain["c"]], hops=2, edge_filter=EdgeFilter(categories=("CAUSALITY",)))
    assert names(causal) == ["A", "B", "C", "D"]  # d → e is TEMPORAL


def test_a_hub_is_cut_at_the_card_limit_keeping_the_strongest(group: str) -> None:
    hub = f"{group}/hub"
    leaves = [f"{group}/leaf{i}" for i in range(LEAVES)]
    weights = {leaf: 0.25 + 0.75 * i / LEAVES for i, leaf in enumerate(leaves)}
    load(
        group,
        nodes=[entity(hub, "hub"), *(entity(leaf) for leaf in leaves)],
        edges=[fact(hub, leaf, weight) for leaf, weight in weights.items()],
    )
    found = subgraph(group=group, ids=[hub], hops=2)
    assert found.truncated and len(found.nodes) == MAX_CARDS
    kept = {node.id for node in found.nodes} - {hub}
    assert kept == set(sorted(leaves, key=weights.get, reverse=True)[: MAX_CARDS - 1])


@pytest.mark.django_db
def test_the_api_takes_hops_and_refuses_a_bad_one(group: str, chain: dict[str, str]) -> None:
    client = APIClient()
    user = user_grant(username="hops-viewer", role=Role.VIEWER, groups=[group])
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user=user)}")
    url = f"/api/groups/{group}/subgraph"
    answer = client.get(url, {"ids": chain["e"], "hops": "2"})
    assert answer.status_code == 200, answer.content
    assert sorted(node["name"] for node in answer.json()["nodes"]) == ["C", "D", "E"]
    assert {edge["weight"] for edge in answer.json()["edges"]} == {0.8, 0.7}
    assert answer.json()["truncated"] is False
    refused = client.get(url, {"ids": "", "hops": "4"})
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        "hops: '4' is not a whole number in [0, 3]",
        f"ids: give 1–{MAX_CARDS} comma-separated node ids",
    ]
