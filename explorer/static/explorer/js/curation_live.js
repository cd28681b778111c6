// Live curation: the group's watch socket (docs/websocket.md) tells every open view about each committed change
// as `curation` events carrying the touched edges and nodes as they are now (null: deleted). A graph view
// applies them in place; pages call `watchCuration` with their own handler.

import { JsonSocket } from "./live_socket.js";
import { FRAME } from "./names.js";

const RETRY_MS = [1000, 2000, 5000, 10000];

// One socket per group for the whole page, shared by every part that listens (modules are loaded once).
const listeners = new Map(); // group → Set of handlers

function open(group) {
  let failures = 0;
  const socket = new JsonSocket(`/ws/retrievals/watch/?group=${encodeURIComponent(group)}`, {
    onFrame: (frame) => {
      if (frame.type === FRAME.WATCHING) {
        failures = 0;
        document.body.dataset.curationLive = "on";
      } else if (frame.type === FRAME.CURATION && frame.group === group) {
        for (const handler of listeners.get(group) || []) handler(frame);
      }
    },
    onClose: () => {
      document.body.dataset.curationLive = "off";
      if ((listeners.get(group) || new Set()).size) setTimeout(connect, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
    },
  });
  function connect() {
    socket.ready().catch(() => {});
  }
  connect();
}

// Calls `onChange(frame)` for each curation event of the group; reconnects after a drop. Returns a stopper.
export function watchCuration(group, onChange) {
  if (!listeners.has(group)) {
    listeners.set(group, new Set());
    open(group);
  }
  listeners.get(group).add(onChange);
  return () => listeners.get(group).delete(onChange);
}

// The edge card a graph view holds, from an event's edge (ends as ids, every stored property) and the old card.
function edgeCard(view, id, edge, old) {
  const name = (end, fallback) => (view.node(end) && view.node(end).name) || fallback || end;
  return {
    ...(old || {}),
    ...edge,
    id,
    kind: "RELATES",
    source_name: name(edge.source, old && old.source === edge.source ? old.source_name : null),
    target_name: name(edge.target, old && old.target === edge.target ? old.target_name : null),
    invalidated: Boolean(edge.invalid_at || edge.expired_at),
  };
}

// Updates a GraphView in place: changed edges redrawn (weight, ends after a merge), deleted ones and merged-away
// nodes removed, new edges between shown nodes added. Returns whether anything shown changed.
export function applyToView(view, frame) {
  let touched = false;
  for (const [id, edge] of Object.entries(frame.edges || {})) {
    const old = view.edge(id);
    if (old) {
      view.graph.dropEdge(id);
      touched = true;
    }
    if (edge && view.hasNode(edge.source) && view.hasNode(edge.target)) {
      view.addEdges([edgeCard(view, id, edge, old)]);
      touched = true;
    }
  }
  for (const [id, node] of Object.entries(frame.nodes || {})) {
    if (!view.hasNode(id)) continue;
    if (node === null) {
      view.removeNode(id);
    } else {
      view.graph.mergeNodeAttributes(id, { card: { ...view.node(id), name: node.name, labels: node.labels }, label: node.name });
    }
    touched = true;
  }
  if (touched) view.changed();
  return touched;
}

// Whether an event's edge says what a shown edge record says (the inspector need not reload then).
const COMPARED = ["relation", "fact", "weight", "category", "valid_at", "invalid_at", "expired_at"];
export function sameEdge(shown, edge) {
  if (!shown || !edge) return false;
  const tags = (value) => JSON.stringify(value || []);
  return COMPARED.every((key) => (shown[key] ?? null) === (edge[key] ?? null)) && tags(shown.tags) === tags(edge.tags);
}
