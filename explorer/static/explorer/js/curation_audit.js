// The audit page's undo buttons (curators): undo an entry through the API, then show the list again; a refusal
// (409: a later change to the item, already undone, or the graph no longer as the entry left it) is shown as is.

import { curation, curationConfig } from "./curation_api.js";

const { group } = curationConfig();
const message = document.querySelector("[data-undo-message]");

for (const button of document.querySelectorAll("[data-undo]")) {
  button.addEventListener("click", async () => {
    button.disabled = true;
    message.hidden = true;
    try {
      await curation.undo(group, button.dataset.undo);
      window.location.reload();
    } catch (error) {
      message.textContent = `Undo of entry #${button.dataset.undo} refused: ${error.message}`;
      message.hidden = false;
      button.disabled = false;
    }
  });
}
