// Personalized PageRank on the live page (docs/websocket.md, "ppr"): the top nodes drawn into the live view's
// GraphView as ppr_iteration frames arrive, sized and coloured by score; the ranked nodes and passages of the
// answer; and, for relation-aware runs, the β of each relation category (chosen for the query, or the user's)
// as sliders that re-run when moved.

import { getJson, graphUrl, groupApi } from "./api.js";
import { h, number } from "./dom.js";
import { drawBetaSliders, scoreStyles } from "./ppr_shared.js";
import { EVENT } from "./names.js";

// `hidden` alone loses to a stylesheet's `display` (the legend is a flex row).
export function setShown(element, shown) {
  element.hidden = !shown;
  element.style.display = shown ? "" : "none";
}

export class PprPanel {
  // `live`: the page's LiveView (its GraphView and status line are shared); `betasRoot`: where the sliders go;
  // `onBetas(betas)`: a slider moved (the page re-runs with them); `onEnd(finished)`: a run ended; `moment()`: the
  // page's as-of parameters ({as_of} or {}), which the facts drawn among the ranked nodes are read at.
  constructor(live, { betasRoot, onBetas, onEnd = () => {}, moment = () => ({}) }) {
    this.live = live;
    this.moment = moment;
    this.onEnd = onEnd;
    this.view = live.view;
    this.betasRoot = betasRoot;
    this.onBetas = onBetas;
    this.userBetas = null; // set once a slider moves; cleared by `resetBetas`
    this.runId = null;
    this.ranked = h("ol", { class: "path-list small", "data-testid": "ppr-ranked" });
    this.passages = h("ol", { class: "path-list small", "data-testid": "ppr-passages" });
    this.summary = h("p", { class: "muted small", "data-testid": "ppr-summary" });
    this.section = h("section", { class: "panel", "data-testid": "ppr-results", hidden: true },
      h("h3", { text: "PageRank, highest first" }), this.summary, this.ranked,
      h("h3", { text: "Passages (episodes)" }), this.passages);
    live.el.status.after(this.section);
    this.hiddenByUs = [];
    this.lastAnswer = null; // the finished run's answer: what the page's export writes (it has no paths)
    // Once the short layout among the facts stops, the whole drawing is framed with room for the labels to the
    // right of their nodes (before, issue 32, the layout left it unfitted and labels ran off the canvas).
    this.fitPending = false;
    this.view.on("layout", (running) => {
      if (running || !this.fitPending) return;
      this.fitPending = false;
      this.view.fitAll();
    });
  }

  // PPR's panel in place of the activation ones (seeds, energy plot, paths, legend), or back.
  show(on) {
    if (on === !this.section.hidden) return;
    this.section.hidden = !on;
    if (on) {
      const others = [...this.section.parentElement.querySelectorAll(":scope > section"), this.live.el.legend];
      this.hiddenByUs = others.filter((element) => element !== this.section && !element.hidden);
      for (const element of this.hiddenByUs) setShown(element, false);
    } else {
      for (const element of this.hiddenByUs) setShown(element, true);
      this.hiddenByUs = [];
    }
  }

  resetBetas() {
    this.userBetas = null;
  }

  apply(frame) {
    if (frame.type === EVENT.RETRIEVAL_STARTED) this.begin(frame);
    else if (frame.retrieval_id !== this.runId) return;
    else if (frame.type === EVENT.PPR_ITERATION) this.iteration(frame);
    else if (frame.type === EVENT.PPR_FINISHED) this.finished(frame);
    else if (frame.type === EVENT.RETRIEVAL_FINISHED) this.end(frame);
  }

  begin(started) {
    this.runId = started.retrieval_id;
    this.lastAnswer = null;
    this.show(true);
    this.live.stop();
    this.live.run = null; // the drawing is no longer an activation run's: its tooltips would misname nodes
    this.view.stopLayout();
    this.view.clear();
    this.view.clearStyles();
    this.view.clearHighlight();
    this.live.el.root.dataset.liveRun = started.retrieval_id;
    this.live.setState("running");
    this.ranked.replaceChildren();
    this.passages.replaceChildren();
    this.summary.textContent = "";
    this.live.el.status.textContent = started.params.relation_aware ? "Relation-aware PPR: finding seeds…" : "PPR: solving…";
  }

  iteration(frame) {
    this.draw(frame.top);
    this.live.el.status.textContent = `PPR: iteration ${frame.iteration}, error ≤ ${number(frame.error_bound, 2)}`;
  }

  finished(answer) {
    this.lastAnswer = answer;
    this.draw(answer.scores);
    this.drawFacts(answer.scores.map((node) => node.id)).catch(() => {}); // without its facts the ranking still reads
    this.ranked.replaceChildren(...answer.scores.map((node) => this.row(node)));
    this.passages.replaceChildren(...answer.passages.map((node) => this.row(node)));
    if (!answer.passages.length) this.passages.append(h("li", { class: "muted", text: "No episode in this group." }));
    const fresh = answer.projection;
    this.summary.textContent = [
      `${answer.iterations} iterations (${answer.method}), error ≤ ${number(answer.error_bound, 2)}`,
      `seeds: ${answer.seed_source} (${answer.seeds.length})`,
      `graph version ${fresh.version}, ${fresh.state}${fresh.loading ? ", reloading" : ""}`,
      `${answer.nodes} nodes, ${answer.edges} edges`,
    ].join(" · ");
    this.summary.dataset.projection = fresh.state;
    if (answer.betas) this.drawBetas(answer.betas);
  }

  end(finished) {
    this.live.setState(finished.status === "completed" ? "finished" : finished.status);
    this.live.el.status.textContent = `PPR ${finished.status} in ${number(finished.elapsed_ms, 3)} ms`;
    this.onEnd(finished);
  }

  row(node) {
    return h("li", { "data-node": node.id, "data-score": String(node.score) },
      h("a", { href: graphUrl(this.live.group, { node: node.id }), text: node.name || node.id }),
      h("span", { class: "muted", text: ` ${node.kind} · ${number(node.score, 4)}` }));
  }

  // The top nodes on a spiral by rank (the best at the centre), sized and coloured by score on a log scale.
  draw(nodes) {
    if (!nodes.length) return;
    const styles = scoreStyles(nodes);
    const fresh = nodes.filter((node) => !this.view.hasNode(node.id));
    this.view.addNodes(fresh.map((node) => ({ id: node.id, name: node.name, kind: node.kind, labels: [] })));
    nodes.forEach((node, rank) => {
      const angle = rank * 2.4;
      const radius = Math.sqrt(rank);
      this.view.graph.mergeNodeAttributes(node.id, { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
      this.view.nodeStyles.set(node.id, styles.get(node.id));
    });
    for (const id of this.view.nodeIds()) if (!nodes.some((node) => node.id === id)) this.view.removeNode(id);
    this.view.changed();
    this.view.fitAll();
  }

  // The facts among the ranked nodes, from the subgraph API the graph page loads nodes with (at the run's moment:
  // the facts the run walked), so the answer reads as a graph; a short layout from the spiral pulls linked nodes
  // together. `data-edges` on the ranked list says how many were drawn.
  async drawFacts(ids) {
    const run = this.runId;
    this.ranked.dataset.edges = "";
    if (!ids.length) return;
    const found = await getJson(`${groupApi(this.live.group)}/subgraph`, { ids: ids.join(","), ...this.moment() });
    if (run !== this.runId) return;
    const added = this.view.addEdges(found.edges);
    this.ranked.dataset.edges = String(added.length);
    if (added.length) {
      this.fitPending = true;
      this.view.startLayout({ ms: 1200 });
    }
  }

  // One slider per relation category, per family, at the β the answer used; moving one re-runs with them all.
  drawBetas(betas) {
    drawBetaSliders(this.betasRoot, betas, (chosen) => {
      this.userBetas = chosen;
      this.onBetas(chosen);
    });
  }
}
