"""End-to-end fixtures: a real daphne serving HTTP and websockets, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """A desktop-sized window: the graph view's three columns, and screenshots worth showing.

    The pages' Content-Security-Policy forbids evaluating strings, which Playwright's wait_for_function does in the
    page: these tests bypass it. tests/e2e/test_content_security_policy.py does not, and holds every page to it.
    """
    return {**browser_context_args, "viewport": {"width": 1400, "height": 900}, "bypass_csp": True}
