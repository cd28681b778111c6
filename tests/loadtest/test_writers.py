"""Concurrent writers on the real server: overlapping episodes from threads and a process, curators editing the same
facts with versions, then every invariant of memoria.loadtest.invariants, over several seeds."""

from __future__ import annotations

import pytest

from memoria.loadtest.invariants import writers_invariants
from memoria.loadtest.writers import WritersPlan, writers_run

SEEDS = (11, 12)  # `manage.py concurrency --runs 20` runs many more (docs/benchmarks.md)
BATCHES = 5  # per writer, of one to six episodes: the same work whatever the machine's speed
SECONDS = 300.0  # a bound, not the plan


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", SEEDS)
def test_concurrent_writers_and_curators_lose_nothing(group: str, seed: int) -> None:
    plan = WritersPlan(group=group, label=f"s{seed}", writers=3, processes=1, curators=2, duration=SECONDS, seed=seed)
    outcome = writers_run(plan)
    report = writers_invariants(group=group, label=plan.label, writers=outcome.writers, curators=outcome.curators)
    assert report.ok, report.summary()
    # The run met the races it is about: the same facts merged from several episodes, curators' edits landed.
    merged = sum(len(ack.facts_merged) for ack in outcome.writers.acknowledged)
    assert merged >= 10 and report.claims_checked >= 50, (merged, report.as_dict())
    assert outcome.curators.acknowledged, outcome.curators
    assert not outcome.writers.failed, outcome.writers.failed
