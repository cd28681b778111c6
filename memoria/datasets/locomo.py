"""LoCoMo conversations as episodes: each turn one episode, named by its dia_id, at its session's date.

The content is "speaker: text", so the offline extractor finds the speaker as an entity; a turn that shares a
photo adds the dataset's caption of it, "[shares a photo of …]", as LoCoMo's own retrieval baselines do (the
photo is part of what was said: questions ask about it). The session's "1:47 pm on 18 May, 2023" is the
reference time (read as UTC: the dataset gives no zone). Turns are messages, in order, so each stores the two
before it for search (memoria.ingest.preceding).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memoria.errors import InvalidInput
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.ingest.episodes import EpisodeInput, episode_input_parse
from memoria.interchange.jsontext import file_bytes, json_decode, shown

SESSION_KEY = re.compile(r"^session_(\d+)$")
SESSION_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
# Ids carry the group and the conversation: dia_ids repeat across conversations, and ids are global.
EPISODE_ID = "{group}:locomo-{conversation}:{dia_id}"
TURN_KEYS = ("speaker", "dia_id", "text")
MAX_PROBLEMS = 50


def session_time(value: str) -> str:
    """ "1:47 pm on 18 May, 2023" → "2023-05-18T13:47:00Z"."""
    if not isinstance(value, str):
        raise ValueError(f"a session date is a string, not {type(value).__name__}")
    moment = datetime.strptime(" ".join(value.split()), SESSION_TIME_FORMAT).replace(tzinfo=UTC)
    return moment.strftime(TIMESTAMP_FORMAT)


def turn_content(turn: dict[str, Any]) -> str:
    """ "speaker: text", and " [shares caption]" when the turn shares a photo the dataset describes."""
    caption = turn.get("blip_caption")
    shared = f" [shares {' '.join(caption.split())}]" if isinstance(caption, str) and caption.strip() else ""
    return f"{turn['speaker']}: {turn['text']}{shared}"


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
            reference = session_time(data[stamp_key])
        except (KeyError, ValueError):
            problems.append(
                f"{path}: {stamp_key}: {shown(data.get(stamp_key))} is not a date like '1:47 pm on 18 May, 2023'"
            )
            continue
        for index, turn in enumerate(data[key]):
            where = f"{path}: {key}[{index}]"
            if not isinstance(turn, dict) or not all(isinstance(turn.get(k), str) for k in TURN_KEYS):
                problems.append(f"{where}: needs string speaker, dia_id and text")
                continue
            raw = {
                "id": EPISODE_ID.format(group=group, conversation=conversation, dia_id=turn["dia_id"]),
                "name": turn["dia_id"],
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
