"""PPR on the live page in Chromium against daphne: the top nodes are drawn while it converges and the ranked
nodes and passages are the REST answer's for the same request; relation-aware PPR shows the β it chose for the
query as sliders, and moving one re-runs with the user's β."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.projection.cache import projection_cache
from tests.e2e.browsing import sign_in
from tests.e2e.test_live import LIVE_ROOT, PASSWORD, POST_JSON, wait_finished
from tests.projection.graphs import random_memory, store

TOP_K = 9


@pytest.fixture
def memory(transactional_db: None, group: str) -> str:
    store(group, random_memory(group, entities=30, episodes=4, facts=90, seed=2))
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    yield group
    projection_cache().forget(group)


def rest_answer(page: Page) -> dict:
    """POST /api/retrieval/ppr with the body the page just sent on the socket (its fields are the REST body's)."""
    body = page.evaluate("memoriaLive.requestBody()")
    answer = page.evaluate(POST_JSON, ["/api/retrieval/ppr", body])
    assert answer["status"] == 200, answer
    return answer["body"]


def listed(page: Page, testid: str) -> list[tuple[str, float]]:
    items = page.get_by_test_id(testid).locator("li[data-node]").all()
    return [(item.get_attribute("data-node"), float(item.get_attribute("data-score"))) for item in items]


def ranked(nodes: list[dict]) -> list[tuple[str, float]]:
    return [(node["id"], node["score"]) for node in nodes]


def test_ppr_from_the_live_page_ranks_as_the_rest_answer(page: Page, daphne_url: str, memory: str) -> None:
    retrieves: list[str] = []  # the retrieve frames the page sends
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framesent", lambda payload: retrieves.append(payload) if '"type":"retrieve"' in payload else None
        ),
    )
    sign_in(page, daphne_url, "planner", PASSWORD)
    seed = f"{memory}-e1"
    page.goto(f"{daphne_url}/g/{memory}/live/?seed={quote(seed, safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    expect(page.get_by_test_id("ppr-results")).to_be_hidden()
    page.get_by_test_id("algorithm").select_option("ppr")
    expect(page.get_by_test_id("ppr-results")).to_be_visible()
    expect(page.get_by_test_id("path-list")).to_be_hidden()  # activation's panels and legend give way
    expect(page.locator("[data-live-legend]")).to_be_hidden()
    expect(page.get_by_test_id("explain")).to_be_hidden()
    page.get_by_test_id("ppr-top-k").fill(str(TOP_K))
    page.get_by_test_id("rerun").uncheck()  # runs start when this test says (the β sliders still re-run)
    page.get_by_test_id("run").click()
    run = wait_finished(page)
    expect(page.get_by_test_id("live-status")).to_contain_text("PPR completed")

    answer = rest_answer(page)
    assert answer["seeds"] == [{"id": seed, "weight": 1.0}] and not answer["relation_aware"]
    expect(page.get_by_test_id("ppr-ranked").locator("li")).to_have_count(TOP_K)
    assert listed(page, "ppr-ranked") == ranked(answer["scores"])
    assert listed(page, "ppr-passages") == ranked(answer["passages"]) and len(answer["passages"]) == 4
    expect(page.get_by_test_id("ppr-summary")).to_contain_text(f"{answer['iterations']} iterations")
    drawn = page.evaluate("memoriaLive.live.view.nodeIds()")
    assert sorted(drawn) == sorted(node["id"] for node in answer["scores"])
    # The best node is drawn the largest.
    sizes = page.evaluate("[...memoriaLive.live.view.nodeStyles].map(([id, style]) => [id, style.size])")
    assert max(sizes, key=lambda pair: pair[1])[0] == answer["scores"][0]["id"]
    # Clicking a drawn node offers it as a seed, as in an activation run.
    page.evaluate("(id) => memoriaLive.live.view.emit('clickNode', id)", answer["scores"][1]["id"])
    card = page.get_by_test_id("energy-breakdown")
    expect(card).to_contain_text(answer["scores"][1]["name"])
    card.get_by_test_id("use-as-seed").click()
    expect(page.get_by_test_id("seed-list").locator("li")).to_have_count(2)
    page.get_by_test_id("seed-list").locator("li").nth(1).get_by_role("button").click()  # back to one seed

    # Relation-aware needs a query (or β): the page says so and runs nothing.
    page.get_by_test_id("ppr-relation-aware").check()
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("live-error")).to_contain_text("relation_aware: give a query")
    assert page.evaluate(f"{LIVE_ROOT}.liveRun") == run

    # With a query, the β chosen for it are shown as sliders; moving one re-runs with the user's β.
    page.get_by_test_id("live-query").fill("entity 3")
    page.get_by_test_id("run").click()
    run = wait_finished(page, run)
    expect(page.get_by_test_id("ppr-betas-source")).to_contain_text("chosen for the query")
    chosen = rest_answer(page)
    assert chosen["relation_aware"] and chosen["betas"]["source"] == "offline"
    assert listed(page, "ppr-ranked") == ranked(chosen["scores"])
    slider = page.locator("[data-beta='entity_entity.CAUSALITY']")
    assert float(slider.input_value()) == pytest.approx(chosen["betas"]["entity_entity"]["CAUSALITY"], abs=0.01)
    slider.fill("1")  # Playwright's fill on a range input sets it and fires input and change
    run = wait_finished(page, run)
    expect(page.get_by_test_id("ppr-betas-source")).to_contain_text("yours")
    mine = rest_answer(page)
    assert mine["betas"]["source"] == "caller" and mine["betas"] != chosen["betas"]
    assert listed(page, "ppr-ranked") == ranked(mine["scores"])

    # Five arrow-key steps on a slider are one choice: one run, with the value the slider ended at.
    sent = len(retrieves)
    slider = page.locator("[data-beta='entity_entity.CAUSALITY']")
    start = float(slider.input_value())
    slider.focus()
    for _ in range(5):
        slider.press("ArrowLeft")
    wait_finished(page, run)
    page.wait_for_timeout(1500)  # room for any further run to start
    assert len(retrieves) - sent == 1, retrieves[sent:]
    assert json.loads(retrieves[-1])["betas"]["entity_entity"]["CAUSALITY"] == pytest.approx(start - 0.05)


def test_a_ppr_run_exports_its_ranking_and_is_framed_whole(page: Page, daphne_url: str, memory: str) -> None:
    """Before (issue 32): after a PPR run the export gave a header-only CSV and `[]`, and the drawing was left
    unfitted after its layout, labels running off the canvas."""
    sign_in(page, daphne_url, "planner", PASSWORD)
    seed = f"{memory}-e1"
    page.goto(f"{daphne_url}/g/{memory}/live/?seed={quote(seed, safe='')}")
    page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=20_000)
    page.get_by_test_id("algorithm").select_option("ppr")
    page.get_by_test_id("ppr-top-k").fill(str(TOP_K))
    page.get_by_test_id("rerun").uncheck()
    page.get_by_test_id("run").click()
    wait_finished(page)
    answer = rest_answer(page)

    with page.expect_download() as info:
        page.get_by_test_id("export-paths-csv").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text())))
    assert [(row["id"], float(row["score"])) for row in rows] == ranked(answer["scores"])
    assert [row["rank"] for row in rows] == [str(rank) for rank in range(1, TOP_K + 1)]
    with page.expect_download() as info:
        page.get_by_test_id("export-paths-json").click()
    exported = json.loads(Path(info.value.path()).read_text())
    assert exported["algorithm"] == "ppr" and ranked(exported["scores"]) == ranked(answer["scores"])

    # Once the layout among its facts stops, every node is inside the canvas with room for a label to its right.
    page.wait_for_function("!memoriaLive.live.view.layoutRunning() && !memoriaLive.ppr.fitPending", timeout=20_000)
    page.wait_for_timeout(500)  # the camera's animation
    box = page.get_by_test_id("live-canvas").bounding_box()
    width, height = box["width"], box["height"]
    positions = page.evaluate("memoriaLive.live.view.nodeIds().map((id) => memoriaLive.live.view.viewportPosition(id))")
    assert all(0 <= at["x"] <= width * 0.9 and 0 <= at["y"] <= height for at in positions), (width, height, positions)
