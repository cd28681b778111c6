"""Waiting for the graph server to finish its own work before a timed phase.

After a bulk write, ArcadeDB keeps compacting and indexing in the background: 500k facts written by `bench tenants`
left the embedded server using a whole core for minutes (measured in /proc: 1.0 core 4.5 minutes after the last
write), which the next phase's timings then shared on a 2-core machine — even the query embedding, which never
touches the server, ran 1.32× slower. A phase that follows a bulk write therefore starts once the server's CPU has
stayed low for a whole window, or after a cap, and the report says which.

Only the embedded server's CPU can be seen (its pid is ours); for an external server nothing is waited for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memoria.errors import EmbeddedServerError
from memoria.graph.embedded import embedded_server_from_settings

QUIET_CORES = 0.15  # the server's CPU over one window, in cores, below which it counts as settled
WINDOW_SECONDS = 10.0
DEFAULT_CAP_SECONDS = 1200.0


@dataclass(frozen=True)
class Settled:
    waited_seconds: float
    last_cores: float | None  # the server's CPU over the last window; None when none was measured
    quiet: bool  # False: the cap was reached first, or nothing was measured
    unmeasured: str = ""  # why nothing was measured

    def describe(self) -> str:
        if self.last_cores is None:
            return f"{self.unmeasured}: not waited for"
        state = "settled" if self.quiet else "still busy at the cap"
        waited, cores = self.waited_seconds, self.last_cores
        return f"graph server {state} after {waited:.0f} s ({cores:.2f} cores over the last window)"


def _server_pid() -> int | None:
    try:
        return embedded_server_from_settings().status().pid
    except EmbeddedServerError:
        return None


def _cpu_seconds(pid: int) -> float | None:
    """User and system CPU of the process so far, from /proc (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime and stime: fields 14 and 15


def server_settled(
    *,
    cap_seconds: float = DEFAULT_CAP_SECONDS,
    window_seconds: float = WINDOW_SECONDS,
    quiet_cores: float = QUIET_CORES,
    say: Callable[[str], None] | None = None,
) -> Settled:
    """Wait until the embedded server's CPU over one window is below `quiet_cores`, at most `cap_seconds`."""
    if cap_seconds <= 0:
        return Settled(0.0, None, False, "no wait asked (--settle 0)")
    pid = _server_pid()
    started = time.monotonic()
    if pid is None or (before := _cpu_seconds(pid)) is None:
        return Settled(0.0, None, False, "the graph server's CPU cannot be seen (not the embedded server)")
    while True:
        time.sleep(window_seconds)
        after = _cpu_seconds(pid)
        if after is None:
            return Settled(time.monotonic() - started, None, False, "the graph server's process ended")
        cores = (after - before) / window_seconds
        waited = time.monotonic() - started
        if cores < quiet_cores:
            return Settled(waited, cores, True)
        if waited >= cap_seconds:
            return Settled(waited, cores, False)
        if say is not None:
            say(f"  waiting for the graph server: {cores:.2f} cores over the last {window_seconds:.0f} s")
        before = after
