"""The graph view's node menu (issue 32, item 2), by mouse and by keyboard: expand by relation and direction with
counts, expand to a depth, collapse (the inverse of expand), dismiss the others, a path end, and the live page
with the node as a seed."""

from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

from tests.e2e.browsing import sign_in
from tests.e2e.test_explorer import PASSWORD, open_graph, settle
from tests.e2e.test_graph_ppr import memory  # noqa: F401  (the fixture: the warehouse memory, its planner)


def right_click_node(page: Page, node_id: str) -> None:
    settle(page)
    box = page.get_by_test_id("graph-canvas").bounding_box()
    at = page.evaluate("(id) => memoriaGraph.view.viewportPosition(id)", node_id)
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"], button="right")


def open_menu(page: Page, node_id: str) -> None:
    page.evaluate("(id) => memoriaGraph.openNode(id)", node_id)
    page.get_by_test_id("node-menu-button").click()
    expect(page.get_by_test_id("node-menu")).to_be_visible()


def shown(page: Page) -> set[str]:
    return set(page.evaluate("memoriaGraph.view.nodeIds()"))


def test_the_node_menu_by_mouse_and_keyboard(page: Page, daphne_url: str, memory: dict, group: str) -> None:  # noqa: F811
    sign_in(page, daphne_url, "planner", PASSWORD)
    open_graph(page, daphne_url, group, f"node={quote(memory['forecast'], safe='')}")
    assert shown(page) == {memory["forecast"], memory["erp"], memory["stockout"]}

    # Right click: the menu, with the node's facts counted by relation and direction (every time: no as-of).
    right_click_node(page, memory["stockout"])
    menu = page.get_by_test_id("node-menu")
    expect(menu).to_be_visible()
    relations = menu.get_by_test_id("menu-relation")
    expect(relations).to_have_text(["← explains (1)", "→ happened_at (1)"])  # most first, then by name
    expect(page.get_by_test_id("node-panel")).to_contain_text("Stockout of safety gloves")  # read, not expanded
    relations.filter(has_text="happened_at").click()
    expect(menu).to_be_hidden()
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    assert memory["lyon"] in shown(page)

    # Collapse is the inverse: Lyon's only shown link was to the stockout. (The menu from the node's panel now.)
    open_menu(page, memory["stockout"])
    menu.get_by_test_id("menu-collapse").click()
    expect(page.get_by_test_id("node-count")).to_have_text("3")
    page.keyboard.press("Control+z")  # one step back, as any action
    expect(page.get_by_test_id("node-count")).to_have_text("4")
    page.wait_for_function("document.body.dataset.graphReady === 'true' && memoriaGraph.undoStack.length === 1")

    # By keyboard: Shift+F10 with a node open, arrows, Enter; Esc gives the focus back.
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["lyon"])
    expect(page.get_by_test_id("node-panel")).to_contain_text("Lyon warehouse")
    page.get_by_test_id("node-menu-button").focus()
    page.keyboard.press("Shift+F10")
    expect(menu).to_be_visible()
    expect(menu.get_by_test_id("menu-expand")).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(page.get_by_test_id("node-menu-button")).to_be_focused()
    page.get_by_test_id("node-menu-button").press("Enter")
    expect(menu.get_by_test_id("menu-relation")).to_have_count(4)  # supplies, happened_at, governs, applies_to
    for _ in range(5):  # Expand, four relations: the first depth
        page.keyboard.press("ArrowDown")
    expect(menu.get_by_test_id("menu-depth-2")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([a, b]) => memoriaGraph.view.hasNode(a) && memoriaGraph.view.hasNode(b)",
        arg=[memory["policy"], memory["aldana"]],
    )
    assert memory["expedite"] in shown(page)  # two facts from Lyon: through Aldana

    # A path end, the live page's seed link, and dismissing the others.
    open_menu(page, memory["lyon"])
    menu.get_by_test_id("menu-path-to").click()
    expect(page.get_by_test_id("path-to")).to_have_text("Lyon warehouse")
    open_menu(page, memory["lyon"])
    live = menu.get_by_test_id("menu-live")
    assert live.get_attribute("href") == f"/g/{group}/live/?seed={quote(memory['lyon'], safe='')}"
    menu.get_by_test_id("menu-dismiss-others").click()
    expect(page.get_by_test_id("node-count")).to_have_text("1")
    assert shown(page) == {memory["lyon"]}
