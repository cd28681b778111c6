// The side panels of the graph, live and watch pages fold away to give the canvas room, and say so to assistive
// technology (aria-expanded). Each page kind remembers its folds in localStorage, so a reload keeps them. Below
// 1000 px the stylesheet stacks the canvas first and the panels under it; folding then shortens the page instead.
import { h } from "./dom.js";

const NAMES = { controls: "controls", details: "details" };

function storageKey(page) {
  return `memoria.panels.${page.classList.contains("live-page") ? "live" : "graph"}`;
}

function saved(page) {
  try {
    return JSON.parse(localStorage.getItem(storageKey(page)) || "{}");
  } catch {
    return {};
  }
}

function fold(page, side, folded, button) {
  page.classList.toggle(`${side}-folded`, folded);
  button.setAttribute("aria-expanded", String(!folded));
  button.textContent = folded ? `Show ${NAMES[side]}` : `Hide ${NAMES[side]}`;
  // The canvas's container changed size without the window doing so: the renderer listens for the window's.
  window.dispatchEvent(new Event("resize"));
}

export function foldablePanels(page) {
  const state = saved(page);
  for (const side of Object.keys(NAMES)) {
    const panel = page.querySelector(`:scope > aside.${side}`);
    if (!panel) continue;
    panel.id ||= `panel-${side}`;
    const button = h("button", {
      type: "button",
      class: "link-like panel-toggle small",
      "aria-controls": panel.id,
      "data-testid": `fold-${side}`,
    });
    button.addEventListener("click", () => {
      const folded = !page.classList.contains(`${side}-folded`);
      fold(page, side, folded, button);
      localStorage.setItem(storageKey(page), JSON.stringify({ ...saved(page), [side]: folded }));
    });
    panel.prepend(button);
    fold(page, side, Boolean(state[side]), button);
  }
}

const page = document.querySelector(".graph-page");
if (page) foldablePanels(page);
