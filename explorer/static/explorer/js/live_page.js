// The live retrieval page: a query or chosen seeds, the algorithm and its settings; running it opens the
// retrieval socket (docs/websocket.md) and plays the events into a LiveView. Changing a setting re-runs and
// shows what the change gained and lost.

import { getJson, graphUrl, groupApi } from "./api.js";
import { AsOfControl } from "./as_of.js";
import { h } from "./dom.js";
import { JsonSocket } from "./live_socket.js";
import { PprPanel } from "./live_ppr.js";
import { LiveView } from "./live_view.js";
import { ALGORITHM, ERROR, EVENT, FRAME } from "./names.js";

const config = JSON.parse(document.getElementById("live-config").textContent);
const group = config.group;
const $ = (selector) => document.querySelector(selector);
const form = $("[data-live-form]");

// Algorithms the page knows how to ask for. The server lists those it runs (explorer/consumers.py ALGORITHMS);
// a known one it does not run yet is shown but disabled.
const ALGORITHMS = {
  activation: { label: "Activation Energy", params: ["max_depth", "min_activation", "tag_sim_floor", "max_branches"] },
  ppr: { label: "Personalized PageRank", params: [] },
};

const seeds = []; // {id, name, score}
let current = null; // the retrieval id this page is showing
let currentAlgorithm = null; // of that retrieval: its frames go to the LiveView or to the PPR panel
let pprRan = false;
let lastFinished = null;
let rerunTimer = null;
let serverFinished = false; // the server sent the current run's last frame; its playback may still be going

const live = new LiveView($("[data-live-root]"), {
  group,
  stepMs: Number($("[data-pace]").value),
  nodeActions: (card) => [
    h("button", { type: "button", class: "small", "data-testid": "use-as-seed", onclick: () => addSeed(card) }, "Use as seed"),
    h("button", { type: "button", class: "small secondary", onclick: () => { seeds.length = 0; addSeed(card); run(); } }, "Retrieve from here"),
    h("a", { class: "button small", href: graphUrl(group, { node: card.id }) }, "Graph view"),
  ],
  onFinished: (finishedRun) => {
    if (finishedRun.finished.status === "completed") lastFinished = finishedRun; // a cancelled run is no baseline
    $("[data-cancel]").disabled = true;
  },
});

const ppr = new PprPanel(live, {
  betasRoot: $("[data-ppr-betas]"),
  moment: () => asOf.parameters(),
  onBetas: () => run({ auto: true }),
  onEnd: () => {
    pprRan = true;
    $("[data-cancel]").disabled = true;
  },
});

// ---- algorithm and settings -------------------------------------------------------------------------------

const algorithmSelect = form.elements.algorithm;
for (const name of new Set([...config.algorithms, ...Object.keys(ALGORITHMS)])) {
  const available = config.algorithms.includes(name);
  const label = ALGORITHMS[name] ? ALGORITHMS[name].label : name;
  algorithmSelect.append(h("option", { value: name, disabled: !available }, available ? label : `${label} (not on this server yet)`));
}
// ?algorithm=ppr opens the page on another algorithm the server runs (links from other pages).
const wantedAlgorithm = new URLSearchParams(window.location.search).get("algorithm");
algorithmSelect.value = config.algorithms.includes(wantedAlgorithm) ? wantedAlgorithm : config.algorithms[0];

function showAlgorithm() {
  for (const fieldset of document.querySelectorAll("[data-params]")) fieldset.hidden = fieldset.dataset.params !== algorithmSelect.value;
  ppr.show(algorithmSelect.value === ALGORITHM.PPR);
}
algorithmSelect.addEventListener("change", showAlgorithm);
showAlgorithm();

for (const [name, bound] of Object.entries(config.bounds)) {
  const input = form.elements[name];
  input.min = String(bound.low);
  input.max = String(bound.high);
  input.value = String(config.defaults[name]);
}

// What is wrong with the settings (each refused field is marked aria-invalid as well).
function settingProblems() {
  const problems = [];
  for (const name of ALGORITHMS[algorithmSelect.value].params) {
    const input = form.elements[name];
    const bound = config.bounds[name];
    const value = Number(input.value);
    const lowOk = bound.low_allowed ? value >= bound.low : value > bound.low;
    const bad = input.value === "" || !Number.isFinite(value) || !lowOk || value > bound.high || (input.step === "1" && !Number.isInteger(value));
    input.setAttribute("aria-invalid", String(bad));
    if (bad) {
      problems.push(`${name.toUpperCase()}: ${input.value || "(empty)"} is outside ${bound.low_allowed ? "[" : "("}${bound.low}, ${bound.high}]`);
    }
  }
  for (const seed of seeds) {
    if (!(seed.score > 0 && seed.score <= 1)) problems.push(`seed ${seed.name}: score must be in (0, 1]`);
  }
  if (algorithmSelect.value === ALGORITHM.PPR) problems.push(...pprProblems());
  return problems;
}

function paramProblems() {
  const problems = settingProblems();
  if (algorithmSelect.value !== ALGORITHM.PPR && !seeds.length && !form.elements.query.value.trim()) {
    problems.push("Give a query or choose seeds.");
  }
  return problems;
}

function pprProblems() {
  const problems = [];
  const damping = Number(form.elements.damping.value);
  const topK = Number(form.elements.top_k.value);
  if (form.elements.damping.value === "" || !(damping > 0 && damping < 1)) problems.push("DAMPING: must be strictly between 0 and 1");
  if (!Number.isInteger(topK) || topK < 1 || topK > 1000) problems.push("TOP_K: a whole number in [1, 1000]");
  return problems;
}

// PPR's request (docs/websocket.md): seeds as given, else the query; relation-aware sends both, and the β the
// user set with the sliders. Its fields are the REST body's: POST /api/retrieval/ppr answers the same.
function pprBody() {
  const query = form.elements.query.value.trim();
  const relationAware = form.elements.relation_aware.checked;
  return {
    type: FRAME.RETRIEVE,
    algorithm: ALGORITHM.PPR,
    group,
    ...(seeds.length ? { seeds: seeds.map((seed) => ({ id: seed.id, weight: seed.score })) } : {}),
    ...(query && (relationAware || !seeds.length) ? { query } : {}),
    damping: Number(form.elements.damping.value),
    top_k: Number(form.elements.top_k.value),
    ...(relationAware ? { relation_aware: true } : {}),
    ...(relationAware && ppr.userBetas ? { betas: ppr.userBetas } : {}),
    ...asOf.parameters(),
  };
}

function requestBody() {
  if (algorithmSelect.value === ALGORITHM.PPR) return pprBody();
  const algorithm = ALGORITHMS[algorithmSelect.value];
  const params = Object.fromEntries(algorithm.params.map((name) => [name, Number(form.elements[name].value)]));
  const tags = form.elements.query_tags.value.split(/[\s,]+/).filter(Boolean);
  const query = form.elements.query.value.trim();
  return {
    type: FRAME.RETRIEVE,
    algorithm: algorithmSelect.value,
    group,
    ...(query ? { query } : {}),
    ...(seeds.length ? { seeds: seeds.map((seed) => ({ id: seed.id, score: seed.score })) } : {}),
    ...(tags.length ? { query_tags: tags } : {}),
    params,
    explain: form.elements.explain.checked,
    ...asOf.parameters(),
  };
}

// ---- seeds ------------------------------------------------------------------------------------------------

function drawSeeds() {
  $("[data-seed-list]").replaceChildren(
    ...seeds.map((seed, index) =>
      h("li", { "data-seed": seed.id },
        h("span", { class: "seed-name", title: seed.id, text: seed.name }),
        h("input", { type: "number", min: "0", max: "1", step: "any", value: String(seed.score), "aria-label": `score of ${seed.name}`,
          oninput: (event) => { seed.score = Number(event.target.value); settingsChanged(); } }),
        h("button", { type: "button", class: "small secondary", "aria-label": `remove ${seed.name}`,
          onclick: () => { seeds.splice(index, 1); drawSeeds(); settingsChanged(); } }, "×"))),
  );
}

function addSeed(card) {
  if (seeds.some((seed) => seed.id === card.id)) return;
  if (seeds.length >= config.max_seeds) {
    showError(`At most ${config.max_seeds} seeds.`);
    return;
  }
  seeds.push({ id: card.id, name: card.name || card.id, score: 1 });
  drawSeeds();
}

async function findSeeds() {
  const query = $("[data-seed-search]").value.trim();
  const list = $("[data-seed-results]");
  if (!query) return;
  list.replaceChildren(h("li", { class: "muted small", text: "Searching…" }));
  try {
    const found = await getJson("/api/search", { q: query, group, scope: "entities", limit: 8 });
    list.replaceChildren(
      ...found.entities.map((hit) =>
        h("li", {}, h("button", { type: "button", class: "link-like", onclick: () => { addSeed(hit); list.replaceChildren(); } }, hit.name))),
    );
    if (!found.entities.length) list.replaceChildren(h("li", { class: "muted small", text: "No entity found." }));
  } catch (error) {
    list.replaceChildren(h("li", { class: "error small", text: error.message }));
  }
}

$("[data-seed-find]").addEventListener("click", findSeeds);
$("[data-seed-search]").addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    event.preventDefault(); // not the form's submit
    findSeeds();
  }
});

// ---- running ----------------------------------------------------------------------------------------------

function showError(message) {
  $("[data-live-error]").textContent = message || "";
}

// Cancel stops what is on screen at once. The server is asked too while it is still running the retrieval; once
// it has finished, only the playback was left (before, Cancel then said "no retrieval with this id is running"
// and the animation went on).
function cancelRun() {
  if (!current) return;
  if (!serverFinished) socket.send({ type: FRAME.CANCEL, retrieval_id: current });
  stopPlayback(serverFinished);
}

function stopPlayback(serverHadFinished) {
  live.stop();
  live.setState("stopped");
  $("[data-cancel]").disabled = true;
  live.el.status.textContent = serverHadFinished
    ? "Playback stopped; the server had already finished this retrieval."
    : "Cancelled.";
}

function onFrame(frame) {
  if (frame.type === FRAME.ERROR && frame.code === ERROR.UNKNOWN_RETRIEVAL && frame.retrieval_id === current) {
    stopPlayback(true); // the cancel crossed the run's last frame on the wire
    return;
  }
  if (frame.type === FRAME.ERROR) {
    if (!frame.retrieval_id || frame.retrieval_id === current) {
      showError(frame.errors ? frame.errors.join("; ") : frame.message);
      live.setState("error");
      // Not "Finding seeds…" beside the refusal (issue 32): nothing runs.
      live.el.status.textContent = "Not run: the server refused the request (the message above says why).";
      $("[data-cancel]").disabled = true;
    }
    return;
  }
  if (frame.retrieval_id !== current) return; // a cancelled run's stragglers
  if (frame.type === EVENT.RETRIEVAL_FINISHED) serverFinished = true;
  if (live.el.root.dataset.liveState === "stopped") return; // cancelled: nothing more is drawn
  if (currentAlgorithm === ALGORITHM.PPR) {
    ppr.apply(frame);
    return;
  }
  if (frame.type === EVENT.RETRIEVAL_STARTED) {
    const tags = frame.query_tags.length ? frame.query_tags.join(", ") : "none";
    const source = { caller: "given", query: "derived from the query", none: "no query" }[frame.tag_source] || frame.tag_source;
    $("[data-tags-used]").textContent = `Tags used: ${tags} (${source}).`;
  }
  live.push(frame);
}

const socket = new JsonSocket("/ws/retrievals/", {
  onFrame,
  onClose: (event) => {
    if (current && live.el.root.dataset.liveState === "running") {
      showError(`The connection closed (${event.code}); run again to reconnect.`);
      live.stop();
      live.setState("error");
    }
  },
});

// ---- the run in the URL --------------------------------------------------------------------------------------
// Each run writes its query, seeds, algorithm and settings into the URL with run=1, so back and forward re-run
// the runs before and after, and a copied link re-runs the same retrieval (docs/explorer.md). A run the user
// starts is a new history entry; a re-run after a setting changed replaces the entry, as a slider does.

function runQuery() {
  const params = new URLSearchParams();
  const query = form.elements.query.value.trim();
  if (query) params.set("q", query);
  for (const seed of seeds) params.append("seed", seed.id);
  if (seeds.some((seed) => seed.score !== 1)) params.set("scores", seeds.map((seed) => seed.score).join(","));
  params.set("algorithm", algorithmSelect.value);
  const ppr = algorithmSelect.value === ALGORITHM.PPR;
  for (const name of ppr ? ["damping", "top_k"] : ALGORITHMS[algorithmSelect.value].params) {
    params.set(name, form.elements[name].value);
  }
  if (ppr && form.elements.relation_aware.checked) params.set("relation_aware", "1");
  if (!ppr && form.elements.query_tags.value.trim()) params.set("tags", form.elements.query_tags.value.trim());
  if (!ppr) params.set("explain", form.elements.explain.checked ? "1" : "0");
  const stamp = asOf.value();
  if (stamp) params.set("as_of", stamp);
  params.set("run", "1");
  return params.toString();
}

function recordRun(push) {
  const url = new URL(window.location.href);
  url.search = runQuery();
  if (url.href === window.location.href) return;
  window.history[push ? "pushState" : "replaceState"]({ liveRun: true }, "", url);
}

// Fill the form from a URL (a link, or back and forward); whether it asks to run.
async function applyUrl(search) {
  const params = new URLSearchParams(search);
  const algorithm = params.get("algorithm");
  if (config.algorithms.includes(algorithm)) algorithmSelect.value = algorithm;
  showAlgorithm();
  form.elements.query.value = params.get("q") || "";
  for (const name of ["max_depth", "min_activation", "tag_sim_floor", "max_branches", "damping", "top_k"]) {
    form.elements[name].value = params.get(name) ?? String(config.defaults[name] ?? form.elements[name].defaultValue);
  }
  form.elements.query_tags.value = params.get("tags") || "";
  form.elements.explain.checked = params.get("explain") !== "0";
  form.elements.relation_aware.checked = params.get("relation_aware") === "1";
  asOf.show(params.get("as_of"));
  seeds.length = 0;
  const ids = params.getAll("seed").filter(Boolean).slice(0, config.max_seeds);
  const scores = (params.get("scores") || "").split(",").map(Number);
  if (ids.length) {
    const found = await getJson(`${groupApi(group)}/nodes`, { ids: ids.join(",") });
    for (const card of found.nodes) addSeed(card);
    for (const seed of seeds) {
      const score = scores[ids.indexOf(seed.id)];
      if (score > 0 && score <= 1) seed.score = score;
    }
    drawSeeds();
    if (found.missing.length) showError(`Not in ${group}: ${found.missing.join(", ")}`);
  } else {
    drawSeeds();
  }
  return params.get("run") === "1" && (seeds.length || form.elements.query.value.trim());
}

window.addEventListener("popstate", async () => {
  if (await applyUrl(window.location.search)) run({ fromHistory: true });
});

// `auto`: a re-run after a setting changed (replaces the URL's entry); `fromHistory`: back or forward.
async function run({ auto = false, fromHistory = false } = {}) {
  clearTimeout(rerunTimer);
  const problems = paramProblems();
  if (problems.length) {
    showError(problems.join(" "));
    return;
  }
  showError("");
  delete live.el.root.dataset.stale;
  if (!fromHistory) recordRun(!auto);
  if (current && live.el.root.dataset.liveState === "running") await socket.send({ type: FRAME.CANCEL, retrieval_id: current });
  live.stop();
  current = `live-${Math.random().toString(36).slice(2, 12)}`;
  serverFinished = false;
  live.setState("starting");
  currentAlgorithm = algorithmSelect.value;
  if (lastFinished && currentAlgorithm === ALGORITHM.ACTIVATION) live.compareNextWith(lastFinished);
  live.el.status.textContent = seeds.length ? "Starting…" : "Finding seeds for the query…";
  $("[data-cancel]").disabled = false;
  try {
    await socket.send({ ...requestBody(), retrieval_id: current });
  } catch (error) {
    showError(`Could not reach the server: ${error.message}`);
    $("[data-cancel]").disabled = true;
  }
}

// Settings are checked as they change: a refused one is said at once and, with "re-run when a setting changes",
// the run on screen is marked as the last good settings' rather than left as if current (before, issue 32,
// MIN_ACTIVATION -5, 0 or empty and MAX_DEPTH 999 gave no message and no run).
function settingsChanged() {
  const problems = settingProblems();
  showError(problems.join(" "));
  const ran = algorithmSelect.value === ALGORITHM.PPR ? pprRan : lastFinished;
  if (!ran || !$("[data-rerun]").checked) return;
  clearTimeout(rerunTimer);
  if (problems.length) {
    live.el.root.dataset.stale = "true";
    live.el.status.textContent = "Not re-run: a setting is refused (above). Shown: the run with the last good settings.";
    return;
  }
  rerunTimer = setTimeout(() => { if (!paramProblems().length) run({ auto: true }); }, 450);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  run();
});
$("[data-cancel]").addEventListener("click", cancelRun);
// The moment the retrieval walks at (as_of.js, kept in the URL): moving it re-runs, as a setting does.
const asOf = new AsOfControl({ input: $("[data-as-of]"), clear: $("[data-as-of-clear]"), onChange: settingsChanged });
for (const fieldset of document.querySelectorAll("[data-params]")) fieldset.addEventListener("input", settingsChanged);
form.elements.explain.addEventListener("change", settingsChanged);
form.elements.relation_aware.addEventListener("change", () => ppr.resetBetas()); // the next run chooses β again
form.elements.query.addEventListener("change", () => ppr.resetBetas());
$("[data-pace]").addEventListener("change", (event) => live.setStep(Number(event.target.value)));

// ---- start ------------------------------------------------------------------------------------------------

async function start() {
  const runNow = await applyUrl(window.location.search);
  document.body.dataset.liveReady = "true";
  if (runNow) await run({ fromHistory: true }); // the link is the run: no second entry for it
}

// For the browser tests and the console.
window.memoriaLive = { live, ppr, run, seeds, addSeed, requestBody, asOf, serverFinished: () => serverFinished };
start().catch((error) => {
  showError(error.message);
  document.body.dataset.liveReady = "error";
});
