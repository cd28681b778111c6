// A node's menu on the graph page (right click on a node, or Shift+F10 / the context-menu key / "Menu" in its
// panel): expand, expand by relation and direction with counts, expand to a depth, collapse, dismiss the others,
// path ends, and open it in the live page as a seed — the node menu Bloom users look for (issue 32).
// The page supplies what each item does; this module draws the menu and drives it by mouse and keyboard
// (WAI-ARIA menu: ↑ ↓ Home End move, Enter or Space choose, Esc closes and gives the focus back).

import { getJson, groupApi } from "./api.js";
import { h } from "./dom.js";

const segment = encodeURIComponent;

// A node's facts by relation and direction, at the page's moment, from the graph index's edge lists
// (GET /api/graph/<group>/nodes/<id>/outgoing and …/incoming): [{direction, relation, ends: [ids]}], most first.
export async function relationGroups(group, id, moment) {
  const base = `/api/graph/${segment(group)}/nodes/${segment(id)}`;
  const [outgoing, incoming] = await Promise.all([
    getJson(`${base}/outgoing`, moment), getJson(`${base}/incoming`, moment),
  ]);
  const groups = new Map();
  const add = (direction, relation, end) => {
    const key = `${direction} ${relation}`;
    if (!groups.has(key)) groups.set(key, { direction, relation, ends: new Set() });
    groups.get(key).ends.add(end);
  };
  for (const edge of outgoing.edges) add("out", edge.relation, edge.target);
  for (const edge of incoming.edges) add("in", edge.relation, edge.source);
  return [...groups.values()]
    .map((entry) => ({ ...entry, ends: [...entry.ends] }))
    .sort((a, b) => b.ends.length - a.ends.length || a.relation.localeCompare(b.relation));
}

export class NodeMenu {
  // `stage`: the element the menu is placed in (positioned); `actions`: {expand(id), expandRelation(id, ends),
  // expandDepth(id, depth), collapse(id), dismissOthers(id), pathFrom(id), pathTo(id), liveUrl(id), name(id),
  // moment()}.
  constructor(stage, { group, actions, depths = [2, 3] }) {
    this.stage = stage;
    this.group = group;
    this.actions = actions;
    this.depths = depths;
    this.returnFocus = null;
    this.el = h("div", { class: "node-menu", role: "menu", "data-testid": "node-menu", hidden: true, tabindex: "-1" });
    this.el.addEventListener("keydown", (event) => this.key(event));
    stage.append(this.el);
    document.addEventListener("pointerdown", (event) => {
      if (!this.el.hidden && !this.el.contains(event.target)) this.close({ focus: false });
    });
  }

  get isOpen() { return !this.el.hidden; }

  items() { return [...this.el.querySelectorAll('[role="menuitem"]:not([disabled])')]; }

  item(text, testid, onChoose, extra = {}) {
    return h("button", {
      type: "button", role: "menuitem", tabindex: "-1", class: "node-menu-item", "data-testid": testid, ...extra,
      onclick: () => { this.close(); onChoose(); },
    }, text);
  }

  // Open for node `id` at (x, y) in the stage's pixels; the first item takes the focus, and closing gives it back
  // to `returnTo` (an element, or a function finding it; by default what had it).
  open(id, { x = 16, y = 16, returnTo = null } = {}) {
    const act = this.actions;
    this.returnFocus = returnTo || document.activeElement;
    const name = act.name(id);
    this.relations = h("div", { role: "group", "aria-label": "Expand by relation", "data-testid": "node-menu-relations" },
      h("p", { class: "muted small node-menu-note", text: "Relations: counting…" }));
    this.el.replaceChildren(
      h("p", { class: "node-menu-title small", text: name.length > 48 ? `${name.slice(0, 48)}…` : name }),
      this.item("Expand", "menu-expand", () => act.expand(id)),
      this.relations,
      ...this.depths.map((depth) => this.item(`Expand to depth ${depth}`, `menu-depth-${depth}`, () => act.expandDepth(id, depth))),
      this.item("Collapse (hide what only it links)", "menu-collapse", () => act.collapse(id)),
      this.item("Dismiss others", "menu-dismiss-others", () => act.dismissOthers(id)),
      this.item("Path from here", "menu-path-from", () => act.pathFrom(id)),
      this.item("Path to here", "menu-path-to", () => act.pathTo(id)),
      h("a", { href: act.liveUrl(id), role: "menuitem", tabindex: "-1", class: "node-menu-item", "data-testid": "menu-live" },
        "Open in live retrieval as a seed"),
    );
    this.el.setAttribute("aria-label", `Actions on ${name}`);
    this.el.hidden = false;
    const width = this.stage.clientWidth;
    const height = this.stage.clientHeight;
    this.el.style.left = `${Math.max(4, Math.min(x, width - this.el.offsetWidth - 4))}px`;
    this.el.style.top = `${Math.max(4, Math.min(y, height - this.el.offsetHeight - 4))}px`;
    this.focusAt(0);
    this.countRelations(id);
  }

  async countRelations(id) {
    const opened = id;
    this.openedFor = id;
    let groups;
    try {
      groups = await relationGroups(this.group, id, this.actions.moment());
    } catch (error) {
      if (this.openedFor === opened) this.relations.replaceChildren(h("p", { class: "error small", text: error.message }));
      return;
    }
    if (this.openedFor !== opened || !this.isOpen) return;
    if (!groups.length) {
      this.relations.replaceChildren(h("p", { class: "muted small node-menu-note", text: "No facts at this moment." }));
      return;
    }
    this.relations.replaceChildren(...groups.map((entry) => {
      const arrow = entry.direction === "out" ? "→" : "←";
      return this.item(`${arrow} ${entry.relation} (${entry.ends.length})`, "menu-relation",
        () => this.actions.expandRelation(id, entry.ends),
        { "data-relation": entry.relation, "data-direction": entry.direction,
          "aria-label": `Expand ${entry.direction === "out" ? "outgoing" : "incoming"} ${entry.relation}: ${entry.ends.length}` });
    }));
  }

  focusAt(index) {
    const items = this.items();
    if (!items.length) return;
    const at = (index + items.length) % items.length;
    items[at].focus();
  }

  key(event) {
    const items = this.items();
    const at = items.indexOf(document.activeElement);
    if (event.key === "ArrowDown") this.focusAt(at + 1);
    else if (event.key === "ArrowUp") this.focusAt(at - 1);
    else if (event.key === "Home") this.focusAt(0);
    else if (event.key === "End") this.focusAt(items.length - 1);
    else if (event.key === "Escape" || event.key === "Tab") this.close();
    else return;
    event.preventDefault();
  }

  close({ focus = true } = {}) {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.openedFor = null;
    // `returnTo` may be a function: the element to focus may have been redrawn while the menu was open.
    const target = typeof this.returnFocus === "function" ? this.returnFocus() : this.returnFocus;
    if (focus && target && document.contains(target)) target.focus();
  }
}
