"""/api/graph/<group>/...: the graph index over REST, with roles, group checks and precise 4xx answers."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memoria.graph.versions import group_version
from tests.conftest import count_group
from tests.graphindex.test_service import chain, nodes

MAY = "2025-05-01T00:00:00Z"


def base(group: str) -> str:
    return f"/api/graph/{group}"


def test_curator_adds_edges_and_viewer_reads_them(client_for, group: str) -> None:
    ids = nodes(group, "abc")
    curator: APIClient = client_for("curator", [group])
    one = {"source": ids["a"], "target": ids["b"], "relation": "caused_by", "weight": 0.9}
    response = curator.post(f"{base(group)}/edges", one, format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {"created": 1, "updated": 0, "size": 1}
    batch = {
        "edges": [
            {**one, "weight": 0.6},
            {
                "source": ids["b"],
                "target": ids["c"],
                "relation": "references",
                "weight": 0.5,
                "metadata": {"fact": "b cites c", "tags": ["cite"]},
            },
        ]
    }
    assert curator.post(f"{base(group)}/edges", batch, format="json").json() == {"created": 1, "updated": 1, "size": 2}

    viewer = client_for("viewer", [group])
    out = viewer.get(f"{base(group)}/nodes/{ids['b']}/outgoing").json()["edges"]
    assert [(e["target"], e["relation"], e["weight"], e["metadata"]) for e in out] == [
        (ids["c"], "references", 0.5, {"fact": "b cites c", "tags": ["cite"]})
    ]
    inc = viewer.get(f"{base(group)}/nodes/{ids['b']}/incoming").json()["edges"]
    assert [(e["source"], e["weight"]) for e in inc] == [(ids["a"], 0.6)]
    assert viewer.get(f"{base(group)}/stats").json() == {"size": 2, "node_count": 3}
    exists = viewer.get(f"{base(group)}/edges/exists", {"source": ids["a"], "target": ids["b"]}).json()
    missing = viewer.get(
        f"{base(group)}/edges/exists", {"source": ids["a"], "target": ids["b"], "relation": "follows"}
    ).json()
    assert (exists, missing) == ({"exists": True}, {"exists": False})


def test_traverse_and_related(client_for, group: str) -> None:
    ids = chain(group)
    viewer = client_for("viewer", [group])
    response = viewer.get(
        f"{base(group)}/nodes/{ids['a']}/traverse", {"relation": "caused_by", "max_depth": 3, "min_weight": 0.85}
    )
    assert response.status_code == 200, response.content
    assert response.json() == {
        "start": ids["a"],
        "results": [
            {"id": ids["b"], "depth": 1, "relation": "caused_by", "weight": 1.0, "path": [ids["a"], ids["b"]]},
            {"id": ids["c"], "depth": 2, "relation": "caused_by", "weight": 0.9, "path": [ids[n] for n in "abc"]},
        ],
    }
    related = viewer.get(f"{base(group)}/nodes/{ids['a']}/related", {"direction": "both", "relation": "follows,x"})
    assert [r["id"] for r in related.json()["results"]] == [ids["e"]]


def test_traversals_walk_only_the_edges_that_count_at_their_moment(client_for, group: str) -> None:
    """a→b ended in March, b→c behind it; a→d starts in May; a→e always."""
    ids = nodes(group, "abcde")
    curator: APIClient = client_for("curator", [group])
    ended = {"valid_at": "2025-01-01T00:00:00Z", "invalid_at": "2025-03-01T00:00:00Z"}
    edges = [
        {"source": ids["a"], "target": ids["b"], "relation": "follows", "weight": 0.9, "metadata": ended},
        {"source": ids["b"], "target": ids["c"], "relation": "follows", "weight": 0.9},
        {"source": ids["a"], "target": ids["d"], "relation": "follows", "weight": 0.8, "metadata": {"valid_at": MAY}},
        {"source": ids["a"], "target": ids["e"], "relation": "follows", "weight": 0.7},
    ]
    assert curator.post(f"{base(group)}/edges", {"edges": edges}, format="json").status_code == 201
    viewer = client_for("viewer", [group])

    def reached(tail: str = "traverse", **params: object) -> str:
        answer = viewer.get(f"{base(group)}/nodes/{ids['a']}/{tail}", {"max_depth": 2, **params})
        assert answer.status_code == 200, answer.content
        back = {node_id: name for name, node_id in ids.items()}
        return "".join(sorted(back[result["id"]] for result in answer.json()["results"]))

    assert reached() == "de"  # no moment: now, as retrieval
    assert reached(as_of="2025-04-01T00:00:00Z") == "e"  # a→b ended (and b→c is not reached), a→d not begun
    assert reached(as_of="2025-02-01T00:00:00Z") == "bce"
    assert reached(include_invalidated="false") == "de"  # now
    assert reached(include_invalidated="true") == "bcde"

    def listed(direction: str, node: str, **params: object) -> str:
        answer = viewer.get(f"{base(group)}/nodes/{ids[node]}/{direction}", params)
        assert answer.status_code == 200, answer.content
        back = {node_id: name for name, node_id in ids.items()}
        end = "target" if direction == "outgoing" else "source"
        return "".join(sorted(back[edge[end]] for edge in answer.json()["edges"]))

    assert listed("outgoing", "a") == "de"  # edge listings take the same moment: now by default
    assert listed("outgoing", "a", as_of="2025-02-01T00:00:00Z") == "be"
    assert listed("outgoing", "a", include_invalidated="true") == "bde"
    assert listed("incoming", "b") == ""
    assert listed("incoming", "b", include_invalidated="true") == "a"
    one_hop = viewer.get(f"{base(group)}/nodes/{ids['a']}/related", {"as_of": "2025-04-01T00:00:00Z"})
    assert [result["id"] for result in one_hop.json()["results"]] == [ids["e"]]
    refused = viewer.get(
        f"{base(group)}/nodes/{ids['a']}/traverse", {"as_of": "2025-04-01T00:00:00Z", "include_invalidated": "true"}
    )
    assert refused.status_code == 400 and refused.json()["errors"][0].startswith("include_invalidated:")


def test_removals_need_the_curator_and_bump_the_version(client_for, group: str) -> None:
    ids = chain(group)
    where = {"source": ids["a"], "target": ids["b"], "relation": "caused_by"}
    viewer = client_for("viewer", [group])
    assert (
        viewer.delete(f"{base(group)}/edges?source={ids['a']}&target={ids['b']}&relation=caused_by").status_code == 403
    )
    assert viewer.post(f"{base(group)}/edges", {**where, "weight": 0.5}, format="json").status_code == 403
    assert viewer.delete(f"{base(group)}/nodes/{ids['a']}").status_code == 403
    assert count_group(group)["edges"] == 5

    curator = client_for("curator", [group])
    before = group_version(group=group).version
    query = f"source={ids['a']}&target={ids['b']}&relation=caused_by"
    assert curator.delete(f"{base(group)}/edges?{query}").json() == {"removed": 1}
    assert group_version(group=group).version == before + 1
    assert curator.delete(f"{base(group)}/edges?{query}").status_code == 404
    assert curator.delete(f"{base(group)}/nodes/{ids['a']}").json() == {"removed": 2}
    assert count_group(group)["edges"] == 2


def test_other_groups_are_invisible(client_for, group: str) -> None:
    ids = chain(group)
    stranger = client_for("curator", ["somewhere-else"])
    for url in (f"{base(group)}/stats", f"{base(group)}/nodes/{ids['a']}/traverse"):
        assert stranger.get(url).status_code == 404
    both = client_for("viewer", [group, "somewhere-else"])
    assert both.get(f"/api/graph/somewhere-else/nodes/{ids['a']}/outgoing").status_code == 404


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        ("traverse", {"max_depth": "deep"}, "max_depth: 'deep' is not an integer"),
        ("traverse", {"max_depth": 99}, "max_depth: must be an integer from 1 to 10"),
        ("traverse", {"direction": "up"}, "direction: must be one of"),
        ("traverse", {"min_weight": "heavy"}, "min_weight: 'heavy' is not a number"),
        ("traverse", {"colour": "red"}, "unknown parameter(s): colour"),
        ("related", {"max_depth": 2}, "unknown parameter(s): max_depth"),
        ("traverse", {"as_of": "soon"}, "as_of: must be an ISO 8601 date-time"),
        ("related", {"known_at": "2025-13-01T00:00:00Z"}, "known_at:"),
        ("outgoing", {"x": 1}, "unknown parameter(s): x"),
    ],
)
def test_bad_parameters_are_400(client_for, group: str, path: str, params: dict, message: str) -> None:
    ids = chain(group)
    response = client_for("viewer", [group]).get(f"{base(group)}/nodes/{ids['a']}/{path}", params)
    assert response.status_code == 400
    assert message in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"source": "A", "target": "B", "relation": "r", "weight": 2}, "edges[0].weight: 2 is outside"),
        ({"edges": []}, "edges: List should have at least 1 item"),
        (
            {"source": "A", "target": "B", "relation": "r", "weight": 0.5, "colour": 1},
            "edges[0]: unknown field(s) colour",
        ),
        ({"source": "A", "target": "B", "relation": "r", "weight": 0.5, "metadata": {"x": 1}}, "metadata: unknown"),
    ],
)
def test_bad_edges_are_400_and_write_nothing(client_for, group: str, body: dict, message: str) -> None:
    ids = nodes(group, "AB")
    if "source" in body:
        body = {**body, "source": ids["A"], "target": ids["B"]}
    before = group_version(group=group).version
    response = client_for("curator", [group]).post(f"{base(group)}/edges", body, format="json")
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert count_group(group)["edges"] == 0 and group_version(group=group).version == before


def test_unknown_nodes_are_404(client_for, group: str) -> None:
    nodes(group, "a")
    viewer = client_for("viewer", [group])
    assert viewer.get(f"{base(group)}/nodes/{group}-nope/traverse").status_code == 404
    assert viewer.get(f"{base(group)}/edges/exists", {"source": "x"}).json()["detail"] == "target: is required"
