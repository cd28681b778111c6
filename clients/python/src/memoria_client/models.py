"""Typed shapes of the documented JSON (docs/api.md, docs/search.md, docs/websocket.md).

Each keeps the whole decoded object in `data`, so a field the server adds later is never lost to a caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GroupSummary:
    """One row of `GET /api/groups`."""

    group: str
    episodes: int
    entities: int
    communities: int
    facts: int
    view_bytes: int | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GroupSummary:
        return cls(
            group=data["group"],
            episodes=data["episodes"],
            entities=data["entities"],
            communities=data["communities"],
            facts=data["facts"],
            view_bytes=data.get("view_bytes"),
        )


@dataclass(frozen=True)
class SearchHit:
    """One search result (memoria/search/service.py SearchHit): facts also carry source, target and validity."""

    group: str
    id: str
    name: str
    text: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    source: str | None = None
    target: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchHit:
        return cls(
            group=data["group"],
            id=data["id"],
            name=data.get("name", ""),
            text=data.get("text", ""),
            score=float(data["score"]),
            scores=dict(data.get("scores") or {}),
            source=data.get("source"),
            target=data.get("target"),
            valid_at=data.get("valid_at"),
            invalid_at=data.get("invalid_at"),
        )


@dataclass(frozen=True)
class SearchResults:
    """`GET /api/search`: hits by scope, and which engine answered."""

    facts: tuple[SearchHit, ...]
    entities: tuple[SearchHit, ...]
    episodes: tuple[SearchHit, ...]
    communities: tuple[SearchHit, ...]
    engine: dict[str, Any]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchResults:
        def hits(scope: str) -> tuple[SearchHit, ...]:
            return tuple(SearchHit.from_json(hit) for hit in data.get(scope) or ())

        return cls(
            hits("facts"), hits("entities"), hits("episodes"), hits("communities"), dict(data.get("engine") or {})
        )

    def all(self) -> tuple[SearchHit, ...]:
        """Every hit, scope by scope."""
        return self.facts + self.entities + self.episodes + self.communities


@dataclass(frozen=True)
class FactEpisode:
    """One episode a fact was drawn from: its provenance. `found` is False once the episode was deleted."""

    id: str
    found: bool
    name: str | None = None
    valid_at: str | None = None
    source: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FactEpisode:
        return cls(
            id=data["id"],
            found=bool(data.get("found", True)),
            name=data.get("name"),
            valid_at=data.get("valid_at"),
            source=data.get("source"),
        )


@dataclass(frozen=True)
class Fact:
    """`GET /api/groups/<group>/edges/<id>` (docs/curation.md): one fact with its validity, the episodes it came
    from, and the `version` to send back with an edit. `data` keeps the whole answer."""

    group: str
    id: str
    fact: str
    relation: str | None
    valid_at: str | None
    invalid_at: str | None
    expired_at: str | None
    episodes: tuple[FactEpisode, ...]
    version: str
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fact:
        return cls(
            group=data["group"],
            id=data["id"],
            fact=data.get("fact") or "",
            relation=data.get("relation"),
            valid_at=data.get("valid_at"),
            invalid_at=data.get("invalid_at"),
            expired_at=data.get("expired_at"),
            episodes=tuple(FactEpisode.from_json(row) for row in data.get("episodes") or ()),
            version=str(data.get("version", "")),
            data=data,
        )

    @property
    def episode_ids(self) -> tuple[str, ...]:
        """The ids of the episodes this fact was drawn from, deleted ones included (they are still its source)."""
        return tuple(episode.id for episode in self.episodes)


# --- websocket events -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Any frame of the retrieval sockets; a `type` this client does not know arrives as this, never as a crash."""

    type: str
    retrieval_id: str | None
    data: dict[str, Any]


@dataclass(frozen=True)
class Watching(Event):
    """The watch socket's first frame: the group is being watched."""


@dataclass(frozen=True)
class RetrievalStarted(Event):
    group: str = ""
    seeds: tuple[dict[str, Any], ...] = ()
    query_tags: tuple[str, ...] = ()
    engine: dict[str, Any] | None = None
    requested_by: str | None = None


@dataclass(frozen=True)
class SeedStarted(Event):
    seed_id: str = ""
    score: float = 0.0


@dataclass(frozen=True)
class LevelExpanded(Event):
    seed_id: str = ""
    depth: int = 0
    frontier_size: int = 0
    selected: int = 0


@dataclass(frozen=True)
class PathCompleted(Event):
    seed_id: str = ""
    path: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SeedFinished(Event):
    seed_id: str = ""
    status: str = ""


@dataclass(frozen=True)
class RetrievalFinished(Event):
    """Always a retrieval's last event; `status` is completed, cancelled, failed, ..."""

    status: str = ""
    paths: int = 0
    elapsed_ms: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class ErrorEvent(Event):
    """An error frame: the socket stays open unless the code says otherwise (docs/websocket.md)."""

    code: str = ""
    message: str = ""
    retry_after: float | None = None


def _fields(kind: str, frame: dict[str, Any]) -> dict[str, Any]:
    """The typed fields of one event type, read leniently: a missing field takes its default."""
    get = frame.get
    if kind == "retrieval_started":
        return {
            "group": get("group", ""),
            "seeds": tuple(get("seeds") or ()),
            "query_tags": tuple(get("query_tags") or ()),
            "engine": get("engine"),
            "requested_by": get("requested_by"),
        }
    if kind == "seed_started":
        return {"seed_id": get("seed_id", ""), "score": float(get("score") or 0.0)}
    if kind == "level_expanded":
        return {
            "seed_id": get("seed_id", ""),
            "depth": int(get("depth") or 0),
            "frontier_size": int(get("frontier_size") or 0),
            "selected": int(get("selected") or 0),
        }
    if kind == "path_completed":
        return {"seed_id": get("seed_id", ""), "path": dict(get("path") or {})}
    if kind == "seed_finished":
        return {"seed_id": get("seed_id", ""), "status": get("status", "")}
    if kind == "retrieval_finished":
        paths = get("paths", 0)
        return {
            "status": get("status", ""),
            "paths": paths if isinstance(paths, int) else len(paths or ()),
            "elapsed_ms": float(get("elapsed_ms") or 0.0),
            "error": get("error"),
        }
    if kind == "error":
        retry_after = get("retry_after")
        return {
            "code": str(get("code", "")),
            "message": str(get("message", "")),
            "retry_after": float(retry_after) if isinstance(retry_after, int | float) else None,
        }
    return {}


EVENT_TYPES: dict[str, type[Event]] = {
    "watching": Watching,
    "retrieval_started": RetrievalStarted,
    "seed_started": SeedStarted,
    "level_expanded": LevelExpanded,
    "path_completed": PathCompleted,
    "seed_finished": SeedFinished,
    "retrieval_finished": RetrievalFinished,
    "error": ErrorEvent,
}


def event_from_json(frame: Any) -> Event:
    """The typed event of one decoded frame; anything unexpected (even a non-object) becomes a generic `Event`."""
    if not isinstance(frame, dict):
        return Event(type="", retrieval_id=None, data={"value": frame})
    kind = frame.get("type") if isinstance(frame.get("type"), str) else ""
    rid = frame.get("retrieval_id") if isinstance(frame.get("retrieval_id"), str) else None
    cls = EVENT_TYPES.get(kind, Event)
    try:
        return cls(type=kind, retrieval_id=rid, data=frame, **_fields(kind, frame))
    except (TypeError, ValueError):  # a known type with fields of unexpected types: still delivered, untyped
        return Event(type=kind, retrieval_id=rid, data=frame)
