"""What a process keeps for good is moved out of the cyclic garbage collector's way.

A full collection walks every tracked object of the process and stops every thread while it does: 58-71 ms in a
process serving a 100k-node / 500k-fact group, which put 20 concurrent explorations at p95 464-506 ms against
53-78 ms once the process's long-lived objects were frozen (docs/benchmarks.md, "A 70 ms pause"). What a process
loads to serve (its modules at start, a group's projection or search view once built) lives until it is evicted and
holds no reference cycles, so it goes to the permanent generation (`gc.freeze`), which collections skip; reference
counting still frees it when it is dropped.

Garbage is collected first, so none is frozen; after the first freeze that collection walks only what was made since.
What stays alive across a freeze and later becomes cyclic garbage is never collected, so freezes are rare: at start
and after a whole load, never per request or per write.
"""

from __future__ import annotations

import gc


def long_lived_frozen() -> None:
    """Collect, then move every object the collector tracks to the permanent generation."""
    gc.collect()
    gc.freeze()
