"""The LoCoMo question reader: checked items, evidence mapped to episode ids, data quirks counted, not fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoria.errors import InvalidInput
from memoria.evaluation.locomo import (
    ADVERSARIAL,
    REPORT_ROWS,
    category_label,
    default_locomo_dir,
    locomo_conversation,
    locomo_questions,
)
from tests.evaluation.locomo_fixture import (
    BERGEN,
    HARMONIUM,
    NO_EVIDENCE,
    TURNS,
    WHEN,
    conversation,
    key,
    write_conversation,
)


def test_questions_as_listed(tmp_path: Path) -> None:
    questions = locomo_questions(write_conversation(tmp_path))
    assert len(questions) == 6
    assert questions[HARMONIUM].question == "Who left Oren the harmonium he repaired?"
    assert questions[HARMONIUM].category == 4 and questions[HARMONIUM].index == HARMONIUM
    assert questions[BERGEN].evidence == ("D1:3", "D2:3")  # "D1:3; D2:3" split
    assert questions[NO_EVIDENCE].evidence == ()


def test_conversation_maps_evidence_to_episode_ids(tmp_path: Path) -> None:
    found = locomo_conversation(write_conversation(tmp_path), group="g1")
    assert (found.name, found.group, len(found.episodes)) == ("91", "g1", TURNS)
    by_key = {question.key: question for question in found.questions}
    assert by_key[key(BERGEN)].relevant == {"g1:locomo-91:D1:3", "g1:locomo-91:D2:3"}
    assert by_key[key(BERGEN)].label == "1 multi-hop"
    assert by_key[key(WHEN)].relevant == {"g1:locomo-91:D1:1"}  # D9:99 names no turn
    assert found.unknown_evidence == [f"{key(WHEN)}: 'D9:99'"]
    assert found.without_evidence == [key(NO_EVIDENCE)]
    assert key(NO_EVIDENCE) not in by_key and len(found.questions) == 5
    assert by_key[key(4)].label == category_label(ADVERSARIAL) == "5 adversarial"


def test_limit_questions_takes_the_first_ones(tmp_path: Path) -> None:
    found = locomo_conversation(write_conversation(tmp_path), group="g1", limit_questions=2)
    assert [question.key for question in found.questions] == [key(0), key(1)]


def test_rows_keep_adversarial_apart() -> None:
    titles = [row.title for row in REPORT_ROWS]
    assert titles == ["1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop", "all but 5", "5 adversarial"]
    assert "5 adversarial" not in REPORT_ROWS[4].labels and len(REPORT_ROWS[4].labels) == 4
    assert default_locomo_dir().parts[-3:] == ("shared", "datasets", "locomo")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data.pop("qa"), "has no 'qa' list"),
        (lambda data: data.update(qa={"q": 1}), "'qa' must be a list"),
        (lambda data: data["qa"].append("what?"), r"qa\[6\]: must be an object"),
        (lambda data: data["qa"][1].pop("evidence"), r"qa\[1\]: missing key\(s\) evidence"),
        (lambda data: [item.pop("category") for item in data["qa"][:2]], r"qa\[0\]: missing.*qa\[1\]: missing"),
        (lambda data: data["qa"][2].update(category=7), r"qa\[2\]\.category: 7 is not one of 1 \(multi-hop\)"),
        (lambda data: data["qa"][2].update(category=True), r"qa\[2\]\.category: True"),
        (lambda data: data["qa"][2].update(category=[1]), r"qa\[2\]\.category: \[1\]"),
        (lambda data: data["qa"][0].update(question=" "), r"qa\[0\]\.question: must be a non-empty text"),
        (lambda data: data["qa"][0].update(evidence="D1:1"), r"qa\[0\]\.evidence: must be a list of dia_id"),
        (lambda data: data["qa"][0].update(evidence=[3]), r"qa\[0\]\.evidence: must be a list of dia_id"),
    ],
)
def test_bad_questions_are_named(tmp_path: Path, change: object, message: str) -> None:
    data = conversation()
    change(data)  # type: ignore[operator]
    with pytest.raises(InvalidInput, match=message):
        locomo_questions(write_conversation(tmp_path, data))


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match=r"conversation-404\.json: cannot read: .*No such file"):
        locomo_questions(tmp_path / "conversation-404.json")
    broken = tmp_path / "conversation-92.json"
    broken.write_text('{"qa": [')
    with pytest.raises(InvalidInput, match=r"conversation-92\.json: malformed JSON at line 1"):
        locomo_questions(broken)
    listed = tmp_path / "conversation-93.json"
    listed.write_text(json.dumps([1, 2]))
    with pytest.raises(InvalidInput, match="must be a LoCoMo conversation object"):
        locomo_questions(listed)
    no_turns = write_conversation(tmp_path, {"qa": []}, name="conversation-94.json")
    with pytest.raises(InvalidInput, match="no session_N turn lists"):
        locomo_conversation(no_turns, group="g1")


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        (["D1:3 D2:3"], {"D1:3", "D2:3"}),  # space-separated in one entry
        (["D2:1 D1:4 D1:6"], {"D2:1", "D1:4", "D1:6"}),  # three in one entry, as 'D9:1 D4:4 D4:6'
        (["D1:3; D2:3", "D2:5"], {"D1:3", "D2:3", "D2:5"}),  # semicolon-separated beside a plain entry
        (["D1:03", "D02:3"], {"D1:3", "D2:3"}),  # zero-padded
        (["D2:05"], {"D2:5"}),  # as 'D30:05': the turn the data calls D2:5
        (["D1:3 D2:05"], {"D1:3", "D2:5"}),  # both at once
        (["D:1:3"], {"D1:3"}),  # a stray colon
        (["D1:3,D2:3"], {"D1:3", "D2:3"}),
    ],
)
def test_evidence_written_loosely_still_names_its_turns(tmp_path: Path, evidence: list[str], expected: set) -> None:
    path = write_conversation(tmp_path)
    data = json.loads(path.read_text())
    data["qa"][BERGEN]["evidence"] = evidence
    path.write_text(json.dumps(data))
    found = locomo_conversation(path, group="g1")
    by_key = {question.key: question for question in found.questions}
    assert by_key[key(BERGEN)].relevant == {f"g1:locomo-91:{dia_id}" for dia_id in expected}
    assert not [problem for problem in found.unknown_evidence if problem.startswith(key(BERGEN))]
