// Curation in the graph view: the inspector's editor (curators), "add a fact" between the two chosen path ends
// (curators), and live updates for everyone — each committed change redraws the edges and nodes it touched and
// reloads the inspected edge if it changed.

import { curation, curationConfig, problemsByField, refusal } from "./curation_api.js";
import { enableEdgeEditing } from "./curation_inspector.js";
import { applyToView, sameEdge, watchCuration } from "./curation_live.js";
import { h } from "./dom.js";
import { showEdge } from "./edge_inspector.js";

const NEW_FIELDS = ["relation", "fact", "weight", "tags", "source", "target"];

// The graph view's card of an edge the server answered with (ends as objects).
function cardOf(edge) {
  return {
    ...edge,
    kind: "RELATES",
    source: edge.source.id,
    target: edge.target.id,
    source_name: edge.source.name,
    target_name: edge.target.name,
    invalidated: Boolean(edge.invalid_at || edge.expired_at),
  };
}

function addEdgeForm({ view, group, ends, openEdge }) {
  const inputs = {
    relation: h("input", { name: "relation", "aria-label": "Relation", placeholder: "relation, e.g. supplies", "data-testid": "new-relation" }),
    fact: h("input", { name: "fact", "aria-label": "Fact", placeholder: "the fact as a sentence", "data-testid": "new-fact" }),
    weight: h("input", { name: "weight", "aria-label": "Weight", type: "number", step: "0.05", value: "0.5", "data-testid": "new-weight" }),
    tags: h("input", { name: "tags", "aria-label": "Tags", placeholder: "tags, comma separated", "data-testid": "new-tags" }),
  };
  const status = h("p", { class: "curation-status small", role: "status", "data-testid": "new-edge-status" });
  const form = h(
    "form",
    {
      class: "curation-form",
      novalidate: true,
      "data-testid": "add-edge",
      onsubmit: async (event) => {
        event.preventDefault();
        const { from, to } = ends();
        if (!from || !to) {
          status.textContent = "Choose both ends first: select a node, then “Path from here” / “Path to here”.";
          return;
        }
        const record = {
          source: from,
          target: to,
          relation: inputs.relation.value.trim(),
          weight: inputs.weight.value === "" ? null : Number(inputs.weight.value),
          tags: inputs.tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
        };
        if (inputs.fact.value.trim()) record.fact = inputs.fact.value.trim();
        status.textContent = "Adding…";
        try {
          const answer = await curation.createEdge(group, record);
          view.addEdges([cardOf(answer.edge)]);
          openEdge(answer.edge.id);
          status.textContent = `Added (audit entry #${answer.entry.id}).`;
          inputs.relation.value = "";
          inputs.fact.value = "";
        } catch (error) {
          const found = error.status === 400 ? problemsByField(error, NEW_FIELDS) : { "": [refusal(error)] };
          status.textContent = Object.values(found).flat().join("; ");
        }
      },
    },
    h("p", { class: "muted small", text: "Between the path ends chosen above (From → To)." }),
    ...Object.values(inputs),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "small", "data-testid": "new-edge-save" }, "Add fact")),
    status,
  );
  return h("fieldset", { class: "curation" }, h("legend", {}, "Add a fact"), form);
}

export function attachCuration({ view, group, panel, controls, ends, openEdge }) {
  let shown = null; // the inspected edge's record as last drawn
  panel.addEventListener("edgeloaded", (event) => { shown = event.detail.edge; });
  const editor = enableEdgeEditing(panel, group, {
    onChanged: (edge) => { shown = edge; },
    onDeleted: (id) => {
      if (view.hasEdge(id)) view.graph.dropEdge(id);
      view.changed();
    },
  });
  if (curationConfig().can_curate) controls.after(addEdgeForm({ view, group, ends, openEdge }));

  watchCuration(group, (frame) => {
    applyToView(view, frame);
    const id = panel.dataset.edge;
    if (!id || panel.hidden || !(id in (frame.edges || {})) || (editor && editor.busy)) return;
    const edge = frame.edges[id];
    const by = `by ${frame.entry.actor} (${frame.entry.action}, audit entry #${frame.entry.id})`;
    if (edge === null) {
      if (editor) editor.gone(id, `This fact was deleted ${by}.`);
      else panel.replaceChildren(h("p", { class: "notice", "data-testid": "edge-deleted", text: `This fact was deleted ${by}.` }));
      panel.dataset.edge = "";
    } else if (sameEdge(shown, edge)) {
      // what is shown is already current (e.g. this page's own save)
    } else if (editor && editor.isDirty()) {
      // Keep the curator's unsaved input: saving will answer 409 and reload the fact.
      editor.say(`Changed ${by} while you were editing: saving will be refused; your input is kept until then.`);
    } else {
      showEdge(panel, group, view.edge(id) || { id, ...edge }).then(() => {
        panel.dataset.liveUpdate = String(frame.entry.id);
      });
    }
  });
}
