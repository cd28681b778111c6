"""Each search method on the small memory: what it finds, in which order, with which score, and only in the group."""

from __future__ import annotations

import pytest

from memoria.embeddings import embedder
from memoria.graph import driver
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.graph.searchable import FACT_TEXT
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.requests.moment import AsOfInput
from memoria.search import methods
from memoria.search.methods import cosine_similarities, lucene_query
from tests.browse.graphs import entity, fact, load
from tests.search.memory import node_id

SET_ENDED = "MATCH ()-[r:RELATES]->() WHERE r.id = $id SET r.invalid_at = $at, r.expired_at = $at"
SET_VALID_AT = "MATCH ()-[r:RELATES]->() WHERE r.id = $id SET r.valid_at = $at"
SET_GROUP_VECTORS = "MATCH (:Memory {group_id: $group})-[r:RELATES]->() SET r.fact_embedding = $vector"
CROWDED_QUERY = "Lyon warehouse gloves shortage in March"
SEARCHABLE_FACTS = f"MATCH (a:Memory {{group_id: $group}})-[r:RELATES]->(b) RETURN r.id AS id, {FACT_TEXT} AS text"


def ids(candidates: list, group: str) -> list[str]:
    return [candidate.id.removeprefix(f"{group}-") for candidate in candidates]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lyon gloves", "lyon OR gloves"),
        ('gloves AND "Lyon" (stock*) NOT x:y', "gloves OR lyon OR stock OR x OR y"),
        ("What did the warehouse report about gloves?", "warehouse OR report OR gloves"),
        ("the OR and", "the OR or OR and"),  # nothing but stop words: searched as they are, lower-cased
        ("?!", ""),
    ],
)
def test_lucene_query_is_never_lucene_syntax(text: str, expected: str) -> None:
    assert lucene_query(text) == expected


def test_facts_bm25_finds_words_best_first_and_survives_lucene_syntax(searched: str) -> None:
    found = methods.facts_bm25(text='gloves AND "stockout" (March*)', groups=[searched], limit=10)
    assert ids(found, searched)[0] == "stockout"
    assert {"ran-out", "stocks", "arrive"} <= set(ids(found, searched))
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)
    top = found[0]
    assert (top.source, top.target, top.name) == (node_id(searched, "lyon"), node_id(searched, "gloves"), "stockout_of")
    assert top.valid_at == "2024-03-02T00:00:00Z" and top.invalid_at is None


def test_facts_cosine_ranks_by_exact_cosine(searched: str, vector_search: str) -> None:
    vector = embedder().embed_one("Lyon warehouse gloves shortage in March")
    found = methods.facts_cosine(vector=vector, groups=[searched], limit=3)
    assert set(ids(found, searched)[:2]) == {"ran-out", "stockout"}
    texts = {row["id"]: row["text"] for row in driver.read(SEARCHABLE_FACTS, group=searched)}
    exact = cosine_similarities(vector, [embedder().embed_one(texts[c.id]) for c in found])
    assert [c.score for c in found] == pytest.approx(exact, abs=1e-5)
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)


def test_the_date_filter_keeps_facts_that_hold_then(searched: str, vector_search: str) -> None:
    vector = embedder().embed_one("Bob Novak truck driver")
    for method, kwargs in (
        (methods.facts_bm25, {"text": "Bob Novak truck driver"}),
        (methods.facts_cosine, {"vector": vector}),
    ):
        then = ids(method(groups=[searched], limit=20, valid_at="2021-01-01T00:00:00Z", **kwargs), searched)
        assert "drove" in then and "drives" not in then  # drives began in 2022
        now = ids(method(groups=[searched], limit=20, valid_at="2025-01-01T00:00:00Z", **kwargs), searched)
        assert "drives" in now and "drove" not in now  # drove ended in 2022
        assert {"drove", "drives"} <= set(ids(method(groups=[searched], limit=20, **kwargs), searched))


def test_an_invalidated_fact_holds_until_its_invalid_at(searched: str) -> None:
    """Ingestion invalidates by setting invalid_at and expired_at together; the history before stays findable."""
    fact = node_id(searched, "supplies")
    driver.write(SET_ENDED, id=fact, at="2024-01-01T00:00:00Z")
    try:

        def found(valid_at: str | None) -> bool:
            hits = methods.facts_bm25(text="Nordbalt", groups=[searched], limit=10, valid_at=valid_at)
            return fact in [hit.id for hit in hits]

        assert found("2023-06-01T00:00:00Z")
        assert not found("2025-01-01T00:00:00Z")
        assert found(None)
    finally:
        driver.write(SET_ENDED, id=fact, at=None)


def test_a_fact_of_unknown_start_holds_until_it_ends(searched: str) -> None:
    fact = node_id(searched, "supplies")
    driver.write(SET_VALID_AT, id=fact, at=None)
    try:
        hits = methods.facts_bm25(text="Nordbalt", groups=[searched], limit=10, valid_at="1999-01-01T00:00:00Z")
        assert fact in [hit.id for hit in hits]
    finally:
        driver.write(SET_VALID_AT, id=fact, at="2023-01-01T00:00:00Z")


def test_entity_bm25_adds_the_name_and_summary_scores(searched: str) -> None:
    found = methods.entities_bm25(text="Lyon", groups=[searched], limit=10)
    assert set(ids(found, searched)) == {"lyon", "alice"}  # lyon by name, alice by summary
    both = methods.entities_bm25(text="safety gloves", groups=[searched], limit=10)
    assert ids(both, searched)[0] == "gloves"  # in its name and its summary
    assert both[0].text == "Nitrile safety gloves, size L" and both[0].name == "Safety gloves"


def test_node_scopes_by_words_and_by_meaning(searched: str, vector_search: str) -> None:
    model = embedder()
    assert ids(methods.entities_cosine(vector=model.embed_one("a harbour"), groups=[searched], limit=1), searched) == [
        "rotterdam"
    ]
    episodes = methods.episodes_bm25(text="Nordbalt delayed", groups=[searched], limit=5)
    assert ids(episodes, searched) == ["ep3"] and episodes[0].text.startswith("Nordbalt Metals delayed")
    late = methods.episodes_cosine(vector=model.embed_one("a supplier was late"), groups=[searched], limit=1)
    assert ids(late, searched) == ["ep3"]
    assert ids(methods.communities_bm25(text="bolts", groups=[searched], limit=5), searched) == ["metal"]
    metal = methods.communities_cosine(vector=model.embed_one("logistics of metal parts"), groups=[searched], limit=1)
    assert ids(metal, searched) == ["metal"]


def test_cosine_drops_candidates_at_or_below_the_minimum(searched: str, vector_search: str) -> None:
    vector = embedder().embed_one("a harbour")
    everything = methods.entities_cosine(vector=vector, groups=[searched], limit=20, min_similarity=-1.0)
    assert len(everything) == 8
    kept = methods.entities_cosine(vector=vector, groups=[searched], limit=20, min_similarity=0.3)
    assert kept and all(c.score > 0.3 for c in kept) and len(kept) < 8


def test_bfs_walks_relates_and_mentions_nearest_first(searched: str) -> None:
    origin = [node_id(searched, "alice")]
    one = methods.facts_bfs(origin_ids=origin, group=searched, depth=1, limit=50)
    assert sorted(ids(one, searched)) == ["party", "works"] and all(c.score == 1.0 for c in one)
    two = methods.facts_bfs(origin_ids=origin, group=searched, depth=2, limit=50)
    assert ids(two, searched)[:2] == ["party", "works"]
    # hop 2: the facts leaving lyon (the episodes alice is mentioned in hold no facts)
    assert set(ids(two, searched)[2:]) == {"stocks", "ran-out", "stockout"}
    assert all(c.score == 0.5 for c in two[2:])
    entities = methods.entities_bfs(origin_ids=origin, group=searched, depth=1, limit=50)
    assert sorted(ids(entities, searched)) == ["lyon", "party"]  # episodes are walked through, never returned
    entities = methods.entities_bfs(origin_ids=origin, group=searched, depth=2, limit=50)
    assert sorted(ids(entities, searched)) == ["gloves", "lyon", "party", "rotterdam"]


def test_bfs_keeps_to_facts_that_hold(searched: str) -> None:
    origin = [node_id(searched, "bob")]
    at = AsOfInput(as_of="2021-01-01T00:00:00Z").resolved()
    then = methods.facts_bfs(origin_ids=origin, group=searched, depth=1, limit=10, moment=at)
    assert ids(then, searched) == ["drove"]


def test_bfs_walks_only_the_facts_that_count_at_its_moment(group: str) -> None:
    """O─W always; O─X ended before April (and X─Y behind it); O─Z starts after April."""
    names = {name: f"{group}-{name}" for name in "OWXYZ"}
    edges = [
        fact(names["O"], names["W"], 0.5, "near"),
        fact(names["O"], names["X"], 0.5, "ended", valid_at="2025-01-01T00:00:00Z", invalid_at="2025-03-01T00:00:00Z"),
        fact(names["X"], names["Y"], 0.5, "beyond"),
        fact(names["O"], names["Z"], 0.5, "later", valid_at="2025-05-01T00:00:00Z"),
    ]
    load(group, nodes=[entity(node) for node in names.values()], edges=edges)
    origin = [names["O"]]

    def walked(moment: AsOf = EVERY_FACT) -> tuple[set[str], set[str]]:
        facts = methods.facts_bfs(origin_ids=origin, group=group, depth=2, limit=50, moment=moment)
        entities = methods.entities_bfs(origin_ids=origin, group=group, depth=2, limit=50, moment=moment)
        return {c.name for c in facts}, {c.id.removeprefix(f"{group}-") for c in entities}

    assert walked() == ({"near", "ended", "beyond", "later"}, {"W", "X", "Y", "Z"})  # no moment: as before
    april = AsOfInput(as_of="2025-04-01T00:00:00Z").resolved()
    assert walked(april) == ({"near"}, {"W"})  # the ended fact is not walked, nor what lies behind it
    assert walked(AsOfInput(as_of="2025-02-01T00:00:00Z").resolved()) == ({"near", "ended", "beyond"}, {"W", "X", "Y"})
    assert walked(AsOfInput().resolved()) == ({"near", "later"}, {"W", "Z"})
    assert walked(AsOfInput(include_invalidated=True).resolved()) == walked()


def test_node_hops_are_true_shortest_distances(searched: str) -> None:
    keys = ("alice", "lyon", "party", "gloves", "rotterdam", "bolts", "bob", "nordbalt")
    hops = methods.node_hops(
        center=node_id(searched, "alice"), nodes=[node_id(searched, k) for k in keys], group=searched
    )
    found = {key: hops.get(node_id(searched, key)) for key in keys}
    assert found == {
        "alice": 0,
        "lyon": 1,
        "party": 1,
        "gloves": 2,
        "rotterdam": 3,
        "bolts": 4,
        "bob": 4,
        "nordbalt": None,  # 5 hops: beyond the bound
    }


def test_mentions_and_vectors_are_read_for_candidates(searched: str) -> None:
    mentions = methods.entity_mentions(group=searched, ids=[node_id(searched, k) for k in ("alice", "lyon", "party")])
    assert mentions == {node_id(searched, "alice"): 2, node_id(searched, "lyon"): 1, node_id(searched, "party"): 0}
    facts = methods.facts_bm25(text="Nordbalt", groups=[searched], limit=5)
    vectors = methods.fact_vectors(group=searched, facts=facts)
    assert set(vectors) == {c.id for c in facts} and all(len(v) == 384 for v in vectors.values())
    nodes = methods.node_vectors(group=searched, ids=[node_id(searched, "ep1")], vector_property="embedding")
    assert len(nodes[node_id(searched, "ep1")]) == 384


def test_no_method_ever_returns_another_group(searched: str, other: str, vector_search: str) -> None:
    model = embedder()
    text = "Lyon warehouse safety gloves Rotterdam port Nordbalt bolts Alice Bob party"
    vector = model.embed_one(text)
    found = [
        *methods.facts_bm25(text=text, groups=[searched], limit=100),
        *methods.facts_cosine(vector=vector, groups=[searched], limit=100, min_similarity=-1.0),
        *methods.facts_bfs(origin_ids=[node_id(searched, "lyon")], group=searched, depth=3, limit=100),
        *methods.entities_bm25(text=text, groups=[searched], limit=100),
        *methods.entities_cosine(vector=vector, groups=[searched], limit=100, min_similarity=-1.0),
        *methods.entities_bfs(origin_ids=[node_id(searched, "lyon")], group=searched, depth=3, limit=100),
        *methods.episodes_bm25(text=text, groups=[searched], limit=100),
        *methods.episodes_cosine(vector=vector, groups=[searched], limit=100, min_similarity=-1.0),
        *methods.communities_bm25(text=text, groups=[searched], limit=100),
        *methods.communities_cosine(vector=vector, groups=[searched], limit=100, min_similarity=-1.0),
    ]
    assert len(found) > 40
    assert all(c.id.startswith(f"{searched}-") for c in found)
    # a walk started in the other group finds nothing of ours
    assert methods.facts_bfs(origin_ids=[node_id(other, "lyon")], group=searched, depth=3, limit=100) == []
    both = methods.entities_bm25(text="Lyon", groups=[searched, other], limit=10)
    assert {c.id for c in both} == {node_id(g, k) for g in (searched, other) for k in ("lyon", "alice")}


@pytest.fixture
def crowd(group: str) -> str:
    """Another group whose 120 facts outrank ours in both indexes: word for word and vector for vector."""
    nodes = [{"id": f"{group}-n{i}", "name": f"crowd node {i}", "labels": ["Entity"]} for i in range(2)]
    edges = [
        {
            "id": f"{group}-f{i}",
            "source": f"{group}-n0",
            "target": f"{group}-n1",
            "relation": f"crowds_{i}",
            "weight": 0.5,
            "tags": [],
            "fact": "gloves gloves gloves",
        }
        for i in range(120)
    ]
    graph_document_import(document=parse_graph_document({"nodes": nodes, "edges": edges}, group=group), group=group)
    driver.write(SET_GROUP_VECTORS, group=group, vector=embedder().embed_one(CROWDED_QUERY))
    return group


def test_a_crowded_index_still_yields_the_group_s_matches(searched: str, crowd: str, vector_search: str) -> None:
    words = methods.facts_bm25(text="gloves", groups=[searched], limit=5)
    assert set(ids(words, searched)) == {"stocks", "ran-out", "stockout", "arrive"}
    assert len(methods.facts_bm25(text="gloves", groups=[crowd], limit=100)) == 100
    meaning = methods.facts_cosine(vector=embedder().embed_one(CROWDED_QUERY), groups=[searched], limit=5)
    assert len(meaning) == 5 and all(c.id.startswith(f"{searched}-") for c in meaning)
