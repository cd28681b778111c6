// Plays events at a pace people can follow: a whole retrieval often takes a few milliseconds, so each level
// stays on screen for `stepMs` before the next is drawn. Other events apply at once. A step of 0 plays
// everything as fast as it arrives.
import { EVENT } from "./names.js";

export class EventPlayer {
  constructor(apply, { stepMs = 350, onIdle = () => {} } = {}) {
    this.apply = apply;
    this.stepMs = stepMs;
    this.onIdle = onIdle;
    this.queue = [];
    this.timer = null;
  }

  push(event) {
    this.queue.push(event);
    if (this.timer === null) this.pump();
  }

  setStep(ms) {
    this.stepMs = ms;
    if (ms === 0 && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
      this.pump();
    }
  }

  pump() {
    this.timer = null;
    while (this.queue.length) {
      const event = this.queue.shift();
      this.apply(event);
      if (event.type === EVENT.LEVEL_EXPANDED && this.stepMs > 0) {  // hold even if the next level is not here yet
        this.timer = setTimeout(() => this.pump(), this.stepMs);
        return;
      }
    }
    this.onIdle();
  }

  // Drop what has not been shown yet (a new run replaces the one being played).
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
  }

  busy() {
    return this.timer !== null || this.queue.length > 0;
  }
}
