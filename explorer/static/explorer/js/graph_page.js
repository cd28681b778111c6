// The graph view page: starts from a node, several nodes (a search result) or a query, expands on click a page
// of links at a time, filters, colours, finds paths and inspects edges. Everything it draws comes from the JSON
// API (docs/explorer.md) through a GraphView (graph_view.js).

import { getJson, groupApi, neighboursApi, pageUrl } from "./api.js";
import { AsOfControl } from "./as_of.js";
import { day, h, number } from "./dom.js";
import { curationConfig } from "./curation_api.js";
import { attachCuration } from "./curation_graph.js";
import { showEdge } from "./edge_inspector.js";
import { GraphPpr } from "./graph_ppr.js";
import { GraphKeyboard } from "./graph_keyboard.js";
import { colours, createGraphView } from "./graph_view.js";
import { NodeMenu } from "./node_menu.js";
import { SuggestBox } from "./suggest.js";
import { decodeState, emptyState, encodeState, hasState } from "./view_state.js";
import { ViewsMenu } from "./views_menu.js";

const config = JSON.parse(document.getElementById("graph-config").textContent);
const group = config.group;
const $ = (selector) => document.querySelector(selector);

const view = createGraphView($(".canvas"));
const expansions = new Map(); // node id → {offset, total, signature}
const pathEnds = { from: null, to: null };
let currentNode = null;
let timeRange = null;
let lastAction = null; // the last path, subgraph or PPR run, kept in the URL (view_state.js)

// ---- filters ----------------------------------------------------------------------------------------------

const categoryBoxes = config.categories.map((category) =>
  h("input", { type: "checkbox", checked: true, value: category, "data-testid": `category-${category}` }),
);
$("[data-categories]").append(
  ...config.categories.map((category, index) =>
    h("label", { class: "inline small" }, categoryBoxes[index], " ",
      h("span", { class: "swatch", style: { background: colours.CATEGORY_COLOURS[category] || "#a4adb8" } }),
      category.toLowerCase()),
  ),
);

function chosenCategories() {
  const chosen = categoryBoxes.filter((box) => box.checked).map((box) => box.value);
  return chosen.length === categoryBoxes.length ? null : new Set(chosen);
}

// The moment (as_of.js, kept in the URL): what expansions, paths and subgraphs ask for and the drawing shows. The
// slider moves it through the loaded facts' times; typing a moment places the slider there.
const asOf = new AsOfControl({
  input: $("[data-as-of]"), clear: $("[data-as-of-clear]"), onChange: momentChanged, keepInUrl: false,
});

function timeAt() {
  return asOf.value();
}

// What the graph view reads at its moment: with none chosen ("all times"), the whole history, ended facts drawn
// as such, so the slider can move through them; the API's own default is now (docs/retrieval.md, "Time").
function momentParameters() {
  return asOf.value() ? asOf.parameters() : { include_invalidated: "true" };
}

function sliderMoment() {
  if (!timeRange) return null;
  const fraction = Number($("[data-time-slider]").value) / 1000;
  const moment = new Date(timeRange.start + fraction * (timeRange.end - timeRange.start));
  return `${moment.toISOString().slice(0, 19)}Z`;
}

function momentChanged(stamp) {
  if (!stamp) {
    $("[data-time-enabled]").checked = false;
    $("[data-time-slider]").disabled = true;
  } else if (timeRange) {
    const fraction = (Date.parse(stamp) - timeRange.start) / (timeRange.end - timeRange.start);
    $("[data-time-slider]").value = String(Math.round(Math.min(Math.max(fraction, 0), 1) * 1000));
  }
  applyFilter();
  record(timeSliding ? "slide" : "push");
}

// What the server should filter by when a node is expanded or a path is found: the same as the view shows.
function filterParameters() {
  const categories = chosenCategories();
  const minWeight = Number($("[data-min-weight]").value);
  return {
    min_weight: minWeight > 0.25 ? minWeight : null,
    categories: categories ? [...categories].join(",") || "NONE" : null,
    ...momentParameters(),
  };
}

function applyFilter() {
  const minWeight = Number($("[data-min-weight]").value);
  $("[data-weight-label]").textContent = minWeight.toFixed(2);
  const at = timeAt();
  $("[data-time-label]").textContent = at ? `as of ${day(at)}` : "all times";
  view.setFilter({ minWeight, categories: chosenCategories(), at });
}

// The slider spans the loaded facts' times, from the earliest start to the latest start or end.
function updateTimeRange() {
  let start = null;
  let end = null;
  view.graph.forEachEdge((key, attributes) => {
    for (const stamp of [attributes.edge.valid_at, attributes.edge.invalid_at]) {
      if (!stamp) continue;
      const time = Date.parse(stamp);
      start = start === null ? time : Math.min(start, time);
      end = end === null ? time : Math.max(end, time);
    }
  });
  timeRange = start === null ? null : { start, end: Math.max(end, start + 86400000) };
}

for (const box of categoryBoxes) box.addEventListener("change", () => { applyFilter(); record(); });
$("[data-min-weight]").addEventListener("input", () => { applyFilter(); record("slide"); });
$("[data-min-weight]").addEventListener("change", endSlide);
let timeSliding = false;
$("[data-time-slider]").addEventListener("input", () => {
  timeSliding = true;
  asOf.set(sliderMoment());
  timeSliding = false;
});
$("[data-time-slider]").addEventListener("change", endSlide);
$("[data-time-enabled]").addEventListener("change", (event) => {
  $("[data-time-slider]").disabled = !event.target.checked;
  asOf.set(event.target.checked ? sliderMoment() : null);
});

// ---- colours and legend -----------------------------------------------------------------------------------

for (const radio of document.querySelectorAll('input[name="colour"]')) {
  radio.addEventListener("change", () => { view.setColourMode(radio.value); record(); });
}
$("[data-size-mode]").addEventListener("change", (event) => { view.setSizeMode(event.target.value); record(); });
$("[data-edge-weight]").addEventListener("change", (event) => {
  view.setEdgeWidth(event.target.checked ? "weight" : "uniform");
  record();
});

let pprScores = null; // the ranked nodes of the PPR run shown, best first

// What size, colour and width mean now, in words (the entries below list the colours present).
function drawStyleLegend() {
  const degrees = view.degreeRange();
  const byDegree = degrees
    ? `how many facts a node has, ${degrees.low} (smallest) to ${degrees.high} (largest) here`
    : "how many facts a node has";
  const scores = pprScores && pprScores.length ? pprScores : null;
  let size = `Size: ${byDegree}.`;
  if (view.sizeMode === "uniform") size = "Size: the same for every node.";
  else if (view.sizeMode === "score" && view.hasScoreSizes()) {
    const range = scores ? `, ${number(scores[scores.length - 1].score, 2)} to ${number(scores[0].score, 2)}` : "";
    size = `Size: PPR score (log scale${range}); other nodes by ${byDegree}.`;
  } else if (view.sizeMode === "score") {
    size = `Size: PPR score once a run is shown; now ${byDegree}.`;
  }
  const colour = view.colourMode === "community"
    ? "Colour: the node's community (grey: none)."
    : "Colour: the node's kind (an entity's label).";
  const width = view.edgeWidth === "uniform"
    ? "Links: all one width; colour by relation category, grey when ended."
    : "Links: wider for a greater fact weight; colour by relation category, grey when ended.";
  $("[data-style-legend]").replaceChildren(
    h("li", { "data-testid": "style-size", text: size }),
    h("li", { "data-testid": "style-colour", text: colour }),
    h("li", { "data-testid": "style-width", text: width }),
  );
}

function drawLegend() {
  $("[data-legend]").replaceChildren(
    ...view.legend().map((entry) =>
      h("li", {},
        h("button", {
          type: "button",
          class: entry.hidden ? "legend-entry off" : "legend-entry",
          title: entry.hidden ? "show these" : "hide these",
          "data-key": entry.key,
          onclick: () => view.toggleLegendKey(entry.key),
        },
        h("span", { class: "swatch", style: { background: entry.colour } }),
        ` ${entry.label.length > 40 ? `${entry.label.slice(0, 40)}…` : entry.label} `,
        h("span", { class: "muted", text: String(entry.count) })),
      ),
    ),
  );
}

function drawStatus() {
  const counts = view.counts();
  $('[data-testid="node-count"]').textContent = String(counts.nodes);
  $('[data-testid="edge-count"]').textContent = String(counts.edges);
  const hidden = counts.totalNodes - counts.nodes;
  $("[data-hidden-count]").textContent = hidden ? `(${hidden} hidden)` : "";
  $("[data-hint]").hidden = counts.totalNodes > 3;
  $("[data-hint]").textContent = counts.totalNodes
    ? "Click a node to read it, double-click to expand it; click an edge to inspect it; drag a node to pin it."
    : "Nothing drawn yet: search for entities to draw, or open a saved view.";
}

view.on("change", () => {
  updateTimeRange();
  drawLegend();
  drawStyleLegend();
  drawStatus();
  drawSelection();
  if (currentNode && view.hasNode(currentNode)) drawNodePanel(currentNode);
});

// ---- auto-fit ---------------------------------------------------------------------------------------------

// After an action that adds nodes (expand, path, PPR, subgraph, the add box, a restored view) the camera fits the
// shown nodes, at once and again when the layout the action started stops (the last fit: a pending early one is
// dropped); a mere selection leaves it alone. Each fit reads the positions the graph holds then (fitShown).
let fitPending = false;
let fitTimer = null;

function fitIfGrown(before) {
  if (view.graph.order <= before) return;
  fitPending = true;
  clearTimeout(fitTimer);
  fitTimer = setTimeout(() => view.fitShown(), 30);
}

view.on("layout", (running) => {
  if (running || !fitPending) return;
  fitPending = false;
  clearTimeout(fitTimer);
  view.fitShown();
});

// ---- expanding --------------------------------------------------------------------------------------------

// Facts always; episode mentions and community membership when ticked, and always for the node whose own links
// they are (an episode's mentions, a community's members), which have no facts of their own to show.
const OWN_LINKS = { Episode: "MENTIONS", Community: "HAS_MEMBER" };

function linkKinds(card) {
  const extra = [...document.querySelectorAll("[data-link]")].filter((box) => box.checked).map((box) => box.dataset.link);
  if (card && OWN_LINKS[card.kind]) extra.push(OWN_LINKS[card.kind]);
  return [...new Set(["RELATES", ...extra])].join(",");
}

// The facts between the nodes an action drew and the nodes shown before it. An expansion's page, a path, a
// subgraph or the add box brings the facts among its own nodes only, while a restored view (undo, redo, back, a
// reload) draws every fact among its nodes: the fact ERP orders → Aldana, between two expansions' nodes, came in
// only on redo, and the demo's 41 nodes / 49 links became 41 / 54 on a reload (issue 32). Past what one request
// carries (the subgraph's id cap, a request line well under the server's limit) the view stays as drawn.
const LINK_IDS_CHARACTERS = 8000;

// Asked before the action draws anything, so that its nodes and all their links come in one step (and one layout).
async function linksToShown(cards) {
  const shown = view.nodeIds();
  const fresh = cards.map((card) => card.id).filter((id) => !view.hasNode(id));
  if (!shown.length || !fresh.length) return [];
  const ids = [...shown, ...new Set(fresh)].join(",");
  if (shown.length + fresh.length > config.subgraph_cap || encodeURIComponent(ids).length > LINK_IDS_CHARACTERS) return [];
  const found = await getJson(`${groupApi(group)}/subgraph`, { ids, include_invalidated: "true" });
  return found.edges;
}

async function expand(id) {
  const parameters = { links: linkKinds(view.node(id)), ...filterParameters() };
  const signature = JSON.stringify(parameters);
  const known = expansions.get(id);
  const offset = known && known.signature === signature ? known.offset : 0;
  const page = await getJson(neighboursApi(group, id), { ...parameters, offset, limit: config.expand_limit });
  const links = await linksToShown([page.center, ...page.nodes]);
  const before = view.graph.order;
  view.addNodes([page.center]);
  view.addNodes(page.nodes, { near: id });
  view.addEdges([...page.edges, ...links]);
  expansions.set(id, { offset: offset + page.links, total: page.total, signature });
  fitIfGrown(before); // before the layout: one computed at once reports its end at once
  view.startLayout({ ms: 2500 });
  if (currentNode === id) drawNodePanel(id);
  return page;
}

// Nodes and every fact among them, of all times: the drawing shows the moment (the filter hides the facts that do
// not hold then, and the nodes all of whose facts are hidden). Read at the moment instead, a restored view lost
// the facts that hid its nodes: 41 nodes and 10 links after a reload instead of 8 and 7 (issue 32).
async function addByIds(ids) {
  if (!ids.length) return;
  const found = await getJson(`${groupApi(group)}/subgraph`, { ids: ids.join(","), include_invalidated: "true" });
  const links = await linksToShown(found.nodes);
  const before = view.graph.order;
  view.addNodes(found.nodes);
  view.addEdges([...found.edges, ...links]);
  fitIfGrown(before); // before the layout: one computed at once reports its end at once
  view.startLayout({ ms: 2500 });
}

// ---- PageRank (graph_ppr.js) ------------------------------------------------------------------------------

const ppr = new GraphPpr({
  view, group, root: $("[data-ppr]"), addByIds, openNode: (id) => { openNode(id); record(); },
  moment: () => asOf.parameters(), onChange: pprChanged,
  selection: () => [...new Set([...view.marked, ...view.selected, currentNode].filter((id) => id && view.hasNode(id)))],
});

// A PPR run shown (the seeds it was sent, so the URL reruns it without the selection) or the box cleared.
function pprChanged() {
  pprScores = ppr.lastAnswer ? ppr.lastAnswer.scores : null;
  drawStyleLegend();
  if (ppr.lastAnswer && ppr.lastBody) {
    const body = ppr.lastBody;
    lastAction = { kind: "ppr", seeds: (body.seeds || []).map((seed) => seed.id), top: body.top_k,
      aware: Boolean(body.relation_aware), query: body.query || "" };
  } else if (lastAction && lastAction.kind === "ppr") {
    lastAction = null;
  }
  record();
}

// The seeds (or the selection) and every node within `hops` facts of them, through the facts the filter shows.
async function showAround(ids = ppr.seedIds()) {
  const result = $("[data-around-result]");
  if (!ids.length) {
    result.textContent = "Pick seeds first: “PPR seed” on a node, or select nodes.";
    return;
  }
  const hops = Number($("[data-around-hops]").value);
  lastAction = { kind: "subgraph", seeds: ids, hops };
  const found = await getJson(`${groupApi(group)}/subgraph`, { ids: ids.join(","), hops, ...filterParameters() });
  const links = await linksToShown(found.nodes);
  const before = view.graph.order;
  view.addNodes(found.nodes);
  view.addEdges([...found.edges, ...links]);
  view.highlight({ nodes: found.nodes.map((node) => node.id), edges: found.edges.map((edge) => edge.id) });
  fitIfGrown(before); // before the layout: one computed at once reports its end at once
  view.startLayout({ ms: 2500 });
  result.textContent = `${found.nodes.length} nodes, ${found.edges.length} facts within ${hops} hop${hops === 1 ? "" : "s"}` +
    (found.truncated ? " (cut at the strongest-linked)" : "");
  record();
}

$("[data-around-show]").addEventListener("click", () =>
  showAround().catch((error) => { $("[data-around-result]").textContent = error.message; }));

// A user's expansion ("Expand", "More", a click on a node): one step back and forth in the history.
function userExpand(id) {
  return expand(id).then(() => record(), showError);
}

// ---- multi-selection and bulk actions ---------------------------------------------------------------------

// Shift+click on a node (or "Add to selection" in its panel) adds it to the selection; the Selection box hides,
// pins or expands them all at once. Each bulk action is one step back (Ctrl+Z) and one history entry.
function setMarked(ids) {
  view.setMarked(ids);
  drawSelection();
  if (currentNode && view.hasNode(currentNode)) drawNodePanel(currentNode);
}

function toggleMark(id) {
  const marked = new Set(view.marked);
  if (marked.has(id)) marked.delete(id); else marked.add(id);
  setMarked([...marked]);
}

function drawSelection() {
  const ids = [...view.marked].filter((id) => view.hasNode(id));
  $("[data-selection-summary]").textContent = ids.length
    ? `${ids.length} node${ids.length === 1 ? "" : "s"} selected`
    : "None: shift+click nodes, or “Add to selection” in a node's panel.";
  $("[data-selection-list]").replaceChildren(...ids.map((id) =>
    h("li", { "data-node": id }, `${view.node(id).name} `,
      h("button", { type: "button", class: "link-like", "aria-label": `Remove ${view.node(id).name} from the selection`,
        onclick: () => toggleMark(id) }, "×"))));
  for (const button of document.querySelectorAll("[data-bulk]")) button.disabled = !ids.length;
}

async function bulk(action) {
  const ids = [...view.marked].filter((id) => view.hasNode(id));
  if (!ids.length) return;
  if (snapshot) snapshot.marked = ids; // undoing the action brings the selection back with it
  if (action === "hide") {
    view.hideNodes(ids);
    if (currentNode && ids.includes(currentNode)) {
      $("[data-node-panel]").hidden = true;
      currentNode = null;
    }
  } else if (action === "pin" || action === "unpin") {
    for (const id of ids) view.pinNode(id, action === "pin");
    if (currentNode) drawNodePanel(currentNode);
  } else if (action === "expand") {
    for (const id of ids) if (view.hasNode(id)) await expand(id);
  } else if (action === "clear") {
    setMarked([]);
    return;
  }
  drawSelection();
  record();
}

for (const button of document.querySelectorAll("[data-bulk]")) {
  button.addEventListener("click", () => bulk(button.dataset.bulk).catch(showError));
}

// ---- node panel -------------------------------------------------------------------------------------------

function setPathEnd(which, id) {
  pathEnds[which] = id;
  const card = id && view.node(id);
  $(which === "from" ? "[data-path-from]" : "[data-path-to]").textContent = card ? card.name : "—";
  view.select([pathEnds.from, pathEnds.to].filter(Boolean));
}

function drawNodePanel(id) {
  const card = view.node(id);
  const panel = $("[data-node-panel]");
  // The panel is redrawn whenever the view changes: a focused button keeps the focus in its redrawn self.
  const focused = panel.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  drawNodePanelContent(id, card, panel);
  const again = focused && panel.querySelector(`[data-testid="${focused}"]`);
  if (again) again.focus();
}

function drawNodePanelContent(id, card, panel) {
  const known = expansions.get(id);
  const remaining = known ? Math.max(known.total - known.offset, 0) : null;
  const loaded = view.edgesOf(id);
  panel.replaceChildren(
    h("h2", {}, h("a", { href: pageUrl(group, card), "data-testid": "node-page-link" }, card.name)),
    h("p", { class: "badges" },
      h("span", { class: `badge kind-${card.kind}`, text: card.kind }),
      ...(card.labels || []).map((label) => h("span", { class: "badge label", text: label })),
      card.community_name ? h("span", { class: "muted small", text: ` ${card.community_name.slice(0, 60)}` }) : null),
    h("p", { class: "small muted", "data-testid": "node-links" },
      `${loaded.length} of ${card.degree} facts loaded`, known ? ` · ${remaining} more links to expand` : ""),
    h("div", { class: "buttons" },
      known
        ? h("button", { type: "button", class: "small", disabled: remaining === 0, "data-testid": "expand-more",
            onclick: () => userExpand(id) }, remaining ? `More (${remaining})` : "All shown")
        : h("button", { type: "button", class: "small", "data-testid": "expand", onclick: () => userExpand(id) }, "Expand"),
      h("button", { type: "button", class: "small secondary", "data-testid": "select-toggle", "aria-pressed": String(view.marked.has(id)),
        onclick: () => toggleMark(id) }, view.marked.has(id) ? "Remove from selection" : "Add to selection"),
      h("button", { type: "button", class: "small secondary", "data-testid": "pin",
        onclick: () => { view.pinNode(id, !view.isPinned(id)); drawNodePanel(id); record(); } }, view.isPinned(id) ? "Unpin" : "Pin"),
      h("button", { type: "button", class: "small secondary", "data-testid": "hide",
        onclick: () => { view.hideNode(id); panel.hidden = true; currentNode = null; record(); } }, "Hide"),
      h("button", { type: "button", class: "small secondary", "data-testid": "path-from-here",
        onclick: () => setPathEnd("from", id) }, "Path from here"),
      h("button", { type: "button", class: "small secondary", "data-testid": "path-to-here",
        onclick: () => setPathEnd("to", id) }, "Path to here"),
      h("button", { type: "button", class: "small secondary", onclick: () => view.focus(id) }, "Focus"),
      h("button", { type: "button", class: "small secondary", "data-testid": "ppr-seed",
        onclick: () => { ppr.toggleSeed(id); drawNodePanel(id); } }, ppr.isSeed(id) ? "Not a PPR seed" : "PPR seed"),
      h("button", { type: "button", class: "small secondary", "data-testid": "node-menu-button", "aria-haspopup": "menu",
        title: "More actions (right click on the node, or Shift+F10)", onclick: () => openMenu(id) }, "Menu…"),
    ),
    h("h3", {}, "Loaded facts"),
    h("ul", { class: "edge-list", "data-testid": "node-edges" },
      loaded.filter((edge) => (edge.kind || "RELATES") === "RELATES").slice(0, 40).map((edge) =>
        h("li", {},
          h("button", { type: "button", class: edge.invalidated ? "link-like invalidated" : "link-like",
            "data-edge": edge.id, onclick: () => openEdge(edge.id) },
            `${edge.source === id ? "→" : "←"} ${edge.relation} ${edge.source === id ? edge.target_name : edge.source_name}`),
          h("span", { class: "muted small", text: ` ${number(edge.weight, 2)}` })))),
  );
  panel.hidden = false;
}

function openNode(id) {
  currentNode = id;
  drawNodePanel(id);
}

// ---- edges ------------------------------------------------------------------------------------------------

let inspected = null;

function openEdge(id) {
  const edge = view.edge(id);
  if (!edge || (edge.kind || "RELATES") !== "RELATES") return;
  if (inspected) view.setEdgeStyle(inspected, null);
  inspected = id;
  view.setEdgeStyle(id, { color: colours.HIGHLIGHT, size: 5, zIndex: 3 });
  const panel = $("[data-edge-panel]");
  showEdge(panel, group, edge);
  panel.scrollIntoView({ block: "start" });  // the side panel may be scrolled down a node's long fact list
  record();
}

// ---- paths ------------------------------------------------------------------------------------------------

async function findPath(mode) {
  const result = $("[data-path-result]");
  if (!pathEnds.from || !pathEnds.to) {
    result.textContent = "Choose both ends: select a node, then “Path from here” / “Path to here”.";
    return;
  }
  result.textContent = "Searching…";
  let answer;
  try {
    answer = await getJson(`${groupApi(group)}/paths`, {
      from: pathEnds.from, to: pathEnds.to, mode, max_hops: $("[data-max-hops]").value, ...filterParameters(),
    });
  } catch (error) {
    // The refusal's words where "Searching…" was, which stayed on after a 400 (issue 32); not the view's action.
    result.replaceChildren(h("p", { class: "error", role: "alert", "data-testid": "path-error", text: error.message }));
    return;
  }
  lastAction = { kind: "path", from: pathEnds.from, to: pathEnds.to, mode, maxHops: Number($("[data-max-hops]").value) };
  if (!answer.found) {
    view.clearHighlight();
    const why = answer.cut === "max_hops" ? "within the hop limit" : answer.cut === "max_visited" ? "before the search bound (too many nodes)" : "at all";
    result.replaceChildren(h("p", { "data-testid": "path-none", text: `No path ${why}.` }));
    return;
  }
  const links = await linksToShown(answer.nodes);
  const before = view.graph.order;
  view.addNodes(answer.nodes, { near: pathEnds.from });
  view.addEdges([...answer.edges, ...links]);
  view.highlight({ nodes: answer.nodes.map((node) => node.id), edges: answer.edges.map((edge) => edge.id) });
  fitIfGrown(before); // before the layout: one computed at once reports its end at once
  view.startLayout({ ms: 1500 });
  record();
  result.dataset.mode = mode;
  result.replaceChildren(
    h("p", { "data-testid": "path-summary" },
      `${mode}: ${answer.hops} hop${answer.hops === 1 ? "" : "s"} · strength ${number(answer.strength)} · ${answer.visited} nodes visited`),
    h("ol", { class: "path-steps", "data-testid": "path-steps" },
      answer.edges.map((edge) =>
        h("li", {}, h("button", { type: "button", class: "link-like", "data-edge": edge.id, onclick: () => openEdge(edge.id) },
          `${edge.source_name} ${edge.relation} ${edge.target_name}`), h("span", { class: "muted", text: ` ${number(edge.weight, 2)}` })))),
  );
}

for (const button of document.querySelectorAll("[data-find-path]")) {
  button.addEventListener("click", () => findPath(button.dataset.findPath).catch(showError));
}
$("[data-clear-path]").addEventListener("click", () => {
  view.clearHighlight();
  $("[data-path-result]").replaceChildren();
  if (lastAction && lastAction.kind === "path") lastAction = null;
  record();
});

// ---- search to add ----------------------------------------------------------------------------------------

$("[data-add-search]").addEventListener("submit", async (event) => {
  event.preventDefault();
  const query = new FormData(event.target).get("q");
  if (!query) return;
  const list = $("[data-add-results]");
  list.replaceChildren(h("li", { class: "muted small", text: "Searching…" }));
  let found;
  try {
    found = await getJson("/api/search", { q: query, group, scope: "entities", limit: 8 });
  } catch (error) {
    // Said where the "Searching…" was (a 5,000-character find stayed on it, issue 32).
    list.replaceChildren(h("li", { class: "error small", role: "alert", "data-testid": "add-error", text: error.message }));
    return;
  }
  list.replaceChildren(
    ...found.entities.map((hit) =>
      h("li", {}, h("button", { type: "button", class: "link-like", onclick: () => addAndOpen(hit.id) }, hit.name))),
  );
  if (!found.entities.length) list.replaceChildren(h("li", { class: "muted small", text: "No entity found." }));
});

async function addAndOpen(id) {
  await addByIds([id]);
  openNode(id);
  await expand(id);
  record();
}

// As you type: a suggestion chosen with the mouse or ↑ ↓ Enter is added, opened and expanded at once.
const addBox = new SuggestBox($("[data-add-search] input[name=q]"), {
  group,
  onChoose: (item) => addAndOpen(item.id).catch(showError),
});

// ---- wiring -----------------------------------------------------------------------------------------------

// Problems show over the top of the drawing, where the user is looking; a new view (restore) clears them.
function showError(error) {
  $("[data-notice-text]").textContent = error.message;
  $("[data-notice]").hidden = false;
}

function clearError() {
  $("[data-notice]").hidden = true;
  $("[data-notice-text]").textContent = "";
}

$("[data-notice-close]").addEventListener("click", clearError);

view.on("clickNode", (id, event) => {
  if (event && event.original && event.original.shiftKey) {
    toggleMark(id);
    return;
  }
  // A click reads a node, it does not grow the view: picking two path ends took 41 nodes to 64 (issue 32).
  openNode(id);
  record();
});
// A double click expands (as in Bloom), rather than zooming; so do the panel's Expand and its node menu.
view.on("doubleClickNode", (id, event) => {
  if (event && event.preventSigmaDefault) event.preventSigmaDefault();
  openNode(id);
  userExpand(id);
});
// The node menu (node_menu.js): right click on a node, Shift+F10 or the context-menu key with a node open, or the
// panel's "Menu…". Each item is one step back (Ctrl+Z) and one history entry, as the panel's buttons are.
const nodeMenu = new NodeMenu($(".stage"), {
  group,
  actions: {
    name: (id) => (view.node(id) ? view.node(id).name : id),
    moment: () => momentParameters(),
    expand: (id) => { openNode(id); userExpand(id); },
    expandRelation: (id, ends) => addByIds([id, ...ends]).then(() => record(), showError),
    expandDepth: (id, depth) => expandToDepth(id, depth).catch(showError),
    collapse: (id) => collapse(id),
    dismissOthers: (id) => dismissOthers(id),
    pathFrom: (id) => setPathEnd("from", id),
    pathTo: (id) => setPathEnd("to", id),
    liveUrl: (id) => `/g/${encodeURIComponent(group)}/live/?seed=${encodeURIComponent(id)}`,
  },
});

function openMenu(id) {
  if (!view.hasNode(id)) return;
  const fromPanel = $("[data-node-panel]").contains(document.activeElement);
  openNode(id); // redraws the panel: the focus goes back to its new "Menu…" button
  const at = view.viewportPosition(id);
  const returnTo = fromPanel ? () => $('[data-testid="node-menu-button"]') : document.activeElement;
  nodeMenu.open(id, { x: at.x + 12, y: at.y + 12, returnTo });
}

// Every node within `depth` facts of this one (through the facts the filter shows), as "Around the seeds" does.
async function expandToDepth(id, depth) {
  const found = await getJson(`${groupApi(group)}/subgraph`, { ids: id, hops: depth, ...filterParameters() });
  const links = await linksToShown(found.nodes);
  const before = view.graph.order;
  view.addNodes(found.nodes, { near: id });
  view.addEdges([...found.edges, ...links]);
  fitIfGrown(before); // before the layout: one computed at once reports its end at once
  view.startLayout({ ms: 2500 });
  if (found.truncated) showError(new Error(`Depth ${depth}: cut at the strongest-linked nodes.`));
  record();
}

function forgetGone() {
  for (const key of [...expansions.keys()]) if (!view.hasNode(key)) expansions.delete(key);
  if (currentNode && !view.hasNode(currentNode)) {
    currentNode = null;
    $("[data-node-panel]").hidden = true;
  }
}

// The inverse of expanding: the neighbours whose only shown link is to this node leave the view (pinned and
// selected ones stay), and the node may be expanded afresh.
function collapse(id) {
  const leaves = view.graph.neighbors(id).filter((other) =>
    view.graph.neighbors(other).length === 1 && !view.isPinned(other) && !view.marked.has(other));
  for (const other of leaves) view.removeNode(other);
  expansions.delete(id);
  forgetGone();
  if (view.hasNode(id)) drawNodePanel(id);
  record();
}

// Only this node (and the selection) stays.
function dismissOthers(id) {
  const keep = new Set([id, ...view.marked]);
  for (const other of view.nodeIds()) if (!keep.has(other)) view.removeNode(other);
  forgetGone();
  record();
}

view.on("rightClickNode", (id, event) => {
  if (event && event.preventSigmaDefault) event.preventSigmaDefault();
  if (event && event.original) event.original.preventDefault();
  openMenu(id);
});
$(".canvas").addEventListener("contextmenu", (event) => event.preventDefault()); // the node menu, not the browser's
document.addEventListener("keydown", (event) => {
  const asked = event.key === "ContextMenu" || (event.shiftKey && event.key === "F10");
  if (!asked || !currentNode || nodeMenu.isOpen) return;
  const target = event.target;
  if (target instanceof HTMLElement && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
  event.preventDefault();
  openMenu(currentNode);
});
view.on("clickEdge", (id) => openEdge(id));
const keyboard = new GraphKeyboard($(".canvas"), view, {
  status: $("[data-testid=graph-keyboard-status]"),
  open: (id) => { openNode(id); record(); },
  current: () => currentNode,
});
view.on("dragPin", () => record()); // a step to undo and a history entry (the pin and its place are in the URL)
$("[data-layout]").addEventListener("click", () => (view.layoutRunning() ? view.stopLayout() : view.startLayout({ ms: 8000 })));
// A choice of layout lays the drawing out again and fits it; the URL (and a saved view) keeps the choice.
$("[data-layout-mode]").addEventListener("change", (event) => {
  view.setLayoutMode(event.target.value);
  fitPending = true;
  view.startLayout({ ms: 2500 });
  record();
});
view.on("layout", (running) => { $("[data-layout]").textContent = running ? "Stop layout" : "Run layout"; });
$("[data-undo]").addEventListener("click", () => undo());
$("[data-redo]").addEventListener("click", () => redo());
$("[data-fit]").addEventListener("click", () => view.fit());
$("[data-unhide]").addEventListener("click", () => { view.unhideAll(); record(); });
for (const box of document.querySelectorAll("[data-link]")) box.addEventListener("change", () => record());

// ---- the view in the URL (view_state.js) -------------------------------------------------------------------

let restoring = false; // a restore redraws the view: its steps are not user actions
let restoreRun = 0; // a newer restore (back pressed twice quickly) abandons an older one
let sliding = false; // a slider being dragged: one history entry for the whole drag
let recorded = ""; // the query the current history entry holds

function captureState() {
  const state = emptyState();
  state.nodes = view.nodeIds();
  state.expanded = [...expansions.keys()].filter((id) => view.hasNode(id));
  state.hidden = [...view.hiddenNodes].filter((id) => view.hasNode(id));
  state.sel = currentNode && view.hasNode(currentNode) ? currentNode : null;
  state.edge = inspected && view.hasEdge(inspected) ? inspected : null;
  const categories = chosenCategories();
  state.categories = categories ? [...categories] : null;
  state.minWeight = Number($("[data-min-weight]").value);
  state.asOf = asOf.value();
  state.colour = view.colourMode;
  state.size = view.sizeMode;
  state.edgeWidth = view.edgeWidth;
  state.layout = view.layoutMode;
  state.links = [...document.querySelectorAll("[data-link]")].filter((box) => box.checked).map((box) => box.dataset.link);
  state.action = lastAction;
  // The pinned nodes where they stand (in the URL, `pins`), and the multi-selection (kept for undo only).
  state.pinned = view.nodeIds().filter((id) => view.isPinned(id)).map((id) => {
    const { x, y } = view.graph.getNodeAttributes(id);
    return [id, x, y];
  });
  state.marked = [...view.marked];
  return state;
}

// ---- undo and redo ----------------------------------------------------------------------------------------

// Snapshots of the captured state: a user action that changes what is shown (nodes, expansions, hidden, pinned,
// the last path, subgraph or PPR) puts the state before it on the undo stack. Undo and redo redraw a snapshot
// as back and forward do, and the URL follows.
const UNDO_DEPTH = 50;
const undoStack = [];
const redoStack = [];
let snapshot = null; // the state drawn now

function shape(state) {
  const sorted = (values) => [...values].sort();
  return JSON.stringify([sorted(state.nodes), sorted(state.expanded), sorted(state.hidden),
    sorted((state.pinned || []).map(([id]) => id)), state.action]);
}

function drawUndoButtons() {
  $("[data-undo]").disabled = !undoStack.length;
  $("[data-redo]").disabled = !redoStack.length;
  document.body.dataset.undoDepth = String(undoStack.length);
}

function remember(state) {
  if (snapshot && shape(state) !== shape(snapshot)) {
    undoStack.push(snapshot);
    if (undoStack.length > UNDO_DEPTH) undoStack.shift();
    redoStack.length = 0;
  }
  snapshot = state;
  drawUndoButtons();
}

let stepping = false;

async function step(from, to) {
  if (stepping || !from.length) return;
  stepping = true;
  try {
    to.push(snapshot);
    const state = from.pop();
    drawUndoButtons();
    await restore(state);
    snapshot = captureState();
    writeUrl(encodeState(snapshot).query, "replace");
  } finally {
    stepping = false;
    drawUndoButtons();
  }
}

const undo = () => step(undoStack, redoStack).catch(showError);
const redo = () => step(redoStack, undoStack).catch(showError);

document.addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.defaultPrevented) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  const key = event.key.toLowerCase();
  if (key === "z" && !event.shiftKey) undo();
  else if ((key === "z" && event.shiftKey) || key === "y") redo();
  else return;
  event.preventDefault();
});

// Write the view into the URL: a new history entry for an action ("push"), the same entry for a slider's further
// steps ("slide" pushes once per drag, then replaces).
function record(mode = "push") {
  if (restoring) return;
  if (!startActing) startCard.hidden = true;
  const state = captureState();
  remember(state);
  const { query, truncated } = encodeState(state);
  $("[data-url-cut]").hidden = !truncated;
  if (query === recorded) return;
  const push = mode === "push" || (mode === "slide" && !sliding);
  if (mode === "slide") sliding = true;
  writeUrl(query, push ? "push" : "replace");
}

function writeUrl(query, how) {
  const url = new URL(window.location.href);
  url.search = query;
  window.history[how === "push" ? "pushState" : "replaceState"]({ graphView: true }, "", url);
  recorded = query;
  views.stateChanged(query);
}

function endSlide() {
  sliding = false;
}

// Whether a text can be a node id at all (the server's rule, memoria/graph/rules.py): one that cannot is left out
// of what is asked, so it does not stop the others from drawing (`?nodes=<script>,demo-evt-015`, issue 32).
const ID_PATTERN = new RegExp(config.id_pattern);
const isNodeId = (id) => ID_PATTERN.test(id);

function quoted(ids) {
  const shown = ids.slice(0, 5).map((id) => `“${id.length > 40 ? `${id.slice(0, 40)}…` : id}”`);
  return shown.join(", ") + (ids.length > 5 ? ", …" : "");
}

function reportMissing(asked) {
  // A link to a node that was deleted or merged, or mistyped: say so, and show what does exist.
  const malformed = asked.filter((id) => !isNodeId(id));
  const missing = asked.filter((id) => isNodeId(id) && !view.hasNode(id));
  const problems = [];
  if (missing.length) {
    problems.push(`${missing.length === 1 ? "No node" : "No nodes"} ${quoted(missing)} in ${group}: ` +
      "deleted or merged since the link was made, or the link is mistyped. Search for it instead.");
  }
  if (malformed.length) {
    problems.push(`${quoted(malformed)} ${malformed.length === 1 ? "is not a node id" : "are not node ids"} ` +
      "(1–200 letters, digits or ._:/@#-): left out.");
  }
  if (problems.length) showError(new Error(problems.join(" ")));
}

// Draw a state from scratch: the filters first (expansions ask the server with them), then the nodes, the
// expansions, what was hidden, the selection, the last action and the inspected edge.
async function restore(state) {
  const run = ++restoreRun;
  const stale = () => run !== restoreRun;
  restoring = true;
  document.body.dataset.graphReady = "false";
  try {
    view.stopLayout();
    view.clear();
    view.clearStyles();
    expansions.clear();
    currentNode = null;
    inspected = null;
    lastAction = null;
    $("[data-node-panel]").hidden = true;
    $("[data-edge-panel]").hidden = true;
    $("[data-path-result]").replaceChildren();
    $("[data-around-result]").textContent = "";
    clearError();
    setPathEnd("from", null);
    setPathEnd("to", null);
    ppr.clear();
    for (const box of categoryBoxes) box.checked = !state.categories || state.categories.includes(box.value);
    $("[data-min-weight]").value = String(state.minWeight ?? 0.25);
    asOf.show(state.asOf);
    $("[data-time-enabled]").checked = false;
    $("[data-time-slider]").disabled = true;
    for (const radio of document.querySelectorAll('input[name="colour"]')) radio.checked = radio.value === state.colour;
    view.setColourMode(state.colour);
    $("[data-size-mode]").value = state.size || "score";
    view.setSizeMode(state.size);
    $("[data-edge-weight]").checked = state.edgeWidth !== "uniform";
    view.setEdgeWidth(state.edgeWidth);
    $("[data-layout-mode]").value = state.layout;
    view.setLayoutMode(state.layout);
    for (const box of document.querySelectorAll("[data-link]")) box.checked = state.links.includes(box.dataset.link);
    applyFilter();
    if (state.nodes.length) {
      await addByIds(state.nodes.filter(isNodeId));
      if (stale()) return;
      reportMissing(state.nodes);
    } else if (state.query) {
      const found = await getJson("/api/search", { q: state.query, group, scope: "entities", limit: 10 });
      if (stale()) return;
      await addByIds(found.entities.map((hit) => hit.id));
    }
    for (const id of state.expanded) {
      if (stale()) return;
      if (view.hasNode(id)) await expand(id);
    }
    if (stale()) return;
    for (const id of state.hidden) if (view.hasNode(id)) view.hideNode(id);
    for (const [id, x, y] of state.pinned || []) {
      if (!view.hasNode(id)) continue;
      view.graph.mergeNodeAttributes(id, { x, y });
      view.pinNode(id, true);
    }
    setMarked(state.marked || []);
    if (state.sel && view.hasNode(state.sel)) openNode(state.sel);
    await restoreAction(state.action);
    if (stale()) return;
    if (state.edge && view.hasEdge(state.edge)) openEdge(state.edge);
  } finally {
    if (!stale()) {
      restoring = false;
      document.body.dataset.graphReady = "true";
    }
  }
}

async function restoreAction(action) {
  if (!action) return;
  if (action.kind === "path" && action.from && action.to) {
    if (action.maxHops) $("[data-max-hops]").value = String(action.maxHops);
    pathEnds.from = action.from;
    pathEnds.to = action.to;
    await findPath(action.mode);
    setPathEnd("from", action.from);
    setPathEnd("to", action.to);
  } else if (action.kind === "subgraph") {
    $("[data-around-hops]").value = String(action.hops);
    await showAround(action.seeds.filter((id) => view.hasNode(id)));
  } else if (action.kind === "ppr") {
    for (const id of action.seeds) ppr.toggleSeed(id);
    if (action.top) ppr.el.topK.value = String(action.top);
    ppr.el.relation.checked = action.aware;
    ppr.el.query.value = action.query;
    await ppr.run(); // its onChange (pprChanged) keeps the action
  }
}

// Back and forward: the entry's URL is the view to draw.
window.addEventListener("popstate", () => {
  recorded = window.location.search.slice(1);
  views.stateChanged(recorded);
  restore(decodeState(window.location.search)).then(() => { snapshot = captureState(); }, showError);
});

// Saved views (views_menu.js): opening one is an action like any other, so back returns to the view before it.
const views = new ViewsMenu($("[data-views]"), {
  group,
  canCurate: curationConfig().can_curate,
  open: (query) => {
    const url = new URL(window.location.href);
    url.search = query;
    window.history.pushState({ graphView: true }, "", url);
    recorded = query;
    return restore(decodeState(query)).then(() => remember(captureState()));
  },
});

// ---- the first view (explorer/first_view.py) --------------------------------------------------------------

// A group opened with nothing asked draws its most connected entities under a card that offers a search (drawn
// as its top entities, as Bloom starts from a phrase) and a question to watch live. Any other action closes it.
const startCard = $("[data-start]");
let startActing = false; // the card's own actions keep it open

function showStart(first) {
  const count = first.ids.length;
  $("[data-start-what]").textContent = count
    ? `Drawn: the ${count} most connected entities of ${group} and the facts among them. Click one to read it.`
    : `${group} has no linked entities yet: search it, or import a graph on the Jobs page.`;
  const link = $('[data-testid="start-question"]');
  $("[data-start-question]").hidden = !first.question;
  if (first.question) {
    link.href = first.question_url;
    link.textContent = `“${first.question}”`;
  }
  startCard.hidden = false;
}

async function startAction(state, after = async () => {}) {
  startActing = true;
  try {
    await restore(state);
    await after();
    record();
  } finally {
    startActing = false;
  }
}

$("[data-start-close]").addEventListener("click", () => { startCard.hidden = true; });
$("[data-start-clear]").addEventListener("click", () => {
  startAction(emptyState()).then(() => {
    $("[data-start-what]").textContent = "The canvas is empty: search to draw what it finds.";
    $('[data-testid="start-search"]').focus();
  }, showError);
});
$("[data-start-search]").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = String(new FormData(event.target).get("q") || "").trim();
  if (!query) return;
  startAction({ ...emptyState(), query }).then(() => {
    const drawn = view.counts().nodes;
    $("[data-start-what]").textContent = drawn
      ? `Drawn: the ${drawn} entities “${query}” finds best. Click one to read it.`
      : `No entity found for “${query}”.`;
  }, showError);
});
const startBox = new SuggestBox($("[data-start-search] input[name=q]"), {
  group,
  onChoose: (item) => startAction(emptyState(), () => addAndOpen(item.id)).then(() => { startCard.hidden = true; }, showError),
});

async function start() {
  let search = window.location.search;
  let state = null;
  if (!hasState(search) && config.default_view) {
    // No view in the URL: the group's default perspective, written into the URL as if it had been opened.
    search = config.default_view.state;
    views.announce(`Opened the group's default view “${config.default_view.name}”.`);
  } else if (!hasState(search) && config.first_view) {
    state = { ...emptyState(), nodes: config.first_view.ids };
    showStart(config.first_view);
  }
  await restore(state || decodeState(search));
  // The URL now says what is drawn (an older ?node= link becomes the full state).
  snapshot = captureState();
  writeUrl(encodeState(snapshot).query, "replace");
  drawUndoButtons();
}

// Editing (curators) and live curation updates (everyone): curation_graph.js.
attachCuration({ view, group, panel: $("[data-edge-panel]"), controls: $("[data-path]"), ends: () => ({ ...pathEnds }), openEdge });

// For the browser tests and the console: the page's view and its actions.
window.memoriaGraph = {
  view, expand, openNode, openEdge, setPathEnd, findPath, ppr, asOf, addBox, startBox, captureState, restore, views,
  toggleMark, setMarked, bulk, undo, redo, undoStack, redoStack, nodeMenu, keyboard,
};
start().catch((error) => {
  showError(error);
  document.body.dataset.graphReady = "error";
});
