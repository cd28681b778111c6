"""`ingest` while the graph server stops for real: whole batches or nothing, then a re-run stores the rest once.

Half-written would be an episode stored without the entities, facts and mentions
its batch planned, or part of a batch stored: the pipeline writes one transaction
per batch (memoria/ingest/persist.py), so the stored episodes must be whole
batches from the start of the file, every one linked to its entities.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from memoria.graph import driver
from memoria.graph.embedded import EmbeddedServer
from tests.conftest import ROOT

EPISODES = 96
BATCH = 4
STOP_AFTER = 3 * BATCH  # stored episodes seen before the server is stopped: some batches are committed
COMMAND_TIMEOUT = 600  # seconds; two busy cores load the embedding model and ingest slowly

PEOPLE = ("Maren", "Oren", "Liv", "Tamsin", "Joakim", "Ilse", "Bertil", "Sanna", "Edvin", "Runa", "Halvard")
PLACES = ("Tallinn", "Riga", "Bergen", "Tartu", "Visby", "Turku", "Aarhus")
THINGS = ("Kestrel Foods", "Harbour Regatta", "Northwind Ferries", "Saltmarsh Library")

STORED_EPISODES = "MATCH (e:Episode {group_id: $g}) RETURN e.id AS id"
MENTIONS_PER_EPISODE = (
    "MATCH (e:Episode {group_id: $g}) RETURN e.id AS id, COUNT { (e)-[:MENTIONS]->(:Entity) } AS mentions"
)
UNMENTIONED_ENTITIES = (
    "MATCH (n:Entity {group_id: $g}) WHERE NOT EXISTS { (:Episode)-[:MENTIONS]->(n) } RETURN n.name AS name"
)
FACT_EPISODES = "MATCH (:Entity {group_id: $g})-[r:RELATES]->() RETURN r.id AS id, r.episodes AS episodes"


def episode_file(group: str, path: Path) -> list[str]:
    """A JSON Lines file of episodes naming people, places and organisations the offline extractor finds."""
    ids = []
    with path.open("w") as out:
        for index in range(EPISODES):
            who, other = PEOPLE[index % len(PEOPLE)], PEOPLE[(index * 3 + 1) % len(PEOPLE)]
            place, thing = PLACES[index % len(PLACES)], THINGS[index % len(THINGS)]
            content = f"{who}: I met {other} in {place} on day {index}. We talked about {thing}."
            ids.append(f"{group}-ep{index:03d}")
            out.write(
                json.dumps({"id": ids[-1], "content": content, "valid_at": f"2024-05-01T{index % 24:02d}:00:00Z"})
            )
            out.write("\n")
    return ids


def ingest(path: Path, group: str) -> subprocess.Popen:
    """The command in a process of its own, on the test session's graph server (its ports are in the environment)."""
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "ingest",
            str(path),
            "--group",
            group,
            "--batch-size",
            str(BATCH),
            "--extractor",
            "offline",
            "--no-communities",
            "--quiet",
        ],
        cwd=ROOT,
        env=dict(os.environ, DJANGO_SETTINGS_MODULE="tests.settings", PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stored_ids(group: str) -> list[str]:
    return [row["id"] for row in driver.read(STORED_EPISODES, g=group)]


def assert_nothing_half_written(group: str, ids: list[str]) -> list[str]:
    """The stored episodes are whole batches from the file's start, each stored once and linked to its entities."""
    stored = stored_ids(group)
    assert len(stored) == len(set(stored)), "an episode is stored twice"
    assert len(stored) % BATCH == 0 and sorted(stored) == ids[: len(stored)], (len(stored), sorted(stored)[-BATCH:])
    mentions = {row["id"]: row["mentions"] for row in driver.read(MENTIONS_PER_EPISODE, g=group)}
    assert all(count >= 2 for count in mentions.values()), {k: v for k, v in mentions.items() if v < 2}
    assert driver.read(UNMENTIONED_ENTITIES, g=group) == []  # no entity of a batch that did not land
    for fact in driver.read(FACT_EPISODES, g=group):
        assert set(fact["episodes"]) <= set(stored), fact
    return stored


def test_a_server_stopped_mid_ingest_leaves_whole_batches_and_a_rerun_stores_the_rest_once(
    graph_server: EmbeddedServer, group: str, tmp_path: Path
) -> None:
    path = tmp_path / "episodes.jsonl"
    ids = episode_file(group, path)
    first = ingest(path, group)
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while len(stored_ids(group)) < STOP_AFTER:
            assert first.poll() is None, f"ingest ended before the outage: {first.communicate()}"
            assert time.monotonic() < deadline, "ingest stored too little in time"
            time.sleep(0.2)
        graph_server.stop()
        try:
            out, err = first.communicate(timeout=COMMAND_TIMEOUT)
        finally:
            graph_server.start()
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode != 0, out
    assert "graph server" in err and "run the command again" in err, err
    assert "Traceback" not in err, err

    partial = assert_nothing_half_written(group, ids)
    assert STOP_AFTER <= len(partial) < EPISODES, f"the outage did not interrupt the run ({len(partial)} stored)"

    second = ingest(path, group)
    out, err = second.communicate(timeout=COMMAND_TIMEOUT)
    assert second.returncode == 0, err
    assert f"{EPISODES - len(partial)} episode(s) added, {len(partial)} already stored" in out, out
    assert sorted(assert_nothing_half_written(group, ids)) == ids  # every episode, each exactly once
