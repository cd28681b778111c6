// Personalized PageRank from the graph page (docs/explorer.md): seeds picked on the page (or, with none picked,
// the selected nodes), POST /api/retrieval/ppr, and the ranked nodes added to the view with the facts among them,
// coloured and sized by score and listed best first (a click focuses one). Relation-aware runs show the β the
// answer used as sliders (ppr_shared.js, as the live page does); releasing one re-runs with the user's β.

import { ApiError } from "./api.js";
import { h, number } from "./dom.js";
import { drawBetaSliders, scoreStyles } from "./ppr_shared.js";

const PPR_API = "/api/retrieval/ppr";

// Django's CSRF cookie: the session-authenticated POST needs it echoed (viewers may run PPR: it only reads).
function csrfToken() {
  const cookie = document.cookie.split("; ").find((item) => item.startsWith("csrftoken="));
  return cookie ? decodeURIComponent(cookie.slice("csrftoken=".length)) : "";
}

async function postPpr(body) {
  const response = await fetch(PPR_API, {
    method: "POST",
    credentials: "same-origin",
    headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

export class GraphPpr {
  // `root`: the page's PPR fieldset; `addByIds(ids)`: loads nodes and the facts among them into the view;
  // `openNode(id)`: shows a node's panel; `selection()`: the ids to seed from when none were picked.
  // `moment()`: the page's as-of parameters ({as_of} or {}), sent with every run. `onChange()`: a run was shown
  // or the box cleared (the page keeps its last action in the URL).
  constructor({ view, group, root, addByIds, openNode, selection, moment = () => ({}), onChange = () => {} }) {
    this.moment = moment;
    this.onChange = onChange;
    Object.assign(this, { view, group, addByIds, openNode, selection });
    const $ = (selector) => root.querySelector(selector);
    this.el = {
      seeds: $("[data-ppr-seeds]"), relation: $("[data-ppr-relation]"), query: $("[data-ppr-query]"),
      topK: $("[data-ppr-top-k]"), betas: $("[data-ppr-betas]"), summary: $("[data-ppr-summary]"),
      ranked: $("[data-ppr-ranked]"),
    };
    this.seeds = new Map(); // id → name, in the order picked
    this.userBetas = null; // set once a slider is released; a new query or mode forgets them
    this.styled = [];
    this.lastBody = null;
    this.lastAnswer = null;
    this.runs = 0; // answers shown so far (the browser tests wait on it)
    $("[data-ppr-run]").addEventListener("click", () => this.run());
    $("[data-ppr-clear]").addEventListener("click", () => this.clear());
    for (const input of [this.el.relation, this.el.query]) input.addEventListener("change", () => { this.userBetas = null; });
    this.drawSeeds();
  }

  isSeed(id) {
    return this.seeds.has(id);
  }

  toggleSeed(id) {
    if (this.seeds.has(id)) this.seeds.delete(id);
    else this.seeds.set(id, (this.view.node(id) || { name: id }).name);
    this.drawSeeds();
  }

  drawSeeds() {
    if (!this.seeds.size) {
      this.el.seeds.replaceChildren(h("span", { class: "muted", text: "none picked: the selected nodes" }));
      return;
    }
    this.el.seeds.replaceChildren(...[...this.seeds].map(([id, name]) =>
      h("span", { class: "badge label", "data-seed": id }, `${name} `,
        h("button", { type: "button", class: "link-like", title: "not a seed", onclick: () => this.toggleSeed(id) }, "×"))));
  }

  // The picked seeds, or the selection when none are picked (the subgraph around them starts from these too).
  seedIds() {
    return this.seeds.size ? [...this.seeds.keys()] : this.selection();
  }

  // The picked seeds; with none picked, relation-aware with a query seeds from the facts nearest the query
  // (seed 003, the fact filter's choice), anything else from the selection.
  requestBody() {
    const query = this.el.query.value.trim();
    const fromFacts = this.el.relation.checked && query && !this.seeds.size;
    const ids = fromFacts ? [] : this.seedIds();
    const body = { group: this.group, top_k: Number(this.el.topK.value), ...this.moment() };
    if (ids.length) body.seeds = ids.map((id) => ({ id }));
    if (this.el.relation.checked) {
      body.relation_aware = true;
      if (query) body.query = query;
      if (this.userBetas) body.betas = this.userBetas;
    }
    return body;
  }

  async run() {
    const body = this.requestBody();
    if (!body.seeds && !body.query) {
      this.fail("Pick seeds first: “PPR seed” on a node, or select nodes (relation-aware: or give a query).");
      return;
    }
    this.el.summary.textContent = "Running…";
    this.el.summary.removeAttribute("role");
    let answer;
    try {
      answer = await postPpr(body);
    } catch (error) {
      this.fail(error.message);
      return;
    }
    this.lastBody = body;
    this.lastAnswer = answer;
    await this.addByIds([...new Set([...answer.scores.map((node) => node.id), ...answer.seeds.map((seed) => seed.id)])]);
    this.show(answer);
    this.onChange();
  }

  fail(message) {
    this.el.summary.className = "error small";
    this.el.summary.setAttribute("role", "alert");
    this.el.summary.textContent = message;
  }

  show(answer) {
    this.runs += 1;
    this.el.ranked.dataset.runs = String(this.runs);
    this.unstyle();
    const styles = scoreStyles(answer.scores);
    for (const [id, style] of styles) if (this.view.hasNode(id)) this.view.nodeStyles.set(id, style);
    this.styled = [...styles.keys()];
    this.view.refresh();
    this.el.ranked.replaceChildren(...answer.scores.map((node) =>
      h("li", { "data-node": node.id, "data-score": String(node.score) },
        h("button", { type: "button", class: "link-like", onclick: () => { this.openNode(node.id); this.view.focus(node.id); } },
          node.name || node.id),
        h("span", { class: "muted", text: ` ${node.kind} · ${number(node.score, 4)}` }))));
    const betas = answer.betas ? ` · β: ${answer.betas.source}` : "";
    const facts = answer.fact_filter ? ` · facts kept: ${answer.fact_filter}` : "";
    this.el.summary.className = "muted small";
    this.el.summary.textContent =
      `${answer.relation_aware ? "Relation-aware PPR" : "PPR"}: ${answer.iterations} iterations, error ≤ ${number(answer.error_bound, 2)}` +
      ` · seeds: ${answer.seed_source} (${answer.seeds.length})${betas}${facts} · graph version ${answer.projection.version}`;
    if (answer.betas) {
      drawBetaSliders(this.el.betas, answer.betas, (chosen) => {
        this.userBetas = chosen;
        this.run();
      });
    } else {
      this.el.betas.replaceChildren();
    }
  }

  unstyle() {
    for (const id of this.styled) this.view.nodeStyles.delete(id);
    this.styled = [];
  }

  clear() {
    this.unstyle();
    this.view.refresh();
    this.seeds.clear();
    this.userBetas = null;
    this.lastAnswer = null;
    this.drawSeeds();
    this.el.ranked.replaceChildren();
    this.el.betas.replaceChildren();
    this.el.summary.textContent = "";
    this.onChange();
  }
}
