// The graph page's "Views" menu: saved views ("perspectives", like Bloom's) of the group over
// /api/groups/<g>/views (docs/explorer.md). Save the current view under a name (curators may share it with the
// group), list one's own and the shared ones, open, rename, delete, and (curators) make one the group's default,
// which the page opens with when its URL holds no view. What a view holds is the page's URL query (view_state.js).

import { getJson, groupApi } from "./api.js";
import { send } from "./curation_api.js";
import { h } from "./dom.js";

export class ViewsMenu {
  // `root`: the menu's container; `open(query)`: draws a saved state (returns a promise); `canCurate`: the
  // server's word on the user's role, which only decides which controls are offered (the server checks again).
  constructor(root, { group, canCurate, open }) {
    Object.assign(this, { root, group, canCurate, open });
    this.api = `${groupApi(group)}/views`;
    this.query = "";
    this.views = [];
    this.confirming = null; // the id whose "Delete" was pressed once
    this.renaming = null;
    this.el = {
      name: root.querySelector("[data-view-name]"),
      share: root.querySelector("[data-view-share]"),
      list: root.querySelector("[data-views-list]"),
      status: root.querySelector("[data-views-status]"),
    };
    this.el.share.closest("label").hidden = !canCurate;
    root.querySelector("[data-view-save-form]").addEventListener("submit", (event) => {
      event.preventDefault();
      this.save();
    });
    root.addEventListener("toggle", () => { if (root.open) this.load(); });
    this.load();
  }

  // The page's current URL query (what "Save" stores); a saved view equal to it is marked as open.
  stateChanged(query) {
    this.query = query;
    for (const item of this.el.list.querySelectorAll("[data-view-id]")) {
      const view = this.views.find((candidate) => String(candidate.id) === item.dataset.viewId);
      item.classList.toggle("current", Boolean(view && view.state === query));
    }
  }

  announce(text, { error = false } = {}) {
    this.el.status.textContent = text;
    this.el.status.className = error ? "error small" : "muted small";
  }

  async load() {
    try {
      this.views = (await getJson(this.api)).views;
    } catch (error) {
      this.announce(`Could not list the saved views: ${error.message}`, { error: true });
      return;
    }
    this.draw();
  }

  async act(promise, done) {
    try {
      await promise;
      this.announce(done);
    } catch (error) {
      // A 400 names the field ("name: you already have a view named …"); a 403 the role it needs.
      const problems = (error.body && error.body.errors) || [error.message];
      this.announce(problems.join(" "), { error: true });
      return false;
    } finally {
      this.confirming = null;
      this.renaming = null;
      await this.load();
    }
    return true;
  }

  async save() {
    const name = this.el.name.value.trim();
    if (!name) {
      this.announce("name: give the view a name.", { error: true });
      this.el.name.focus();
      return;
    }
    const body = { name, state: this.query, shared: this.canCurate && this.el.share.checked };
    if (await this.act(send("POST", this.api, body), `Saved “${name}”${body.shared ? ", shared with the group" : ""}.`)) {
      this.el.name.value = ""; // kept on a refusal, so nothing typed is lost
    }
  }

  change(view, patch, done) {
    return this.act(send("PATCH", `${this.api}/${view.id}`, patch), done);
  }

  async openView(view) {
    this.announce(`Opening “${view.name}”…`);
    await this.open(view.state);
    this.announce(`Opened “${view.name}”.`);
  }

  draw() {
    const items = this.views.map((view) => this.item(view));
    this.el.list.replaceChildren(...(items.length ? items : [h("li", { class: "muted small", text: "No saved views yet." })]));
    this.stateChanged(this.query);
  }

  item(view) {
    const mayDelete = view.mine || (view.shared && this.canCurate);
    const name = this.renaming === view.id
      ? h("form", { class: "inline", onsubmit: (event) => {
          event.preventDefault();
          const wanted = new FormData(event.target).get("name");
          this.change(view, { name: wanted }, `Renamed to “${wanted}”.`);
        } },
        h("input", { name: "name", value: view.name, "aria-label": "New name", "data-testid": "view-rename-input",
          maxlength: "100", required: true }),
        h("button", { type: "submit", class: "small", "data-testid": "view-rename-save" }, "Save"),
        h("button", { type: "button", class: "small secondary", onclick: () => { this.renaming = null; this.draw(); } }, "Cancel"))
      : h("button", { type: "button", class: "link-like", "data-testid": "view-open", onclick: () => this.openView(view) },
        view.name);
    return h("li", { "data-view-id": String(view.id), "data-testid": "view-item" },
      name, " ",
      view.default ? h("span", { class: "badge label", "data-testid": "view-default", text: "default" }) : null,
      view.shared ? h("span", { class: "badge label", text: view.mine ? "shared" : `shared by ${view.owner}` })
        : h("span", { class: "badge label", text: "private" }),
      h("span", { class: "buttons" },
        view.mine && this.renaming !== view.id
          ? h("button", { type: "button", class: "small secondary", "data-testid": "view-rename",
              onclick: () => { this.renaming = view.id; this.draw(); } }, "Rename") : null,
        view.mine && (this.canCurate || view.shared)
          ? h("button", { type: "button", class: "small secondary", "data-testid": "view-share",
              onclick: () => this.change(view, { shared: !view.shared }, view.shared ? "Now private." : "Shared with the group.") },
            view.shared ? "Make private" : "Share") : null,
        this.canCurate
          ? h("button", { type: "button", class: "small secondary", "data-testid": "view-set-default",
              onclick: () => this.change(view, { default: !view.default },
                view.default ? "The group has no default view now." : `“${view.name}” is the group's default view.`) },
            view.default ? "Not default" : "Make default") : null,
        mayDelete
          ? h("button", { type: "button", class: "small secondary", "data-testid": "view-delete",
              onclick: () => {
                if (this.confirming !== view.id) {
                  this.confirming = view.id;
                  this.draw();
                  return;
                }
                this.act(send("DELETE", `${this.api}/${view.id}`), `Deleted “${view.name}”.`);
              } }, this.confirming === view.id ? "Really delete" : "Delete") : null));
  }
}
