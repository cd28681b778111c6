"""Random fact times for time-aware retrieval tests: drawn from a few months or missing, written onto stored facts."""

from __future__ import annotations

import random

from memoria.graph import driver

TIMES = [f"2026-0{month}-01T00:00:00Z" for month in range(1, 8)]
COLUMNS = ("valid_at", "invalid_at", "created_at", "expired_at")

SET_TIMES = """
UNWIND $facts AS fact
MATCH ()-[r:RELATES {id: fact.id}]->() WHERE r.group_id = $group
SET r.valid_at = fact.valid_at, r.invalid_at = fact.invalid_at,
    r.created_at = fact.created_at, r.expired_at = fact.expired_at
"""


def random_times(rng: random.Random, *, missing: int = 2) -> dict[str, str | None]:
    """One fact's four times; an interval may come out empty or reversed, which the definition takes as written."""
    return {name: rng.choice([*([None] * missing), *TIMES]) for name in COLUMNS}


def times_write(group: str, times: dict[str, dict[str, str | None]]) -> None:
    """Set (or remove, for None) the four times of the group's facts named by id."""
    driver.write(SET_TIMES, group=group, facts=[{"id": fact_id, **values} for fact_id, values in times.items()])
