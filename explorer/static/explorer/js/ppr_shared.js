// What the live page (live_ppr.js) and the graph page (graph_ppr.js) share of Personalized PageRank: how a ranked
// node is drawn by its score, and the β sliders of relation-aware runs (one per relation category, per family).

import { h, number } from "./dom.js";
import { energyColour, energyPosition } from "./live_canvas.js";

const FAMILIES = { entity_entity: "entity–entity", entity_passage: "entity–passage" };
const SMALLEST = 4;
const LARGEST = 22;
const LABELLED = 10; // the best ranks keep their labels whatever the zoom

// Each ranked node's style (best first in `nodes`): coloured and sized by score on a log scale between the
// lowest and the highest shown (scores fall off geometrically with distance from the seeds).
export function scoreStyles(nodes) {
  const styles = new Map();
  if (!nodes.length) return styles;
  const top = nodes[0].score;
  const floor = nodes[nodes.length - 1].score;
  nodes.forEach((node, rank) => {
    const position = floor < top ? energyPosition(node.score, floor, top) : 1;
    styles.set(node.id, {
      color: energyColour(position), size: SMALLEST + (LARGEST - SMALLEST) * position, forceLabel: rank < LABELLED,
    });
  });
  return styles;
}

// The β an answer used as sliders in `root`; releasing one calls `onBetas` with every family's values.
// A settled choice re-runs, not each step: arrow keys fire `change` per press (five presses were five runs).
export const BETA_SETTLE_MS = 400;

export function drawBetaSliders(root, betas, onBetas) {
  let settle = null;
  const chosen = { entity_entity: { ...betas.entity_entity }, entity_passage: { ...betas.entity_passage } };
  const source = betas.source === "caller" ? "yours" : `chosen for the query (${betas.source})`;
  root.replaceChildren(h("p", { class: "muted small", "data-testid": "ppr-betas-source", text: `β used: ${source}` }));
  for (const [family, label] of Object.entries(FAMILIES)) {
    const rows = Object.entries(chosen[family]).map(([category, value]) => {
      const shown = h("output", { text: number(value, 2) });
      const slider = h("input", {
        type: "range", min: "0", max: "1", step: "0.01", value: String(value), "aria-label": `β ${category}`,
        "data-beta": `${family}.${category}`,
        oninput: (event) => {
          event.stopPropagation(); // not a settings change that re-runs at once: `change`, on release, does
          chosen[family][category] = Number(event.target.value);
          shown.textContent = number(chosen[family][category], 2);
        },
        onchange: () => {
          clearTimeout(settle);
          settle = setTimeout(() => onBetas(chosen), BETA_SETTLE_MS);
        },
      });
      return h("label", { class: "param" }, `${category} `, slider, shown);
    });
    root.append(h("div", { class: "small", "data-family": family }, h("strong", { text: label }), ...rows));
  }
}
