"""Saved views of the graph page ("perspectives"): the page's URL state under a name, per user and group."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

MAX_NAME_LENGTH = 100
# The graph page's URL query (explorer/static/explorer/js/view_state.js caps what it writes well below this).
MAX_STATE_LENGTH = 8000


class Perspective(models.Model):
    """A named graph-page state; private to its owner unless shared, and at most one per group is the default.

    Kept in Django's database, not the graph: it describes how people look at a group, not what the group knows,
    so exports, imports and backups of the memory never carry it.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="perspectives")
    group = models.CharField(max_length=64, db_index=True)
    name = models.CharField(max_length=MAX_NAME_LENGTH)
    state = models.TextField(max_length=MAX_STATE_LENGTH, blank=True)
    shared = models.BooleanField(default=False)
    is_default = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "group", "name"], name="unique_perspective_name"),
            models.UniqueConstraint(fields=["group"], condition=Q(is_default=True), name="one_default_perspective"),
            models.CheckConstraint(condition=Q(is_default=False) | Q(shared=True), name="default_perspective_shared"),
        ]
        ordering = ["group", "name", "id"]

    def __str__(self) -> str:
        return f"{self.group}: {self.name} ({self.owner})"
