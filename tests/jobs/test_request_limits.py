"""The synchronous import, export and community build answer small groups at once and send big ones to a job:
413 use_a_job naming the jobs endpoint, nothing written, the same answer every time."""

from __future__ import annotations

import json

from tests.conftest import count_group
from tests.interchange.test_import_export import sample

SAMPLE_ITEMS = 9  # its 5 nodes, 2 edges and 2 links


def test_big_work_is_sent_to_a_job_and_small_work_is_done_at_once(client_for, group: str, settings) -> None:
    curator = client_for("curator", [group])
    document = json.dumps(sample(group))

    def post_import() -> object:
        return curator.post(f"/api/groups/{group}/import", data=document, content_type="application/json")

    settings.MEMORIA_SYNC_MAX_ITEMS = SAMPLE_ITEMS - 1
    for _ in range(2):  # deterministic: refused the same way again, never as an outage
        refused = post_import()
        assert refused.status_code == 413, refused.content
        body = refused.json()
        assert body["code"] == "use_a_job" and body["job"] == f"/api/groups/{group}/jobs/import"
        assert (
            "9 items, more than the 8" in body["detail"]
            and "('import')" in body["detail"]
            and "Retry-After" not in refused.headers
        )
    assert count_group(group) == {"nodes": 0, "edges": 0}

    settings.MEMORIA_SYNC_MAX_ITEMS = SAMPLE_ITEMS
    assert post_import().status_code == 200
    assert curator.get(f"/api/groups/{group}/export").status_code == 200
    assert curator.post(f"/api/groups/{group}/communities", data={}, format="json").status_code == 200

    settings.MEMORIA_SYNC_MAX_ITEMS = 2  # the group now holds 5 nodes (then its communities), 3 of them entities
    exported = curator.get(f"/api/groups/{group}/export")
    assert exported.status_code == 413 and exported.json()["job"] == f"/api/groups/{group}/jobs/export"
    built = curator.post(f"/api/groups/{group}/communities", data={}, format="json")
    assert built.status_code == 413 and built.json()["job"] == f"/api/groups/{group}/jobs/communities"
    assert "would cluster 3 items" in built.json()["detail"]


def test_a_refusal_says_nothing_of_a_group_one_cannot_see(client_for, group: str, settings) -> None:
    settings.MEMORIA_SYNC_MAX_ITEMS = 1
    outsider = client_for("curator", ["elsewhere"])
    assert outsider.get(f"/api/groups/{group}/export").status_code == 404
