// A reusable graph drawing: sigma.js (WebGL) over a graphology graph, with Memoria's look and controls.
//
// Pages load the vendored globals first (Sigma, graphology, graphologyLibrary; see ../vendor/README.md) and then
// `import { createGraphView } from ".../graph_view.js"`. The view knows nothing of URLs or pages: callers feed it
// node and edge cards (the shapes of memoria/browse/records.py) and listen to its events. What it offers:
//   data        addNodes, addEdges, removeNode, clear, hasNode, node, edge, edgesOf, nodeIds, counts
//   look        setColourMode("kind" | "community"), setSizeMode("score" | "degree" | "uniform"),
//               setEdgeWidth("weight" | "uniform"), hasScoreSizes(), degreeRange(), legend(), toggleLegendKey(key), setFilter({...}),
//               hideNode(s), unhideAll, pinNode, select, setMarked (multi-selection), highlight({nodes, edges}), clearHighlight,
//               setNodeStyle / setEdgeStyle (overlays such as a live retrieval's energies), clearStyles
//   layout      setLayoutMode("force" | "hierarchical" | "radial" | "grid"), startLayout({ms}), stopLayout(),
//               layoutRunning()
//   camera      focus(id), fit(), fitAll({margin}), fitShown(), frameAllNow() (for exports), viewportPosition(id),
//               edgeViewportPosition(id), processNow() (display data from the positions held now)
//   events      on(type, handler): clickNode, clickEdge, clickStage, doubleClickNode, change, firstRender,
//               layout (running or not), dragPin (a node dropped and pinned)
//   teardown    destroy()

import { placements } from "./placements.js";

const LABEL_MARGIN = 1.25; // the camera's zoom-out when framing the whole drawing, so right-hand labels fit

const KIND_COLOURS = {
  Entity: "#5b7083",
  UserRequest: "#3559e0",
  UserPreference: "#8e44ad",
  AgentAnswer: "#16a085",
  AgentAction: "#27ae60",
  Event: "#e67e22",
  DataSource: "#c0392b",
  Episode: "#95a5a6",
  Community: "#f1c40f",
};
const OTHER_COLOUR = "#7f8c8d";
// Twenty colours told apart at a glance (Tableau 20, greys left out, reordered so neighbours differ), given to
// communities in the order the view meets them; past twenty, hues around the circle by the golden angle in two
// lightnesses. Hashing ids into a palette made two communities share a colour long before it ran out.
const COMMUNITY_PALETTE = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#aec7e8",
  "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5", "#dbdb8d", "#393b79", "#637939",
];
const communityColours = new Map();
const NO_COMMUNITY = "(none)";
const CATEGORY_COLOURS = {
  HIERARCHICAL: "#6c7a89",
  TEMPORAL: "#3498db",
  SPATIAL: "#1abc9c",
  CAUSALITY: "#e74c3c",
  ATTRIBUTION: "#9b59b6",
};
const LINK_COLOUR = "#d5dbe3";
const FADED = "#e6e9ee";
const HIGHLIGHT = "#ff2d55";
const INVALIDATED_COLOUR = "#b9c0ca";
// Past this many edges, edges (and labels) are hidden while the camera moves and edges while the layout runs:
// drawing tens of thousands of edges every frame is what makes a big graph stutter, above all without a GPU.
const BIG_GRAPH_EDGES = 5000;
const FORCED_LABELS_MAX = 40;

// Whether a loaded fact counts at `at` as the memory knows it now: memoria/graph/asof.py's `counts` with known_at
// now, so the drawing hides what the server would not walk at that moment (the server decides what it loads;
// this only hides loaded facts again when the moment moves). Stamps are fixed-width UTC strings: text order is
// time order.
export function holdsAt(edge, at) {
  if (!at) return true;
  const now = `${new Date().toISOString().slice(0, 19)}Z`;
  const known = !edge.created_at || edge.created_at <= now;
  const begun = !edge.valid_at || edge.valid_at <= at;
  const ongoing = !edge.invalid_at || at < edge.invalid_at || Boolean(edge.expired_at && now < edge.expired_at);
  return known && begun && ongoing;
}

export function kindKey(card) {
  return card.kind === "Entity" && card.labels && card.labels.length ? card.labels[0] : card.kind;
}

// The renderer reads hex colours: HSL (hue in degrees, saturation and lightness in [0, 1]) written as one.
function hslHex(hue, saturation, lightness) {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    const value = lightness - chroma / 2 * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(255 * value).toString(16).padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

export function communityColour(communityId) {
  if (!communityId) return OTHER_COLOUR;
  if (!communityColours.has(communityId)) {
    const index = communityColours.size;
    const beyond = index - COMMUNITY_PALETTE.length;
    communityColours.set(
      communityId,
      beyond < 0 ? COMMUNITY_PALETTE[index] : hslHex((beyond * 137.508) % 360, 0.65, beyond % 2 ? 0.38 : 0.55),
    );
  }
  return communityColours.get(communityId);
}

const UNIFORM_NODE = 7;
const UNIFORM_EDGE = 1.2;
export const SIZE_MODES = ["score", "degree", "uniform"];

function nodeSize(degree) {
  return Math.min(4 + 2.2 * Math.log2(1 + (degree || 0)), 18);
}

export const LAYOUT_MODES = ["force", "hierarchical", "radial", "grid"];

export class GraphView {
  constructor(container, options = {}) {
    if (!window.Sigma || !window.graphology) throw new Error("load the vendored sigma and graphology first");
    this.container = container;
    this.options = { labels: true, edgeEvents: true, drag: true, ...options };
    this.graph = new window.graphology.MultiDirectedGraph();
    this.colourMode = "kind";
    this.sizeMode = "score"; // "score": an overlay's size (PPR score, energy) where there is one, else degree
    this.edgeWidth = "weight";
    this.hiddenKeys = { kind: new Set(), community: new Set() };
    this.hiddenNodes = new Set();
    this.filter = { minWeight: 0, categories: null, at: null };
    this.filteredNodes = new Set();
    this.filteredEdges = new Set();
    this.highlighted = null;
    this.selected = new Set();
    this.marked = new Set(); // a multi-selection (shift+click): drawn ticked, larger and labelled
    this.nodeStyles = new Map();
    this.edgeStyles = new Map();
    this.handlers = new Map();
    this.layout = null;
    this.layoutMode = "force";
    this.layoutTimer = null;
    this.layoutHidesEdges = false;
    this.firstRenderDone = false;
    this.sigma = new window.Sigma(this.graph, container, {
      renderEdgeLabels: false,
      enableEdgeEvents: this.options.edgeEvents,
      renderLabels: this.options.labels,
      labelRenderedSizeThreshold: 7,
      labelDensity: 0.6,
      zIndex: true,
      defaultEdgeType: "arrow",
      nodeReducer: (node, data) => this.reduceNode(node, data),
      edgeReducer: (edge, data) => this.reduceEdge(edge, data),
    });
    this.sigma.on("afterRender", () => {
      if (!this.firstRenderDone) {
        this.firstRenderDone = true;
        this.emit("firstRender");
      }
    });
    this.justDragged = false;
    for (const type of ["clickNode", "doubleClickNode", "rightClickNode", "enterNode", "leaveNode"]) {
      this.sigma.on(type, (payload) => {
        if (type === "clickNode" && this.justDragged) return;
        this.emit(type, payload.node, payload.event);
      });
    }
    for (const type of ["clickEdge", "enterEdge", "leaveEdge"]) {
      this.sigma.on(type, (payload) => this.emit(type, payload.edge, payload.event));
    }
    this.sigma.on("clickStage", (payload) => this.emit("clickStage", null, payload.event));
    if (this.options.drag) this.enableDragToPin();
  }

  // ---- events -------------------------------------------------------------------------------------------

  on(type, handler) {
    if (!this.handlers.has(type)) this.handlers.set(type, []);
    this.handlers.get(type).push(handler);
    return this;
  }

  emit(type, ...args) {
    for (const handler of this.handlers.get(type) || []) handler(...args);
  }

  // Dragging a node moves it and pins it where it is dropped (the layout then leaves it there). While it moves
  // the frame is frozen, or the whole graph would rescale under the pointer; it is released on drop.
  enableDragToPin() {
    let dragged = null;
    let moved = false;
    this.sigma.on("downNode", ({ node, event }) => {
      if (event && event.original && event.original.button !== 0) return; // a right click opens a menu, not a drag
      dragged = node;
      moved = false;
    });
    const captor = this.sigma.getMouseCaptor();
    captor.on("mousemovebody", (event) => {
      if (!dragged) return;
      if (!moved) this.sigma.setCustomBBox(this.sigma.getBBox());
      const position = this.sigma.viewportToGraph(event);
      this.graph.mergeNodeAttributes(dragged, { x: position.x, y: position.y });
      moved = true;
      event.preventSigmaDefault();
      event.original.preventDefault();
      event.original.stopPropagation();
    });
    captor.on("mouseup", () => {
      if (dragged && moved) {
        this.sigma.setCustomBBox(null);
        this.pinNode(dragged, true);
        this.emit("dragPin", dragged);
        this.justDragged = true;
        setTimeout(() => { this.justDragged = false; }, 0);
      }
      dragged = null;
    });
  }

  // ---- data ---------------------------------------------------------------------------------------------

  // Cards: {id, name, kind, labels, community, community_name, degree}. New nodes start near `near` (a node
  // id) when given, so an expansion grows out of the node that was expanded; else at random.
  addNodes(cards, { near = null } = {}) {
    const origin = near && this.graph.hasNode(near) ? this.graph.getNodeAttributes(near) : null;
    const spread = origin ? 0.05 + 0.02 * Math.sqrt(cards.length) : 1;
    const added = [];
    cards.forEach((card, index) => {
      if (this.graph.hasNode(card.id)) {
        this.graph.mergeNodeAttributes(card.id, { card: { ...this.graph.getNodeAttribute(card.id, "card"), ...card } });
        return;
      }
      const angle = (2 * Math.PI * index) / Math.max(cards.length, 1) + Math.random() * 0.3;
      const radius = spread * (0.6 + 0.4 * Math.random());
      const x = origin ? origin.x + radius * Math.cos(angle) : Math.random();
      const y = origin ? origin.y + radius * Math.sin(angle) : Math.random();
      this.graph.addNode(card.id, {
        x, y, card, label: card.name, size: nodeSize(card.degree), color: OTHER_COLOUR, fixed: false,
      });
      added.push(card.id);
    });
    if (added.length) this.changed();
    return added;
  }

  // Edge cards: {id, kind, source, target, weight?, category?, valid_at?, invalid_at?, ...}. Edges whose ends
  // are not in the view are skipped; returns the ids added.
  addEdges(edges) {
    const added = [];
    for (const edge of edges) {
      if (this.graph.hasEdge(edge.id)) continue;
      if (!this.graph.hasNode(edge.source) || !this.graph.hasNode(edge.target)) continue;
      const fact = (edge.kind || "RELATES") === "RELATES";
      this.graph.addDirectedEdgeWithKey(edge.id, edge.source, edge.target, {
        edge,
        weight: fact ? (edge.weight ?? 0.5) : 0.3,
        size: fact ? 0.6 + 2.6 * (edge.weight ?? 0.5) : 0.6,
        color: LINK_COLOUR,
        type: fact ? "arrow" : "line",
      });
      added.push(edge.id);
    }
    if (added.length) this.changed();
    return added;
  }

  removeNode(id) {
    if (!this.graph.hasNode(id)) return;
    this.graph.dropNode(id);
    this.selected.delete(id);
    this.marked.delete(id);
    this.hiddenNodes.delete(id);
    this.changed();
  }

  clear() {
    this.graph.clear();
    this.selected.clear();
    this.marked.clear();
    this.hiddenNodes.clear();
    this.highlighted = null;
    this.changed();
  }

  hasNode(id) { return this.graph.hasNode(id); }
  hasEdge(id) { return this.graph.hasEdge(id); }
  node(id) { return this.graph.hasNode(id) ? this.graph.getNodeAttribute(id, "card") : null; }
  edge(id) { return this.graph.hasEdge(id) ? this.graph.getEdgeAttribute(id, "edge") : null; }
  nodeIds() { return this.graph.nodes(); }
  edgesOf(id) {
    return this.graph.hasNode(id) ? this.graph.edges(id).map((key) => this.graph.getEdgeAttribute(key, "edge")) : [];
  }

  counts() {
    let nodes = 0;
    let edges = 0;
    this.graph.forEachNode((id) => { if (!this.isNodeHidden(id)) nodes += 1; });
    this.graph.forEachEdge((id, attributes, source, target) => {
      if (!this.isEdgeHidden(id, source, target)) edges += 1;
    });
    return { nodes, edges, totalNodes: this.graph.order, totalEdges: this.graph.size };
  }

  // ---- look ---------------------------------------------------------------------------------------------

  setColourMode(mode) {
    this.colourMode = mode === "community" ? "community" : "kind";
    this.changed();
  }

  // Node size: "score" (an overlay's size where one is set, such as a PPR score or an energy, else degree),
  // "degree" or "uniform". Edge width: "weight" or "uniform".
  setSizeMode(mode) {
    this.sizeMode = SIZE_MODES.includes(mode) ? mode : "score";
    this.changed();
  }

  setEdgeWidth(mode) {
    this.edgeWidth = mode === "uniform" ? "uniform" : "weight";
    this.changed();
  }

  // Whether any drawn node is sized by an overlay (a score) now.
  hasScoreSizes() {
    for (const [id, style] of this.nodeStyles) if (style.size !== undefined && this.graph.hasNode(id)) return true;
    return false;
  }

  // The least and greatest degree among the shown nodes (what "size by degree" spans), or null.
  degreeRange() {
    let low = Infinity;
    let high = -Infinity;
    this.graph.forEachNode((id, attributes) => {
      if (this.isNodeHidden(id)) return;
      low = Math.min(low, attributes.card.degree || 0);
      high = Math.max(high, attributes.card.degree || 0);
    });
    return low === Infinity ? null : { low, high };
  }

  legendKey(card) {
    return this.colourMode === "community" ? card.community || NO_COMMUNITY : kindKey(card);
  }

  colourOf(card) {
    if (this.colourMode === "community") return communityColour(card.community);
    return KIND_COLOURS[kindKey(card)] || OTHER_COLOUR;
  }

  // Entries of the current colour mode, most frequent first: {key, label, colour, count, hidden}.
  legend() {
    const entries = new Map();
    this.graph.forEachNode((id, attributes) => {
      const card = attributes.card;
      const key = this.legendKey(card);
      if (!entries.has(key)) {
        const label = this.colourMode === "community" ? card.community_name || key : key;
        entries.set(key, { key, label, colour: this.colourOf(card), count: 0, hidden: this.hiddenKeys[this.colourMode].has(key) });
      }
      entries.get(key).count += 1;
    });
    return [...entries.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  }

  toggleLegendKey(key) {
    const hidden = this.hiddenKeys[this.colourMode];
    if (hidden.has(key)) hidden.delete(key); else hidden.add(key);
    this.changed();
  }

  // {minWeight: 0–1, categories: Set of category names ("NONE" for none) or null for all, at: ISO string or null}
  setFilter(filter) {
    this.filter = { ...this.filter, ...filter };
    this.changed();
  }

  hideNode(id) { this.hideNodes([id]); }

  hideNodes(ids) {
    for (const id of ids) {
      this.hiddenNodes.add(id);
      this.selected.delete(id);
      this.marked.delete(id);
    }
    this.changed();
  }
  unhideAll() { this.hiddenNodes.clear(); this.changed(); }

  // A running force layout works on the copy of the graph its worker was given, pins included, and writes every
  // node's position back: a node pinned (or put back where a view had it pinned) while it ran kept moving. The
  // layout is started again from the graph as it is now; a fresh worker, so no answer of the old one lands after.
  pinNode(id, pinned = true) {
    if (!this.graph.hasNode(id)) return;
    this.graph.setNodeAttribute(id, "fixed", pinned);
    if (this.layoutRunning()) {
      this.layout.kill();
      this.layout = null;
      this.startLayout({ ms: 2500 });
    }
    this.changed();
  }

  isPinned(id) { return this.graph.hasNode(id) && Boolean(this.graph.getNodeAttribute(id, "fixed")); }

  select(ids) {
    this.selected = new Set(ids.filter((id) => this.graph.hasNode(id)));
    this.refresh();
  }

  // The multi-selection: ticked, larger and always labelled, above the rest.
  setMarked(ids) {
    this.marked = new Set(ids.filter((id) => this.graph.hasNode(id)));
    this.refresh();
  }

  // Show only these nodes and edges strongly; everything else fades. Used for paths.
  highlight({ nodes = [], edges = [] }) {
    this.highlighted = { nodes: new Set(nodes), edges: new Set(edges) };
    this.refresh();
  }

  clearHighlight() { this.highlighted = null; this.refresh(); }
  isHighlighted(id) { return Boolean(this.highlighted && (this.highlighted.nodes.has(id) || this.highlighted.edges.has(id))); }

  // Overlays of other tools: style {color, size, label, zIndex, faded, hidden} wins over the view's own look.
  setNodeStyle(id, style) { if (style) this.nodeStyles.set(id, style); else this.nodeStyles.delete(id); this.refresh(); }
  setEdgeStyle(id, style) { if (style) this.edgeStyles.set(id, style); else this.edgeStyles.delete(id); this.refresh(); }
  clearStyles() { this.nodeStyles.clear(); this.edgeStyles.clear(); this.refresh(); }

  isNodeHidden(id) {
    if (this.hiddenNodes.has(id) || this.filteredNodes.has(id)) return true;
    const card = this.graph.getNodeAttribute(id, "card");
    return this.hiddenKeys[this.colourMode].has(this.legendKey(card));
  }

  isEdgeHidden(id, source, target) {
    return this.filteredEdges.has(id) || this.isNodeHidden(source) || this.isNodeHidden(target);
  }

  edgePasses(edge) {
    if ((edge.kind || "RELATES") !== "RELATES") return true;
    const { minWeight, categories, at } = this.filter;
    if ((edge.weight ?? 1) < minWeight) return false;
    if (categories && !categories.has(edge.category || "NONE")) return false;
    return holdsAt(edge, at);
  }

  // Filters are computed once per change, not per frame: a node is filtered out when it had facts and the
  // filter hid every one of them (a lone node, or one whose facts are not loaded, stays).
  recomputeFilter() {
    this.filteredEdges = new Set();
    const facts = new Map();
    const shown = new Map();
    this.graph.forEachEdge((id, attributes, source, target) => {
      const edge = attributes.edge;
      const fact = (edge.kind || "RELATES") === "RELATES";
      const passes = this.edgePasses(edge);
      if (!passes) this.filteredEdges.add(id);
      if (fact) {
        for (const end of [source, target]) {
          facts.set(end, (facts.get(end) || 0) + 1);
          if (passes) shown.set(end, (shown.get(end) || 0) + 1);
        }
      }
    });
    this.filteredNodes = new Set();
    const filtering = this.filter.minWeight > 0 || this.filter.categories || this.filter.at;
    if (filtering) {
      for (const [id, count] of facts) if (count && !shown.get(id) && !this.selected.has(id)) this.filteredNodes.add(id);
    }
  }

  reduceNode(id, data) {
    const card = data.card;
    const out = { ...data, color: this.colourOf(card), label: data.label };
    if (this.sizeMode === "uniform") out.size = UNIFORM_NODE;
    const base = out.size;
    if (this.isNodeHidden(id)) return { ...out, hidden: true };
    if (data.fixed) out.label = `◆ ${data.label}`;
    if (this.selected.has(id)) { out.highlighted = true; out.forceLabel = true; out.zIndex = 2; }
    if (this.marked.has(id)) {
      out.highlighted = true; out.forceLabel = true; out.zIndex = 3;
      out.size = base * 1.4; out.label = `✓ ${out.label}`;
    }
    if (this.highlighted) {
      if (this.highlighted.nodes.has(id)) {
        // A few highlighted nodes (a path) all say their names; a big subgraph leaves labels to the renderer's grid,
        // which keeps them from colliding.
        out.forceLabel = this.highlighted.nodes.size <= FORCED_LABELS_MAX;
        out.zIndex = 3; out.size = base * 1.3; out.highlighted = true;
      }
      else { out.color = FADED; out.label = null; out.zIndex = 0; }
    }
    let style = this.nodeStyles.get(id);
    if (style && style.size !== undefined && this.sizeMode !== "score") style = { ...style, size: undefined };
    if (style) Object.assign(out, style.faded ? { color: FADED, label: null } : {}, style, { size: style.size ?? out.size });
    return out;
  }

  reduceEdge(id, data) {
    const edge = data.edge;
    const fact = (edge.kind || "RELATES") === "RELATES";
    let color = fact ? CATEGORY_COLOURS[edge.category] || "#a4adb8" : LINK_COLOUR;
    if (fact && edge.invalidated) color = INVALIDATED_COLOUR;
    const out = { ...data, color };
    if (fact && this.edgeWidth === "uniform") out.size = UNIFORM_EDGE;
    if (this.layoutHidesEdges || this.isEdgeHidden(id, this.graph.source(id), this.graph.target(id))) {
      return { ...out, hidden: true };
    }
    if (this.highlighted) {
      if (this.highlighted.edges.has(id)) { out.color = HIGHLIGHT; out.size = Math.max(out.size * 2, 4); out.zIndex = 3; }
      else { out.color = FADED; out.zIndex = 0; }
    }
    const style = this.edgeStyles.get(id);
    if (style) Object.assign(out, style.faded ? { color: FADED } : {}, style);
    return out;
  }

  changed() {
    this.recomputeFilter();
    const big = this.graph.size > BIG_GRAPH_EDGES;
    if (this.sigma.getSetting("hideEdgesOnMove") !== big) {
      this.sigma.setSettings({ hideEdgesOnMove: big, hideLabelsOnMove: big });
    }
    this.refresh();
    this.emit("change");
  }

  refresh() { this.sigma.refresh(); }

  // ---- layout -------------------------------------------------------------------------------------------

  // "force" (ForceAtlas2, moving), or a placement computed at once: "hierarchical", "radial" or "grid".
  setLayoutMode(mode) {
    this.layoutMode = LAYOUT_MODES.includes(mode) ? mode : "force";
  }

  // The layout of the current mode. Force: ForceAtlas2 in a web worker for `ms` milliseconds (pinned nodes stay
  // put); the page stays responsive. The others place the shown, unpinned nodes at once (a few arithmetic steps a
  // node: no worker needed at the sizes drawn) and report a layout that started and stopped, so what waits for a
  // layout's end (the camera's fit) runs as it does after a force layout.
  startLayout({ ms = 3000 } = {}) {
    if (this.layoutMode !== "force") {
      this.stopLayout();
      this.placeNodes(this.layoutMode);
      this.emit("layout", true);
      this.emit("layout", false);
      return;
    }
    const library = window.graphologyLibrary;
    if (!library || this.graph.order < 2) return;
    if (!this.layout) {
      const settings = library.layoutForceAtlas2.inferSettings(this.graph);
      this.layout = new library.FA2Layout(this.graph, {
        settings: { ...settings, barnesHutOptimize: this.graph.order > 500 },
        getEdgeWeight: (edge, attributes) => attributes.weight ?? 0.5,
      });
    }
    clearTimeout(this.layoutTimer);
    this.layout.start();
    this.layoutHidesEdges = this.graph.size > BIG_GRAPH_EDGES;
    if (this.layoutHidesEdges) this.refresh();
    this.emit("layout", true);
    if (ms) this.layoutTimer = setTimeout(() => this.stopLayout(), ms);
  }

  stopLayout() {
    clearTimeout(this.layoutTimer);
    if (this.layout && this.layout.isRunning()) this.layout.stop();
    if (this.layoutHidesEdges) {
      this.layoutHidesEdges = false;
      this.refresh();
    }
    this.emit("layout", false);
  }

  layoutRunning() { return Boolean(this.layout && this.layout.isRunning()); }

  // Positions for the shown, unpinned nodes (explorer/static/explorer/js/placements.js), in the frame the drawing
  // spans now, so pinned and hidden nodes stay where they are beside them.
  placeNodes(mode) {
    const movable = this.graph.nodes().filter((id) => !this.isNodeHidden(id) && !this.isPinned(id));
    if (!movable.length) return;
    const shown = new Set(movable);
    const links = [];
    this.graph.forEachEdge((id, attributes, source, target) => {
      if (shown.has(source) && shown.has(target) && !this.isEdgeHidden(id, source, target)) links.push([source, target]);
    });
    const order = (a, b) => this.graph.getNodeAttribute(b, "card").degree - this.graph.getNodeAttribute(a, "card").degree || (a < b ? -1 : 1);
    const unit = placements[mode](movable.sort(order), links);
    let minX = Infinity; let maxX = -Infinity; let minY = Infinity; let maxY = -Infinity;
    this.graph.forEachNode((id, { x, y }) => {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    });
    const scale = Math.max(maxX - minX, maxY - minY) || 1;
    const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
    for (const [id, [ux, uy]] of unit) this.graph.mergeNodeAttributes(id, { x: cx + scale * (ux - 0.5), y: cy + scale * (uy - 0.5) });
  }

  // ---- camera -------------------------------------------------------------------------------------------

  focus(id, ratio = 0.6) {
    this.processNow();
    const display = this.sigma.getNodeDisplayData(id);
    if (display) this.sigma.getCamera().animate({ x: display.x, y: display.y, ratio }, { duration: 400 });
  }

  fit() { this.sigma.getCamera().animatedReset({ duration: 300 }); }

  // Every node in view with a margin: labels are drawn to the right of their nodes, past the nodes' frame.
  fitAll({ duration = 300, margin = LABEL_MARGIN } = {}) {
    this.sigma.getCamera().animate({ x: 0.5, y: 0.5, ratio: margin, angle: 0 }, { duration });
  }

  // The whole drawing in the frame at once (no animation), for an export to draw; returns the camera state to
  // put back.
  frameAllNow({ margin = LABEL_MARGIN } = {}) {
    const camera = this.sigma.getCamera();
    const kept = camera.getState();
    camera.setState({ x: 0.5, y: 0.5, ratio: margin, angle: 0 });
    return kept;
  }

  // The camera on the shown nodes: all of them (the reset frame) when none is hidden, else their bounding box
  // in the renderer's framed coordinates (the space the camera moves in), with a margin.
  fitShown({ duration = 300 } = {}) {
    const camera = this.sigma.getCamera();
    const shown = this.graph.nodes().filter((id) => !this.isNodeHidden(id));
    if (!shown.length) return;
    if (shown.length === this.graph.order) {
      camera.animate({ x: 0.5, y: 0.5, ratio: 1, angle: 0 }, { duration });
      return;
    }
    this.processNow();
    let minX = Infinity; let maxX = -Infinity; let minY = Infinity; let maxY = -Infinity;
    for (const id of shown) {
      const display = this.sigma.getNodeDisplayData(id);
      if (!display) continue;
      minX = Math.min(minX, display.x); maxX = Math.max(maxX, display.x);
      minY = Math.min(minY, display.y); maxY = Math.max(maxY, display.y);
    }
    if (minX === Infinity) return;
    const ratio = Math.min(Math.max(Math.max(maxX - minX, maxY - minY) * 1.2, 0.2), 1);
    camera.animate({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio, angle: 0 }, { duration });
  }

  // The renderer's display data (framed coordinates, normalised by the whole drawing's extent) is computed when it
  // draws, on the animation frame after the layout moved the nodes; the layout's worker moves them many times a
  // frame, and more under CPU load. Read right after the layout stopped, it held positions a frame or more old:
  // 2.1 framed units off in 2 runs of 6 with the CPU throttled 4× and two cores busy, and the fit framed empty space
  // while the shown nodes were drawn ~300 px left of the canvas. Processing now reads the positions the graph holds
  // (no reindexing: no node or edge is re-added, the renderer only re-reads positions and draws once).
  processNow() { this.sigma.refresh({ partialGraph: { nodes: [], edges: [] } }); }

  // Where a node or an edge's middle is drawn, in pixels from the container's top left (tests click there).
  viewportPosition(id) {
    const attributes = this.graph.getNodeAttributes(id);
    return this.sigma.graphToViewport({ x: attributes.x, y: attributes.y });
  }

  edgeViewportPosition(id) {
    const a = this.viewportPosition(this.graph.source(id));
    const b = this.viewportPosition(this.graph.target(id));
    return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  destroy() {
    this.stopLayout();
    if (this.layout) this.layout.kill();
    this.sigma.kill();
    this.handlers.clear();
  }
}

export function createGraphView(container, options) {
  return new GraphView(container, options);
}

export const colours = { KIND_COLOURS, CATEGORY_COLOURS, HIGHLIGHT, OTHER_COLOUR, communityColour };
