"""What an episode is on the way in: one validated shape for the API, the commands and the pipeline.

Every problem names its field (`episodes[3].valid_at`), and ids are derived when absent,
so re-adding the same input finds the episode already stored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, RootModel

from memoria.errors import InvalidInput
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.interchange.records import (
    OptionalName,
    OptionalRecordId,
    RecordTimestamp,
    RequiredEpisodeSource,
    RequiredText,
    record_parse,
)
from memoria.requests.scope import MemoryScope
from memoria.requests.vocabulary import ListOf, OneOf, PatternText, RequestModel, input_parse

DEFAULT_SOURCE = "message"
# One request is one transaction: bounded so that a request stays a few seconds of work.
MAX_EPISODES_PER_REQUEST = 500
BOOLEAN_WORDS = {"true": True, "1": True, "false": False, "0": False}
NAME_FROM_CONTENT = 80  # characters of the content that name an episode given without a name


@dataclass(frozen=True)
class EpisodeInput:
    """An episode as given: only `content` is required; `valid_at` is a normalised UTC timestamp when present."""

    content: str
    id: str | None = None
    name: str | None = None
    source: str = DEFAULT_SOURCE
    source_description: str = ""
    valid_at: str | None = None
    scope: MemoryScope = field(default_factory=MemoryScope)  # whose it is: none by default


@dataclass(frozen=True)
class Episode:
    """An episode ready for the pipeline: id, name and reference time are always set."""

    id: str
    name: str
    content: str
    source: str
    source_description: str
    reference_time: str
    scope: MemoryScope = field(default_factory=MemoryScope)


class EpisodeBody(MemoryScope):
    """An episode as a caller sends it: the same fields, rules and words as an imported episode node, and the
    scope it belongs to (user, agent, session, metadata: memoria/requests/scope.py)."""

    content: RequiredText = Field(description="what was said or written; the only required field")
    id: OptionalRecordId = Field(default=None, description="derived from the input when absent")
    name: OptionalName = Field(default=None, description="the first words of the content when absent")
    source: RequiredEpisodeSource = DEFAULT_SOURCE
    source_description: OptionalName = None
    valid_at: RecordTimestamp = Field(default=None, description="when it happened (default: when it is added)")

    def episode(self) -> EpisodeInput:
        name = self.name.strip() if self.name else ""
        return EpisodeInput(
            content=self.content,
            id=self.id,
            name=name or None,
            source=self.source,
            source_description=self.source_description or "",
            valid_at=self.valid_at,
            scope=self.memory_scope(),
        )


CHAT_ROLES = ("user", "assistant", "system", "tool")
SPEAKER_PATTERN = re.compile(r"[^\x00-\x1f\x7f()]{1,100}\Z")
Speaker = PatternText(SPEAKER_PATTERN, "a name: 1–100 characters, no parentheses or control characters", "who spoke")


class ChatMessage(RequestModel):
    """A chat turn as mem0, Zep and the chat APIs give it."""

    role: OneOf(CHAT_ROLES) = Field(description="who spoke: user, assistant, system or tool")  # type: ignore[valid-type]
    name: Speaker | None = Field(default=None, description="the speaker's name, when the role is not enough")
    content: RequiredText = Field(description="what was said")

    def text(self) -> str:
        """What the episode says, naming who spoke, so extraction and search read the speaker with the words."""
        speaker = f"{self.name.strip()} ({self.role})" if self.name and self.name.strip() else self.role
        return f"{speaker}: {self.content}"


class MessagesBody(MemoryScope):
    """Chat messages to remember: one episode each, in the order given, all of the request's scope and time."""

    messages: ListOf(ChatMessage, "messages", non_empty=True, most=MAX_EPISODES_PER_REQUEST) = Field(  # type: ignore[valid-type]
        description=f"1–{MAX_EPISODES_PER_REQUEST} messages, each {{role, name?, content}}"
    )
    valid_at: RecordTimestamp = Field(default=None, description="when they were said (default: when added)")

    def episodes(self, group: str) -> list[EpisodeInput]:
        """One episode a message, source `message`. Each id is derived from the whole request and the message's
        place in it, so the same request sent again changes nothing, and "ok" said twice is two episodes."""
        scope = self.memory_scope()
        whole = hashlib.sha256(self.model_dump_json().encode()).hexdigest()
        return [
            EpisodeInput(
                content=message.text(),
                id="msg-" + hashlib.sha256(f"{group}\x1f{whole}\x1f{index}".encode()).hexdigest()[:24],
                source=DEFAULT_SOURCE,
                valid_at=self.valid_at,
                scope=scope,
            )
            for index, message in enumerate(self.messages)
        ]


def _episode_problems(raw: Any, where: str) -> tuple[EpisodeInput | None, list[str]]:
    problems: list[str] = []
    body = record_parse(EpisodeBody, raw, where, problems)
    return (body.episode() if body is not None else None), problems


def episode_input_parse(raw: Any, *, where: str = "episode") -> EpisodeInput:
    """Validate one decoded episode object; InvalidInput names every bad field."""
    episode, problems = _episode_problems(raw, where)
    if problems:
        raise InvalidInput(problems)
    return episode


def episodes_parse_at(items: Iterable[tuple[str, Any]]) -> list[EpisodeInput]:
    """Validate episode objects, each with the place it came from (`episodes[3]`, `chat.jsonl:12`).

    The problems of all of them are reported at once; an id given twice is one of them.
    """
    episodes: list[EpisodeInput] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for where, raw in items:
        episode, found = _episode_problems(raw, where)
        problems.extend(found)
        if episode is None:
            continue
        if episode.id is not None:
            if episode.id in seen:
                problems.append(f"{where}.id: {episode.id!r} repeats {seen[episode.id]}")
            seen.setdefault(episode.id, where)
        episodes.append(episode)
    if problems:
        raise InvalidInput(problems)
    return episodes


def episode_inputs_parse(items: list[Any], *, where: str = "episodes") -> list[EpisodeInput]:
    """Validate a list of episode objects, reporting the problems of all of them at once."""
    return episodes_parse_at((f"{where}[{index}]", raw) for index, raw in enumerate(items))


EpisodeBatch = Annotated[list[EpisodeBody], Field(min_length=1, max_length=MAX_EPISODES_PER_REQUEST)]


class EpisodesPost(RootModel[EpisodeBody | EpisodeBatch | MessagesBody]):
    """The body of POST …/episodes: one episode, a list of 1–MAX_EPISODES_PER_REQUEST stored all or nothing, or
    chat messages with their scope."""


def _yes_or_no(value: Any) -> Any:
    if isinstance(value, str):
        answer = BOOLEAN_WORDS.get(value.strip().lower())
        if answer is None:
            raise ValueError(f"{value!r} must be true or false")
        return answer
    return value


class EpisodesQuery(RequestModel):
    """The query of POST …/episodes."""

    update_communities: Annotated[bool, BeforeValidator(_yes_or_no)] = Field(
        default=True, description="refresh the communities of touched entities (default true)"
    )

    @classmethod
    def given(cls, params: Mapping[str, str]) -> dict[str, str]:
        """Only this model's parameters: others (a client's cache-buster) were always let through."""
        return {name: params[name] for name in cls.model_fields if name in params}


def episodes_post_parse(data: Any, *, group: str) -> list[EpisodeInput]:
    """The episodes of a POST body; each problem names its episode (`episode.content`, `episodes[3].valid_at`).
    A body with `messages` is a chat's turns (`messages[2].role`), one episode each."""
    if isinstance(data, dict) and "messages" in data:
        return input_parse(MessagesBody, data).episodes(group)
    if isinstance(data, dict):
        return [episode_input_parse(data, where="episode")]
    if not isinstance(data, list):
        raise InvalidInput("body: must be an episode object or a list of them")
    if not 1 <= len(data) <= MAX_EPISODES_PER_REQUEST:
        raise InvalidInput(f"episodes: send 1–{MAX_EPISODES_PER_REQUEST} episodes, not {len(data)}")
    return episode_inputs_parse(data, where="episodes")


def derived_episode_id(group: str, episode: EpisodeInput) -> str:
    """A stable id for an episode given without one: the same input in the same group gets the same id. Its scope
    counts when it has one (two users saying "yes" said two things); an unscoped episode keeps the id it always had."""
    parts: tuple[str, ...] = (group, episode.name or "", episode.content, episode.valid_at or "", episode.source)
    if not episode.scope.empty:
        parts += (episode.scope.described(),)
    return "ep-" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def default_name(content: str) -> str:
    """The first words of the content, cut at a word boundary."""
    line = " ".join(content.split())
    if len(line) <= NAME_FROM_CONTENT:
        return line
    cut = line[:NAME_FROM_CONTENT].rsplit(" ", 1)[0]
    return cut + "…"


def episode_prepare(*, group: str, episode: EpisodeInput, now: datetime | None = None) -> Episode:
    """Fill in what was left out: an id derived from the input, a name from the content, now as reference time."""
    moment = (now or datetime.now(UTC)).strftime(TIMESTAMP_FORMAT)
    return Episode(
        id=episode.id or derived_episode_id(group, episode),
        name=episode.name or default_name(episode.content),
        content=episode.content,
        source=episode.source,
        source_description=episode.source_description,
        reference_time=episode.valid_at or moment,
        scope=episode.scope,
    )
