// Export what is on screen: the canvas as PNG (the renderer's layers composed) or SVG (nodes, edges and labels as
// the renderer placed them), the shown nodes and the links among them as CSV (a nodes file and a links file) or
// JSON, and on the live page the run's results (its completed paths, or a PPR run's ranking) as CSV or JSON. The
// controls are added to the page's left panel, so the pages' templates stay as they are.
import { h } from "./dom.js";
import { ALGORITHM } from "./names.js";

const SVG_NS = "http://www.w3.org/2000/svg";

export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// The renderer's WebGL layers are read right after a synchronous render, before the browser may clear them. The
// whole drawing is framed for that render (labels' margin included) and the camera put back at once: before, the
// PNG was clipped as the canvas was, zoomed or panned (issue 32).
export function canvasPng(view) {
  const kept = view.frameAllNow();
  const layers = [...view.sigma.getContainer().querySelectorAll("canvas")];
  const { width, height } = layers[0];
  const out = h("canvas", { width, height });
  try {
    view.sigma.refresh();
    const context = out.getContext("2d");
    context.fillStyle = "#fbfcfe";
    context.fillRect(0, 0, width, height);
    for (const layer of layers) if (layer.width && layer.height) context.drawImage(layer, 0, 0, width, height);
  } finally {
    view.sigma.getCamera().setState(kept);
  }
  return new Promise((resolve) => out.toBlob(resolve, "image/png"));
}

function svgElement(tag, attributes, text = null) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

// Only what is shown: hidden or filtered nodes and edges are left out, as on screen.
export function canvasSvg(view) {
  const { width, height } = view.sigma.getDimensions();
  const svg = svgElement("svg", { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}` });
  svg.append(svgElement("rect", { width, height, fill: "#fbfcfe" }));
  const place = (id) => {
    const data = view.sigma.getNodeDisplayData(id);
    return data && { ...view.sigma.framedGraphToViewport(data), size: view.sigma.scaleSize(data.size), data };
  };
  // Facts are arrows on screen, so here too (issue 32: the SVG had bare lines): one arrowhead marker per colour,
  // the line ending at the target's rim so the head is not under the circle.
  const defs = svgElement("defs", {});
  const markers = new Map();
  const arrowhead = (colour) => {
    if (!markers.has(colour)) {
      const id = `arrowhead-${markers.size}`;
      const marker = svgElement("marker", {
        id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto", markerUnits: "strokeWidth",
      });
      marker.append(svgElement("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }));
      defs.append(marker);
      markers.set(colour, id);
    }
    return `url(#${markers.get(colour)})`;
  };
  const edges = svgElement("g", { class: "edges" });
  view.graph.forEachEdge((id, attributes, source, target) => {
    if (view.isEdgeHidden(id, source, target)) return;
    const [a, b] = [place(source), place(target)];
    if (!a || !b) return;
    const display = view.sigma.getEdgeDisplayData(id) || {};
    const colour = display.color || "#b8c0cc";
    const line = { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: colour, "stroke-width": Math.max(1, display.size || 1), "data-edge": id };
    if (attributes.type === "arrow") {
      const length = Math.hypot(b.x - a.x, b.y - a.y);
      const rim = Math.max(2, b.size);
      if (length > rim) {
        line.x2 = b.x - ((b.x - a.x) * rim) / length;
        line.y2 = b.y - ((b.y - a.y) * rim) / length;
      }
      line["marker-end"] = arrowhead(colour);
    }
    edges.append(svgElement("line", line));
  });
  const nodes = svgElement("g", { class: "nodes" });
  const labels = svgElement("g", { class: "labels", "font-family": "system-ui, sans-serif", "font-size": 12, fill: "#1d2430" });
  view.graph.forEachNode((id) => {
    if (view.isNodeHidden(id)) return;
    const at = place(id);
    if (!at) return;
    nodes.append(svgElement("circle", { cx: at.x, cy: at.y, r: Math.max(2, at.size), fill: at.data.color || "#3559e0", "data-node": id }));
    if (at.data.label) labels.append(svgElement("text", { x: at.x + at.size + 3, y: at.y + 4 }, at.data.label));
  });
  svg.append(defs, edges, nodes, labels);
  return new Blob([new XMLSerializer().serializeToString(svg)], { type: "image/svg+xml" });
}

const PATH_COLUMNS = ["rank", "seed_id", "depth", "energy", "end_reason", "nodes", "edges", "relations"];

// A spreadsheet reads a cell starting with one of these as a formula: such text gets a leading apostrophe, which
// spreadsheets hide (OWASP's rule, the one of the search page's CSV: explorer/exports.py, FORMULA_STARTS).
const FORMULA_STARTS = ["=", "+", "-", "@", "\t", "\r"];

export function csvCell(value) {
  const raw = String(value ?? "");
  const text = typeof value === "string" && FORMULA_STARTS.some((start) => raw.startsWith(start)) ? `'${raw}` : raw;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// The live run's completed paths, strongest first, as the paths list shows them.
export function pathsCsv(ranked) {
  const rows = ranked.map(({ seed_id, path }, index) => [
    index + 1, seed_id, path.depth, path.energy, path.end_reason, path.nodes.join(" > "),
    path.hops.map((hop) => hop.edge_id).join(" "), path.hops.map((hop) => hop.relation).join(" > "),
  ]);
  return csvTable(PATH_COLUMNS, rows);
}

const RANKING_COLUMNS = ["rank", "id", "name", "kind", "score"];

// A PPR run's ranking, best first (a PPR run has no paths: before, issue 32, its export was a header and `[]`).
export function rankingCsv(scores) {
  const rows = scores.map((node, index) => [index + 1, node.id, node.name, node.kind, node.score]);
  return csvTable(RANKING_COLUMNS, rows);
}

function csvTable(columns, rows) {
  return [columns, ...rows].map((row) => row.map(csvCell).join(",")).join("\n") + "\n";
}

// What is drawn: the shown nodes (not hidden by hand, by the legend or by the filter) and the links among them that
// the filter shows, with where each node is drawn (graph coordinates) and whether it is pinned. Two tables rather
// than one with a kind column: a nodes table and a links table are what Gephi's and Neo4j's importers read, and
// neither has to carry the other's empty columns.
export function visibleSubgraph(view) {
  const nodes = [];
  view.graph.forEachNode((id, attributes) => {
    if (view.isNodeHidden(id)) return;
    nodes.push({ ...attributes.card, x: attributes.x, y: attributes.y, pinned: Boolean(attributes.fixed) });
  });
  const links = [];
  view.graph.forEachEdge((id, attributes, source, target) => {
    if (!view.isEdgeHidden(id, source, target)) links.push({ ...attributes.edge });
  });
  return { nodes, links };
}

const NODE_COLUMNS = ["id", "name", "kind", "labels", "community", "community_name", "degree", "pinned", "x", "y"];
const LINK_COLUMNS = [
  "id", "kind", "source", "target", "source_name", "target_name", "relation", "category", "fact", "weight", "tags",
  "valid_at", "invalid_at", "expired_at", "created_at", "invalidated",
];

// A list (labels, tags) in one cell, "|"-separated as Gephi's list columns are.
const cellOf = (value) => (Array.isArray(value) ? value.join("|") : value);

export function nodesCsv(subgraph) {
  return csvTable(NODE_COLUMNS, subgraph.nodes.map((node) => NODE_COLUMNS.map((column) => cellOf(node[column]))));
}

export function linksCsv(subgraph) {
  return csvTable(LINK_COLUMNS, subgraph.links.map((link) => LINK_COLUMNS.map((column) => cellOf(link[column]))));
}

// The live page's results: an Activation Energy run's completed paths, or a PPR run's ranking and passages.
function liveResults(live, ppr) {
  if (!live.run && ppr && ppr.lastAnswer) {
    const answer = ppr.lastAnswer;
    return {
      kind: "ranking",
      csv: () => rankingCsv(answer.scores),
      json: () => ({ algorithm: ALGORITHM.PPR, retrieval_id: answer.retrieval_id, scores: answer.scores, passages: answer.passages }),
    };
  }
  const ranked = live.run ? live.run.rankedPaths() : [];
  return { kind: "paths", csv: () => pathsCsv(ranked), json: () => ranked };
}

function exportPanel(view, { results = null, name }) {
  const stamp = () => new Date().toISOString().slice(0, 19).replaceAll(":", "");
  const button = (text, testid, onclick) => h("button", { type: "button", class: "small secondary", "data-testid": testid, onclick }, text);
  const csv = (text, what) => download(new Blob([text], { type: "text/csv" }), `${name}-${what}-${stamp()}.csv`);
  return h(
    "fieldset",
    { class: "export", "data-testid": "export" },
    h("legend", { text: "Export" }),
    h(
      "div",
      { class: "buttons" },
      button("PNG", "export-png", async () => download(await canvasPng(view), `${name}-${stamp()}.png`)),
      button("SVG", "export-svg", () => download(canvasSvg(view), `${name}-${stamp()}.svg`)),
      button("Nodes CSV", "export-nodes-csv", () => csv(nodesCsv(visibleSubgraph(view)), "nodes")),
      button("Links CSV", "export-links-csv", () => csv(linksCsv(visibleSubgraph(view)), "links")),
      button("Shown JSON", "export-shown-json", () => {
        const shown = { exported_at: new Date().toISOString(), ...visibleSubgraph(view) };
        download(new Blob([JSON.stringify(shown, null, 1)], { type: "application/json" }), `${name}-shown-${stamp()}.json`);
      }),
      results && button("Results CSV", "export-paths-csv", () => {
        const shown = results();
        download(new Blob([shown.csv()], { type: "text/csv" }), `${name}-${shown.kind}-${stamp()}.csv`);
      }),
      results && button("Results JSON", "export-paths-json", () => {
        const shown = results();
        download(new Blob([JSON.stringify(shown.json(), null, 1)], { type: "application/json" }), `${name}-${shown.kind}-${stamp()}.json`);
      }),
    ),
  );
}

function attach() {
  const panel = document.querySelector(".graph-page > aside.controls");
  if (!panel) return false;
  if (window.memoriaGraph) {
    panel.append(exportPanel(window.memoriaGraph.view, { name: "memoria-graph" }));
    return true;
  }
  if (window.memoriaLive) {
    const { live, ppr } = window.memoriaLive;
    panel.append(exportPanel(live.view, { results: () => liveResults(live, ppr), name: "memoria-live" }));
    return true;
  }
  return false;
}

// The page's own module defines its global once it has set up; try again until it has.
if (!attach()) {
  let tries = 0;
  const timer = setInterval(() => {
    tries += 1;
    if (attach() || tries > 100) clearInterval(timer);
  }, 100);
}
