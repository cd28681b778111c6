// The live retrieval view shared by the live page and the watch page: a GraphView drawing one retrieval as its
// events are played, with hover reasons, the energy breakdown of a clicked edge, the ranked paths, the per-hop
// energy plot and, after a re-run, what changed. Feed it events with `push`; a `retrieval_started` begins a run.
//
// Markup (templates/explorer/_live_view.html): elements marked data-live-* inside `root`.

import { getJson, groupApi, pageUrl } from "./api.js";
import { h, number } from "./dom.js";
import { showEdge } from "./edge_inspector.js";
import { createGraphView } from "./graph_view.js";
import { RunCanvas } from "./live_canvas.js";
import { renderBreakdown, renderDiff, renderPaths, renderSeeds, statusText } from "./live_panels.js";
import { EventPlayer } from "./live_player.js";
import { depthPlot } from "./live_plot.js";
import { REASONS, RetrievalRun, changedParams, diffPaths } from "./live_run.js";
import { ALGORITHM, EVENT } from "./names.js";

export class LiveView {
  constructor(root, { group, stepMs = 350, nodeActions = () => [], onFinished = () => {} }) {
    const part = (name) => root.querySelector(`[data-live-${name}]`);
    this.group = group;
    this.nodeActions = nodeActions;
    this.onFinished = onFinished;
    this.el = {
      root,
      canvas: part("canvas"),
      tooltip: part("tooltip"),
      status: part("status"),
      seeds: part("seeds"),
      paths: part("paths"),
      diff: part("diff"),
      plot: part("plot"),
      breakdown: part("breakdown"),
      fact: part("fact"),
      legend: part("legend"),
    };
    this.view = createGraphView(this.el.canvas);
    this.view.sigma.setSetting("stagePadding", 70); // room for the labels of the outermost nodes
    this.canvas = new RunCanvas(this.view);
    this.player = new EventPlayer((event) => this.apply(event), { stepMs });
    this.run = null;
    this.pathsFrame = null;
    this.previous = null;
    this.compareNext = null;
    this.lastDiff = null;
    this.view.on("enterNode", (id, event) => this.tooltip(this.nodeTip(id), event));
    this.view.on("enterEdge", (id, event) => this.tooltip(this.edgeTip(id), event));
    this.view.on("leaveNode", () => this.tooltip(null));
    this.view.on("leaveEdge", () => this.tooltip(null));
    this.view.on("clickEdge", (id) => this.openEdge(id));
    this.view.on("clickNode", (id) => this.openNode(id));
    this.view.on("clickStage", () => this.view.clearHighlight());
    this.setState("idle");
  }

  setState(state) {
    this.el.root.dataset.liveState = state;
  }

  // The next run is compared with `run` when it finishes (a re-run after a threshold changed).
  compareNextWith(run) {
    this.compareNext = run;
  }

  push(event) {
    this.player.push(event);
  }

  setStep(ms) {
    this.player.setStep(ms);
  }

  // Forget what is still queued and show nothing running (a socket dropped, or another retrieval is chosen).
  stop() {
    this.player.clear();
  }

  apply(event) {
    if (event.type === EVENT.RETRIEVAL_STARTED && event.algorithm === ALGORITHM.PPR) {
      this.run = null; // PPR's frames are drawn by live_ppr.js; here its run is only named
      this.clearDrawing(); // not the previous run's picture under this run's name
      this.el.root.dataset.liveRun = event.retrieval_id;
      this.el.status.textContent = `Personalized PageRank run ${event.retrieval_id}: open the live page to draw it.`;
      return;
    }
    if (event.type === EVENT.RETRIEVAL_STARTED) {
      this.begin(event);
      return;
    }
    const run = this.run;
    if (!run || event.retrieval_id !== run.id) return;
    const change = run.apply(event);
    if (event.type === EVENT.LEVEL_EXPANDED) {
      this.canvas.showLevel(change, event);
      this.drawPlot();
    } else if (event.type === EVENT.PATH_COMPLETED) {
      this.schedulePaths();
    } else if (event.type === EVENT.SEED_FINISHED) {
      this.renameNodes([event.seed_id]);
      renderSeeds(this.el.seeds, run);
    } else if (event.type === EVENT.RETRIEVAL_FINISHED) {
      this.finish();
    }
    this.el.status.textContent = statusText(run);
  }

  begin(started) {
    this.previous = this.compareNext;
    this.compareNext = null;
    this.lastDiff = null;
    this.run = new RetrievalRun(started);
    this.canvas.reset(this.run);
    this.el.root.dataset.liveRun = started.retrieval_id;
    this.setState("running");
    this.el.breakdown.hidden = true;
    this.el.fact.hidden = true;
    this.el.diff.hidden = true;
    this.el.status.textContent = statusText(this.run);
    renderSeeds(this.el.seeds, this.run);
    this.drawPaths();
    this.drawPlot();
    this.nameSeeds(this.run);
  }

  // Seeds arrive as ids; their cards come from the node API so the picture is named while it grows.
  async nameSeeds(run) {
    const ids = [...run.seeds.keys()];
    if (!ids.length) return;
    try {
      const found = await getJson(`${groupApi(this.group)}/nodes`, { ids: ids.join(",") });
      run.nameNodes(found.nodes);
    } catch {
      return; // the ids stay as labels; seed_finished names them later
    }
    if (run !== this.run) return;
    this.renameNodes(ids);
    renderSeeds(this.el.seeds, run);
    this.drawPaths();
  }

  renameNodes(ids) {
    for (const id of ids) {
      const node = this.run.nodes.get(id);
      if (node && this.view.hasNode(id)) this.view.graph.mergeNodeAttributes(id, { card: node.card, label: node.card.name });
    }
    this.canvas.restyle();
  }

  finish() {
    const run = this.run;
    this.canvas.finish();
    this.drawPaths();
    this.drawPlot();
    renderSeeds(this.el.seeds, run);
    if (this.previous) {
      this.lastDiff = diffPaths(this.previous, run);
      renderDiff(this.el.diff, {
        diff: this.lastDiff,
        changes: changedParams(this.previous, run),
        previous: this.previous,
        current: run,
        onPick: (path) => this.highlightPath(path),
      });
      this.canvas.showDiff(this.lastDiff, this.previous);
    }
    this.view.startLayout({ ms: 2000 });
    this.setState("finished");
    this.onFinished(run);
  }

  // An empty canvas and panels: what a run this view does not draw leaves behind.
  clearDrawing() {
    this.view.stopLayout();
    this.view.clear();
    this.view.clearStyles();
    this.view.clearHighlight();
    for (const panel of [this.el.seeds, this.el.paths, this.el.diff, this.el.plot, this.el.breakdown, this.el.fact]) {
      if (panel) panel.replaceChildren();
    }
  }

  // Paths complete in bursts; the list is drawn once per frame, not once per path.
  schedulePaths() {
    if (this.pathsFrame) return;
    this.pathsFrame = requestAnimationFrame(() => {
      this.pathsFrame = null;
      this.drawPaths();
    });
  }

  drawPaths() {
    renderPaths(this.el.paths, this.run, { onPick: (path) => this.highlightPath(path) });
  }

  drawPlot() {
    const seedTop = Math.max(...[...this.run.seeds.values()].map((seed) => seed.score), 0);
    this.el.plot.replaceChildren(depthPlot(this.run.depthSummary(), { threshold: this.run.params.min_activation, seedTop }));
  }

  highlightPath(path) {
    this.view.highlight({ nodes: path.nodes, edges: path.hops.map((hop) => hop.edge_id) });
  }

  // ---- hover and click ----------------------------------------------------------------------------------

  tooltip(text, event) {
    const tip = this.el.tooltip;
    if (!text) {
      tip.hidden = true;
      return;
    }
    tip.textContent = text;
    tip.style.left = `${event.x + 14}px`;
    tip.style.top = `${event.y + 10}px`;
    tip.hidden = false;
  }

  nodeTip(id) {
    const run = this.run;
    if (!run) return null;
    const node = run.nodes.get(id);
    if (!node) return `${this.view.node(id)?.name || id}\nlost by the re-run`;
    const lines = [node.card.name];
    if (node.seed) lines.push(`seed, R = ${number(node.energy, 4)}`);
    else if (node.energy !== null) lines.push(`reached at hop ${node.depth}, R = ${number(node.energy, 4)}`);
    const rejections = [...run.edges.values()].flatMap((edge) => edge.records)
      .filter((record) => record.neighbor_id === id && !record.selected);
    for (const record of rejections.slice(0, 4)) {
      lines.push(`not taken from ${run.name(record.parent_id)}: ${REASONS[record.reason] || record.reason} (T = ${number(record.transfer_energy, 3)})`);
    }
    const hidden = this.canvas.hiddenRejected.get(id);
    if (hidden) lines.push(`${hidden} weaker candidates not drawn`);
    return lines.join("\n");
  }

  edgeTip(id) {
    if (!this.run) { // a fact drawn among PPR's ranked nodes (live_ppr.js)
      const edge = this.view.edge(id);
      return edge ? `${edge.source_name || ""} ${edge.relation || "fact"} ${edge.target_name || ""} · weight ${number(edge.weight, 2)}` : null;
    }
    const record = this.run && this.run.bestRecord(id);
    if (!record) return `lost by the re-run`;
    const verdict = record.selected ? "selected" : REASONS[record.reason] || record.reason;
    return `${record.relation || "fact"}: T = ${number(record.transfer_energy, 4)} · ${verdict}\nclick for the breakdown`;
  }

  openEdge(id) {
    if (!this.run || !this.run.edges.has(id)) return;
    this.el.fact.hidden = true;
    renderBreakdown(this.el.breakdown, this.run, id, {
      onOpenFact: (edge) => showEdge(this.el.fact, this.group, {
        id: edge.id, kind: "RELATES", source: edge.source, target: edge.target,
        source_name: this.run.name(edge.source), target_name: this.run.name(edge.target), relation: edge.relation, weight: edge.weight,
      }),
    });
    this.canvas.restyle();
    this.view.setEdgeStyle(id, { ...this.view.edgeStyles.get(id), color: "#3559e0", zIndex: 5 });
  }

  openNode(id) {
    const node = this.run && this.run.nodes.get(id);
    const card = node ? node.card : this.view.node(id);
    if (!card) return;
    const panel = this.el.breakdown;
    panel.replaceChildren(
      h("div", { class: "panel-head" },
        h("h2", {}, h("a", { href: pageUrl(this.group, card) }, card.name)),
        h("button", { type: "button", class: "small secondary", "aria-label": "close", onclick: () => { panel.hidden = true; } }, "×")),
      h("p", { class: "small muted", text: this.nodeTip(id) }),
      h("div", { class: "buttons" }, ...this.nodeActions(card, node)),
    );
    panel.dataset.edge = "";
    panel.hidden = false;
  }

  // How many selected edges the view draws, and how many paths are listed (tests and status read these).
  counts() {
    return {
      nodes: this.view.graph.order,
      edges: this.view.graph.size,
      selectedEdges: this.run ? this.canvas.selectedEdgesDrawn() : 0,
      paths: this.run ? this.run.paths.length : 0,
    };
  }
}
