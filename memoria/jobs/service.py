"""Starting, listing, reading and cancelling jobs: the one entry of every face (REST, the explorer's jobs page).

Each call checks access as the rest of the engine does (accounts.check_access): the role first, then the group,
so a job of a group the user may not see is not found, whoever guesses its id. Jobs that write (communities,
import, reindex) need the curator role to start or cancel; an export only needs to see the group.
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from memoria.accounts.roles import Role
from memoria.accounts.services import check_access
from memoria.errors import GroupNotFound, InvalidInput, WriteConflict
from memoria.interchange.document import GraphDocument
from memoria.interchange.importer import graph_document_check
from memoria.jobs import work
from memoria.jobs.inputs import DEFAULT_LIST_LIMIT, CommunitiesJob, ExportJob, ReindexJob
from memoria.jobs.models import ACTIVE_STATES, Job, JobKind, JobState
from memoria.jobs.runner import OWNER, Work, job_as_dict, job_publish, job_runner, jobs_recover

User = AbstractBaseUser | AnonymousUser
ROLE_OF = {JobKind.COMMUNITIES: Role.CURATOR, JobKind.REINDEX: Role.CURATOR, JobKind.IMPORT: Role.CURATOR}


class JobNotFound(GroupNotFound):
    """No job with this id in the group: answered like an unseen group, so other groups' job ids say nothing."""


@functools.cache
def jobs_recover_once() -> int:
    """Once per process, before it answers about jobs: those a stopped process left behind are failed."""
    return jobs_recover()


def _start(user: User, group: str, kind: JobKind, params: dict[str, Any], run: Work) -> dict[str, Any]:
    check_access(user=user, group=group, role=ROLE_OF.get(kind, Role.VIEWER))
    jobs_recover_once()
    with transaction.atomic():
        busy = Job.objects.filter(group=group, kind=kind, state__in=ACTIVE_STATES).values_list("pk", flat=True).first()
        if busy is not None and kind != JobKind.EXPORT:
            raise WriteConflict(f"another {kind} job of the group is queued or running (job {busy}): cancel it or wait")
        job = Job.objects.create(kind=kind, group=group, requested_by=user.get_username(), params=params, owner=OWNER)
    job_publish(job.pk)
    job_runner().submit(job.pk, run)
    return job_as_dict(Job.objects.defer("output").get(pk=job.pk))


def communities_job_start(*, user: User, group: str, request: CommunitiesJob) -> dict[str, Any]:
    params = request.model_dump()
    return _start(user, group, JobKind.COMMUNITIES, params, lambda p: work.communities_work(group, request, p))


def reindex_job_start(*, user: User, group: str, request: ReindexJob) -> dict[str, Any]:
    params = request.model_dump()
    return _start(user, group, JobKind.REINDEX, params, lambda p: work.reindex_work(group, request, p))


def import_job_start(*, user: User, group: str, document: GraphDocument) -> dict[str, Any]:
    """Queue an import once its document passes every check the synchronous import makes (400 otherwise)."""
    check_access(user=user, group=group, role=ROLE_OF[JobKind.IMPORT])
    graph_document_check(document=document, group=group)
    params = {"nodes": len(document.nodes), "edges": len(document.edges)}
    return _start(user, group, JobKind.IMPORT, params, lambda p: work.import_work(group, document, p))


def export_job_start(*, user: User, group: str, request: ExportJob) -> dict[str, Any]:
    return _start(user, group, JobKind.EXPORT, request.model_dump(), lambda p: work.export_work(group, p))


def _job(user: User, group: str, job_id: uuid.UUID | str) -> Job:
    check_access(user=user, group=group)
    jobs_recover_once()
    try:
        return Job.objects.defer("output").get(pk=uuid.UUID(str(job_id)), group=group)
    except (ValueError, Job.DoesNotExist):
        raise JobNotFound(f"no job {str(job_id)!r} in group {group!r}") from None


def job_get(*, user: User, group: str, job_id: uuid.UUID | str) -> dict[str, Any]:
    return job_as_dict(_job(user, group, job_id))


def jobs_list(*, user: User, group: str, limit: int = DEFAULT_LIST_LIMIT) -> list[dict[str, Any]]:
    """The group's jobs, newest first."""
    check_access(user=user, group=group)
    jobs_recover_once()
    return [job_as_dict(job) for job in Job.objects.filter(group=group).defer("output")[:limit]]


def job_cancel(*, user: User, group: str, job_id: uuid.UUID | str) -> dict[str, Any]:
    """Stop a job: a queued one at once, a running one at its next step; a finished one is answered as it is."""
    job = _job(user, group, job_id)
    check_access(user=user, group=group, role=ROLE_OF.get(JobKind(job.kind), Role.VIEWER))
    if Job.objects.filter(pk=job.pk, state=JobState.QUEUED).update(
        state=JobState.CANCELLED, cancel_requested=True, error="cancelled", finished_at=timezone.now()
    ):
        job_publish(job.pk)
    elif Job.objects.filter(pk=job.pk, state=JobState.RUNNING).update(cancel_requested=True):
        job_runner().cancel(job.pk)
        job_publish(job.pk)
    return job_as_dict(Job.objects.defer("output").get(pk=job.pk))


def job_output(*, user: User, group: str, job_id: uuid.UUID | str) -> tuple[dict[str, Any], Any]:
    """A finished job's resource and its output (an export's document); InvalidInput while there is none."""
    job = _job(user, group, job_id)
    if job.kind != JobKind.EXPORT or job.state != JobState.SUCCEEDED:
        raise InvalidInput(
            f"job: only a succeeded export has a document to download (this is a {job.state} {job.kind})"
        )
    output = Job.objects.filter(pk=job.pk).values_list("output", flat=True).get()
    return job_as_dict(job), output
