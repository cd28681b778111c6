"""The per-retrieval budget on the real graph server: rows and time end a large exploration (activation and PPR)
with `budget_exhausted` and the exact partial result; a normal budget completes as before; limits are validated.

A time limit is tested two ways: a clock that moves one second per reading stands for a slow server, so which
level the budget stops at does not depend on this machine's speed; and a real 1 ms limit, whose partial result
is only checked to be an exact prefix of the full one.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from memoria.accounts.roles import Role
from memoria.errors import InvalidInput
from memoria.ppr.pagerank import personalized_pagerank
from memoria.ppr.request import PprBody, PprRequest, SeedWeight
from memoria.ppr.service import ppr_run
from memoria.projection.cache import projection_cache
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.activation import Seed
from memoria.retrieval.budget import BudgetInput, BudgetLimits, RetrievalBudget, budget_limits
from memoria.retrieval.params import ActivationParams
from memoria.retrieval.reference import ReferenceGraph
from memoria.retrieval.request import ActivationBody
from tests.api.conftest import client_for
from tests.explorer.test_retrieval_socket import connect, token_for_role, until_finished
from tests.projection.graphs import random_memory, store
from tests.retrieval.test_activation import collect, load

__all__ = ["client_for", "token_for_role"]  # fixtures of the API and websocket tests

BRANCHING = 4
DEPTH = 4
PARAMS = ActivationParams(max_depth=DEPTH, min_activation=1e-5, max_branches=3)
ROW_LIMIT = 20  # the full exploration reads 4 + 12 + 36 + 108 candidate rows


class Ticks:
    """A clock one second later at every reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def tree(group: str) -> tuple[str, ReferenceGraph]:
    """A tree of 4 children per node, 4 levels deep, random weights: every branch passes the threshold."""
    rng = random.Random(11)
    nodes, edges, level = ["n0"], [], ["n0"]
    for _ in range(DEPTH):
        below = []
        for parent in level:
            for _ in range(BRANCHING):
                child = f"n{len(nodes)}"
                nodes.append(child)
                below.append(child)
                edges.append((parent, child, round(rng.uniform(0.25, 1.0), 3), []))
        level = below
    return f"{group}-n0", ReferenceGraph(load(group, nodes, edges))


def path_key(path: dict) -> tuple:
    return tuple(path["nodes"]), tuple(hop["transfer_energy"] for hop in path["hops"])


def assert_exact_prefix(paths: list[dict], root: str, reference: ReferenceGraph) -> int:
    """The paths are the full exploration cut after whole levels: the reference run that deep. Returns the depth."""
    depth = max(path["depth"] for path in paths)
    expected = reference.explore(root, 1.0, [], replace(PARAMS, max_depth=depth))
    assert sorted(path_key(p) for p in paths) == sorted((p.nodes, p.energies) for p in expected)
    return depth


def post(client: APIClient, path: str, body: dict):
    return client.post(path, data=json.dumps(body), content_type="application/json")


# Validation


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("fast", "budget: must be a JSON object"),
        ({"max_seconds": 0}, "budget.max_seconds: 0 is outside [0.001, 30]"),
        ({"max_seconds": 31}, "budget.max_seconds: 31 is outside [0.001, 30] (the server's maximum is the upper end)"),
        ({"max_seconds": True}, "budget.max_seconds: must be a number"),
        ({"max_rows": 0}, "budget.max_rows: 0 is outside [1, 1000]"),
        ({"max_rows": 1001}, "budget.max_rows: 1001 is outside [1, 1000]"),
        ({"max_rows": 2.5}, "budget.max_rows: must be a whole number"),
        ({"rows": 5}, "budget: unknown field(s) rows"),
    ],
)
@override_settings(MEMORIA_RETRIEVAL_MAX_SECONDS=30, MEMORIA_RETRIEVAL_MAX_ROWS=1000)
def test_a_budget_stays_within_the_server_maximum(raw: object, problem: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        input_parse(BudgetInput, raw, where="budget")
    assert any(p.startswith(problem) for p in caught.value.problems), caught.value.problems


@override_settings(MEMORIA_RETRIEVAL_MAX_SECONDS=30, MEMORIA_RETRIEVAL_MAX_ROWS=1000)
def test_a_budget_may_lower_either_limit_and_keeps_the_other() -> None:
    ceiling = BudgetLimits(30, 1000)
    assert budget_limits(None) == ceiling
    assert budget_limits(input_parse(BudgetInput, {"max_rows": 10})) == BudgetLimits(30, 10)
    assert budget_limits(input_parse(BudgetInput, {"max_seconds": 2})) == BudgetLimits(2.0, 1000)


@override_settings(MEMORIA_RETRIEVAL_MAX_ROWS=100, MEMORIA_PPR_MAX_ROWS=500, MEMORIA_RETRIEVAL_MAX_SECONDS=5)
def test_requests_read_their_budget_against_the_current_settings() -> None:
    base = {"group": "g", "seeds": [{"id": "a", "score": 1}]}
    assert input_parse(ActivationBody, {**base, "budget": {"max_rows": 100}}).request().budget == BudgetLimits(5.0, 100)
    assert input_parse(PprBody, {"group": "g", "budget": {"max_rows": 500}}).request().budget == BudgetLimits(5.0, 500)
    with pytest.raises(InvalidInput, match=r"budget.max_rows: 101 is outside \[1, 100\]"):
        input_parse(ActivationBody, {**base, "budget": {"max_rows": 101}})
    with pytest.raises(InvalidInput, match=r"budget.max_seconds: 6 is outside \[0.001, 5\]"):
        input_parse(PprBody, {"group": "g", "budget": {"max_seconds": 6}}).request()


# Activation, in the engine


async def test_a_row_budget_stops_after_whole_levels_with_their_exact_paths(group: str, tree) -> None:
    root, reference = tree
    budget = RetrievalBudget(BudgetLimits(30, ROW_LIMIT))
    events = await collect(group=group, seeds=[Seed(root, 1.0)], params=PARAMS, budget=budget)
    finished, seed = events[-1], next(e for e in events if e["type"] == "seed_finished")
    assert finished["status"] == seed["status"] == "budget_exhausted"
    assert finished["budget"]["exhausted"] == "rows" and finished["budget"]["max_rows"] == ROW_LIMIT
    # A level is read only when its parents' degrees fit in what is left: the limit is never passed.
    assert 0 < finished["budget"]["rows_read"] <= ROW_LIMIT
    assert finished["budget"]["rows_read"] == seed["candidates"]
    depth = assert_exact_prefix(seed["paths"], root, reference)
    assert 1 <= depth < DEPTH
    assert {path["end_reason"] for path in seed["paths"]} == {"budget_exhausted"}
    assert sum(e["type"] == "level_expanded" for e in events) == depth


async def test_a_time_budget_stops_a_slow_exploration_with_its_exact_paths(group: str, tree) -> None:
    root, reference = tree
    budget = RetrievalBudget(BudgetLimits(10, 10**6), clock=Ticks())
    events = await collect(group=group, seeds=[Seed(root, 1.0)], params=PARAMS, budget=budget)
    finished, seed = events[-1], next(e for e in events if e["type"] == "seed_finished")
    assert finished["status"] == seed["status"] == "budget_exhausted"
    assert finished["budget"]["exhausted"] == "time" and finished["budget"]["rows_read"] < 160
    depth = assert_exact_prefix(seed["paths"], root, reference)
    assert 1 <= depth < DEPTH


async def test_the_budget_is_shared_by_the_seeds_of_a_retrieval(group: str, tree) -> None:
    root, _ = tree
    others = [f"{group}-n{index}" for index in (1, 2, 3)]  # the root's children: each explores its own subtree
    budget = RetrievalBudget(BudgetLimits(30, ROW_LIMIT))
    seeds = [Seed(root, 1.0), *(Seed(node, 0.5) for node in others)]
    events = await collect(group=group, seeds=seeds, params=PARAMS, budget=budget)
    finished = events[-1]
    assert finished["status"] == "budget_exhausted" and "budget_exhausted" in finished["seeds"].values()
    # Seeds read concurrently, each claiming its level's rows first: together they stay within the limit.
    assert finished["budget"]["rows_read"] == finished["candidates"] <= ROW_LIMIT


# Activation over REST and the websocket


def test_a_normal_budget_completes_as_before(client_for, group: str, tree) -> None:
    root, reference = tree
    body = {"group": group, "seeds": [{"id": root, "score": 1.0}], "params": PARAMS.as_dict()}
    answer = post(client_for("viewer", [group]), "/api/retrieval/activation", body)
    assert answer.status_code == 200, answer.content
    stats, seed = answer.json()["stats"], answer.json()["seeds"][0]
    assert stats["status"] == seed["status"] == "completed"
    assert stats["budget"]["exhausted"] is None and stats["budget"]["max_rows"] == 200_000
    assert stats["budget"]["rows_read"] == stats["candidates"] == 4 + 12 + 36 + 108
    expected = reference.explore(root, 1.0, [], PARAMS)
    assert sorted(path_key(p) for p in seed["paths"]) == sorted((p.nodes, p.energies) for p in expected)


def test_rest_answers_200_with_the_partial_paths_and_which_limit(client_for, group: str, tree) -> None:
    root, reference = tree
    client = client_for("viewer", [group])
    body = {"group": group, "seeds": [{"id": root, "score": 1.0}], "params": PARAMS.as_dict()}
    rows = post(client, "/api/retrieval/activation", {**body, "budget": {"max_rows": ROW_LIMIT}})
    assert rows.status_code == 200, rows.content
    stats, seed = rows.json()["stats"], rows.json()["seeds"][0]
    assert stats["status"] == seed["status"] == "budget_exhausted"
    assert stats["budget"]["exhausted"] == "rows" and stats["budget"]["max_rows"] == ROW_LIMIT
    assert 1 <= assert_exact_prefix(seed["paths"], root, reference) < DEPTH

    timed = post(client, "/api/retrieval/activation", {**body, "budget": {"max_seconds": 0.001}})
    assert timed.status_code == 200, timed.content
    stats, seed = timed.json()["stats"], timed.json()["seeds"][0]
    assert stats["status"] == seed["status"] == "budget_exhausted" and stats["budget"]["exhausted"] == "time"
    if seed["paths"]:  # whatever 1 ms allowed: whole levels, exactly
        assert assert_exact_prefix(seed["paths"], root, reference) < DEPTH


def test_rest_refuses_a_budget_above_the_server_maximum(client_for, group: str) -> None:
    body = {"group": group, "seeds": [{"id": f"{group}-x", "score": 1.0}], "budget": {"max_seconds": 31}}
    answer = post(client_for("viewer", [group]), "/api/retrieval/activation", body)
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        "budget.max_seconds: 31 is outside [0.001, 30] (the server's maximum is the upper end)"
    ]


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_ends_with_budget_exhausted(daphne_url: str, group: str, tree, token_for_role) -> None:
    root, _ = tree
    token = await token_for_role("agent", Role.VIEWER, [group])
    message = {
        "type": "retrieve",
        "retrieval_id": "b-1",
        "group": group,
        "seeds": [{"id": root, "score": 1.0}],
        "params": PARAMS.as_dict(),
        "budget": {"max_rows": ROW_LIMIT},
    }
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(message))
        events = await until_finished(socket, "b-1")
    assert events[0]["type"] == "retrieval_started" and events[0]["budget"]["max_rows"] == ROW_LIMIT
    last = events[-1]
    assert last["type"] == "retrieval_finished" and last["status"] == "budget_exhausted"
    assert last["budget"]["exhausted"] == "rows"
    ends = {e["path"]["end_reason"] for e in events if e["type"] == "path_completed"}
    assert ends == {"budget_exhausted"}


# PPR


@pytest.fixture
def memory(group: str):
    store(group, random_memory(group, entities=60, episodes=6, facts=240, seed=8))
    yield group
    projection_cache().forget(group)


def partial_solve(group: str, seed_id: str, iterations: int) -> dict[str, float]:
    """The solver itself stopped after `iterations`: what a stopped solve's scores must be."""
    projection, _ = projection_cache().get(group, wait=60)
    walk = projection.walk(directed=False, mentions=True)
    result = personalized_pagerank(walk, {projection.position(seed_id): 1.0}, max_iterations=iterations)
    return {node_id: float(result.scores[projection.position(node_id)]) for node_id in projection.ids}


def test_ppr_row_budget_answers_the_iterate_it_stopped_at(memory: str) -> None:
    seed_id = f"{memory}-e1"
    request = PprRequest(memory, seeds=(SeedWeight(seed_id),), top_k=10, budget=BudgetLimits(30, 1))
    answer = ppr_run(request, wait=60).as_dict()
    assert answer["status"] == "budget_exhausted" and answer["budget"]["exhausted"] == "rows"
    assert answer["iterations"] == 1 and answer["converged"] is False
    assert answer["budget"]["rows_read"] > 1  # one whole multiply: every transition of the walk
    expected = partial_solve(memory, seed_id, 1)
    assert len(answer["scores"]) == 10
    for node in answer["scores"]:
        assert node["score"] == pytest.approx(expected[node["id"]], rel=1e-9, abs=1e-15)


def test_ppr_time_budget_stops_a_slow_solve(memory: str) -> None:
    seed_id = f"{memory}-e1"
    full = ppr_run(PprRequest(memory, seeds=(SeedWeight(seed_id),), top_k=10), wait=60)
    assert full.status == "completed" and full.result.converged and full.budget["exhausted"] is None
    budget = RetrievalBudget(BudgetLimits(4, 10**9), clock=Ticks())
    answer = ppr_run(PprRequest(memory, seeds=(SeedWeight(seed_id),), top_k=10), wait=60, budget=budget)
    assert answer.status == "budget_exhausted" and answer.budget["exhausted"] == "time"
    assert 1 <= answer.result.iterations < full.result.iterations and not answer.result.converged
    expected = partial_solve(memory, seed_id, answer.result.iterations)
    for node in answer.scores:
        assert node.score == pytest.approx(expected[node.id], rel=1e-9, abs=1e-15)


def test_ppr_over_rest_reports_the_budget(client_for, memory: str) -> None:
    client = client_for("viewer", [memory])
    body = {"group": memory, "seeds": [{"id": f"{memory}-e1"}], "top_k": 5}
    normal = post(client, "/api/retrieval/ppr", body)
    assert normal.status_code == 200, normal.content
    assert normal.json()["status"] == "completed" and normal.json()["converged"] is True
    assert normal.json()["budget"]["max_rows"] == 50_000_000 and normal.json()["budget"]["exhausted"] is None
    cut = post(client, "/api/retrieval/ppr", {**body, "budget": {"max_rows": 1}})
    assert cut.status_code == 200, cut.content
    assert cut.json()["status"] == "budget_exhausted" and cut.json()["budget"]["exhausted"] == "rows"
    assert cut.json()["iterations"] == 1 and len(cut.json()["scores"]) == 5


@pytest.mark.django_db(transaction=True)
async def test_ppr_on_the_websocket_ends_with_budget_exhausted(daphne_url: str, memory: str, token_for_role) -> None:
    token = await token_for_role("agent", Role.VIEWER, [memory])
    message = {
        "type": "retrieve",
        "algorithm": "ppr",
        "retrieval_id": "pb-1",
        "group": memory,
        "seeds": [{"id": f"{memory}-e1"}],
        "budget": {"max_rows": 1},
    }
    async with connect(daphne_url, "/ws/retrievals/", token) as socket:
        await socket.send(json.dumps(message))
        events = await asyncio.wait_for(until_finished(socket, "pb-1"), 120)
    kinds = [event["type"] for event in events]
    assert kinds[-2:] == ["ppr_finished", "retrieval_finished"], events[-1]
    assert events[0]["budget"] == {"max_seconds": 30.0, "max_rows": 1}
    assert events[-2]["status"] == events[-1]["status"] == "budget_exhausted"
    assert events[-1]["budget"]["exhausted"] == "rows" and events[-1]["iterations"] == 1
