"""Rows as the driver module hands them over, read from the real server."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

import neo4j
import pytest

from memoria.graph import driver, versions
from memoria.graph.driver import database_name, graph_driver


def _records(query: str) -> list:
    records, _, _ = graph_driver().execute_query(query, database_=database_name())
    return records


def test_plain_rows_are_what_record_data_gives(graph_server: object) -> None:
    query = "RETURN 1 AS a, 'x' AS b, [1.5, 2.0] AS c, null AS d, true AS e, [] AS f, ['p', 'q'] AS g"
    (record,) = _records(query)
    assert driver.record_row(record) == record.data()
    assert driver.read(query) == [{"a": 1, "b": "x", "c": [1.5, 2.0], "d": None, "e": True, "f": [], "g": ["p", "q"]}]


def test_maps_and_nested_lists_still_take_the_drivers_walk(graph_server: object) -> None:
    (record,) = _records("RETURN {k: [1, {m: 2}]} AS a, [[1, 2], [3]] AS b, 'x' AS c")
    row = driver.record_row(record)
    assert row == record.data()
    assert row == {"a": {"k": [1, {"m": 2}]}, "b": [[1, 2], [3]], "c": "x"}


class CountingBookmarks(neo4j.api.BookmarkManager):
    """The driver's bookmark-manager interface around the process's own chain, counting what sessions ask."""

    def __init__(self, chain: neo4j.api.BookmarkManager) -> None:
        self.chain, self.asked = chain, 0

    def update_bookmarks(self, previous_bookmarks: Collection[str], new_bookmarks: Collection[str]) -> None:
        self.chain.update_bookmarks(previous_bookmarks, new_bookmarks)

    def get_bookmarks(self) -> Collection[str]:
        self.asked += 1
        return self.chain.get_bookmarks()


def test_transactions_and_event_loop_reads_join_the_process_bookmark_chain(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph server answers a write transaction with a bookmark the process's chain must then hold, and an
    event loop's read must start from that chain, so on a cluster it waits for the write."""
    chain = driver.process_bookmarks()
    before = set(chain.get_bookmarks())
    driver.write_transaction(
        lambda tx: tx.run("CREATE (:Memory:Entity {group_id: $group, id: $id})", group=group, id=f"{group}-b").consume()
    )
    assert set(chain.get_bookmarks()) - before  # the write's bookmark joined the chain

    counting = CountingBookmarks(chain)
    monkeypatch.setattr(versions, "process_bookmarks", lambda: counting)

    async def read() -> int:
        async with driver.async_driver_for_work() as loop_driver:
            return await versions.group_version_read_async(loop_driver, group)

    asyncio.run(read())
    assert counting.asked >= 1
