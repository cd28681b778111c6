"""Concurrent writers while the graph server is killed (SIGKILL) and started again, at 6 s and 30 s: every
acknowledged episode once, every failed batch unwritten or stored once after its retry, and the other invariants."""

from __future__ import annotations

import pytest

from memoria.graph.embedded import EmbeddedServer
from memoria.loadtest.invariants import writers_invariants
from memoria.loadtest.writers import WritersPlan, server_killer, writers_run

KILLS_AT = (6.0, 30.0)  # seconds from the start (the second later if the first restart is slower)
SECONDS = 50.0


@pytest.mark.django_db(transaction=True)
def test_writers_ride_out_the_graph_server_killed_twice(graph_server: EmbeddedServer, group: str) -> None:
    plan = WritersPlan(
        group=group, label="crash", writers=3, processes=1, curators=1, duration=SECONDS, seed=35, max_batch=4
    )
    kills: list[float] = []
    try:
        outcome = writers_run(plan, outage=server_killer(graph_server, KILLS_AT, kills))
    finally:
        graph_server.start()  # whatever happened, the rest of the session has its server
    assert len(kills) == 2, kills
    report = writers_invariants(group=group, label=plan.label, writers=outcome.writers, curators=outcome.curators)
    assert report.ok, report.summary()
    writers = outcome.writers
    assert writers.outages > 0, "no writer met the outage"
    assert len(writers.acknowledged) >= 10 and report.claims_checked >= 10, report.as_dict()
