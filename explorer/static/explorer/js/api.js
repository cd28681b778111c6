// The explorer's few calls to the JSON API (docs/explorer.md) and the URLs of its pages.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.message)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function getJson(url, params = {}, { signal } = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  const response = await fetch(text ? `${url}?${text}` : url, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    signal,
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

const segment = encodeURIComponent;

export const groupApi = (group) => `/api/groups/${segment(group)}`;
export const nodeApi = (group, id) => `${groupApi(group)}/nodes/${segment(id)}`;
export const neighboursApi = (group, id) => `${nodeApi(group, id)}/neighbours`;
export const edgeApi = (group, id) => `${groupApi(group)}/edges/${segment(id)}`;

const PAGES = { Entity: "entities", Episode: "episodes", Community: "communities" };

// The page of a node card (every kind has one).
export function pageUrl(group, card) {
  return `/g/${segment(group)}/${PAGES[card.kind] || "entities"}/${segment(card.id)}/`;
}

export const graphUrl = (group, params = {}) => `/g/${segment(group)}/graph/?${new URLSearchParams(params)}`;
