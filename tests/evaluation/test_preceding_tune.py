"""The preceding-messages grid on an invented conversation: a reply is found by the question it answers only when
its preceding message is indexed with it; both protocols choose from the counts."""

from __future__ import annotations

import json
from pathlib import Path

from memoria.embeddings import embedder
from memoria.evaluation.locomo import locomo_conversation
from memoria.evaluation.preceding_tune import BASELINE, bm25_index, candidate, preceding_tune
from memoria.readmodel.text_index import query_terms
from memoria.search.methods import STOP_WORDS

SMALL_TALK = [
    "The weather has been grey and rainy all week.",
    "I watched a long film about whales yesterday.",
    "Work has been busy, lots of meetings.",
    "I bought new running shoes for the spring.",
    "Pixel knocked a cup of tea off the table this morning.",
    "We should meet for coffee soon.",
]


def conversation(folder: Path, number: int) -> Path:
    turns = [
        ("Ines", "Did you ever finish the patchwork quilt for the county fair?"),
        ("Tomas", "Yes! The judges gave it first prize."),
        *((("Ines", "Tomas")[index % 2], text) for index, text in enumerate(SMALL_TALK)),
    ]
    data = {
        "speaker_a": "Ines",
        "speaker_b": "Tomas",
        "session_1_date_time": "2:10 pm on 4 April, 2024",
        "session_1": [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(turns, start=1)],
        "qa": [{"question": "How did the patchwork quilt do at the county fair?", "answer": "x", "category": 4,
                "evidence": ["D1:2"]}],
    }  # fmt: skip
    path = folder / f"conversation-{number}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_reply_is_found_by_its_preceding_message_and_each_protocol_chooses(tmp_path: Path) -> None:
    conversations = [locomo_conversation(conversation(tmp_path, n), group=f"g{n}") for n in (81, 82, 83)]
    question = conversations[0].questions[0]
    terms = query_terms(question.text, stop_words=STOP_WORDS, max_terms=32)
    reply = next(iter(question.relevant))
    found = {n: [key for key, _ in bm25_index(conversations[0], n).search(terms, limit=10)] for n in (0, 1, 2)}
    assert reply not in found[0]  # the question's words are in the first turn only
    assert reply in found[1] and reply in found[2]
    assert len(found[2]) == 3 and len(found[1]) == 2  # the turn after the reply too, once two are read

    tuning = preceding_tune(conversations, embed=embedder().embed, ks=(1, 2))
    assert tuning.folds is not None and tuning.folds.questions == 3
    assert set(tuning.by_conversation) == {1, 2}
    at_two = tuning.by_conversation[2]
    assert [(choice.conversation, choice.questions) for choice in at_two] == [("81", 1), ("82", 1), ("83", 1)]
    assert {choice.chosen for choice in at_two} <= {candidate(n) for n in (0, 1, 2, 3)}
    assert tuning.held_out_versus_dense[2] is not None
    assert BASELINE in tuning.table.methods
