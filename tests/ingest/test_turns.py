"""Writers' turns: a batch holding its group's turn keeps new batches of that group waiting, not others'."""

from __future__ import annotations

import threading
import time

import pytest

from memoria.ingest import turns
from memoria.ingest.turns import writer_turn


def hold(group: str, held: threading.Event, release: threading.Event) -> threading.Thread:
    def run() -> None:
        with writer_turn(group, exclusive=True):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=run)
    thread.start()
    assert held.wait(10)
    return thread


def test_a_batch_waits_at_the_gate_while_another_holds_the_turn() -> None:
    held, release = threading.Event(), threading.Event()
    holder = hold("turns-a", held, release)
    entered: list[float] = []
    waiter = threading.Thread(target=lambda: entered.append(_pass("turns-a")))
    waiter.start()
    time.sleep(0.3)
    assert entered == []  # still at the gate
    released = time.monotonic()
    release.set()
    waiter.join(10)
    holder.join(10)
    assert entered and entered[0] >= released


def test_another_groups_batch_passes_at_once() -> None:
    held, release = threading.Event(), threading.Event()
    holder = hold("turns-b", held, release)
    try:
        started = time.monotonic()
        assert _pass("turns-c") - started < 0.2
    finally:
        release.set()
        holder.join(10)


def test_two_batches_without_the_turn_go_on_side_by_side() -> None:
    with writer_turn("turns-d", exclusive=False):
        started = time.monotonic()
        assert _pass("turns-d") - started < 0.2


def test_a_turn_held_too_long_is_waited_for_only_so_long(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turns, "GATE_WAIT_SECONDS", 0.3)
    held, release = threading.Event(), threading.Event()
    holder = hold("turns-e", held, release)
    try:
        started = time.monotonic()
        assert 0.3 <= _pass("turns-e") - started < 2.0
    finally:
        release.set()
        holder.join(10)


def _pass(group: str) -> float:
    """When a batch without the turn got past the gate."""
    with writer_turn(group, exclusive=False):
        return time.monotonic()
