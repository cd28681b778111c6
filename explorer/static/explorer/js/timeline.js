// The entity page's timeline: each fact's bar placed from its data-left and data-width (percent of the time span).
// Set through the CSSOM, which the Content-Security-Policy allows, where a style attribute in the page would not be.

for (const bar of document.querySelectorAll(".track .bar[data-left][data-width]")) {
  bar.style.left = `${Number(bar.dataset.left)}%`;
  bar.style.width = `${Number(bar.dataset.width)}%`;
}
