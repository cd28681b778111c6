"""The graph view's REST reads in-process: shapes, paging, paths, ids with '/', precise 400s, 404s and 401."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from memoria.graph import driver
from tests.browse.graphs import entity, fact, load, small_memory


@pytest.fixture
def memory(group: str) -> dict[str, str]:
    return small_memory(group)


def node_url(group: str, node_id: str, tail: str = "") -> str:
    return f"/api/groups/{group}/nodes/{quote(node_id, safe='')}{tail}"


def test_a_viewer_reads_a_node_and_its_neighbourhood(client_for, group: str, memory: dict) -> None:
    client = client_for("viewer", [group])
    detail = client.get(node_url(group, memory["req"]))
    assert detail.status_code == 200, detail.content
    body = detail.json()
    assert (body["id"], body["kind"], body["labels"], body["community"]) == (
        memory["req"],
        "Entity",
        ["UserRequest"],
        memory["com"],
    )
    assert body["summary"] == "A planner wants a forecast." and body["degree"] == 3

    page = client.get(node_url(group, memory["hub"], "/neighbours"), {"limit": 2}).json()
    assert (page["links"], page["total"], page["more"]) == (2, 7, 5)
    assert [node["id"] for node in page["nodes"]] == [memory["leaf6"], memory["leaf5"]]
    edge = page["edges"][0]
    assert {
        "id",
        "kind",
        "source",
        "target",
        "relation",
        "weight",
        "tags",
        "valid_at",
        "invalid_at",
        "episodes",
    } <= set(edge)
    rest = client.get(node_url(group, memory["hub"], "/neighbours"), {"limit": 200, "offset": 2}).json()
    assert rest["links"] == 5 and rest["more"] == 0

    around = client.get(
        node_url(group, memory["req"], "/neighbours"), {"links": "relates,mentions", "valid_at": "2025-05-01T00:00:00Z"}
    ).json()
    assert {e["relation"] for e in around["edges"] if e["kind"] == "RELATES"} == {"uses_data", "answers"}
    assert {e["source"] for e in around["edges"] if e["kind"] == "MENTIONS"} == {memory["ep1"], memory["ep2"]}


def test_cards_and_subgraph(client_for, group: str, memory: dict) -> None:
    client = client_for("viewer", [group])
    cards = client.get(f"/api/groups/{group}/nodes", {"ids": f"{memory['ds']},nowhere,{memory['ev']}"}).json()
    assert [card["id"] for card in cards["nodes"]] == [memory["ds"], memory["ev"]]
    assert cards["missing"] == ["nowhere"]
    ids = ",".join(memory[name] for name in ("req", "ds", "ev"))
    found = client.get(  # with history: the invalidated fact is listed, marked (without, it does not count now)
        f"/api/groups/{group}/subgraph", {"ids": ids, "categories": "CAUSALITY,TEMPORAL", "include_invalidated": "true"}
    ).json()
    assert {edge["relation"] for edge in found["edges"]} == {"uses_data", "delays"}
    invalidated = next(edge for edge in found["edges"] if edge["relation"] == "delays")
    assert invalidated["invalidated"] is True


def test_paths_shortest_and_strongest(client_for, group: str) -> None:
    ids = {name: f"{group}-{name}" for name in "ABCDE"}
    load(
        group,
        nodes=[entity(node_id, name) for name, node_id in ids.items()],
        edges=[
            fact(ids["A"], ids["B"], 0.3, fact="A and B"),
            fact(ids["B"], ids["D"], 0.3),
            fact(ids["A"], ids["C"], 0.9),
            fact(ids["C"], ids["E"], 0.9),
            fact(ids["E"], ids["D"], 0.9),
        ],
    )
    client = client_for("viewer", [group])
    url = f"/api/groups/{group}/paths"
    short = client.get(url, {"from": ids["A"], "to": ids["D"]}).json()
    assert short["found"] and short["mode"] == "shortest" and short["hops"] == 2
    assert [node["name"] for node in short["nodes"]] == ["A", "B", "D"]
    assert short["edges"][0]["fact"] == "A and B" and short["strength"] == pytest.approx(0.09)
    strong = client.get(url, {"from": ids["A"], "to": ids["D"], "mode": "strongest"}).json()
    assert [node["name"] for node in strong["nodes"]] == ["A", "C", "E", "D"]
    assert [edge["weight"] for edge in strong["edges"]] == [0.9, 0.9, 0.9]
    bounded = client.get(url, {"from": ids["A"], "to": ids["D"], "mode": "strongest", "max_hops": 2}).json()
    assert [node["name"] for node in bounded["nodes"]] == ["A", "B", "D"]
    none = client.get(url, {"from": ids["A"], "to": ids["D"], "max_hops": 1}).json()
    assert (none["found"], none["cut"], none["nodes"], none["edges"]) == (False, "max_hops", [], [])


def test_bad_parameters_are_named(client_for, group: str, memory: dict) -> None:
    client = client_for("viewer", [group])
    bad = client.get(
        node_url(group, memory["req"], "/neighbours"),
        {"links": "KNOWS", "limit": "500", "min_weight": "2", "categories": "FUN", "valid_at": "soon", "x": "1"},
    )
    assert bad.status_code == 400
    problems = " ".join(bad.json()["errors"])
    for name in ("links", "limit", "min_weight", "categories", "valid_at", "unknown parameter(s): x"):
        assert name in problems
    path = client.get(f"/api/groups/{group}/paths", {"from": memory["req"], "mode": "longest", "max_hops": "0"})
    assert path.status_code == 400
    assert {problem.split(":")[0] for problem in path.json()["errors"]} == {"to", "mode", "max_hops"}
    assert client.get(f"/api/groups/{group}/nodes").status_code == 400
    assert client.get(node_url(group, memory["req"]), {"deep": "1"}).status_code == 400


def test_other_groups_and_strangers_are_refused(client_for, group: str, memory: dict) -> None:
    other = f"{group}-x"
    load(other, nodes=[entity(f"{other}/n")], edges=[])
    try:
        viewer = client_for("viewer", [group])
        assert viewer.get(node_url(group, f"{other}/n")).status_code == 404  # in a group, but not this one
        assert viewer.get(node_url(other, f"{other}/n")).status_code == 404  # a group not granted
        assert viewer.get(node_url(group, "nowhere", "/neighbours")).status_code == 404
        missing = viewer.get(f"/api/groups/{group}/paths", {"from": memory["req"], "to": f"{other}/n"})
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        assert APIClient().get(node_url(group, memory["req"])).status_code in (401, 403)
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)
