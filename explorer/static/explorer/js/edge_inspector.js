// The edge inspector: a fact's relation, sentence, weight, tags, validity and the episodes it came from.
// `showEdge(panel, group, edge)` draws the card the view already holds at once, then asks the server for the
// full record (GET /api/groups/<g>/edges/<id>, which also names the episodes) and redraws with it.

import { edgeApi, getJson, pageUrl } from "./api.js";
import { day, h, number } from "./dom.js";

function end(group, node) {
  return h("a", { href: pageUrl(group, { kind: "Entity", ...node }) }, node.name || node.id);
}

function row(label, ...value) {
  return [h("dt", { text: label }), h("dd", {}, ...value)];
}

function episodeList(group, episodes) {
  if (!episodes.length) return h("p", { class: "muted small", text: "No episode recorded." });
  return h(
    "ul",
    { class: "episodes", "data-testid": "edge-episodes" },
    episodes.map((episode) =>
      h(
        "li",
        {},
        episode.found === false
          ? h("span", { class: "muted", text: `${episode.id} (deleted)` })
          : h("a", { href: pageUrl(group, { kind: "Episode", id: episode.id }) }, episode.name || episode.id),
        episode.valid_at ? h("span", { class: "muted small", text: ` ${day(episode.valid_at)}` }) : null,
      ),
    ),
  );
}

// `edge` is either an edge card (ends as ids and names) or the server's record (ends as objects).
export function renderEdge(panel, group, edge) {
  const source = typeof edge.source === "object" ? edge.source : { id: edge.source, name: edge.source_name };
  const target = typeof edge.target === "object" ? edge.target : { id: edge.target, name: edge.target_name };
  const invalidated = Boolean(edge.invalid_at || edge.expired_at);
  const episodes = (edge.episodes || []).map((item) => (typeof item === "string" ? { id: item } : item));
  const validity = `${edge.valid_at ? day(edge.valid_at) : "unknown start"} → ${edge.invalid_at ? day(edge.invalid_at) : "now"}`;
  panel.replaceChildren(
    h("h2", {}, "Fact ", h("span", { class: "relation", "data-testid": "edge-relation", text: edge.relation })),
    h("p", { class: invalidated ? "fact invalidated" : "fact" },
      invalidated ? h("del", {}, edge.fact || "(no sentence)") : edge.fact || "(no sentence)"),
    h(
      "dl",
      { class: "inspector" },
      row("From", end(group, source)),
      row("To", end(group, target)),
      row("Weight", h("span", { "data-testid": "edge-weight", text: number(edge.weight) })),
      row("Category", (edge.category || "none").toLowerCase()),
      row("Tags", ...(edge.tags && edge.tags.length ? edge.tags.map((tag) => h("span", { class: "tag", text: tag })) : ["none"])),
      row("Valid", h("span", { "data-testid": "edge-validity", text: validity })),
      invalidated ? row("Status", h("span", { class: "badge invalid", text: `invalidated${edge.expired_at ? ` ${day(edge.expired_at)}` : ""}` })) : null,
      edge.created_at ? row("Recorded", day(edge.created_at)) : null,
    ),
    h("h3", {}, "Episodes it came from"),
    episodeList(group, episodes),
    h("p", { class: "muted small" }, `id ${edge.id}`),
  );
  panel.hidden = false;
  panel.dataset.drawn = String(Number(panel.dataset.drawn || 0) + 1);
}

export async function showEdge(panel, group, edge) {
  renderEdge(panel, group, edge);
  panel.dataset.edge = edge.id;
  panel.dataset.loaded = "card";
  const drawn = panel.dataset.drawn;
  try {
    const full = await getJson(edgeApi(group, edge.id));
    // Drawn again meanwhile (another edge opened, or a curator's save showed the record it answered): that is newer.
    if (panel.dataset.drawn !== drawn) return;
    renderEdge(panel, group, full);
    panel.dataset.loaded = "server";
    // Curation (curation_inspector.js) adds its controls to a server record; the inspector itself stays read-only.
    panel.dispatchEvent(new CustomEvent("edgeloaded", { detail: { group, edge: full } }));
  } catch (error) {
    panel.dataset.loaded = `card (${error.status || "offline"})`;
  }
}
