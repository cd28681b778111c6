"""Browsing in Chromium against daphne: switch group, search, open an entity and its time line, then the graph
view: expand nodes (and a hub's "more"), filter, find shortest and strongest paths, inspect an edge."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph import driver
from tests.e2e.browsing import screenshot, sign_in
from tests.e2e.memory import DEPOT_BINS, warehouse_memory

PASSWORD = "correct horse battery staple"
# The first search in a fresh daphne loads the embedding model for the query vector.
FIRST_SEARCH_MS = 120_000


@pytest.fixture
def memory(transactional_db: None, group: str) -> Iterator[dict[str, str]]:
    ids = warehouse_memory(group)
    second = f"{group}-2"
    warehouse_memory(second)
    user_grant(username="planner", role=Role.VIEWER, groups=[group, second], password=PASSWORD)
    yield ids
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=second)


def node_count(page: Page) -> int:
    return int(page.get_by_test_id("node-count").inner_text())


def open_graph(page: Page, base: str, group: str, query: str) -> None:
    page.goto(f"{base}/g/{group}/graph/?{query}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)


def settle(page: Page) -> None:
    """Stop the layout so nodes stay where the test is about to click."""
    page.evaluate("memoriaGraph.view.stopLayout()")
    page.wait_for_timeout(400)


# The point of an edge farthest from every other drawn edge and node: the layout may lay another edge across
# the midpoint (seen once in CI: the click opened the neighbouring "lists" edge), so the midpoint alone can miss.
CLEAR_POINT_ON_EDGE = """(id) => {
  const view = memoriaGraph.view, graph = view.graph;
  const at = (node) => view.viewportPosition(node);
  const a = at(graph.source(id)), b = at(graph.target(id));
  const toSegment = (p, u, v) => {
    const dx = v.x - u.x, dy = v.y - u.y, length = dx * dx + dy * dy;
    const t = length ? Math.max(0, Math.min(1, ((p.x - u.x) * dx + (p.y - u.y) * dy) / length)) : 0;
    return Math.hypot(p.x - (u.x + t * dx), p.y - (u.y + t * dy));
  };
  let best = null, bestClearance = -1;
  for (let step = 1; step < 20; step++) {
    const t = step / 20, p = { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) };
    let clearance = Infinity;
    graph.forEachEdge((other, attributes, source, target) => {
      if (other !== id) clearance = Math.min(clearance, toSegment(p, at(source), at(target)));
    });
    graph.forEachNode((node) => { clearance = Math.min(clearance, Math.hypot(p.x - at(node).x, p.y - at(node).y)); });
    if (clearance > bestClearance) { best = p; bestClearance = clearance; }
  }
  return best;
}"""


def click_at(page: Page, position: dict) -> None:
    box = page.get_by_test_id("graph-canvas").bounding_box()
    page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])


def click_node(page: Page, node_id: str) -> None:
    settle(page)
    click_at(page, page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node_id))


def double_click_node(page: Page, node_id: str) -> None:
    settle(page)
    box = page.get_by_test_id("graph-canvas").bounding_box()
    position = page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node_id)
    page.mouse.dblclick(box["x"] + position["x"], box["y"] + position["y"])


def test_switch_group_search_and_open_an_entity(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD, then="/search/")
    switcher = page.get_by_test_id("group-switcher")
    expect(switcher.locator("option")).to_have_text([group, f"{group}-2"])  # only the user's groups
    switcher.select_option(f"{group}-2")  # submits on change
    expect(page).to_have_url(re.compile(r"/search/$"))
    expect(page.get_by_test_id("group-switcher")).to_have_value(f"{group}-2")
    page.get_by_test_id("group-switcher").select_option(group)
    expect(page.get_by_test_id("group-switcher")).to_have_value(group)

    # The box lists suggestions as you type, so it is a combobox (WAI-ARIA 1.2), no longer a plain searchbox.
    page.get_by_role("combobox", name="Search", exact=True).fill("safety stock policy gloves")
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector('[data-testid="tab-entities"]', timeout=FIRST_SEARCH_MS)
    page.get_by_test_id("tab-entities").click()
    entities = page.get_by_test_id("panel-entities")
    expect(entities).to_be_visible()
    link = entities.get_by_role("link", name="Safety stock policy for gloves")
    expect(link).to_be_visible()
    score = entities.locator(".result").filter(has_text="Safety stock policy for gloves").get_by_test_id("score")
    assert "bm25" in score.get_attribute("title")
    screenshot(page, "search.png")

    link.click()
    expect(page.get_by_test_id("node-name")).to_have_text("Safety stock policy for gloves")
    timeline = page.get_by_test_id("timeline")
    old = timeline.locator("li.fact.invalidated")
    expect(old).to_have_count(1)
    expect(old.locator("del")).to_contain_text("The old safety stock policy applies to Lyon")
    struck = old.locator("del").evaluate("(el) => getComputedStyle(el).textDecorationLine")
    assert "line-through" in struck
    expect(old).to_contain_text("2025-01-05 → 2025-03-01")
    current = timeline.locator("li.fact:not(.invalidated)")
    expect(current).to_contain_text("The safety stock policy governs Lyon")
    expect(current.locator("del")).to_have_count(0)
    expect(page.get_by_test_id("community-link")).to_have_text("Lyon gloves supply")
    expect(page.get_by_role("link", name="policy change")).to_be_visible()
    mini = page.get_by_test_id("mini-graph")
    expect(mini).to_have_attribute("data-ready", "true", timeout=20_000)
    assert int(mini.get_attribute("data-nodes")) == 2  # the policy and Lyon
    page.wait_for_timeout(1500)  # let the mini graph's layout spread out for the picture
    screenshot(page, "entity.png")


def test_graph_view_expand_path_and_edge_inspector(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={memory['forecast']}")
    expect(page.get_by_test_id("node-count")).to_have_text("3")  # the request, ERP orders, the stockout
    expect(page.get_by_test_id("node-panel")).to_contain_text("Forecast gloves demand in Lyon")

    # A click reads a node and draws nothing more: before (issue 32) it also expanded it, 41 → 64 nodes while
    # picking two path ends.
    click_node(page, memory["stockout"])
    expect(page.get_by_test_id("node-panel")).to_contain_text("Stockout of safety gloves")
    expect(page.get_by_test_id("expand")).to_be_visible()
    page.wait_for_timeout(500)
    expect(page.get_by_test_id("node-count")).to_have_text("3")
    double_click_node(page, memory["stockout"])  # expanding the stockout brings Lyon in
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    double_click_node(page, memory["lyon"])  # and Lyon brings the policy and the supplier
    expect(page.get_by_test_id("node-count")).to_have_text("6")
    page.get_by_test_id("path-to-here").click()
    expect(page.get_by_test_id("path-to")).to_have_text("Lyon warehouse")
    click_node(page, memory["forecast"])
    page.get_by_test_id("path-from-here").click()

    page.get_by_test_id("path-shortest").click()
    expect(page.get_by_test_id("path-summary")).to_contain_text("shortest: 2 hops")
    highlighted = page.evaluate("[...memoriaGraph.view.highlighted.nodes]")
    assert highlighted == [memory["forecast"], memory["stockout"], memory["lyon"]]
    page.get_by_test_id("path-strongest").click()
    expect(page.get_by_test_id("path-summary")).to_contain_text("strongest: 3 hops · strength 0.684")
    highlighted = page.evaluate("[...memoriaGraph.view.highlighted.nodes]")
    assert highlighted == [memory["forecast"], memory["erp"], memory["aldana"], memory["lyon"]]
    assert page.evaluate("memoriaGraph.view.highlighted.edges.size") == 3
    expect(page.get_by_test_id("path-steps").locator("li")).to_have_text(
        [re.compile(r"uses_data .*0\.8$"), re.compile(r"lists .*0\.95$"), re.compile(r"supplies .*0\.9$")]
    )

    # Click the drawn edge ERP orders ← request in the canvas: the inspector opens and fills from the server.
    settle(page)
    uses_data = page.evaluate(
        "(ids) => memoriaGraph.view.edgesOf(ids[0]).find((e) => e.target === ids[1]).id",
        [memory["forecast"], memory["erp"]],
    )
    inspector = page.get_by_test_id("edge-inspector")
    for attempt in range(3):  # a click a few pixels off the drawn line hits the stage (seen once in CI): aim again
        settle(page)
        click_at(page, page.evaluate(CLEAR_POINT_ON_EDGE, uses_data))
        try:
            expect(inspector).to_be_visible(timeout=3000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    expect(inspector.get_by_test_id("edge-relation")).to_have_text("uses_data")
    expect(inspector.get_by_test_id("edge-weight")).to_have_text("0.8")
    expect(inspector.get_by_test_id("edge-validity")).to_have_text("2025-02-10 → now")
    expect(inspector).to_contain_text("The forecast uses the ERP sales orders")
    expect(inspector).to_contain_text("demand_forecasting")
    expect(inspector.get_by_test_id("edge-episodes")).to_contain_text("planner message")
    box = inspector.bounding_box()  # in sight, not below the node panel (where a click seemed to do nothing)
    assert 0 <= box["y"] < page.viewport_size["height"] - 100, box
    page.wait_for_timeout(500)
    screenshot(page, "graph-view.png")


def test_a_refused_path_request_says_why_in_the_path_box(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    """Before (issue 32) the box kept saying "Searching…" after the server refused the request."""
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={memory['forecast']}")
    expect(page.get_by_test_id("node-count")).to_have_text("3")
    page.evaluate("(id) => memoriaGraph.setPathEnd('to', id)", memory["stockout"])
    page.evaluate("(id) => memoriaGraph.setPathEnd('from', id)", memory["forecast"])
    page.locator("[data-max-hops]").fill("99")  # the input's max is 10; typing past it is still possible
    page.get_by_test_id("path-shortest").click()
    refusal = page.get_by_test_id("path-error")
    expect(refusal).to_have_text("max_hops: '99' is not a whole number in [1, 10]")
    expect(refusal).to_have_attribute("role", "alert")
    expect(page.get_by_test_id("path-result")).not_to_contain_text("Searching")
    assert page.evaluate("memoriaGraph.captureState().action") is None  # a refused search is not an action

    page.locator("[data-max-hops]").fill("3")  # a valid request after the refusal draws as usual
    page.get_by_test_id("path-shortest").click()
    expect(page.get_by_test_id("path-summary")).to_contain_text("shortest: 1 hop")
    expect(page.get_by_test_id("path-error")).to_have_count(0)


def test_hubs_offer_more_and_filters_hide(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={memory['depot']}")
    expect(page.get_by_test_id("node-count")).to_have_text("51")  # the depot and a first page of 50 bins
    more = page.get_by_test_id("expand-more")
    expect(more).to_have_text(f"More ({DEPOT_BINS - 50})")
    more.click()
    expect(page.get_by_test_id("node-count")).to_have_text(str(DEPOT_BINS + 1))
    expect(page.get_by_test_id("expand-more")).to_have_text("All shown")

    # The lightest bins weigh 0.30–0.34: a least weight of 0.35 hides them (and the facts that led to them).
    page.get_by_test_id("min-weight").fill("0.35")
    expect(page.get_by_test_id("node-count")).to_have_text(str(DEPOT_BINS + 1 - 5))
    page.get_by_test_id("min-weight").fill("0.25")
    expect(page.get_by_test_id("node-count")).to_have_text(str(DEPOT_BINS + 1))

    # The legend filters: hiding plain entities leaves nothing of the depot's star.
    page.get_by_test_id("legend").get_by_role("button", name=re.compile("^Entity")).click()
    expect(page.get_by_test_id("node-count")).to_have_text("0")


def test_time_slider_shows_the_graph_as_it_was(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={memory['lyon']}")
    edges = page.get_by_test_id("edge-count")
    expect(edges).to_have_text("4")  # all times: stockout, supplier, the old and the new policy
    page.get_by_test_id("time-enabled").check()
    # The earliest time: the old policy held, and the supply fact (of unknown start) holds throughout.
    page.get_by_test_id("time-slider").fill("0")
    expect(page.get_by_test_id("time-label")).to_have_text("as of 2025-01-05")
    expect(edges).to_have_text("2")
    expect(page.get_by_test_id("node-count")).to_have_text("3")  # the stockout had not happened yet
    page.get_by_test_id("time-slider").fill("1000")  # the latest: the old policy no longer holds
    expect(edges).to_have_text("3")


def test_a_community_opens_with_its_members(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/communities/{memory['com']}/")
    page.get_by_test_id("open-graph").click()
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    # A community has no facts of its own: opening it lays out its four members (and the facts among them).
    expect(page.get_by_test_id("node-count")).to_have_text("5")
    kinds = page.evaluate("memoriaGraph.view.edgesOf(memoriaGraph.view.nodeIds()[0]).map((e) => e.kind)")
    assert sorted(set(kinds)) == ["HAS_MEMBER"] and len(kinds) == 4


def test_a_link_to_a_missing_node_says_so_and_no_page_asks_for_a_missing_file(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before: a raw "Cannot read properties of null (reading 'kind')" and a 404 for /favicon.ico on every page."""
    failed: list[str] = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("pageerror", lambda error: failed.append(f"script error: {error}"))
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, "node=does-not-exist")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(f"No node “does-not-exist” in {group}")
    expect(alert).not_to_contain_text("Cannot read")
    expect(page.get_by_test_id("node-count")).to_have_text("0")

    open_graph(page, daphne_url, group, f"nodes={memory['forecast']},gone-too")
    expect(page.get_by_role("alert")).to_contain_text("No node “gone-too”")
    expect(page.get_by_test_id("node-count")).to_have_text("1")
    page.goto(f"{daphne_url}/g/{group}/entities/does-not-exist/")
    expect(page.get_by_test_id("not-found")).to_contain_text("It may have been deleted or merged")
    expect(page.locator("header.topbar")).to_be_visible()
    assert [url for url in failed if not url.endswith("/entities/does-not-exist/")] == []


def test_problems_show_over_the_canvas_and_a_bad_id_does_not_stop_the_others(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    """Before (issue 32): one id that cannot be an id refused the whole request, nothing was drawn, the message
    sat ~1,370 px down the left column; a 5,000-character find stayed on "Searching…"."""
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"nodes=%3Cscript%3E,{memory['forecast']}")
    expect(page.get_by_test_id("node-count")).to_have_text("1")
    notice = page.get_by_test_id("graph-notice")
    expect(notice).to_contain_text("“<script>” is not a node id")
    canvas = page.get_by_test_id("graph-canvas").bounding_box()
    box = notice.bounding_box()
    assert canvas["y"] <= box["y"] < canvas["y"] + 100 and box["x"] >= canvas["x"], (canvas, box)
    page.locator("[data-notice-close]").click()
    expect(notice).to_be_hidden()

    # A find too long for the server: its refusal replaces "Searching…" (which stayed, before).
    page.get_by_label("Add entities by search").fill("x" * 5000)
    page.get_by_label("Add entities by search").press("Enter")
    expect(page.get_by_test_id("add-error")).to_contain_text("q")
    expect(page.locator("[data-add-results]")).not_to_contain_text("Searching…")
