"""The jobs page as the server renders it: linked from the header, the list in its config, start buttons by role."""

from __future__ import annotations

import pytest
from django.http import HttpRequest
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.jobs.models import Job
from tests.explorer.test_live_views import page_config

PASSWORD = "correct horse battery staple"


def signed_in(username: str, role: Role, groups: list[str]) -> Client:
    user_grant(username=username, role=role, groups=groups, password=PASSWORD)
    client = Client()
    assert client.login(request=HttpRequest(), username=username, password=PASSWORD)
    return client


@pytest.mark.django_db
def test_a_viewer_sees_the_list_and_may_only_export(group: str) -> None:
    Job.objects.create(kind="communities", group=group, requested_by="alice", state="succeeded")
    Job.objects.create(kind="export", group="t-someone-else", requested_by="bob", state="running")
    viewer = signed_in("reader", Role.VIEWER, [group])
    response = viewer.get(f"/g/{group}/jobs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="/g/{group}/jobs/"' in html and 'data-testid="nav-jobs"' in html
    config = page_config(html, "curation-config")
    assert (config["group"], config["can_curate"], bool(config["csrf"])) == (group, False, True)
    assert [(job["kind"], job["requested_by"]) for job in config["jobs"]] == [("communities", "alice")]
    assert 'data-start="export"' in html and 'data-start="communities"' not in html
    assert signed_in("stranger", Role.CURATOR, ["t-other"]).get(f"/g/{group}/jobs/").status_code == 404


@pytest.mark.django_db
def test_a_curator_may_start_every_kind(group: str) -> None:
    html = signed_in("keeper", Role.CURATOR, [group]).get(f"/g/{group}/jobs/").content.decode()
    for kind in ("communities", "reindex", "export"):
        assert f'data-start="{kind}"' in html
    assert "data-import-file" in html
