"""Dates in text resolve against the episode's reference time; quantities are found and kept apart."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoria.ingest.temporal import dates_in, parse_timestamp, quantities_in

REFERENCE = datetime(2024, 3, 13, 15, 30, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("yesterday", "2024-03-12"),
        ("today", "2024-03-13"),
        ("tomorrow", "2024-03-14"),
        ("last Saturday", "2024-03-09"),
        ("next Monday", "2024-03-18"),
        ("last week", "2024-03-06"),
        ("last month", "2024-02-13"),
        ("3 days ago", "2024-03-10"),
        ("two weeks ago", "2024-02-28"),
        ("on 2 February 2023", "2023-02-02"),
        ("on February 2, 2023", "2023-02-02"),
        ("on 2024-01-05", "2024-01-05"),
        ("in 2019", "2019-01-01"),
        ("in May", "2024-05-01"),
        ("last weekend", "2024-03-09"),
    ],
)
def test_dates_resolve_against_the_reference(phrase: str, day: str) -> None:
    found = dates_in(f"We met {phrase} at the depot.", reference=REFERENCE)
    assert len(found) == 1
    assert found[0].value == f"{day}T00:00:00Z"
    assert phrase.endswith(found[0].text) or found[0].text.endswith(phrase.split()[-1])


def test_impossible_dates_are_ignored_and_spans_never_overlap() -> None:
    assert dates_in("on 31 February 2023", reference=REFERENCE) == []
    found = dates_in("from 4 May 2022 until last week", reference=REFERENCE)
    assert [mention.value[:10] for mention in found] == ["2022-05-04", "2024-03-06"]


def test_quantities() -> None:
    found = [q.text for q in quantities_in("We shipped 500 units for $1,200 and 20% more, 3 kids came.")]
    assert found == ["500 units", "$1,200", "20%", "3 kids"]


def test_timestamps_round_trip() -> None:
    assert parse_timestamp("2024-03-13T15:30:00Z") == REFERENCE
