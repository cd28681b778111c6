"""What each kind of job does, on the engine's services, reporting through a runner.Progress.

Stopping early (a cancel, a failure, a stopped process) leaves stored data whole:
- communities: the old communities stay until the new ones are written in one transaction; a cancel during that
  transaction rolls it back;
- import: the document is written in one transaction, which a cancel rolls back; embedding what it wrote comes
  after the commit, batch by batch, and a cancel there leaves the rest to a reindex (the result says so);
- reindex: each batch of vectors is stored on its own; a cancel keeps the batches stored, and the next reindex
  goes on from there (it embeds only what still lacks a vector);
- export: reads only.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from memoria.ingest.communities import communities_build
from memoria.interchange.document import GraphDocument
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import, import_size
from memoria.jobs.inputs import CommunitiesJob, ReindexJob
from memoria.jobs.runner import Progress
from memoria.reindex import group_reindex, reindex_backlog

Outcome = tuple[dict[str, Any], Any]


def communities_work(group: str, request: CommunitiesJob, progress: Progress) -> Outcome:
    report = communities_build(
        group=group, algorithm=request.algorithm, resolution=request.resolution, progress=progress.step
    )
    return asdict(report), None


def _reindex_result(report: Any) -> dict[str, Any]:
    return {**asdict(report), "texts": report.texts}


def reindex_work(group: str, request: ReindexJob, progress: Progress) -> Outcome:
    progress.stage("counting")
    progress.stage("embedding", reindex_backlog(group=group, only_missing=not request.all))
    progress.partial = {"note": "the vectors stored before the cancel stay; a reindex goes on from there"}
    report = group_reindex(group=group, only_missing=not request.all, progress=progress.advance)
    return _reindex_result(report), None


def import_work(group: str, document: GraphDocument, progress: Progress) -> Outcome:
    progress.stage("writing", import_size(document))
    progress.partial = {"note": "nothing of the import was written"}
    report = graph_document_import(document=document, group=group, progress=progress.advance, checkpoint=progress.check)
    written = {key: value for key, value in asdict(report).items() if key not in ("touched_ids", "embedding")}
    progress.partial = {
        **written,
        "note": "the import was written; the texts it left without a vector are embedded by a reindex job",
    }
    ids = list(report.touched_ids)
    progress.stage("embedding", reindex_backlog(group=group, ids=ids) if ids else 0)
    embedded = group_reindex(group=group, ids=ids, progress=progress.advance) if ids else None
    return {**written, "embedded": embedded.texts if embedded else 0}, None


def export_work(group: str, progress: Progress) -> Outcome:
    progress.stage("reading")
    document = graph_document_export(group=group)
    counts = {key: len(document[key]) for key in ("nodes", "edges", "mentions", "memberships")}
    progress.step("reading", 1, 1)
    return counts, document
