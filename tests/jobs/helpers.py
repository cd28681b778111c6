"""Shared by the job tests: start a job, wait for its end, and a small memory to work on."""

from __future__ import annotations

import json
import time
from typing import Any

from rest_framework.test import APIClient

from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from tests.ingest.test_communities import FAMILY, SUPPLY, add_memory, clique

ENDED = ("succeeded", "failed", "cancelled")


def two_clusters(group: str) -> None:
    add_memory(group, {**SUPPLY, **FAMILY}, [*clique(group, list(SUPPLY), ["stock"]), *clique(group, list(FAMILY), [])])


def start(client: APIClient, group: str, kind: str, body: Any = None) -> Any:
    data = json.dumps(body) if body is not None else None
    return client.post(f"/api/groups/{group}/jobs/{kind}", data=data, content_type="application/json")


def job_of(client: APIClient, group: str, job_id: str) -> dict:
    response = client.get(f"/api/groups/{group}/jobs/{job_id}")
    assert response.status_code == 200, response.content
    return response.json()


def until(client: APIClient, group: str, job_id: str, done: Any, seconds: float = 120) -> dict:
    """Poll the job until done(job) holds (generous: the suite shares two loaded cores)."""
    deadline = time.monotonic() + seconds
    while True:
        job = job_of(client, group, job_id)
        if done(job):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def ended(client: APIClient, group: str, job_id: str) -> dict:
    return until(client, group, job_id, lambda job: job["state"] in ENDED)


def many_entities(group: str, count: int, *, store: bool = False) -> dict:
    """A document of `count` entities in a chain of facts; stored without embeddings when `store`."""
    nodes = [{"id": f"{group}-e{i}", "name": f"Entity number {i}", "summary": f"the {i}th"} for i in range(count)]
    edges = [
        {
            "id": f"{group}-f{i}",
            "source": f"{group}-e{i}",
            "target": f"{group}-e{i + 1}",
            "relation": "next_to",
            "weight": 0.5,
        }
        for i in range(count - 1)
    ]
    document = {"nodes": nodes, "edges": edges}
    if store:
        graph_document_import(document=parse_graph_document(document, group=group), group=group)
    return document
