"""Per-group version stamps: every write bumps its group's version, so in-memory copies know when they are stale.

A stamp is a small `GroupStamp` node (not a `Memory`, so groups, counts and
exports never see it) and the version is the sum of the group's stamps'
counts. A bump *creates* a stamp inside the writer's transaction instead of
incrementing one counter: concurrent writers of a group then never update the
same record, which on ArcadeDB would fail one of them with a TransientError
(measured: 3 of 20 concurrent bumps of one counter failed after the driver's
retries; 0 of 20 stamp creations). The version therefore only grows, and
`group_stamps_compact` folds many stamps into one without changing the sum.

A stamp may say which nodes its write touched (`touched`: node ids whose node
or facts changed; absent means anything may have changed), and a folded stamp
names the stamps it replaced (`folded`) and, when every one of them named its
nodes, the union of those (so a view that missed some of the folded writes
still re-reads instead of rebuilding): together they let an in-memory view
catch up by re-reading only what changed (memoria/readmodel/group_view.py,
memoria/projection/update.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import neo4j

from memoria.graph import driver
from memoria.graph.driver import database_name, process_bookmarks
from memoria.graph.retry import with_retry_async

GROUP_STAMP = "GroupStamp"
# Folding starts past this many stamps, so reading a version stays one small index lookup.
COMPACT_AFTER = 64

# A write touching more nodes than this says "anything may have changed": a view rebuilds instead of re-reading.
MAX_TOUCHED = 5_000

BUMP = f"CREATE (:{GROUP_STAMP} {{group_id: $group, count: 1, at: $at}})"
BUMP_TOUCHED = f"CREATE (:{GROUP_STAMP} {{group_id: $group, count: $count, at: $at, touched: $touched}})"
STAMP_IDS = f"""
MATCH (s:{GROUP_STAMP} {{group_id: $group}})
RETURN collect(elementId(s)) AS stamps, collect(s.count) AS counts
"""
STAMP_DETAILS = f"""
UNWIND $stamps AS stamp
MATCH (s:{GROUP_STAMP} {{group_id: $group}}) WHERE elementId(s) = stamp
RETURN stamp, s.touched AS touched, s.folded AS folded, s.at AS at
"""
VERSION = f"""
MATCH (s:{GROUP_STAMP} {{group_id: $group}})
RETURN coalesce(sum(s.count), 0) AS version, count(s) AS stamps
"""
STAMPS = f"""
MATCH (s:{GROUP_STAMP} {{group_id: $group}})
RETURN elementId(s) AS stamp, s.count AS count, s.touched AS touched
"""
# Every group a bumping writer ever wrote, from the stamps (a few per group): listing groups no longer reads every
# node of the server (`MATCH (n:Memory) RETURN DISTINCT n.group_id` took 120 ms beside a 100k-fact group).
STAMPED_GROUPS = f"MATCH (s:{GROUP_STAMP}) RETURN DISTINCT s.group_id AS group_id ORDER BY group_id"
# Groups stored before stamps existed, or written by hand: a stamp of count 0 (the version is unchanged) that says
# nothing was touched, so the group is listed and no view is rebuilt for it.
UNSTAMPED_GROUPS_STAMP = f"""
MATCH (n:Memory)
WITH DISTINCT n.group_id AS group_id
WHERE group_id IS NOT NULL AND NOT EXISTS {{ MATCH (s:{GROUP_STAMP} {{group_id: group_id}}) }}
CREATE (:{GROUP_STAMP} {{group_id: group_id, count: 0, at: $at, touched: []}})
RETURN count(*) AS stamped
"""
GROUP_STAMPS_DELETE = f"MATCH (s:{GROUP_STAMP} {{group_id: $group}}) DELETE s"
FOLD = f"""
UNWIND $stamps AS stamp
MATCH (s:{GROUP_STAMP} {{group_id: $group}}) WHERE elementId(s) = stamp
DELETE s
RETURN count(*) AS deleted
"""
FOLDED = f"CREATE (:{GROUP_STAMP} {{group_id: $group, count: $count, at: $at, folded: $folded}})"
FOLDED_TOUCHED = f"""
CREATE (:{GROUP_STAMP} {{group_id: $group, count: $count, at: $at, folded: $folded, touched: $touched}})
"""


class _FoldedMeanwhile(Exception):
    """Another fold deleted stamps this one had read: it rolls back."""


@dataclass(frozen=True)
class GroupVersion:
    group: str
    version: int
    stamps: int


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def group_version_bump(tx: neo4j.ManagedTransaction, group: str, *, touched: Iterable[str] | None = None) -> None:
    """Call inside a write transaction of `group`: the bump lands (and is seen) exactly when the write does.

    `touched`: the ids of every node the write created, changed or deleted, or whose facts it did; leave it
    None when the write cannot say (an import, a restore), and views of the group are rebuilt.
    """
    nodes = sorted(set(touched)) if touched is not None else None
    if nodes is None or len(nodes) > MAX_TOUCHED:
        tx.run(BUMP, group=group, at=_now()).consume()
    else:
        tx.run(BUMP_TOUCHED, group=group, count=1, at=_now(), touched=nodes).consume()


def group_vectors_stamp(tx: neo4j.ManagedTransaction, group: str, *, touched: Iterable[str]) -> None:
    """Inside a write of vectors only: a stamp of count 0 naming the nodes whose (or whose facts') vectors
    were stored. The version stays the same, so graph projections (which hold no vectors) are not reloaded,
    while search views, which compare stamps rather than versions, re-read those items."""
    nodes = sorted(set(touched))
    if len(nodes) <= MAX_TOUCHED:
        tx.run(BUMP_TOUCHED, group=group, count=0, at=_now(), touched=nodes).consume()
    else:  # too many to name: a view must rebuild, and only a counted stamp tells every copy so
        tx.run(BUMP, group=group, at=_now()).consume()


@dataclass(frozen=True)
class StampDetail:
    stamp: str
    touched: tuple[str, ...] | None  # None: anything may have changed
    folded: tuple[str, ...]  # the stamps this one replaced
    at: str | None


def group_stamps(*, group: str) -> dict[str, int]:
    """The group's stamps (element id → count): what a view compares with the stamps it has caught up with."""
    row = driver.read_records(STAMP_IDS, group=group)[0]
    return {stamp: int(count or 0) for stamp, count in zip(row["stamps"], row["counts"], strict=True)}


def stamp_details(*, group: str, stamps: Iterable[str]) -> list[StampDetail]:
    rows = driver.read(STAMP_DETAILS, group=group, stamps=sorted(stamps))
    return [
        StampDetail(
            stamp=row["stamp"],
            touched=tuple(row["touched"]) if row["touched"] is not None else None,
            folded=tuple(row["folded"] or ()),
            at=row["at"],
        )
        for row in rows
    ]


def stamps_touched(*, group: str, seen: Mapping[str, int], current: Mapping[str, int]) -> frozenset[str] | None:
    """What the writes behind `current` touched beyond the stamps a view has `seen`: the node ids to re-read,
    or None when some write cannot say (an unnamed stamp, a fold of stamps the view never saw, stamps deleted
    without a fold when a group is emptied) and the view must be built again. Search views and graph
    projections both catch up through this one reading of the stamps."""
    new = set(current) - set(seen)
    gone = set(seen) - set(current)
    if not new and not gone:
        return frozenset()
    touched: set[str] = set()
    replaced: set[str] = set()
    for detail in stamp_details(group=group, stamps=new):
        if detail.folded:
            replaced.update(detail.folded)
            if not set(detail.folded) - set(seen):
                continue
            if detail.touched is None:  # a fold of writes this view never saw, and what they touched is lost
                return None
            touched.update(detail.touched)  # theirs, and those of folded writes seen already: re-read again
            continue
        if detail.touched is None:
            return None
        touched.update(detail.touched)
    if gone - replaced:
        return None
    return frozenset(touched)


async def group_version_read_async(driver: neo4j.AsyncDriver, group: str) -> int:
    """The group's version on an event loop: an auto-commit run is one pipelined round trip (execute_query's
    managed transaction took twice as long). Retried and bounded as the activation reads are: Bolt has no read
    timeout, and a frozen server would hold it forever."""

    async def once() -> int:
        async with driver.session(
            database=database_name(), default_access_mode=neo4j.READ_ACCESS, bookmark_manager=process_bookmarks()
        ) as session:
            return int((await (await session.run(VERSION, group=group)).single(strict=True))["version"] or 0)

    return await with_retry_async(once, what="version read", read=True)


def version_of_stamps(group: str, stamps: Mapping[str, int]) -> GroupVersion:
    """The version the group's stamps add up to (what `group_version` reads): a request that read the stamps for
    its views knows the version too, without a second round trip."""
    return GroupVersion(group, sum(stamps.values()), len(stamps))


def group_version(*, group: str) -> GroupVersion:
    """The group's current version: 0 for a group never written through a bumping writer."""
    row = driver.read(VERSION, group=group)[0]
    return GroupVersion(group, int(row["version"] or 0), int(row["stamps"] or 0))


def group_stamps_compact(*, group: str, after: int = COMPACT_AFTER) -> int:
    """Fold the group's stamps into one when there are more than `after`; returns how many were folded.

    Only stamps read inside the transaction are deleted, and their sum is written back
    in the same transaction, so stamps created meanwhile by writers survive and the
    version is unchanged. The fold keeps the union of their touched nodes when each named
    its own and there are at most MAX_TOUCHED of them.
    """

    def fold(tx: neo4j.ManagedTransaction) -> int:
        rows = tx.run(STAMPS, group=group).data()
        if len(rows) <= after:
            return 0
        deleted = tx.run(FOLD, group=group, stamps=[row["stamp"] for row in rows]).single(strict=True)["deleted"]
        if deleted != len(rows):
            # Another fold took some of them first (committed after this one read them): writing this sum would
            # count those writes twice. That fold does the work; this one changes nothing.
            raise _FoldedMeanwhile
        count = sum(int(row["count"] or 0) for row in rows)
        folded = [row["stamp"] for row in rows]
        touched = None if any(row["touched"] is None for row in rows) else set().union(*(r["touched"] for r in rows))
        if touched is None or len(touched) > MAX_TOUCHED:
            tx.run(FOLDED, group=group, count=count, at=_now(), folded=folded).consume()
        else:
            named = sorted(touched)
            tx.run(FOLDED_TOUCHED, group=group, count=count, at=_now(), folded=folded, touched=named).consume()
        return len(rows)

    try:
        return driver.write_transaction(fold)
    except _FoldedMeanwhile:
        return 0


def stamped_groups() -> list[str]:
    """The groups that have been written (and not removed with `group_stamps_delete`), in order."""
    return [row["group_id"] for row in driver.read(STAMPED_GROUPS) if row["group_id"]]


def unstamped_groups_stamp() -> int:
    """Give each stored group without a stamp one (at schema installation); how many were stamped. Reads every
    node once: the price of a store written before stamps existed."""
    return int(driver.write(UNSTAMPED_GROUPS_STAMP, at=_now())[0]["stamped"] or 0)


def group_stamps_delete(*, group: str) -> None:
    """After a group's nodes were all removed: it is no longer listed, and a new write starts its version at 0."""
    driver.write(GROUP_STAMPS_DELETE, group=group)
