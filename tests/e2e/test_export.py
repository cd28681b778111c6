"""Exports in Chromium: the graph canvas as PNG (the renderer's layers composed, at the canvas's size) and SVG (one
circle a shown node, one line a shown edge, the labels); the shown subgraph as a nodes CSV, a links CSV and JSON
(what is hidden by hand or by the filter left out); and on the live page the completed paths as CSV and JSON, the
same paths the REST answer gives for that retrieval."""

from __future__ import annotations

import base64
import csv
import io
import json
import struct
from pathlib import Path
from urllib.parse import quote
from xml.etree import ElementTree

import pytest
from playwright.sync_api import Page

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from tests.e2e.browsing import sign_in
from tests.e2e.live_memory import live_memory, retrieval_body
from tests.e2e.test_live import open_live, paths_of, rest_answer, wait_finished

PASSWORD = "correct horse battery staple"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = live_memory(group)
    user_grant(username="planner", role=Role.VIEWER, groups=[group], password=PASSWORD)
    return ids


# The share of a PNG's pixels that are not the export's background, read back by the browser's own decoder.
ZOOMED = {"x": 0.98, "y": 0.02, "ratio": 0.05, "angle": 0}
DRAWN_SHARE = """
async (base64) => {
  const image = new Image();
  image.src = `data:image/png;base64,${base64}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  let drawn = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (Math.abs(pixels[i] - 0xfb) + Math.abs(pixels[i + 1] - 0xfc) + Math.abs(pixels[i + 2] - 0xfe) > 24) drawn += 1;
  }
  return drawn / (pixels.length / 4);
}
"""


def _downloaded(page: Page, testid: str) -> tuple[str, bytes]:
    with page.expect_download() as info:
        page.get_by_test_id(testid).click()
    download = info.value
    return download.suggested_filename, Path(download.path()).read_bytes()


def test_the_graph_canvas_exports_as_png_and_svg(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/graph/?nodes={quote(memory['request'], safe='')}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    page.wait_for_selector("[data-testid=export-png]")
    page.evaluate("memoriaGraph.view.stopLayout()")
    # The layout's end fits the camera (a 300 ms animation): the reader's zoom below comes after it.
    page.wait_for_function("!memoriaGraph.view.sigma.getCamera().isAnimated()", timeout=10_000)
    counts = page.evaluate("memoriaGraph.view.counts()")
    assert counts["nodes"] >= 3

    name, png = _downloaded(page, "export-png")
    assert name.endswith(".png") and png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    canvas = page.evaluate("[...document.querySelectorAll('.stage canvas')].map((c) => [c.width, c.height])[0]")
    assert [width, height] == canvas
    fitted = page.evaluate(DRAWN_SHARE, base64.b64encode(png).decode())
    assert fitted > 0.001  # the graph, not a blank

    # Zoomed into an empty corner, the PNG still holds the whole drawing (before, issue 32, it was clipped as the
    # canvas is: here, blank), and the camera stays where the reader put it.
    page.evaluate(f"memoriaGraph.view.sigma.getCamera().setState({ZOOMED})")
    _, png = _downloaded(page, "export-png")
    assert page.evaluate(DRAWN_SHARE, base64.b64encode(png).decode()) > fitted / 2
    assert page.evaluate("memoriaGraph.view.sigma.getCamera().getState()") == ZOOMED

    name, svg = _downloaded(page, "export-svg")
    root = ElementTree.fromstring(svg)  # noqa: S314 — the file this test just had the page make
    assert name.endswith(".svg") and root.tag == f"{SVG}svg"
    assert len(root.findall(f".//{SVG}circle")) == counts["nodes"]
    lines = root.findall(f".//{SVG}line")
    assert len(lines) == counts["edges"]
    # Facts are arrows, as on screen: before (issue 32) the SVG's lines had no heads.
    markers = {marker.get("id"): marker for marker in root.findall(f".//{SVG}defs/{SVG}marker")}
    for line in lines:
        head = markers[line.get("marker-end").removeprefix("url(#").removesuffix(")")]
        assert head.find(f"{SVG}path").get("fill") == line.get("stroke")
    shown = page.evaluate("memoriaGraph.view.nodeIds().map((id) => memoriaGraph.view.node(id).name)")
    assert {text.text for text in root.findall(f".//{SVG}text")} <= set(shown)


DRAWN = """() => {
  const view = memoriaGraph.view, nodes = {}, links = {};
  view.graph.forEachNode((id, a) => {
    if (!view.isNodeHidden(id)) nodes[id] = {name: a.card.name, x: a.x, y: a.y, pinned: a.fixed};
  });
  view.graph.forEachEdge((id, a, source, target) => {
    if (!view.isEdgeHidden(id, source, target)) links[id] = [source, target];
  });
  return {nodes, links, counts: view.counts()};
}"""


def test_the_shown_subgraph_exports_as_csv_and_json(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    sign_in(page, daphne_url, "planner", PASSWORD)
    page.goto(f"{daphne_url}/g/{group}/graph/?nodes={quote(memory['request'], safe='')}")
    page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=30_000)
    page.wait_for_selector("[data-testid=export-nodes-csv]")
    page.evaluate("(id) => memoriaGraph.expand(id)", memory["request"])
    page.evaluate("memoriaGraph.view.stopLayout()")
    # The request and its four neighbours are drawn; ERP orders is hidden by hand, and a weight floor of 0.5 hides
    # the policy's one fact (0.3), so the policy too: three nodes and two links are shown.
    page.evaluate("(id) => memoriaGraph.view.hideNode(id)", memory["erp"])
    page.evaluate("memoriaGraph.view.setFilter({minWeight: 0.5})")
    page.evaluate("(id) => memoriaGraph.view.pinNode(id, true)", memory["answer"])
    drawn = page.evaluate(DRAWN)
    shown = {memory[name] for name in ("request", "stockout", "answer")}
    assert set(drawn["nodes"]) == shown
    assert drawn["counts"]["totalNodes"] == 5 and drawn["counts"]["edges"] == 2

    name, raw = _downloaded(page, "export-nodes-csv")
    nodes = list(csv.DictReader(io.StringIO(raw.decode())))
    assert name.startswith("memoria-graph-nodes-") and name.endswith(".csv")
    assert {row["id"]: row["name"] for row in nodes} == {id: node["name"] for id, node in drawn["nodes"].items()}
    for row in nodes:
        node = drawn["nodes"][row["id"]]
        assert (float(row["x"]), float(row["y"])) == (node["x"], node["y"])
        assert row["pinned"] == ("true" if row["id"] == memory["answer"] else "false")
    assert {(row["kind"], row["labels"]) for row in nodes} == {
        ("Entity", "UserRequest"),
        ("Entity", "Event"),
        ("Entity", "AgentAnswer"),
    }

    name, raw = _downloaded(page, "export-links-csv")
    links = list(csv.DictReader(io.StringIO(raw.decode())))
    assert name.startswith("memoria-graph-links-") and name.endswith(".csv")
    assert {row["id"]: [row["source"], row["target"]] for row in links} == drawn["links"]
    assert sorted((row["relation"], row["weight"]) for row in links) == [("answers", "0.9"), ("explains", "0.6")]

    name, raw = _downloaded(page, "export-shown-json")
    shown_json = json.loads(raw)
    assert name.startswith("memoria-graph-shown-") and name.endswith(".json")
    assert {node["id"]: node["name"] for node in shown_json["nodes"]} == {
        id: n["name"] for id, n in drawn["nodes"].items()
    }
    assert {link["id"]: [link["source"], link["target"]] for link in shown_json["links"]} == drawn["links"]
    assert {link["relation"] for link in shown_json["links"]} == {"answers", "explains"}


def test_the_live_paths_export_as_csv_and_json(page: Page, daphne_url: str, memory: dict, group: str) -> None:
    open_live(page, daphne_url, group, memory["request"], pace="0")
    page.get_by_test_id("run").click()
    wait_finished(page)
    page.wait_for_selector("[data-testid=export-paths-csv]")
    expected = paths_of(rest_answer(page, retrieval_body(group, memory["request"])))

    _, raw = _downloaded(page, "export-paths-json")
    paths = json.loads(raw)
    assert sorted(json.dumps(item["path"], sort_keys=True) for item in paths) == sorted(
        json.dumps(path, sort_keys=True) for path in expected
    )
    assert [item["path"]["energy"] for item in paths] == sorted((p["energy"] for p in expected), reverse=True)

    _, raw = _downloaded(page, "export-paths-csv")
    rows = list(csv.DictReader(io.StringIO(raw.decode())))
    assert [row["rank"] for row in rows] == [str(i) for i in range(1, len(expected) + 1)]
    assert rows[0]["nodes"] == " > ".join(paths[0]["path"]["nodes"])
