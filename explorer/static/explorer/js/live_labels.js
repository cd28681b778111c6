// Labels that never overlap, for the live view's renderer (issue 32). The live canvas forces the label of every
// node a run reaches, and sigma draws a forced label where it falls, so the demo's question finished as a pile of
// text running off the canvas. Here sigma only proposes its labels; after each frame they are placed, the most
// prominent node first (on a picked path, then ringed, then larger: a larger node carries more energy or score),
// each to the right of its node, else to its left, above or below — the first spot that stays inside the canvas
// and touches no label placed before it nor a ringed node's disc. A label with no such spot is not drawn: past that density a node says its
// name on hover (the renderer's hover box), and its tooltip says more.
//
// Written for sigma 3's two hooks, `defaultDrawNodeLabel` (called per proposed label, into the labels layer) and
// `defaultDrawNodeHover` (the hovers layer: the hovered node and every highlighted one).

const GAP = 3; // px between a node's rim and its label, and kept clear around each label
// A longer name is cut with an ellipsis (the demo's longest run past 450 px and found no free spot); the whole
// name is in the hover box, the tooltip, the paths list and the chain.
const LONGEST = 36;

export function shortLabel(label) {
  return label.length > LONGEST ? `${label.slice(0, LONGEST - 1).trimEnd()}…` : label;
}

function touches(a, b) {
  return a.left < b.right + GAP && b.left < a.right + GAP && a.top < b.bottom + GAP && b.top < a.bottom + GAP;
}

// Where a label of width `width` may go around a node drawn at (x, y) with radius `size`: its text origin (left,
// baseline) and the box the text may fill (an ascent of the font size, a descent of 0.3 of it).
function spots({ x, y, size }, width, fontSize) {
  const box = (left, baseline) => ({ x: left, y: baseline, left, right: left + width, top: baseline - fontSize, bottom: baseline + 0.3 * fontSize });
  const middle = y + fontSize / 3; // sigma's own baseline for a label beside its node
  return [
    box(x + size + GAP, middle),
    box(x - size - GAP - width, middle),
    box(x - width / 2, y - size - GAP - 0.3 * fontSize),
    box(x - width / 2, y + size + GAP + fontSize),
  ];
}

export class LabelPlacer {
  constructor(view) {
    this.view = view;
    this.sigma = view.sigma;
    this.proposed = [];
    this.placed = new Map(); // node id → the box its label was drawn in, this frame
    this.hovered = null;
    this.drawHoverBox = this.sigma.getSetting("defaultDrawNodeHover"); // sigma's own: a box with the label
    this.sigma.setSetting("defaultDrawNodeLabel", (context, data, settings) => {
      this.proposed.push({ data, settings });
    });
    this.sigma.setSetting("defaultDrawNodeHover", (context, data, settings) => this.drawHover(context, data, settings));
    this.sigma.on("beforeRender", () => { this.proposed = []; });
    this.sigma.on("afterRender", () => this.place());
    view.on("enterNode", (id) => { this.hovered = id; });
    view.on("leaveNode", () => { this.hovered = null; });
  }

  // The hovered node gets sigma's box with its name; a highlighted one (a seed, the frontier) only a white ring,
  // its label being placed with the others.
  drawHover(context, data, settings) {
    if (data.key === this.hovered) {
      this.drawHoverBox(context, data, settings);
      return;
    }
    context.save();
    context.fillStyle = "#fff";
    context.shadowColor = "rgba(0, 0, 0, 0.35)";
    context.shadowBlur = 6;
    context.beginPath();
    context.arc(data.x, data.y, data.size + 2, 0, 2 * Math.PI);
    context.fill();
    context.restore();
  }

  place() {
    const canvas = this.sigma.getCanvases().labels;
    this.placed = new Map();
    if (!canvas || !this.proposed.length) return;
    const context = canvas.getContext("2d");
    const { width, height } = this.sigma.getDimensions();
    const rings = this.proposed.filter(({ data }) => data.highlighted).map(({ data }) => ({
      key: data.key, left: data.x - data.size - 2, right: data.x + data.size + 2, top: data.y - data.size - 2, bottom: data.y + data.size + 2,
    }));
    // The nodes of a picked path first (the chain being read), then ringed ones, then larger ones.
    const rank = ({ data }) => (this.view.isHighlighted(data.key) ? 2 : 0) + (data.highlighted ? 1 : 0);
    const order = [...this.proposed].sort((a, b) =>
      rank(b) - rank(a) || b.data.size - a.data.size || String(a.data.key).localeCompare(String(b.data.key)));
    const boxes = [];
    for (const { data, settings } of order) {
      if (!data.label) continue;
      const label = shortLabel(data.label);
      const fontSize = settings.labelSize;
      context.font = `${settings.labelWeight} ${fontSize}px ${settings.labelFont}`;
      const textWidth = context.measureText(label).width;
      const onPath = this.view.isHighlighted(data.key); // may pass over a ring rather than go unnamed
      const spot = spots(data, textWidth, fontSize).find((box) =>
        box.left >= 0 && box.right <= width && box.top >= 0 && box.bottom <= height
        && !boxes.some((other) => touches(other, box))
        && (onPath || !rings.some((ring) => ring.key !== data.key && touches(ring, box))));
      if (!spot) continue;
      boxes.push(spot);
      this.placed.set(data.key, spot);
      const colour = settings.labelColor.attribute ? data[settings.labelColor.attribute] || settings.labelColor.color : settings.labelColor.color;
      context.fillStyle = colour || "#000";
      context.fillText(label, spot.x, spot.y);
    }
  }
}
