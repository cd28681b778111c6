"""axe-core (vendored in axe-playwright-python) on every explorer page in Chromium, as a curator so the curation
controls are drawn too: no serious or critical violation, at the desktop width and at 800 px, and in dark mode.

Each page is checked once it has drawn what it draws for a first visit (the graph with its nodes, the live page
after a retrieval, search with its results), since most of a page's markup is made by its scripts."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.jobs.models import Job
from tests.e2e.browsing import sign_in
from tests.e2e.memory import warehouse_memory
from tests.e2e.test_live import wait_finished

PASSWORD = "correct horse battery staple"
BLOCKING = {"serious", "critical"}
READY_MS = 60_000
BACKGROUNDS = {"light": "rgb(246, 247, 249)", "dark": "rgb(16, 21, 30)"}


@pytest.fixture
def memory(transactional_db: None, group: str) -> dict[str, str]:
    ids = warehouse_memory(group)
    user_grant(username="curator", role=Role.CURATOR, groups=[group], password=PASSWORD)
    # The jobs page with rows to draw: one running (its progress bar and cancel button), one failed.
    progress = {"requested_by": "curator", "stage": "summarising", "done": 1, "total": 3}
    Job.objects.create(kind="communities", group=group, state="running", **progress)
    Job.objects.create(kind="import", group=group, state="failed", error="the graph server could not be reached")
    return ids


def _pages(group: str, ids: dict[str, str]) -> dict[str, tuple[str, Callable[[Page], None]]]:
    """Page name → (path, what to wait for before checking)."""

    def selector(css: str) -> Callable[[Page], None]:
        return lambda page: page.wait_for_selector(css, timeout=READY_MS)

    def graph_ready(page: Page) -> None:
        page.wait_for_function("document.body.dataset.graphReady === 'true'", timeout=READY_MS)

    def loaded(page: Page) -> None:
        page.wait_for_load_state("networkidle", timeout=READY_MS)

    def retrieved(page: Page) -> None:
        """The live page after a retrieval: its paths, panels, depth plot and edge list are drawn."""
        page.wait_for_function("document.body.dataset.liveReady === 'true'", timeout=READY_MS)
        page.get_by_test_id("run").click()
        wait_finished(page)

    node = quote(ids["forecast"], safe="")
    return {
        "home": ("/", loaded),
        "search": (f"/search/?q={quote('gloves Lyon')}", loaded),
        "help": ("/help/", selector("[data-shortcuts] kbd")),
        "entity": (f"/g/{group}/entities/{quote(ids['forecast'], safe='/')}/", loaded),
        "episode": (f"/g/{group}/episodes/{quote(ids['ep1'], safe='/')}/", loaded),
        "community": (f"/g/{group}/communities/{quote(ids['com'], safe='/')}/", loaded),
        "graph": (f"/g/{group}/graph/?nodes={node}", graph_ready),
        "live": (f"/g/{group}/live/", loaded),
        "live, after a retrieval": (f"/g/{group}/live/?seed={node}", retrieved),
        "watch": (f"/g/{group}/watch/", loaded),
        "audit": (f"/g/{group}/audit/", loaded),
        "jobs": (f"/g/{group}/jobs/", selector("[data-testid=job-cancel]")),
        "not found": (f"/g/{group}/entities/no-such-node/", selector("main")),
    }


def _blocking(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} — "
        + "; ".join(f"{' '.join(node['target'])} ({node.get('failureSummary', '')})" for node in violation["nodes"][:5])
        for violation in results.response["violations"]
        if violation["impact"] in BLOCKING
    ]


@pytest.mark.parametrize(("width", "scheme"), [(1400, "light"), (800, "light"), (1400, "dark")])
def test_every_page_has_no_serious_or_critical_violation(
    page: Page, daphne_url: str, memory: dict, group: str, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    sign_in(page, daphne_url, "curator", PASSWORD)
    page.wait_for_url(f"{daphne_url}/", timeout=READY_MS)
    found: dict[str, list[str]] = {}
    for name, (path, ready) in _pages(group, memory).items():
        page.goto(daphne_url + path)
        ready(page)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == BACKGROUNDS[scheme], (name, background)  # the scheme asked for is the one drawn
        if problems := _blocking(page):
            found[name] = problems
    assert not found, "\n".join(f"{name}: {problem}" for name, problems in found.items() for problem in problems)


def test_the_sign_in_page_has_no_serious_or_critical_violation(page: Page, daphne_url: str) -> None:
    page.goto(f"{daphne_url}/accounts/login/")
    assert _blocking(page) == []
