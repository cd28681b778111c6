"""loadtest, run for a few seconds with few clients against the daphnes it starts: every kind of operation measured,
every ingested episode stored once, the watcher sees the retrievals, and the servers are gone afterwards."""

from __future__ import annotations

import io
import json
import shutil
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from memoria.graph import driver
from memoria.loadtest.servers import REDIS_BINARY
from tests.browse.graphs import entity, fact, load

OPERATIONS = {"retrieve", "search", "ingest", "ws_connect"}
SHORT_LOAD = ("--duration", "3", "--ws-clients", "3", "--searches-per-second", "2", "--ingest-per-second", "1")


@pytest.fixture
def memory(transactional_db: None, group: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A few named, tagged entities; the command's daphnes read the test database (MEMORIA_E2E_SERVER) and keep the
    run's Redis URL (tests/commands/loadtest_settings.py)."""
    monkeypatch.setenv("MEMORIA_E2E_SERVER", "1")
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "tests.commands.loadtest_settings")
    names = ("Pallet recount in Porto", "Porto cold store", "Freezer alarm log", "Recount answer", "Night shift lead")
    ids = [f"{group}/n{index}" for index in range(len(names))]
    load(
        group,
        nodes=[entity(node_id, name) for node_id, name in zip(ids, names, strict=True)],
        edges=[
            fact(ids[0], ids[1], 0.9, "happened_at", tags=["recount", "cold_store"]),
            fact(ids[2], ids[1], 0.7, "logged_at", tags=["cold_store"]),
            fact(ids[3], ids[0], 0.8, "answers", tags=["recount"]),
            fact(ids[4], ids[2], 0.5, "reads", tags=["alarm"]),
        ],
    )
    return group


def run_json(*args: str) -> dict:
    out = io.StringIO()
    try:
        call_command("loadtest", *args, "--json", stdout=out, stderr=io.StringIO())
    except CommandError as error:
        pytest.fail(f"{error}\n{out.getvalue()}")
    return json.loads(out.getvalue())


def stored_episode_ids(group: str, run: str) -> list[str]:
    rows = driver.read(
        "MATCH (e:Episode {group_id: $group}) WHERE e.id STARTS WITH $prefix RETURN e.id AS id",
        group=group,
        prefix=f"{run}-",
    )
    return [row["id"] for row in rows]


def assert_load_measured(report: dict, group: str) -> None:
    assert report["passed"] and report["errors"] == 0, report
    by_name = {operation["name"]: operation for operation in report["operations"]}
    assert set(by_name) == OPERATIONS
    for operation in by_name.values():
        assert operation["ok"] > 0 and operation["errors"] == 0
        assert 0 < operation["p50_ms"] <= operation["p95_ms"] <= operation["p99_ms"] <= operation["max_ms"]
    assert by_name["ws_connect"]["ok"] == 3
    assert by_name["search"]["ok"] == 2 * 3  # rate × duration, all sent on schedule
    episodes = report["episodes"]
    stored = stored_episode_ids(group, report["settings"]["run"])
    assert episodes["sent"] == episodes["acknowledged"] == episodes["stored"] == len(stored) == len(set(stored)) == 3
    assert by_name["ingest"]["ok"] == episodes["acknowledged"]
    watch = report["watch"]
    assert watch["passed"] and watch["seen"] == watch["completed"] > 0
    assert report["retrieval_events"] >= 4 * by_name["retrieve"]["ok"]  # started … finished, at least
    for url in report["settings"]["urls"]:  # the daphnes it started are stopped
        parts = urlsplit(url)
        with socket.socket() as probe:
            assert probe.connect_ex((parts.hostname, parts.port)) != 0


def test_short_load_on_one_daphne(memory: str) -> None:
    report = run_json(*SHORT_LOAD, "--group", memory)
    assert report["settings"]["layer"] == "memory" and len(report["settings"]["urls"]) == 1
    assert_load_measured(report, memory)


def test_short_load_on_two_daphnes_sharing_watchers_through_redis(memory: str) -> None:
    if shutil.which(REDIS_BINARY) is None:
        pytest.fail("redis-server is missing: apt-get install -y redis-server (make loadtest-redis-deps)")
    report = run_json(*SHORT_LOAD, "--group", memory, "--layer", "redis")
    assert report["settings"]["servers"] == 2 and len(report["settings"]["urls"]) == 2
    assert report["watch"]["watcher_server"] == 2 and report["watch"]["source_server"] == 1
    assert_load_measured(report, memory)


def loadtest_runs() -> set[Path]:
    return set((settings.VAR_DIR / "loadtest").glob("*"))


def test_bad_options_start_nothing(memory: str, group: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = loadtest_runs()
    cases = [
        (("--servers", "2"), "memory channel layer lives in one process"),
        (("--duration", "0"), r"outside \[1, 3600\]"),
        (("--ws-clients", "0", "--searches-per-second", "0", "--ingest-per-second", "0"), "nothing to do"),
        (("--group", "no/slash"), "must be 1–64 letters"),
        (("--group", "t-never-loaded"), "has no entities"),
    ]
    for args, message in cases:
        with pytest.raises(CommandError, match=message):
            call_command("loadtest", *args, stdout=io.StringIO(), stderr=io.StringIO())
    monkeypatch.setenv("PATH", str(settings.VAR_DIR))  # no redis-server there
    with pytest.raises(CommandError, match="apt-get install -y redis-server"):
        call_command("loadtest", "--group", group, "--layer", "redis", stdout=io.StringIO(), stderr=io.StringIO())
    assert loadtest_runs() == before  # no run folder: no server was started
    assert stored_episode_ids(group, "lt") == []
