// The live view's side panels: an edge's energy breakdown, the ranked paths, what a re-run changed, the status
// line. Every number shown is one the server sent; exact values sit in data-value for copying and tests.

import { h, number } from "./dom.js";
import { END_REASONS, REASONS, pathKey } from "./live_run.js";

function value(testid, raw, digits = 4) {
  return h("span", { class: "num", "data-testid": testid, "data-value": JSON.stringify(raw), title: String(raw) }, number(raw, digits));
}

function row(label, ...content) {
  return [h("dt", {}, label), h("dd", {}, ...content)];
}

// One way an edge was met: from which parent, in which seed's exploration, at which depth, and what came of it.
function breakdownRecord(run, record) {
  const verdict = record.selected
    ? h("span", { class: "badge selected", text: "selected" })
    : h("span", { class: "badge rejected", text: REASONS[record.reason] || record.reason });
  const claimed = record.claimed_by ? h("span", { class: "muted small", text: ` by ${run.name(record.claimed_by)}` }) : null;
  const shared = record.shared_tags.length
    ? record.shared_tags.map((tag) => h("span", { class: "tag", text: tag }))
    : [h("span", { class: "muted", text: "none" })];
  return h("section", { class: "breakdown", "data-testid": "breakdown", "data-seed": record.seed_id, "data-edge": record.edge_id },
    h("p", { class: "small" }, verdict, claimed, " ",
      h("span", { class: "muted", text: `hop ${record.depth + 1} of seed ${run.name(record.seed_id)}` })),
    h("p", { class: "formula" },
      "T = R · w / √d · tag_sim = ",
      value("breakdown-formula-R", record.parent_activation), " × ", value("breakdown-formula-w", record.weight, 3),
      " / ", value("breakdown-formula-sqrt-d", record.sqrt_degree), " × ", value("breakdown-formula-tag-sim", record.tag_similarity),
      " = ", h("strong", {}, value("breakdown-formula-T", record.transfer_energy))),
    h("dl", { class: "inspector" },
      row("R(parent)", value("breakdown-R", record.parent_activation, 6), h("span", { class: "muted small", text: ` ${run.name(record.parent_id)}` })),
      row("w", value("breakdown-w", record.weight, 6)),
      row("d(parent)", value("breakdown-d", record.degree, 6)),
      row("√d", value("breakdown-sqrt-d", record.sqrt_degree, 6)),
      row("tag_sim", value("breakdown-tag-sim", record.tag_similarity, 6)),
      row("shared tags", h("span", { "data-testid": "breakdown-shared-tags", "data-value": JSON.stringify(record.shared_tags) }, ...shared)),
      row("T", h("strong", {}, value("breakdown-T", record.transfer_energy, 6))),
      row("vs MIN_ACTIVATION", value("breakdown-threshold", run.params.min_activation, 4),
        h("span", { class: "muted small", text: record.transfer_energy > run.params.min_activation ? " (passes)" : " (does not pass)" })),
    ));
}

export function renderBreakdown(panel, run, edgeId, { onOpenFact } = {}) {
  const edge = run.edges.get(edgeId);
  if (!edge) {
    panel.hidden = true;
    return;
  }
  const records = [...edge.records].sort((a, b) => Number(b.selected) - Number(a.selected) || b.transfer_energy - a.transfer_energy);
  panel.replaceChildren(
    h("div", { class: "panel-head" },
      h("h2", {}, "Energy ", h("span", { class: "relation", text: edge.relation || "" })),
      h("button", { type: "button", class: "small secondary", "aria-label": "close", onclick: () => { panel.hidden = true; } }, "×")),
    h("p", { class: "small" }, `${run.name(edge.source)} → ${run.name(edge.target)}`),
    ...records.map((record) => breakdownRecord(run, record)),
    onOpenFact ? h("button", { type: "button", class: "small secondary", "data-testid": "open-fact", onclick: () => onOpenFact(edge) }, "The fact and its episodes") : null,
  );
  panel.dataset.edge = edgeId;
  panel.hidden = false;
}

function pathText(run, path) {
  return path.nodes.map((id) => run.name(id)).join(" → ");
}

export function renderPaths(list, run, { onPick }) {
  const ranked = run.rankedPaths();
  list.replaceChildren(
    ...ranked.map((item) =>
      h("li", { "data-key": pathKey(item.path), "data-energy": JSON.stringify(item.path.energy) },
        h("button", { type: "button", class: "link-like", onclick: () => onPick(item.path) },
          h("span", { class: "num energy", text: number(item.path.energy, 3) }), " ",
          pathText(run, item.path)),
        h("span", { class: "muted small", text: ` ${item.path.depth} hop${item.path.depth === 1 ? "" : "s"} · ${END_REASONS[item.path.end_reason] || item.path.end_reason}` }))),
  );
  list.dataset.count = String(ranked.length);
}

export function renderDiff(box, { diff, changes, previous, current, onPick }) {
  const item = (kind, entry, run) =>
    h("li", { class: kind, "data-key": pathKey(entry.path) },
      h("button", { type: "button", class: "link-like", onclick: () => onPick(entry.path) },
        `${kind === "gained" ? "+" : "−"} ${pathText(run, entry.path)}`),
      h("span", { class: "muted small", text: ` ${number(entry.path.energy, 3)}` }));
  // A path that grew or shrank: its new form, and how many hops it has now against before.
  const changed = (kind, change) =>
    h("li", { class: kind, "data-key": pathKey(change.after.path), "data-before": pathKey(change.before.path) },
      h("button", { type: "button", class: "link-like", onclick: () => onPick(change.after.path) },
        `${kind === "grew" ? "↦" : "↤"} ${pathText(current, change.after.path)}`),
      h("span", { class: "muted small", text: ` ${change.before.path.depth} → ${change.after.path.depth} hops` }));
  box.replaceChildren(
    h("h3", {}, "Changed by the re-run"),
    h("p", { class: "small muted", "data-testid": "diff-params" }, changes.length ? changes.join(" · ") : "same settings"),
    h("p", { class: "small", "data-testid": "diff-summary" },
      `${diff.gained.length} gained · ${diff.lost.length} lost · ${diff.grew.length} grew · ${diff.shrank.length} shrank · ` +
      `${diff.kept} unchanged`),
    h("ul", { class: "diff-list", "data-testid": "diff-gained" }, diff.gained.map((entry) => item("gained", entry, current))),
    h("ul", { class: "diff-list", "data-testid": "diff-lost" }, diff.lost.map((entry) => item("lost", entry, previous))),
    h("ul", { class: "diff-list", "data-testid": "diff-grew" }, diff.grew.map((change) => changed("grew", change))),
    h("ul", { class: "diff-list", "data-testid": "diff-shrank" }, diff.shrank.map((change) => changed("shrank", change))),
  );
  box.hidden = false;
}

export function milliseconds(value) {
  return `${value >= 100 ? Math.round(value) : number(value, 3)} ms`;
}

export function statusText(run) {
  const seeds = [...run.seeds.values()];
  const done = seeds.filter((seed) => seed.status !== "running").length;
  if (!run.finished) {
    const depth = run.levels.length ? Math.max(...run.levels.map((level) => level.depth)) + 1 : 0;
    return `running · seeds ${done}/${seeds.length} done · hop ${depth} · ${run.paths.length} paths · ${run.events} events`;
  }
  const finished = run.finished;
  const parts = [finished.status, `${finished.paths ?? run.paths.length} paths`, `${seeds.length} seed${seeds.length === 1 ? "" : "s"}`];
  if (finished.elapsed_ms !== undefined) parts.push(milliseconds(finished.elapsed_ms));
  if (finished.round_trips !== undefined) parts.push(`${finished.round_trips} round trips`);
  if (finished.candidates !== undefined) parts.push(`${finished.candidates} candidates`);
  return parts.join(" · ") + (finished.error ? ` — ${finished.error}` : "");
}

export function renderSeeds(list, run) {
  list.replaceChildren(
    ...[...run.seeds.values()].map((seed) =>
      h("li", { "data-seed": seed.id },
        h("span", { class: "num", text: number(seed.score, 3) }), " ",
        run.name(seed.id),
        seed.status === "seed_not_found" ? h("span", { class: "badge rejected", text: "not found" }) : null,
        seed.status === "error" ? h("span", { class: "badge rejected", title: seed.error || "", text: "failed" }) : null)),
  );
}
