// One retrieval as its events describe it (docs/websocket.md): the seeds, every node and edge it touched with the
// energy numbers the server sent, its completed paths, and summaries for display. Pure data, drawing nothing: the live
// page, the watch page and the diff of two runs all read it. Numbers are the server's; nothing is recomputed.
import { EVENT } from "./names.js";

export const REASONS = {
  below_threshold: "below threshold",
  claimed: "claimed by another parent",
  branch_limit: "branch limit (MAX_BRANCHES)",
};

export const END_REASONS = {
  max_depth: "reached MAX_DEPTH",
  below_threshold: "no neighbour above MIN_ACTIVATION",
  dead_end: "dead end (no unvisited neighbour)",
  claimed: "every candidate claimed by another parent",
  budget_exhausted: "stopped by the retrieval's budget (time or rows)",
};

// A candidate's labels, minus the ones every entity has, as a GraphView node card.
function neighbourCard(candidate) {
  return {
    id: candidate.neighbor_id,
    name: candidate.neighbor_name || candidate.neighbor_id,
    kind: "Entity",
    labels: (candidate.neighbor_labels || []).filter((label) => label !== "Entity" && label !== "Memory"),
  };
}

export function pathKey(path) {
  return path.nodes.join("\u2192");
}

export class RetrievalRun {
  constructor(started) {
    this.id = started.retrieval_id;
    this.started = started;
    this.params = started.params || {};
    this.seeds = new Map((started.seeds || []).map((seed) => [seed.id, { ...seed, status: "running", name: null }]));
    this.nodes = new Map(); // id → {card, energy (best received, or the seed's score), seed, depth}
    this.edges = new Map(); // edge id → {id, source, target, relation, records: [candidate + seed_id, parent_id, depth]}
    this.levels = []; // level_expanded events in arrival order
    this.paths = []; // {seed_id, path}
    this.finished = null;
    this.events = 0;
    for (const seed of this.seeds.values()) {
      this.nodes.set(seed.id, { card: { id: seed.id, name: seed.id, kind: "Entity", labels: [] }, energy: seed.score, seed: true, depth: 0 });
    }
  }

  // Apply one event; returns what changed for the drawing: {type, ...}.
  apply(event) {
    this.events += 1;
    switch (event.type) {
      case EVENT.SEED_STARTED:
        return { type: event.type, seedId: event.seed_id };
      case EVENT.LEVEL_EXPANDED:
        return this.applyLevel(event);
      case EVENT.PATH_COMPLETED:
        this.paths.push({ seed_id: event.seed_id, path: event.path });
        return { type: event.type, path: event.path };
      case EVENT.SEED_FINISHED:
        return this.applySeedFinished(event);
      case EVENT.RETRIEVAL_FINISHED:
        this.finished = event;
        return { type: event.type };
      default:
        return { type: event.type };
    }
  }

  applyLevel(event) {
    this.levels.push(event);
    const added = { nodes: [], edges: [], frontier: [] };
    for (const parent of event.parents) {
      for (const candidate of parent.candidates) {
        const record = { ...candidate, seed_id: event.seed_id, parent_id: parent.parent_id, depth: event.depth };
        const known = this.nodes.get(candidate.neighbor_id);
        if (!known) {
          this.nodes.set(candidate.neighbor_id, {
            card: neighbourCard(candidate),
            energy: candidate.selected ? candidate.transfer_energy : null,
            seed: false,
            depth: candidate.selected ? event.depth + 1 : null,
          });
          added.nodes.push(candidate.neighbor_id);
        } else if (candidate.selected && !known.seed && (known.energy === null || candidate.transfer_energy > known.energy)) {
          known.energy = candidate.transfer_energy;
          known.depth = event.depth + 1;
        }
        if (candidate.selected) added.frontier.push(candidate.neighbor_id);
        const edge = this.edges.get(candidate.edge_id);
        if (edge) {
          edge.records.push(record);
        } else {
          const outgoing = candidate.direction === "out";
          this.edges.set(candidate.edge_id, {
            id: candidate.edge_id,
            source: outgoing ? parent.parent_id : candidate.neighbor_id,
            target: outgoing ? candidate.neighbor_id : parent.parent_id,
            relation: candidate.relation,
            weight: candidate.weight,
            records: [record],
          });
          added.edges.push(candidate.edge_id);
        }
      }
    }
    return { type: event.type, seedId: event.seed_id, depth: event.depth, ...added };
  }

  applySeedFinished(event) {
    const seed = this.seeds.get(event.seed_id) || { id: event.seed_id, score: event.score };
    Object.assign(seed, { status: event.status, name: event.name || null, labels: event.labels || [], error: event.error });
    this.seeds.set(event.seed_id, seed);
    const node = this.nodes.get(event.seed_id);
    if (node && event.name) {
      node.card = { ...node.card, name: event.name, labels: (event.labels || []).filter((label) => label !== "Entity") };
    }
    return { type: event.type, seedId: event.seed_id };
  }

  // Cards from elsewhere (the node API) for seeds, whose events carry only their ids until they finish.
  nameNodes(cards) {
    for (const card of cards) {
      const node = this.nodes.get(card.id);
      if (node) node.card = { ...node.card, ...card };
    }
  }

  name(id) {
    const node = this.nodes.get(id);
    return node ? node.card.name : id;
  }

  // The best record of an edge: a selected one first, then the most energetic.
  bestRecord(edgeId) {
    const edge = this.edges.get(edgeId);
    if (!edge) return null;
    return [...edge.records].sort((a, b) => Number(b.selected) - Number(a.selected) || b.transfer_energy - a.transfer_energy)[0];
  }

  selectedEdgeIds() {
    return [...this.edges.values()].filter((edge) => edge.records.some((record) => record.selected)).map((edge) => edge.id);
  }

  // Completed paths, strongest final energy first (then deeper, then by their nodes).
  rankedPaths() {
    return [...this.paths].sort(
      (a, b) => b.path.energy - a.path.energy || b.path.depth - a.path.depth || pathKey(a.path).localeCompare(pathKey(b.path)),
    );
  }

  // Per hop (depth 1 is the seeds' own edges): the selected transfer energies' count, min, median and max,
  // and the strongest rejected one, as the server sent them.
  depthSummary() {
    const byDepth = new Map();
    for (const level of this.levels) {
      const hop = level.depth + 1;
      if (!byDepth.has(hop)) byDepth.set(hop, { selected: [], rejected: [] });
      for (const parent of level.parents) {
        for (const candidate of parent.candidates) {
          byDepth.get(hop)[candidate.selected ? "selected" : "rejected"].push(candidate.transfer_energy);
        }
      }
    }
    return [...byDepth.entries()].sort((a, b) => a[0] - b[0]).map(([depth, { selected, rejected }]) => {
      const sorted = [...selected].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      const median = sorted.length === 0 ? null : sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
      return {
        depth,
        count: sorted.length,
        min: sorted.length ? sorted[0] : null,
        median,
        max: sorted.length ? sorted[sorted.length - 1] : null,
        rejected: rejected.length,
        rejectedMax: rejected.length ? Math.max(...rejected) : null,
      };
    });
  }
}

// What changed between two runs' paths: gained (only in `after`), lost (only in `before`), and how many stayed.
// Paths gained and lost between two runs. A path that only went on past its old end (MIN_ACTIVATION lowered)
// is the same path grown, not one lost and another gained; one that now stops sooner has shrunk.
export function diffPaths(before, after) {
  const old = new Map(before.paths.map((item) => [pathKey(item.path), item]));
  const now = new Map(after.paths.map((item) => [pathKey(item.path), item]));
  const added = [...now.entries()].filter(([key]) => !old.has(key)).map(([, item]) => item);
  const removed = [...old.entries()].filter(([key]) => !now.has(key)).map(([, item]) => item);
  const grew = changedPaths(removed, added, (was, is) => startsWith(is, was));
  const shrank = changedPaths(removed, added, (was, is) => startsWith(was, is));
  const changedBefore = new Set([...grew, ...shrank].map((change) => change.before));
  const changedAfter = new Set([...grew, ...shrank].map((change) => change.after));
  return {
    gained: added.filter((item) => !changedAfter.has(item)),
    lost: removed.filter((item) => !changedBefore.has(item)),
    grew,
    shrank,
    kept: now.size - added.length,
  };
}

// Whether path `longer` begins with every step of `shorter` and goes on.
function startsWith(longer, shorter) {
  const [long, short] = [longer.path.nodes, shorter.path.nodes];
  return short.length < long.length && short.every((id, index) => long[index] === id);
}

// Each earlier path matched to the new one it became (the longest such), each new path used once.
function changedPaths(removed, added, became) {
  const used = new Set();
  const changes = [];
  for (const was of removed) {
    const candidates = added.filter((is) => !used.has(is) && became(was, is));
    if (!candidates.length) continue;
    const is = candidates.reduce((best, item) => (item.path.nodes.length > best.path.nodes.length ? item : best));
    used.add(is);
    changes.push({ before: was, after: is });
  }
  return changes;
}

// The params that differ between two runs, as "name: before → after".
export function changedParams(before, after) {
  const names = new Set([...Object.keys(before.params), ...Object.keys(after.params)]);
  const changes = [...names].filter((name) => before.params[name] !== after.params[name])
    .map((name) => `${name}: ${before.params[name]} → ${after.params[name]}`);
  const tagsBefore = (before.started.query_tags || []).join(", ");
  const tagsAfter = (after.started.query_tags || []).join(", ");
  if (tagsBefore !== tagsAfter) changes.push(`query_tags: [${tagsBefore}] → [${tagsAfter}]`);
  return changes;
}
