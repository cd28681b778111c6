// The as-of control of the graph and live pages: the moment (UTC) whose facts expansions, paths, subgraphs and
// live retrievals use — the REST and websocket `as_of` (docs/retrieval.md, "Time"). It lives in the page's URL as
// ?as_of=, so a link shows the memory at the same moment; empty means the page's default (the graph view: every
// fact, which it asks for with include_invalidated; a retrieval: now, the API's default). The rule of which facts count is the server's (memoria/graph/asof.py), not copied here.

import { h } from "./dom.js";

// A moment as typed, read as UTC: "2025-02-01", "2025-02-01 09:30", "2025-02-01T09:30:15" (a trailing Z allowed) →
// "2025-02-01T09:30:15Z"; "" → null; anything else, or a day that does not exist → undefined. A text box rather
// than a datetime-local input: Chromium makes each of that input's seven fields a tab stop (issue 32: the as-of
// control took 8 of them).
const TYPED = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?Z?$/;

export function stampOf(text) {
  const value = (text || "").trim();
  if (!value) return null;
  const parts = TYPED.exec(value);
  if (!parts) return undefined;
  const [year, month, date, hours = "00", minutes = "00", seconds = "00"] = parts.slice(1);
  const moment = new Date(Date.UTC(+year, +month - 1, +date, +hours, +minutes, +seconds));
  const stamp = `${moment.toISOString().slice(0, 19)}Z`;
  // Date.UTC rolls 2025-02-30 over into March and 24:00 into the next day: such a moment was not what was typed.
  return stamp === `${year}-${month}-${date}T${hours}:${minutes}:${seconds}Z` ? stamp : undefined;
}

// "2025-02-01T09:30:15Z" (or any date-time Date reads) → the box's "2025-02-01T09:30:15".
function inputValueOf(stamp) {
  const moment = stamp ? new Date(stamp) : null;
  return moment && !Number.isNaN(moment.getTime()) ? moment.toISOString().slice(0, 19) : "";
}

const PROBLEM = "Not a moment: write a UTC date as 2025-02-01, 2025-02-01 09:30 or 2025-02-01T09:30:15. The moment shown before is kept.";

export class AsOfControl {
  // `input`: a text box (one tab stop); `clear`: a button back to the default; `onChange(stamp)`: the
  // moment changed by the user or by `set` (stamp null for the default).
  // `keepInUrl: false` leaves the URL to a page that writes its whole state there (the graph page).
  constructor({ input, clear, onChange = () => {}, keepInUrl = true }) {
    this.input = input;
    this.onChange = onChange;
    this.keepInUrl = keepInUrl;
    this.problem = h("span", { class: "error small", role: "alert", id: `${input.id || "as-of"}-problem`, "data-testid": "as-of-problem" });
    this.problem.hidden = true;
    (input.closest("label") || input).after(this.problem);
    this.stamp = stampOf(new URLSearchParams(window.location.search).get("as_of")) || null;
    this.input.value = inputValueOf(this.stamp);
    this.input.addEventListener("change", () => this.typed());
    if (clear) clear.addEventListener("click", () => this.set(null));
  }

  // The moment as the API takes it, or null.
  value() {
    return this.stamp;
  }

  // The API parameters of the moment: {as_of} or nothing.
  parameters() {
    const stamp = this.value();
    return stamp ? { as_of: stamp } : {};
  }

  set(stamp) {
    this.show(stamp);
    this.changed();
  }

  // Show a moment without telling anyone (a page restoring a view it is about to redraw anyway).
  show(stamp) {
    this.stamp = stampOf(inputValueOf(stamp)) || null;
    this.input.value = inputValueOf(this.stamp);
    this.sayProblem(false);
  }

  // What was typed: a moment is taken (and written back in the box's one form), anything else is refused in
  // words beside the box and changes nothing.
  typed() {
    const stamp = stampOf(this.input.value);
    if (stamp === undefined) {
      this.sayProblem(true);
      return;
    }
    this.set(stamp);
  }

  sayProblem(shown) {
    this.problem.textContent = shown ? PROBLEM : "";
    this.problem.hidden = !shown;
    if (shown) {
      this.input.setAttribute("aria-invalid", "true");
      this.input.setAttribute("aria-describedby", this.problem.id);
    } else {
      this.input.removeAttribute("aria-invalid");
      this.input.removeAttribute("aria-describedby");
    }
  }

  changed() {
    const stamp = this.value();
    if (!this.keepInUrl) {
      this.onChange(stamp);
      return;
    }
    const url = new URL(window.location.href);
    if (stamp) url.searchParams.set("as_of", stamp);
    else url.searchParams.delete("as_of");
    window.history.replaceState(window.history.state, "", url);
    this.onChange(stamp);
  }
}
