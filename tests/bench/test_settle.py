"""Waiting for the graph server's own work: the real embedded server's CPU, read from /proc."""

from __future__ import annotations

import io
import os
import time

import pytest
from django.core.management import CommandError, call_command

from memoria.bench import settle
from memoria.bench.settle import server_settled


def test_a_quiet_server_is_settled_after_one_window() -> None:
    # Two cores cannot give more than 2.5 cores of CPU in a window: the first window counts as quiet.
    settled = server_settled(cap_seconds=30, window_seconds=0.3, quiet_cores=2.5)
    assert settled.quiet
    assert settled.last_cores is not None and 0 <= settled.last_cores < 2.5
    assert 0.3 <= settled.waited_seconds < 5
    assert "settled after" in settled.describe()


def test_a_server_that_never_quietens_is_left_at_the_cap() -> None:
    said: list[str] = []
    started = time.monotonic()
    settled = server_settled(cap_seconds=0.8, window_seconds=0.2, quiet_cores=-1.0, say=said.append)
    assert not settled.quiet
    assert 0.8 <= time.monotonic() - started < 5
    assert said and all(line.startswith("  waiting for the graph server:") for line in said)
    assert "still busy at the cap" in settled.describe()


def test_no_cap_means_no_wait() -> None:
    settled = server_settled(cap_seconds=0)
    assert (settled.waited_seconds, settled.last_cores, settled.quiet) == (0.0, None, False)
    assert settled.describe() == "no wait asked (--settle 0): not waited for"


def test_the_server_cpu_is_read_from_proc() -> None:
    before = settle._cpu_seconds(os.getpid())
    ends = time.process_time() + 0.3
    while time.process_time() < ends:
        pass
    after = settle._cpu_seconds(os.getpid())
    assert before is not None and after is not None and after - before >= 0.2
    assert settle._server_pid() is not None  # the suite runs the embedded server
    assert settle._cpu_seconds(2**22 + 12345) is None  # beyond any pid


def test_bench_tenants_refuses_a_negative_settle() -> None:
    with pytest.raises(CommandError, match=r"--settle -1.0: must be 0"):
        call_command("bench", "tenants", "--settle", "-1", stdout=io.StringIO())
