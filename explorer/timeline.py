"""An entity's facts laid out on one time axis: where each fact's valid period starts and ends, in percent.

Presentation only (the page draws bars from these numbers); the facts come from memoria.browse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memoria.browse.records import EdgeCard
from memoria.graph.rules import TIMESTAMP_FORMAT

# Room after the last date, as a share of the axis, so a fact that began on it still shows as a bar.
OPEN_END_ROOM = 0.15


@dataclass(frozen=True)
class TimelineRow:
    fact: EdgeCard
    outgoing: bool  # the entity is the fact's source
    other_id: str
    other_name: str
    left: float  # percent of the axis
    width: float
    open_start: bool  # began at an unknown time
    open_end: bool  # still holds


@dataclass(frozen=True)
class Timeline:
    rows: tuple[TimelineRow, ...]
    start: str | None
    end: str | None  # the last date any fact names; the axis runs a little past it when facts still hold


def _moment(timestamp: str) -> datetime:
    return datetime.strptime(timestamp, TIMESTAMP_FORMAT)


def fact_timeline(facts: Sequence[EdgeCard], *, entity_id: str) -> Timeline:
    """Bars on an axis from the earliest to the latest time any of the facts names."""
    moments = [_moment(t) for fact in facts for t in (fact.valid_at, fact.invalid_at) if t]
    first = min(moments, default=None)
    named_last = last = max(moments, default=None)
    if first is not None and last - first < timedelta(days=1):
        last = first + timedelta(days=1)
    if first is not None and any(fact.invalid_at is None for fact in facts):
        last += (last - first) * OPEN_END_ROOM  # facts that still hold run past the last date named
    span = (last - first).total_seconds() if first is not None else 0.0

    def at(timestamp: str | None, default: float) -> float:
        if timestamp is None or not span:
            return default
        return 100.0 * (_moment(timestamp) - first).total_seconds() / span

    rows = []
    for fact in facts:
        left = at(fact.valid_at, 0.0)
        right = at(fact.invalid_at, 100.0)
        outgoing = fact.source == entity_id
        rows.append(
            TimelineRow(
                fact=fact,
                outgoing=outgoing,
                other_id=fact.target if outgoing else fact.source,
                other_name=fact.target_name if outgoing else fact.source_name,
                left=round(left, 2),
                width=round(max(right - left, 0.8), 2),  # an instant still shows as a sliver
                open_start=fact.valid_at is None,
                open_end=fact.invalid_at is None,
            )
        )
    fmt = TIMESTAMP_FORMAT
    return Timeline(
        rows=tuple(rows),
        start=first.strftime(fmt) if first else None,
        end=named_last.strftime(fmt) if named_last else None,
    )
