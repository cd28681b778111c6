// Layouts computed at once, beside the moving force layout (graph_view.js): each takes the node ids to place, most
// connected first, and the links among them as [source, target], and returns a Map id → [x, y] in the unit square
// (y up, as the renderer draws it). graph_view.js scales the square to the drawing's frame. Written here rather
// than taken from a library: graphology's vendored bundle has circular and random placements but no layered or
// radial tree, and these are a breadth-first walk and some arithmetic each.

// Breadth-first depths from `roots` along `next`, then from the most connected node not yet reached, until every
// node has one; returns the nodes in the order met (a node's followers after it) and their depths.
function layers(ids, roots, next) {
  const depth = new Map();
  const met = [];
  const walk = (starts) => {
    const queue = starts.filter((id) => !depth.has(id));
    for (const id of queue) depth.set(id, 0);
    for (let index = 0; index < queue.length; index += 1) {
      const id = queue[index];
      met.push(id);
      for (const after of next.get(id) || []) {
        if (depth.has(after)) continue;
        depth.set(after, depth.get(id) + 1);
        queue.push(after);
      }
    }
  };
  walk(roots);
  for (const id of ids) if (!depth.has(id)) walk([id]);
  return { met, depth };
}

function adjacency(links, directed) {
  const next = new Map();
  const add = (a, b) => { if (!next.has(a)) next.set(a, []); next.get(a).push(b); };
  for (const [source, target] of links) {
    add(source, target);
    if (!directed) add(target, source);
  }
  return next;
}

// Each layer's nodes in the order met, spread evenly across its row (or ring).
function byLayer(met, depth) {
  const rows = new Map();
  for (const id of met) {
    const level = depth.get(id);
    if (!rows.has(level)) rows.set(level, []);
    rows.get(level).push(id);
  }
  return rows;
}

// Top-down layers along the facts' direction: nodes with no incoming link first (else the most connected), each
// node one layer below the nearest of them.
function hierarchical(ids, links) {
  const incoming = new Set(links.map(([, target]) => target));
  const roots = ids.filter((id) => !incoming.has(id));
  const { met, depth } = layers(ids, roots.length ? roots : ids.slice(0, 1), adjacency(links, true));
  const rows = byLayer(met, depth);
  const deepest = Math.max(...rows.keys());
  const placed = new Map();
  for (const [level, row] of rows) {
    row.forEach((id, index) => {
      placed.set(id, [(index + 0.5) / row.length, deepest ? 1 - level / deepest : 0.5]);
    });
  }
  return placed;
}

// Rings around the most connected node: its neighbours on the first, theirs on the second, and so on.
function radial(ids, links) {
  const { met, depth } = layers(ids, ids.slice(0, 1), adjacency(links, false));
  const rows = byLayer(met, depth);
  const deepest = Math.max(...rows.keys());
  const placed = new Map();
  for (const [level, row] of rows) {
    const radius = deepest ? (0.5 * level) / deepest : 0;
    row.forEach((id, index) => {
      const angle = (2 * Math.PI * index) / row.length;
      placed.set(id, [0.5 + radius * Math.cos(angle), 0.5 + radius * Math.sin(angle)]);
    });
  }
  return placed;
}

// Rows of a square grid, most connected first, from the top left.
function grid(ids) {
  const columns = Math.ceil(Math.sqrt(ids.length));
  const rows = Math.ceil(ids.length / columns);
  const cell = 1 / Math.max(columns, rows);
  return new Map(ids.map((id, index) => [
    id, [(index % columns + 0.5) * cell, 1 - (Math.floor(index / columns) + 0.5) * cell],
  ]));
}

export const placements = { hierarchical, radial, grid };
