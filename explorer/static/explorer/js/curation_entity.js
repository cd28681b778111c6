// Curation on an entity page: live updates for everyone (a change to this entity or to a fact on its time line
// redraws the page's head and time line in place; a merge that removed it says where it went), and for curators
// "merge a duplicate into this entity", the duplicate picked by search.

import { getJson } from "./api.js";
import { curation, refusal } from "./curation_api.js";
import { watchCuration } from "./curation_live.js";
import { h } from "./dom.js";

const box = document.querySelector("[data-curation-entity]");
const { group, entity, name } = box.dataset;
const notice = box.querySelector("[data-live-notice]");
const REDRAWN = [".page-head", '[data-testid="timeline"]'];

function tell(text) {
  notice.textContent = text;
  notice.hidden = false;
}

// Fetches the page again and swaps the parts that show data (the mini graph keeps its canvas).
async function redraw() {
  const response = await fetch(window.location.href, { credentials: "same-origin" });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const selector of REDRAWN) {
    const now = document.querySelector(selector);
    const next = fresh.querySelector(selector);
    if (now && next) now.replaceWith(document.adoptNode(next));
  }
}

function touchesPage(frame) {
  if (entity in (frame.nodes || {})) return true;
  const shown = new Set([...document.querySelectorAll("[data-testid=timeline] [data-edge]")].map((row) => row.dataset.edge));
  return Object.entries(frame.edges || {}).some(
    ([id, edge]) => shown.has(id) || (edge && (edge.source === entity || edge.target === entity)),
  );
}

watchCuration(group, async (frame) => {
  const entry = frame.entry;
  if (frame.nodes && frame.nodes[entity] === null) {
    const kept = entry.action === "entity.merge" && entry.item_id !== entity ? entry.item_id : null;
    tell(`${entry.actor} ${kept ? "merged this entity into another" : "removed this entity"} (audit entry #${entry.id}).`);
    if (kept) notice.append(" ", h("a", { href: `/g/${encodeURIComponent(group)}/entities/${encodeURIComponent(kept)}/` }, "Open it"));
    return;
  }
  if (!touchesPage(frame)) return;
  await redraw();
  box.dataset.liveUpdate = String(entry.id);
});

// ---- merge (curators) ---------------------------------------------------------------------------------------

const search = box.querySelector("[data-merge-search]");
if (search) {
  const results = box.querySelector("[data-merge-results]");
  const status = box.querySelector("[data-merge-status]");
  const merge = async (hit) => {
    if (!window.confirm(`Merge “${hit.name}” into “${name}”? “${hit.name}” will be deleted.`)) return;
    status.textContent = "Merging…";
    try {
      const answer = await curation.mergeEntity(group, entity, hit.id);
      status.textContent = `Merged “${hit.name}” into this entity (audit entry #${answer.entry.id}).`;
      results.replaceChildren();
      await redraw();
    } catch (error) {
      status.textContent = refusal(error);
    }
  };
  search.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = new FormData(search).get("q");
    if (!query) return;
    results.replaceChildren(h("li", { class: "muted small", text: "Searching…" }));
    try {
      const found = await getJson("/api/search", { q: query, group, scope: "entities", limit: 8 });
      const hits = found.entities.filter((hit) => hit.id !== entity);
      results.replaceChildren(
        ...hits.map((hit) =>
          h("li", {}, h("button", { type: "button", class: "link-like", "data-merge": hit.id, onclick: () => merge(hit) },
            `Merge “${hit.name}” into this`))),
      );
      if (!hits.length) results.replaceChildren(h("li", { class: "muted small", text: "No other entity found." }));
    } catch (error) {
      results.replaceChildren(h("li", { class: "error small", text: error.message }));
    }
  });
}
