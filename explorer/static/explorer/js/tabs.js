// Tabs over server-rendered panels: every [data-tabs] tablist shows the panel of the selected tab.
// Without JavaScript the first panel shows; the others are reachable by their ids.

function select(tablist, chosen) {
  for (const tab of tablist.querySelectorAll('[role="tab"]')) {
    const selected = tab === chosen;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    const panel = document.getElementById(tab.getAttribute("aria-controls"));
    if (panel) panel.hidden = !selected;
  }
}

for (const tablist of document.querySelectorAll("[data-tabs]")) {
  const tabs = [...tablist.querySelectorAll('[role="tab"]')];
  tablist.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) select(tablist, tab);
  });
  tablist.addEventListener("keydown", (event) => {
    const index = tabs.indexOf(document.activeElement);
    if (index < 0 || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    const next = tabs[(index + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    select(tablist, next);
  });
  // Open the first tab that has results, so a search for an entity lands on entities.
  const withResults = tabs.find((tab) => parseInt(tab.querySelector(".count")?.textContent || "0", 10) > 0); // "20+": a cap
  select(tablist, withResults || tabs[0]);
}
