"""End-to-end fixtures: a real daphne serving HTTP and websockets, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright keeps an event loop running


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if str(item.path).startswith(str(Path(__file__).parent)):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; `make test` installs Debian's chromium package")
    return {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def daphne_url(django_db_setup: None, django_db_blocker: object) -> Iterator[str]:
    """A daphne process on a free loopback port, on the test database and the session's graph server."""
    port = _free_port()
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="tests.settings", MEMORIA_E2E_SERVER="1", PYTHONPATH=str(ROOT))
    log_path = settings.VAR_DIR / "daphne.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "memoria.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"daphne exited with {process.returncode}; see {log_path}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    else:
        process.kill()
        pytest.fail("daphne did not start listening within 30 s")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)
    log.close()
