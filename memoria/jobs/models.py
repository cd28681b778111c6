"""A background job as stored: what was asked, how far it got, and how it ended."""

from __future__ import annotations

import uuid
from enum import StrEnum

from django.db import models


class JobKind(StrEnum):
    COMMUNITIES = "communities"
    REINDEX = "reindex"
    IMPORT = "import"
    EXPORT = "export"


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE_STATES = (JobState.QUEUED, JobState.RUNNING)


class Job(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=[(kind.value, kind.value) for kind in JobKind])
    group = models.CharField(max_length=64)
    state = models.CharField(
        max_length=16, choices=[(state.value, state.value) for state in JobState], default=JobState.QUEUED
    )
    requested_by = models.CharField(max_length=150)
    params = models.JSONField(default=dict)  # the request, minus an import's document
    stage = models.CharField(max_length=32, blank=True, default="")
    done = models.PositiveBigIntegerField(default=0)
    total = models.PositiveBigIntegerField(null=True)
    result = models.JSONField(null=True)  # the work's report, small
    output = models.JSONField(null=True)  # an export's document: read by the result download only
    error = models.TextField(blank=True, default="")
    cancel_requested = models.BooleanField(default=False)
    owner = models.CharField(max_length=200, blank=True, default="")  # host:pid of the process running it
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        indexes = [models.Index(fields=["group", "-created_at"]), models.Index(fields=["state"])]
        ordering = ["-created_at"]
