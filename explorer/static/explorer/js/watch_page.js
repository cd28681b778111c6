// The watch page: every retrieval of the group, whoever runs it (people here, agents through the API), listed as
// it starts over the watch socket (docs/websocket.md), with the server's journal of recent ones; choosing one
// replays it in the live view, and a running one keeps playing as its events arrive.

import { h } from "./dom.js";
import { milliseconds } from "./live_panels.js";
import { JsonSocket } from "./live_socket.js";
import { LiveView } from "./live_view.js";
import { EVENT, FRAME } from "./names.js";

const config = JSON.parse(document.getElementById("watch-config").textContent);
const group = config.group;
const $ = (selector) => document.querySelector(selector);
const RECONNECT_MS = 2000;

const retrievals = new Map(); // id → {summary, events, seen (their JSON), complete (we hold its start)}
let shown = null;

const live = new LiveView($("[data-live-root]"), { group, stepMs: Number($("[data-pace]").value) });

function entry(id) {
  if (!retrievals.has(id)) retrievals.set(id, { summary: { retrieval_id: id, status: "running" }, events: [], seen: new Set(), complete: false });
  return retrievals.get(id);
}

// Keep an event once (a replay and the live stream may both hold it); true when it was new.
function keep(item, event) {
  const key = JSON.stringify(event);
  if (item.seen.has(key)) return false;
  item.seen.add(key);
  item.events.push(event);
  return true;
}

function summaryFromStart(event) {
  const keys = ["retrieval_id", "algorithm", "requested_by", "query", "seeds", "query_tags", "params", "explain", "time"];
  return { ...Object.fromEntries(keys.map((key) => [key, event[key]])), started_at: new Date().toISOString().slice(0, 19) + "Z", status: "running" };
}

function describe(summary) {
  if (summary.query) return `“${summary.query}”`;
  const seeds = summary.seeds || [];
  return seeds.length ? `seeds ${seeds.map((seed) => seed.id).join(", ")}` : summary.retrieval_id;
}

// A parameter as people read it: PPR's β is a map of categories ("betas (structural 0.5, temporal 0.2)").
function paramText(value) {
  if (Array.isArray(value)) return value.map(paramText).join(", ");
  if (value && typeof value === "object") return `(${Object.entries(value).map(([key, item]) => `${key} ${paramText(item)}`).join(", ")})`;
  return typeof value === "number" ? String(Number(value.toPrecision(4))) : String(value);
}

// The moment a run walked at (docs/retrieval.md, "Time"): as of when, as known when, or every fact.
function timeText(time) {
  if (!time) return "";
  if (time.include_invalidated) return "every fact";
  const known = time.known_at && time.known_at !== time.as_of ? ` (known ${time.known_at.slice(0, 16).replace("T", " ")})` : "";
  return `as of ${(time.as_of || "").slice(0, 16).replace("T", " ")}${known}`;
}

function drawList() {
  const items = [...retrievals.values()].sort((a, b) => (b.summary.started_at || "").localeCompare(a.summary.started_at || ""));
  $("[data-watch-list]").replaceChildren(
    ...items.map(({ summary }) => {
      const params = summary.params ? Object.entries(summary.params).map(([key, value]) => `${key} ${paramText(value)}`).join(", ") : "";
      return h("li", { class: summary.retrieval_id === shown ? "watched selected" : "watched", "data-retrieval": summary.retrieval_id, "data-status": summary.status },
        h("div", {},
          h("span", { class: `badge status-${summary.status}`, text: summary.status }), " ",
          h("strong", { text: summary.requested_by || "someone" }), " ",
          h("span", { class: "muted small", text: (summary.started_at || "").slice(11, 19) })),
        h("div", { class: "small", text: describe(summary) }),
        h("div", { class: "muted small", "data-testid": "watch-time", text: timeText(summary.time) }),
        h("div", { class: "muted small", text: [summary.algorithm, params, summary.paths !== null && summary.paths !== undefined ? `${summary.paths} paths` : null,
          summary.elapsed_ms !== null && summary.elapsed_ms !== undefined ? milliseconds(summary.elapsed_ms) : null].filter(Boolean).join(" · ") }),
        h("button", { type: "button", class: "small", "data-testid": "replay", onclick: () => show(summary.retrieval_id) },
          summary.status === "running" ? "Follow live" : "Replay"));
    }),
  );
  if (!items.length) $("[data-watch-list]").replaceChildren(h("li", { class: "muted small", text: "No retrieval yet. Run one on the live page, or through the API." }));
}

// Play a retrieval from its start: from what this page saw if it saw the start, else from the server's journal.
function show(id) {
  const item = retrievals.get(id);
  shown = id;
  live.stop();
  drawList();
  if (item && item.complete) {
    for (const event of item.events) live.push(event);
  } else {
    socket.send({ type: FRAME.REPLAY, retrieval_id: id });
  }
}

function onFrame(frame) {
  if (frame.type === FRAME.WATCHING) {
    $("[data-watch-connection]").textContent = `Watching ${frame.group} live.`;
    socket.send({ type: FRAME.LIST });
    return;
  }
  if (frame.type === FRAME.RETRIEVALS) {
    for (const summary of frame.retrievals) {
      const item = entry(summary.retrieval_id);
      item.summary = { ...item.summary, ...summary };
    }
    drawList();
    return;
  }
  if (frame.type === FRAME.REPLAY) {
    const item = entry(frame.retrieval_id);
    const liveAfter = item.events.filter((event) => !frame.events.some((replayed) => JSON.stringify(replayed) === JSON.stringify(event)));
    item.events = [];
    item.seen = new Set();
    for (const event of [...frame.events, ...liveAfter]) keep(item, event);
    item.complete = item.events.length > 0 && item.events[0].type === EVENT.RETRIEVAL_STARTED;
    if (frame.retrieval_id === shown) for (const event of item.events) live.push(event);
    return;
  }
  if (frame.type === FRAME.ERROR) {
    $("[data-watch-connection]").textContent = frame.message;
    return;
  }
  if (!frame.retrieval_id) return; // curation changes and the like: not this page's business
  const started = frame.type === EVENT.RETRIEVAL_STARTED;
  if (!started && !retrievals.has(frame.retrieval_id)) return; // began before we watched: the list will bring it
  const item = entry(frame.retrieval_id);
  if (started) {
    item.summary = summaryFromStart(frame);
    item.events = [];
    item.seen = new Set();
    item.complete = true;
  }
  if (!keep(item, frame)) return;
  if (frame.type === EVENT.RETRIEVAL_FINISHED) {
    Object.assign(item.summary, { status: frame.status, elapsed_ms: frame.elapsed_ms, paths: frame.paths });
  }
  if (started || frame.type === EVENT.RETRIEVAL_FINISHED) drawList();
  if (started && $("[data-follow]").checked && (!shown || live.el.root.dataset.liveState !== "running")) {
    show(frame.retrieval_id);
  } else if (frame.retrieval_id === shown && item.complete) {
    live.push(frame);
  }
}

const socket = new JsonSocket(`/ws/retrievals/watch/?group=${encodeURIComponent(group)}`, {
  onFrame,
  onClose: (event) => {
    $("[data-watch-connection]").textContent = `Disconnected (${event.code}); reconnecting…`;
    if (event.code !== 4401 && event.code !== 4404) setTimeout(() => socket.ready().catch(() => {}), RECONNECT_MS);
  },
});

$("[data-pace]").addEventListener("change", (event) => live.setStep(Number(event.target.value)));
drawList();
socket.ready().catch((error) => { $("[data-watch-connection]").textContent = error.message; });

// For the browser tests and the console.
window.memoriaWatch = { live, retrievals, show };
document.body.dataset.watchReady = "true";
