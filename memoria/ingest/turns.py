"""Turns among a group's writers on one host, so a batch that keeps losing races is not starved.

Correctness does not rest on this: a batch's transaction checks what its plan rests on and plans again when
another writer changed it (memoria.ingest.persist). But planning takes seconds on a loaded machine, and while it
plans, writers with smaller batches commit facts between the same entities; measured on 2 busy cores, one batch
of five episodes lost 40 plans in a row. So a batch that has lost `EXCLUSIVE_AFTER` plans takes the group's turn:
new batches of the group wait at the gate until it has written (or given up), and only batches already planning
can still beat it, once.

The gate is an advisory lock on a file (`fcntl.flock`, one file per group under VAR_DIR/locks): every process
and thread on the host sees it, the kernel frees it when its holder dies, and no lock outlives a crash. Writers
on other hosts do not see it; they stay correct and are only less fair. A batch never waits at the gate longer
than `GATE_WAIT_SECONDS`: past that it plans anyway, as it would without the gate.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

EXCLUSIVE_AFTER = 2  # plans lost before a batch takes the group's turn
GATE_WAIT_SECONDS = 60.0
POLL_SECONDS = 0.05


def _gate_path(group: str) -> Path:
    folder = Path(settings.VAR_DIR) / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"ingest-{hashlib.sha256(group.encode()).hexdigest()[:32]}.lock"


def _lock(handle: int, mode: int, *, group: str) -> bool:
    """Take the lock in `mode` within GATE_WAIT_SECONDS; False when the wait ran out."""
    deadline = time.monotonic() + GATE_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                logger.warning("group %s: waited %.0f s for a writer's turn; planning anyway", group, GATE_WAIT_SECONDS)
                return False
            time.sleep(POLL_SECONDS)


@contextmanager
def writer_turn(group: str, *, exclusive: bool) -> Iterator[None]:
    """Around one plan and its write. Not exclusive: pass the gate (wait while another batch holds the turn) and
    go on beside other writers. Exclusive: hold the turn until the block ends, while batches already past the
    gate finish."""
    handle = os.open(_gate_path(group), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if exclusive:
            _lock(handle, fcntl.LOCK_EX, group=group)
            yield
        else:
            if _lock(handle, fcntl.LOCK_SH, group=group):
                fcntl.flock(handle, fcntl.LOCK_UN)
            yield
    finally:
        os.close(handle)  # closing the descriptor releases the lock
