"""The bodies that start jobs, as pydantic models on the domain's vocabulary (memoria.requests.vocabulary).

An import job's body is the graph document itself (docs/import-format.md), checked by its own parser.
"""

from __future__ import annotations

from pydantic import Field

from memoria.ingest.community_request import CommunityBuild
from memoria.requests.query import WholeQuery
from memoria.requests.vocabulary import RequestModel


class CommunitiesJob(CommunityBuild):
    """Rebuild the group's communities as a job: the synchronous build's body and rules (one model, one wording);
    the old communities stay until the new ones are written, in one transaction."""


class ReindexJob(RequestModel):
    """Embed the group's texts that lack a vector (or, with `all`, every text again)."""

    all: bool = Field(default=False, strict=True, description="recompute every vector, not only the missing ones")


class ExportJob(RequestModel):
    """Write the whole group as a graph document, downloaded from the job's result once it succeeded."""


DEFAULT_LIST_LIMIT = 50
MAX_LIST_LIMIT = 200


class JobListQuery(RequestModel):
    """The query of a group's job list; an empty value is the default (the browse views' rule and words)."""

    limit: WholeQuery(1, MAX_LIST_LIMIT) = Field(  # type: ignore[valid-type]
        default=DEFAULT_LIST_LIMIT, description=f"default {DEFAULT_LIST_LIMIT}"
    )
