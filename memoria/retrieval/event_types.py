"""The retrieval events, declared once: an enum of their names and a dataclass per event, for both algorithms.

Activation and PPR yield these objects, and every reader in the process (the REST and MCP answers, MCP's
progress, the context block, the benches) reads their fields; `watch`, `loadtest` and the explorer's pages (which
get the names exported into the page, memoria/templates context) read the names from here, and
tests/retrieval/test_event_types.py checks every example of docs/websocket.md against the fields. An event turns
into the JSON object it travels as only where it leaves the process (memoria.live: the watchers' channel, the
journal, a websocket), with `frame()`: "type" first, then the fields, with the optional ones that were not given
left out (as the frames have always had them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar

_FLATTEN = "flatten"


class EventType(StrEnum):
    """What a retrieval event says happened; the frame's "type"."""

    RETRIEVAL_STARTED = "retrieval_started"
    SEED_STARTED = "seed_started"
    LEVEL_EXPANDED = "level_expanded"
    PATH_COMPLETED = "path_completed"
    SEED_FINISHED = "seed_finished"
    PPR_ITERATION = "ppr_iteration"
    PPR_FINISHED = "ppr_finished"
    RETRIEVAL_FINISHED = "retrieval_finished"


class Algorithm(StrEnum):
    """Which retrieval ran; `retrieve` frames name it too."""

    ACTIVATION = "activation"
    PPR = "ppr"


_FRAME_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _frame_fields(event_class: type) -> tuple[tuple[str, bool], ...]:
    """Each field's name and whether it is flattened into the frame, in order, found once per class: `fields()`
    per frame cost a tenth of an activation's event building."""
    found = _FRAME_FIELDS.get(event_class)
    if found is None:
        found = tuple((item.name, bool(item.metadata.get(_FLATTEN))) for item in fields(event_class))
        _FRAME_FIELDS[event_class] = found
    return found


@dataclass(frozen=True, kw_only=True)
class RetrievalEvent:
    type: ClassVar[EventType]
    omitted_when_none: ClassVar[frozenset[str]] = frozenset()  # left out of the frame when not given, not null
    retrieval_id: str

    def frame(self) -> dict[str, Any]:
        """The event as it travels (websocket, channel layer, journal): built once, then shared by every reader,
        which must not change it."""
        built: dict[str, Any] | None = self.__dict__.get("_frame")
        if built is None:
            built = self.__dict__["_frame"] = self._frame_build()
        return built

    def _frame_build(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": self.type.value}
        for name, flattened in _frame_fields(type(self)):
            value = getattr(self, name)
            if flattened:
                body.update(value)
            elif value is not None or name not in self.omitted_when_none:
                body[name] = value
        return body

    @classmethod
    def field_names(cls) -> tuple[frozenset[str], frozenset[str]]:
        """(the fields every frame of this event has, every field it may have); a flattened field counts as none."""
        declared = [item for item in fields(cls) if not item.metadata.get(_FLATTEN)]
        required = {item.name for item in declared if item.default is MISSING and item.default_factory is MISSING}
        return frozenset(required), frozenset(item.name for item in declared)


@dataclass(frozen=True, kw_only=True)
class RetrievalStarted(RetrievalEvent):
    """What was asked, as watchers and the journal list it; `query_tags` and on are activation's own."""

    type: ClassVar[EventType] = EventType.RETRIEVAL_STARTED
    omitted_when_none: ClassVar[frozenset[str]] = frozenset(
        {"query_tags", "engine", "seed_source", "tag_source", "explain"}
    )
    algorithm: Algorithm
    group: str
    seeds: list[dict[str, Any]]
    params: dict[str, Any]
    budget: dict[str, Any]  # the limits; `retrieval_finished` says what was used
    time: dict[str, Any] | None
    requested_by: str | None = None
    query: str | None = None
    query_tags: list[str] | None = None
    engine: dict[str, Any] | None = None
    seed_source: str | None = None
    tag_source: str | None = None
    explain: bool | None = None


@dataclass(frozen=True, kw_only=True)
class SeedStarted(RetrievalEvent):
    type: ClassVar[EventType] = EventType.SEED_STARTED
    seed_id: str
    score: float


@dataclass(frozen=True, kw_only=True)
class LevelExpanded(RetrievalEvent):
    type: ClassVar[EventType] = EventType.LEVEL_EXPANDED
    seed_id: str
    depth: int
    frontier_size: int
    parents: list[dict[str, Any]]
    selected: int
    elapsed_ms: float


@dataclass(frozen=True, kw_only=True)
class PathCompleted(RetrievalEvent):
    type: ClassVar[EventType] = EventType.PATH_COMPLETED
    seed_id: str
    path: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class SeedFinished(RetrievalEvent):
    """`name` and `labels` when the seed was found; `error` when its exploration failed."""

    type: ClassVar[EventType] = EventType.SEED_FINISHED
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"name", "labels", "error"})
    seed_id: str
    status: str
    score: float
    paths: list[dict[str, Any]]
    round_trips: int
    levels: int
    candidates: int
    elapsed_ms: float
    name: str | None = None
    labels: list[str] | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class PprIteration(RetrievalEvent):
    type: ClassVar[EventType] = EventType.PPR_ITERATION
    iteration: int
    error_bound: float
    top: list[dict[str, Any]]


@dataclass(frozen=True, kw_only=True)
class PprFinished(RetrievalEvent):
    """The REST answer, field for field (memoria/ppr/service.py owns its shape), plus the retrieval id."""

    type: ClassVar[EventType] = EventType.PPR_FINISHED
    answer: Mapping[str, Any] = field(default_factory=dict, metadata={_FLATTEN: True})


@dataclass(frozen=True, kw_only=True)
class RetrievalFinished(RetrievalEvent):
    """Always the last event. Activation's counts and PPR's solve are each algorithm's own; a run cancelled before
    its engine answered has only its status."""

    type: ClassVar[EventType] = EventType.RETRIEVAL_FINISHED
    omitted_when_none: ClassVar[frozenset[str]] = frozenset(
        {"algorithm", "elapsed_ms", "round_trips", "paths", "seeds", "candidates", "iterations", "converged", "budget"}
    )
    status: str
    error: str | None = None
    algorithm: Algorithm | None = None
    elapsed_ms: float | None = None
    round_trips: int | None = None
    paths: int | None = None
    seeds: dict[str, str] | None = None
    candidates: int | None = None
    iterations: int | None = None
    converged: bool | None = None
    budget: dict[str, Any] | None = None


EVENT_CLASSES: Mapping[EventType, type[RetrievalEvent]] = {
    cls.type: cls
    for cls in (
        RetrievalStarted,
        SeedStarted,
        LevelExpanded,
        PathCompleted,
        SeedFinished,
        PprIteration,
        PprFinished,
        RetrievalFinished,
    )
}
