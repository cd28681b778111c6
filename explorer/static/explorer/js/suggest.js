// Search-as-you-type under a text box: the group's best entities for what has been typed (GET /api/search/suggest:
// names holding the typed words first, then good matches of hybrid search, nothing for nonsense), each with its
// kind, date and a snippet, and its id when another suggestion has the same name. Waits DEBOUNCE_MS
// after the last key, drops answers to older text, and is driven by the keyboard too (↑ ↓ Enter Esc).

import { getJson } from "./api.js";
import { h } from "./dom.js";

export const DEBOUNCE_MS = 200;
const SUGGEST_API = "/api/search/suggest";
let boxes = 0;

export class SuggestBox {
  // onChoose(suggestion) runs for a click or for Enter on a highlighted suggestion; Enter with none highlighted is
  // left to the input's form (a full search, or the graph's "Find").
  constructor(input, { group, onChoose, limit = 8 }) {
    this.input = input;
    this.group = group;
    this.onChoose = onChoose;
    this.limit = limit;
    this.items = [];
    this.active = -1;
    this.timer = null;
    this.request = null;
    const id = `suggest-${++boxes}`;
    this.list = h("ul", { class: "suggest-list", id, role: "listbox", hidden: true, "data-testid": "suggestions" });
    // Screen readers hear how many were found (or that none was good) without leaving the box.
    this.announcer = h("span", { class: "visually-hidden", role: "status", "data-testid": "suggest-status" });
    input.after(this.list, this.announcer);
    input.parentElement.classList.add("suggest-host");
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", id);
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("autocomplete", "off");
    input.addEventListener("input", () => this.schedule());
    input.addEventListener("keydown", (event) => this.key(event));
    input.addEventListener("blur", () => setTimeout(() => this.close(), 150));  // a click on an option lands first
  }

  schedule() {
    clearTimeout(this.timer);
    const text = this.input.value.trim();
    if (!text) {
      this.abort();
      this.close();
      return;
    }
    this.timer = setTimeout(() => this.fetch(text), DEBOUNCE_MS);
  }

  abort() {
    if (this.request) this.request.abort();
    this.request = null;
  }

  async fetch(text) {
    this.abort();
    const request = new AbortController();
    this.request = request;
    let answer;
    try {
      answer = await getJson(SUGGEST_API, { q: text, group: this.group, limit: this.limit }, { signal: request.signal });
    } catch (error) {
      if (error.name !== "AbortError") this.show([], error.message);
      return;
    }
    if (this.request !== request || this.input.value.trim() !== text) return;  // typed on since: a newer one comes
    this.request = null;
    this.show(answer.suggestions);
  }

  show(items, problem = null) {
    this.items = items;
    this.active = -1;
    this.input.removeAttribute("aria-activedescendant");
    const rows = items.map((item, index) => this.row(item, index));
    if (!rows.length) {
      // Below the server's relevance floor nothing is listed (memoria/search/relevance.py): say so, not "found".
      const typed = this.input.value.trim();
      const text = problem || `No good match for “${typed.length > 40 ? `${typed.slice(0, 40)}…` : typed}”. Enter searches everything.`;
      rows.push(h("li", { class: "suggest-empty muted small", "data-testid": "suggest-empty", role: "option", "aria-disabled": "true", text }));
    }
    this.announcer.textContent = items.length ? `${items.length} suggestion${items.length === 1 ? "" : "s"}; ↓ to choose` : rows[0].textContent;
    this.list.replaceChildren(...rows);
    this.list.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
  }

  row(item, index) {
    return h("li", {
      id: `${this.list.id}-${index}`,
      role: "option",
      class: "suggestion",
      "aria-selected": "false",
      "data-testid": "suggestion",
      "data-id": item.id,
      onmousedown: (event) => event.preventDefault(),  // keep the focus in the box
      onclick: () => this.choose(index),
    },
    h("span", { class: "suggest-line" },
      h("strong", { class: "suggest-name", text: item.name }),
      h("span", { class: "badge", "data-testid": "suggestion-kind", text: item.kind }),
      item.date ? h("span", { class: "muted small", "data-testid": "suggestion-date", text: item.date }) : null,
      item.same_name ? h("code", { class: "small", "data-testid": "suggestion-id", text: item.id }) : null),
    item.snippet ? h("span", { class: "suggest-snippet muted small", "data-testid": "suggestion-snippet", text: item.snippet }) : null);
  }

  key(event) {
    if (event.key === "Escape") {
      if (!this.list.hidden) event.preventDefault();  // a search box would also clear its text: only close the list
      this.close();
      return;
    }
    if (event.key === "Enter" && this.active < 0) {
      // The box's form is submitted: the list (or an answer still on its way) would lie over what it draws.
      this.abort();
      this.close();
      return;
    }
    if (this.list.hidden || !this.items.length) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      // Positions run from -1 (back in the text box) to the last suggestion, and wrap around.
      const next = this.active + (event.key === "ArrowDown" ? 1 : -1);
      this.highlight(next >= this.items.length ? -1 : next < -1 ? this.items.length - 1 : next);
    } else if (event.key === "Enter" && this.active >= 0) {
      event.preventDefault();
      this.choose(this.active);
    }
  }

  highlight(index) {
    this.active = index;
    [...this.list.children].forEach((row, at) => row.setAttribute("aria-selected", String(at === this.active)));
    if (this.active >= 0) {
      const row = this.list.children[this.active];
      this.input.setAttribute("aria-activedescendant", row.id);
      row.scrollIntoView({ block: "nearest" });
    } else {
      this.input.removeAttribute("aria-activedescendant");
    }
  }

  choose(index) {
    const item = this.items[index];
    this.close();
    if (item) this.onChoose(item);
  }

  close() {
    clearTimeout(this.timer);
    this.list.hidden = true;
    this.items = [];
    this.active = -1;
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }
}
