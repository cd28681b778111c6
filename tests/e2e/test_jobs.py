"""The jobs page in Chromium against a daphne whose jobs pause at each step: a curator starts a community build from
the page and watches its progress arrive over the watch socket, cancels a second one, and after a reload the list
is still there (the jobs live in the database, not in the page)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.graph import driver, kinds
from tests.conftest import running_daphne
from tests.e2e.browsing import screenshot, sign_in
from tests.jobs.helpers import two_clusters

PASSWORD = "correct horse battery staple"
COMMUNITY_COUNT = f"MATCH (c:{kinds.COMMUNITY} {{group_id: $group}}) RETURN count(c) AS n"


@pytest.fixture
def slow_jobs_url(transactional_db: None, tmp_path: Path) -> Iterator[str]:
    """A daphne of its own whose jobs pause 400 ms at each step: time to see them run and to cancel one."""
    with running_daphne(tmp_path / "daphne.log", wait_seconds=60, MEMORIA_JOB_STEP_PAUSE_MS="400") as port:
        yield f"http://127.0.0.1:{port}"


def test_a_curator_runs_watches_cancels_and_reloads(page: Page, slow_jobs_url: str, group: str) -> None:
    two_clusters(group)
    user_grant(username="keeper", role=Role.CURATOR, groups=[group], password=PASSWORD)
    sign_in(page, slow_jobs_url, "keeper", PASSWORD, then=f"/g/{group}/graph/")
    page.get_by_test_id("nav-jobs").click()
    expect(page.get_by_test_id("jobs-page")).to_be_visible()
    expect(page.get_by_test_id("jobs-empty")).to_be_visible()
    page.wait_for_function("document.body.dataset.jobsLive === 'true'")

    page.get_by_test_id("start-communities").click()
    built = page.get_by_test_id("job").first
    expect(built.get_by_test_id("job-state")).to_have_text("running", timeout=20_000)
    expect(built.get_by_test_id("job-progress")).to_contain_text("summarising", timeout=20_000)  # pushed, not polled
    screenshot(page, "jobs.png")
    expect(built.get_by_test_id("job-state")).to_have_text("succeeded", timeout=60_000)
    expect(built.get_by_test_id("job-outcome")).to_contain_text("clustered_entities 8")
    assert driver.read(COMMUNITY_COUNT, group=group)[0]["n"] == 2
    built_id = built.get_attribute("data-job")

    page.get_by_test_id("start-communities").click()
    second = page.locator(f'[data-testid="job"]:not([data-job="{built_id}"])')
    expect(second.get_by_test_id("job-state")).to_have_text(re.compile("queued|running"))
    second.get_by_test_id("job-cancel").click()
    expect(second.get_by_test_id("job-state")).to_have_text("cancelled", timeout=30_000)
    assert driver.read(COMMUNITY_COUNT, group=group)[0]["n"] == 2  # the first build's communities stay

    page.reload()
    rows = page.get_by_test_id("job")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).get_by_test_id("job-state")).to_have_text("cancelled")
    expect(rows.nth(1).get_by_test_id("job-state")).to_have_text("succeeded")
    expect(page.get_by_test_id("job-cancel")).to_have_count(0)


def test_an_import_waits_for_a_confirm_and_a_bad_file_is_told_plainly(
    page: Page, daphne_url: str, transactional_db: None, group: str
) -> None:
    """Before (issue 32): the import started as soon as a file was chosen, and a bad file showed the browser's raw
    JSON parser message."""
    user_grant(username="keeper", role=Role.CURATOR, groups=[group], password=PASSWORD)
    sign_in(page, daphne_url, "keeper", PASSWORD, then=f"/g/{group}/jobs/")
    page.wait_for_function("document.body.dataset.jobsLive === 'true'")
    chooser = page.get_by_test_id("import-file")
    chooser.set_input_files(files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b"{nodes: oops"}])
    message = page.get_by_test_id("jobs-message")
    expect(message).to_have_text(
        re.compile(r"^Not started: “notes\.json” is not a graph document: it is not JSON text\.")
    )
    expect(message).not_to_contain_text("Unexpected token")
    expect(page.get_by_test_id("import-confirm")).to_be_hidden()

    document = {
        "nodes": [{"id": f"{group}-a", "name": "Alpha"}, {"id": f"{group}-b", "name": "Beta"}],
        "edges": [{"source": f"{group}-a", "target": f"{group}-b", "relation": "feeds", "weight": 0.5}],
    }
    chooser.set_input_files(
        files=[{"name": "graph.json", "mimeType": "application/json", "buffer": json.dumps(document).encode()}]
    )
    expect(page.get_by_test_id("import-summary")).to_have_text(
        f"Import “graph.json” (2 nodes, 1 edge) into {group}? Items with ids already stored are updated."
    )
    expect(message).to_be_hidden()
    page.wait_for_timeout(500)
    expect(page.get_by_test_id("job")).to_have_count(0)  # nothing starts on the choice
    page.get_by_test_id("import-cancel").click()
    expect(page.get_by_test_id("import-confirm")).to_be_hidden()
    expect(page.get_by_test_id("job")).to_have_count(0)

    chooser.set_input_files(
        files=[{"name": "graph.json", "mimeType": "application/json", "buffer": json.dumps(document).encode()}]
    )
    page.get_by_test_id("import-go").click()
    job = page.get_by_test_id("job").first
    expect(job.get_by_test_id("job-state")).to_have_text("succeeded", timeout=60_000)
    assert driver.read(f"MATCH (n:{kinds.ENTITY} {{group_id: $group}}) RETURN count(n) AS n", group=group)[0]["n"] == 2
