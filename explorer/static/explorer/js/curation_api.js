// The curation API's writes (docs/curation.md), sent with the session cookie and the page's CSRF token. Pages
// learn whether the user may curate from the server (`curation-config`, rendered from the user's role); viewers
// get no editing controls, and the server refuses their writes anyway (403).

import { ApiError, edgeApi, groupApi } from "./api.js";

export function curationConfig() {
  const element = document.getElementById("curation-config");
  return element ? JSON.parse(element.textContent) : { can_curate: false, csrf: "" };
}

// A JSON write with the session cookie and the CSRF token; a refusal throws ApiError with the server's detail.
export async function send(method, url, body) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": curationConfig().csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

const segment = encodeURIComponent;

export const curation = {
  editEdge: (group, id, patch) => send("PATCH", edgeApi(group, id), patch),
  invalidateEdge: (group, id, body) => send("POST", `${edgeApi(group, id)}/invalidate`, body),
  deleteEdge: (group, id, version) => send("DELETE", edgeApi(group, id), { version }),
  createEdge: (group, record) => send("POST", `${groupApi(group)}/edges`, record),
  mergeEntity: (group, id, from) => send("POST", `${groupApi(group)}/entities/${segment(id)}/merge`, { from }),
  undo: (group, entryId) => send("POST", `${groupApi(group)}/audit/${segment(entryId)}/undo`),
};

// A 400's problems by the form field each names ("edge.weight: 1.5 is outside …" → weight); the rest under "".
export function problemsByField(error, fields) {
  const problems = (error.body && error.body.errors) || [error.message];
  const found = {};
  for (const problem of problems) {
    const name = /^\s*(?:[\w.]*\.)?(\w+)(?:\[\d+\])?\s*:/.exec(problem);
    const field = name && fields.includes(name[1]) ? name[1] : "";
    (found[field] = found[field] || []).push(problem);
  }
  return found;
}

// What a refused write says to a person: a 409 names what changed meanwhile, a 403 the missing role.
export function refusal(error) {
  if (error.status === 409) return `Not saved: ${error.message}`;
  if (error.status === 403) return "Not saved: changing the memory graph needs the curator role.";
  return `Not saved: ${error.message}`;
}

// "2026-11-21T10:30" from a datetime-local input (the person's time) → "2026-11-21T09:30:00Z".
export function utcStamp(localValue) {
  const time = new Date(localValue);
  return Number.isNaN(time.getTime()) ? localValue : `${time.toISOString().slice(0, 19)}Z`;
}

export function localNow() {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}
