// Search-as-you-type in the header's box (and the home page's): choosing a suggestion opens the entity's page;
// Enter with none highlighted runs the full search page as before.

import { pageUrl } from "./api.js";
import { SuggestBox } from "./suggest.js";

for (const input of document.querySelectorAll("input[data-suggest-group]")) {
  const group = input.dataset.suggestGroup;
  const box = new SuggestBox(input, {
    group,
    onChoose: (item) => window.location.assign(pageUrl(group, { kind: "Entity", id: item.id })),
  });
  input.memoriaSuggest = box;  // for the console and the tests
}
