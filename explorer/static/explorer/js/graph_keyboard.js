// The graph canvas by keyboard (issue 32): the canvas is a tab stop; the arrow keys move a cursor from the node
// it is on to the shown neighbour that lies that way on screen (or, from a node with none that way, to the
// nearest shown node that way), Enter opens the node under the cursor as a click does, Home goes back to the
// open node. The cursor is the view's selection, so it is drawn like one, and a status line says where it is.

const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// The candidate lying most nearly in direction [dx, dy] from `from` (screen pixels), within 60° either side of
// it; nearer and better aligned wins. A node drawn on the same spot counts as lying every way.
export function nodeTowards(view, from, candidates, [dx, dy]) {
  const origin = view.viewportPosition(from);
  let best = null;
  let bestCost = Infinity;
  for (const id of candidates) {
    if (id === from) continue;
    const at = view.viewportPosition(id);
    const x = at.x - origin.x;
    const y = at.y - origin.y;
    const distance = Math.hypot(x, y);
    const cosine = distance ? (x * dx + y * dy) / distance : 1;
    if (cosine < 0.5) continue;
    const cost = distance / cosine;
    if (cost < bestCost || (cost === bestCost && id < best)) {
      best = id;
      bestCost = cost;
    }
  }
  return best;
}

export class GraphKeyboard {
  // `canvas`: the focusable element the view draws in; `status`: a polite live region; `open(id)`: what Enter
  // does; `current()`: the node open in the side panel, where the cursor starts.
  constructor(canvas, view, { status, open, current }) {
    this.canvas = canvas;
    this.view = view;
    this.status = status;
    this.open = open;
    this.current = current;
    this.cursor = null;
    canvas.addEventListener("keydown", (event) => this.key(event));
    canvas.addEventListener("focus", () => this.say(this.cursor && this.shown(this.cursor) ? this.cursor : null));
  }

  shown(id) { return this.view.hasNode(id) && !this.view.isNodeHidden(id); }

  shownNodes() { return this.view.nodeIds().filter((id) => this.shown(id)); }

  // Where the cursor starts: the open node, else the shown node with the most shown links.
  start() {
    const open = this.current();
    if (open && this.shown(open)) return open;
    let best = null;
    let most = -1;
    for (const id of this.shownNodes()) {
      const links = this.view.graph.neighbors(id).filter((other) => this.shown(other)).length;
      if (links > most) { best = id; most = links; }
    }
    return best;
  }

  moveTo(id) {
    this.cursor = id;
    this.view.select([id]);
    this.say(id);
  }

  say(id) {
    if (!id) {
      const count = this.shownNodes().length;
      this.status.textContent = count
        ? `Graph of ${count} node${count === 1 ? "" : "s"}: arrow keys move between neighbours, Enter opens.`
        : "The graph is empty.";
      return;
    }
    const card = this.view.node(id);
    const neighbours = this.view.graph.neighbors(id).filter((other) => this.shown(other)).length;
    this.status.textContent = `${card.name} (${card.kind}), ${neighbours} neighbour${neighbours === 1 ? "" : "s"} shown.`;
  }

  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.target !== this.canvas) return;
    const direction = ARROWS[event.key];
    if (direction) {
      event.preventDefault();
      if (!this.cursor || !this.shown(this.cursor)) {
        const start = this.start();
        if (start) this.moveTo(start);
        return;
      }
      const neighbours = this.view.graph.neighbors(this.cursor).filter((id) => this.shown(id));
      const next = nodeTowards(this.view, this.cursor, neighbours, direction)
        || nodeTowards(this.view, this.cursor, this.shownNodes(), direction);
      if (next) this.moveTo(next);
      else this.say(this.cursor);
    } else if (event.key === "Enter" || event.key === " ") {
      if (!this.cursor || !this.shown(this.cursor)) return;
      event.preventDefault();
      this.open(this.cursor);
    } else if (event.key === "Home") {
      event.preventDefault();
      const start = this.start();
      if (start) this.moveTo(start);
    }
  }
}
