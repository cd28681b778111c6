"""The MuSiQue loader must yield a document the import validator accepts and merge what OpenIE repeats."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from memoria.datasets.musique import (
    build_musique,
    categorise,
    is_date_like,
    musique_document,
    predicate_tags,
)
from memoria.errors import InvalidGraphDocument
from memoria.graph.rules import MAX_TAG_LENGTH, MAX_TAGS, normalise_tag
from memoria.interchange.document import parse_graph_document

REAL_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "musique"
REAL_PASSAGES = 1890
GROUP = "g1"

# Invented passages: three say the same thing in different spellings, so it must merge into one edge.
CORPUS = [
    {"title": "Zorblat Harbour", "text": "Zorblat Harbour is located in Quennia. It was founded in 1712."},
    {"title": "Quennia", "text": "Quennia is a country; Zorblat Harbour, in Quennia, is its main port."},
    {"title": "Mirelle Vant (sailor)", "text": "Mirelle Vant sailed from Zorblat Harbour, in Quennia."},
]
OPENIE = [
    {
        "idx": 0,
        "title": "Zorblat Harbour",
        "extracted_entities": ["Zorblat Harbour", "Quennia", "1712"],
        "extracted_triples": [
            ["Zorblat Harbour", "located in", "Quennia"],
            ["Zorblat Harbour", "founded in", "1712"],
            ["Zorblat Harbour", "is located in", "Quennia"],
        ],
    },
    {
        "idx": 1,
        "title": "Quennia",
        "extracted_entities": ["Quennia", "zorblat  harbour"],
        "extracted_triples": [
            ["zorblat harbour", "Located  In", "quennia"],
            ["Quennia", "is a", "country"],
            ["Zorblat Harbour", "main port of", "Quennia"],
        ],
    },
    {
        "idx": 2,
        "title": "Mirelle Vant (sailor)",
        "extracted_entities": ["Mirelle Vant", "Zorblat Harbour", "  "],
        "extracted_triples": [
            ["Zorblat Harbour", "located in", "Quennia"],
            ["Mirelle Vant", "sailed from", "Zorblat Harbour"],
            ["Mirelle Vant", "sailed"],
            ["Mirelle Vant", "sailed", "from", "Zorblat Harbour"],
            ["Mirelle Vant", "sailed from", None],
            ["Mirelle Vant", " ", "Quennia"],
            "Mirelle Vant sailed",
            ["Quennia", "is", "QUENNIA"],
            ["x" * 501, "names", "Quennia"],
        ],
    },
]


def write_dataset(directory: Path, corpus: Any = None, openie: Any = None) -> Path:
    """Write the two files as the loader reads them; raw strings are written as they are (for broken JSON)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in (
        ("corpus.json", CORPUS if corpus is None else corpus),
        ("openie.json", OPENIE if openie is None else openie),
    ):
        text = data if isinstance(data, str) else json.dumps(data)
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def copy_of(data: list[dict]) -> list[dict]:
    return json.loads(json.dumps(data))


def entity_named(document: dict, name: str) -> dict:
    return next(node for node in document["nodes"] if node["labels"] == ["Entity"] and node["name"] == name)


def edge_between(document: dict, source: dict, relation: str, target: dict) -> dict:
    return next(
        edge
        for edge in document["edges"]
        if (edge["source"], edge["relation"], edge["target"]) == (source["id"], relation, target["id"])
    )


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "musique")


def test_document_passes_the_import_validator_and_is_json(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    assert json.loads(json.dumps(document)) == document
    parsed = parse_graph_document(document, group=GROUP)
    assert len(parsed.nodes) == len(document["nodes"])
    assert len(parsed.edges) == len(document["edges"])


def test_each_passage_becomes_an_episode(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    episodes = [node for node in document["nodes"] if node["labels"] == ["Episode"]]
    assert [episode["id"] for episode in episodes] == ["mq:g1:p0", "mq:g1:p1", "mq:g1:p2"]
    first = episodes[0]
    assert first["name"] == CORPUS[0]["title"]
    assert first["content"] == CORPUS[0]["text"]
    assert first["source"] == "text"
    assert first["source_description"] == "MuSiQue passage 0"
    assert first["properties"] == {"passage_index": 0}


def test_spellings_merge_into_one_entity_named_by_the_commonest(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    entities = [node for node in document["nodes"] if node["labels"] == ["Entity"]]
    names = sorted(entity["name"] for entity in entities)
    assert names == ["1712", "Mirelle Vant", "Quennia", "Zorblat Harbour", "country"]
    harbour = entity_named(document, "Zorblat Harbour")
    assert harbour["id"].startswith("mq:g1:e:")
    assert harbour["properties"] == {"passages": 3}
    assert entity_named(document, "country")["properties"] == {"passages": 1}


def test_repeated_triple_is_one_edge_with_every_passage_and_more_weight(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    harbour, quennia = entity_named(document, "Zorblat Harbour"), entity_named(document, "Quennia")
    located = edge_between(document, harbour, "located_in", quennia)
    assert located["episodes"] == ["mq:g1:p0", "mq:g1:p1", "mq:g1:p2"]
    assert located["weight"] == 1.0
    assert located["fact"] == "Zorblat Harbour located in Quennia"
    assert "id" not in located
    # "is located in" is a different relation: kept apart, asserted once.
    assert edge_between(document, harbour, "is_located_in", quennia)["weight"] == 0.5
    keys = [(edge["source"], edge["relation"], edge["target"]) for edge in document["edges"]]
    assert len(keys) == len(set(keys))


def test_two_passages_give_the_middle_weight(tmp_path: Path) -> None:
    openie = copy_of(OPENIE)
    openie[2]["extracted_triples"] = []
    document = musique_document(write_dataset(tmp_path, openie=openie), group=GROUP)
    harbour, quennia = entity_named(document, "Zorblat Harbour"), entity_named(document, "Quennia")
    located = edge_between(document, harbour, "located_in", quennia)
    assert located["episodes"] == ["mq:g1:p0", "mq:g1:p1"]
    assert located["weight"] == 0.75


def test_mentions_link_each_passage_to_what_it_extracted_or_used(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    by_id = {node["id"]: node["name"] for node in document["nodes"]}
    mentioned: dict[str, list[str]] = {}
    for mention in document["mentions"]:
        mentioned.setdefault(mention["episode"], []).append(by_id[mention["entity"]])
    assert mentioned["mq:g1:p0"] == ["Zorblat Harbour", "Quennia", "1712"]
    assert mentioned["mq:g1:p1"] == ["Quennia", "Zorblat Harbour", "country"]
    assert mentioned["mq:g1:p2"] == ["Mirelle Vant", "Zorblat Harbour", "Quennia"]


def test_bad_triples_are_skipped_and_counted_with_their_position(dataset: Path) -> None:
    result = build_musique(dataset, group=GROUP)
    stats = result.stats
    assert stats.triples_read == 15
    assert stats.skipped_malformed == 5
    assert stats.skipped_self_loops == 1
    assert stats.skipped_long_names == 1
    assert stats.skipped_triples == 7
    assert stats.skipped_entities == 1
    assert stats.duplicate_triples == 2
    counts = stats.as_dict()
    assert counts["episodes"] == 3
    assert counts["entities"] == 5
    assert counts["facts"] == len(result.document["edges"]) == 6
    assert counts["mentions"] == len(result.document["mentions"]) == 9
    assert counts["skipped_triples"] == 7
    assert "openie.json[2].extracted_triples[2]: not a list of three non-empty strings" in stats.skipped_examples
    assert any(example.startswith("openie.json[2].extracted_triples[7]:") for example in stats.skipped_examples)
    assert any(example.startswith("openie.json[2].extracted_entities[2]:") for example in stats.skipped_examples)


@pytest.mark.parametrize(
    ("relation", "obj", "category"),
    [
        ("is part of", "Quennia Isles", "HIERARCHICAL"),
        ("is a member of", "League of Ports", "HIERARCHICAL"),
        ("is a", "country", "HIERARCHICAL"),
        ("subsidiary of", "Vant Holdings", "HIERARCHICAL"),
        ("born on", "3 May 1950", "TEMPORAL"),
        ("released in", "the 1990s", "TEMPORAL"),
        ("founded in", "1712", "TEMPORAL"),
        ("lived until", "old age", "TEMPORAL"),
        ("located in", "Quennia", "SPATIAL"),
        ("capital of", "Quennia", "SPATIAL"),
        ("born in", "Zorblat Harbour", "SPATIAL"),
        ("in", "Quennia", "SPATIAL"),
        ("caused", "the flood", "CAUSALITY"),
        ("led to", "a treaty", "CAUSALITY"),
        ("starred in", "The Harbour", "ATTRIBUTION"),
        ("named after", "Mirelle Vant", "ATTRIBUTION"),
        ("wrote", "a logbook", "ATTRIBUTION"),
        ("has population of", "1,000", "ATTRIBUTION"),
    ],
)
def test_categories_follow_the_keyword_rule(relation: str, obj: str, category: str) -> None:
    assert categorise(relation, obj) == category


def test_date_like_objects() -> None:
    assert is_date_like("December 2011")
    assert is_date_like("the 18th century")
    assert is_date_like("44 BC")
    assert not is_date_like("100")
    assert not is_date_like("Zorblat 1712 Regatta")
    assert not is_date_like("")


def test_edges_carry_categories_from_the_rule(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    category = {edge["relation"]: edge["category"] for edge in document["edges"]}
    assert category["located_in"] == "SPATIAL"
    assert category["founded_in"] == "TEMPORAL"
    assert category["is_a"] == "HIERARCHICAL"
    assert category["sailed_from"] == "ATTRIBUTION"


def test_tags_are_predicate_words_and_title_slugs_within_limits(dataset: Path) -> None:
    document = musique_document(dataset, group=GROUP)
    harbour, quennia = entity_named(document, "Zorblat Harbour"), entity_named(document, "Quennia")
    assert edge_between(document, harbour, "located_in", quennia)["tags"] == [
        "located",
        "zorblat_harbour",
        "quennia",
        "mirelle_vant_sailor",
    ]
    assert edge_between(document, quennia, "is_a", entity_named(document, "country"))["tags"] == ["quennia"]
    for edge in document["edges"]:
        assert len(edge["tags"]) <= MAX_TAGS
        assert len(set(edge["tags"])) == len(edge["tags"])
        for tag in edge["tags"]:
            assert tag == normalise_tag(tag)
            assert 1 <= len(tag) <= MAX_TAG_LENGTH


def test_tags_stay_within_limits_for_long_titles_and_predicates(tmp_path: Path) -> None:
    title = "A very long invented title " * 10
    corpus = [{"title": title, "text": "Invented."}]
    predicate = " ".join(f"word{n} of the" for n in range(30))
    openie = [
        {
            "idx": 0,
            "title": title,
            "extracted_entities": [],
            "extracted_triples": [["Alpha Thing", predicate, "Beta Thing"]],
        }
    ]
    document = musique_document(write_dataset(tmp_path, corpus, openie), group=GROUP)
    (edge,) = document["edges"]
    assert edge["tags"][:8] == [f"word{n}" for n in range(8)]
    assert len(edge["tags"]) == 9
    assert len(edge["tags"][8]) <= MAX_TAG_LENGTH
    assert len(edge["relation"]) <= 100
    parse_graph_document(document, group=GROUP)


def test_predicate_tags_drop_stop_words() -> None:
    assert predicate_tags("is_a_member_of") == ["member"]
    assert predicate_tags("was_born_in") == ["born"]
    assert predicate_tags("is") == []


def test_two_groups_get_disjoint_ids(dataset: Path) -> None:
    first = musique_document(dataset, group="alpha")
    second = musique_document(dataset, group="beta")
    assert not {node["id"] for node in first["nodes"]} & {node["id"] for node in second["nodes"]}


@pytest.mark.parametrize("group", ["", "has space", "a/b", "x" * 65, "ok\n"])
def test_bad_group_is_rejected(dataset: Path, group: str) -> None:
    with pytest.raises(InvalidGraphDocument, match="group"):
        musique_document(dataset, group=group)


def test_bad_group_is_refused_in_the_shared_words(dataset: Path) -> None:
    with pytest.raises(InvalidGraphDocument) as caught:
        musique_document(dataset, group="a/b")
    assert caught.value.problems == ["group: must be 1–64 letters, digits, '_' or '-'"]


def test_unknown_keys_in_the_third_party_files_are_ignored(tmp_path: Path) -> None:
    corpus, openie = copy_of(CORPUS), copy_of(OPENIE)
    corpus[0]["source"] = "wikipedia"
    openie[0]["model"] = "gpt-4o-mini"
    document = musique_document(write_dataset(tmp_path, corpus, openie), group=GROUP)
    assert len([node for node in document["nodes"] if node["labels"] == ["Episode"]]) == len(CORPUS)


def rejection(directory: Path) -> str:
    with pytest.raises(InvalidGraphDocument) as caught:
        musique_document(directory, group=GROUP)
    return str(caught.value)


def test_length_mismatch_is_rejected(tmp_path: Path) -> None:
    message = rejection(write_dataset(tmp_path, openie=OPENIE[:2]))
    assert "openie.json" in message
    assert "2 documents" in message
    assert "3 passages" in message


def test_missing_file_is_named(tmp_path: Path) -> None:
    write_dataset(tmp_path)
    (tmp_path / "openie.json").unlink()
    assert rejection(tmp_path).startswith("openie.json: not found")


def test_malformed_json_is_named(tmp_path: Path) -> None:
    message = rejection(write_dataset(tmp_path, corpus='[{"title": "x",'))
    assert message.startswith("corpus.json: malformed JSON")


def test_non_list_file_is_rejected(tmp_path: Path) -> None:
    assert rejection(write_dataset(tmp_path, openie={"idx": 0})) == "openie.json: must be a JSON list, not dict"


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (lambda c, o: o[1].pop("extracted_triples"), "openie.json[1].extracted_triples: is required"),
        (lambda c, o: o[2].update(extracted_triples="x"), "openie.json[2].extracted_triples: must be a list, not str"),
        (
            lambda c, o: o[0].update(extracted_entities=None),
            "openie.json[0].extracted_entities: must be a list, not NoneType",
        ),
        (lambda c, o: o[1].update(idx=7), "openie.json[1].idx: is 7"),
        (lambda c, o: o[1].update(title="Elsewhere"), "openie.json[1].title: 'Elsewhere' differs from corpus.json[1]"),
        (lambda c, o: c[2].pop("text"), "corpus.json[2].text: is required"),
        (lambda c, o: c.__setitem__(0, "just a string"), "corpus.json[0]: must be an object, not str"),
        (lambda c, o: o.__setitem__(2, ["not", "an", "object"]), "openie.json[2]: must be an object, not list"),
        # Typed records (issue 17): each field by the import format's rule, the title of both files alike.
        (lambda c, o: o[1].update(title=7), "openie.json[1].title: must be a string, not int"),
        (lambda c, o: o[1].update(title=" "), "openie.json[1].title: must not be empty"),
        (lambda c, o: c[0].update(title=None), "corpus.json[0].title: is required"),
        (lambda c, o: c[0].update(text=["a", "list"]), "corpus.json[0].text: must be a string, not list"),
    ],
)
def test_broken_structure_names_file_and_position(tmp_path: Path, break_it: Any, expected: str) -> None:
    corpus, openie = copy_of(CORPUS), copy_of(OPENIE)
    break_it(corpus, openie)
    assert expected in rejection(write_dataset(tmp_path, corpus, openie))


def test_every_structural_problem_is_reported_at_once(tmp_path: Path) -> None:
    openie = copy_of(OPENIE)
    openie[0].pop("extracted_entities")
    openie[2]["idx"] = "2"
    message = rejection(write_dataset(tmp_path, openie=openie))
    assert "openie.json[0].extracted_entities: is required" in message
    assert "openie.json[2].idx" in message


def test_real_musique_folder_maps_and_validates() -> None:
    if not (REAL_DIR / "corpus.json").is_file() or not (REAL_DIR / "openie.json").is_file():
        pytest.skip(f"MuSiQue data not found at {REAL_DIR} (see ../shared/datasets/README.md); skipping real-data test")
    started = time.perf_counter()
    result = build_musique(REAL_DIR, group="musique-test")
    parsed = parse_graph_document(result.document, group="musique-test")
    elapsed = time.perf_counter() - started
    stats = result.stats
    episodes = [node for node in parsed.nodes if node.kind == "Episode"]
    assert len(episodes) == stats.episodes == REAL_PASSAGES
    assert stats.entities == len(parsed.nodes) - REAL_PASSAGES
    assert 10_000 <= stats.entities <= 30_000
    assert stats.triples_read == 17_419
    assert 0 < stats.skipped_triples < 1_000
    assert 15_000 <= stats.facts == len(parsed.edges) <= stats.triples_read - stats.skipped_triples
    assert stats.mentions == len(parsed.mentions) > stats.entities
    assert any(len(edge.episodes) > 1 for edge in parsed.edges)
    assert {edge.category for edge in parsed.edges} == {
        "HIERARCHICAL",
        "TEMPORAL",
        "SPATIAL",
        "CAUSALITY",
        "ATTRIBUTION",
    }
    assert elapsed < 60
