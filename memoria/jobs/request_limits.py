"""What one request may still do synchronously: the old endpoints (POST import, GET export, POST communities)
answer small groups at once and refuse big ones with NeedsAJob, so no request holds its connection for long.

Measured before jobs existed: a community build over 19k entities and the export of a 38k-node group each took
over 10 s. At the rates seen here (about 2k items/s imported, 4k nodes/s exported) MEMORIA_SYNC_MAX_ITEMS'
default of 10,000 keeps each request to a few seconds; it is an operating limit, not a quality constant.
"""

from __future__ import annotations

from django.conf import settings

from memoria.errors import NeedsAJob
from memoria.graph import driver, kinds
from memoria.interchange.document import GraphDocument
from memoria.jobs.models import JobKind

GROUP_NODES = f"MATCH (n:{kinds.MEMORY_LABEL} {{group_id: $group}}) RETURN count(n) AS size"
GROUP_ENTITIES = f"MATCH (n:{kinds.ENTITY} {{group_id: $group}}) RETURN count(n) AS size"


def _limit() -> int:
    return int(settings.MEMORIA_SYNC_MAX_ITEMS)


def _check(kind: JobKind, *, group: str, size: int, what: str) -> None:
    if size > _limit():
        raise NeedsAJob(kind, group=group, size=size, limit=_limit(), what=what)


def sync_export_check(*, group: str) -> None:
    size = int(driver.read(GROUP_NODES, group=group)[0]["size"] or 0)
    _check(JobKind.EXPORT, group=group, size=size, what=f"the export of group {group!r} would hold")


def sync_communities_check(*, group: str) -> None:
    size = int(driver.read(GROUP_ENTITIES, group=group)[0]["size"] or 0)
    _check(JobKind.COMMUNITIES, group=group, size=size, what=f"the community build of group {group!r} would cluster")


def sync_import_check(document: GraphDocument, *, group: str) -> None:
    size = len(document.nodes) + len(document.edges) + len(document.mentions) + len(document.memberships)
    _check(JobKind.IMPORT, group=group, size=size, what="the document holds")
