// Keyboard shortcuts on every page, listed in a help dialog ("?") and on the help page: both tables are drawn from
// the one list below.
import { h } from "./dom.js";

export const SHORTCUTS = [
  { keys: "/", what: "Focus the search box (the header's, or the page's own)" },
  { keys: "?", what: "Show the keyboard shortcuts" },
  { keys: "Esc", what: "Close this dialog or the open suggestions; leave the text box you are in" },
  { keys: "Ctrl+Enter", what: "Run: submit the form you are typing in, or start the live page's retrieval" },
  { keys: "Ctrl+Z", what: "Graph page: undo the last change to what is shown (expand, hide, pin, path, PPR, add)" },
  { keys: "Ctrl+Shift+Z", what: "Graph page: redo what was undone" },
  { keys: "Shift+click", what: "Graph page: add a node to the selection, or take it out (the Selection box acts on all)" },
  { keys: "← ↑ → ↓", what: "Graph page, the graph focused (Tab to it): move the selection to the neighbouring node that lies that way" },
  { keys: "Enter", what: "Graph page, the graph focused: open the selected node (Home: back to the open node)" },
  { keys: "Shift+F10", what: "Graph page: the open node's menu (expand, collapse, paths, live seed)" },
];

function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function searchBox() {
  return document.querySelector("main input[type=search], main .searchbar input, [data-testid=header-search]");
}

function shortcutsTable() {
  return h(
    "table",
    { class: "shortcuts-table" },
    h("tbody", {}, SHORTCUTS.map(({ keys, what }) => h("tr", {}, h("th", { scope: "row" }, h("kbd", { text: keys })), h("td", { text: what })))),
  );
}

let dialog = null;

function helpDialog() {
  if (dialog) return dialog;
  dialog = h(
    "dialog",
    { class: "shortcuts", "aria-labelledby": "shortcuts-title", "data-testid": "shortcuts-dialog" },
    h("h2", { id: "shortcuts-title", text: "Keyboard shortcuts" }),
    shortcutsTable(),
    h("p", { class: "small" }, h("a", { href: "/help/" }, "Help"), " · ", h("a", { href: "/api/docs/" }, "API documentation")),
    h("form", { method: "dialog" }, h("button", { type: "submit", class: "small", "data-testid": "shortcuts-close" }, "Close")),
  );
  document.body.append(dialog);
  return dialog;
}

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.altKey || event.metaKey) return;
  const inField = typing(event.target);
  if (event.key === "Enter" && event.ctrlKey) {
    const form = inField ? event.target.closest("form") : null;
    const run = document.querySelector("[data-testid=run]");
    if (form) form.requestSubmit();
    else if (run) run.click();
    else return;
    event.preventDefault();
    return;
  }
  if (event.ctrlKey) return;
  if (event.key === "Escape" && inField && !(dialog && dialog.open)) {
    event.target.blur(); // open suggestions close on their own Esc handler first
    return;
  }
  if (inField) return;
  if (event.key === "/") {
    const box = searchBox();
    if (!box) return;
    event.preventDefault();
    box.focus();
    box.select();
  } else if (event.key === "?") {
    event.preventDefault();
    helpDialog().showModal();
  }
});

for (const place of document.querySelectorAll("[data-shortcuts]")) place.replaceChildren(shortcutsTable());
