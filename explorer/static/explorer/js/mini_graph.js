// Small read-only graphs on entity and community pages: a node's neighbourhood, or the facts among chosen nodes.
// Markup: <div data-mini-graph data-group="g" data-node="id"> (neighbourhood) or data-ids-from="json-script-id"
// (subgraph of those ids), holding a .canvas element and optionally a .mini-status element.

import { getJson, groupApi, neighboursApi, pageUrl } from "./api.js";
import { applyToView, watchCuration } from "./curation_live.js";
import { createGraphView } from "./graph_view.js";

const NEIGHBOURS = 40;

async function load(view, box) {
  const { group, node, idsFrom } = box.dataset;
  if (node) {
    const page = await getJson(neighboursApi(group, node), { limit: NEIGHBOURS });
    view.addNodes([page.center]);
    view.addNodes(page.nodes, { near: page.center.id });
    view.addEdges(page.edges);
    view.select([node]);
    return page.more ? `${page.links} of ${page.total} links shown` : `${page.total} links`;
  }
  const ids = JSON.parse(document.getElementById(idsFrom).textContent);
  if (!ids.length) return "no members";
  const found = await getJson(`${groupApi(group)}/subgraph`, { ids: ids.join(",") });
  view.addNodes(found.nodes);
  view.addEdges(found.edges);
  return `${found.nodes.length} members, ${found.edges.length} facts among them`;
}

async function mount(box) {
  const view = createGraphView(box.querySelector(".canvas"), { drag: false, edgeEvents: false });
  const status = box.querySelector(".mini-status");
  view.on("clickNode", (id) => { window.location.href = pageUrl(box.dataset.group, view.node(id)); });
  try {
    const text = await load(view, box);
    if (status) status.textContent = text;
    view.startLayout({ ms: 2500 });
  } catch (error) {
    if (status) status.textContent = `Could not load the graph: ${error.message}`;
  }
  box.dataset.nodes = String(view.counts().nodes);
  box.dataset.ready = "true";
  // Curation changes redraw what they touch (curation_live.js).
  watchCuration(box.dataset.group, (frame) => {
    if (applyToView(view, frame)) box.dataset.liveUpdate = String(frame.entry.id);
  });
}

for (const box of document.querySelectorAll("[data-mini-graph]")) mount(box);
