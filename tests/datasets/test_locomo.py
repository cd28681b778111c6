"""The LoCoMo reader on an invented conversation in the dataset's format: one episode a turn, at its session's time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoria.datasets.locomo import locomo_episodes, session_time
from memoria.errors import InvalidInput


def conversation(sessions: int = 2, turns: int = 3) -> dict:
    """A made-up two-person conversation shaped like LoCoMo's files."""
    data: dict = {"speaker_a": "Oren", "speaker_b": "Liv", "qa": []}
    for number in range(1, sessions + 1):
        data[f"session_{number}_date_time"] = f"{number}:05 pm on {number + 2} March, 2024"
        data[f"session_{number}"] = [
            {
                "speaker": "Oren" if turn % 2 else "Liv",
                "dia_id": f"D{number}:{turn}",
                "text": f"Turn {turn} of session {number}: the Harbour Regatta was fun.",
            }
            for turn in range(1, turns + 1)
        ]
        data[f"session_{number}_summary"] = "ignored"
    return data


def write(tmp_path: Path, data: object, name: str = "conversation-90.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_session_times() -> None:
    assert session_time("1:47 pm on 18 May, 2023") == "2023-05-18T13:47:00Z"
    assert session_time("10:04 am on 19 December, 2023") == "2023-12-19T10:04:00Z"
    assert session_time("12:09 am on 2 January, 2024") == "2024-01-02T00:09:00Z"


def test_one_episode_a_turn(tmp_path: Path) -> None:
    episodes = locomo_episodes(write(tmp_path, conversation()), group="g1")
    assert len(episodes) == 6
    first = episodes[0]
    assert (first.id, first.name, first.source) == ("g1:locomo-90:D1:1", "D1:1", "message")
    assert first.content == "Oren: Turn 1 of session 1: the Harbour Regatta was fun."
    assert first.valid_at == "2024-03-03T13:05:00Z"
    assert episodes[-1].valid_at == "2024-03-04T14:05:00Z"
    assert first.source_description == "LoCoMo conversation 90, session 1"


def test_a_shared_photo_is_part_of_the_turn(tmp_path: Path) -> None:
    data = conversation(sessions=1, turns=2)
    data["session_1"][1] |= {"img_url": ["https://example.org/x.jpg"], "blip_caption": "a photo of  a red kayak"}
    data["session_1"][0] |= {"blip_caption": "  "}
    first, second = locomo_episodes(write(tmp_path, data), group="g1")
    assert first.content == "Oren: Turn 1 of session 1: the Harbour Regatta was fun."
    assert second.content == "Liv: Turn 2 of session 1: the Harbour Regatta was fun. [shares a photo of a red kayak]"


def test_sessions_come_in_number_order(tmp_path: Path) -> None:
    data = conversation(sessions=11, turns=1)
    episodes = locomo_episodes(write(tmp_path, data), group="g1")
    assert [episode.name for episode in episodes] == [f"D{n}:1" for n in range(1, 12)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"speaker_a": "x"}, "holds no session_N turn lists"),
        ([], "must be a LoCoMo conversation object"),
        ({"session_1": [{"speaker": "Oren", "dia_id": "D1:1", "text": "hi"}]}, "session_1_date_time: None"),
        (
            {"session_1_date_time": "1:05 pm on 3 March, 2024", "session_1": [{"speaker": "Oren", "text": "hi"}]},
            "session_1[0]: needs string speaker, dia_id and text",
        ),
        # Typed turns (issue 17): the problem names each bad field as well as the turn.
        (
            {"session_1_date_time": "1:05 pm on 3 March, 2024", "session_1": [{"speaker": "Oren", "text": "hi"}]},
            "session_1[0]: needs string speaker, dia_id and text (dia_id: is required)",
        ),
        (
            {
                "session_1_date_time": "1:05 pm on 3 March, 2024",
                "session_1": [{"speaker": "O", "dia_id": "D1:1", "text": 5}],
            },
            "session_1[0]: needs string speaker, dia_id and text (text: must be a string, not int)",
        ),
        (
            {"session_1_date_time": "1:05 pm on 3 March, 2024", "session_1": ["hi"]},
            "session_1[0]: needs string speaker, dia_id and text (must be an object, not str)",
        ),
        (
            {
                "session_1_date_time": "1:05 pm on 3 March, 2024",
                "session_1": [{"speaker": "O", "dia_id": "D1:1", "text": "hi", "blip_caption": 3}],
            },
            "session_1[0]: needs string speaker, dia_id and text (blip_caption: must be a string, not int)",
        ),
    ],
)
def test_problems_name_file_and_position(tmp_path: Path, data: object, message: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(InvalidInput) as caught:
        locomo_episodes(path, group="g1")
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_keys_the_loader_does_not_read_are_ignored(tmp_path: Path) -> None:
    """The real files' turns carry img_url, query and re-download, which no episode needs."""
    data = conversation(sessions=1, turns=1)
    data["session_1"][0] |= {"img_url": ["https://example.org/x.jpg"], "query": "kayak", "re-download": True}
    (episode,) = locomo_episodes(write(tmp_path, data), group="g1")
    assert episode.content == "Oren: Turn 1 of session 1: the Harbour Regatta was fun."


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "conversation-91.json"
    path.write_text('{"session_1": [')
    with pytest.raises(InvalidInput, match="malformed JSON"):
        locomo_episodes(path, group="g1")
