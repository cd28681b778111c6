// How fast energy decays: per hop, the selected transfer energies' min–max band and median, the strongest
// rejected candidate, and the MIN_ACTIVATION line, as an inline SVG on a log scale.

import { number } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 310;
const HEIGHT = 170;
const MARGIN = { left: 44, right: 10, top: 10, bottom: 26 };

function svg(tag, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

// `rows` from RetrievalRun.depthSummary(); `seedTop` the strongest seed score; `threshold` MIN_ACTIVATION.
export function depthPlot(rows, { threshold, seedTop }) {
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "depth-plot", role: "img", "data-testid": "depth-plot" });
  const values = rows.flatMap((row) => [row.min, row.max, row.rejectedMax]).filter((value) => value > 0);
  if (!rows.length || !values.length) {
    root.append(svg("text", { x: WIDTH / 2, y: HEIGHT / 2, "text-anchor": "middle", class: "empty" }, "no levels yet"));
    root.setAttribute("aria-label", "no levels yet");
    return root;
  }
  const high = Math.max(...values, seedTop || 0, threshold);
  const low = Math.min(...values, threshold);
  const top = 10 ** Math.ceil(Math.log10(high));
  const bottom = 10 ** Math.floor(Math.log10(low));
  const maxDepth = Math.max(...rows.map((row) => row.depth));
  const x = (depth) => MARGIN.left + ((depth - 0.5) / maxDepth) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (value) =>
    MARGIN.top + ((Math.log10(top) - Math.log10(value)) / (Math.log10(top) - Math.log10(bottom))) * (HEIGHT - MARGIN.top - MARGIN.bottom);

  for (let decade = Math.log10(bottom); decade <= Math.log10(top); decade += 1) {
    const value = 10 ** decade;
    root.append(
      svg("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(value), y2: y(value), class: "grid" }),
      svg("text", { x: MARGIN.left - 4, y: y(value) + 3, "text-anchor": "end", class: "tick" }, number(value, 1)),
    );
  }
  root.append(
    svg("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(threshold), y2: y(threshold), class: "threshold" }),
    svg("text", { x: WIDTH - MARGIN.right, y: y(threshold) - 3, "text-anchor": "end", class: "threshold-label" }, `MIN_ACTIVATION ${number(threshold)}`),
  );
  const band = Math.min(22, (WIDTH - MARGIN.left - MARGIN.right) / maxDepth / 2);
  const medians = [];
  for (const row of rows) {
    const cx = x(row.depth);
    const group = svg("g", {
      "data-depth": row.depth,
      "data-count": row.count,
      "data-min": row.min ?? "",
      "data-median": row.median ?? "",
      "data-max": row.max ?? "",
    });
    group.append(svg("title", {}, `hop ${row.depth}: ${row.count} selected` +
      (row.count ? `, T from ${number(row.min)} to ${number(row.max)}, median ${number(row.median)}` : "") +
      (row.rejected ? `; ${row.rejected} rejected shown, strongest ${number(row.rejectedMax)}` : "")));
    if (row.count) {
      group.append(svg("rect", { x: cx - band / 2, width: band, y: y(row.max), height: Math.max(y(row.min) - y(row.max), 1.5), class: "band" }));
      medians.push(`${cx},${y(row.median)}`);
      group.append(svg("circle", { cx, cy: y(row.median), r: 3, class: "median" }));
    }
    if (row.rejectedMax > 0) group.append(svg("line", { x1: cx - band / 2, x2: cx + band / 2, y1: y(row.rejectedMax), y2: y(row.rejectedMax), class: "rejected" }));
    group.append(svg("text", { x: cx, y: HEIGHT - MARGIN.bottom + 14, "text-anchor": "middle", class: "tick" }, String(row.depth)));
    root.append(group);
  }
  if (medians.length > 1) root.append(svg("polyline", { points: medians.join(" "), class: "median-line" }));
  root.append(svg("text", { x: (WIDTH + MARGIN.left) / 2, y: HEIGHT - 2, "text-anchor": "middle", class: "axis-label" }, "hop"));
  root.setAttribute("aria-label", `transfer energy per hop over ${rows.length} hops`);
  return root;
}
