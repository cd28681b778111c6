"""What a process keeps for good is moved out of the cyclic garbage collector's way.

A full collection walks every tracked object of the process and stops every thread while it does: 58-71 ms in a
process serving a 100k-node / 500k-fact group, which put 20 concurrent explorations at p95 464-506 ms against
53-79 ms once the process's long-lived objects were frozen (docs/benchmarks.md, "A 70 ms pause"). What a process
loads to serve (its modules at start, a group's projection or search view once built) lives until it is evicted and
holds no reference cycles, so it goes to the permanent generation (`gc.freeze`), which collections skip; reference
counting still frees it when it is dropped.

A freeze also catches whatever else is alive at that moment, a request in flight for one; if that later becomes
cyclic garbage, no collection would see it. So each freeze first gives everything back to the collector and collects
it all: one full collection per load (where a process left alone makes one every few seconds under load), and
nothing frozen outlives the next load as garbage.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()  # two loads finishing at once: one unfreeze-collect-freeze after the other


def long_lived_frozen() -> None:
    """Collect everything, frozen or not, then move what is left to the permanent generation."""
    with _lock:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
