// Editing controls in the edge inspector, for curators: weight, tags, relation and fact in one form (a 400's
// problems shown by their field; a 409 — the fact changed meanwhile — reloads it and says so), invalidate from a
// date (default now), and delete after a confirmation. The inspector announces each server record it shows
// with an `edgeloaded` event; the form is added then, so viewers' inspectors stay read-only.

import { edgeApi, getJson } from "./api.js";
import { curation, curationConfig, localNow, problemsByField, refusal, utcStamp } from "./curation_api.js";
import { h } from "./dom.js";
import { renderEdge } from "./edge_inspector.js";

const FIELDS = ["relation", "fact", "weight", "tags"];

const tagList = (text) => text.split(",").map((tag) => tag.trim()).filter(Boolean);

// The fields the form changed, as the PATCH body wants them.
function changes(edge, inputs) {
  const patch = {};
  const relation = inputs.relation.value.trim();
  if (relation !== edge.relation) patch.relation = relation;
  if (inputs.fact.value !== (edge.fact || "")) patch.fact = inputs.fact.value;
  const weight = inputs.weight.value === "" ? null : Number(inputs.weight.value);
  if (weight !== edge.weight) patch.weight = weight;
  const tags = tagList(inputs.tags.value);
  if (tags.join(",") !== (edge.tags || []).join(",")) patch.tags = tags;
  return patch;
}

export class EdgeEditor {
  constructor(panel, group, { onChanged = () => {}, onDeleted = () => {} } = {}) {
    this.panel = panel;
    this.group = group;
    this.onChanged = onChanged;
    this.onDeleted = onDeleted;
    this.edge = null;
    this.say = () => {};
    this.isDirty = () => false;
    this.busy = false;
    panel.addEventListener("edgeloaded", (event) => this.attach(event.detail.edge));
  }

  // Draws the inspector for a server record, with the form and an optional note about what just happened.
  show(edge, note = null, isError = false) {
    renderEdge(this.panel, this.group, edge);
    this.panel.dataset.edge = edge.id;
    this.panel.dataset.loaded = "server";
    this.attach(edge, note, isError);
  }

  async reload(id, note, isError = true) {
    try {
      this.show(await getJson(edgeApi(this.group, id)), note, isError);
    } catch (error) {
      this.gone(id, error.status === 404 ? "This fact no longer exists." : `Could not reload it: ${error.message}`);
    }
  }

  gone(id, text) {
    this.edge = null;
    this.panel.replaceChildren(
      h("p", { class: "notice", "data-testid": "edge-deleted", text }),
      h("a", { href: `/g/${encodeURIComponent(this.group)}/audit/?item_id=${encodeURIComponent(id)}` }, "Its changes in the audit"),
    );
    this.panel.dataset.edge = "";
  }

  attach(edge, note = null, isError = false) {
    this.edge = edge;
    const inputs = {
      relation: h("input", { name: "relation", value: edge.relation, maxlength: "100", "data-testid": "edit-relation" }),
      fact: h("textarea", { name: "fact", rows: "3", "data-testid": "edit-fact" }, edge.fact || ""),
      weight: h("input", { name: "weight", type: "number", step: "0.05", min: "0.25", max: "1", value: edge.weight, "data-testid": "edit-weight" }),
      tags: h("input", { name: "tags", value: (edge.tags || []).join(", "), placeholder: "comma, separated", "data-testid": "edit-tags" }),
    };
    const errors = Object.fromEntries(FIELDS.map((field) => [field, h("span", { class: "field-error", "data-testid": `error-${field}` })]));
    const status = h("p", { class: isError ? "curation-status error" : "curation-status", role: "status", "data-testid": "curation-status" }, note || "");
    const label = (text, field) => h("label", { class: "field" }, text, inputs[field], errors[field]);
    const when = h("input", { type: "datetime-local", value: localNow(), "aria-label": "Invalid from", "data-testid": "invalidate-at" });
    const invalid = Boolean(edge.invalid_at);
    const say = (text, error = true) => {
      status.textContent = text;
      status.className = error ? "curation-status error" : "curation-status";
    };
    this.say = say;
    this.isDirty = () => Object.keys(changes(edge, inputs)).length > 0;
    const refused = (error) => {
      if (error.status === 400) {
        const found = problemsByField(error, FIELDS);
        for (const field of FIELDS) errors[field].textContent = (found[field] || []).join("; ");
        say((found[""] || []).join("; ") || "Not saved: check the fields marked.");
      } else if (error.status === 409) {
        this.reload(edge.id, `${refusal(error)} It has been reloaded as it is now: check it and try again.`);
      } else {
        say(refusal(error));
      }
    };
    const run = async (work, done) => {
      for (const span of Object.values(errors)) span.textContent = "";
      say("Saving…", false);
      this.busy = true; // this page's own change comes back on the socket too, maybe before the answer
      try {
        const answer = await work();
        done(answer);
      } catch (error) {
        refused(error);
      } finally {
        this.busy = false;
      }
    };
    const saved = (answer, what) => {
      const entry = answer.entry ? ` (audit entry #${answer.entry.id})` : " (nothing changed)";
      this.show(answer.edge, `${what}${entry}.`);
      this.onChanged(answer.edge);
    };
    const form = h(
      "form",
      {
        class: "curation-form",
        novalidate: true,
        "data-testid": "edge-edit",
        onsubmit: (event) => {
          event.preventDefault();
          const patch = changes(edge, inputs);
          if (!Object.keys(patch).length) return say("Nothing to save: no field changed.", false);
          return run(() => curation.editEdge(this.group, edge.id, { ...patch, version: edge.version }), (answer) => saved(answer, "Saved"));
        },
      },
      h("h3", {}, "Edit"),
      label("Relation", "relation"),
      label("Fact", "fact"),
      label("Weight (0.25–1)", "weight"),
      label("Tags", "tags"),
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "small", "data-testid": "edit-save" }, "Save")),
    );
    const actions = h(
      "div",
      { class: "curation-actions" },
      invalid
        ? h("p", { class: "muted small", text: "Already invalidated; undo it from the audit page." })
        : h("div", { class: "buttons" }, h("label", { class: "small" }, "Invalid from ", when),
            h("button", { type: "button", class: "small secondary", "data-testid": "edge-invalidate", onclick: () =>
              run(() => curation.invalidateEdge(this.group, edge.id, { invalid_at: utcStamp(when.value), version: edge.version }),
                (answer) => saved(answer, "Invalidated")) }, "Invalidate")),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "small danger", "data-testid": "edge-delete", onclick: () => {
          if (!window.confirm(`Delete the fact “${edge.relation}”? The audit page can undo it.`)) return;
          run(() => curation.deleteEdge(this.group, edge.id, edge.version), () => {
            this.gone(edge.id, "Deleted.");
            this.onDeleted(edge.id);
          });
        } }, "Delete…")),
    );
    this.panel.append(h("section", { class: "curation", "data-testid": "edge-curation" }, form, actions, status));
  }
}

// Curators only: the inspector in `panel` gains the editor; viewers get nothing (and null back).
export function enableEdgeEditing(panel, group, handlers) {
  return curationConfig().can_curate ? new EdgeEditor(panel, group, handlers) : null;
}
