// Draws a RetrievalRun (live_run.js) into a GraphView (graph_view.js) as its events arrive: seeds lit by their
// score, the frontier of each level grown out of its parents, selected edges coloured and sized by transfer
// energy, rejected candidates faded (their reason is on hover). Styles go through the view's overlay maps, many
// at once, then one refresh.

const RAMP = ["#f7c65e", "#f08a24", "#d6402b", "#8b1a5c"]; // weak → strong energy
const REJECTED_EDGE = "#c5ccd6";
const REJECTED_NODE = "#dde2e9";
const LOST_EDGE_STYLE = { color: "#e74c3c", size: 2, zIndex: 1 };
const LOST_NODE_STYLE = { color: "#f3b7b0", size: 5, zIndex: 1, forceLabel: true };
const GAINED = "#1e9e5a";
export const DEFAULT_REJECTED_PER_PARENT = 8; // a hub's hundreds of weak candidates would bury the picture

function hexToRgb(hex) {
  const value = parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function mix(a, b, t) {
  const [ra, ga, ba] = hexToRgb(a);
  const [rb, gb, bb] = hexToRgb(b);
  const channel = (x, y) => Math.round(x + (y - x) * t).toString(16).padStart(2, "0");
  return `#${channel(ra, rb)}${channel(ga, gb)}${channel(ba, bb)}`;
}

// Where an energy sits between the run's threshold and its strongest seed, on a log scale (energies decay
// geometrically along a path), clamped to [0, 1].
export function energyPosition(energy, floor, top) {
  if (!(energy > 0) || !(floor > 0) || !(top > floor)) return 1;
  const t = (Math.log(energy) - Math.log(floor)) / (Math.log(top) - Math.log(floor));
  return Math.min(1, Math.max(0, t));
}

export function energyColour(position) {
  const scaled = position * (RAMP.length - 1);
  const index = Math.min(Math.floor(scaled), RAMP.length - 2);
  return mix(RAMP[index], RAMP[index + 1], scaled - index);
}

export const ramp = RAMP;

export class RunCanvas {
  constructor(view, { rejectedPerParent = DEFAULT_REJECTED_PER_PARENT } = {}) {
    this.view = view;
    this.rejectedPerParent = rejectedPerParent;
    this.run = null;
    this.hiddenRejected = new Map(); // parent id → how many rejected candidates were not drawn
    this.frontier = new Set();
    this.diff = null;
  }

  reset(run) {
    this.run = run;
    this.hiddenRejected.clear();
    this.frontier = new Set();
    this.diff = null;
    this.view.stopLayout();
    this.view.clear();
    this.view.clearStyles();
    this.view.clearHighlight();
    const seeds = [...run.seeds.values()];
    this.view.addNodes(seeds.map((seed) => run.nodes.get(seed.id).card));
    // Seeds spread on a circle so their trees grow apart.
    seeds.forEach((seed, index) => {
      const angle = (2 * Math.PI * index) / Math.max(seeds.length, 1);
      this.view.graph.mergeNodeAttributes(seed.id, { x: Math.cos(angle), y: Math.sin(angle) });
    });
    this.restyle();
  }

  scale() {
    const scores = [...this.run.seeds.values()].map((seed) => seed.score);
    return { floor: this.run.params.min_activation || 0.005, top: Math.max(...scores, 0.01) };
  }

  // A level arrived: add its selected neighbours and a few rejected ones per parent, then restyle.
  showLevel(change, level) {
    const run = this.run;
    const drawnRejected = new Map();
    const nodes = [];
    const edges = [];
    for (const parent of level.parents) {
      for (const candidate of parent.candidates) {
        if (!candidate.selected) {
          const count = drawnRejected.get(parent.parent_id) || 0;
          if (count >= this.rejectedPerParent && !this.view.hasNode(candidate.neighbor_id)) {
            this.hiddenRejected.set(parent.parent_id, (this.hiddenRejected.get(parent.parent_id) || 0) + 1);
            continue;
          }
          drawnRejected.set(parent.parent_id, count + 1);
        }
        nodes.push({ card: run.nodes.get(candidate.neighbor_id).card, near: parent.parent_id });
        const edge = run.edges.get(candidate.edge_id);
        edges.push({ id: edge.id, kind: "RELATES", source: edge.source, target: edge.target, relation: edge.relation, weight: edge.weight });
      }
    }
    this.placeNear(nodes);
    this.view.addEdges(edges);
    this.frontier = new Set(change.frontier);
    this.restyle();
    this.view.startLayout({ ms: 1500 });
  }

  // New nodes in one batch (one redraw), each then moved next to the parent it was met from, so the frontier
  // grows out of its parents.
  placeNear(items) {
    const near = new Map(items.map((item) => [item.card.id, item.near]));
    const added = this.view.addNodes(items.map((item) => item.card));
    const graph = this.view.graph;
    for (const id of added) {
      const origin = graph.getNodeAttributes(near.get(id));
      const angle = Math.random() * 2 * Math.PI;
      const radius = 0.05 + 0.1 * Math.random();
      graph.mergeNodeAttributes(id, { x: origin.x + radius * Math.cos(angle), y: origin.y + radius * Math.sin(angle) });
    }
  }

  finish() {
    this.frontier = new Set();
    this.restyle();
  }

  nodeStyle(id) {
    const node = this.run.nodes.get(id);
    if (!node || (this.diff && this.diff.lostNodes.has(id) && node.energy === null)) return LOST_NODE_STYLE;
    const { floor, top } = this.scale();
    if (node.seed) {
      return { color: energyColour(energyPosition(node.energy, floor, top)), size: 11 + 7 * node.energy, forceLabel: true, zIndex: 4, highlighted: true };
    }
    if (node.energy === null) return { color: REJECTED_NODE, size: 3, label: null, zIndex: 0 };
    const position = energyPosition(node.energy, floor, top);
    const style = { color: energyColour(position), size: 4 + 7 * position, forceLabel: true, zIndex: 2 };
    if (this.frontier.has(id)) Object.assign(style, { highlighted: true, size: style.size + 2, zIndex: 3 });
    return style;
  }

  edgeStyle(id) {
    const record = this.run.bestRecord(id);
    if (!record || (this.diff && this.diff.lostEdges.has(id) && !record.selected)) return LOST_EDGE_STYLE;
    if (!record.selected) return { color: REJECTED_EDGE, size: 0.8, zIndex: 0 };
    const { floor, top } = this.scale();
    const position = energyPosition(record.transfer_energy, floor, top);
    const style = { color: energyColour(position), size: 1.5 + 6 * position, zIndex: 2 };
    if (this.diff && this.diff.gainedEdges.has(id)) Object.assign(style, { color: GAINED, zIndex: 3 });
    return style;
  }

  // Every drawn node and edge gets its overlay; one refresh for all.
  restyle() {
    const { view } = this;
    view.nodeStyles.clear();
    view.edgeStyles.clear();
    view.graph.forEachNode((id) => view.nodeStyles.set(id, this.nodeStyle(id)));
    view.graph.forEachEdge((id) => view.edgeStyles.set(id, this.edgeStyle(id)));
    view.refresh();
  }

  // After a re-run: the paths it lost are drawn back in red (their nodes and edges from the previous run),
  // and the edges of paths it gained in green.
  showDiff(diff, previous) {
    const edgesOf = (items) => new Set(items.flatMap((item) => item.path.hops.map((hop) => hop.edge_id)));
    // A grown path's new hops count as gained; the hops a shrunk path no longer takes as lost.
    const gone = [...diff.lost, ...diff.shrank.map((change) => change.before)];
    const kept = edgesOf(diff.shrank.map((change) => change.after));
    const hadBefore = edgesOf(diff.grew.map((change) => change.before));
    const came = edgesOf([...diff.gained, ...diff.grew.map((change) => change.after)]);
    this.diff = {
      gainedEdges: new Set([...came].filter((id) => !hadBefore.has(id))),
      lostEdges: new Set([...edgesOf(gone)].filter((id) => !kept.has(id))),
      lostNodes: new Set(diff.lost.flatMap((item) => item.path.nodes)),
    };
    const cards = [];
    const edges = [];
    for (const item of gone) {
      for (const id of item.path.nodes) if (!this.view.hasNode(id)) cards.push(previous.nodes.get(id).card);
      for (const hop of item.path.hops) {
        const edge = previous.edges.get(hop.edge_id);
        if (this.view.hasEdge(edge.id)) continue;
        edges.push({ id: edge.id, kind: "RELATES", source: edge.source, target: edge.target, relation: edge.relation, weight: edge.weight });
      }
    }
    this.view.addNodes(cards);
    this.view.addEdges(edges);
    this.restyle();
  }

  // Counts the view draws as a run's selected edges (the tests and the status line read it).
  selectedEdgesDrawn() {
    return this.run.selectedEdgeIds().filter((id) => this.view.hasEdge(id)).length;
  }
}
