// The as-of control of the graph and live pages: the moment (UTC) whose facts expansions, paths, subgraphs and
// live retrievals use — the REST and websocket `as_of` (docs/retrieval.md, "Time"). It lives in the page's URL as
// ?as_of=, so a link shows the memory at the same moment; empty means the page's default (the graph view: every
// fact, which it asks for with include_invalidated; a retrieval: now, the API's default). The rule of which facts count is the server's (memoria/graph/asof.py), not copied here.

// "2025-02-01T09:30" or "2025-02-01T09:30:15" (the input's value, read as UTC) → "2025-02-01T09:30:15Z".
function stampOf(value) {
  if (!value) return null;
  const moment = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(moment.getTime()) ? null : `${moment.toISOString().slice(0, 19)}Z`;
}

// "2025-02-01T09:30:15Z" (or any date-time Date reads) → the input's "2025-02-01T09:30:15".
function inputValueOf(stamp) {
  const moment = stamp ? new Date(stamp) : null;
  return moment && !Number.isNaN(moment.getTime()) ? moment.toISOString().slice(0, 19) : "";
}

export class AsOfControl {
  // `input`: a datetime-local input (step 1); `clear`: a button back to the default; `onChange(stamp)`: the
  // moment changed by the user or by `set` (stamp null for the default).
  // `keepInUrl: false` leaves the URL to a page that writes its whole state there (the graph page).
  constructor({ input, clear, onChange = () => {}, keepInUrl = true }) {
    this.input = input;
    this.onChange = onChange;
    this.keepInUrl = keepInUrl;
    this.input.value = inputValueOf(new URLSearchParams(window.location.search).get("as_of"));
    this.input.addEventListener("change", () => this.changed());
    if (clear) clear.addEventListener("click", () => this.set(null));
  }

  // The moment as the API takes it, or null.
  value() {
    return stampOf(this.input.value);
  }

  // The API parameters of the moment: {as_of} or nothing.
  parameters() {
    const stamp = this.value();
    return stamp ? { as_of: stamp } : {};
  }

  set(stamp) {
    this.input.value = inputValueOf(stamp);
    this.changed();
  }

  // Show a moment without telling anyone (a page restoring a view it is about to redraw anyway).
  show(stamp) {
    this.input.value = inputValueOf(stamp);
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
