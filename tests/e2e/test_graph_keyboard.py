"""The graph canvas by keyboard (issue 32): a tab stop with a visible focus ring and a name that says its keys;
the arrow keys move the selection between neighbours, Enter opens the selected node. Before, the canvas could not
be focused and nodes were reachable only through lists."""

from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

from tests.e2e.browsing import sign_in
from tests.e2e.test_explorer import PASSWORD, open_graph, settle
from tests.e2e.test_graph_ppr import memory  # noqa: F401  (the fixture: the warehouse memory, its planner)

# Forecast in the middle, ERP orders to its right, the stockout below it, Lyon to the stockout's right (on screen).
PLACE = """(places) => {
  const view = memoriaGraph.view;
  for (const [id, x, y] of places) view.graph.mergeNodeAttributes(id, { x, y });
  view.sigma.refresh();
}"""


def selected(page: Page) -> list[str]:
    return page.evaluate("[...memoriaGraph.view.selected]")


def at(page: Page, node_id: str) -> dict:
    return page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node_id)


def test_arrow_keys_move_between_neighbours_and_enter_opens(
    page: Page,
    daphne_url: str,
    memory: dict,  # noqa: F811
    group: str,
) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    expect(page.get_by_test_id("node-count")).to_have_text("3")
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["stockout"])  # brings Lyon, the stockout's neighbour
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    settle(page)
    page.evaluate(
        PLACE,
        [
            [memory["forecast"], 0, 0],
            [memory["erp"], 10, 0],
            [memory["stockout"], 0, -10],
            [memory["lyon"], 10, -10],
        ],
    )
    page.wait_for_timeout(200)
    forecast, erp, stockout = at(page, memory["forecast"]), at(page, memory["erp"]), at(page, memory["stockout"])
    assert erp["x"] > forecast["x"] + 50 and abs(erp["y"] - forecast["y"]) < 5, (forecast, erp)
    assert stockout["y"] > forecast["y"] + 50 and abs(stockout["x"] - forecast["x"]) < 5, (forecast, stockout)

    # A tab stop right after the left column's last button, named for its keys, with a focus ring.
    page.locator("aside.controls button:visible").last.focus()
    page.keyboard.press("Tab")
    canvas = page.get_by_test_id("graph-canvas")
    expect(canvas).to_be_focused()
    expect(canvas).to_have_attribute(
        "aria-label", "Graph: arrow keys move between neighbouring nodes, Enter opens the node, Shift+F10 its menu"
    )
    ring = canvas.evaluate("(el) => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]")
    assert ring == ["solid", "3px"], ring
    status = page.get_by_test_id("graph-keyboard-status")
    expect(status).to_have_text("Graph of 4 nodes: arrow keys move between neighbours, Enter opens.")

    # The first arrow starts on the open node; then each moves to the neighbour lying that way.
    page.keyboard.press("ArrowRight")
    assert selected(page) == [memory["forecast"]]
    expect(status).to_have_text("Forecast gloves demand in Lyon (Entity), 2 neighbours shown.")
    page.keyboard.press("ArrowRight")
    assert selected(page) == [memory["erp"]]
    expect(status).to_contain_text("ERP sales orders")
    page.keyboard.press("ArrowLeft")
    assert selected(page) == [memory["forecast"]]
    page.keyboard.press("ArrowDown")
    assert selected(page) == [memory["stockout"]]
    page.keyboard.press("ArrowRight")  # Lyon is the stockout's neighbour, not the forecast's
    assert selected(page) == [memory["lyon"]]
    page.keyboard.press("ArrowUp")  # Lyon has no neighbour above: the nearest shown node that way (ERP orders)
    assert selected(page) == [memory["erp"]]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowDown")
    assert selected(page) == [memory["stockout"]]

    # Enter opens it as a click does (read, not expanded), and the URL follows; the focus stays on the graph.
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("node-panel")).to_contain_text("Stockout of safety gloves")
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    assert "sel=" in page.url and quote(memory["stockout"], safe="") in page.url.split("sel=", 1)[1]
    expect(canvas).to_be_focused()
    # The node's menu from the graph: Shift+F10, and Esc gives the focus back to the graph.
    page.keyboard.press("Shift+F10")
    expect(page.get_by_test_id("node-menu")).to_be_visible()
    page.keyboard.press("Escape")
    expect(canvas).to_be_focused()
