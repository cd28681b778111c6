"""An invented two-person conversation in LoCoMo's file format, with questions whose answers follow from it.

Each question's evidence shares a rare word with it (harmonium, lighthouse, Bergen), so keyword search must find
its turns; the other turns are small talk that shares no such word.
"""

from __future__ import annotations

import json
from pathlib import Path

SESSIONS = {
    1: (
        "2:10 pm on 4 April, 2024",
        [
            ("Oren", "I finally repaired the old harmonium my grandmother left me."),
            ("Liv", "That is lovely. I spent the weekend baking bread with my neighbours."),
            ("Oren", "My sister Maren moved to Bergen last month."),
            ("Liv", "I adopted a grey cat called Pixel."),
            ("Oren", "The weather has been grey and rainy all week."),
            ("Liv", "I watched a long film about whales yesterday."),
        ],
    ),
    2: (
        "10:30 am on 9 May, 2024",
        [
            ("Oren", "How have you been since we last talked?"),
            ("Liv", "I started volunteering at the lighthouse museum on Saturdays."),
            ("Oren", "I am training for the Bergen marathon in September."),
            ("Liv", "Pixel knocked a cup of tea off the table this morning."),
            ("Oren", "Work has been busy, lots of meetings."),
            ("Liv", "I bought new running shoes for the spring."),
        ],
    ),
}
# (question, category, evidence as the file lists it); the key of the n-th question is "conversation-91.json qa[n]".
QUESTIONS: list[dict] = [
    {"question": "Where does Liv volunteer on weekends, the lighthouse museum?", "answer": "x", "category": 4,
     "evidence": ["D2:2"]},
    {"question": "Who left Oren the harmonium he repaired?", "answer": "x", "category": 4, "evidence": ["D1:1"]},
    {"question": "Which links does Oren have with Bergen?", "answer": "x", "category": 1,
     "evidence": ["D1:3; D2:3"]},  # two ids in one entry, as a few LoCoMo items have
    {"question": "When did Oren repair the harmonium?", "answer": "x", "category": 2, "evidence": ["D1:1", "D9:99"]},
    {"question": "Which museum does Oren volunteer at?", "category": 5, "adversarial_answer": "x",
     "evidence": ["D2:2"]},
    {"question": "Would Liv enjoy a whale watching trip?", "answer": "x", "category": 3, "evidence": []},
]  # fmt: skip
LIGHTHOUSE, HARMONIUM, BERGEN, WHEN, ADVERSARIAL, NO_EVIDENCE = range(6)
TURNS = sum(len(turns) for _, turns in SESSIONS.values())


def conversation() -> dict:
    data: dict = {"speaker_a": "Oren", "speaker_b": "Liv", "qa": [dict(item) for item in QUESTIONS]}
    for number, (when, turns) in SESSIONS.items():
        data[f"session_{number}_date_time"] = when
        data[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{index}", "text": text}
            for index, (speaker, text) in enumerate(turns, start=1)
        ]
    return data


def write_conversation(folder: Path, data: object = None, name: str = "conversation-91.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(conversation() if data is None else data), encoding="utf-8")
    return path


def key(index: int, name: str = "conversation-91.json") -> str:
    return f"{name} qa[{index}]"
