"""Background jobs over REST (docs/api.md, "Jobs"): start one (202 and the job), list, read, cancel, download.

Thin: parse the body with the jobs' own parsers, call memoria.jobs.service, which checks the role and the group.
"""

from __future__ import annotations

import json
import uuid

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memoria.accounts.services import check_access
from memoria.admission.throttles import IngestThrottle
from memoria.api.parameters import query_parameters
from memoria.api.throttles import ThrottledOutput
from memoria.interchange.document import parse_graph_document
from memoria.interchange.records import GraphDocumentBody
from memoria.jobs.inputs import (
    CommunitiesJob,
    ExportJob,
    JobListQuery,
    ReindexJob,
)
from memoria.jobs.service import (
    communities_job_start,
    export_job_start,
    import_job_start,
    job_cancel,
    job_get,
    job_output,
    jobs_list,
    reindex_job_start,
)
from memoria.requests.vocabulary import input_parse

ACCEPTED = {202: OpenApiTypes.OBJECT}


class JobStartView(APIView):
    """Every start answers 202 with the job at once; the work goes on in the background."""

    parser_classes = [JSONParser]  # writing kinds: ReadOrCurate, the curator role (the service checks it too)

    def accepted(self, job: dict) -> Response:
        return Response(job, status=status.HTTP_202_ACCEPTED, headers={"Location": job_location(job)})


def job_location(job: dict) -> str:
    return f"/api/groups/{job['group']}/jobs/{job['id']}"


class CommunitiesJobView(JobStartView):
    @extend_schema(request=CommunitiesJob, responses=ACCEPTED)
    def post(self, request: Request, group: str) -> Response:
        body = input_parse(CommunitiesJob, request.data)
        return self.accepted(communities_job_start(user=request.user, group=group, request=body))


class ReindexJobView(JobStartView):
    @extend_schema(request=ReindexJob, responses=ACCEPTED)
    def post(self, request: Request, group: str) -> Response:
        body = input_parse(ReindexJob, request.data)
        return self.accepted(reindex_job_start(user=request.user, group=group, request=body))


class ExportJobView(JobStartView):
    permission_classes = [IsAuthenticated]  # an export only reads: viewers may start one

    @extend_schema(request=ExportJob, responses=ACCEPTED)
    def post(self, request: Request, group: str) -> Response:
        body = input_parse(ExportJob, request.data)
        return self.accepted(export_job_start(user=request.user, group=group, request=body))


class ImportJobView(JobStartView):
    """The body is a graph document (docs/import-format.md), checked before the job is queued."""

    throttle_classes = [IngestThrottle]

    @extend_schema(request=GraphDocumentBody, responses={202: OpenApiTypes.OBJECT, 429: ThrottledOutput})
    def post(self, request: Request, group: str) -> Response:
        check_access(user=request.user, group=group)  # the role is checked already; the group before a big body
        document = parse_graph_document(request.data, group=group)
        return self.accepted(import_job_start(user=request.user, group=group, document=document))


class JobListView(APIView):
    @extend_schema(
        operation_id="groups_jobs_list",
        parameters=query_parameters(JobListQuery),
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, group: str) -> Response:
        given = {key: value for key, value in request.query_params.items() if value != ""}  # empty: the default
        query = input_parse(JobListQuery, given)
        return Response({"group": group, "jobs": jobs_list(user=request.user, group=group, limit=query.limit)})


class JobView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, group: str, job_id: uuid.UUID) -> Response:
        return Response(job_get(user=request.user, group=group, job_id=job_id))


class JobCancelView(APIView):
    permission_classes = [IsAuthenticated]  # the role the job's kind needs is checked by the service

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, group: str, job_id: uuid.UUID) -> Response:
        return Response(job_cancel(user=request.user, group=group, job_id=job_id))


class JobResultView(APIView):
    """A succeeded export's document, as a file to save (what GET /export answers, produced in the background)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, group: str, job_id: uuid.UUID) -> HttpResponse:
        job, document = job_output(user=request.user, group=group, job_id=job_id)
        response = HttpResponse(json.dumps(document), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{group}-{job["id"][:8]}.json"'
        return response
