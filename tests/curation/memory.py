"""A small memory for curation tests, and a raw snapshot of a group to tell "exactly as before" from "almost".

Liv has a duplicate, "Liv V.", whose facts show every case a merge meets: one duplicates a fact of
Liv's (same relation, same ends), one has no text (its embedded text names its ends), one points at
the duplicate, one joins the two (a loop after the merge), one is already invalid.
"""

from __future__ import annotations

from typing import Any

from memoria.curation.state import UNAUDITED
from memoria.graph import driver, kinds
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import


def node_id(group: str, key: str) -> str:
    return f"{group}-{key}"


def edge_id(group: str, key: str) -> str:
    return f"{group}-e-{key}"


def curation_document(group: str) -> dict[str, Any]:
    n = lambda key: node_id(group, key)  # noqa: E731 - short ids keep the fixture readable
    entities = {
        "liv": ("Liv Varga", {"aliases": ["Liv"]}),
        "livdup": ("Liv V.", {"aliases": ["L. Varga"], "role": "sister"}),
        "maren": ("Maren", {}),
        "tallinn": ("Tallinn", {}),
        "globex": ("Globex", {}),
        "initech": ("Initech", {}),
    }
    nodes: list[dict[str, Any]] = [
        {"id": n(key), "name": name, "labels": ["Entity"], "summary": f"About {name}", "properties": props}
        for key, (name, props) in entities.items()
    ]
    nodes += [
        {
            "id": n(f"ep{i}"),
            "name": f"message {i}",
            "labels": ["Episode"],
            "content": text,
            "source": "message",
            "valid_at": f"2024-03-0{i}T10:00:00Z",
        }
        for i, text in enumerate(
            ("Liv: I live in Tallinn.", "Liv V. lives in Tallinn and works at Globex.", "Maren is Liv's sister."),
            start=1,
        )
    ]
    nodes += [
        {"id": n("c1"), "name": "Family", "labels": ["Community"], "summary": "Liv and Maren"},
        {"id": n("c2"), "name": "Work", "labels": ["Community"], "summary": "Liv V. at Globex"},
    ]

    def edge(key: str, source: str, relation: str, target: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": edge_id(group, key),
            "source": n(source),
            "target": n(target),
            "relation": relation,
            "weight": extra.pop("weight", 0.6),
            "tags": extra.pop("tags", [relation.split("_")[0]]),
            "category": extra.pop("category", "SPATIAL"),
            "valid_at": "2024-03-01T00:00:00Z",
            **extra,
        }

    edges = [
        edge("lives", "liv", "lives_in", "tallinn", fact="Liv lives in Tallinn", episodes=[n("ep1")], tags=["home"]),
        edge(
            "dup-lives",
            "livdup",
            "lives_in",
            "tallinn",
            fact="Liv V. lives in Tallinn",
            episodes=[n("ep2")],
            tags=["home", "city"],
            weight=0.5,
        ),
        edge("works", "livdup", "works_at", "globex", episodes=[n("ep2")], category="ATTRIBUTION"),
        edge(
            "sister",
            "maren",
            "sister_of",
            "livdup",
            fact="Maren is Liv's sister",
            episodes=[n("ep3")],
            category="HIERARCHICAL",
        ),
        edge("loop", "liv", "mentioned_with", "livdup", weight=0.3, category="ATTRIBUTION"),
        edge(
            "old-job",
            "livdup",
            "works_at",
            "initech",
            fact="Liv V. worked at Initech",
            invalid_at="2024-01-01T00:00:00Z",
            valid_at="2020-01-01T00:00:00Z",
            category="ATTRIBUTION",
        ),
        edge("maren-lives", "maren", "lives_in", "tallinn", fact="Maren lives in Tallinn"),
    ]
    mentions = [
        {"episode": n("ep1"), "entity": n("liv")},
        {"episode": n("ep1"), "entity": n("tallinn")},
        {"episode": n("ep2"), "entity": n("livdup")},
        {"episode": n("ep3"), "entity": n("livdup")},
        {"episode": n("ep3"), "entity": n("liv")},
        {"episode": n("ep3"), "entity": n("maren")},
    ]
    memberships = [
        {"community": n("c1"), "entity": n("liv")},
        {"community": n("c1"), "entity": n("maren")},
        {"community": n("c2"), "entity": n("livdup")},
    ]
    return {"nodes": nodes, "edges": edges, "mentions": mentions, "memberships": memberships}


def store_curation_memory(group: str) -> None:
    graph_document_import(document=parse_graph_document(curation_document(group), group=group), group=group)


VECTORS = ("fact_embedding", "name_embedding", "embedding")


def graph_snapshot(group: str) -> dict[str, Any]:
    """Every node, edge and link of the group with every stored property except vectors and their model ids (see
    vectors_of) and writers' claims (memoria.graph.claims): what curation audits."""
    nodes = driver.read(
        "MATCH (n:Memory {group_id: $group}) RETURN n.id AS id, labels(n) AS labels, properties(n) AS props",
        group=group,
    )
    edges = driver.read(
        f"MATCH (a:Memory {{group_id: $group}})-[r:{kinds.RELATES}]->(b:Memory) "
        "RETURN r.id AS id, a.id AS source, b.id AS target, properties(r) AS props",
        group=group,
    )
    links = {
        link_type: sorted(
            (row["s"], row["t"])
            for row in driver.read(
                f"MATCH (s:Memory {{group_id: $group}})-[:{link_type}]->(t:Memory) RETURN s.id AS s, t.id AS t",
                group=group,
            )
        )
        for link_type in (kinds.MENTIONS, kinds.HAS_MEMBER)
    }

    def plain(props: dict[str, Any]) -> dict[str, Any]:  # a vector's model id and text version go with it
        return {key: value for key, value in props.items() if key not in UNAUDITED}

    return {
        "nodes": {row["id"]: (sorted(row["labels"]), plain(row["props"])) for row in nodes},
        "edges": {row["id"]: (row["source"], row["target"], plain(row["props"])) for row in edges},
        "links": links,
    }


def vectors_of(group: str) -> dict[str, list[float]]:
    """Every stored vector of the group, by the id of its node or edge."""
    found: dict[str, list[float]] = {}
    for row in driver.read("MATCH (n:Memory {group_id: $group}) RETURN n.id AS id, properties(n) AS p", group=group):
        for key in VECTORS:
            if row["p"].get(key) is not None:
                found[row["id"]] = row["p"][key]
    for row in driver.read(
        "MATCH (a:Memory {group_id: $group})-[r:RELATES]->() RETURN r.id AS id, r.fact_embedding AS v", group=group
    ):
        if row["v"] is not None:
            found[row["id"]] = row["v"]
    return found
