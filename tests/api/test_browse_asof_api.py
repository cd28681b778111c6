"""Paths, subgraphs and neighbourhoods at a moment over REST, on the real graph server: only the facts that count
then (memoria/graph/asof.py) are walked; no time parameter shows every fact, as before."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from memoria.graph import driver
from tests.browse.graphs import entity, fact, load

#   A ─0.9─ B ─0.9─ D     B-D held from January until March (its end learned in March)
#           B ─0.9─ C ─0.9─ D     B-C holds from May
#   A ─0.5─ E ─0.5─ F ─0.5─ D     always
FEBRUARY, APRIL, JUNE = "2025-02-01T00:00:00Z", "2025-04-01T00:00:00Z", "2025-06-01T00:00:00Z"
LEARNED = "2025-01-01T00:00:00Z"
ENDED = "2025-03-01T00:00:00Z"
SET_TIMES = """
MATCH (:Memory {group_id: $group})-[r:RELATES]->(:Memory)
WHERE r.group_id = $group
SET r.created_at = $learned
WITH r WHERE r.invalid_at IS NOT NULL
SET r.expired_at = r.invalid_at
"""


@pytest.fixture
def graph(group: str) -> dict[str, str]:
    ids = {name: f"{group}/{name}" for name in "ABCDEF"}
    edges = [
        fact(ids["A"], ids["B"], 0.9),
        fact(ids["B"], ids["D"], 0.9, valid_at=LEARNED, invalid_at=ENDED),
        fact(ids["B"], ids["C"], 0.9, valid_at="2025-05-01T00:00:00Z"),
        fact(ids["C"], ids["D"], 0.9),
        fact(ids["A"], ids["E"], 0.5),
        fact(ids["E"], ids["F"], 0.5),
        fact(ids["F"], ids["D"], 0.5),
    ]
    load(group, nodes=[entity(node_id, name) for name, node_id in ids.items()], edges=edges)
    # The importer stamps created_at with now; the memory here learned every fact in January, and B-D's end
    # when it came (expired_at is when invalid_at was written, as ingestion and curation do).
    driver.write(SET_TIMES, group=group, learned=LEARNED)
    return ids


def path(client, group: str, graph: dict[str, str], **times: str) -> str:
    answer = client.get(f"/api/groups/{group}/paths", {"from": graph["A"], "to": graph["D"], **times})
    assert answer.status_code == 200, answer.content
    back = {node_id: name for name, node_id in graph.items()}
    return "".join(back[node["id"]] for node in answer.json()["nodes"])


def test_a_path_walks_only_the_facts_that_count_at_its_moment(client_for, group: str, graph: dict) -> None:
    client = client_for("viewer", [group])
    assert path(client, group, graph) == "ABCD"  # no moment: now, as retrieval
    assert path(client, group, graph, as_of=FEBRUARY) == "ABD"
    assert path(client, group, graph, as_of=APRIL) == "AEFD"  # B-D ended in March, B-C starts in May
    assert path(client, group, graph, as_of=JUNE) == "ABCD"
    assert path(client, group, graph, include_invalidated="false") == "ABCD"  # now
    assert path(client, group, graph, include_invalidated="true") == "ABD"  # the ended fact comes back
    # Asked in April as known in February: B-D's end was not yet learned, B-C had not begun.
    assert path(client, group, graph, as_of=APRIL, known_at="2025-02-15T00:00:00Z") == "ABD"
    assert path(client, group, graph, valid_at=APRIL) == "AEFD"  # the older name of as_of
    strongest = client.get(
        f"/api/groups/{group}/paths", {"from": graph["A"], "to": graph["D"], "mode": "strongest", "as_of": APRIL}
    )
    assert [node["name"] for node in strongest.json()["nodes"]] == list("AEFD")
    before_anything = client.get(
        f"/api/groups/{group}/paths", {"from": graph["A"], "to": graph["D"], "known_at": "2024-12-01T00:00:00Z"}
    )
    assert before_anything.json()["found"] is False  # the memory knew no fact yet


def test_subgraphs_and_neighbourhoods_show_the_facts_of_their_moment(client_for, group: str, graph: dict) -> None:
    client = client_for("viewer", [group])

    def around_b(**times: str) -> tuple[set[str], set[tuple[str, str]]]:
        answer = client.get(f"/api/groups/{group}/subgraph", {"ids": graph["B"], "hops": "1", **times})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        back = {node_id: name for name, node_id in graph.items()}
        edges = {(back[edge["source"]], back[edge["target"]]) for edge in body["edges"]}
        return {back[node["id"]] for node in body["nodes"]}, edges

    history = ({"A", "B", "C", "D"}, {("A", "B"), ("B", "C"), ("B", "D"), ("C", "D")})
    assert around_b(include_invalidated="true") == history
    assert around_b(as_of=APRIL) == ({"A", "B"}, {("A", "B")})
    assert around_b(as_of=FEBRUARY) == ({"A", "B", "D"}, {("A", "B"), ("B", "D")})
    assert around_b() == around_b(as_of=JUNE) != history  # no moment: now, as retrieval

    def neighbours(**times: str) -> tuple[set[str], int]:
        answer = client.get(f"/api/groups/{group}/nodes/{quote(graph['B'], safe='')}/neighbours", times)
        assert answer.status_code == 200, answer.content
        body = answer.json()
        return {node["name"] for node in body["nodes"]}, body["total"]

    assert neighbours(include_invalidated="true") == ({"A", "C", "D"}, 3)
    assert neighbours() == ({"A", "C"}, 2)  # now
    assert neighbours(as_of=APRIL) == ({"A"}, 1)
    assert neighbours(as_of=JUNE) == ({"A", "C"}, 2)


@pytest.mark.parametrize(
    ("times", "field"),
    [
        ({"as_of": "yesterday"}, "as_of"),
        ({"known_at": "2025-02-30T00:00:00Z"}, "known_at"),
        ({"as_of": APRIL, "include_invalidated": "true"}, "include_invalidated"),
        ({"include_invalidated": "maybe"}, "include_invalidated"),
        ({"valid_at": "soon"}, "valid_at"),
        ({"valid_at": APRIL, "as_of": APRIL}, "valid_at"),
    ],
)
def test_bad_times_are_named(client_for, group: str, graph: dict, times: dict, field: str) -> None:
    client = client_for("viewer", [group])
    for url, base in (
        (f"/api/groups/{group}/paths", {"from": graph["A"], "to": graph["D"]}),
        (f"/api/groups/{group}/subgraph", {"ids": graph["A"]}),
        (f"/api/groups/{group}/nodes/{quote(graph['A'], safe='')}/neighbours", {}),
    ):
        answer = client.get(url, {**base, **times})
        assert answer.status_code == 400, (url, answer.content)
        assert [problem.split(":")[0] for problem in answer.json()["errors"]] == [field], answer.json()
