"""LoCoMo conversations as episodes: each turn one episode, named by its dia_id, at its session's date.

The content is "speaker: text", so the offline extractor finds the speaker as an entity; a turn that shares a
photo adds the dataset's caption of it, "[shares a photo of …]", as LoCoMo's own retrieval baselines do (the
photo is part of what was said: questions ask about it). The session's "1:47 pm on 18 May, 2023" is the
reference time (read as UTC: the dataset gives no zone). Turns are messages, in order, so each stores the two
before it for search (memoria.ingest.preceding).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memoria.datasets.records import SESSION_TIME, LocomoTurn, session_time  # noqa: F401 (session_time re-exported)
from memoria.errors import InvalidInput
from memoria.ingest.episodes import EpisodeInput, episode_input_parse
from memoria.interchange.jsontext import file_bytes, json_decode
from memoria.interchange.records import record_parse, record_problems

SESSION_KEY = re.compile(r"^session_(\d+)$")
# Ids carry the group and the conversation: dia_ids repeat across conversations, and ids are global.
EPISODE_ID = "{group}:locomo-{conversation}:{dia_id}"
MAX_PROBLEMS = 50


def turn_content(turn: LocomoTurn) -> str:
    """ "speaker: text", and " [shares caption]" when the turn shares a photo the dataset describes."""
    caption = turn.blip_caption
    shared = f" [shares {' '.join(caption.split())}]" if caption and caption.strip() else ""
    return f"{turn.speaker}: {turn.text}{shared}"


def _turn(raw: Any, where: str, problems: list[str]) -> LocomoTurn | None:
    """The turn as its model, or None with one problem that names the turn and each bad field."""
    found: list[str] = []
    turn = record_parse(LocomoTurn, raw, "", found)
    if turn is None:
        details = "; ".join(problem.removeprefix(": ") for problem in found)
        problems.append(f"{where}: needs string speaker, dia_id and text ({details})")
    return turn


def conversation_name(path: Path) -> str:
    return path.stem.removeprefix("conversation-")


def conversation_data(path: Path) -> dict[str, Any]:
    """The file's JSON object, unchecked inside; InvalidInput says why there is none."""
    data = json_decode(file_bytes(path), where=str(path))
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: must be a LoCoMo conversation object, not {type(data).__name__}")
    return data


def locomo_episodes(path: Path, *, group: str) -> list[EpisodeInput]:
    """Every turn of one conversation file, in session order; InvalidInput names each bad position."""
    data = conversation_data(path)
    sessions = sorted(
        (int(match.group(1)), key) for key in data if (match := SESSION_KEY.match(key)) and isinstance(data[key], list)
    )
    if not sessions:
        raise InvalidInput(f"{path}: holds no session_N turn lists (is it a LoCoMo conversation?)")
    episodes: list[EpisodeInput] = []
    problems: list[str] = []
    conversation = conversation_name(path)
    for number, key in sessions:
        stamp_key = f"{key}_date_time"
        try:
            reference = SESSION_TIME.validate_python(data.get(stamp_key))
        except ValidationError as error:
            problems.extend(f"{path}: {problem}" for problem in record_problems(error, stamp_key))
            continue
        for index, raw_turn in enumerate(data[key]):
            where = f"{path}: {key}[{index}]"
            turn = _turn(raw_turn, where, problems)
            if turn is None:
                continue
            raw = {
                "id": EPISODE_ID.format(group=group, conversation=conversation, dia_id=turn.dia_id),
                "name": turn.dia_id,
                "content": turn_content(turn),
                "source": "message",
                "source_description": f"LoCoMo conversation {conversation}, session {number}",
                "valid_at": reference,
            }
            try:
                episodes.append(episode_input_parse(raw, where=where))
            except InvalidInput as error:
                problems.extend(error.problems)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise InvalidInput(problems)
    return episodes
