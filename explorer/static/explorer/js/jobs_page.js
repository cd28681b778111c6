// The jobs page (docs/explorer.md): the group's background jobs, newest first, kept up to date by the `job`
// frames of the group's watch socket (docs/websocket.md); start one, cancel one, download an export.

import { ApiError, getJson, groupApi } from "./api.js";
import { curationConfig, send } from "./curation_api.js";
import { h } from "./dom.js";
import { JsonSocket } from "./live_socket.js";
import { FRAME, JOB_KIND, JOB_STATE } from "./names.js";

const config = curationConfig();
const group = config.group;
const jobsApi = `${groupApi(group)}/jobs`;
const body = document.querySelector("[data-jobs]");
const empty = document.querySelector("[data-jobs-empty]");
const message = document.querySelector("[data-jobs-message]");
const jobs = new Map(); // id → the job as last heard of
const ACTIVE = [JOB_STATE.QUEUED, JOB_STATE.RUNNING];
const STARTED = {
  [JOB_KIND.COMMUNITIES]: { algorithm: "label_propagation" },
  [JOB_KIND.REINDEX]: {},
  [JOB_KIND.EXPORT]: {},
};

function say(text) {
  message.textContent = text;
  message.hidden = !text;
}

function progressCell(job) {
  const { stage, done, total } = job.progress;
  const counts = total ? `${done} / ${total}` : done ? String(done) : "";
  const value = total ? Math.min(done, total) : job.state === JOB_STATE.SUCCEEDED ? 1 : 0;
  const bar = h("progress", { max: total || 1, value, "aria-label": `progress of the ${job.kind} job` });
  if (!total && ACTIVE.includes(job.state)) bar.removeAttribute("value"); // indeterminate while counting
  return h("td", { "data-testid": "job-progress" }, bar, " ", h("span", { class: "small muted" }, [stage, counts].filter(Boolean).join(" ")));
}

function outcome(job) {
  if (job.error) return h("span", { class: job.state === JOB_STATE.FAILED ? "error" : "muted" }, job.error);
  if (!job.result) return "";
  const shown = Object.entries(job.result)
    .filter(([, value]) => typeof value !== "object")
    .map(([key, value]) => `${key} ${typeof value === "number" && !Number.isInteger(value) ? value.toFixed(2) : value}`);
  return h("span", { class: "small" }, shown.join(" · "));
}

function actions(job) {
  const cell = h("td");
  if (ACTIVE.includes(job.state) && !job.cancel_requested && (job.kind === JOB_KIND.EXPORT || config.can_curate)) {
    cell.append(h("button", { type: "button", class: "small secondary", "data-testid": "job-cancel", onclick: () => cancel(job) }, "Cancel"));
  } else if (job.cancel_requested && ACTIVE.includes(job.state)) {
    cell.append(h("span", { class: "small muted" }, "cancelling…"));
  }
  if (job.kind === JOB_KIND.EXPORT && job.state === JOB_STATE.SUCCEEDED) {
    cell.append(h("a", { class: "button small", href: `${jobsApi}/${job.id}/result`, "data-testid": "job-download" }, "Download"));
  }
  return cell;
}

function row(job) {
  const started = job.started_at || job.created_at;
  return h(
    "tr",
    { "data-job": job.id, "data-state": job.state, "data-kind": job.kind, "data-testid": "job" },
    h("td", {}, h("strong", {}, job.kind), h("div", { class: "small muted", title: job.id }, job.id.slice(0, 8))),
    h("td", {}, h("span", { class: `badge state-${job.state}`, "data-testid": "job-state" }, job.state)),
    progressCell(job),
    h("td", {}, job.requested_by),
    h("td", { class: "small", title: started }, started ? `${started.slice(0, 10)} ${started.slice(11, 19)}` : ""),
    h("td", { "data-testid": "job-outcome" }, outcome(job)),
    actions(job),
  );
}

function show(job) {
  jobs.set(job.id, job);
  const drawn = row(job);
  const old = body.querySelector(`tr[data-job="${CSS.escape(job.id)}"]`);
  if (old) old.replaceWith(drawn);
  else body.prepend(drawn); // a new job is the newest
  empty.hidden = jobs.size > 0;
}

async function start(kind, payload) {
  say("");
  try {
    show(await send("POST", `${jobsApi}/${kind}`, payload));
  } catch (error) {
    say(`Not started: ${error.message}`);
  }
}

async function cancel(job) {
  try {
    show(await send("POST", `${jobsApi}/${job.id}/cancel`));
  } catch (error) {
    say(`Not cancelled: ${error.message}`);
  }
}

// Choosing a file only reads it: the import starts once the user confirms what the file holds (before, issue 32,
// it started on the choice, and a bad file showed the browser's raw parser message).
const confirmBox = document.querySelector("[data-import-confirm]");
let chosen = null; // {name, document} awaiting "Import"

function closeConfirm(input) {
  chosen = null;
  if (confirmBox) confirmBox.hidden = true;
  input.value = "";
}

async function importFile(input) {
  const file = input.files[0];
  if (!file) return;
  say("");
  let document_;
  try {
    document_ = JSON.parse(await file.text());
  } catch {
    say(`Not started: “${file.name}” is not a graph document: it is not JSON text. Choose a file made by ` +
      "“Export the group”, or one written as docs/import-format.md describes.");
    closeConfirm(input);
    return;
  }
  const lists = document_ && typeof document_ === "object" && !Array.isArray(document_) &&
    Array.isArray(document_.nodes) && Array.isArray(document_.edges);
  if (!lists) {
    say(`Not started: “${file.name}” is JSON but not a graph document: it needs a "nodes" list and an "edges" list.`);
    closeConfirm(input);
    return;
  }
  chosen = { name: file.name, document: document_ };
  const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  confirmBox.querySelector("[data-import-summary]").textContent =
    `Import “${file.name}” (${count(document_.nodes.length, "node")}, ${count(document_.edges.length, "edge")}) into ${config.group}? ` +
    "Items with ids already stored are updated.";
  confirmBox.hidden = false;
  confirmBox.querySelector("[data-import-go]").focus();
}

const fileInput = document.querySelector("[data-import-file]");
if (fileInput) {
  fileInput.addEventListener("change", () => importFile(fileInput));
  confirmBox.querySelector("[data-import-go]").addEventListener("click", async () => {
    if (!chosen) return;
    const { document: document_ } = chosen;
    closeConfirm(fileInput);
    await start(JOB_KIND.IMPORT, document_);
  });
  confirmBox.querySelector("[data-import-cancel]").addEventListener("click", () => closeConfirm(fileInput));
}

for (const button of document.querySelectorAll("[data-start]")) {
  button.addEventListener("click", () => start(button.dataset.start, STARTED[button.dataset.start]));
}

// The list as the page was rendered, newest first; then whatever changes, as it changes.
for (const job of [...config.jobs].reverse()) show(job);
empty.hidden = jobs.size > 0;

let socket = null;
async function refresh() {
  // After a dropped socket, the frames missed meanwhile are read back from the list.
  try {
    const answer = await getJson(jobsApi);
    for (const job of [...answer.jobs].reverse()) show(job);
  } catch (error) {
    if (error instanceof ApiError) say(error.message);
  }
}

function watch() {
  socket = new JsonSocket(`/ws/retrievals/watch/?group=${encodeURIComponent(group)}`, {
    onFrame: (frame) => {
      if (frame.type === FRAME.JOB) show(frame.job);
      else if (frame.type === FRAME.WATCHING) document.body.dataset.jobsLive = "true";
    },
    onClose: (event) => {
      document.body.dataset.jobsLive = "false";
      if (event.code < 4000) setTimeout(() => socket.ready().then(refresh).catch(() => {}), 2000);
    },
  });
  socket.ready().catch(() => {});
}
watch();
