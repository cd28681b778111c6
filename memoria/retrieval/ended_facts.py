"""Which facts of a group do not count at a recent moment, known per group version, so the Cypher engine can
leave out a short list of fact ids instead of testing every incident fact's four times.

At a moment the Cypher level queries test the definition (memoria/graph/asof.py) on every candidate fact and
on every incident fact of each node whose degree they count; that cost +14% p50 on `bench activation` without
query tags (docs/benchmarks.md), most of it the degrees. But at a moment no earlier than a scan of the group's
facts, only the facts that scan *bounded* can fail the definition: those already given an end (`invalid_at`),
or starting or recorded after the scan. Every other fact began and was recorded before the scan, has no end,
and so counts at any later moment. The bounded facts are few in a memory that mostly grows, so each moment's
failing ones are found here in Python from the bounded facts' stored times, and the queries run as for every
fact with `NOT r.id IN $excluded`, their degrees lowered by the excluded facts each node touches.

Kept per group with the version it was read at: a retrieval reads the version first (one small round trip),
so a write that returned before it started is always seen, and a stale or missing scan only means the
moment's predicate is sent as before while a new scan runs in a worker thread. A moment before the scan (a
question about the past), a group with more bounded facts than MAX_BOUNDED, or a bounded fact joining a node
to itself (whose degree Cypher's undirected count may take twice) also keep the predicate. The cost per group
depends only on that group: each scan reads one group's facts, and the map keeps at most MAX_GROUPS of them.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum

import neo4j

from memoria.graph import driver as graph_driver
from memoria.graph.asof import AsOf
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.versions import group_version, group_version_read_async

logger = logging.getLogger(__name__)

# Past this many bounded facts the predicate is sent: finding the moment's failing ones costs about a
# microsecond each per retrieval, and the excluded ids travel as a list parameter tested on each candidate.
MAX_BOUNDED = 1_000
MAX_GROUPS = 1_024
UNUSABLE_REREAD_SECONDS = 60.0
RESCAN_SPACING = 10

# The facts the scan bounds, with their ends: every other fact counts at any moment from `$since` on.
BOUNDED_FACTS = """
MATCH (a:Memory {group_id: $group})-[r:RELATES]->(b:Memory)
WHERE r.invalid_at IS NOT NULL OR r.valid_at > $since OR r.created_at > $since
RETURN r.id AS id, a.id AS source, b.id AS target,
       r.valid_at AS valid_at, r.invalid_at AS invalid_at, r.created_at AS created_at, r.expired_at AS expired_at
LIMIT $limit
"""


class FilterMode(Enum):
    """How an exploration's queries leave out the facts that do not count."""

    EVERY_FACT = "every_fact"  # nothing to leave out: today's queries
    EXCLUDED = "excluded"  # the queries for every fact, minus a list of fact ids
    PREDICATE = "predicate"  # the definition tested on each fact in Cypher


@dataclass(frozen=True)
class FactFilter:
    mode: FilterMode
    excluded: tuple[str, ...] = ()
    # Per node: how many of its facts are excluded, to take from the unfiltered degree Cypher counts.
    excluded_degree: Mapping[str, int] = field(default_factory=dict)

    def degree(self, node_id: str, counted: int) -> int:
        return counted - self.excluded_degree.get(node_id, 0)


EVERY_FACT_FILTER = FactFilter(FilterMode.EVERY_FACT)
PREDICATE_FILTER = FactFilter(FilterMode.PREDICATE)


@dataclass(frozen=True)
class _BoundedFact:
    id: str
    source: str
    target: str
    valid_at: str | None
    invalid_at: str | None
    created_at: str | None
    expired_at: str | None


@dataclass(frozen=True)
class BoundedFacts:
    """A group's bounded facts as of `since`, read at `version`; `facts` None when they cannot be used."""

    version: int
    since: str
    facts: tuple[_BoundedFact, ...] | None
    read_at: float = field(default_factory=time.monotonic)
    took: float = 0.0  # seconds the scan took

    def filter_at(self, moment: AsOf) -> FactFilter:
        if self.facts is None or moment.as_of is None or moment.known_at is None:
            return PREDICATE_FILTER
        if moment.as_of < self.since or moment.known_at < self.since:
            return PREDICATE_FILTER  # a question about the past: facts the scan did not bound may fail it
        out = [f for f in self.facts if not moment.counts(f.valid_at, f.invalid_at, f.created_at, f.expired_at)]
        if not out:
            return EVERY_FACT_FILTER
        ends = Counter(end for fact in out for end in (fact.source, fact.target))
        return FactFilter(FilterMode.EXCLUDED, tuple(sorted(fact.id for fact in out)), dict(ends))


def bounded_facts_read(*, group: str) -> BoundedFacts:
    """Reads the version first, then the facts: a write between the two leaves a newer scan under an older
    version, which the next retrieval finds out of date and reads again."""
    started = time.monotonic()
    version = group_version(group=group).version
    since = datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    rows = graph_driver.read(BOUNDED_FACTS, group=group, since=since, limit=MAX_BOUNDED + 1)
    facts = tuple(_BoundedFact(**row) for row in rows)
    usable = len(facts) <= MAX_BOUNDED and all(fact.source != fact.target for fact in facts)
    return BoundedFacts(version, since, facts if usable else None, took=time.monotonic() - started)


class BoundedFactsCache:
    """The latest scan of each group, refreshed in a worker thread when a retrieval finds it missing or stale."""

    def __init__(self, max_groups: int = MAX_GROUPS) -> None:
        self.max_groups = max_groups
        self._scans: OrderedDict[str, BoundedFacts] = OrderedDict()
        self._reading: set[str] = set()
        self._lock = threading.Lock()

    def get(self, group: str) -> BoundedFacts | None:
        with self._lock:
            found = self._scans.get(group)
            if found is not None:
                self._scans.move_to_end(group)
            return found

    def put(self, group: str, scan: BoundedFacts) -> None:
        with self._lock:
            self._scans[group] = scan
            self._scans.move_to_end(group)
            while len(self._scans) > self.max_groups:
                self._scans.popitem(last=False)

    def refresh(self, group: str) -> BoundedFacts | None:
        """Reads the group's scan now (in the caller's thread); None when another read of it is under way or
        the read failed (logged: the predicate keeps answering meanwhile)."""
        with self._lock:
            if group in self._reading:
                return None
            self._reading.add(group)
        try:
            scan = bounded_facts_read(group=group)
            self.put(group, scan)
            return scan
        except Exception as error:  # an outage or a refused read only delays the shortcut
            logger.info("bounded facts of group %s not read: %s", group, error)
            return None
        finally:
            with self._lock:
                self._reading.discard(group)

    def refresh_later(self, group: str) -> None:
        """A new scan in a worker thread, unless the last one is too recent: a group written without pause
        would otherwise be scanned without pause (a scan reads every fact of the group: about 1 s at 50k facts
        on a busy 2-core machine), so at most 1/RESCAN_SPACING of a thread goes to each group's scans."""
        last = self.get(group)
        if last is not None and time.monotonic() - last.read_at < RESCAN_SPACING * last.took:
            return
        # In the caller's context, so the scan's Cypher lines carry the retrieval (and request) that caused it.
        asyncio.get_running_loop().run_in_executor(None, contextvars.copy_context().run, self.refresh, group)

    def clear(self) -> None:
        with self._lock:
            self._scans.clear()


_cache = BoundedFactsCache()


def bounded_facts_cache() -> BoundedFactsCache:
    return _cache


async def fact_filter(
    driver: neo4j.AsyncDriver, *, group: str, moment: AsOf, cache: BoundedFactsCache | None = None
) -> FactFilter:
    """How a Cypher exploration of `group` at `moment` leaves out the facts that do not count."""
    if moment.every_fact:
        return EVERY_FACT_FILTER
    cache = cache or bounded_facts_cache()
    scan = cache.get(group)
    if scan is None:
        cache.refresh_later(group)
        return PREDICATE_FILTER
    if scan.facts is None:
        # Unusable whatever the version, so it is not read for each retrieval; the scan is read again now and then
        # (future-dated facts stop being bounded as time passes).
        if time.monotonic() - scan.read_at > UNUSABLE_REREAD_SECONDS:
            cache.refresh_later(group)
        return PREDICATE_FILTER
    found = scan.filter_at(moment)
    if found.mode is FilterMode.PREDICATE:
        return found
    if await group_version_read_async(driver, group) != scan.version:
        cache.refresh_later(group)
        return PREDICATE_FILTER
    return found
