"""The MuSiQue question reader: gold passages matched to corpus indexes and episode ids, every bad place named.

The fixture is invented: six passages in HippoRAG's file format, of which two chains (bridge → town → painter,
and a lighthouse → its keeper) answer the questions; the rest is unrelated small talk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memoria.errors import InvalidInput
from memoria.evaluation.musique import (
    ALL,
    baseline_gains,
    musique_passages,
    musique_questions,
    musique_set,
    passage_id,
    report_rows,
)
from memoria.evaluation.recall import RecallTable

# (title, text, triples) — passage i of corpus.json is document i of openie.json.
PASSAGES: list[tuple[str, str, list[list[str]]]] = [
    (
        "Velmora Bridge",
        "The Velmora Bridge crosses the Tansk river in the town of Oldharbor.",
        [["Velmora Bridge", "crosses", "Tansk river"], ["Velmora Bridge", "located in", "Oldharbor"]],
    ),
    (
        "Oldharbor",
        "Oldharbor is the birthplace of the painter Ilse Quarry.",
        [["Ilse Quarry", "born in", "Oldharbor"], ["Ilse Quarry", "is a", "painter"]],
    ),
    (
        "Ilse Quarry",
        "Ilse Quarry painted the mural Blue Orchard in 1931.",
        [["Ilse Quarry", "painted", "Blue Orchard"]],
    ),
    (
        "Grevik Lighthouse",
        "The Grevik Lighthouse was kept for forty years by Aldo Penn.",
        [["Grevik Lighthouse", "kept by", "Aldo Penn"]],
    ),
    ("Bread", "Baking bread needs flour, water and patience.", [["bread", "needs", "flour"]]),
    ("Marathon", "Running a marathon takes months of training.", [["marathon", "takes", "months of training"]]),
]
PASSAGE_COUNT = len(PASSAGES)
TWO_HOP, ONE_HOP, THREE_HOP = 0, 1, 2  # positions in QUERIES
QUERIES: list[dict[str, Any]] = [
    {"id": "2hop__1_2", "question": "Which painter was born in the town of the Velmora Bridge?", "support": [0, 1]},
    {"id": "1hop__3", "question": "Who kept the Grevik Lighthouse?", "support": [3]},
    {
        "id": "3hop__1_2_3",
        "question": "What mural did the painter born by the Velmora Bridge paint?",
        "support": [0, 1, 2],
    },
]


def paragraphs(support: list[int]) -> list[dict[str, Any]]:
    """Every passage as a candidate, the supporting ones marked, as MuSiQue lists a question's 20 candidates."""
    return [
        {"idx": index, "title": title, "paragraph_text": text, "is_supporting": index in support}
        for index, (title, text, _) in enumerate(PASSAGES)
    ]


def write_musique(directory: Path, *, queries: list[Any] | None = None) -> Path:
    """corpus.json, openie.json and queries.json in `directory`; `queries` replaces the questions as given."""
    corpus = [{"title": title, "text": text} for title, text, _ in PASSAGES]
    openie = [
        {
            "idx": index,
            "title": title,
            "extracted_entities": sorted({part for triple in triples for part in (triple[0], triple[2])}),
            "extracted_triples": triples,
        }
        for index, (title, _, triples) in enumerate(PASSAGES)
    ]
    if queries is None:
        queries = [
            {"id": item["id"], "question": item["question"], "answer": "x", "paragraphs": paragraphs(item["support"])}
            for item in QUERIES
        ]
    (directory / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (directory / "openie.json").write_text(json.dumps(openie), encoding="utf-8")
    (directory / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    return directory


def key(position: int) -> str:
    return f"{position}:{QUERIES[position]['id']}"


def test_questions_map_supporting_passages_to_corpus_indexes(tmp_path: Path) -> None:
    write_musique(tmp_path)
    questions = musique_questions(tmp_path, musique_passages(tmp_path))
    assert [question.supporting for question in questions] == [(0, 1), (3,), (0, 1, 2)]
    assert questions[ONE_HOP].id == "1hop__3" and questions[ONE_HOP].question == QUERIES[ONE_HOP]["question"]


def test_set_names_the_loaders_episode_ids(tmp_path: Path) -> None:
    dataset = musique_set(write_musique(tmp_path), group="g1")
    assert len(dataset.passages) == PASSAGE_COUNT and dataset.episode_ids()[0] == "mq:g1:p0"
    by_key = {question.key: question for question in dataset.questions}
    assert by_key[key(TWO_HOP)].relevant == {"mq:g1:p0", "mq:g1:p1"}
    assert by_key[key(TWO_HOP)].label == "2-hop" and by_key[key(THREE_HOP)].label == "3-hop"
    assert dataset.hops == (1, 2, 3)
    assert [row.title for row in report_rows(dataset.hops)] == ["1-hop", "2-hop", "3-hop", ALL]
    assert report_rows(dataset.hops)[-1].labels == {"1-hop", "2-hop", "3-hop"}


def test_limit_questions_takes_the_first_ones(tmp_path: Path) -> None:
    dataset = musique_set(write_musique(tmp_path), group="g1", limit_questions=2)
    assert [question.key for question in dataset.questions] == [key(0), key(1)]
    assert dataset.hops == (1, 2)


def test_passage_id_matches_the_loader() -> None:
    assert passage_id("abc", 17) == "mq:abc:p17"


def test_gains_are_recall_points_over_dense() -> None:
    table = RecallTable(ks=(1, 2), methods=("dense", "ppr"))
    table.record(key="q", label="2-hop", method="dense", retrieved=["a", "x"], relevant={"a", "b"}, seconds=0)
    table.record(key="q", label="2-hop", method="ppr", retrieved=["a", "b"], relevant={"a", "b"}, seconds=0)
    gains = baseline_gains(table, labels=frozenset({"2-hop"}))
    assert gains == {"ppr": {1: pytest.approx(0.0), 2: pytest.approx(50.0)}}


def problems_of(directory: Path) -> list[str]:
    with pytest.raises(InvalidInput) as caught:
        musique_set(directory, group="g1")
    return caught.value.problems


def test_missing_or_malformed_files(tmp_path: Path) -> None:
    assert problems_of(tmp_path) == [f"corpus.json: not found in {tmp_path}"]
    write_musique(tmp_path)
    (tmp_path / "queries.json").write_text("[{", encoding="utf-8")
    assert problems_of(tmp_path)[0].startswith("queries.json: malformed JSON")
    (tmp_path / "queries.json").write_text('{"questions": []}', encoding="utf-8")
    assert problems_of(tmp_path) == ["queries.json: must be a JSON list, not dict"]
    (tmp_path / "queries.json").write_text("[]", encoding="utf-8")
    assert problems_of(tmp_path) == ["queries.json: holds no questions"]


def test_bad_questions_are_each_named(tmp_path: Path) -> None:
    unknown = paragraphs([0])
    unknown[0]["paragraph_text"] = "A passage the corpus does not hold."
    write_musique(
        tmp_path,
        queries=[
            "not an object",
            {"id": "a", "question": "q?"},
            {"id": "b", "question": "  ", "paragraphs": paragraphs([0])},
            {"id": "c", "question": "q?", "paragraphs": [{"title": "Bread"}]},
            {"id": "d", "question": "q?", "paragraphs": unknown},
            {"id": "e", "question": "q?", "paragraphs": paragraphs([])},
        ],
    )
    assert problems_of(tmp_path) == [
        "queries.json[0]: must be an object with id, question and paragraphs",
        "queries.json[1]: missing key(s) paragraphs",
        "queries.json[2].question: must be a non-empty text",
        "queries.json[3].paragraphs[0]: must be an object with a title, a paragraph_text and is_supporting true/false",
        "queries.json[4].paragraphs[0]: supporting passage 'Velmora Bridge' is not in corpus.json (title + text)",
        "queries.json[5].paragraphs: none has is_supporting true, so the question cannot be scored",
    ]


def test_bad_corpus_passage_is_named(tmp_path: Path) -> None:
    write_musique(tmp_path)
    (tmp_path / "corpus.json").write_text(json.dumps([{"title": "t"}]), encoding="utf-8")
    assert problems_of(tmp_path) == ["corpus.json[0]: must be an object with a title and a text"]
