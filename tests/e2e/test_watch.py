"""The watch page in Chromium against daphne: a retrieval an agent ran through the API before the page opened is
listed from the server's journal and replays; one another client starts over its own websocket appears as it runs
and plays in the live view."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.live_memory import live_memory, retrieval_body

PASSWORD = "correct horse battery staple"
LIVE_ROOT = "document.querySelector('[data-live-root]').dataset"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = live_memory(group)
    user_grant(username="watcher", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


def agent_rest_retrieval(base: str, token: str, body: dict) -> dict:
    request = urllib.request.Request(
        base + "/api/retrieval/activation",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def agent_socket_retrieval(base: str, token: str, body: dict) -> list[dict]:
    """A program's websocket (a token, no Origin), running one retrieval to its end."""
    url = base.replace("http://", "ws://") + "/ws/retrievals/"
    events = []
    with connect(url, additional_headers={"Authorization": f"Token {token}"}, open_timeout=10) as socket:
        socket.send(json.dumps({"type": "retrieve", **body}))
        while not events or events[-1]["type"] != "retrieval_finished":
            events.append(json.loads(socket.recv(timeout=20)))
    return events


def shown_run(page: Page, retrieval_id: str) -> None:
    page.wait_for_function(
        f"{LIVE_ROOT}.liveRun === {json.dumps(retrieval_id)} && {LIVE_ROOT}.liveState === 'finished'", timeout=20_000
    )


def test_watch_lists_and_replays_other_clients_retrievals(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    token = token_for(user=user_grant(username="planner-agent", role=Role.VIEWER, groups=[group]))
    earlier = agent_rest_retrieval(daphne_url, token, retrieval_body(group, memory["stockout"], max_depth=2))

    sign_in(page, daphne_url, "watcher", PASSWORD)
    page.get_by_test_id("nav-watch").click()
    expect(page.get_by_test_id("watch-connection")).to_contain_text("Watching")
    listed = page.locator(f"[data-retrieval='{earlier['retrieval_id']}']")
    expect(listed).to_contain_text("planner-agent")
    expect(listed).to_have_attribute("data-status", "completed")

    page.get_by_test_id("pace").select_option("0")
    listed.get_by_test_id("replay").click()
    shown_run(page, earlier["retrieval_id"])
    earlier_paths = sum(len(seed["paths"]) for seed in earlier["seeds"])
    expect(page.get_by_test_id("path-list").locator("li")).to_have_count(earlier_paths)

    # Another client runs one now, over its own socket: the page lists it and, following, plays it.
    page.get_by_test_id("pace").select_option("350")
    body = retrieval_body(group, memory["request"]) | {"retrieval_id": "agent-live-1", "as_of": "2026-01-01T00:00:00Z"}
    events = agent_socket_retrieval(daphne_url, token, body)
    assert events[-1]["status"] == "completed"
    running = page.locator("[data-retrieval='agent-live-1']")
    expect(running).to_have_attribute("data-status", "completed")
    expect(running.get_by_test_id("watch-time")).to_contain_text("as of 2026-01-01 00:00 (known ")  # its moment
    expect(listed.get_by_test_id("watch-time")).to_have_text(re.compile(r"^as of \d{4}-"))  # now, when it ran
    shown_run(page, "agent-live-1")
    paths = [event["path"] for event in events if event["type"] == "path_completed"]
    expect(page.get_by_test_id("path-list").locator("li")).to_have_count(len(paths))
    selected = {hop["edge_id"] for path in paths for hop in path["hops"]}
    assert page.evaluate("memoriaWatch.live.counts().selectedEdges") == len(selected)
    expect(page.get_by_test_id("live-status")).to_contain_text(f"completed · {len(paths)} paths")
    order = [item.get_attribute("data-retrieval") for item in page.get_by_test_id("watch-list").locator("li").all()]
    assert order[:2] == ["agent-live-1", earlier["retrieval_id"]]  # newest first
    page.wait_for_timeout(1500)  # let the layout settle for the picture
    screenshot(page, "watch.png")

    # A relation-aware PPR run with the caller's β: listed in words (before: "betas [object Object]"), and the
    # view no longer shows the previous activation run's drawing under the PPR run's name.
    ppr = {
        "algorithm": "ppr",
        "retrieval_id": "agent-ppr-1",
        "group": group,
        "seeds": [{"id": memory["request"]}],
        "relation_aware": True,
        "betas": {"entity_entity": {"CAUSALITY": 4, "HIERARCHICAL": 1}},
    }
    agent_socket_retrieval(daphne_url, token, ppr)
    listed_ppr = page.locator("[data-retrieval='agent-ppr-1']")
    expect(listed_ppr).to_have_attribute("data-status", "completed")
    expect(listed_ppr).not_to_contain_text("[object Object]")
    expect(listed_ppr).to_contain_text(
        "betas (entity_entity (HIERARCHICAL 0.08, TEMPORAL 0.2, SPATIAL 0.2, CAUSALITY 0.32"
    )
    page.wait_for_function(f"{LIVE_ROOT}.liveRun === 'agent-ppr-1'", timeout=20_000)
    assert page.evaluate("memoriaWatch.live.counts()") == {"nodes": 0, "edges": 0, "selectedEdges": 0, "paths": 0}
    expect(page.get_by_test_id("path-list").locator("li")).to_have_count(0)
