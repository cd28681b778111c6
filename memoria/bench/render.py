"""`bench render`: time to first render of the explorer's graph view in headless Chromium, and frame times after.

A synthetic graph (node and edge cards as the JSON API sends them) is served with the explorer's own static files
from a loopback HTTP server; a page loads the vendored sigma/graphology and graph_view.js, fetches the graph,
draws it, and reports. Nothing touches the graph server or Django: this measures the browser side alone.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import random
import statistics
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memoria.graph import kinds
from memoria.graph.rules import TIMESTAMP_FORMAT

STATIC = Path(__file__).resolve().parents[2] / "explorer" / "static" / "explorer"
VIEWPORT = {"width": 1280, "height": 800}
# Seconds of each timed phase after the first render (the camera moving; then ForceAtlas2 running).
INTERACTION_SECONDS = 3
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
KINDS = (*kinds.DEFAULT_ENTITY_LABELS, "")  # "" is a plain entity
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)

# The page: everything timed against performance.now(), whose origin is the navigation's start.
BENCH_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>render bench</title>
<style>html,body{margin:0} #stage{width:%(width)dpx;height:%(height)dpx}</style></head>
<body><div id="stage"></div>
<script src="vendor/graphology.umd.min.js"></script>
<script src="vendor/graphology-library.min.js"></script>
<script src="vendor/sigma.min.js"></script>
<script type="module">
import { createGraphView } from "./js/graph_view.js";
const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
const scriptsLoaded = performance.now();
const data = await (await fetch("graph.json")).json();
const fetched = performance.now();
const view = createGraphView(document.getElementById("stage"));
view.addNodes(data.nodes);
view.addEdges(data.edges);
const drawn = performance.now();
await frame(); await frame();  // two frames: the drawn one has reached the screen
const painted = performance.now();
window.benchPainted = true;
// Two timed phases, each started by the runner (which reads CPU times between them): the camera zooming and
// turning over the still graph, then ForceAtlas2 running in its worker with the camera still.
const camera = view.sigma.getCamera();
async function phase(name, step) {
  await new Promise((resolve) => { window.benchGo = () => { window.benchGo = null; resolve(); }; });
  const intervals = [];
  let last = performance.now();
  const until = last + %(seconds)d * 1000;
  for (let index = 1; performance.now() < until; index += 1) {
    step(index);
    await frame();
    const now = performance.now();
    intervals.push(now - last);
    last = now;
  }
  window.benchPhase = name;
  return intervals;
}
// The camera's own animation (what a zoom or a "fit" runs): the view hides a big graph's edges while it moves.
const zoom = (index) => {
  if (index === 1) camera.animate({ ratio: 0.35, angle: 0.6 }, { duration: %(seconds)d * 1000 });
};
const pan = await phase("pan", zoom);
view.startLayout({ ms: 0 });
const layout = await phase("layout", () => {});
view.stopLayout();
window.benchResult = {
  scripts_ms: scriptsLoaded, fetch_ms: fetched - scriptsLoaded, build_ms: drawn - fetched,
  first_render_ms: painted, nodes: view.graph.order, edges: view.graph.size, pan, layout,
};
</script></body></html>
"""


@dataclass(frozen=True)
class PhaseFigures:
    """Frames of one timed phase: wall-clock intervals, and Chromium's CPU time per frame."""

    p50_ms: float
    p95_ms: float
    cpu_ms: float

    @property
    def per_second(self) -> float:
        return 1000 / self.p50_ms


@dataclass(frozen=True)
class RenderFigures:
    """One size's medians over its runs (milliseconds); frame intervals pooled over the runs.

    CPU times are Chromium's, all its processes: on a shared machine wall times swell with everyone else's load,
    CPU time says what the work itself costs. The layout phase's CPU includes the ForceAtlas2 worker, which
    computes as fast as it can.
    """

    nodes: int
    edges: int
    runs: int
    first_render_ms: float
    first_render_cpu_ms: float
    fetch_ms: float
    build_ms: float
    pan: PhaseFigures
    layout: PhaseFigures

    def line(self) -> str:
        return (
            f"  {self.nodes:6d} nodes {self.edges:6d} edges | first render {self.first_render_ms:6.0f} ms wall, "
            f"{self.first_render_cpu_ms:6.0f} ms CPU (fetch {self.fetch_ms:4.0f}, build+draw {self.build_ms:5.0f}) | "
            f"panning p50 {self.pan.p50_ms:5.1f} p95 {self.pan.p95_ms:6.1f} ms, "
            f"{self.pan.cpu_ms:5.1f} ms CPU a frame | "
            f"laying out p50 {self.layout.p50_ms:5.1f} p95 {self.layout.p95_ms:6.1f} ms, "
            f"{self.layout.cpu_ms:5.1f} ms CPU a frame"
        )


def render_graph(*, nodes: int, edges: int, seed: int = 7) -> dict[str, list[dict[str, Any]]]:
    """Node and edge cards shaped as the API sends them: kinds, communities of about 50, weights, categories,
    start dates over a year and one fact in fifteen invalidated. Edges join nodes of one community more often."""
    rng = random.Random(seed)
    communities = max(nodes // 50, 1)
    cards = []
    for index in range(nodes):
        label = rng.choice(KINDS)
        community = index % communities
        cards.append(
            {
                "id": f"n{index}",
                "name": f"Node {index}",
                "kind": kinds.ENTITY,
                "labels": [label] if label else [],
                "community": f"c{community}",
                "community_name": f"Community {community}",
                "degree": 0,
            }
        )
    members: dict[int, list[int]] = {}
    for index in range(nodes):
        members.setdefault(index % communities, []).append(index)
    facts = []
    for index in range(edges):
        source = rng.randrange(nodes)
        # Most facts stay inside a community, as label propagation would find them.
        target = rng.choice(members[source % communities]) if rng.random() < 0.7 else rng.randrange(nodes)
        if target == source:
            target = (source + 1) % nodes
        start = EPOCH + timedelta(days=rng.uniform(0, 365))
        end = start + timedelta(days=rng.uniform(5, 120)) if rng.random() < 1 / 15 else None
        cards[source]["degree"] += 1
        cards[target]["degree"] += 1
        facts.append(
            {
                "id": f"e{index}",
                "kind": kinds.RELATES,
                "source": f"n{source}",
                "target": f"n{target}",
                "relation": "related_to",
                "category": rng.choice((*kinds.RELATION_CATEGORIES, None)),
                "weight": round(rng.uniform(0.25, 1.0), 3),
                "valid_at": start.strftime(TIMESTAMP_FORMAT),
                "invalid_at": end.strftime(TIMESTAMP_FORMAT) if end else None,
                "invalidated": end is not None,
            }
        )
    return {"nodes": cards, "edges": facts}


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The explorer's static folder, plus the bench page and the graph of the moment."""

    pages: dict[str, tuple[bytes, str]] = {}

    def do_GET(self) -> None:
        page = self.pages.get(self.path.split("?")[0])
        if page is None:
            super().do_GET()
            return
        body, content_type = page
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the benchmark prints its own lines."""


@contextlib.contextmanager
def _serving(pages: dict[str, tuple[bytes, str]]) -> Iterator[str]:
    handler = type("BenchHandler", (_Handler,), {"pages": pages})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(STATIC)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _chromium_cpu_ms() -> float:
    """CPU time used so far by the Chromium processes this process started (any depth), from /proc.

    On a shared machine wall times swell with everyone else's load; CPU time says what drawing itself costs.
    """
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        if name.startswith("chrom"):
            cpu[pid] = (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    own = os.getpid()

    def ours(pid: int) -> bool:
        while pid > 1:
            if pid == own:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(ms for pid, ms in cpu.items() if ours(pid))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def _phase(results: list[dict[str, Any]], name: str) -> PhaseFigures:
    intervals = [interval for result in results for interval in result[name]]
    return PhaseFigures(
        p50_ms=statistics.median(intervals),
        p95_ms=_percentile(intervals, 0.95),
        cpu_ms=statistics.median(result[f"{name}_cpu_ms"] / max(len(result[name]), 1) for result in results),
    )


def _figures(results: list[dict[str, Any]]) -> RenderFigures:
    return RenderFigures(
        nodes=results[0]["nodes"],
        edges=results[0]["edges"],
        runs=len(results),
        first_render_ms=statistics.median(result["first_render_ms"] for result in results),
        first_render_cpu_ms=statistics.median(result["first_render_cpu_ms"] for result in results),
        fetch_ms=statistics.median(result["fetch_ms"] for result in results),
        build_ms=statistics.median(result["build_ms"] for result in results),
        pan=_phase(results, "pan"),
        layout=_phase(results, "layout"),
    )


def _run_page(browser: Any, base: str) -> dict[str, Any]:
    """One fresh page: load and draw, then the two phases, with CPU read at each boundary."""
    page = browser.new_page(viewport=VIEWPORT)
    try:
        start = _chromium_cpu_ms()
        page.goto(f"{base}/bench.html")
        page.wait_for_function("window.benchPainted", timeout=300_000)
        cpu = {"first_render": _chromium_cpu_ms() - start}
        for name in ("pan", "layout"):
            page.wait_for_function("typeof window.benchGo === 'function'")
            before = _chromium_cpu_ms()
            page.evaluate("window.benchGo()")
            page.wait_for_function(f"window.benchPhase === '{name}'", timeout=60_000 + 1000 * INTERACTION_SECONDS)
            cpu[name] = _chromium_cpu_ms() - before
        page.wait_for_function("window.benchResult")
        result = page.evaluate("window.benchResult")
    finally:
        page.close()
    return {**result, **{f"{name}_cpu_ms": ms for name, ms in cpu.items()}}


def render_benchmark(
    *, sizes: list[tuple[int, int]], runs: int, chromium: str, say: Callable[[str], None]
) -> list[RenderFigures]:
    """For each (nodes, edges): `runs` fresh pages in one headless Chromium; medians of each."""
    from playwright.sync_api import sync_playwright  # a test dependency: imported only when this runs

    page_html = BENCH_PAGE % {"width": VIEWPORT["width"], "height": VIEWPORT["height"], "seconds": INTERACTION_SECONDS}
    pages: dict[str, tuple[bytes, str]] = {"/bench.html": (page_html.encode(), "text/html; charset=utf-8")}
    figures = []
    with _serving(pages) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            for nodes, edges in sizes:
                pages["/graph.json"] = (json.dumps(render_graph(nodes=nodes, edges=edges)).encode(), "application/json")
                figures.append(_figures([_run_page(browser, base) for _ in range(runs)]))
                say(figures[-1].line())
        finally:
            browser.close()
    return figures
