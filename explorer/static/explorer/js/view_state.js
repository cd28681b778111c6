// The graph page's view as a URL query, and back (docs/explorer.md, "The view in the URL"). Pure: graph_page.js
// captures the view into a state and restores a state into the view; this module only writes and reads the text.
// The keys are the server's STATE_KEYS (explorer/perspective_request.py), which saved views are checked against.
//
// Bounds: at most NODE_CAP shown nodes (the first loaded, i.e. the starting nodes and the earliest expansions),
// EXPANDED_CAP expanded and HIDDEN_CAP hidden ones. Past a cap the URL keeps the first ones and says so
// (`cut=1` is not written; `truncated` is returned to the page, which tells the user); re-expanding the kept
// expanded nodes brings back the first page of each, so the view comes back with at most its later "More" pages
// and far expansions missing.

import { placements } from "./placements.js";

export const NODE_CAP = 150;
export const EXPANDED_CAP = 40;
export const HIDDEN_CAP = 100;
export const PIN_CAP = 40;
export const MAX_QUERY = 7000;
const ACTIONS = ["path", "subgraph", "ppr"];
const PLACED_LAYOUTS = Object.keys(placements); // beside "force", the default

const list = (text) => (text ? text.split(",").filter(Boolean) : []);
const number = (text, fallback) => (text === null || text === "" || Number.isNaN(Number(text)) ? fallback : Number(text));

// Pinned nodes where they stand: `pins=id,x,y,id,x,y` (ids hold no comma), each number as JavaScript writes it,
// the shortest text that reads back to the same number, so a pin comes back exactly. A triple without two finite
// numbers is left out (and an id not drawn is skipped when the view is restored).
function pins(text) {
  const parts = list(text);
  const found = [];
  for (let index = 0; index + 2 < parts.length; index += 3) {
    const [id, x, y] = [parts[index], Number(parts[index + 1]), Number(parts[index + 2])];
    if (id && Number.isFinite(x) && Number.isFinite(y)) found.push([id, x, y]);
  }
  return found;
}

// An empty state: what the page shows with nothing in the URL.
export function emptyState() {
  return {
    nodes: [], expanded: [], hidden: [], sel: null, edge: null, query: "",
    categories: null, minWeight: null, asOf: null, colour: "kind", size: "score", edgeWidth: "weight", layout: "force", links: [],
    action: null, pinned: [],
  };
}

// Whether a URL query holds any of the view's keys (else the page opens the group's default view, if any).
export function hasState(search) {
  const params = new URLSearchParams(search);
  return ["node", "nodes", "q", "expanded", "sel", "edge", "cat", "w", "as_of", "colour", "size", "ew", "layout", "links",
    "pins", "action"]
    .some((key) => params.has(key));
}

export function decodeState(search) {
  const params = new URLSearchParams(search);
  const state = emptyState();
  state.nodes = list(params.get("nodes"));
  state.expanded = list(params.get("expanded"));
  // The older single-node links (?node=x, or ?nodes=x alone): that node, opened and expanded.
  const node = params.get("node") || (state.nodes.length === 1 && !params.has("expanded") && !params.has("sel")
    ? state.nodes[0] : null);
  if (node) {
    if (!state.nodes.includes(node)) state.nodes.unshift(node);
    if (!state.expanded.includes(node)) state.expanded.unshift(node);
    state.sel = node;
  }
  state.hidden = list(params.get("hidden"));
  state.sel = params.get("sel") || state.sel;
  state.edge = params.get("edge") || null;
  state.query = params.get("q") || "";
  state.categories = params.has("cat") ? list(params.get("cat")) : null;
  state.minWeight = number(params.get("w"), null);
  state.asOf = params.get("as_of") || null;
  state.colour = params.get("colour") === "community" ? "community" : "kind";
  state.size = ["degree", "uniform"].includes(params.get("size")) ? params.get("size") : "score";
  state.edgeWidth = params.get("ew") === "uniform" ? "uniform" : "weight";
  state.layout = PLACED_LAYOUTS.includes(params.get("layout")) ? params.get("layout") : "force";
  state.links = list(params.get("links"));
  state.pinned = pins(params.get("pins"));
  const action = params.get("action");
  if (action === "path") {
    state.action = { kind: "path", from: params.get("from"), to: params.get("to"),
      mode: params.get("mode") === "strongest" ? "strongest" : "shortest", maxHops: number(params.get("max_hops"), null) };
  } else if (action === "subgraph") {
    state.action = { kind: "subgraph", seeds: list(params.get("seeds")), hops: number(params.get("hops"), 1) };
  } else if (action === "ppr") {
    state.action = { kind: "ppr", seeds: list(params.get("seeds")), top: number(params.get("top"), null),
      aware: params.get("aware") === "1", query: params.get("pq") || "" };
  }
  return state;
}

// The state as a query string (no "?"); `truncated` says whether a cap cut a list.
export function encodeState(state) {
  let cap = NODE_CAP;
  let encoded = encodeWithin(state, cap);
  while (encoded.query.length > MAX_QUERY && cap > 1) {
    cap = Math.floor(cap * 0.8);
    encoded = { ...encodeWithin(state, cap), truncated: true };
  }
  return encoded;
}

function encodeWithin(state, nodeCap) {
  const params = new URLSearchParams();
  let truncated = false;
  const put = (key, values, cap) => {
    if (!values || !values.length) return;
    truncated = truncated || values.length > cap;
    params.set(key, values.slice(0, cap).join(","));
  };
  put("nodes", state.nodes, nodeCap);
  put("expanded", state.expanded, EXPANDED_CAP);
  put("hidden", state.hidden, HIDDEN_CAP);
  if (state.sel) params.set("sel", state.sel);
  if (state.edge) params.set("edge", state.edge);
  if (state.query && !state.nodes.length) params.set("q", state.query);
  if (state.categories) params.set("cat", state.categories.join(","));
  if (state.minWeight !== null && state.minWeight > 0.25) params.set("w", String(state.minWeight));
  if (state.asOf) params.set("as_of", state.asOf);
  if (state.colour === "community") params.set("colour", "community");
  if (state.size && state.size !== "score") params.set("size", state.size);
  if (state.edgeWidth === "uniform") params.set("ew", "uniform");
  if (PLACED_LAYOUTS.includes(state.layout)) params.set("layout", state.layout);
  if (state.links.length) params.set("links", state.links.join(","));
  put("pins", (state.pinned || []).map((pin) => pin.join(",")), PIN_CAP);
  const action = state.action;
  if (action && ACTIONS.includes(action.kind)) {
    params.set("action", action.kind);
    if (action.kind === "path") {
      params.set("from", action.from);
      params.set("to", action.to);
      params.set("mode", action.mode);
      if (action.maxHops) params.set("max_hops", String(action.maxHops));
    } else {
      put("seeds", action.seeds, EXPANDED_CAP);
      if (action.kind === "subgraph") params.set("hops", String(action.hops));
      if (action.kind === "ppr") {
        if (action.top) params.set("top", String(action.top));
        if (action.aware) params.set("aware", "1");
        if (action.query) params.set("pq", action.query);
      }
    }
  }
  return { query: params.toString(), truncated };
}
