"""The graph page's choice of layout in Chromium against daphne: beside the moving force layout, a grid, top-down
layers along the facts' direction and rings around the most connected node, each placed at once with pinned nodes
left where they are, the drawing fitted afterwards, and the choice kept in the URL and restored from it; pinned
nodes kept in the URL where they stand and put back there exactly, held by the force layout."""

from __future__ import annotations

import itertools
import math
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from tests.e2e import test_graph_ppr
from tests.e2e.test_explorer import settle
from tests.e2e.test_view_tools import open_forecast, ready

memory = test_graph_ppr.memory  # the warehouse memory and a viewer, the planner

DRAWN = """() => {
  const view = memoriaGraph.view, nodes = {}, links = [];
  view.graph.forEachNode((id, a) => { if (!view.isNodeHidden(id)) nodes[id] = [a.x, a.y, view.isPinned(id)]; });
  view.graph.forEachEdge((id, a, source, target) => {
    if (!view.isEdgeHidden(id, source, target)) links.push([source, target]);
  });
  return {nodes, links};
}"""
IN_SIGHT = """() => {
  const view = memoriaGraph.view, box = view.sigma.getContainer().getBoundingClientRect();
  return view.nodeIds().filter((id) => !view.isNodeHidden(id)).every((id) => {
    const at = view.viewportPosition(id);
    return at.x >= 0 && at.x <= box.width && at.y >= 0 && at.y <= box.height;
  });
}"""


def levels(values: list[float], scale: float) -> list[float]:
    """The distinct values, told apart above a millionth of the drawing's size."""
    distinct: list[float] = []
    for value in sorted(values):
        if not distinct or value - distinct[-1] > scale * 1e-6:
            distinct.append(value)
    return distinct


def evenly_spaced(values: list[float]) -> bool:
    steps = [b - a for a, b in itertools.pairwise(values)]
    return all(math.isclose(step, steps[0], rel_tol=1e-6) for step in steps)


def choose(page: Page, layout: str) -> dict:
    page.get_by_test_id("layout-mode").select_option(layout)
    page.wait_for_function(f"new URLSearchParams(location.search).get('layout') === '{layout}'")
    page.wait_for_function("!memoriaGraph.view.sigma.getCamera().isAnimated()", timeout=10_000)
    page.wait_for_timeout(300)  # the fit's animation has ended
    assert page.evaluate(IN_SIGHT)
    return page.evaluate(DRAWN)


def placed(drawn: dict) -> dict[str, tuple[float, float]]:
    return {id: (x, y) for id, (x, y, pinned) in drawn["nodes"].items() if not pinned}


def is_radial(drawn: dict) -> bool:
    """Some node has its shown neighbours on one ring around it and every other node on a ring a whole number of
    that ring's radius out."""
    nodes = placed(drawn)
    for centre, (cx, cy) in nodes.items():
        distances = {id: math.dist((cx, cy), spot) for id, spot in nodes.items() if id != centre}
        first = min(distances.values())
        neighbours = {b for a, b in drawn["links"] if a == centre} | {a for a, b in drawn["links"] if b == centre}
        rings = all(math.isclose(d / first, round(d / first), abs_tol=1e-6) for d in distances.values())
        if rings and all(math.isclose(distances[id], first, rel_tol=1e-6) for id in neighbours & nodes.keys()):
            return True
    return False


def test_a_layout_is_chosen_placed_at_once_kept_in_the_url_and_restored(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["lyon"])
    settle(page)
    page.evaluate("(id) => memoriaGraph.view.pinNode(id, true)", memory["policy"])
    pinned = page.evaluate(DRAWN)["nodes"][memory["policy"]]
    assert page.evaluate("memoriaGraph.view.counts().nodes") >= 6

    # A grid: the unpinned nodes on the rows and columns of a square, equally spaced; the pinned one stays put.
    drawn = choose(page, "grid")
    assert drawn["nodes"][memory["policy"]] == pinned
    nodes = placed(drawn)
    scale = max(abs(value) for spot in nodes.values() for value in spot)
    columns = levels([x for x, _ in nodes.values()], scale)
    rows = levels([y for _, y in nodes.values()], scale)
    assert len(columns) == math.ceil(math.sqrt(len(nodes))) and len(rows) == math.ceil(len(nodes) / len(columns))
    assert evenly_spaced(columns) and evenly_spaced(rows) and math.isclose(columns[1] - columns[0], rows[1] - rows[0])

    # Layers: the nodes no shown fact points to on top, the others on evenly spaced layers below.
    drawn = choose(page, "hierarchical")
    nodes = placed(drawn)
    layers = levels([y for _, y in nodes.values()], scale)
    assert len(layers) >= 3 and evenly_spaced(layers)
    pointed_to = {target for source, target in drawn["links"] if source in nodes}
    top = {id for id, (_, y) in nodes.items() if math.isclose(y, layers[-1], abs_tol=scale * 1e-6)}
    assert top == set(nodes) - pointed_to
    assert drawn["nodes"][memory["policy"]] == pinned

    # Rings, and the choice survives a reload: the URL says radial, the menu shows it, the nodes are on rings.
    assert is_radial(choose(page, "radial"))
    assert not is_radial(drawn)  # the test tells layers from rings
    assert parse_qs(urlparse(page.url).query)["layout"] == ["radial"]
    page.reload()
    ready(page)
    expect(page.get_by_test_id("layout-mode")).to_have_value("radial")
    assert is_radial(page.evaluate(DRAWN))


PLACE = "(id) => { const a = memoriaGraph.view.graph.getNodeAttributes(id); return [a.x, a.y, a.fixed]; }"


def test_pins_are_kept_in_the_url_where_they_stand_and_restored_exactly(
    page: Page, daphne_url: str, memory: dict, group: str
) -> None:
    open_forecast(page, daphne_url, memory, group)
    # Pinned from the node's panel while the force layout runs: the layout leaves it there from then on.
    page.evaluate("(id) => memoriaGraph.openNode(id)", memory["erp"])
    page.evaluate("memoriaGraph.view.startLayout({ms: 1500})")
    page.get_by_test_id("pin").click()
    page.wait_for_function("new URLSearchParams(location.search).has('pins')")
    pinned = page.evaluate(PLACE, memory["erp"])
    page.wait_for_function("!memoriaGraph.view.layoutRunning()", timeout=10_000)
    assert page.evaluate(PLACE, memory["erp"]) == pinned
    pins = parse_qs(urlparse(page.url).query)["pins"][0].split(",")
    assert pins[0] == memory["erp"] and [float(pins[1]), float(pins[2])] == pinned[:2]

    # A reload (as a saved view's link) puts it back exactly, pinned, and a long force layout does not move it.
    page.reload()
    ready(page)
    assert page.evaluate(PLACE, memory["erp"]) == pinned
    page.evaluate("memoriaGraph.view.startLayout({ms: 1500})")
    page.wait_for_function("!memoriaGraph.view.layoutRunning()", timeout=10_000)
    assert page.evaluate(PLACE, memory["erp"]) == pinned
    expect(page.get_by_test_id("pin")).to_have_text("Unpin")
