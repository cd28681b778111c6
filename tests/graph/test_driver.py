"""Rows as the driver module hands them over, read from the real server."""

from __future__ import annotations

from memoria.graph import driver
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
